"""Byte-identical behaviour of the nine example games and of every compile diagnostic.

The golden files in tests/gambit/golden/baseline/ pin, for each example game and a fixed
seed with random players: stdout (with `--hash`), the `--trace` stream on stderr, the
record file, a `gambit moves` listing, a short playout summary and a seeded MCTS game; and
the full `gambit check` stderr of every negative program. Restructuring the interpreter
must leave all of it unchanged. Regenerate with
`GAMBIT_REGEN_GOLDEN=1 pytest tests/e2e/test_gambit_baseline.py` and review the diff.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from esochess.gambit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gambit"
NEGATIVE = ROOT / "tests" / "gambit" / "negative"
BASELINE = ROOT / "tests" / "gambit" / "golden" / "baseline"
REGEN = os.environ.get("GAMBIT_REGEN_GOLDEN") == "1"

# name -> (seed, decision cap for the long games)
GAMES = {
    "nim": (11, None),
    "tic-tac-toe": (11, None),
    "connect-four": (11, None),
    "rock-paper-scissors": (11, None),
    "war": (11, None),
    "blackjack": (11, None),
    "checkers": (11, 40),
    "minichess": (11, 30),
    "card-attack": (11, None),
}
# Traces above this size are pinned by their SHA-256 (war's runs to megabytes).
TRACE_INLINE_LIMIT = 40_000


def invoke(*args: str) -> tuple[int, str, str]:
    """Run the gambit CLI in process: exit code, stdout, stderr."""
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def pin_trace(text: str) -> str:
    """The trace itself, or its digest when it is too long to keep in the repository."""
    if len(text) <= TRACE_INLINE_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"sha256:{digest} lines:{text.count(chr(10))}"


def untimed(summary: str) -> str:
    """A playout summary without its wall-clock lines."""
    timed = ("seconds:", "playouts/s:")
    return "".join(line for line in summary.splitlines(True) if not line.startswith(timed))


def observe(name: str, tmp_path: Path) -> dict[str, object]:
    """Everything the game's seeded runs show, as one JSON-able record."""
    seed, cap = GAMES[name]
    path = f"examples/gambit/{name}.gmb"  # relative: traces name the file as given
    limit = ["--max-decisions", str(cap)] if cap else []
    record = tmp_path / f"{name}.json"
    code, out, err = invoke(
        "run", path, "--players", "random", "--seed", str(seed), "--hash", "--trace",
        "--record", str(record), *limit,
    )  # fmt: skip
    replay_code, replay_out, _ = invoke("run", path, "--replay", str(record), "--hash")
    moves = invoke("moves", path, "--seed", str(seed), "--after", "1")
    playout = invoke("playout", path, "-n", "3", "--seed", str(seed), "--max-decisions", "60")
    mcts = invoke(
        "run", path, "--players", "mcts:8", "--seed", str(seed), "--hash", "--quiet",
        "--max-decisions", "6",
    )  # fmt: skip
    return {
        "run": [code, out, pin_trace(err)],
        "record": record.read_text(encoding="utf-8"),
        "replay": [replay_code, replay_out],
        "moves": list(moves),
        "playout": [playout[0], untimed(playout[1]), playout[2]],
        "mcts": list(mcts),
    }


@pytest.mark.parametrize("name", list(GAMES))
def test_game_behaviour_is_unchanged(name: str, tmp_path: Path) -> None:
    with contextlib.chdir(ROOT):
        seen = observe(name, tmp_path)
    golden = BASELINE / f"{name}.json"
    if REGEN:
        BASELINE.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(seen, indent=1, ensure_ascii=False) + "\n", "utf-8")
    expected = json.loads(golden.read_text(encoding="utf-8"))
    for key, value in expected.items():
        assert json.loads(json.dumps(seen[key])) == value, key
    assert seen["run"][0] == 0  # type: ignore[index]


def test_every_diagnostic_is_unchanged() -> None:
    seen = {}
    with contextlib.chdir(ROOT):
        for path in sorted(NEGATIVE.glob("*.gmb")):
            code, out, err = invoke("check", str(path.relative_to(ROOT)))
            seen[path.stem] = [code, out, err]
    golden = BASELINE / "diagnostics.json"
    if REGEN:
        BASELINE.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(seen, indent=1, ensure_ascii=False) + "\n", "utf-8")
    expected = json.loads(golden.read_text(encoding="utf-8"))
    assert seen.keys() == expected.keys()
    for name, value in expected.items():
        assert seen[name] == value, name
