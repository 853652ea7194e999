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

`--scale GAMES` measures the index part at database scale: the same items over the masters
file and over a synthetic file of GAMES games, made in the temporary directory by copying
the masters file (every copy's games get an extra tag, [SyntheticCopy "K"], so the copies
are told apart; no query here reads it), removed on every exit. Each run is `--jobs 1` and
CPU time of the whole process; `--parallel N` times N runs side by side (each by its own
rusage), `--budget MINUTES` starts no long run after that. It prints one scan against
`cql index`, S1-S3 over the PGN files and over their indexes (outputs compared byte for
byte), the index's size, the indexed query's peak RSS and a projection to 100 M games.

The esochess modules are byte-compiled first, as an installed `cql` has them: with
PYTHONDONTWRITEBYTECODE set (as on the project's machines) every run would otherwise
compile their sources again, ≈ 0.15-0.2 CPU s that no user pays.
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
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
MASTERS_GAMES = 12902
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


#: The cql processes running now, killed when the benchmark stops early (Ctrl-C, a failure).
_RUNNING: set[subprocess.Popen[bytes]] = set()
_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _run_cql(
    args: list[str], cwd: Path, command: list[str] | None = None
) -> tuple[float, float, int]:
    """Run cql; return (wall s, CPU s of it and its children, peak RSS in KiB of the main)."""
    wall, cpu, rss, _ = _run_full(args, cwd, command)
    return wall, cpu, rss


def _run_full(
    args: list[str], cwd: Path, command: list[str] | None = None
) -> tuple[float, float, int, str]:
    """Run cql; also return its standard error, the elapsed time of its summary line cut.

    CPU comes from the process's own `wait4` rusage (user + system of it and the workers
    it waited for), so runs timed in parallel threads do not mix. Peak RSS is the main
    process's VmHWM, read while it runs: rusage's maxrss also counts the benchmark's own
    memory, which the child inherits at fork.
    """
    wall = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        with _LOCK:
            if _STOPPING.is_set():
                raise SystemExit("cql_throughput: stopped")
            proc = subprocess.Popen((command or _cql_binary()) + args, cwd=cwd,
                                    stdout=subprocess.DEVNULL, stderr=err)
            _RUNNING.add(proc)
        peak = 0
        try:
            while not (waited := os.wait4(proc.pid, os.WNOHANG))[0]:
                peak = max(peak, _hwm(proc.pid))
                time.sleep(0.01)
        finally:
            _RUNNING.discard(proc)
        _, status, usage = waited
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    elapsed = time.perf_counter() - wall
    if proc.returncode not in (0, 1):
        raise SystemExit(f"cql {' '.join(args)} failed ({proc.returncode}):\n{stderr}")
    summary = re.sub(r", [0-9.]+ s$", "", stderr.rstrip("\n"), flags=re.M)
    return elapsed, usage.ru_utime + usage.ru_stime, peak, summary


def _stop_running(*_: object) -> None:
    """Kill the cql processes still running and start no more (the benchmark is stopping)."""
    with _LOCK:
        _STOPPING.set()
        for proc in _RUNNING:
            proc.kill()


def _interrupt(*_: object) -> None:
    """SIGTERM: stop like Ctrl-C, so the temporary directory is removed."""
    raise KeyboardInterrupt


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
    parser.add_argument("--scale", type=int, default=0, metavar="GAMES",
                        help="only the index part, over the masters file and over a synthetic "
                        "file of GAMES games made of copies of it")
    parser.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="with --scale: long runs (each --jobs 1) timed N at a time")
    parser.add_argument("--budget", type=float, default=0, metavar="MINUTES",
                        help="with --scale: start no long run after MINUTES minutes")
    opts = parser.parse_args()
    for src in sorted((ROOT / "packages").glob("*/src")):
        compileall.compile_dir(src, quiet=1)
    signal.signal(signal.SIGTERM, _interrupt)
    # The temporary directory goes on every exit (Ctrl-C and SIGTERM included); the cql
    # processes still running are killed first.
    with tempfile.TemporaryDirectory(prefix="cql-bench-") as tmp:
        try:
            if opts.scale:
                _scale_part(Path(tmp), opts.scale, opts.runs, opts.parallel, opts.budget)
            else:
                _throughput(Path(tmp), opts)
        except KeyboardInterrupt:
            raise SystemExit("cql_throughput: interrupted") from None
        finally:
            _stop_running()


def _throughput(work: Path, opts: argparse.Namespace) -> None:
    """The queries B0-B7, the index part and the memory check over the masters file."""
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


# --scale ------------------------------------------------------------------------------------
#: The extra tag that tells the copies of a game apart in the synthetic file.
COPY_TAG = "SyntheticCopy"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _write_synthetic(target: Path, games: int) -> int:
    """Copies of the masters file until `games` games (the last copy cut at a game), each
    game given the tag [SyntheticCopy "K"] after its own tags, K the copy's number: the
    copies are told apart and no query of this benchmark reads the tag. Returns K of the
    last copy."""
    parts = []
    for (number, _, data, _), _ in pgnio.scan_file(str(MASTERS)):
        cut = data.find(b"\n\n") + 1
        if not data.startswith(b"[") or cut == 0:
            raise SystemExit(f"cql_throughput: game {number} of {MASTERS} has no tag section")
        parts.append((data[:cut], data[cut:]))
    copy = 0
    with open(target, "wb") as out:
        while copy * len(parts) < games:
            copy += 1
            tag = f'[{COPY_TAG} "{copy}"]\n'.encode()
            left = games - (copy - 1) * len(parts)
            out.write(b"".join(head + tag + tail for head, tail in parts[:left]))
    return copy


Timed = tuple[float, float, int, str]  # wall s, CPU s, peak RSS KiB, stderr (time cut)


def _scale_part(work: Path, games: int, runs: int, parallel: int, budget: float) -> None:
    """The index part over the masters file and over a synthetic file of `games` games:
    the long runs (one scan, `cql index`, S1-S3 over each PGN) once each, what a ratio at
    scale needs first, each index's queries (median of `runs`) right after it is built.
    A long run not started within `budget` minutes (0: no limit) is reported as not run."""
    print(f"cql at scale, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"load average at start: {_load()} (2 cores, shared with other work)", flush=True)
    big = work / "synthetic.pgn"
    copies = _write_synthetic(big, games)
    print(f"synthetic input: {games:,} games = the masters file ({MASTERS_GAMES:,} real games) "
          f"copied {copies} times (the last copy cut at {games - (copies - 1) * MASTERS_GAMES:,}"
          f" games), each game with an extra tag [{COPY_TAG} \"K\"], K = 1..{copies}; "
          f"{big.stat().st_size / 2**20:.0f} MiB", flush=True)
    inputs = {"masters": (MASTERS, MASTERS_GAMES), "synthetic": (big, games)}
    for ident, query in [("scan", "cql() false"), *SELECTIVE]:
        (work / f"{ident}.cql").write_text(query + "\n")
    empty_pgn, empty_db = work / "empty.pgn", work / "empty.cqldb"
    empty_pgn.write_bytes(b"")
    _run_full(["index", str(empty_db), str(empty_pgn)], work)
    s3 = ["--jobs", "1", "-o", str(work / "o.pgn"), str(work / "S3.cql")]
    start = (_cpu(s3 + [str(empty_pgn)], work, runs), _cpu(s3 + [str(empty_db)], work, runs))
    print(f"start-up (S3 over an empty file, median of {runs}): PGN {start[0]:.2f}, index "
          f"{start[1]:.2f} cpu s; runs {parallel} at a time:", flush=True)
    timed: dict[tuple[str, str], Timed] = {}
    stop_at = time.monotonic() + budget * 60 if budget else None

    def show(key: tuple[str, str], what: str, result: Timed) -> None:
        print(f"  {key[0]:<10}{key[1]:<6}{what:<15}{result[1]:>10.2f} cpu s{result[0]:>9.1f} wall s"
              f"{result[2] / 1024:>8.1f} MiB   load {_load()}", flush=True)

    def long_run(label: str, ident: str) -> None:
        if stop_at is not None and time.monotonic() > stop_at:
            print(f"  {label:<10}{ident:<6}not run (past the budget)", flush=True)
            return
        pgn = str(inputs[label][0])
        if ident == "index":
            db = str(work / f"{label}.cqldb")
            timed[label, ident] = _run_full(["index", db, pgn], work)
            show((label, ident), "build", timed[label, ident])
            for query, _ in SELECTIVE:
                args = ["--jobs", "1", "-o", str(work / f"{label}-{query}-idx.pgn"),
                        str(work / f"{query}.cql"), db]
                results = sorted((_run_full(args, work) for _ in range(runs)), key=lambda r: r[1])
                timed[label, f"{query}-idx"] = results[len(results) // 2]
                show((label, query), "over the index", timed[label, f"{query}-idx"])
            return
        args = ["--jobs", "1", "-o", str(work / f"{label}-{ident}-pgn.pgn"),
                str(work / f"{ident}.cql"), pgn]
        timed[label, ident] = _run_full(args, work)
        show((label, ident), "over the PGN" if ident != "scan" else "one scan", timed[label, ident])

    # What the ratios at scale need first; S1 and S2 over the large PGN (the longest) last.
    order = [("synthetic", "index"), ("synthetic", "scan"), ("synthetic", "S3"),
             ("masters", "index"), ("masters", "scan"), ("masters", "S1"), ("masters", "S2"),
             ("masters", "S3"), ("synthetic", "S1"), ("synthetic", "S2")]
    with ThreadPoolExecutor(parallel) as pool:
        try:
            pending = {pool.submit(long_run, *key) for key in order}
            while pending:  # a timeout, so that Ctrl-C and SIGTERM are seen at once
                done, pending = wait(pending, timeout=1, return_when=FIRST_EXCEPTION)
                for future in done:
                    future.result()
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: report what was measured
            _stop_running()
            pool.shutdown(cancel_futures=True)
            print("interrupted: the runs still going were killed; what finished:")
            _scale_report(work, inputs, timed, start)
            raise
        except BaseException:
            _stop_running()
            pool.shutdown(cancel_futures=True)
            raise
    _scale_report(work, inputs, timed, start)
    print(f"load average at end: {_load()}")


def _scale_report(
    work: Path, inputs: dict[str, tuple[Path, int]], timed: dict[tuple[str, str], Timed],
    start: tuple[float, float],
) -> None:
    """The table: each item on the masters file and on the synthetic one, and a projection."""
    def cpu(label: str, item: str) -> float | None:
        return timed[label, item][1] if (label, item) in timed else None

    def cell(value: float | None, ratio: float | None = None, unit: str = "") -> str:
        text = "not run" if value is None else f"{value:.2f}"
        if value is not None and ratio is not None:
            text += f" ({ratio:.2f}{unit})"
        return f"{text:>30}"

    print(f"{'CPU s of the whole process':<36}"
          + "".join(f"{f'{label}, {inputs[label][1]:,} games':>30}" for label in inputs))
    print(f"{'one scan, cql() false':<36}" + "".join(cell(cpu(x, 'scan')) for x in inputs))
    line = f"{'cql index (x one scan; <= 1.5)':<36}"
    for label in inputs:
        build, scan = cpu(label, "index"), cpu(label, "scan")
        line += cell(build, build / scan if build and scan else None, "x")
    print(line)
    line = f"{'index size, MiB (bytes a game)':<36}"
    for label in inputs:
        db = work / f"{label}.cqldb"
        size = db.stat().st_size if db.exists() and (label, "index") in timed else 0
        line += f"{f'{size / 2**20:.1f} ({size / inputs[label][1]:.0f})' if size else 'not built':>30}"
    print(line)
    for ident, query in SELECTIVE:
        print(f"{ident} {query}")
        print(f"{'  over the PGN':<36}" + "".join(cell(cpu(x, ident)) for x in inputs))
        line, rss, same = f"{'  over the index (x PGN; >= 20)':<36}", "", ""
        for label in inputs:
            pgn, idx = cpu(label, ident), cpu(label, f"{ident}-idx")
            line += cell(idx, pgn / idx if pgn and idx else None, "x")
            result = timed.get((label, f"{ident}-idx"))
            rss += f"{f'{result[2] / 1024:.1f}' if result else '-':>30}"
            out_pgn, out_idx = work / f"{label}-{ident}-pgn.pgn", work / f"{label}-{ident}-idx.pgn"
            if result and (label, ident) in timed:
                matched = out_pgn.read_bytes().count(b"[Event ")
                equal = filecmp.cmp(out_pgn, out_idx, shallow=False) and (
                    timed[label, ident][3] == result[3])
                same += f"{f'{matched} games, ' + ('identical' if equal else 'DIFFERENT'):>30}"
            else:
                same += f"{'-':>30}"
        print(line)
        print(f"{'  peak RSS over the index, MiB':<36}{rss}")
        print(f"{'  matched; PGN vs index output':<36}{same}")
    # Projection from the synthetic file: the start-up once, plus its cost per game.
    games, dump = inputs["synthetic"][1], 100_000_000
    parts = []
    for item, what in (("scan", "one scan"), ("index", "cql index")):
        if (value := cpu("synthetic", item)) is not None:
            parts.append(f"{what} {value / games * dump / 3600:.0f} cpu h")
    for ident, _ in SELECTIVE:
        for item, base, where, unit, scale in ((ident, start[0], "PGN", "cpu h", 3600),
                                              (f"{ident}-idx", start[1], "index", "cpu min", 60)):
            if (value := cpu("synthetic", item)) is not None:
                parts.append(f"{ident} over the {where} "
                             f"{(base + (value - base) / games * dump) / scale:.1f} {unit}")
    print(f"projection to {dump:,} games (linear from the synthetic file): " + "; ".join(parts))


if __name__ == "__main__":
    main()
