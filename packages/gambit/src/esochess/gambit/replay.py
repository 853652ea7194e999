"""Record files (docs/reference/gambit.md#gambit-run): what a run writes with `--record` and re-runs
with `--replay`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from esochess.gambit.game import Key, key_text

RECORD_FORMAT = "gambit-record/1"


class RecordFormatError(Exception):
    """A record file that cannot be used: a usage error (exit 2)."""


class ReplayDiverged(Exception):
    """A replay that does not match its record: exit 5, "replay diverged: …"."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"replay diverged: {detail}")
        self.detail = detail


@dataclass
class Record:
    """One game: program, seed, controllers, choices `(seat, key)`, result and hash."""

    program: str
    seed: int
    players: list[str]
    choices: list[tuple[int, Key]] = field(default_factory=list)
    result: str | None = None
    state_hash: str | None = None

    def to_json(self) -> str:
        """The record as JSON text in the docs/reference/gambit.md#gambit-run layout (one choice
        pair per entry)."""
        doc: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "program": self.program,
            "seed": self.seed,
            "players": self.players,
            "choices": [[seat, list(k) if isinstance(k, tuple) else k] for seat, k in self.choices],
            "result": self.result,
            "state_hash": self.state_hash,
        }
        # The layout of docs/reference/gambit.md#gambit-run: one key per line, each [seat, option]
        # pair kept on one line.
        lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))}" for k, v in doc.items()]
        return "{\n" + ",\n".join(lines) + "\n}\n"


def _key(value: Any, where: str) -> Key:
    if isinstance(value, bool):
        raise RecordFormatError(f"{where}: an option must be a number or a list of numbers")
    if isinstance(value, int) and value >= 1:
        return value
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
    ):
        return tuple(sorted(value))
    raise RecordFormatError(f"{where}: an option must be a number or a list of numbers")


def parse_record(text: str, path: str) -> Record:
    """Read a record file's text; raises RecordFormatError naming the problem."""
    deep = _too_deep(text)
    if deep is not None:
        raise RecordFormatError(f"{path}:{deep[0]}:{deep[1]}: not a record file: nested more "
                                f"than {MAX_RECORD_NESTING} levels deep")  # fmt: skip
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordFormatError(
            f"{path}:{err.lineno}:{err.colno}: not a JSON record file: {err.msg}"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT:
        raise RecordFormatError(f"{path}: not a record file (expected format {RECORD_FORMAT!r})")
    seed = doc.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise RecordFormatError(f"{path}: 'seed' must be a whole number of at least 0")
    players = doc.get("players")
    if (
        not isinstance(players, list)
        or not players
        or not all(isinstance(p, str) for p in players)
    ):
        raise RecordFormatError(f"{path}: 'players' must be a non-empty list of player names")
    raw = doc.get("choices")
    if not isinstance(raw, list):
        raise RecordFormatError(f"{path}: 'choices' must be a list of [seat, option] pairs")
    choices: list[tuple[int, Key]] = []
    for i, item in enumerate(raw, 1):
        where = f"{path}: choice {i}"
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or isinstance(item[0], bool)
            or item[0] < 1
        ):
            raise RecordFormatError(f"{where}: expected [seat, option]")
        choices.append((item[0], _key(item[1], where)))
    result = doc.get("result")
    state_hash = doc.get("state_hash")
    if result is not None and not isinstance(result, str):
        raise RecordFormatError(f"{path}: 'result' must be a string")
    if state_hash is not None and not isinstance(state_hash, str):
        raise RecordFormatError(f"{path}: 'state_hash' must be a string")
    program = doc.get("program")
    return Record(
        program=program if isinstance(program, str) else "",
        seed=seed,
        players=players,
        choices=choices,
        result=result,
        state_hash=state_hash,
    )


class ReplaySource:
    """Hands out a record's choices in order and checks them against the game."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.position = 0

    def next_choice(self, seat: int, legal_keys: list[Key]) -> Key:
        """The next recorded option for a decision of `seat`; raises ReplayDiverged."""
        n = self.position + 1
        if self.position >= len(self.record.choices):
            raise ReplayDiverged(
                f"the game needs more choices than the {len(self.record.choices)} recorded"
            )
        rec_seat, key = self.record.choices[self.position]
        if rec_seat != seat:
            raise ReplayDiverged(f"choice {n} was made by Player {rec_seat}, but Player {seat} decides here")
        if key not in legal_keys:
            raise ReplayDiverged(f"choice {n} ({key_text(key)}) is not a legal option for Player {seat}")
        self.position += 1
        return key

    def finish(self, result_line: str, state_hash: str) -> None:
        """Check the end of the game against the record; raises ReplayDiverged."""
        left = len(self.record.choices) - self.position
        if left:
            raise ReplayDiverged(f"{left} recorded choice(s) left over when the game ended")
        if self.record.result is not None and self.record.result != result_line:
            raise ReplayDiverged(f"the result is '{result_line}', the record says '{self.record.result}'")
        if self.record.state_hash is not None and self.record.state_hash != state_hash:
            raise ReplayDiverged(
                f"the state hash is {state_hash}, the record says {self.record.state_hash}"
            )


# A record file nests four levels (the document, its choices, one choice, a choose[K]
# option); JSON nested deeper than this is refused before the (recursive) JSON reader runs.
MAX_RECORD_NESTING = 32


def _too_deep(text: str) -> tuple[int, int] | None:
    """The line and column of the first bracket nested past the limit, scanning once."""
    depth = 0
    line, col = 1, 0
    in_string = escaped = False
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_RECORD_NESTING:
                return line, col
        elif ch in "]}":
            depth -= 1
    return None
