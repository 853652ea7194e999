"""File helpers shared by the front ends."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename,
    so readers never see a half-written file and a failed write leaves no partial one.

    Text is written as UTF-8 without newline translation. Raises OSError on failure.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(
        dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
