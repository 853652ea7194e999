"""State hashing (docs/reference/gambit.md#gambit-run): a SHA-256 fingerprint of the game state, not
the control state."""

from __future__ import annotations

import hashlib
import json
from itertools import product
from typing import Any

from esochess.gambit.machine import Machine
from esochess.gambit.values import UNSET, EnumVal, FuncVal, Inst, StructVal, multi_members


def encode(value: Any) -> Any:
    """Encode one Gambit value as the JSON value of docs/reference/gambit.md#gambit-run."""
    if value is UNSET:
        return {"unset": True}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return float(value)
    if isinstance(value, EnumVal):
        return {"enum": value.qualified}
    if isinstance(value, frozenset):
        return {"multi": [m.qualified for m in multi_members(value)]}
    if isinstance(value, Inst):
        return {"e": value.ident}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, StructVal):
        return {
            "struct": value.type_name,
            "fields": {n: encode(v) for n, v in zip(value.names, value.values, strict=True)},
        }
    if isinstance(value, FuncVal):
        return {"fn": value.name}
    raise TypeError(f"cannot hash a {type(value).__name__} value")


def state_items(machine: Machine) -> dict[str, Any]:
    """The game state as plain data: instances with fixed values, and state tuples."""
    instances = {
        t: [
            {n: machine.read(n, (i,)) for n in machine.fixed_unary_props(t)}
            for i in machine.instance_list(t)
        ]
        for t in machine.entity_types()
    }
    state: dict[str, list[tuple[list[str], Any]]] = {}
    for name, params in machine.state_props():
        rows = []
        for args in product(*(machine.instance_list(t) for t in params)):
            rows.append(([a.ident for a in args], machine.read(name, tuple(args))))
        state.setdefault(name, []).extend(rows)
    return {"instances": instances, "state": state}


def state_document(machine: Machine) -> dict[str, Any]:
    """The JSON value of docs/reference/gambit.md#gambit-run for the machine's current game
    state."""
    items = state_items(machine)
    instances = {
        type_name: [{prop: encode(v) for prop, v in fixed.items()} for fixed in entries]
        for type_name, entries in items["instances"].items()
    }
    state = {
        name: [[list(args), encode(v)] for args, v in rows]
        for name, rows in items["state"].items()
    }
    return {"instances": instances, "state": state}


def state_hash(machine: Machine) -> str:
    """The first 16 hex digits of the SHA-256 of the canonical state JSON
    (docs/reference/gambit.md#gambit-run)."""
    text = json.dumps(
        state_document(machine), sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
