"""Suite-wide test configuration: hypothesis profiles and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
PGN_DIR = SHARED_DIR / "data" / "pgn"

# "default" keeps `make test` inside its time budget on two cores; "thorough" is for
# hunting bugs locally (HYPOTHESIS_PROFILE=thorough).
settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def repo_root() -> Path:
    """The checkout's root directory."""
    return REPO_ROOT


@pytest.fixture
def pgn_dir() -> Path:
    """The shared PGN data directory (../shared/data/pgn); skips when it is absent."""
    if not PGN_DIR.is_dir():
        pytest.skip(f"shared PGN data not found at {PGN_DIR}")
    return PGN_DIR
