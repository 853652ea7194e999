"""`esochess studio`: serve the studio on this machine and open it in the browser."""

from __future__ import annotations

import errno
import socket
import sys
import threading
import webbrowser

import click

from esochess.studio.hosts import LOOPBACK, is_loopback


def claim_port(host: str, port: int) -> int:
    """The port to serve on: `port` if it can be listened on (a free one for 0).

    Raises OSError (its `strerror` says why) when it cannot, before the server starts.
    """
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        probe.bind((host, port))
        return int(probe.getsockname()[1])


@click.command("studio", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--host",
    default=None,
    metavar="ADDRESS",
    help=f"Listen on ADDRESS (default {LOOPBACK}: this machine only).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port to listen on (0: any free port).",
)
@click.option("--no-browser", is_flag=True, help="Do not open the studio in a web browser.")
def main(host: str | None, port: int, no_browser: bool) -> None:
    """Open the esochess studio: CHAZZ debugger, Chespel, Gambit and CQL in the browser."""
    import uvicorn

    from esochess.studio.app import create_app

    chosen = host if host is not None else LOOPBACK
    try:
        port = claim_port(chosen, port)
    except OSError as exc:
        hint = " (--port 0 picks a free port)" if exc.errno == errno.EADDRINUSE else ""
        click.echo(f"esochess studio: error: cannot listen on {chosen} port {port}: "
                   f"{exc.strerror or exc}{hint}", err=True)  # fmt: skip
        sys.exit(2)
    remote = not is_loopback(chosen)
    if remote:
        # Only an explicit --host gets here; say plainly what it means.
        click.echo(
            f"esochess studio: warning: listening on {chosen}: other machines can "
            "reach the studio and run programs on this one",
            err=True,
        )
    shown = f"[{chosen}]" if ":" in chosen else chosen
    url = f"http://{'127.0.0.1' if chosen in ('0.0.0.0', '::') else shown}:{port}/"
    click.echo(f"esochess studio at {url} (Ctrl-C to stop)", err=True)
    if not no_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    try:
        uvicorn.run(create_app(local_only=not remote), host=chosen, port=port, log_level="warning")
    except KeyboardInterrupt:
        sys.exit(130)
