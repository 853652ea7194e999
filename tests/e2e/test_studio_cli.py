"""`esochess studio` as a command: it serves the five pages on the loopback address by
default, and says so when --host names an address other machines can reach."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from child_processes import finish
from click.testing import CliRunner

from esochess.studio.cli import main
from esochess.studio.hosts import is_loopback

ESOCHESS = Path(sys.executable).with_name("esochess")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(*options: str) -> tuple[dict[str, str], str, int]:
    """Start the studio, fetch the five pages through 127.0.0.1, stop it; (pages, stderr, port)."""
    port = _free_port()
    process = subprocess.Popen(
        [str(ESOCHESS), "studio", "--no-browser", "--port", str(port), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        pages = {}
        deadline = time.monotonic() + 30
        for page in ("", "chazz", "chespel", "gambit", "cql"):
            while True:
                try:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/{page}", timeout=5
                    ) as response:
                        pages[page] = response.read().decode()
                    break
                except OSError:
                    assert process.poll() is None and time.monotonic() < deadline
                    time.sleep(0.1)
    finally:
        process.terminate()
        _, err = finish(process, 30)
    return pages, err, port


def test_studio_serves_the_five_pages_on_loopback() -> None:
    pages, err, port = _serve()
    assert len(pages) == 5 and all("esochess studio" in html for html in pages.values())
    assert err.startswith(f"esochess studio at http://127.0.0.1:{port}/")
    assert "warning" not in err


def test_only_an_explicit_host_opens_the_studio_to_other_machines() -> None:
    pages, err, _ = _serve("--host", "0.0.0.0")
    assert len(pages) == 5
    assert "warning: listening on 0.0.0.0: other machines can reach the studio" in err


def test_loopback_names() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert (
        not is_loopback("0.0.0.0")
        and not is_loopback("192.168.1.2")
        and not is_loopback("example.org")
    )


def test_help_names_the_options() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--no-browser"):
        assert option in result.output
    assert "127.0.0.1" in result.output


def test_a_port_in_use_is_a_message_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [str(ESOCHESS), "studio", "--no-browser", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"esochess studio: error: cannot listen on 127.0.0.1 port {port}: "
        "Address already in use (--port 0 picks a free port)\n"
    )
