"""distributed: partitions on a dask cluster, merged exactly like a local run (spec §1.5)."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pgn_data import LICHESS as LICHESS_PATH
from test_parallel_cql import PlyCounter

from esochess.cqlvars import distributed as dist
from esochess.cqlvars import parallel, pgnio
from esochess.fen import SourceError

distributed = pytest.importorskip("distributed")


LICHESS = str(LICHESS_PATH)


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    # Threads in this process: fast to start, and enough to exercise submit/merge/cancel.
    # The end-to-end test (tests/e2e/test_cql_scale_dask.py) uses worker processes.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster, dist.connect(cluster.scheduler_address) as connected:
        yield connected


def _parts(last: int = 200) -> Iterator[pgnio.Partition]:
    return pgnio.partitions([LICHESS], last=last, max_games=16)


def test_cluster_outcomes_equal_local_ones(client: object) -> None:
    factory = functools.partial(PlyCounter, 80)
    local = [(o.number, o.matched, o.plies) for o in parallel.run_local(factory, _parts(), 1)]
    totals: dict[str, int] = {}
    remote = [
        (o.number, o.matched, o.plies)
        for o in dist.run_dask(factory, _parts(), client, totals=totals)
    ]
    assert remote == local
    assert totals == {"Plies": sum(p for _, _, p in local)}


def test_limit_stops_and_sums_only_what_was_taken(client: object) -> None:
    factory = functools.partial(PlyCounter, 80)
    totals: dict[str, int] = {}
    outcomes = dist.run_dask(factory, _parts(), client, totals=totals)
    taken = [next(outcomes) for _ in range(20)]
    outcomes.close()
    assert [o.number for o in taken] == list(range(1, 21))
    assert totals == {"Plies": sum(o.plies for o in taken)}


def test_runtime_error_is_not_retried_and_arrives_in_order(client: object) -> None:
    factory = functools.partial(PlyCounter, 80, fail_at=35)
    seen: list[int] = []
    with pytest.raises(SourceError, match="overflow in game 35"):
        for outcome in dist.run_dask(factory, _parts(), client):
            seen.append(outcome.number)
    assert seen == list(range(1, 35))


def test_unreachable_scheduler_exits_3() -> None:
    with pytest.raises(dist.DistributedError) as info:
        dist.connect("tcp://127.0.0.1:9", timeout="1s")
    assert info.value.exit_code == 3
    assert "tcp://127.0.0.1:9" in info.value.message


def test_versions_name_cql_and_python_chess() -> None:
    cql_version, chess_version = dist.versions()
    assert cql_version and chess_version.count(".") >= 1


def test_version_mismatch_names_the_worker() -> None:
    mine = ("1.0.0", "1.11.2")
    dist.check_versions({"tcp://a:1": mine, "tcp://b:2": mine}, mine)
    with pytest.raises(dist.DistributedError) as info:
        dist.check_versions({"tcp://a:1": mine, "tcp://b:2": ("1.0.0", "1.10.0")}, mine)
    assert info.value.exit_code == 3
    assert "worker tcp://b:2 runs cql 1.0.0 with python-chess 1.10.0" in info.value.message


def test_missing_distributed_package_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    with pytest.raises(dist.DistributedError) as info:
        dist.require_distributed()
    assert info.value.exit_code == 2
    assert info.value.message == "--scheduler requires the 'distributed' package"


def test_cli_without_distributed_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sys

    from click.testing import CliRunner

    from esochess.cqlvars.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)
    (tmp_path / "q.cql").write_text("cql() mate\n")
    (tmp_path / "g.pgn").write_text("1. e4 *\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--scheduler", "tcp://127.0.0.1:9", "q.cql", "g.pgn"])
    assert result.exit_code == 2
    assert "cql: error: --scheduler requires the 'distributed' package" in result.output
    assert not (tmp_path / "q-out.pgn").exists()


def test_a_cluster_without_workers_ends_the_run_with_exit_3() -> None:
    # Issue 22: when every worker dies, cql used to wait for ever.
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster, dist.connect(cluster.scheduler_address) as connected:
        cluster.scale(0)
        while connected.nthreads():
            time.sleep(0.1)
        factory = functools.partial(PlyCounter, 80)
        with pytest.raises(dist.DistributedError) as info:
            list(dist.run_dask(factory, _parts(40), connected, worker_wait=1.0))
    assert info.value.exit_code == 3
    assert "every worker has left the cluster" in info.value.message
