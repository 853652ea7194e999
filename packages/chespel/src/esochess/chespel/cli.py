"""The `chespel` command (also `esochess chespel`): thin click layer over the front end.

Subcommands read a program with `load_program`, which prints the diagnostics of §7.2 on
standard error and exits 2 when the program has errors or cannot be read (§12.1). This is
the only module that prints or exits.
"""

from __future__ import annotations

import sys

import click
from esochess.chespel.frontend import CheckResult, compile_source, format_report

EXIT_RUNTIME = 1
EXIT_USAGE = 2


def read_source(path: str) -> str:
    """Read a program file, or exit 2 with `chespel: error: cannot read FILE: REASON`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return data.decode("utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text (byte {exc.start + 1})"
    click.echo(f"chespel: error: cannot read {path}: {reason}", err=True)
    sys.exit(EXIT_USAGE)


def load_program(path: str) -> CheckResult:
    """Read and check `path`; print its diagnostics; exit 2 if it has errors."""
    result = compile_source(path, read_source(path))
    report = format_report(result)
    if report:
        click.echo(report, err=True)
    if not result.ok:
        sys.exit(EXIT_USAGE)
    return result


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="esochess-chespel", prog_name="chespel")
def main() -> None:
    """Chespel: chess evaluation rules compiled into a chess engine."""


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
def check(file: str) -> None:
    """Check FILE.chp and print only its diagnostics (exit 0 when it has no error)."""
    load_program(file)
