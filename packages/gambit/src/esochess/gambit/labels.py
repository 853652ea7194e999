"""The display forms of a decision's options, computed lazily (labels are read only by the
game layer of a real execution, never by look-ahead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from esochess.gambit.machine import Machine


class Labels(Sequence[str]):
    """Display forms of a decision's options, computed on first use.

    Forks exploring options never look at labels, so they cost nothing there. They are
    computed from the machine's state when first read: read them before `choose`.
    """

    def __init__(self, machine: Machine, options: tuple[Any, ...]) -> None:
        self._machine: Machine | None = machine
        self._options = options
        self._done: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._done is None:
            assert self._machine is not None
            self._done = tuple(self._machine.display(o) for o in self._options)
            self._machine = None
        return self._done

    def __len__(self) -> int:
        return len(self._options)

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __eq__(self, other: object) -> bool:
        return tuple(self._all()) == tuple(other) if isinstance(other, Sequence) else False

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())
