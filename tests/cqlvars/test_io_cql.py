"""pgnio: compressed input, game splitting, partitions (spec §1.1, §1.4, §1.7.3)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path

import chess.pgn
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import PROBLEMS, STUDIES, masters
from pgn_data import SHIPPED as DATA

from esochess.cqlvars import pgnio

F12 = (
    '[Event "one"]\n\n1. e4 e5 *\n\n[Event "two"]\n\n1. e4 e5 2. Ke3 *\n\n'
    '[Event "three"]\n\n1. d4 *\n'
)


def _compress(data: bytes, suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(data)
    if suffix == ".bz2":
        return bz2.compress(data)
    if suffix == ".xz":
        return lzma.compress(data)
    return zstandard.ZstdCompressor().compress(data)


def _sequential(path: Path) -> list[str]:
    """Games as python-chess reads the whole file in one go (the reference split)."""
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            out.append(str(game))
    return out


@pytest.mark.parametrize("name", ["studies-lichess-thijscom.pgn", "problems-mate-in-2-3-4.pgn"])
def test_split_matches_sequential_read(name: str) -> None:
    games = list(pgnio.iter_games([str(DATA / name)]))
    parsed = [str(chess.pgn.read_game(io.StringIO(g.text))) for g in games]
    assert parsed == _sequential(DATA / name)
    assert [g.number for g in games] == list(range(1, len(games) + 1))


def test_latin1_bytes_round_trip() -> None:
    raw = PROBLEMS.read_bytes()
    part_bytes = b"".join(p.data for p in pgnio.partitions([str(PROBLEMS)]))
    assert part_bytes.strip() == raw.strip()
    text = "".join(g.text for g in pgnio.iter_games([str(PROBLEMS)]))
    assert text.encode("utf-8", "surrogateescape").strip() == raw.strip()


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".zst", ".xz"])
def test_compressed_input_gives_identical_games(tmp_path: Path, suffix: str) -> None:
    packed = tmp_path / ("studies.pgn" + suffix)
    packed.write_bytes(_compress(STUDIES.read_bytes(), suffix))
    plain = [(g.number, g.line, g.text) for g in pgnio.iter_games([str(STUDIES)])]
    unpacked = [(g.number, g.line, g.text) for g in pgnio.iter_games([str(packed)])]
    assert unpacked == plain
    assert pgnio.is_compressed(str(packed))


def test_zst_multiple_frames(tmp_path: Path) -> None:
    first, second = b'[Event "a"]\n\n1. e4 *\n\n', b'[Event "b"]\n\n1. d4 *\n'
    packed = tmp_path / "two.pgn.zst"
    comp = zstandard.ZstdCompressor()
    packed.write_bytes(comp.compress(first) + comp.compress(second))
    events = [chess.pgn.read_headers(io.StringIO(g.text)) for g in pgnio.iter_games([str(packed)])]
    assert [h["Event"] for h in events if h is not None] == ["a", "b"]


def test_broken_game_keeps_its_number_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_text(F12)
    games = list(pgnio.iter_games([str(bad)]))
    assert [(g.number, g.line) for g in games] == [(1, 1), (2, 5), (3, 9)]
    assert "Ke3" in games[1].text


def test_numbers_continue_across_files_and_partitions_stay_in_one_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(F12)
    b.write_text("1. c4 *\n\n1. Nf3 *\n")
    parts = list(pgnio.partitions([str(a), str(b)], max_games=2))
    assert [(p.path, p.first_number, len(p)) for p in parts] == [
        (str(a), 1, 2), (str(a), 3, 1), (str(b), 4, 2)
    ]
    assert [p.file_index for p in parts] == [0, 0, 1]
    assert parts[1].first_line == 9 and parts[2].lines == (1, 3)


def test_game_number_range_skips_and_stops(tmp_path: Path) -> None:
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(F12)
    b.write_text("1. c4 *\n\n1. Nf3 *\n")
    games = list(pgnio.iter_games([str(a), str(b)], first=3, last=4))
    assert [(g.number, g.path, g.line) for g in games] == [(3, str(a), 9), (4, str(b), 1)]


def test_partition_size_limit_in_bytes() -> None:
    parts = list(pgnio.partitions([str(STUDIES)], max_bytes=10_000))
    assert all(len(p.data) < 10_000 + 20_000 for p in parts)
    assert len(parts) > 3
    assert sum(len(p) for p in parts) == 103


def test_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "crlf.pgn"
    path.write_bytes(b'\xef\xbb\xbf[Event "x"]\r\n\r\n1. e4 { a\r\nb } e5 *\r\n\r\n1. d4 *\r\n')
    games = list(pgnio.iter_games([str(path)]))
    assert len(games) == 2
    assert games[0].text.startswith('[Event "x"]\n')
    game = chess.pgn.read_game(io.StringIO(games[0].text))
    assert game is not None and game.next() is not None
    assert game.next().comment == "a\nb"  # type: ignore[union-attr]


def test_missing_and_corrupt_files(tmp_path: Path) -> None:
    with pytest.raises(pgnio.InputError, match="No such file"):
        pgnio.check_readable(str(tmp_path / "nope.pgn"))
    with pytest.raises(pgnio.InputError, match="directory"):
        pgnio.check_readable(str(tmp_path))
    broken = tmp_path / "broken.pgn.gz"
    broken.write_bytes(gzip.compress(F12.encode())[:30])
    with pytest.raises(pgnio.InputError, match="broken.pgn.gz"):
        list(pgnio.iter_games([str(broken)]))


def test_masters_prefix_matches_read_headers() -> None:
    masters_file = masters()
    games = list(pgnio.iter_games([str(masters_file)], last=400))
    assert len(games) == 400
    with open(masters_file, encoding="utf-8", errors="surrogateescape") as handle:
        reference = [chess.pgn.read_headers(handle) for _ in range(400)]
    assert [chess.pgn.read_headers(io.StringIO(g.text)) for g in games] == reference


_MOVES = st.sampled_from(["1. e4 e5", "1. d4", "1. e4 { note\n\nwith blank } e5", "1. Ke3", ""])
_GAME = st.tuples(
    st.lists(st.sampled_from(['[Event "e"]', '[White "w"]', "% escape", '[Bad']), max_size=3),
    _MOVES,
    st.sampled_from(["*", "1-0", ""]),
    st.sampled_from(["\n", "\n\n", "\n\n\n"]),
)


@settings(deadline=None, max_examples=60)
@given(st.lists(_GAME, min_size=1, max_size=8), st.integers(1, 4))
def test_partitioning_never_changes_the_split(
    tmp_path_factory: pytest.TempPathFactory, games: list[tuple[list[str], str, str, str]],
    max_games: int,
) -> None:
    text = "".join("\n".join(tags) + ("\n\n" if tags else "") + f"{moves} {res}{gap}"
                   for tags, moves, res, gap in games)
    path = tmp_path_factory.mktemp("prop") / "g.pgn"
    path.write_text(text)
    whole = [(g.number, g.line, g.text) for g in pgnio.iter_games([str(path)])]
    parts = pgnio.partitions([str(path)], max_games=max_games)
    split = [(g.number, g.line, g.text) for p in parts for g in p.games()]
    assert split == whole
    # Games tile the text; what follows the last one holds no game (e.g. only escape lines).
    joined = "".join(t for _, _, t in whole)
    assert text.startswith(joined)
    assert chess.pgn.read_game(io.StringIO(text[len(joined):])) is None
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        reference = []
        while (game := chess.pgn.read_game(handle)) is not None:
            reference.append(str(game))
    assert [str(chess.pgn.read_game(io.StringIO(t))) for _, _, t in whole] == reference


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".zst", ".xz"])
def test_corrupt_compressed_file_is_an_input_error(tmp_path: Path, suffix: str) -> None:
    bad = tmp_path / ("bad.pgn" + suffix)
    bad.write_bytes(b"not compressed at all\n")
    pgnio.check_readable(str(bad))  # opening is lazy; the damage shows on reading
    with pytest.raises(pgnio.InputError, match=r"bad\.pgn\.\w+: line 1: cannot read"):
        list(pgnio.iter_games([str(bad)]))
