"""Hypothesis settings for the fuzz targets: short under `make test`, long under `make fuzz`.

`make fuzz` sets FUZZ_SCALE (examples are multiplied by it); `make test` leaves it at 1.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SCALE = max(1, int(os.environ.get("FUZZ_SCALE", "1")))


def fuzz_settings(examples: int) -> settings:
    """`examples` cases per run of `make test`, FUZZ_SCALE times as many under `make fuzz`."""
    return settings(
        deadline=None,
        max_examples=examples * SCALE,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
