"""Which addresses only this machine can reach."""

from __future__ import annotations

import ipaddress

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """True for a name or address that only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
