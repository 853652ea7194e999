"""`cql` on hostile input (issue 22): no bad game costs another, no run hangs or loses data."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest
import zstandard
from click.testing import CliRunner
from cql_helpers import run_cql
from pgn_data import LICHESS, masters

from esochess.cqlvars import model, pgnio
from esochess.cqlvars.cli import main

BIN = Path(sys.executable).parent
GOOD = '[Event "good"]\n\n1. e4 e5 *\n\n'
BAD_VARIATION = '[Event "bad variation"]\n\n1. e4 (1. Nf3 d5 2. Ng5 Ke3) (1. Ng5) *\n\n'

#: Bad games injected into real files: (PGN text, line reported inside the text). A game
#: is reported at its first line, a fault the split finds (an unclosed comment, a NUL byte)
#: at the fault's line.
BAD_GAMES = [
    (BAD_VARIATION, 1),
    ('[Event "unclosed comment"]\n\n1. e4 { never closed e5 *\n\n', 3),
    ('[Event "nul bytes"]\n\n1. e4 \x00\x00 e5 *\n\n', 3),
    ('[Event "garbage tags"]\n[%%% garbage\n[FEN "not a fen at all"]\n[WhiteElo "x"]\n\n'
     "1. e4 *\n\n", 1),
    ('[Event "illegal move"]\n\n1. e4 e5\n2. Ke3 *\n\n', 1),
]  # fmt: skip
#: A legal game of 10,000 plies: long, but good, so it must be written exactly once.
LONG_GAME = '[Event "10000 plies"]\n\n' + "".join(
    f"{2 * i + 1}. Nf3 Nf6 {2 * i + 2}. Ng1 Ng8\n" for i in range(2500)
) + "*\n\n"


def _games_of(text: str) -> list[str]:
    """The raw texts of the games of a PGN file as python-chess splits them."""
    return [g.text for g in pgnio.games_in_text("x", text)]


def _inject(real: str, every: int) -> tuple[str, list[tuple[int, int]], int]:
    """Real games with the bad games (and the long one) inserted every `every` games.

    Returns the text, the (line, game number) at which each bad game must be reported, and
    the number of good games.
    """
    games = _games_of(real)
    out: list[str] = []
    expected: list[tuple[int, int]] = []
    line = 1
    number = 0
    bad = iter(BAD_GAMES * (len(games) // every // len(BAD_GAMES) + 1))
    good = 0
    for index, game in enumerate(games):
        if index % every == every // 2:
            text, fault = next(bad)
            number += 1
            expected.append((line + fault - 1, number))
            out.append(text)
            line += text.count("\n")
        if index == len(games) // 2:
            number += 1
            good += 1
            out.append(LONG_GAME)
            line += LONG_GAME.count("\n")
        body = game if game.endswith("\n\n") else game.rstrip("\n") + "\n\n"
        number += 1
        good += 1
        out.append(body)
        line += body.count("\n")
    return "".join(out), expected, good


def _cli(tmp: Path, *args: str) -> tuple[int, str, str]:
    with contextlib.chdir(tmp):
        result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


REPORT = re.compile(r"^(.+):(\d+): game (\d+): error: .* \(game skipped\)$")


def _check_isolation(tmp: Path, real: Path, every: int) -> None:
    text, expected, good = _inject(real.read_text(encoding="utf-8", errors="surrogateescape"),
                                   every)  # fmt: skip
    (tmp / "in.pgn").write_text(text, encoding="utf-8", errors="surrogateescape")
    (tmp / "q.cql").write_text("cql(silent) true")
    runs = []
    for jobs in ("1", "2"):
        code, out, err = _cli(tmp, "-j", jobs, "-o", f"out{jobs}.pgn", "q.cql", "in.pgn")
        reports = [REPORT.match(line) for line in err.splitlines()]
        assert all(reports), err
        assert [(int(m[2]), int(m[3])) for m in reports if m] == expected
        assert all(m[1] == "in.pgn" for m in reports if m)
        assert code == 1 and f"{good} matched, {len(expected)} with errors" in out
        runs.append((tmp / f"out{jobs}.pgn").read_text(encoding="utf-8", errors="surrogateescape"))
    assert runs[0] == runs[1]
    written = [g.headers.get("Site", "") + g.headers.get("Event", "")
               for g in _read_all(runs[0])]  # fmt: skip
    wanted = [g.headers.get("Site", "") + g.headers.get("Event", "")
              for g in _read_all(real.read_text(encoding="utf-8", errors="surrogateescape"))]
    assert len(written) == good
    assert sorted(w for w in written if "10000" not in w) == sorted(wanted)
    assert written.count("?10000 plies") == 1


def _read_all(text: str) -> list[chess.pgn.Game]:
    import io

    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def test_bad_variation_costs_only_its_game(tmp_path: Path) -> None:
    run = run_cql(tmp_path, "cql() true", GOOD + BAD_VARIATION + GOOD)
    assert run.stats == (3, 2, 1) and run.code == 1
    assert "in0.pgn:5: game 2: error: in a variation: illegal san: 'Ke3'" in run.err
    assert len(run.games) == 2


def test_bad_games_in_the_lichess_file_cost_nothing_else(tmp_path: Path) -> None:
    _check_isolation(tmp_path, LICHESS, every=150)


@pytest.mark.slow
def test_bad_games_in_the_masters_file_cost_nothing_else(tmp_path: Path) -> None:
    _check_isolation(tmp_path, masters(), every=1000)


def test_unclosed_comment_hides_no_later_game(tmp_path: Path) -> None:
    text = GOOD + '[Event "x"]\n\n1. e4 { oops\n\n' + GOOD * 3
    run = run_cql(tmp_path, "cql() true", text)
    assert "in0.pgn:7: game 2: error: unclosed comment '{'" in run.err
    assert run.stats == (5, 4, 1) and len(run.games) == 4


def test_truncated_zst_is_an_error_naming_the_file(tmp_path: Path) -> None:
    packed = zstandard.ZstdCompressor().compress(LICHESS.read_bytes())
    (tmp_path / "cut.pgn.zst").write_bytes(packed[: len(packed) // 2])
    (tmp_path / "q.cql").write_text("cql() true")
    code, _, err = _cli(tmp_path, "-o", "out.pgn", "q.cql", "cut.pgn.zst")
    assert code == 1 and "cut.pgn.zst" in err and "cannot read" in err
    assert sorted(os.listdir(tmp_path)) == ["cut.pgn.zst", "q.cql"]


def test_empty_compressed_inputs_agree(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() true")
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        (tmp_path / f"e.pgn{suffix}").write_bytes(b"")
        code, _, err = _cli(tmp_path, "-o", "out.pgn", "q.cql", f"e.pgn{suffix}")
        assert code == 2 and f"e.pgn{suffix}: empty file" in err, suffix


def test_same_file_in_and_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "g.pgn").write_text(GOOD * 3)
    (tmp_path / "q.cql").write_text("cql() true")
    os.symlink("g.pgn", tmp_path / "link.pgn")
    for target in ("g.pgn", "./g.pgn", "link.pgn"):
        code, _, err = _cli(tmp_path, "-o", target, "q.cql", "g.pgn")
        assert code == 2 and "cannot write" in err and "input" in err, target
    assert (tmp_path / "g.pgn").read_text() == GOOD * 3


def test_closed_stdout_is_quiet(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() true")
    proc = subprocess.run(
        f"{BIN / 'cql'} -o - q.cql {LICHESS} | head -c 10 >/dev/null",
        shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.stderr == ""


def test_user_regex_cannot_hang(tmp_path: Path) -> None:
    name = "a" * 36 + "!"
    game = f'[White "{name}"]\n[Black "(a|a)*b"]\n\n1. e4 *\n\n'
    run = run_cql(tmp_path, 'cql() player white ~~ "^(\\w+\\s?)*$"', game)
    assert run.code == 0 and run.stats == (1, 0, 0)
    # PGN data as the pattern: `aaaa…` against `(a|a)*b` is linear too.
    run = run_cql(tmp_path, f'cql() "{"a" * 5000}" ~~ player black', game)
    assert run.code == 0 and run.stats == (1, 0, 0)


def test_backreference_is_a_located_compile_error(tmp_path: Path) -> None:
    run = run_cql(tmp_path, 'cql() player white ~~ "(a)\\\\1"', GOOD)
    assert run.code == 2
    assert "q.cql:1:23: error: invalid regular expression" in run.err
    assert "backreferences are not supported" in run.err


def test_deep_nesting_is_refused_at_once(tmp_path: Path) -> None:
    run = run_cql(tmp_path, "cql() " + "(" * 40_000 + "check" + ")" * 40_000, GOOD)
    assert run.code == 2 and "q.cql:1:207: error: the query is nested too deeply" in run.err
    run = run_cql(tmp_path, "cql() " + "not " * 40_000 + "check", GOOD)
    assert run.code == 2 and "nested too deeply" in run.err


def test_doubling_functions_are_refused(tmp_path: Path) -> None:
    names = [f"twice{chr(97 + i)}" for i in range(21)]
    lines = [f"function {names[0]}() {{ check }}"]
    lines += [f"function {names[i]}() {{ {names[i - 1]}() or {names[i - 1]}() }}"
              for i in range(1, 21)]  # fmt: skip
    run = run_cql(tmp_path, "cql()\n" + "\n".join(lines) + f"\n{names[20]}()", GOOD)
    assert run.code == 2 and "function calls expand the query to more than 100,000" in run.err


def test_nested_transforms_are_refused(tmp_path: Path) -> None:
    run = run_cql(tmp_path, "cql() " + "flip " * 8 + "{ K ray up (a1 h8) }", GOOD)
    assert run.code == 2 and "nested transforms expand this filter" in run.err


def test_nested_loops_stop_with_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model, "MAX_STEPS", 100_000)  # the real bound takes seconds
    query = "cql() " + "".join(f"square s{i} in . " for i in range(6)) + "check"
    run = run_cql(tmp_path, query, GOOD)
    assert run.code == 1
    assert "q.cql:1:82: runtime error: this game needs more than 100,000 loop" in run.err


# SIGTERM may arrive before a worker's initializer has restored SIGTERM's default action;
# the parent then kills that worker after a grace period instead of waiting for it.
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGKILL"])
def test_pool_workers_die_with_a_killed_parent(tmp_path: Path, signame: str) -> None:
    import signal
    import time

    (tmp_path / "q.cql").write_text("cql() square s in . square t in . square u in . check")
    proc = subprocess.Popen([str(BIN / "cql"), "-j", "2", "-o", "out.pgn", "q.cql", str(LICHESS)],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    for _ in range(300):  # the pool starts once the split has found two partitions
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        workers = [int(p) for p in children.read_text().split()] if children.exists() else []
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2
    proc.send_signal(getattr(signal, signame))
    code = proc.wait(30)
    for _ in range(100):
        if not any(Path(f"/proc/{w}").exists() and "Z" not in _state(w) for w in workers):
            break
        time.sleep(0.1)
    assert not any(Path(f"/proc/{w}").exists() and "Z" not in _state(w) for w in workers)
    if signame == "SIGTERM":  # SIGKILL cannot be caught: its temporary file stays
        assert code == 143
        assert os.listdir(tmp_path) == ["q.cql"]


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"
