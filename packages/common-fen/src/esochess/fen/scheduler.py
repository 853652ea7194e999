"""Reaching a Dask scheduler: the one connect step of every `--scheduler` option
(`cql --scheduler`, `chespel match --scheduler`).

`distributed` is an optional extra of the packages that use it, so it is imported at run
time and its Client is typed `Any`. Each failure is a `SchedulerError` whose message names
the address; `missing` tells a caller that the package itself is absent (a usage error,
not a cluster failure).
"""

from __future__ import annotations

import importlib
from typing import Any

Client = Any
CONNECT_TIMEOUT = "10s"
WORKER_WAIT = 30.0
"""Seconds to wait for the cluster's first worker."""
REQUIRED = "--scheduler requires the 'distributed' package"


class SchedulerError(Exception):
    """The cluster cannot be used: no `distributed`, scheduler unreachable, or no worker."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.missing = missing


def require_distributed(hint: str = "") -> Any:
    """The `distributed` module, or a SchedulerError (with `missing` set) saying how to get it."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise SchedulerError(REQUIRED + hint, missing=True) from None


def connect(
    address: str,
    *,
    timeout: str = CONNECT_TIMEOUT,
    worker_wait: float = WORKER_WAIT,
    hint: str = "",
) -> Client:
    """A client of the scheduler at `address` once it has at least one worker."""
    distributed = require_distributed(hint)
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(f"cannot reach the scheduler at {address}: {exc}") from None
    try:
        client.wait_for_workers(1, timeout=worker_wait)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise SchedulerError(f"no worker at {address}: {exc}") from None
    return client
