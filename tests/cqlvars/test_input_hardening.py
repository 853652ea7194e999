"""Hostile PGN input (issue 22): truncation, unclosed comments, huge lines and games."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest
import zstandard

from esochess.cqlvars import pgnio

GOOD = '[Event "good {1}"]\n\n1. e4 e5 *\n\n'
UNCLOSED = '[Event "bad"]\n\n1. e4 { never closed e5 *\n\n'


def _compress(data: bytes, suffix: str) -> bytes:
    return {
        ".gz": gzip.compress,
        ".bz2": bz2.compress,
        ".xz": lzma.compress,
        ".zst": zstandard.ZstdCompressor().compress,
    }[suffix](data)


def _games(path: Path, **limits: int) -> list[pgnio.GameText]:
    return list(pgnio.iter_games([str(path)], **limits))


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_truncated_compressed_file_is_an_error_naming_it(tmp_path: Path, suffix: str) -> None:
    data = (GOOD * 400).encode()
    packed = _compress(data, suffix)
    path = tmp_path / f"cut.pgn{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(pgnio.InputError) as info:
        _games(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_empty_compressed_files_agree(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty.pgn{suffix}"
    path.write_bytes(b"")
    with pytest.raises(pgnio.InputError, match="empty"):
        _games(path)


def test_zst_of_several_frames_still_reads_whole(tmp_path: Path) -> None:
    one = _compress(GOOD.encode(), ".zst")
    path = tmp_path / "frames.pgn.zst"
    path.write_bytes(one * 3)
    assert len(_games(path)) == 3


def test_unclosed_comment_is_reported_at_its_line_and_reading_resumes(tmp_path: Path) -> None:
    path = tmp_path / "c.pgn"
    path.write_text(GOOD + UNCLOSED + GOOD + GOOD)
    games = _games(path)
    assert [g.number for g in games] == [1, 2, 3, 4]
    assert [g.problem for g in games] == [
        None, (7, "unclosed comment '{' (reading resumes at the next [Event tag)"), None, None
    ]  # fmt: skip
    assert "never closed" in games[1].text and '"good {1}"' in games[2].text


def test_unclosed_comment_at_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.pgn"
    path.write_text(GOOD + UNCLOSED)
    games = _games(path)
    assert games[1].problem == (7, "unclosed comment '{' at the end of the file")


def test_comments_spanning_blank_lines_and_braces_in_tags_stay_one_game(tmp_path: Path) -> None:
    path = tmp_path / "c.pgn"
    path.write_text('[Event "{"]\n\n1. e4 { a\n\n[Site is inside] } e5 *\n\n' + GOOD)
    games = _games(path)
    assert len(games) == 2 and all(g.problem is None for g in games)


def test_overlong_line_is_a_problem_of_its_game_only(tmp_path: Path) -> None:
    path = tmp_path / "long.pgn"
    path.write_text(GOOD + '[Event "long"]\n\n1. e4 {' + "x" * 5000 + "} e5 *\n\n" + GOOD)
    games = _games(path, max_line=1000)
    assert [g.problem for g in games] == [None, (7, "line longer than 1000 bytes"), None]
    assert len(games[1].text) < 1000


def test_overlong_game_is_a_problem_of_its_game_only(tmp_path: Path) -> None:
    path = tmp_path / "big.pgn"
    moves = "1. Nf3 Nf6 2. Ng1 Ng8 " * 50
    path.write_text(GOOD + '[Event "big"]\n\n' + (moves + "\n") * 40 + "*\n\n" + GOOD)
    games = _games(path, max_game=10_000)
    assert [g.problem for g in games] == [None, (5, "game longer than 10000 bytes"), None]
    assert len(games[1].text) < 20_000


def test_nul_bytes_are_a_problem_of_their_game(tmp_path: Path) -> None:
    path = tmp_path / "nul.pgn"
    path.write_bytes((GOOD + '[Event "nul"]\n\n1. e4 \x00 e5 *\n\n' + GOOD).encode())
    assert [g.problem for g in _games(path)] == [
        None, (7, "NUL byte in the game (binary data?)"), None
    ]  # fmt: skip
