"""open_output: the one writer — devices and FIFOs in place, links followed, no
predictable or leftover temporary file, an input never overwritten."""

from __future__ import annotations

import errno
import io
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.fen import files
from esochess.fen.files import ALSO_AN_INPUT, OutputError, open_output, write_atomic


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_text_mode_is_utf8_with_surrogateescape_and_no_newline_translation(tmp_path: Path) -> None:
    target = tmp_path / "out.pgn"
    with open_output(target, text=True) as handle:
        handle.write("é\r\n\udcff\n")
    assert target.read_bytes() == b"\xc3\xa9\r\n\xff\n"
    assert _names(tmp_path) == ["out.pgn"]


def test_nothing_appears_before_the_block_ends(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_bytes(b"old")
    with open_output(target) as handle:
        handle.write(b"new")
        handle.flush()
        assert target.read_bytes() == b"old"
    assert target.read_bytes() == b"new"


def test_an_exception_in_the_block_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out"
    target.write_bytes(b"old")
    for exc in (ValueError("boom"), KeyboardInterrupt(), OSError(errno.ENOSPC, "No space")):
        with pytest.raises(type(exc)):
            with open_output(target, text=True) as handle:
                handle.write("partial")
                raise exc
    assert target.read_bytes() == b"old"
    assert _names(tmp_path) == ["out"]


class _FullDisk(io.BufferedWriter):
    """A handle on a disk that fills up: at write, or only when the data is flushed."""

    fail_at = "write"

    def write(self, data: Any) -> int:
        if self.fail_at == "write":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(data)

    def flush(self) -> None:
        if self.fail_at == "close" and not self.closed:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        super().flush()


@pytest.mark.parametrize("fail_at", ["write", "close"])
@pytest.mark.parametrize("text", [False, True])
def test_a_full_disk_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: str, text: bool
) -> None:
    opened: list[_FullDisk] = []

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> _FullDisk:
        handle = _FullDisk(io.FileIO(fd, "wb"))
        handle.fail_at = fail_at
        opened.append(handle)
        return handle

    monkeypatch.setattr(files.os, "fdopen", fdopen)
    target = tmp_path / "out.pgn"
    with pytest.raises(OSError) as info:
        with open_output(target, text=text) as handle:
            handle.write("x" * 10 if text else b"x" * 10)
    assert info.value.errno == errno.ENOSPC
    if fail_at == "close":
        assert str(info.value) == f"cannot write {target}: no space left on device"
    assert _names(tmp_path) == []
    assert all(handle.raw.closed for handle in opened)  # no descriptor leaked


def test_a_new_file_gets_the_mode_open_would_give_and_executable_adds_x(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "plain", "x")
        write_atomic(tmp_path / "tool", b"#!/bin/sh\n", executable=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "tool").stat().st_mode) == 0o750


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    with open_output(fifo, text=True) as handle:
        handle.write("1. e4 *\n")
    reader.join(timeout=30)
    assert received == [b"1. e4 *\n"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert _names(tmp_path) == ["pipe"]


def test_the_null_device_is_written_in_place_and_stays_a_device() -> None:
    before = os.stat(os.devnull)
    write_atomic(os.devnull, b"discarded")
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


def test_dev_stdout_redirected_to_a_file_appends_to_that_file(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("kept\n")
    code = "from esochess.fen.files import write_atomic; write_atomic('/dev/stdout', 'added\\n')"
    with open(log, "ab") as stdout:
        subprocess.run([sys.executable, "-c", code], stdout=stdout, check=True)
    assert log.read_text() == "kept\nadded\n"
    assert _names(tmp_path) == ["log"]


def test_a_symlink_target_is_replaced_and_the_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.pgn"
    real.write_text("old")
    link = tmp_path / "link.pgn"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert _names(tmp_path) == ["link.pgn", "real.pgn"]


def test_links_planted_at_temporary_like_names_are_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    victim.chmod(0o600)
    work = tmp_path / "work"
    work.mkdir()
    planted = [f"out.pgn.tmp-{os.getpid()}", "out.pgn.tmp-build", ".out.pgn.tmp", "out.pgn.tmp"]
    planted += [f".out.pgn.{i}.tmp" for i in range(20)]
    for name in planted:
        (work / name).symlink_to(victim)
    write_atomic(work / "out.pgn", "result", executable=True)
    assert victim.read_text() == "precious"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert (work / "out.pgn").read_text() == "result"
    assert not (work / "out.pgn").is_symlink()
    assert len(list(work.iterdir())) == len(planted) + 1


@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink", "relative"])
def test_an_output_that_is_an_input_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alias: str
) -> None:
    games = tmp_path / "games.pgn"
    games.write_text("445 games")
    output = {
        "same": games,
        "symlink": tmp_path / "link.pgn",
        "hardlink": tmp_path / "hard.pgn",
        "relative": Path("games.pgn"),
    }[alias]
    if alias == "symlink":
        output.symlink_to(games)
    if alias == "hardlink":
        os.link(games, output)
    monkeypatch.chdir(tmp_path)
    entered = False
    with pytest.raises(OutputError) as info:
        with open_output(output, text=True, inputs=["q.cql", str(games)]):
            entered = True
    assert not entered
    assert info.value.path == str(output)
    assert info.value.reason == ALSO_AN_INPUT
    assert str(info.value) == f"cannot write {output}: it is also an input file"
    assert games.read_text() == "445 games"


def test_a_missing_directory_is_an_output_error(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out"
    with pytest.raises(OutputError) as info:
        write_atomic(target, "x")
    assert str(info.value) == f"cannot write {target}: no such directory"
    assert _names(tmp_path) == []


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=3000), st.text(max_size=1000)))
def test_contents_round_trip(tmp_path: Path, data: bytes | str) -> None:
    target = tmp_path / "round"
    if isinstance(data, str):
        with open_output(target, text=True) as handle:
            handle.write(data)
        assert target.read_bytes().decode("utf-8", "surrogateescape") == data
    else:
        write_atomic(target, data)
        assert target.read_bytes() == data
    assert _names(tmp_path) == ["round"]


def test_names_in_dev_are_written_in_place_whatever_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    # Even a /dev/null that another program turned into a regular file is not replaced
    # (replacing it again would keep the system's device broken).
    seen: list[str] = []

    @contextmanager
    def in_place(path: str, text: bool) -> Iterator[io.BytesIO]:
        seen.append(path)
        yield io.BytesIO()

    monkeypatch.setattr(files, "_in_place", in_place)
    monkeypatch.setattr(files, "_stat", lambda path: os.stat(__file__))  # "a regular file"
    for name in ("/dev/null", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        write_atomic(name, b"x")
    assert seen == ["/dev/null", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
