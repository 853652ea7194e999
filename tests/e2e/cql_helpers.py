"""Shared helpers for the cql end-to-end tests: fixtures of spec §9.1 and a runner."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from esochess.cqlvars.cli import main

F = {
    "F1": '[Event "Fixture"]\n[Site "?"]\n[Date "2020.01.01"]\n[Round "1"]\n[White "W"]\n'
    '[Black "B"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n',
    "F2": "1. e4 f6 2. Qh5+ g6 3. Qxg6+ hxg6 *\n\n1. e4 e5 *\n",
    "F3": "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O *\n",
    "F4": "1. e4 d5 2. exd5 Nf6 3. Nc3 Nxd5 4. Nxd5 Qxd5 *\n",
    "F5": '[SetUp "1"]\n[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n\n1. a8=N Kg6 2. Nb6 *\n',
    "F6": "1. e4 Nf6 2. e5 d5 3. exd6 *\n",
    "F7": "1. e4 e5 2. Nf3 Nc6 3. d4 exd4 4. Nxd4 Nxd4 5. Qxd4 *\n",
    "F8": "1. f3 e5 2. g4 (2. Nc3 Qh4+ 3. g3) 2... Qh4# 0-1\n",
    "F9": "1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 d5 *\n\n1. c4 c5 2. Nc3 Nc6 3. g3 g6 *\n",
    "F10": "1. Nf3 Nf6 2. Ng1 Ng8 *\n",
    "F11": '[Event "12th Open"]\n[Date "2004.05.01"]\n[White "Smith, J"]\n'
    '[Black "Carlsen, Magnus"]\n[BlackElo "2850"]\n[Result "0-1"]\n\n1. e4 e5 0-1\n\n'
    '[Event "Blitz"]\n[Date "1999.??.??"]\n[White "Doe, A"]\n[Black "Carlsen, Magnus"]\n'
    '[BlackElo ""]\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n',
    "F12": '[Event "one"]\n\n1. e4 e5 *\n\n[Event "two"]\n\n1. e4 e5 2. Ke3 *\n\n'
    '[Event "three"]\n\n1. d4 *\n',
    "F13": "1. d4 d5 *\n",
    "F14": "1. e4 { best by test } e5 *\n",
    "S": "*\n",
    "A04": "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 7. Qxb7 Qd3 "
    "8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6 *\n",
}


def position(fen: str) -> str:
    """Fixture P(fen): a single position."""
    return f'[SetUp "1"]\n[FEN "{fen}"]\n\n*\n'


STATS = re.compile(r"^cql: (\d+) games read, (\d+) matched, (\d+) with errors, \d+\.\d\d s$")


@dataclass
class Run:
    """The observable result of one `cql` run."""

    code: int
    out: str
    err: str
    pgn: str | None

    @property
    def games(self) -> list[str]:
        """The output games, split on blank-line-separated tag/movetext pairs."""
        if not self.pgn:
            return []
        return [g for g in re.split(r"\n\n(?=\[)", self.pgn.strip("\n")) if g]

    @property
    def events(self) -> list[str]:
        """The Event tag of each output game, in order."""
        return [line[8:-2] for line in (self.pgn or "").splitlines() if line.startswith("[Event ")]

    @property
    def movetexts(self) -> list[str]:
        """The movetext of each output game (the part after the tags)."""
        return [g.split("\n\n", 1)[1] if "\n\n" in g else g for g in self.games]

    @property
    def stats(self) -> tuple[int, int, int]:
        """(read, matched, errors) from the statistics line."""
        text = self.out if "cql:" in self.out else self.err
        for line in text.splitlines():
            m = STATS.match(line)
            if m:
                return int(m.group(1)), int(m.group(2)), int(m.group(3))
        raise AssertionError(f"no statistics line in {text!r}")


def run_cql(
    tmp: Path,
    query: str,
    *pgns: str,
    args: tuple[str, ...] = (),
    query_name: str = "q.cql",
    pgn_names: tuple[str, ...] = (),
) -> Run:
    """Write the query and PGN texts into tmp, run `cql -o out.pgn`, collect everything."""
    qpath = tmp / query_name
    qpath.write_text(query, encoding="utf-8")
    paths = []
    for i, text in enumerate(pgns):
        name = pgn_names[i] if i < len(pgn_names) else f"in{i}.pgn"
        (tmp / name).write_text(text, encoding="utf-8")
        paths.append(name)
    out = tmp / "out.pgn"
    if out.exists():
        out.unlink()
    argv = list(args)
    if "-o" not in argv:
        argv = ["-o", "out.pgn", *argv]
    with contextlib.chdir(tmp):
        result = CliRunner().invoke(main, [*argv, query_name, *paths], catch_exceptions=False)
    pgn = out.read_text(encoding="utf-8") if out.exists() else None
    return Run(result.exit_code, result.stdout, result.stderr, pgn)
