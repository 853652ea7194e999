"""Differential tests: the compiled engine against the reference interpreter.

Over the nine example games and random seeds, both engines must show the same output,
decisions, results, record files, state hashes, traces, `moves` listings, playout
summaries and MCTS games; over the negative programs, the same diagnostics. The compiled
engine is also checked to be what the CLI runs by default.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.fen import format_diagnostic
from esochess.gambit.cli import main
from esochess.gambit.frontend import compile_source
from esochess.gambit.hashing import state_document, state_hash
from esochess.gambit.machine import Machine
from esochess.gambit.results import Decision
from esochess.gambit.session import random_playout

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gambit"
NEGATIVE = ROOT / "tests" / "gambit" / "negative"
# Decision caps for the long games keep each example fast.
CAPS = {"checkers": 40, "minichess": 30, "war": 200}
GAMES = sorted(p.stem for p in EXAMPLES.glob("*.gmb"))
ENGINES = ("compiled", "interpreter")


def invoke(*args: str) -> tuple[int, str, str]:
    """Run the gambit CLI in process: exit code, stdout, stderr."""
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def untimed(text: str) -> str:
    """A playout summary without its wall-clock lines."""
    return "".join(line for line in text.splitlines(True)
                   if not line.startswith(("seconds:", "playouts/s:")))  # fmt: skip


def observe(name: str, seed: int, engine: str, tmp: Path) -> dict[str, object]:
    """Everything one seeded game shows on `engine`."""
    path = f"examples/gambit/{name}.gmb"
    cap = ["--max-decisions", str(CAPS[name])] if name in CAPS else []
    record = tmp / f"{name}-{engine}-{seed}.json"
    eng = ["--engine", engine]
    run = invoke("run", path, "--players", "random", "--seed", str(seed), "--hash", "--trace",
                 "--record", str(record), *cap, *eng)  # fmt: skip
    replay = invoke("run", path, "--replay", str(record), "--hash", *eng)
    moves = invoke("moves", path, "--seed", str(seed), "--after", "1", *eng)
    code, out, err = invoke("playout", path, "-n", "3", "--seed", str(seed),
                            "--max-decisions", "60", *eng)  # fmt: skip
    mcts = invoke("run", path, "--players", "mcts:6", "--seed", str(seed), "--hash",
                  "--quiet", "--max-decisions", "4", *eng)  # fmt: skip
    return {
        "run": run,
        "record": record.read_bytes(),
        "replay": replay,
        "moves": moves,
        "playout": (code, untimed(out), err),
        "mcts": mcts,
    }


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_engines_agree_on_example_games(name: str, seed: int, tmp_path: Path) -> None:
    with contextlib.chdir(ROOT):
        compiled = observe(name, seed, "compiled", tmp_path)
        reference = observe(name, seed, "interpreter", tmp_path)
    for key, value in reference.items():
        assert compiled[key] == value, key
    # A record written by one engine replays on the other.
    record = tmp_path / f"{name}-compiled-{seed}.json"
    with contextlib.chdir(ROOT):
        crossed = invoke("run", f"examples/gambit/{name}.gmb", "--replay", str(record), "--hash",
                         "--engine", "interpreter")  # fmt: skip
    assert crossed == reference["replay"]
    if name not in CAPS:  # a record of a game cut short does not replay to its end
        assert reference["replay"] == (0, reference["run"][1], "")  # type: ignore[index]


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_engines_agree_on_random_playouts(name: str, seed: int) -> None:
    source = (EXAMPLES / f"{name}.gmb").read_text(encoding="utf-8")
    seen = []
    for engine in ENGINES:
        program, _ = compile_source(source, f"{name}.gmb", engine)
        assert program is not None and program.engine == engine
        result, machine = random_playout(program, seed, program.players_range[0],
                                         CAPS.get(name, 500))  # fmt: skip
        document = json.dumps(state_document(machine), sort_keys=True)
        seen.append((result.winners, result.draw, machine.decisions_made, document,
                     state_hash(machine)))  # fmt: skip
    assert seen[0] == seen[1]


def test_negative_programs_have_the_same_diagnostics() -> None:
    cases = sorted(NEGATIVE.glob("*.gmb"))
    assert len(cases) >= 75
    for path in cases:
        source = path.read_text(encoding="utf-8")
        outs = [compile_source(source, path.name, engine) for engine in ENGINES]
        assert outs[0][0] is None and outs[1][0] is None
        shown = [[format_diagnostic(d, source) for d in diags] for _, diags in outs]
        assert shown[0] == shown[1] and shown[0]
        runs = [invoke("run", str(path), "--engine", engine) for engine in ENGINES]
        assert runs[0] == runs[1] and runs[0][0] == 2


def test_compiled_is_the_default_engine() -> None:
    program, _ = compile_source((EXAMPLES / "nim.gmb").read_text(encoding="utf-8"), "nim.gmb")
    assert program is not None and program.engine == "compiled"
    assert "def " in program.python()
    m = Machine(program, seed=1, players=2)
    assert isinstance(m.run_until_decision(), Decision)


def test_compile_command_shows_the_generated_python() -> None:
    with contextlib.chdir(ROOT):
        code, out, err = invoke("compile", "examples/gambit/tic-tac-toe.gmb", "--emit-python")
    assert code == 0 and err == ""
    compile(out, "tic-tac-toe.py", "exec")  # the listing is valid Python
    assert "def _fn_has_line_" in out
