"""`chespel tune` end to end, on a shipped PGN file: the table, the tuned file, --freeze."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pgn_data import LICHESS

ROOT = Path(__file__).resolve().parents[2]
POSITIONAL = ROOT / "examples" / "chespel" / "positional.chp"


def chespel(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("tune") / "tuned.chp"
    done = chespel("tune", str(POSITIONAL), "--games", str(LICHESS), "--positions", "1500",
                   "--freeze", "pawnSquares", "--jobs", "2", "-o", str(out))
    return done, out


def test_tune_prints_the_table_and_the_errors(tuned: tuple[subprocess.CompletedProcess[str], Path],
                                              ) -> None:
    done, out = tuned
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["rule", "at", "old", "new"]
    rows = [line.split() for line in lines[1:-3]]
    assert rows and all(row[3] == "->" for row in rows)
    assert {row[0] for row in rows} >= {"knightSquares", "kingSafety", "pawnSquares"}
    summary, fit, wrote = lines[-3:]
    assert "quiet positions from 1089 games" in summary
    assert "67 frozen" in summary  # 64 table entries and the 3 numbers of the index
    before, after = (float(x) for x in fit.split("error ")[1].split(" -> "))
    assert after < before
    assert wrote == f"wrote {out}"
    assert "candidate positions in 1089 games; using 1500" in done.stderr


def test_tuned_file_keeps_the_layout_and_the_frozen_rule(
        tuned: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = tuned
    old = POSITIONAL.read_text().splitlines()
    new = out.read_text().splitlines()
    assert len(new) == len(old)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert changed
    for i in changed:  # only numbers differ
        assert [w for w in old[i].split() if not any(c.isdigit() for c in w)] == \
            [w for w in new[i].split() if not any(c.isdigit() for c in w)]
        assert not old[i].lstrip().startswith("//")
    start = old.index("sym rule pawnSquares:")
    end = old.index("sym rule knightSquares:")
    assert new[start:end] == old[start:end]
    frozen_rows = [line for line in tuned[0].stdout.splitlines() if line.endswith("frozen")]
    assert len(frozen_rows) == 67 and all(r.startswith("pawnSquares") for r in frozen_rows)


def test_tuned_file_checks_and_builds(tuned: tuple[subprocess.CompletedProcess[str], Path],
                                      tmp_path: Path) -> None:
    _, out = tuned
    assert chespel("check", str(out)).returncode == 0
    engine = tmp_path / "tuned"
    done = chespel("build", str(out), "-o", str(engine))
    assert done.returncode == 0, done.stderr
    played = subprocess.run([str(engine)], input="startpos\n", capture_output=True, text=True,
                            timeout=120)
    assert played.returncode == 0 and "move:" in played.stdout


def test_freeze_names_an_unknown_rule() -> None:
    done = chespel("tune", str(POSITIONAL), "--games", str(LICHESS), "--freeze", "pawnSquare")
    assert done.returncode == 2
    assert "has no rule 'pawnSquare'; did you mean 'pawnSquares'" in done.stderr


def test_games_without_a_finished_game_are_an_error(tmp_path: Path) -> None:
    games = tmp_path / "g.pgn"
    games.write_text('[Event "x"]\n[Result "*"]\n\n1. e4 e5 *\n')
    done = chespel("tune", str(POSITIONAL), "--games", str(games), "-o", str(tmp_path / "o.chp"))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "chespel: error: the games hold no position to tune on (finished games needed)")
    assert not (tmp_path / "o.chp").exists()


def test_several_pgn_files_follow_one_games_option(tmp_path: Path) -> None:
    game = ('[Event "x"]\n[Result "{r}"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 '
            '5. O-O Be7 6. Re1 b5 7. Bb3 d6 {r}\n')
    (tmp_path / "a.pgn").write_text(game.format(r="1-0"))
    (tmp_path / "b.pgn").write_text(game.format(r="0-1"))
    done = chespel("tune", str(POSITIONAL), "--games", "a.pgn", "b.pgn", "--jobs", "1",
                   "-o", "t.chp", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "quiet positions from 2 games" in done.stdout
    assert (tmp_path / "t.chp").is_file()
    missing = chespel("tune", str(POSITIONAL), cwd=tmp_path)
    assert missing.returncode == 2 and "missing option '--games'" in missing.stderr


def test_positions_labelled_by_an_engine(tmp_path: Path) -> None:
    """--label: the targets come from an engine's search (here a Chespel program at depth
    1, two worker processes), and an engine that does not start is a usage error that
    leaves no file behind."""
    material = ROOT / "examples" / "chespel" / "material.chp"
    games = tmp_path / "g.pgn"
    games.write_text('[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 '
                     '5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Na5 1-0\n')
    done = chespel("tune", str(POSITIONAL), "--games", str(games), "--label", str(material),
                   "--label-depth", "1", "--label-weight", "0.5", "--jobs", "2",
                   "-o", str(tmp_path / "l.chp"))
    assert done.returncode == 0, done.stderr
    assert "quiet positions from 1 games" in done.stdout
    assert chespel("check", str(tmp_path / "l.chp")).returncode == 0
    bad = chespel("tune", str(POSITIONAL), "--games", str(games),
                  "--label", "uci:/nonexistent/engine", "-o", str(tmp_path / "b.chp"))
    assert bad.returncode == 2
    assert "chespel: error: cannot start engine /nonexistent/engine" in bad.stderr
    assert not (tmp_path / "b.chp").exists()


def test_a_ridge_given_is_used(tmp_path: Path) -> None:
    """--ridge replaces the held-out choice: a huge one keeps every number as written."""
    game = ('[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 '
            '5. O-O Be7 6. Re1 b5 7. Bb3 d6 1-0\n')
    (tmp_path / "a.pgn").write_text(game)
    done = chespel("tune", str(POSITIONAL), "--games", "a.pgn", "--jobs", "1",
                   "--ridge", "1e9", "-o", "t.chp", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ridge 1e+09;" in done.stdout
    assert (tmp_path / "t.chp").read_text() == POSITIONAL.read_text()
    bad = chespel("tune", str(POSITIONAL), "--games", "a.pgn", "--ridge", "-1",
                  "-o", "b.chp", cwd=tmp_path)
    assert bad.returncode == 2 and "--ridge" in bad.stderr
    assert not (tmp_path / "b.chp").exists()


def test_the_moves_objective_ranks_the_played_moves(tmp_path: Path) -> None:
    """--objective moves on the shipped Lichess games: the comparison loss falls, the
    held-out agreement is printed, the tuned file checks, and the same command writes the
    same file (the alternatives are drawn reproducibly); --label is for the Texel objective."""
    runs = []
    for name in ("m1.chp", "m2.chp"):
        done = chespel("tune", str(POSITIONAL), "--games", str(LICHESS), "--positions", "300",
                       "--objective", "moves", "--alternatives", "4", "--jobs", "2",
                       "-o", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
        runs.append(done)
    summary, fit, _ = runs[0].stdout.splitlines()[-3:]
    assert "positions with their moves compared from 1089 games" in summary
    assert fit.startswith("T = 0.2 pawns, ridge ")
    before, after = (float(x) for x in fit.split("loss ")[1].split(";")[0].split(" -> "))
    assert after < before
    assert "played move best on held-out games" in fit
    assert (tmp_path / "m1.chp").read_text() == (tmp_path / "m2.chp").read_text()
    assert (tmp_path / "m1.chp").read_text() != POSITIONAL.read_text()
    assert chespel("check", str(tmp_path / "m1.chp")).returncode == 0
    bad = chespel("tune", str(POSITIONAL), "--games", str(LICHESS), "--objective", "moves",
                  "--label", "uci:stockfish", "-o", str(tmp_path / "b.chp"))
    assert bad.returncode == 2 and "--label gives targets for --objective texel" in bad.stderr
    assert not (tmp_path / "b.chp").exists()
