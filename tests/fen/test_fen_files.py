"""write_atomic: whole-or-nothing writes with the permissions a plain open() would give."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from esochess.fen import write_atomic


def test_writes_text_and_bytes(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.txt", "é\n")
    write_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "a.txt").read_bytes() == "é\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin"]


def test_new_file_mode_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o640


def test_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "old"
    target.write_text("before")
    target.chmod(0o604)
    write_atomic(target, "after")
    assert target.read_text() == "after"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604


def test_failure_leaves_nothing_behind(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "missing-dir" / "f", "x")
    assert list(tmp_path.iterdir()) == []
