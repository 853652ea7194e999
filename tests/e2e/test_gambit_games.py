"""The nine example games of spec §16 end to end: check, a scripted human transcript
(golden files in tests/gambit/golden/), a seeded random game, and MCTS where §16 says.

The human scripts are derived from a random game: Player 1's recorded choices become the
human's input lines, so every transcript is a complete game with the human prompts.
Regenerate the golden files with `GAMBIT_REGEN_GOLDEN=1 pytest tests/e2e/test_gambit_games.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from esochess.gambit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gambit"
GOLDEN = ROOT / "tests" / "gambit" / "golden"
RESULT_LINES = ("wins", "win", "Draw", "loses", "Nobody wins", "No result")


@dataclass(frozen=True)
class Game:
    """How each example is exercised: its file, seats, seed and an optional decision cap."""

    name: str
    seats: int
    seed: int
    max_decisions: int | None = None

    @property
    def path(self) -> Path:
        return EXAMPLES / f"{self.name}.gmb"

    def opponents(self) -> list[str]:
        return ["random"] * (self.seats - 1)


GAMES = [
    Game("nim", 2, 3),
    Game("tic-tac-toe", 2, 4),
    Game("connect-four", 2, 2),
    Game("rock-paper-scissors", 2, 5),
    Game("war", 2, 7),
    Game("blackjack", 1, 1),
    Game("checkers", 2, 1, max_decisions=40),
    Game("minichess", 2, 3, max_decisions=30),
    Game("card-attack", 2, 2),
]
IDS = [g.name for g in GAMES]
BIG_GAMES = {"connect-four", "checkers", "minichess", "card-attack"}


def gambit(*args: str, input: str | None = None) -> Result:
    """Run the gambit CLI in-process."""
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def limit(game: Game) -> list[str]:
    return ["--max-decisions", str(game.max_decisions)] if game.max_decisions else []


def human_input(game: Game, tmp_path: Path) -> str:
    """Player 1's choices of a seeded random game, one input line each."""
    record = tmp_path / "r.json"
    r = gambit(
        "run", str(game.path), "--players", ",".join(["random"] * game.seats),
        "--seed", str(game.seed), "--quiet", "--record", str(record), *limit(game),
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    lines = []
    for seat, option in json.loads(record.read_text())["choices"]:
        if seat == 1:
            lines.append(" ".join(map(str, option)) if isinstance(option, list) else str(option))
    return "".join(line + "\n" for line in lines)


def transcript(game: Game, input_text: str, tmp_path: Path) -> Result:
    moves = tmp_path / "moves.txt"
    moves.write_text(input_text)
    return gambit(
        "run", str(game.path), "--players", ",".join(["human", *game.opponents()]),
        "--seed", str(game.seed), "--input", str(moves), *limit(game),
    )  # fmt: skip


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_example_checks_clean(game: Game) -> None:
    # §17 check 38: `gambit check` exits 0 with nothing on stdout for each example.
    r = gambit("check", str(game.path))
    assert r.exit_code == 0, r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_scripted_human_transcript(game: Game, tmp_path: Path) -> None:
    golden_in = GOLDEN / f"{game.name}.input"
    golden_out = GOLDEN / f"{game.name}.out"
    if os.environ.get("GAMBIT_REGEN_GOLDEN") == "1":
        text = human_input(game, tmp_path)
        r = transcript(game, text, tmp_path)
        assert r.exit_code == 0, r.stderr
        golden_in.write_text(text)
        golden_out.write_text(r.stdout)
    r = transcript(game, golden_in.read_text(), tmp_path)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == golden_out.read_text()
    last = r.stdout.splitlines()[-1]
    assert last.endswith(RESULT_LINES)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_seeded_random_game_is_deterministic(game: Game) -> None:
    args = ["run", str(game.path), "--players", "random", "--seed", str(game.seed + 100)]
    first = gambit(*args, "--hash")
    assert first.exit_code == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[-1].startswith("state hash: ")
    assert lines[-2].endswith(RESULT_LINES)
    assert gambit(*args, "--hash").stdout == first.stdout


def test_blackjack_notation_line_comes_first() -> None:
    # §17 check 30.
    r = gambit("run", str(EXAMPLES / "blackjack.gmb"), "--players", "random", "--seed", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Notation check: AS 11 10H 10 QD 10"


def test_war_needs_no_decisions_and_depends_on_the_seed_only() -> None:
    # §17 check 36, last item: war with the same seed twice gives identical output.
    args = ["run", str(EXAMPLES / "war.gmb"), "--players", "random", "--seed", "7"]
    a, b = gambit(*args), gambit(*args)
    assert a.exit_code == 0 and a.stdout == b.stdout
    assert "[Player" not in a.stdout


# The board and card games take tens of seconds each with mcts:50: slow (make test-all).
MCTS_GAMES = [
    pytest.param(g, id=g.name, marks=[pytest.mark.slow] if g.name in BIG_GAMES else [])
    for g in GAMES
]


@pytest.mark.parametrize("game", MCTS_GAMES)
def test_every_game_completes_with_mcts(game: Game) -> None:
    # §17 check 37, last item: every example completes a game with mcts:50, seed 1
    # (uncapped: checkers takes ~1.5 CPU minutes, minichess ~15 s).
    r = gambit("run", str(game.path), "--players", "mcts:50", "--seed", "1", "--quiet")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[-1].endswith(RESULT_LINES)
