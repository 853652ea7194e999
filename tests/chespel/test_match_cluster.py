"""`chespel match --scheduler`: pairs played on a Dask LocalCluster give exactly the games,
summary and SPRT stop of a local `--jobs` match (fixed depth, so both are deterministic)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from esochess.chespel.build import SHEBANG, archive_bytes
from esochess.chespel.cluster import ClusterError, connect, run_cluster_match
from esochess.chespel.codegen import generate_checked
from esochess.chespel.frontend import compile_source
from esochess.chespel.match import EngineSpec, MatchResult, Settings, run_match
from esochess.chespel.stats import Sprt

distributed = pytest.importorskip("distributed")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "chespel"
MATERIAL = str(EXAMPLES / "material.chp")
POSITIONAL = str(EXAMPLES / "positional.chp")


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def built(path: str) -> EngineSpec:
    source = generate_checked(compile_source(path, Path(path).read_text()))
    return EngineSpec.parse(path).built(SHEBANG + archive_bytes(source))


def games_of(result: MatchResult) -> list[tuple[int, str, str, str, list[str]]]:
    return [(g.number, g.white, g.black, g.result, [m.uci() for m in g.board.move_stack])
            for g in result.games]


def test_cluster_games_equal_local_games(address: str) -> None:
    settings = Settings(games=4, depth=1, max_plies=20, jobs=2)
    local_lines: list[str] = []
    local = run_match(EngineSpec.parse(MATERIAL), EngineSpec.parse(POSITIONAL), settings,
                      local_lines.append)
    remote_lines: list[str] = []
    remote = run_cluster_match(built(MATERIAL), built(POSITIONAL),
                               Settings(games=4, depth=1, max_plies=20, scheduler=address),
                               remote_lines.append)
    assert games_of(remote) == games_of(local)
    assert remote_lines == local_lines
    assert remote_lines[-2].startswith("Score of material vs positional:")


@pytest.mark.slow
def test_cluster_sprt_stops_where_the_local_match_stops(address: str) -> None:
    sprt = Sprt.parse("0,400,0.2,0.2")
    settings = Settings(games=12, depth=1, max_plies=16, jobs=2, sprt=sprt)
    local = run_match(EngineSpec.parse(POSITIONAL), EngineSpec.parse(MATERIAL), settings,
                      lambda line: None)
    lines: list[str] = []
    remote = run_cluster_match(built(POSITIONAL), built(MATERIAL),
                               Settings(games=12, depth=1, max_plies=16, sprt=sprt,
                                        scheduler=address), lines.append)
    assert games_of(remote) == games_of(local)
    assert (remote.accepted, remote.llr) == (local.accepted, local.llr)
    assert lines[-1].startswith("SPRT (pentanomial, elo0 0, elo1 400")


def test_unreachable_scheduler_is_a_cluster_error() -> None:
    with pytest.raises(ClusterError, match="cannot reach the scheduler"):
        connect("tcp://127.0.0.1:9")
