"""The build artefact of docs/reference/chespel.md#command-line: one executable zip application (PEP
441) with a shebang.

It holds `__main__.py`, the Chespel run-time package, the generated program module and a
copy of python-chess with its licence, so that `python3 -S -E ./NAME` runs it with the
standard library alone.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

from esochess.chespel.runtime.polyglot import BookError, PolyglotBook
from esochess.fen.files import OutputError, write_atomic

SHEBANG = b"#!/usr/bin/env python3\n"
PROGRAM_MODULE = "chespel_program"
BOOK_NAME = "chespel_book.bin"

# Written without newer syntax so that an old interpreter reaches the version check.
MAIN = '''\
import sys
if sys.version_info < (3, 11):
    sys.stderr.write("error: this engine needs Python 3.11 or newer\\n")
    sys.exit(1)
try:
    from esochess.chespel.runtime.evaluation import Program
    from esochess.chespel.runtime.main import main
    import chespel_program
    import pkgutil
    try:
        book = pkgutil.get_data("chespel_program", "chespel_book.bin")
    except OSError:
        book = None
    status = main(Program.from_module(chespel_program), sys.argv[1:], book)
except KeyboardInterrupt:
    status = 130
sys.exit(status)
'''

# The archive's own package markers: the installed esochess.chespel/__init__.py may import
# front-end modules (lark), which the artefact must not need.
PACKAGE_INIT = '"""Chespel run-time, as embedded in a built engine."""\n'


class BuildError(Exception):
    """The artefact could not be written (the message says why)."""


def _runtime_dir() -> Path:
    return Path(__file__).resolve().parent / "runtime"


def _chess_files() -> tuple[list[Path], tuple[str, str]]:
    """python-chess's package files and its licence (name, text)."""
    spec = importlib.util.find_spec("chess")
    if spec is None or spec.origin is None:
        raise BuildError("python-chess is not installed")
    package = Path(spec.origin).resolve().parent
    files = sorted(p for p in package.iterdir() if p.suffix == ".py" or p.name == "py.typed")
    licence: tuple[str, str] | None = None
    distribution = importlib.metadata.distribution("chess")
    for entry in distribution.files or ():
        name = entry.name.upper()
        if name.startswith(("LICENSE", "LICENCE", "COPYING")):
            licence = (entry.name, entry.read_text() or "")
            break
    if licence is None:
        raise BuildError("the licence file of python-chess was not found")
    return files, licence


def read_book(path: str) -> bytes:
    """A Polyglot book's bytes, checked (raises BuildError)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise BuildError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        PolyglotBook.from_bytes(data, path)
    except BookError as exc:
        raise BuildError(str(exc)) from None
    return data


def archive_bytes(program_source: str, book: bytes | None = None) -> bytes:
    """The zip archive (without the shebang) for a generated program module and, when
    given, the Polyglot book the engine plays from."""
    buffer = io.BytesIO()
    chess_files, (licence_name, licence_text) = _chess_files()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("__main__.py", MAIN)
        archive.writestr(f"{PROGRAM_MODULE}.py", program_source)
        if book is not None:
            archive.writestr(BOOK_NAME, book)
        archive.writestr("esochess/__init__.py", PACKAGE_INIT)
        archive.writestr("esochess/chespel/__init__.py", PACKAGE_INIT)
        for path in sorted(_runtime_dir().glob("*.py")):
            archive.write(path, f"esochess/chespel/runtime/{path.name}")
        for path in chess_files:
            archive.write(path, f"chess/{path.name}")
        archive.writestr(f"chess/{licence_name}", licence_text)
        archive.writestr(
            "LICENSES.txt",
            "This engine embeds python-chess (https://github.com/niklasf/python-chess),\n"
            "licensed under the GNU General Public License version 3 or later; its licence\n"
            f"is chess/{licence_name}.\n",
        )
    return buffer.getvalue()


def write_executable(program_source: str, target: str, *, inputs: Sequence[str] = (),
                     book: bytes | None = None) -> None:
    """Write the executable file `target` (replacing it; executable as the umask allows)
    through the shared writer, which never replaces one of `inputs`; `book` is a Polyglot
    book to carry inside it."""
    data = SHEBANG + archive_bytes(program_source, book)
    try:
        write_atomic(target, data, executable=True, inputs=inputs)
    except OutputError as exc:
        raise BuildError(str(exc)) from None


def default_output(source: str) -> str:
    """`engine.chp` → `./engine`; `.engine` appended when that would be the source itself."""
    path = Path(source)
    name = path.name[:-4] if path.name.endswith(".chp") else path.name
    if Path(name).resolve() == path.resolve():
        name += ".engine"
    return name
