"""The one connect step of every `--scheduler` option (cql, chespel match)."""

from __future__ import annotations

import sys

import pytest

from esochess.fen import scheduler


def test_unreachable_scheduler_names_the_address() -> None:
    with pytest.raises(scheduler.SchedulerError) as info:
        scheduler.connect("tcp://127.0.0.1:9", timeout="1s", worker_wait=1.0)
    assert info.value.message.startswith("cannot reach the scheduler at tcp://127.0.0.1:9")
    assert not info.value.missing


def test_missing_package_is_reported_with_the_callers_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    with pytest.raises(scheduler.SchedulerError) as info:
        scheduler.connect("tcp://127.0.0.1:9", hint=" (pip install 'x[dask]')")
    assert info.value.missing
    assert info.value.message == (
        "--scheduler requires the 'distributed' package (pip install 'x[dask]')"
    )
