"""Suite-wide test configuration: hypothesis profiles and the checkout's root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent

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
