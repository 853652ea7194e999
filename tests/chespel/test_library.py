"""The library table (§4) and the aggregation rules (§3.5) it feeds."""

from __future__ import annotations

import pytest

from esochess.chespel.classes import Base
from esochess.chespel.library import (
    BY_KEY,
    LIBRARY,
    Ambiguous,
    Resolved,
    ambiguity_text,
    own,
    resolve_method,
)

COMPONENT_CLASSES = ("Row", "Col", "Player", "Type", "Cell", "Piece")


def test_no_signature_is_defined_twice() -> None:
    seen = set()
    for entry in LIBRARY:
        for name in entry.names:
            key = (entry.receiver, name, entry.arity)
            assert key not in seen, key
            seen.add(key)


def test_keys_are_unique_and_indexed() -> None:
    assert len(BY_KEY) == len(LIBRARY)
    assert BY_KEY["Piece.coveredBy"].returns == "[Piece]"
    assert BY_KEY["Row.rank/1"].params == ("Player",)
    assert BY_KEY["Type.pieces/1"].params == ("Player",)


def test_core_set_has_the_26_entries_of_4_13() -> None:
    core = {(e.receiver, e.name) for e in LIBRARY if e.core}
    assert core == {
        (None, "abs"),
        (None, "in"),
        ("Row", "rank"),
        ("Cell", "row"),
        ("Cell", "col"),
        ("Cell", "pos"),
        ("Cell", "pieces"),
        ("Type", "value"),
        ("Type", "pieces"),
        ("Player", "pieces"),
        ("Player", "check"),
        ("Player", "castled"),
        ("Player", "castledSide"),
        ("Player", "totalValue"),
        ("Piece", "player"),
        ("Piece", "type"),
        ("Piece", "cell"),
        ("Piece", "startingRow"),
        ("Piece", "visibleCells"),
        ("Piece", "threatens"),
        ("Piece", "threatenedBy"),
        ("Piece", "covers"),
        ("Piece", "coveredBy"),
        ("List", "length"),
        ("List", "empty"),
        ("List", "sum"),
    }
    assert sum(e.core for e in LIBRARY) == 26


@pytest.mark.parametrize(
    ("receiver", "alias", "name"),
    [
        ("Player", "underCheck", "check"),
        ("Piece", "attackedBy", "threatenedBy"),
        ("Piece", "threatenedPieces", "threatens"),
        ("Piece", "coveredPieces", "covers"),
        ("Piece", "hanging", "hanged"),
        ("Piece", "mobility", "numberOfMoves"),
        ("Player", "connectedRooks", "connectedRocks"),
        ("Player", "homeRow", "homeRank"),
    ],
)
def test_aliases_are_the_same_entry(receiver: str, alias: str, name: str) -> None:
    assert own(receiver, alias) == own(receiver, name)
    assert len(own(receiver, alias)) == 1


def _inherited(cls: Base) -> dict[str, set[str]]:
    names = {n for e in LIBRARY if e.receiver in COMPONENT_CLASSES for n in e.names}
    found: dict[str, set[str]] = {}
    for name in names:
        result = resolve_method(cls, name)
        if isinstance(result, Resolved) and result.path:
            found.setdefault(result.via, set()).add(name)
    return found


def _ambiguous(cls: Base) -> set[str]:
    names = {n for e in LIBRARY if e.receiver in COMPONENT_CLASSES for n in e.names}
    return {n for n in names if isinstance(resolve_method(cls, n), Ambiguous)}


def test_cell_table_of_3_5() -> None:
    assert _ambiguous(Base.CELL) == {"cells", "number"}
    inherited = _inherited(Base.CELL)
    assert inherited["Row"] == {"rank"}
    assert inherited["Col"] == {
        "pawns",
        "open",
        "halfOpen",
        "halfOpenFor",
        "closed",
        "isQueenSide",
        "isKingSide",
        "isCenter",
        "startingType",
    }
    own_pieces = resolve_method(Base.CELL, "pieces")
    assert isinstance(own_pieces, Resolved) and own_pieces.path == ()


def test_piece_table_of_3_5() -> None:
    assert _ambiguous(Base.PIECE) == {"pieces", "cells", "number"}
    for hidden in ("color", "rank", "guarded", "threatened", "attackedBy", "makesCheck"):
        result = resolve_method(Base.PIECE, hidden)
        assert isinstance(result, Resolved) and result.via == "Piece", hidden
    mobility = resolve_method(Base.PIECE, "mobility")
    assert isinstance(mobility, Resolved) and mobility.entries[0].name == "numberOfMoves"
    for name, via in [
        ("value", "Type"),
        ("other", "Player"),
        ("check", "Player"),
        ("castled", "Player"),
        ("king", "Player"),
        ("row", "Cell"),
        ("col", "Cell"),
        ("pos", "Cell"),
        ("inCenter", "Cell"),
        ("distance", "Cell"),
        ("open", "Col"),
        ("alive", "Type"),
    ]:
        result = resolve_method(Base.PIECE, name)
        assert isinstance(result, Resolved) and result.via == via, name


def test_paths_follow_the_components() -> None:
    result = resolve_method(Base.PIECE, "open")
    assert isinstance(result, Resolved)
    assert [e.key for e in result.path] == ["Piece.cell", "Cell.col"]
    assert result.entries[0].key == "Col.open"
    assert resolve_method(Base.PLAYER, "value") is None


def test_ambiguity_messages() -> None:
    cells = resolve_method(Base.CELL, "cells")
    assert isinstance(cells, Ambiguous)
    assert ambiguity_text(cells.providers) == "Row and from Col"
    pieces = resolve_method(Base.PIECE, "pieces")
    assert isinstance(pieces, Ambiguous)
    assert ambiguity_text(pieces.providers) == "Player, from Type and from Cell"


def test_every_list_method_declares_its_empty_list_rule() -> None:
    allowed = {e.name for e in LIBRARY if e.receiver == "List" and e.on_empty}
    assert allowed == {"length", "empty", "tail", "nub", "sort", "reverseSort"}


def test_the_guide_lists_the_library_as_the_table_has_it() -> None:
    from pathlib import Path

    from esochess.chespel.library import reference_markdown

    guide = Path("docs/chespel.md").read_text(encoding="utf-8")
    block = guide.split("<!-- library:begin", 1)[1].split("-->", 1)[1]
    block = block.split("<!-- library:end -->", 1)[0]
    assert block.strip() == reference_markdown()
