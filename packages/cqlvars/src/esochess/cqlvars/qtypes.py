"""The static types of CQL filters (docs/reference/cql.md#types), shared by every stage."""

from __future__ import annotations

LOGICAL = "logical"
NUMERIC = "numeric"
SET = "set"
POSITION = "position"
STRING = "string"
PIECE = "piece"  # a piece variable: a set everywhere except comment/str/message arguments
DICT = "dictionary"  # a dictionary variable: string or number keys to values

#: How messages name a value of each type.
TYPE_NOUN = {
    NUMERIC: "a number",
    SET: "a set",
    POSITION: "a position",
    STRING: "a string",
    LOGICAL: "a logical filter",
    PIECE: "a piece",
    DICT: "a dictionary",
}
