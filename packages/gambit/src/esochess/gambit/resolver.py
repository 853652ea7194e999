"""Declaration collection (docs/reference/gambit.md#declarations): the program's symbol tables,
before bodies are checked.

`collect(program)` builds a `Symbols` holding every entity, enum, struct, property
(with the bracket-item rule of docs/reference/gambit.md#properties), overload set and notation, and
reports the declaration-level errors: duplicates, name collisions, unreadable bracket items, the
players count and `main`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from esochess.fen import Note, SourceError
from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.spans import span_text
from esochess.gambit.values import EnumVal


@dataclass
class PropInfo:
    """A property declaration: kind, value type, entity parameters and binders."""

    pid: int
    name: str
    kind: str
    type: T.Type
    params: tuple[str, ...]
    binders: tuple[str | None, ...]
    decl: D.PropertyDecl


@dataclass
class FuncInfo:
    """One overload: its declaration, parameter types and declared return type."""

    name: str
    decl: D.FuncDecl
    pure: bool
    params: list[T.Type]
    param_names: list[str | None]
    declared_ret: T.Type | None
    index: int
    ret: T.Type | None = None


@dataclass
class EnumInfo:
    """An enum: its members in order, as run-time values."""

    name: str
    decl: D.EnumDecl
    values: dict[str, EnumVal] = field(default_factory=dict)


@dataclass
class StructInfo:
    """A struct: members (name, type, default) in declaration order."""

    name: str
    decl: D.StructDecl
    members: list[tuple[str, T.Type, A.Expr | None, A.Pos]] = field(default_factory=list)


@dataclass
class NotationInfo:
    """A notation: its target type, translated regex and parameter names."""

    type: T.Type
    type_name: str
    regex: str
    names: list[str | None]
    decl: D.NotationDecl
    groups: int = 0


@dataclass
class Symbols:
    """Everything declared at top level."""

    path: str
    source: str
    players: tuple[int, int] = (2, 2)
    entities: list[str] = field(default_factory=lambda: ["Player"])
    enums: dict[str, EnumInfo] = field(default_factory=dict)
    structs: dict[str, StructInfo] = field(default_factory=dict)
    props: list[PropInfo] = field(default_factory=list)
    funcs: dict[str, list[FuncInfo]] = field(default_factory=dict)
    notations: list[NotationInfo] = field(default_factory=list)
    members: dict[str, list[EnumInfo]] = field(default_factory=dict)
    errors: list[SourceError] = field(default_factory=list)
    has_illegal: bool = False

    def err(self, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        """Record a compile error."""
        self.errors.append(SourceError(self.path, pos[0], pos[1], message, notes=notes))

    def note(self, pos: A.Pos, message: str) -> Note:
        """A note pointing at a related declaration."""
        return Note(self.path, pos[0], pos[1], message)

    def is_type(self, name: str) -> bool:
        """True when `name` names a type."""
        return (
            name in T.ALIASES or name in self.enums or name in self.structs
            or name in self.entities
        )  # fmt: skip

    def props_named(self, name: str) -> list[PropInfo]:
        """Every property declaration with this name."""
        return [p for p in self.props if p.name == name]

    def prop(self, name: str, params: tuple[str, ...]) -> PropInfo | None:
        """The property with this name and entity tuple."""
        for p in self.props:
            if p.name == name and p.params == params:
                return p
        return None

    def nullary(self, name: str) -> PropInfo | None:
        """The nullary property with this name."""
        return self.prop(name, ())


PLAYER_NUMBER = "number"


def resolve_type(sym: Symbols, t: A.TypeExpr, *, allow_selector: bool = False) -> T.Type:
    """Turn a type expression into a Type, reporting unknown or invalid types."""
    if isinstance(t, A.TName):
        if t.name in T.ALIASES:
            return T.ALIASES[t.name]
        if t.name in sym.entities:
            return T.EntityT(t.name)
        if t.name in sym.enums:
            return T.EnumT(t.name)
        if t.name in sym.structs:
            return T.StructT(t.name)
        sym.err(t.pos, f"'{t.name}' is not a type")
        return T.ERR
    if isinstance(t, A.TNone):
        return T.NONE
    if isinstance(t, A.TAny):
        return T.ANY
    if isinstance(t, A.TList):
        return T.ListT(resolve_type(sym, t.elem))
    if isinstance(t, A.TUnion):
        return T.union([resolve_type(sym, m, allow_selector=allow_selector) for m in t.members])
    if isinstance(t, A.TSel):
        if not allow_selector:
            sym.err(t.pos, "selector types are only allowed for parameters and patterns")
            return T.ERR
        return T.SelT(t.selector.entity, id(t.selector), selector_text(sym, t.selector))
    inner = resolve_type(sym, t.inner, allow_selector=allow_selector)
    if isinstance(inner, T.ErrT):
        return inner
    text = T.show(inner)
    if t.op == "?":
        if T.contains_none(inner):
            sym.err(t.pos, f"'{text}?' is not a valid type: it already contains none")
            return T.ERR
        return T.optional(inner)
    if isinstance(inner, T.MultiT) or T.contains_none(inner):
        sym.err(t.pos, f"'{text}!' is not a valid type")
        return T.ERR
    if T.enums_of(inner) is None:
        sym.err(t.pos, f"'{text}!' is not a valid type: '!' needs an enum type")
        return T.ERR
    return T.MultiT(inner)


def selector_text(sym: Symbols, sel: A.Selector) -> str:
    """A selector as written, for messages and type names."""
    text = span_text(sym.source, sel.pos, sel.end)
    return text if text is not None else sel.entity + "<…>"


def collect(program: D.Program) -> Symbols:
    """Build the symbol tables of a program and report declaration errors."""
    sym = Symbols(program.path, program.source)
    type_pos: dict[str, A.Pos] = {}
    players_seen: D.PlayersDecl | None = None
    for d in program.decls:
        if isinstance(d, D.EntityDecl):
            if d.name == "Player":
                continue
            if d.name in type_pos:
                sym.err(d.pos, f"duplicate declaration of '{d.name}'",
                        (sym.note(type_pos[d.name], "first declared here"),))  # fmt: skip
                continue
            type_pos[d.name] = d.pos
            sym.entities.append(d.name)
        elif isinstance(d, D.EnumDecl):
            if d.name in type_pos or d.name in T.ALIASES:
                sym.err(d.pos, f"duplicate declaration of '{d.name}'")
                continue
            type_pos[d.name] = d.pos
            info = EnumInfo(d.name, d)
            for k, (m, mpos) in enumerate(d.members, 1):
                if m in info.values:
                    sym.err(mpos, f"duplicate enum member '{m}' in {d.name}")
                    continue
                info.values[m] = EnumVal(d.name, m, k)
                sym.members.setdefault(m, []).append(info)
            sym.enums[d.name] = info
        elif isinstance(d, D.StructDecl):
            if d.name in type_pos or d.name in T.ALIASES:
                sym.err(d.pos, f"duplicate declaration of '{d.name}'")
                continue
            type_pos[d.name] = d.pos
            sym.structs[d.name] = StructInfo(d.name, d)
        elif isinstance(d, D.PlayersDecl):
            if players_seen is not None:
                sym.err(d.pos, "duplicate 'players' declaration",
                        (sym.note(players_seen.pos, "first declared here"),))  # fmt: skip
            players_seen = d
            if not (1 <= d.low <= d.high <= 16):
                sym.err(d.pos, "the player count must be between 1 and 16 (and A <= B)")
            else:
                sym.players = (d.low, d.high)
    for st in sym.structs.values():
        seen: set[str] = set()
        for mem in st.decl.members:
            if mem.name in seen:
                sym.err(mem.pos, f"duplicate member '{mem.name}' in struct {st.name}")
            seen.add(mem.name)
            st.members.append((mem.name, resolve_type(sym, mem.type), mem.default, mem.pos))
    for d in program.decls:
        if isinstance(d, D.PropertyDecl):
            _property(sym, d)
    _builtin_number(sym)
    for d in program.decls:
        if isinstance(d, D.FuncDecl):
            _function(sym, d)
    _collisions(sym)
    mains = sym.funcs.get("main", [])
    if not mains:
        first = program.decls[0].pos if program.decls else (1, 1)
        sym.err(first, "no 'main' procedure")
    else:
        for f in mains:
            if f.pure or f.params or f.declared_ret is not None:
                sym.err(f.decl.pos, "'main' must be a procedure with no parameters")
        for f in mains[1:]:
            sym.err(f.decl.pos, "duplicate declaration of 'main'",
                    (sym.note(mains[0].decl.pos, "first declared here"),))  # fmt: skip
    return sym


def _builtin_number(sym: Symbols) -> None:
    decl = D.PropertyDecl((0, 0), "fixed", A.TName((0, 0), "int"), (), None, None)
    sym.props.insert(0, PropInfo(0, PLAYER_NUMBER, "fixed", T.INT, ("Player",), (None,), decl))
    for k, p in enumerate(sym.props):
        p.pid = k


def _property(sym: Symbols, d: D.PropertyDecl) -> None:
    ents = [it for it in d.items if it.is_entity]
    ns = [(k, it) for k, it in enumerate(d.items) if not it.is_entity]
    for it in d.items:
        if not it.is_entity and sym.is_type(it.name):
            sym.err(it.pos, f"'{it.name}' is not an entity type")
            return
    text = "[" + " ".join(it.name for it in d.items) + "]"
    candidates = {k for k, it in ns if k > 0 and d.items[k - 1].is_entity}
    free = [(k, it) for k, it in ns if k not in candidates]
    if len(free) == 1:
        name_k, name_it = free[0]
    elif not free and len(ns) == 1:
        name_k, name_it = ns[0]
    else:
        sym.err(d.pos, f"cannot tell which identifier is the property name in '{text}'")
        return
    binders: list[str | None] = []
    for k, it in enumerate(d.items):
        if it.is_entity:
            nxt = d.items[k + 1] if k + 1 < len(d.items) else None
            if nxt is not None and not nxt.is_entity and k + 1 != name_k:
                binders.append(nxt.name)
            else:
                binders.append(None)
    named = [b for b in binders if b is not None]
    if len(set(named)) != len(named) or name_it.name in named:
        sym.err(d.pos, f"binders in '{text}' must be distinct from each other and the name")
        return
    params = tuple(it.name for it in ents)
    ptype = resolve_type(sym, d.type)
    existing = sym.prop(name_it.name, params)
    if existing is not None:
        sym.err(d.pos, f"duplicate declaration of '{name_it.name}'",
                (sym.note(existing.decl.pos, "first declared here"),))  # fmt: skip
        return
    if d.kind == "trait" and d.default is None and d.body is None:
        sym.err(d.pos, f"trait '{name_it.name}' needs a definition")
    if d.kind == "fixed" and len(params) != 1 and d.default is None:
        sym.err(d.pos, f"fixed property '{name_it.name}' needs a default value")
    if d.kind == "fixed" and params == ("Player",) and d.default is None:
        sym.err(d.pos, f"fixed property '{name_it.name}' of Player needs a default value")
    sym.props.append(PropInfo(len(sym.props), name_it.name, d.kind, ptype, params,
                              tuple(binders), d))  # fmt: skip


def _function(sym: Symbols, d: D.FuncDecl) -> None:
    if d.name in B.NAMES:
        sym.err(d.pos, f"'{d.name}' is a built-in and cannot be redeclared")
        return
    params = [resolve_type(sym, p.type, allow_selector=True) for p in d.params]
    names = [p.name for p in d.params]
    ret = resolve_type(sym, d.ret) if d.ret is not None else None
    overloads = sym.funcs.setdefault(d.name, [])
    overloads.append(FuncInfo(d.name, d, d.pure, params, names, ret, len(overloads)))


def _collisions(sym: Symbols) -> None:
    for name, fs in sym.funcs.items():
        if sym.is_type(name):
            sym.err(fs[0].decl.pos, f"'{name}' is already declared as a type")
        if name in sym.members:
            sym.err(fs[0].decl.pos, f"'{name}' is already declared as an enum member")
    for p in sym.props:
        if p.params:
            continue
        if sym.is_type(p.name):
            sym.err(p.decl.pos, f"'{p.name}' is already declared as a type")
        elif p.name in sym.members:
            sym.err(p.decl.pos, f"'{p.name}' is already declared as an enum member")
        elif p.name in sym.funcs:
            sym.err(p.decl.pos, f"'{p.name}' is already declared as a function or procedure")
