"""Where the tests find real PGN games.

Three files ship with the project in examples/pgn/. The masters file has no known licence
and is never shipped: tests that want it look in $ESOCHESS_PGN_DIR, then in
../shared/data/pgn beside the checkout, and skip with `MASTERS_MISSING` otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHIPPED = REPO_ROOT / "examples" / "pgn"
LICHESS = SHIPPED / "lichess-carlsen-2018.pgn"
STUDIES = SHIPPED / "studies-lichess-thijscom.pgn"
PROBLEMS = SHIPPED / "problems-mate-in-2-3-4.pgn"
MASTERS_NAME = "masters-pgnmentor.pgn"
MASTERS_MISSING = (
    f"{MASTERS_NAME} is not shipped (no known licence): set ESOCHESS_PGN_DIR to a folder "
    "holding it to run this test"
)


def find_masters() -> Path | None:
    """The masters file from $ESOCHESS_PGN_DIR or ../shared/data/pgn, or None."""
    places = [os.environ.get("ESOCHESS_PGN_DIR"), str(REPO_ROOT.parent / "shared/data/pgn")]
    for place in places:
        if place and (Path(place) / MASTERS_NAME).is_file():
            return Path(place) / MASTERS_NAME
    return None


MASTERS = find_masters()
#: Mark a test (or module) that needs the masters file.
needs_masters = pytest.mark.skipif(MASTERS is None, reason=MASTERS_MISSING)


def masters() -> Path:
    """The masters file; skips the calling test when it cannot be found."""
    if MASTERS is None:
        pytest.skip(MASTERS_MISSING)
    return MASTERS
