"""write_atomic: whole-or-nothing writes with the permissions a plain open() would give."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from esochess.fen import SourceError, UnreadableFile, format_diagnostic, read_source, write_atomic


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


def test_read_source_returns_utf8_text(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes("caf\u00e9 \u2654\n".encode())
    assert read_source(path) == "caf\u00e9 \u2654\n"


def test_read_source_points_at_the_first_byte_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"first line\r\n\xe2\x99\x94 caf\xe9 \xff\r\nlast\n")
    with pytest.raises(SourceError) as info:
        read_source(path)
    err = info.value
    assert (err.path, err.line, err.column) == (str(path), 2, 6)
    assert err.message == "the file is not UTF-8 text (byte 0xe9)"
    assert err.source_line == "\u2654 caf\ufffd \ufffd"
    assert format_diagnostic(err).splitlines()[1:] == ["\u2654 caf\ufffd \ufffd", "     ^"]


def test_read_source_reports_a_file_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile, match=r"cannot read .*missing\.txt: no such file"):
        read_source(tmp_path / "missing.txt")
    with pytest.raises(UnreadableFile, match="directory"):
        read_source(tmp_path)
