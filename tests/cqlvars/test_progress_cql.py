"""progress: the §1.8 indicator line, its refresh rules and its erasure."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars.progress import Progress, Snapshot, format_duration, render


class Clock:
    """A settable clock so refresh intervals are tested without sleeping."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_line_with_known_total_has_the_spec_shape() -> None:
    line = render(Snapshot(games=4512, matches=7, elapsed=4512 / 231, total=12902))
    assert line.startswith("[#######.............]  4512/12902 games  35%  231 games/s  ETA 0:36")
    assert line.endswith("7 matched")


def test_unknown_total_and_size_shows_count_and_rate_only() -> None:
    assert render(Snapshot(games=50, matches=2, elapsed=2.0)) == "50 games  2 matched  25 games/s"


def test_fraction_from_file_offsets_gives_eta_before_the_total_is_known() -> None:
    line = render(Snapshot(games=100, matches=0, elapsed=10.0, fraction=0.25))
    assert "100 games" in line and "25%" in line and "ETA 0:30" in line
    assert "/" not in line.split("games")[0]


def test_durations() -> None:
    assert format_duration(36) == "0:36"
    assert format_duration(3725) == "1:02:05"
    assert format_duration(-3) == "0:00"


def test_terminal_refreshes_at_most_ten_times_a_second_and_erases() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(out, tty=True, sizes=[1000], clock=clock)
    bar.game(True)
    assert out.getvalue() == ""  # nothing before 0.1 s
    clock.now += 0.2
    bar.reached(0, 500)
    bar.game(False)
    painted = out.getvalue()
    assert painted.startswith("\r[##########..........]  2 games  50%")
    assert "1 matched" in painted and "\n" not in painted
    bar.game(False)
    assert out.getvalue() == painted  # within the same 0.1 s: no repaint
    bar.close()
    assert out.getvalue().endswith("\r")
    assert out.getvalue()[len(painted):].strip() == ""


def test_plain_stream_gets_a_line_every_five_seconds() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(out, tty=False, sizes=[None], clock=clock)
    clock.now += 1
    bar.game(False)
    assert out.getvalue() == ""
    clock.now += 5
    bar.scan_finished(10)
    bar.game(True)
    assert out.getvalue() == "cql: progress: [####................]  2/10 games  20%  0 games/s" \
        "  ETA 0:24  1 matched\n"
    bar.close()
    assert out.getvalue().count("\n") == 1


def test_a_run_of_games_an_index_ruled_out_counts_each_game() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(out, tty=False, sizes=[None], clock=clock)
    bar.scan_finished(1000)
    bar.game(False, 600)
    clock.now += 5
    bar.game(True)
    assert bar.games == 601 and bar.matches == 1
    assert "601/1000 games  60%" in out.getvalue()


def test_offsets_across_files_add_up() -> None:
    bar = Progress(io.StringIO(), tty=True, sizes=[100, 300], clock=Clock())
    bar.reached(1, 100)
    assert bar.snapshot().fraction == 0.5


@settings(deadline=None, max_examples=100)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.floats(0.01, 1e5),
       st.one_of(st.none(), st.integers(1, 10**6)), st.one_of(st.none(), st.floats(0, 1)))
def test_render_is_one_line_with_a_bar_of_fixed_width(
    games: int, matches: int, elapsed: float, total: int | None, fraction: float | None
) -> None:
    line = render(Snapshot(games, matches, elapsed, total, fraction))
    assert "\n" not in line and "\r" not in line
    bar = re.match(r"\[([#.]*)\]", line)
    if total is None and fraction is None:
        assert bar is None
    else:
        assert bar is not None and len(bar.group(1)) == 20


def test_no_eta_before_a_thousandth_is_done() -> None:
    line = render(Snapshot(games=0, matches=0, elapsed=26453.0, fraction=1.5e-304))
    assert "ETA" not in line and "0%" in line
