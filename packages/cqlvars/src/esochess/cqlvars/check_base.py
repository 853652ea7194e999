"""The checker's shared state and helpers (docs/reference/cql.md#types): the checked
query it produces, name rules, scopes, type demands and the visit dispatcher. The
visitors live in checker.py, check_assign.py and check_calls.py."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from esochess.cqlvars import ast
from esochess.cqlvars.designators import match_designator
from esochess.cqlvars.lexer import KEYWORDS
from esochess.cqlvars.parser import query_error
from esochess.cqlvars.qtypes import NUMERIC, PIECE, POSITION, SET, STRING, TYPE_NOUN
from esochess.fen import SourceError

KIND_WORD = {NUMERIC: "numeric", SET: "a set variable", PIECE: "a piece variable"}
ASSIGNMENT_VALUE = re.compile(r"-?[0-9]+")
#: Filters that function calls may add by expansion: calls inside functions multiply, so
#: twenty lines that each call the previous function twice would expand a million-fold.
MAX_EXPANSION = 100_000


@dataclass


class CheckedQuery:
    """The checked, function-expanded body plus everything later stages need."""

    header: ast.Header
    body: tuple[ast.Node, ...]
    types: dict[int, str]
    kinds: dict[str, str]
    persistent: dict[str, bool]  # name -> quiet, in order of first declaration
    persistent_kinds: dict[str, str]
    assigned: dict[str, int | str]  # --assign values, converted
    warnings: list[SourceError] = field(default_factory=list)
    reducible_error: str | None = None
    sorts: list[ast.Sort] = field(default_factory=list)
    #: `atomic` variables (docs/reference/cql.md#path).
    atomic: frozenset[str] = frozenset()

    def type_of(self, node: ast.Node) -> str:
        """The static type of a checked node."""
        return self.types[id(node)]


def convert_assignment(value: str) -> int | str:
    """`-a NAME=VALUE`: numeric when VALUE looks like an integer, else a string
    (docs/reference/cql.md#command-line)."""
    if ASSIGNMENT_VALUE.fullmatch(value):
        return int(value)
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a variable name (docs/reference/cql.md#names), or None when it is
    legal."""
    if name in KEYWORDS:
        return f"'{name}' is a keyword and cannot be a variable name"
    if len(name) == 1 and name in "abcdefgh":
        return f"'{name}' is a piece designator and cannot be a variable name"
    try:
        whole = match_designator(name, 0)
    except ValueError:
        whole = None
    if whole is not None and whole[1] == len(name):
        return f"'{name}' is a piece designator and cannot be a variable name"
    if name.startswith("__CQL") or name.startswith("cql__"):
        return "names beginning with 'cql__' or '__CQL' are reserved"
    return None


class CheckerBase:
    """State and helpers shared by every part of the checker; `visit` dispatches to the
    `visit_<Node>` method of the node's class."""

    def __init__(self, path: str, source: str, query: ast.Query, assigned: Mapping[str, str]):
        self.path = path
        self.source = source
        self.query = query
        self.types: dict[int, str] = {}
        self.kinds: dict[str, str] = {}
        self.persistent: dict[str, bool] = {}
        #: Dictionaries by how they were declared: `local` (emptied for each game), and
        #: run-long ones that some declaration calls `persistent` / `persistent quiet`.
        self.local_dicts: set[str] = set()
        self.said_persistent: set[str] = set()
        self.said_quiet: set[str] = set()
        self.atomic: set[str] = set()
        self.scoped: list[dict[str, str]] = []
        self.retired: set[str] = set()
        self.functions: dict[str, ast.FunctionDef] = {}
        self.expanding: list[str] = []
        self.expanded = 0  # filters added by function calls so far (MAX_EXPANSION)
        self.hidden = 0
        self.warnings: list[SourceError] = []
        self.sorts: list[ast.Sort] = []
        #: The type of the values of each dictionary, fixed by its first assignment.
        self.dict_values: dict[str, str] = {}
        self.no_sort: list[str] = []
        self.assigned = {name: convert_assignment(v) for name, v in assigned.items()}
        self.assign_kinds: dict[str, str] = {}
        self.ever_assigned = self._assigned_names(query.body)
        # Persistent usage facts for the reducible-sum rule (docs/cql.md#running-on-a-dask-cluster).
        self.persistent_reads: set[str] = set()
        self.persistent_bad_ops: dict[str, str] = {}
        for name, value in self.assigned.items():
            kind = NUMERIC if isinstance(value, int) else STRING
            self.kinds[name] = kind
            self.assign_kinds[name] = kind

    # helpers -----------------------------------------------------------------------
    def error(self, span: ast.Span, message: str) -> SourceError:
        return query_error(self.path, self.source, span, message)

    def typed(self, node: ast.Node, type_: str) -> tuple[ast.Node, str]:
        self.types[id(node)] = type_
        return node, type_

    def _assigned_names(self, nodes: tuple[ast.Node, ...]) -> set[str]:
        return {
            n.target.name
            for n in ast.walk(nodes)
            if isinstance(n, ast.Assign) and isinstance(n.target, ast.Var)
        }

    def lookup(self, name: str) -> str | None:
        for scope in reversed(self.scoped):
            if name in scope:
                return scope[name]
        return self.kinds.get(name)

    def check_name(self, name: str, span: ast.Span) -> None:
        problem = name_problem(name)
        if problem is None and name in self.functions:
            problem = f"'{name}' is already a function"
        if problem:
            raise self.error(span, problem)

    def set_like(self, type_: str) -> bool:
        return type_ in (SET, PIECE)

    def need(self, node: ast.Node, type_: str, wanted: tuple[str, ...], what: str) -> None:
        if type_ == PIECE and SET in wanted:
            return
        if type_ not in wanted:
            if isinstance(node, ast.Var) and type_ == POSITION and SET in wanted:
                raise self.error(node.span, f"{what} requires sets; '{node.name}' is a position")
            names = " or ".join(TYPE_NOUN[w].split(" ", 1)[1] for w in wanted)
            raise self.error(node.span, f"{what} requires {names}, not {TYPE_NOUN[type_]}")

    def test(self, node: ast.Node) -> ast.Node:
        """Check a node in a test context (docs/reference/cql.md#types)."""
        if isinstance(node, ast.IntLit):
            raise self.error(
                node.span, f"numeric literal '{node.value}' is only tested for whether it matches"
            )
        if isinstance(node, ast.Var) and self.lookup(node.name) == NUMERIC:
            raise self.error(
                node.span, f"numeric variable '{node.name}' is only tested for whether it matches"
            )
        if isinstance(node, ast.Compound) and node.elements:
            elements = [self.test(e) for e in node.elements]
            new = ast.Compound(node.span, tuple(elements))
            return self.typed(new, self.types[id(elements[-1])])[0]
        return self.visit(node)[0]

    def sequence(self, elements: tuple[ast.Node, ...]) -> tuple[ast.Node, ...]:
        out: list[ast.Node] = []
        for element in elements:
            if isinstance(element, ast.FunctionDef):
                raise self.error(element.span, "a function may only be defined at top level")
            out.append(self.test(element))
        return tuple(out)

    # dispatcher --------------------------------------------------------------------
    def visit(self, node: ast.Node) -> tuple[ast.Node, str]:
        method = getattr(self, "visit_" + type(node).__name__)
        result: tuple[ast.Node, str] = method(node)
        return result
