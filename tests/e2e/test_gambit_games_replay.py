"""`gambit run` record, replay, hash, trace and limits end to end (§11.5-§11.8, §17 check 36)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from esochess.gambit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
TTT = str(EXAMPLES / "tic-tac-toe.gmb")
NIM = str(EXAMPLES / "nim.gmb")


def gambit(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_same_seed_same_output() -> None:
    args = ["run", TTT, "--players", "random", "--seed", "7", "--hash"]
    a, b = gambit(*args), gambit(*args)
    assert a.exit_code == 0
    assert a.stdout == b.stdout
    assert a.stdout.splitlines()[-1].startswith("state hash: ")


def test_record_and_replay(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    a = gambit("run", TTT, "--players", "random", "--seed", "7", "--hash", "--record", str(rec))
    assert a.exit_code == 0
    doc = json.loads(rec.read_text())
    assert doc["format"] == "gambit-record/1"
    assert doc["seed"] == 7
    assert doc["players"] == ["random", "random"]
    assert doc["result"] == a.stdout.splitlines()[-2]
    assert a.stdout.splitlines()[-1] == f"state hash: {doc['state_hash']}"
    assert all(len(c) == 2 and c[0] in (1, 2) for c in doc["choices"])
    b = gambit("run", TTT, "--replay", str(rec), "--hash")
    assert b.exit_code == 0, b.stderr
    assert b.stdout == a.stdout


def test_replay_of_an_occupied_square_diverges(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    gambit("run", TTT, "--players", "random", "--seed", "7", "--record", str(rec))
    doc = json.loads(rec.read_text())
    doc["choices"][1][1] = doc["choices"][0][1]  # Player 2 plays on Player 1's square
    rec.write_text(json.dumps(doc))
    r = gambit("run", TTT, "--replay", str(rec))
    assert r.exit_code == 5
    assert "replay diverged" in r.stderr


def test_replay_with_leftover_choices_diverges(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    gambit("run", TTT, "--players", "random", "--seed", "7", "--record", str(rec))
    doc = json.loads(rec.read_text())
    doc["choices"].append([1, 1])
    rec.write_text(json.dumps(doc))
    assert gambit("run", TTT, "--replay", str(rec)).exit_code == 5


def test_replay_usage_errors(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    gambit("run", TTT, "--players", "random", "--seed", "7", "--record", str(rec))
    r = CliRunner().invoke(main, ["run", TTT, "--replay", str(rec), "--seed", "1"])
    assert r.exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    r = CliRunner().invoke(main, ["run", TTT, "--replay", str(bad)])
    assert r.exit_code == 2
    assert "bad.json" in r.stderr
    r = CliRunner().invoke(main, ["run", TTT, "--replay", str(tmp_path / "missing.json")])
    assert r.exit_code == 2


def test_record_is_written_when_the_run_fails(tmp_path: Path) -> None:
    prog = tmp_path / "boom.gmb"
    prog.write_text("main() {\n    x = Player[1] choose [2, 1]\n    Player[1] wins\n    }\n")
    rec = tmp_path / "r.json"
    r = gambit("run", str(prog), "--players", "human", "--record", str(rec), input="")
    assert r.exit_code == 4
    assert "input ended while waiting for Player 1" in r.stderr
    assert json.loads(rec.read_text())["result"] == "interrupted"


def test_quiet_hides_echo_lines() -> None:
    loud = gambit("run", TTT, "--players", "random", "--seed", "3").stdout
    quiet = gambit("run", TTT, "--players", "random", "--seed", "3", "--quiet").stdout
    assert "[Player 1] Where do you play? -> " in loud
    assert "->" not in quiet
    assert [x for x in loud.splitlines() if "->" not in x] == quiet.splitlines()


def test_max_decisions_ends_with_no_result() -> None:
    r = gambit("run", TTT, "--players", "random", "--seed", "3", "--max-decisions", "2")
    assert r.exit_code == 0
    assert r.stdout.count("->") == 2
    assert r.stdout.splitlines()[-1] == "No result"


def test_trace_events() -> None:
    r = gambit("run", NIM, "--players", "random", "--seed", "2", "--trace", "--quiet")
    assert r.exit_code == 0
    err = r.stderr.splitlines()
    assert err[0] == "trace: seed 2, players 2"
    assert any(" create Heap#1 (index: 1, size: 3)" in x for x in err)
    assert any(": choose Player 1 legal [1, 2, 3] -> " in x for x in err)
    assert any(": turn end (Player 1)" in x for x in err)
    assert any(": write Heap#" in x for x in err)
    assert err[-1].endswith(f"result {r.stdout.splitlines()[-1]}")
    assert all(x.startswith("trace: ") for x in err)
    assert "trace" not in r.stdout


def test_secret_choices_are_echoed_as_secret() -> None:
    r = gambit("run", str(EXAMPLES / "rock-paper-scissors.gmb"), "--players", "random",
               "--seed", "1")  # fmt: skip
    assert r.exit_code == 0
    assert "[Player 1] Rock, paper or scissors? -> (secret)" in r.stdout
    assert "[Player 2] Rock, paper or scissors? -> (secret)" in r.stdout


def test_three_players_for_a_two_player_game_is_a_usage_error() -> None:
    r = CliRunner().invoke(main, ["run", TTT, "--players", "human,random,random"])
    assert r.exit_code == 2


def test_replay_of_a_human_game_echoes_every_decision(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    a = gambit("run", TTT, "--record", str(rec), input="1\n4\n2\n5\n3\n")
    assert a.exit_code == 0
    doc = json.loads(rec.read_text())
    assert doc["players"] == ["human", "human"]
    assert [c[1] for c in doc["choices"]] == [1, 4, 2, 5, 3]
    b = gambit("run", TTT, "--replay", str(rec))
    assert b.exit_code == 0, b.stderr
    assert b.stdout.count("[Player 1] Where do you play? -> ") == 3
    assert b.stdout.count("[Player 2] Where do you play? -> ") == 2
    assert b.stdout.splitlines()[-1] == "Player 1 wins"


def test_ai_search_is_never_traced(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    r = gambit("run", TTT, "--players", "mcts:30,random", "--seed", "2", "--trace", "--quiet",
               "--record", str(rec))  # fmt: skip
    assert r.exit_code == 0
    decisions = len(json.loads(rec.read_text())["choices"])
    assert sum(": choose Player " in line for line in r.stderr.splitlines()) == decisions
    writes = sum(": write Square#" in line for line in r.stderr.splitlines())
    assert writes == decisions  # one mark per real move, none from look-ahead or search
