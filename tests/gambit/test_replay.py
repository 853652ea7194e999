"""Record files (replay.py) and record -> replay round trips on every example game (§11.6)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.gambit.frontend import compile_source
from esochess.gambit.players import PlayerSpec
from esochess.gambit.replay import (
    Record,
    RecordFormatError,
    ReplayDiverged,
    ReplaySource,
    parse_record,
)
from esochess.gambit.session import RunConfig, StreamConsole, run_game

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
# Decision caps keep the long board games quick; a capped game still round-trips.
GAMES = {
    "nim": None, "tic-tac-toe": None, "connect-four": None, "rock-paper-scissors": None,
    "war": None, "blackjack": None, "checkers": 24, "minichess": 16, "card-attack": None,
}  # fmt: skip
PROGRAMS = {
    name: compile_source((EXAMPLES / f"{name}.gmb").read_text(), f"{name}.gmb")[0]
    for name in GAMES
}


def play(name: str, seed: int, record_path: str | None = None, replay: Record | None = None):  # type: ignore[no-untyped-def]
    program = PROGRAMS[name]
    assert program is not None
    seats = program.players_range[0]
    out, err = io.StringIO(), io.StringIO()
    console = StreamConsole(out, err, None, f"{name}.gmb", echo_input=True)
    config = RunConfig(
        program=program, program_name=f"{name}.gmb", seats=seats, seed=seed,
        players=[PlayerSpec("random")] * seats, record_path=record_path, replay=replay,
        show_hash=True, max_decisions=GAMES[name],
    )  # fmt: skip
    report = run_game(config, console)
    return report, out.getvalue(), err.getvalue()


def test_record_json_layout() -> None:
    rec = Record("t.gmb", 7, ["random", "random"], [(1, 5), (2, (1, 3))], "Draw", "00ff")
    text = rec.to_json()
    doc = json.loads(text)
    assert doc == {
        "format": "gambit-record/1", "program": "t.gmb", "seed": 7,
        "players": ["random", "random"], "choices": [[1, 5], [2, [1, 3]]],
        "result": "Draw", "state_hash": "00ff",
    }  # fmt: skip
    assert '  "choices": [[1, 5], [2, [1, 3]]],' in text.splitlines()
    back = parse_record(text, "r.json")
    assert back == rec


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("{", "not a JSON record file"),
        ('{"format": "x"}', "not a record file"),
        ('{"format": "gambit-record/1", "seed": -1, "players": ["random"], "choices": []}', "seed"),
        ('{"format": "gambit-record/1", "seed": 1, "players": [], "choices": []}', "players"),
        ('{"format": "gambit-record/1", "seed": 1, "players": ["random"], "choices": [[1]]}',
         "[seat, option]"),
        ('{"format": "gambit-record/1", "seed": 1, "players": ["random"], "choices": [[1, 0]]}',
         "option"),
    ],
)  # fmt: skip
def test_malformed_records(text: str, phrase: str) -> None:
    with pytest.raises(RecordFormatError, match=None) as info:
        parse_record(text, "r.json")
    assert phrase in str(info.value)
    assert str(info.value).startswith("r.json")


def test_replay_source_checks_seat_legality_and_leftovers() -> None:
    src = ReplaySource(Record("t", 1, ["random"], [(1, 2), (2, 1)], "Draw", "h"))
    with pytest.raises(ReplayDiverged, match="Player 2 decides"):
        src.next_choice(2, [1, 2])
    assert src.next_choice(1, [1, 2]) == 2
    with pytest.raises(ReplayDiverged, match="not a legal option"):
        src.next_choice(2, [2, 3])
    with pytest.raises(ReplayDiverged, match="left over"):
        src.finish("Draw", "h")
    done = ReplaySource(Record("t", 1, ["random"], [], "Draw", "h"))
    with pytest.raises(ReplayDiverged, match="more choices"):
        done.next_choice(1, [1])
    with pytest.raises(ReplayDiverged, match="the result is"):
        done.finish("Player 1 wins", "h")
    with pytest.raises(ReplayDiverged, match="state hash"):
        done.finish("Draw", "other")


@pytest.mark.parametrize("name", list(GAMES))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_record_then_replay_round_trips(name: str, seed: int, tmp_path: Path) -> None:
    path = tmp_path / f"{name}-{seed}.json"
    report, out, _ = play(name, seed, record_path=str(path))
    assert report.exit_code == 0
    record = parse_record(path.read_text(), str(path))
    assert record.seed == seed
    assert record.result == report.result_line
    assert record.state_hash == report.state_hash
    replayed, out2, err2 = play(name, seed, replay=record)
    assert replayed.exit_code == 0, replayed.message
    # Without human seats the replay's stdout is byte-identical (§11.6).
    assert out2 == out
