"""Checking assignments (docs/reference/cql.md#variables): kinds, persistence, subscripts."""

from __future__ import annotations

from dataclasses import replace

from esochess.cqlvars import ast
from esochess.cqlvars.check_base import KIND_WORD, CheckerBase
from esochess.cqlvars.qtypes import DICT, LOGICAL, NUMERIC, PIECE, POSITION, SET, STRING, TYPE_NOUN

#: How dictionary errors name the values a dictionary holds.
VALUE_NOUN = {NUMERIC: "numbers", STRING: "strings"}


class AssignChecks(CheckerBase):
    """Assignments and their variable kinds."""

    # assignments -------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> tuple[ast.Node, str]:
        target = node.target
        if isinstance(node.value, ast.Assign):
            raise self.error(node.value.span, "an assignment has no value and cannot be assigned")
        if isinstance(target, ast.Subscript):
            return self.assign_subscript(node, target)
        if isinstance(target, ast.Designator):
            raise self.error(
                target.span, f"'{target.text}' is a piece designator and cannot be a variable name"
            )
        if isinstance(target, ast.Filter) or isinstance(target, ast.GameInfo):
            word = target.name if isinstance(target, ast.Filter) else target.field
            raise self.error(target.span, f"'{word}' is a keyword and cannot be a variable name")
        if not isinstance(target, ast.Var):
            raise self.error(node.span, "the left side of an assignment must be a variable")
        name = target.name
        self.check_name(name, target.span)
        if any(name in s for s in self.scoped):
            raise self.error(target.span, f"cannot assign to iteration variable '{name}'")
        if name in self.retired and name not in self.kinds:
            raise self.error(target.span, f"'{name}' is already a variable")
        known = self.kinds.get(name)
        if node.persistent and name in self.assign_kinds:
            raise self.error(
                target.span, f"variable '{name}' is persistent; --assign cannot set it"
            )
        if node.persistent:
            if known is not None and name not in self.persistent:
                raise self.error(
                    target.span, f"variable '{name}' was used before its persistent declaration"
                )
            self.persistent[name] = self.persistent.get(name, False) or node.quiet
        if node.atomic:
            if name in self.persistent:
                raise self.error(target.span, f"variable '{name}' is persistent; it cannot "
                                              "also be atomic")
            if known is not None and name not in self.atomic:
                raise self.error(target.span, f"variable '{name}' was used before its atomic "
                                              "declaration")
            self.atomic.add(name)
        if name in self.persistent and node.op not in ("+=", "-="):
            self.persistent_bad_ops[name] = node.op
        op = node.op
        if op in ("+=", "-=", "*=", "/=", "%="):
            value, vt = self.visit(node.value)
            if known is None and node.persistent:
                # Persistent variables start at 0 or "" (docs/reference/cql.md#persistent): the
                # declaration may update.
                known = STRING if vt == STRING and op == "+=" else NUMERIC
                self.kinds[name] = known
            if known is None:
                raise self.error(target.span, f"variable '{name}' used before assignment")
            if name in self.persistent:
                self.persistent_reads.update(self._reads_persistent(node.value))
            if known == STRING and op == "+=":
                self.need(value, vt, (STRING,), "'+=' on a string")
            elif known == NUMERIC:
                self.need(value, vt, (NUMERIC,), f"'{op}'")
            else:
                noun = {SET: "set", PIECE: "piece", POSITION: "position", STRING: "string"}[known]
                raise self.error(node.span, f"operator '{op}' is not defined for {noun} variables")
            self.types[id(target)] = known
            return self.typed(replace(node, value=value), LOGICAL)
        value, vt = self.visit(node.value)
        if node.piece:
            self.need(value, vt, (SET,), "'piece ='")
            kind = PIECE
        elif op == "=?":
            if not self.set_like(vt):
                raise self.error(node.span, "'=?' requires a set on the right-hand side")
            kind = SET
        elif vt == LOGICAL:
            raise self.error(node.span, "a logical filter has no value to assign")
        else:
            kind = SET if vt == PIECE else vt
        if name in self.atomic and kind == PIECE:
            raise self.error(target.span, "piece variables cannot be atomic")
        if node.persistent and kind not in (NUMERIC, STRING, SET):
            raise self.error(target.span, "persistent variables must be numeric, string or set")
        if name in self.persistent and known != DICT and kind not in (NUMERIC, STRING, SET):
            raise self.error(target.span, "persistent variables must be numeric, string or set")
        if known is not None and known != kind:
            if name in self.assign_kinds:
                raise self.error(
                    target.span,
                    f"variable '{name}' is {self.noun(kind)} in the query but --assign gives "
                    f"{'a number' if known == NUMERIC else 'a string'}",
                )
            if {known, kind} == {SET, PIECE}:
                raise self.error(
                    target.span,
                    f"variable '{name}' is {KIND_WORD[known]}; cannot make it {KIND_WORD[kind]}",
                )
            raise self.error(
                target.span,
                f"variable '{name}' is {self.noun(known)}; cannot assign {TYPE_NOUN[kind]}",
            )
        self.kinds[name] = kind
        self.types[id(target)] = kind
        return self.typed(replace(node, value=value), LOGICAL)

    def visit_Unbind(self, node: ast.Unbind) -> tuple[ast.Node, str]:
        """`unbind X` / `unbind D[K]`: persistent values and loop variables stay bound."""
        target = node.target
        var = target.target if isinstance(target, ast.Subscript) else target
        assert isinstance(var, ast.Var)  # the parser allows nothing else
        if var.name in self.persistent and not isinstance(target, ast.Subscript):
            if self.kinds.get(var.name) == DICT:
                raise self.error(var.span, f"dictionary '{var.name}' keeps its entries for the "
                                           f"whole run; remove one with unbind {var.name}[KEY]")
            raise self.error(var.span, f"persistent variable '{var.name}' is always bound")
        if any(var.name in s for s in self.scoped):
            raise self.error(var.span, f"cannot unbind iteration variable '{var.name}'")
        new, t = self.visit(target)
        if isinstance(new, ast.Subscript) and self.types[id(new.target)] != DICT:
            raise self.error(target.span, "'unbind' removes entries of dictionaries only")
        return self.typed(replace(node, target=new), LOGICAL)

    def visit_DictDecl(self, node: ast.DictDecl) -> tuple[ast.Node, str]:
        """`[persistent [quiet] | local] dictionary NAME [[KEY] = VALUE]`."""
        name = node.name
        self.check_name(name, node.name_span)
        known = self.lookup(name)
        if known is not None and known != DICT:
            raise self.error(node.name_span, f"'{name}' is already {self.noun(known)}")
        if known is None and node.local:
            self.local_dicts.add(name)
        elif node.local and name not in self.local_dicts:
            raise self.error(node.span, f"dictionary '{name}' keeps its entries for the whole "
                                        "run; it cannot also be declared 'local'")
        elif node.persistent and name in self.local_dicts:
            raise self.error(node.span, f"dictionary '{name}' is local (emptied for each "
                                        "game); it cannot also be declared 'persistent'")
        self.kinds[name] = DICT
        if name not in self.local_dicts:
            # A plain dictionary keeps its entries for the whole run, like a persistent
            # one, but is printed at the end only when declared `persistent` (not quiet).
            if node.persistent:
                self.said_persistent.add(name)
            if node.quiet:
                self.said_quiet.add(name)
            self.persistent[name] = name in self.said_quiet or name not in self.said_persistent
        init = self.visit(node.init)[0] if node.init is not None else None
        return self.typed(replace(node, init=init), LOGICAL)

    def assign_entry(self, node: ast.Assign, target: ast.Subscript, name: str) -> tuple[ast.Node, str]:
        """`D[KEY] OP VALUE` on a dictionary: one key; numbers or strings as values."""
        if target.is_slice or target.start is None:
            raise self.error(target.span, f"a dictionary takes one key: {name}[KEY]")
        key, kt = self.visit(target.start)
        self.need(key, kt, (STRING, NUMERIC), "a dictionary key")
        value, vt = self.visit(node.value)
        self.need(value, vt, (NUMERIC, STRING), "a dictionary value")
        held = self.dict_values.setdefault(name, vt)
        if held != vt:
            raise self.error(node.value.span,
                             f"dictionary '{name}' holds {VALUE_NOUN[held]}, not {VALUE_NOUN[vt]}")
        if node.op not in ("=", "+=") and vt != NUMERIC or node.op not in (
            "=", "+=", "-=", "*=", "/=", "%="
        ):
            raise self.error(node.span, f"operator '{node.op}' cannot update a {VALUE_NOUN[vt][:-1]}")
        var, _ = self.visit(target.target)
        entry = self.typed(replace(target, target=var, start=key), vt)[0]
        return self.typed(replace(node, target=entry, value=value), LOGICAL)

    def noun(self, kind: str) -> str:
        return {
            NUMERIC: "numeric",
            SET: "a set variable",
            PIECE: "a piece variable",
            STRING: "a string",
            POSITION: "a position",
            DICT: "a dictionary",
        }.get(kind, kind)

    def _reads_persistent(self, node: ast.Node) -> set[str]:
        return {n.name for n in ast.walk([node]) if isinstance(n, ast.Var) and n.name in self.persistent}

    def assign_subscript(self, node: ast.Assign, target: ast.Subscript) -> tuple[ast.Node, str]:
        if not isinstance(target.target, ast.Var):
            raise self.error(target.span, "subscript assignment requires a string variable")
        name = target.target.name
        kind = self.lookup(name)
        if kind is None:
            raise self.error(
                target.target.span,
                f"variable '{name}' used before assignment (declare a dictionary with "
                f"'dictionary {name}')",
            )
        if kind == DICT:
            return self.assign_entry(node, target, name)
        if kind != STRING:
            raise self.error(target.span, "subscript requires a string")
        if node.op != "=":
            raise self.error(node.span, f"operator '{node.op}' cannot assign to a subscript")
        new_target, _ = self.visit(target)
        value, vt = self.visit(node.value)
        self.need(value, vt, (STRING,), "subscript assignment")
        return self.typed(replace(node, target=new_target, value=value), LOGICAL)
