"""The brainfuck workloads of benchmarks/chazz_bench.py, at small sizes: translated with
from-bf, they print exactly the expected text on both engines (the benchmark itself only
checks the compiler's output, at full size)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from chazz_helpers import run_line

from esochess.chazz.brainfuck import translate

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "chazz_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chazz_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load_bench()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (bench.sieve_bf(40), bench.sieve_expected(40)),
        (bench.loops_bf(2, 3, 4), bench.loops_expected(2, 3, 4)),
        (bench.digits_bf(1), bench.digits_expected(1)),
        (bench.text_bf(3), bench.text_expected(3)),
    ],
    ids=["sieve", "loops", "digits", "text"],
)
@pytest.mark.parametrize("engine", ["compiler", "interpreter"])
def test_workload_output(source: str, expected: list[bytes], engine: str) -> None:
    result = run_line(translate(source), engine=engine)
    assert (result.stdout, result.status) == (b"".join(expected) + b"\n", "ok")


def test_sieve_expected_is_the_primes() -> None:
    (flags,) = bench.sieve_expected(12)
    assert flags == b"11010100010\n"  # 2 3 5 7 11 are prime
