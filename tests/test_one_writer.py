"""Every file a tool writes goes through `esochess.fen.files` (open_output / write_atomic):
no other module opens a file for writing, renames one into place or makes temporaries."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = REPO / "packages"
THE_WRITER = Path("common-fen/src/esochess/fen/files.py")

# What writes a file, in any of the usual spellings.
WRITES = re.compile(
    r"""open\([^)]*['"][wax]b?\+?t?['"]"""  # open(path, "w"), "wb", "a", "x"…
    r"""|mode\s*=\s*['"][wax]"""  # open(path, mode="w")
    r"""|\.write_(text|bytes)\("""  # Path.write_text / write_bytes
    r"""|os\.(replace|rename|link|symlink)\(|shutil\.(move|copy\w*)\("""
    r"""|mkstemp|mkdtemp|NamedTemporaryFile|TemporaryFile\("""
    r"""|os\.open\([^)]*O_(WRONLY|RDWR|CREAT)"""
)

# Call sites still moving onto the shared writer, each naming its package: none are left
# (cql's own atomic_output was the last). Nothing may be added here.
IN_FLIGHT: dict[str, str] = {}


def offending_lines() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGES.rglob("*.py")):
        relative = path.relative_to(PACKAGES)
        if relative == THE_WRITER:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if WRITES.search(code) and "os.devnull" not in code:  # /dev/null is no file
                found.setdefault(relative.as_posix(), []).append(f"{number}: {line.strip()}")
    return found


def test_no_writer_but_the_shared_one() -> None:
    unexpected = {k: v for k, v in offending_lines().items() if k not in IN_FLIGHT}
    assert unexpected == {}, "write files through esochess.fen.files.open_output"


def test_the_pattern_finds_what_it_must() -> None:
    for line in [
        'with open(path, "w", encoding="utf-8") as f:',
        "Path(p).write_bytes(data)",
        "os.replace(tmp, path)",
        'open(tmp, mode="wb")',
        "fd = os.open(p, os.O_WRONLY | os.O_CREAT)",
        "tempfile.mkstemp(dir=d)",
    ]:
        assert WRITES.search(line), line
    for line in ['open(path, "rb")', "handle.write(data)", 'open(path, encoding="utf-8")']:
        assert not WRITES.search(line), line
