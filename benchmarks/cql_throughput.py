"""CQL throughput: reference parse rates, queries B1-B7, --jobs, peak RSS, the index.

Run from the repo root (as `make bench` does): `python benchmarks/cql_throughput.py`.
Every figure is the median of `--runs` runs over the masters file, printed as games/s and as
a ratio to R_full, the rate of python-chess `read_game` with GameBuilder measured in the same
run. The `cql` command runs as a subprocess, so its figures include start-up and output.

The index part (`--only IDX`) times `cql index` against one scan of the file (`cql() false`,
every game read, nothing written), then selective queries S1-S3 over the PGN file (as
shipped, prefilters on; and with the prefilters switched off, the scan as it was before
them) and over the index, all in CPU seconds, and projects both to a 100 M-game dump. Each
selective query also runs over an empty PGN file and an empty index: that is its start-up
(interpreter, imports, compiling the query). The CPU cost of one game, what a larger input
multiplies, is the rest of a PGN run divided by its games, and on the index path (a few
microseconds, within the noise of one start-up) the difference between an index of the
file repeated COPIES times and the file's own index, divided by the games between them.

The esochess modules are byte-compiled first, as an installed `cql` has them: with
PYTHONDONTWRITEBYTECODE set (as on the project's machines) every run would otherwise
compile their sources again, ≈ 0.15-0.2 CPU s that no user pays.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess.pgn

from esochess.cqlvars import pgnio

ROOT = Path(__file__).resolve().parent.parent
MASTERS = ROOT.parent / "shared" / "data" / "pgn" / "masters-pgnmentor.pgn"

QUERIES = [
    # B0 reads every game (no prefilter applies); B1 is the trivial query a prefilter decides.
    ("B0", "cql() false", 1.70),
    ("B1", "cql() Kh8 kh1", 0.90),
    ("B2", "cql() mate or stalemate", 0.60),
    ("B3", "cql() flipcolor { R attacks q  not q attacks R }", 0.50),
    ("B4", 'cql() player white "Fischer" mate', 5.0),
    ("B5", "cql() line --> move capture . --> move capture . --> move capture . "
           "--> move capture .", 0.50),
    ("B6", "cql() initial", 0.40),
    ("B7", "cql(quiet) if move capture . then persistent Captures += 1  false", 0.70),
]
#: Selective queries for the index: a material ending, mates by a knight, underpromotions.
#: Copies of the file in the larger index the cost of a game on the index path comes from.
COPIES = 5
SELECTIVE = [
    ("S1", "cql() [QqBbNn] == 0 and #R == 1 and #r == 1 and [Pp] == 0"),
    ("S2", "cql() mate move previous from N"),
    ("S3", "cql() move promote [RBN]"),
]
#: Runs cql with the prefilters switched off (the PGN scan before they existed).
NO_PREFILTER = (
    "import sys; from esochess.cqlvars import engine; "
    "engine.raw_test = lambda cond: None; "
    "from esochess.cqlvars.cli import main; sys.argv[0] = 'cql'; main()"
)


class _NoTree(chess.pgn.BaseVisitor[bool]):
    """R_light: a visitor that builds nothing at all."""

    def result(self) -> bool:
        return True


def _median_rate(games: int, runs: int, work: Callable[[], tuple[float, float]]) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = work()
        walls.append(wall)
        cpus.append(cpu)
    wall = statistics.median(walls)
    cpu = statistics.median(cpus)
    return {"rate": games / wall, "wall": wall, "cpu": cpu, "cpu_rate": games / max(cpu, 1e-9)}


def _parse_all(path: Path, visitor: Callable[[], chess.pgn.BaseVisitor[object]]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        while chess.pgn.read_game(handle, Visitor=visitor) is not None:
            pass
    return time.perf_counter() - wall, time.process_time() - cpu


def _cql_binary() -> list[str]:
    beside = Path(sys.executable).with_name("cql")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("cql")
    if found is None:
        raise SystemExit("cql_throughput: the `cql` command is not installed (run `make venv`)")
    return [found]


def _run_cql(
    args: list[str], cwd: Path, command: list[str] | None = None
) -> tuple[float, float, int]:
    """Run cql; return (wall s, CPU s of it and its children, peak RSS in KiB of the main)."""
    wall = time.perf_counter()
    before = os.times()
    proc = subprocess.Popen(
        (command or _cql_binary()) + args, cwd=cwd, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - wall
    after = os.times()
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"cql {' '.join(args)} failed ({proc.returncode}):\n{stderr}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return elapsed, cpu, usage.ru_maxrss


def _peak_rss(args: list[str], cwd: Path) -> tuple[int, int]:
    """Run cql; return the peak RSS (KiB) of the main process and of its largest worker.

    The workers' high-water marks are read from /proc while they run (VmHWM), since
    rusage only reports the main process's own peak.
    """
    proc = subprocess.Popen(
        _cql_binary() + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    workers: dict[int, int] = {}
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        for child in _children(proc.pid):
            workers[child] = max(workers.get(child, 0), _hwm(child))
        time.sleep(0.5)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"cql {' '.join(args)} failed ({proc.returncode})")
    return usage.ru_maxrss, max(workers.values(), default=0)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _hwm(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return 0
    return 0


def _write_repeated(target: Path, games: int) -> None:
    """The masters file repeated until `games` games (the last copy cut at a game boundary)."""
    whole = MASTERS.read_bytes()
    per_copy = 12902
    with open(target, "wb") as out:
        for _ in range(games // per_copy):
            out.write(whole if whole.endswith(b"\n\n") else whole.rstrip(b"\n") + b"\n\n")
        rest = games % per_copy
        for part in pgnio.partitions([str(MASTERS)], last=rest):
            out.write(part.data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per item; the median is shown")
    parser.add_argument("--games", type=int, default=0, help="use only the first N games")
    parser.add_argument("--rss-games", type=int, default=100_000,
                        help="games in the repeated file for the memory check (0 = skip)")
    parser.add_argument("--only", default="", help="comma-separated query ids, e.g. B1,B2")
    opts = parser.parse_args()
    for src in sorted((ROOT / "packages").glob("*/src")):
        compileall.compile_dir(src, quiet=1)

    with tempfile.TemporaryDirectory(prefix="cql-bench-") as tmp:
        work = Path(tmp)
        source = MASTERS
        games = 12902
        if opts.games:
            source = work / "subset.pgn"
            _write_repeated(source, opts.games)
            games = opts.games
        print(f"cql throughput over {source.name}: {games} games, median of {opts.runs} runs")
        print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
              f"(2 cores, shared with other work)")

        full = _median_rate(games, opts.runs, lambda: _parse_all(source, chess.pgn.GameBuilder))
        light = _median_rate(games, opts.runs, lambda: _parse_all(source, _NoTree))
        r_full, c_full = full["rate"], full["cpu_rate"]
        # "x R_full" compares wall-clock rates, "cpu x" CPU-time rates (games per CPU
        # second), which a loaded, shared machine disturbs much less.
        print(f"{'item':<22}{'games/s':>10}{'x R_full':>10}{'cpu x':>7}{'target':>9}"
              f"{'wall s':>9}{'cpu s':>8}")
        print(f"{'R_full (GameBuilder)':<22}{r_full:>10.0f}{1:>10.2f}{1:>7.2f}{'':>9}"
              f"{full['wall']:>9.2f}{full['cpu']:>8.2f}")
        print(f"{'R_light (no tree)':<22}{light['rate']:>10.0f}{light['rate'] / r_full:>10.2f}"
              f"{light['cpu_rate'] / c_full:>7.2f}{'':>9}{light['wall']:>9.2f}"
              f"{light['cpu']:>8.2f}")

        wanted = {q.strip() for q in opts.only.split(",") if q.strip()}
        single: dict[str, float] = {}
        for ident, query, target in QUERIES:
            if wanted and ident not in wanted:
                continue
            qfile = work / f"{ident}.cql"
            qfile.write_text(query + "\n")
            args = ["--jobs", "1", "-o", str(work / "out.pgn"), str(qfile), str(source)]

            def once(args: list[str] = args) -> tuple[float, float]:
                wall, cpu, _ = _run_cql(args, work)
                return wall, cpu

            res = _median_rate(games, opts.runs, once)
            single[ident] = res["rate"]
            ratio = res["rate"] / r_full
            mark = "ok" if ratio >= target else "MISS"
            print(f"{ident + ' --jobs 1':<22}{res['rate']:>10.0f}{ratio:>10.2f}"
                  f"{res['cpu_rate'] / c_full:>7.2f}{'>=' + format(target, '.2f'):>9}"
                  f"{res['wall']:>9.2f}{res['cpu']:>8.2f}  {mark}")
            if ident in ("B1", "B2", "B7"):
                jobs = "4" if ident == "B7" else "2"
                pargs = ["--jobs", jobs] + args[2:]

                def par(pargs: list[str] = pargs) -> tuple[float, float]:
                    wall, cpu, _ = _run_cql(pargs, work)
                    return wall, cpu

                pres = _median_rate(games, opts.runs, par)
                print(f"{ident + ' --jobs ' + jobs:<22}{pres['rate']:>10.0f}"
                      f"{pres['rate'] / r_full:>10.2f}{'':>7}{'':>9}{pres['wall']:>9.2f}"
                      f"{pres['cpu']:>8.2f}  = {pres['rate'] / res['rate']:.2f} x --jobs 1")

        if not wanted or "IDX" in wanted:
            _index_part(work, source, games, opts.runs)

        if opts.rss_games:
            big = work / "repeated.pgn"
            _write_repeated(big, opts.rss_games)
            qfile = work / "rss.cql"
            qfile.write_text(QUERIES[0][1] + "\n")
            small_main, small_worker = _peak_rss(
                ["--jobs", "2", "-o", str(work / "o1.pgn"), str(qfile), str(MASTERS)], work
            )
            big_main, big_worker = _peak_rss(
                ["--jobs", "2", "-o", str(work / "o2.pgn"), str(qfile), str(big)], work
            )
            print(f"peak RSS of `cql --jobs 2` (B1), main process: 12902 games "
                  f"{small_main / 1024:.1f} MiB, {opts.rss_games} games {big_main / 1024:.1f} MiB"
                  f" = {big_main / small_main:.2f} x (target <= 1.50)")
            if small_worker and big_worker:
                print(f"peak RSS of the largest worker: {small_worker / 1024:.1f} MiB and "
                      f"{big_worker / 1024:.1f} MiB = {big_worker / small_worker:.2f} x")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _cpu(args: list[str], cwd: Path, runs: int, command: list[str] | None = None) -> float:
    """Median CPU seconds of `runs` runs of cql."""
    return statistics.median(_run_cql(args, cwd, command)[1] for _ in range(runs))


def _index_part(work: Path, source: Path, games: int, runs: int) -> None:
    print(f"index (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}):")
    scan = work / "false.cql"
    scan.write_text("cql() false\n")
    scan_cpu = _cpu(["--jobs", "1", "-o", str(work / "o.pgn"), str(scan), str(source)], work,
                    runs)
    db = work / "bench.cqldb"

    def build() -> float:
        db.unlink(missing_ok=True)
        return _run_cql(["index", str(db), str(source)], work)[1]

    build_cpu = statistics.median(build() for _ in range(runs))
    print(f"  one scan (cql() false) {scan_cpu:.2f} cpu s; cql index {build_cpu:.2f} cpu s = "
          f"{build_cpu / scan_cpu:.2f} x one scan (target <= 1.50); "
          f"{games / build_cpu:.0f} games/cpu s, {db.stat().st_size / 2**20:.1f} MiB "
          f"({source.stat().st_size / 2**20:.1f} MiB of PGN)")
    per_game_index = build_cpu / games
    # Start-up: the same command over an empty input (interpreter, imports, compiling the
    # query, opening the input); what is left of a run, divided by the games, is the cost
    # of a game, which is what a larger input multiplies.
    empty_pgn = work / "empty.pgn"
    empty_pgn.write_bytes(b"")
    empty_db = work / "empty.cqldb"
    empty_db.unlink(missing_ok=True)
    _run_cql(["index", str(empty_db), str(empty_pgn)], work)
    # The cost of a game on the index path is a few microseconds, within the noise of one
    # start-up: it is measured as the difference between the file indexed COPIES times
    # and once, divided by the games between them.
    big_db = work / "big.cqldb"
    big_db.unlink(missing_ok=True)
    _run_cql(["index", str(big_db)] + [str(source)] * COPIES, work)
    print(f"  {'query':<6}{'matched':>9}{'pgn cpu s':>11}{'no-prefilter':>14}{'index cpu s':>13}"
          f"{'x pgn':>8}{'x no-pf':>9}{'start pgn':>11}{'start idx':>11}{'us/game pgn':>13}"
          f"{'us/game idx':>13}{'x per game':>12}")
    python = [sys.executable, "-c", NO_PREFILTER]
    dump = 100_000_000
    projected = []
    for ident, query in SELECTIVE:
        qfile = work / f"{ident}.cql"
        qfile.write_text(query + "\n")
        out = work / f"{ident}.pgn"
        args = ["--jobs", "1", "-o", str(out), str(qfile)]
        pgn = _cpu(args + [str(source)], work, runs)
        written = out.read_bytes()
        plain = _cpu(args + [str(source)], work, runs, python)
        same = out.read_bytes() == written
        indexed = _cpu(args + [str(db)], work, runs)
        same = same and out.read_bytes() == written
        matched = written.count(b"[Event ")
        start_pgn = _cpu(args + [str(empty_pgn)], work, runs)
        start_idx = _cpu(args + [str(empty_db)], work, runs)
        per_pgn = max(pgn - start_pgn, 0.0) / games
        big = _cpu(args + [str(big_db)], work, runs)
        per_idx = max(big - indexed, 1e-9) / ((COPIES - 1) * games)
        print(f"  {ident:<6}{matched:>5} {100 * matched / games:>3.1f}%{pgn:>10.2f}{plain:>14.2f}"
              f"{indexed:>13.2f}{pgn / indexed:>8.1f}{plain / indexed:>9.1f}{start_pgn:>11.2f}"
              f"{start_idx:>11.2f}{per_pgn * 1e6:>13.1f}{per_idx * 1e6:>13.2f}"
              f"{per_pgn / per_idx:>12.0f}   {query}"
              f"{'' if same else '   OUTPUT DIFFERS'}")
        projected.append(f"{ident} scan {(start_pgn + per_pgn * dump) / 3600:.1f} cpu h, index "
                         f"{(start_idx + per_idx * dump) / 60:.1f} cpu min")
    print(f"  projection to {dump:,} games: cql index {per_game_index * dump / 3600:.1f} cpu h "
          f"once; one scan {scan_cpu / games * dump / 3600:.1f} cpu h per query; "
          + "; ".join(projected))


if __name__ == "__main__":
    main()
