"""Output helpers (spec §2.7, §6): comment merging, rendering, statistics, atomic files."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from esochess.cqlvars.output import (
    in_scope_nodes,
    merge_comment,
    output_file,
    render_game,
    statistics_line,
)
from esochess.fen import files


def test_merge_comment_order_and_duplicates() -> None:
    assert merge_comment("best by test", ["sort: 3"], "CQL", ["a", "b", "a"]) == (
        "best by test sort: 3 CQL a b")
    assert merge_comment("", [], "", []) == ""


def test_statistics_line() -> None:
    assert statistics_line(3, 2, 1, 0.5) == "cql: 3 games read, 2 matched, 1 with errors, 0.50 s"


def test_output_file_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.pgn"
    with pytest.raises(RuntimeError), output_file(str(target), []) as handle:
        handle.write("partial")
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []
    with output_file(str(target), []) as handle:
        handle.write("whole\udcff")
    assert target.read_bytes() == b"whole\xff"


def test_output_file_writes_a_fifo_in_place_and_refuses_an_input(tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    with output_file(str(fifo), []) as handle:
        handle.write("through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"] and fifo.is_fifo()
    (tmp_path / "in.pgn").write_text("x")
    with pytest.raises(files.OutputError, match="also an input"), output_file(
        str(tmp_path / "in.pgn"), [str(tmp_path / "in.pgn")]
    ):
        pass  # refused on entry
    assert (tmp_path / "in.pgn").read_text() == "x"



def test_in_scope_nodes_are_in_position_id_order() -> None:
    game = chess.pgn.read_game(io.StringIO("1. e4 (1. d4 d5) 1... e5 (1... c5 2. Nf3) 2. Nf3 *"))
    assert game is not None
    mainline = [n.san() if n.parent else "root" for n in in_scope_nodes(game, False)]
    assert mainline == ["root", "e4", "e5", "Nf3"]
    everything = [n.san() if n.parent else "root" for n in in_scope_nodes(game, True)]
    assert everything == ["root", "e4", "e5", "Nf3", "c5", "Nf3", "d4", "d5"]


def test_render_game_places_every_kind_of_comment() -> None:
    game = chess.pgn.read_game(io.StringIO("{ start } 1. e4 { best } e5 *"))
    assert game is not None
    text = render_game(
        game,
        variations=False,
        matched=[0, 1],
        user_comments={1: ["note", "note"], 2: ["late"]},
        header_comments=["sort: 2"],
        matchstring="HIT",
        quiet=False,
        silent=False,
    )
    assert text.endswith("{ start sort: 2 HIT } 1. e4 { best HIT note } 1... e5 { late } *\n\n")
