"""What users read stands on its own: no citation of documents outside the repository,
and every relative link in README.md and docs/ leads to a file (and heading) that exists.

The specifications the project is built from are not shipped, so README, the guides, the
reference, the examples and every command's `--help` must not cite `specs/`, `../shared`
or a `§` section number; they point into docs/reference/ instead.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from esochess.chespel.library import LIBRARY

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("specs/", "../shared", "§")
#: "spec 10.4", "the spec's Appendix C": a section of the unshipped documents without the §.
SPEC_SECTION = re.compile(r"\bspec(?:s|'s)?\s+(?:\d|Appendix|check)", re.IGNORECASE)

#: The click objects of the five commands; `chazz from-bf` is dispatched by hand, so it
#: is listed on its own.
COMMANDS = {
    "esochess": ("esochess.fen.cli", "main"),
    "chazz": ("esochess.chazz.cli", "main"),
    "chazz from-bf": ("esochess.chazz.cli", "from_bf"),
    "chespel": ("esochess.chespel.cli", "main"),
    "gambit": ("esochess.gambit.cli", "main"),
    "cql": ("esochess.cqlvars.cli", "main"),
}

#: Shipped example files that are text a user reads (the PGN game files are data).
EXAMPLE_SUFFIXES = {".md", ".sh", ".chp", ".gmb", ".cql", ".fen", ".b"}


def user_text_files() -> list[Path]:
    """README.md, every Markdown file under docs/, and the text files under examples/."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted(
        path
        for path in (ROOT / "examples").rglob("*")
        if path.is_file() and path.suffix in EXAMPLE_SUFFIXES
    )
    return files


def help_texts() -> Iterator[tuple[str, str]]:
    """(command line, help text) for every command and subcommand of the five tools."""
    for name, (module, attr) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attr)
        yield from _walk(command, name)


def _walk(command: click.Command, path: str) -> Iterator[tuple[str, str]]:
    ctx = click.Context(command, info_name=path)
    yield path, command.get_help(ctx)
    if isinstance(command, click.Group):
        for sub in command.list_commands(ctx):
            subcommand = command.get_command(ctx, sub)
            assert subcommand is not None
            yield from _walk(subcommand, f"{path} {sub}")


def citations(text: str) -> list[str]:
    """The lines of `text` that cite a document outside the repository."""
    return [
        line.strip()
        for line in text.splitlines()
        if any(f in line for f in FORBIDDEN) or SPEC_SECTION.search(line)
    ]


@pytest.mark.parametrize("path", user_text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_text_cites_nothing_outside_the_repository(path: Path) -> None:
    """No README, guide, reference or example line cites specs/, ../shared or a §."""
    assert citations(path.read_text(encoding="utf-8", errors="replace")) == []


def test_every_help_text_cites_nothing_outside_the_repository() -> None:
    """`--help` of every command and subcommand of the five tools is citation-free."""
    texts = dict(help_texts())
    assert {"esochess", "chazz", "chazz from-bf", "chespel", "gambit", "cql"} <= texts.keys()
    assert any(name.startswith("chespel ") for name in texts)
    assert any(name.startswith("gambit ") for name in texts)
    bad = {name: citations(text) for name, text in texts.items() if citations(text)}
    assert bad == {}


# --- links -----------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, - for spaces."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file defines: heading slugs (numbered when repeated) and ids."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set(ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> Iterator[str]:
    """The targets of the Markdown links of `path` that stay inside the repository."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):
            yield target


MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    """Every relative link of README and docs/ names an existing file and heading."""
    broken = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        if not destination.exists():
            broken.append(target)
        elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
            broken.append(target)
    assert broken == []


def test_slug_follows_github() -> None:
    """Headings with code, punctuation and capitals get GitHub's anchors."""
    assert slug("`P` and `p`: add and subtract a power of two") == (
        "p-and-p-add-and-subtract-a-power-of-two"
    )
    assert slug("Turns, `illegal` and `commit`") == "turns-illegal-and-commit"
    assert slug("String forms and `++`") == "string-forms-and-"


# --- the references cover their language -----------------------------------------------

REFERENCES = ("chazz", "chespel", "gambit", "cql")


def test_every_language_has_its_reference_linked_from_readme_and_guide() -> None:
    """docs/reference/LANG.md exists and README and the guide docs/LANG.md link to it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for lang in REFERENCES:
        assert (ROOT / "docs" / "reference" / f"{lang}.md").is_file()
        assert f"docs/reference/{lang}.md" in readme
        guide = (ROOT / "docs" / f"{lang}.md").read_text(encoding="utf-8")
        assert f"reference/{lang}.md" in guide


def test_chespel_reference_lists_every_built_in() -> None:
    """Each name and alias of the Chespel library appears in the reference as code."""
    text = (ROOT / "docs" / "reference" / "chespel.md").read_text(encoding="utf-8")
    code = " ".join(re.findall(r"`([^`]*)`", text))
    missing = sorted(
        name for entry in LIBRARY for name in entry.names if not re.search(rf"\b{name}\b", code)
    )
    assert missing == []


# --- the references' examples run ------------------------------------------------------

REFERENCE = ROOT / "docs" / "reference"


def test_gambit_reference_programs_run_and_print_what_the_text_says(tmp_path: Path) -> None:
    """Every `gambit` block of the reference runs; a single `prints `X`.` line is its output."""
    from esochess.gambit.cli import main as gambit

    text = (REFERENCE / "gambit.md").read_text(encoding="utf-8")
    blocks = list(re.finditer(r"```gambit\n(.*?)```", text, re.S))
    assert len(blocks) >= 10
    for index, block in enumerate(blocks):
        path = tmp_path / f"example{index}.gmb"
        path.write_text(block.group(1), encoding="utf-8")
        args = ["run", str(path), "--players", "random", "--seed", "1"]
        result = CliRunner().invoke(gambit, args)
        assert result.exit_code == 0, (block.group(1), result.output)
        said = re.match(r"\s*prints `([^`]*)`[.:]", text[block.end() :])
        if said:
            assert result.stdout.splitlines()[0] == said.group(1), block.group(1)


CHESPEL_ROW = re.compile(
    r"^\| `[^`]+` \| [^|]+ \| .+ \| `(?P<expr>[^`]+)` is `(?P<value>[^`]*)` \|$"
)


def test_chespel_reference_built_in_examples_evaluate_as_written(tmp_path: Path) -> None:
    """Each built-in's example, evaluated on the start position, gives the value shown."""
    from esochess.chespel.cli import main as chespel

    text = (REFERENCE / "chespel.md").read_text(encoding="utf-8")
    rows = [m.groupdict() for line in text.splitlines() if (m := CHESPEL_ROW.match(line))]
    assert len(rows) >= len({entry.key for entry in LIBRARY}) - 5
    program = "module evaluation\n\n" + "".join(
        f'rule x{i}:\n\tscore 0, "" ++ ({row["expr"]});\n' for i, row in enumerate(rows)
    )
    path = tmp_path / "library.chp"
    path.write_text(program, encoding="utf-8")
    result = CliRunner().invoke(chespel, ["eval", str(path), "-v", "startpos"])
    assert result.exit_code == 0, result.output
    shown = dict(
        (int(m.group(1)), m.group(2))
        for line in result.stdout.splitlines()
        if (m := re.fullmatch(r"x(\d+): 0 ?(.*)", line))
    )
    expected = {i: ("" if row["value"] == '""' else row["value"]) for i, row in enumerate(rows)}
    assert shown == expected


CQL_GAMES = (
    '[Event "Fixture"]\n[White "W"]\n[Black "Carlsen, Magnus"]\n[BlackElo "2850"]\n'
    '[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O *\n"
)


def test_cql_reference_queries_compile_and_errors_fail_as_documented(tmp_path: Path) -> None:
    """Every `cql(...)` query of the reference runs (exit 0), except the documented errors."""
    from esochess.cqlvars.cli import main as cql

    text = (REFERENCE / "cql.md").read_text(encoding="utf-8")
    errors_at = text.index("## Diagnostics")
    games = tmp_path / "games.pgn"
    games.write_text(CQL_GAMES, encoding="utf-8")
    queries = [
        (m.group(1), m.start())
        for m in re.finditer(r"`(cql\([^`]*)`", text)
        if "PARAMETERS" not in m.group(1)
    ]
    assert len(queries) >= 50
    for index, (query, at) in enumerate(queries):
        source = tmp_path / f"q{index}.cql"
        source.write_text(query + "\n", encoding="utf-8")
        args = ["-o", str(tmp_path / "out.pgn"), str(source), str(games)]
        result = CliRunner().invoke(cql, args)
        if at < errors_at:
            want = 0
        else:
            paragraph = text[text.rindex("\n\n", 0, at) : text.index("\n\n", at)]
            want = 1 if "runtime error" in paragraph else 2
        assert result.exit_code == want, (query, result.output)


def test_chazz_reference_boards_print_what_the_text_says(tmp_path: Path) -> None:
    """Each one-line board of the CHAZZ reference followed by "prints `X`" prints X."""
    from esochess.chazz.cli import main as chazz

    text = (REFERENCE / "chazz.md").read_text(encoding="utf-8")
    cases = re.findall(r"```\n([^\n`]+)\n```\n\nprints `([^`]+)`", text)
    assert len(cases) >= 5
    for index, (board, said) in enumerate(cases):
        path = tmp_path / f"board{index}.fen"
        path.write_text(board + "\n", encoding="ascii")
        result = CliRunner().invoke(chazz, [str(path)], input=b"")
        assert result.exit_code == 0, (board, result.output)
        assert result.stdout_bytes == said.encode() + b"\n", board
