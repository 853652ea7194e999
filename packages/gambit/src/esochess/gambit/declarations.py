"""Declarations of the Gambit AST: players, entities, enums, structs, properties,
functions and procedures, notations, and the whole `Program` (expressions, patterns,
statements and types are in ast.py)."""

from __future__ import annotations

from dataclasses import dataclass

from esochess.gambit import ast as A


@dataclass(frozen=True, eq=False)
class PlayersDecl:
    """`players N` or `players .B`."""

    pos: A.Pos
    low: int
    high: int


@dataclass(frozen=True, eq=False)
class EntityDecl:
    """`entity Name`."""

    pos: A.Pos
    name: str


@dataclass(frozen=True, eq=False)
class EnumDecl:
    """`enum Name { A, B }`."""

    pos: A.Pos
    name: str
    members: tuple[tuple[str, A.Pos], ...]


@dataclass(frozen=True, eq=False)
class StructMember:
    """`Type name [= default]` in a struct."""

    pos: A.Pos
    type: A.TypeExpr
    name: str
    default: A.Expr | None


@dataclass(frozen=True, eq=False)
class StructDecl:
    """`struct Name { members }`."""

    pos: A.Pos
    name: str
    members: tuple[StructMember, ...]


@dataclass(frozen=True, eq=False)
class PropItem:
    """One identifier inside a property's brackets."""

    pos: A.Pos
    name: str
    is_entity: bool


@dataclass(frozen=True, eq=False)
class PropertyDecl:
    """`fixed|state|trait Type [items] [= expr | block]`."""

    pos: A.Pos
    kind: str
    type: A.TypeExpr
    items: tuple[PropItem, ...]
    default: A.Expr | None
    body: A.Block | None


@dataclass(frozen=True, eq=False)
class Param:
    """A parameter: a type or selector, optionally named."""

    pos: A.Pos
    type: A.TypeExpr
    name: str | None


@dataclass(frozen=True, eq=False)
class FuncDecl:
    """A function (`fn`, `pure` True) or procedure; `body` is a Block or an arrow Expr."""

    pos: A.Pos
    name: str
    pure: bool
    params: tuple[Param, ...]
    ret: A.TypeExpr | None
    body: A.Block | A.Expr
    # The span of `name(params)`, so messages can quote the signature as written.
    name_pos: A.Pos = (0, 0)
    params_end: A.Pos = (0, 0)


@dataclass(frozen=True, eq=False)
class NotationDecl:
    """`notation Type REGEX => names { body }`."""

    pos: A.Pos
    type_name: str
    type_pos: A.Pos
    regex: str
    regex_pos: A.Pos
    names: tuple[tuple[str | None, A.Pos], ...]
    body: A.Block


Decl = PlayersDecl | EntityDecl | EnumDecl | StructDecl | PropertyDecl | FuncDecl | NotationDecl


@dataclass(frozen=True, eq=False)
class Program:
    """A whole source file."""

    path: str
    source: str
    decls: tuple[Decl, ...]
