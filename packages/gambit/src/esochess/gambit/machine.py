"""The Gambit machine: a paused, forkable execution of a checked program
(docs/reference/gambit.md#the-game).

This is the run-time API the game layer (sessions, players, look-ahead, MCTS) builds on:

    program = compile_source(text, path)          # esochess.gambit.frontend
    m = Machine(program, seed=7, players=2, io=my_io)
    out = m.run_until_decision()                  # Decision | Result | Illegal
    while isinstance(out, Decision):
        m.choose(1)                               # 1-based option index, or sorted tuple
        out = m.run_until_decision()

`fork()` copies the whole execution state (frames, locals, game store, chance RNG, turn
bookkeeping) in time proportional to the store, never by re-running the program: Gambit
calls live in explicit `Frame`s, not in Python recursion, and every value is immutable
(see values.py), so a fork shares values and copies only containers. Forks have no I/O.

Design (Appendix C (b)): the interpreter compiles each function, procedure, trait and
notation body into a `Code` of statement-level instructions whose expressions are Python
closures `f(machine, locals)`. Only `choose` and calls of procedures that may reach a
`choose` are instructions that can pause; everything else runs to completion, so a
pause can only happen in an explicit frame and a fork sees the whole control state.

Run-time errors surface as `GambitRuntimeError` (a `SourceError` with severity
`runtime error` and `called from` lines); nothing here prints.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import Any

from esochess.fen import Note
from esochess.gambit import versions
from esochess.gambit.labels import Labels
from esochess.gambit.limits import (
    CALL_DEPTH_LIMIT,
    OUT_OF_MEMORY,
    PYTHON_RECURSION_LIMIT,
    deep_python_stack,
)
from esochess.gambit.program import (
    OP_CALL,
    OP_CHOOSE,
    OP_COMMIT,
    OP_EXEC,
    OP_HORIZON,
    OP_ITER,
    OP_JF,
    OP_JUMP,
    OP_NEXT,
    OP_RET,
    OP_RUN,
    OP_SET,
    Code,
    Frame,
    Pos,
    Program,
    Prop,
    store_key,
)
from esochess.gambit.results import (
    Committed,
    Decision,
    GambitIO,
    GambitRuntimeError,
    GameEnd,
    Illegal,
    IllegalSignal,
    Result,
    RunError,
    _line_of,
    decision,
)
from esochess.gambit.values import UNSET, EnumVal, Inst, NumberTooLong, display

_MISSING = object()
MEMO_LIMIT = 200_000


class Machine:
    """One execution of a program's `main`, paused at decisions and forkable."""

    def __init__(
        self,
        program: Program,
        *,
        seed: int,
        players: int,
        io: GambitIO | None = None,
        trace: bool = False,
    ) -> None:
        self.program = program
        self.seats = players
        self.io = io
        self.tracing = trace and io is not None
        # The chance RNG is made at its first draw (most games roll nothing): until then
        # `_rng` is None and `_seed` seeds it. Forks share the parent's RNG until one of
        # them draws from it (copy on write).
        self._rng: random.Random | None = None
        self._seed = seed
        self._rng_owned = True
        # The game store: one dict per property (indexed by pid), keyed by the instance for
        # a property of one entity and by the entity tuple otherwise (see `store_key`).
        self.store: list[dict[Any, Any]] = [{} for _ in program.props]
        self.instances: dict[str, tuple[Inst, ...]] = {t: () for t in program.entity_order}
        self.instances["Player"] = tuple(Inst("Player", k) for k in range(1, players + 1))
        self.frames: list[Frame] = [Frame(program.main, (), -1, None)]
        self.pending: tuple[int, tuple[Any, ...], int | None] | None = None
        self.decisions_made = 0
        self.committed = False
        self.depth = 0
        self.peak = 0
        self.version = versions.fresh()
        self.inst_version = versions.interned((id(program), players))
        self.finished: Result | None = None
        # Set by the game layer on look-ahead forks: stop at a `commit` (docs/reference/gambit.md#turns-illegal-and-commit).
        self.pause_at_commit = False
        # The seat whose turn a look-ahead fork explores (None outside look-ahead): such a
        # fork stops at a decision that starts another turn before computing its options.
        self.lookahead_seat: int | None = None
        # Look-ahead and AI search: `print` arguments are not evaluated (output is dropped);
        # random playouts (`quiet`): not when they cannot fail (compiler/quiet.py).
        self.silent = self.quiet = False
        # Set when a silent machine skipped a `print`: a look-ahead fork is then not adopted
        # by a machine that is not silent (game.adopt), so a run-time error in a print
        # argument is still reported when the option is played.
        self.skipped_print = False
        # Plays the decisions it can on the spot, without pausing (autoplay.py; forks: None).
        self.autoplay: Any = None

    # ----------------------------------------------------------------- public API

    def run_until_decision(self) -> Decision | Result | Illegal:
        """Run until the next `choose` (a Decision), the end of the game, or `illegal`.

        Raises `GambitRuntimeError` for a run-time error of the program.
        """
        while True:
            out = self.run_until_pause()
            if not isinstance(out, Committed):
                return out

    def run_until_pause(self) -> Decision | Result | Illegal | Committed:
        """Like `run_until_decision`, but also stops just after a `commit` that ends a
        turn when `pause_at_commit` is set (look-ahead needs no more than the turn)."""
        if self.finished is not None:
            return self.finished
        if self.pending is not None:
            raise RuntimeError("choose() must answer the pending decision first")
        old_limit = sys.getrecursionlimit()
        raised = old_limit < PYTHON_RECURSION_LIMIT
        if raised:
            sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)
        try:
            out = self._exec(0) if self.program.drive is None else self.program.drive(self)
        except GameEnd as end:
            self.finished = end.result
            return end.result
        except IllegalSignal as sig:
            return Illegal(sig.pos[0], sig.pos[1], sig.seat, sig.new_turn)
        except RunError as err:
            raise self._runtime_error(err.pos, err.message, err.trail, err.notes) from None
        except RecursionError:
            raise self._runtime_error(
                self._top_pos(), f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded"
            ) from None
        except MemoryError:
            # The values that filled the memory are gone once the stack has unwound.
            raise self._runtime_error(self._top_pos(), OUT_OF_MEMORY) from None
        except NumberTooLong as err:
            raise self._runtime_error(self._top_pos(), str(err)) from None
        finally:
            if raised:
                sys.setrecursionlimit(old_limit)
        if isinstance(out, (Decision, Committed)):
            return out
        self.finished = Result(self.seats)
        return self.finished

    def choose(self, index: int | tuple[int, ...]) -> None:
        """Answer the pending decision with a 1-based option index (sorted tuple for K)."""
        if self.pending is None:
            raise RuntimeError("no decision is pending")
        dest, options, k = self.pending
        if isinstance(index, tuple):
            value: Any = tuple(options[i - 1] for i in index)
        else:
            value = options[index - 1]
        if dest >= 0:
            self.frames[-1].locals[dest] = value
        self.pending = None
        self.decisions_made += 1
        self.committed = False

    def fork(self) -> Machine:
        """An independent copy of the execution state, with no I/O and no tracing."""
        m = Machine.__new__(Machine)
        m.program = self.program
        m.seats = self.seats
        m.io = None
        m.tracing = False
        m._rng = self._rng
        m._seed = self._seed
        if self._rng is None:
            m._rng_owned = True  # each makes the same RNG from the seed when it draws
        else:
            m._rng_owned = False
            self._rng_owned = False
        m.store = [d.copy() for d in self.store]
        m.instances = dict(self.instances)
        m.frames = [f.copy() for f in self.frames]
        m.pending = self.pending
        m.decisions_made = self.decisions_made
        m.committed = self.committed
        m.depth = 0
        m.peak = 0
        m.version = self.version
        m.inst_version = self.inst_version
        m.finished = self.finished
        m.pause_at_commit = self.pause_at_commit
        m.lookahead_seat = self.lookahead_seat
        m.silent, m.quiet = self.silent, self.quiet
        m.skipped_print = self.skipped_print
        m.autoplay = None
        return m

    @property
    def drew_chance(self) -> bool:
        """True once this execution (or the one it was forked from) drew from its chance
        RNG, or was reseeded and then drew."""
        return self._rng is not None

    def reseed(self, n: int) -> None:
        """Replace the chance RNG by `random.Random(n)` (MCTS simulations,
        docs/reference/gambit.md#ai-players)."""
        self._rng = None
        self._seed = n
        self._rng_owned = True

    @property
    def rng(self) -> random.Random:
        """The chance RNG (docs/reference/gambit.md#randomness), private to this machine."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self._seed)
        elif not self._rng_owned:
            # Random.__new__ skips seeding from os.urandom; setstate replaces it all.
            shared = rng
            rng = self._rng = random.Random.__new__(random.Random)
            rng.setstate(shared.getstate())
        self._rng_owned = True
        return rng

    def display(self, value: Any) -> str:
        """The display form of a value (docs/reference/gambit.md#display-forms), using entities'
        `name` properties.

        A `name` trait can fail: that is a `GambitRuntimeError` like any other.
        """
        if type(value) is str:
            return value  # most printed values; no trait can run, so no guard is needed
        if type(value) is EnumVal:
            return value.name
        depth = len(self.frames)
        try:
            with deep_python_stack():
                return display(value, self.name_of)
        except RunError as err:
            error = self._runtime_error(err.pos, err.message, err.trail, err.notes)
            del self.frames[depth:]
            raise error from None

    # State enumeration for hashing (docs/reference/gambit.md#gambit-run) and records.

    def entity_types(self) -> list[str]:
        """Entity type names in declaration order, `Player` first."""
        return ["Player", *[t for t in self.program.entity_order if t != "Player"]]

    def instance_list(self, type_name: str) -> tuple[Inst, ...]:
        """The instances of a type in creation order."""
        return self.instances.get(type_name, ())

    def fixed_unary_props(self, type_name: str) -> list[str]:
        """Names of the unary fixed properties of an entity type, in declaration order."""
        return [
            p.name
            for p in self.program.props
            if p.kind == "fixed" and p.params == (type_name,)
        ]

    def state_props(self) -> list[tuple[str, tuple[str, ...]]]:
        """(name, entity parameter types) of every state property, in declaration order."""
        return [(p.name, p.params) for p in self.program.props if p.kind == "state"]

    def read(self, name: str, args: tuple[Inst, ...]) -> Any:
        """Read a fixed or state property by name and entity tuple; UNSET if never set."""
        prop = self.program.find_prop(name, tuple(a.type_name for a in args))
        if prop is None:
            raise KeyError(name)
        depth = len(self.frames)
        try:
            return self.read_prop(prop, args, None)
        except RunError:
            del self.frames[depth:]
            return UNSET

    read_state = read

    # ----------------------------------------------------------- used by compiled code

    def output(self, text: str) -> None:
        """Program output (`print`); dropped in forks."""
        if self.io is not None:
            self.io.output(text)

    def trace(self, pos: Pos, event: str) -> None:
        """Report a trace event when tracing."""
        if self.tracing and self.io is not None:
            self.io.trace(pos[0], pos[1], event)

    def call(self, code: Code, args: Sequence[Any], pos: Pos) -> Any:
        """Run a body that cannot pause to completion and return its value.

        Traits are memoised per game-state version (see `Code.pure`).
        """
        memo = None
        level = self.depth + len(self.frames)
        if (code.pure or code.static) and not self.tracing:
            memo = self.program.memo
            key = (code, tuple(args), self.inst_version if code.static else self.version)
            hit = memo.get(key, _MISSING)
            # A hit stands for the whole computation, so it must also fit under the depth
            # limit from here; otherwise compute it again (and fail as it would have).
            if hit is not _MISSING and level + hit[1] < CALL_DEPTH_LIMIT:
                if level + hit[1] > self.peak:
                    self.peak = level + hit[1]
                return hit[0]
        if level >= CALL_DEPTH_LIMIT:
            raise RunError(pos, f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded in '{code.name}'")
        outer_peak = self.peak
        self.peak = level
        try:
            if code.simple is not None:
                # An arrow body: one expression, no frame and no instruction loop needed;
                # `depth` counts these calls, `frames` the others.
                L = args if isinstance(args, list) else list(args)
                if code.nlocals > len(L):
                    L = L + [None] * (code.nlocals - len(L))
                self.depth += 1
                try:
                    value = code.simple(self, L)
                finally:
                    self.depth -= 1
            else:
                base = len(self.frames)
                self.frames.append(Frame(code, args, -1, pos))
                try:
                    value = self._exec(base)
                except BaseException:
                    del self.frames[base:]
                    raise
        except RunError as err:
            err.trail.append((code.where, pos))
            raise
        finally:
            # `peak`: the deepest call level reached by this call and everything it ran.
            used = self.peak - level
            if outer_peak > self.peak:
                self.peak = outer_peak
        if memo is not None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            memo[key] = (value, used)
        return value

    def touch(self, inst: Inst, written: list[tuple[int, Any]]) -> None:
        """Record that a new instance's properties were set, as (pid, value) pairs (a new
        version of the state and of the instances, see versions.py)."""
        self.version = versions.fresh()
        self.inst_version = versions.after_writes(self.inst_version, inst, written)

    def read_prop(self, prop: Prop, args: tuple[Any, ...], pos: Pos | None) -> Any:
        """Read property `prop` of the entity tuple `args` (traits are recomputed)."""
        if prop.kind == "trait":
            assert prop.code is not None
            return self.call(prop.code, args, pos or (0, 0))
        if prop.pid == 0:
            # The predeclared `fixed int [Player number]` (docs/reference/gambit.md#properties).
            return args[0].index
        values = self.store[prop.pid]
        key = store_key(args)
        v = values.get(key, UNSET)
        if v is not UNSET:
            return v
        if prop.default is not None:
            v = prop.default(self, list(args) + [None] * prop.default_locals)
            if prop.kind == "fixed":
                values[key] = v
            return v
        if prop.zero is not UNSET:
            return prop.zero
        where = ", ".join(a.ident for a in args)
        of = f" of {where}" if where else ""
        raise RunError(pos or (0, 0), f"property '{prop.name}'{of} read before it was set")

    def write_prop(self, prop: Prop, args: tuple[Any, ...], value: Any, pos: Pos) -> None:
        """Write a state property (tracing the write)."""
        values = self.store[prop.pid]
        key = store_key(args)
        if self.tracing:
            old = values.get(key, UNSET)
            if old is UNSET:
                depth = len(self.frames)
                try:
                    old = self.read_prop(prop, args, pos)
                except RunError:
                    del self.frames[depth:]
                    old = UNSET
            shown = "unset" if old is UNSET else self.display(old)
            if not args:
                target = prop.name
            elif len(args) == 1:
                target = f"{args[0].ident}.{prop.name}"
            else:
                target = "(" + ", ".join(a.ident for a in args) + f").{prop.name}"
            self.trace(pos, f"write {target} = {self.display(value)} (was {shown})")
        values[key] = value
        self.version = versions.fresh()

    def create(self, type_name: str) -> Inst:
        """Allocate the next instance of an entity type (docs/reference/gambit.md#the-game)."""
        existing = self.instances[type_name]
        inst = Inst(type_name, len(existing) + 1)
        self.instances[type_name] = existing + (inst,)
        self.version = versions.fresh()
        self.inst_version = versions.interned((self.inst_version, type_name))
        return inst

    def end_turn(self) -> None:
        """`commit`: the next decision starts a new turn
        (docs/reference/gambit.md#turns-illegal-and-commit)."""
        if self.decisions_made > 0:
            self.committed = True

    # ------------------------------------------------------------------ internals

    def name_of(self, inst: Inst) -> str | None:
        prop = self.program.name_props.get(inst.type_name)
        if prop is None:
            return None
        v = self.read_prop(prop, (inst,), None)
        return v if isinstance(v, str) else display(v, self.name_of)

    def _top_pos(self) -> Pos:
        for f in reversed(self.frames):
            if f.call_pos is not None:
                return f.call_pos
        return (1, 1)

    def _runtime_error(
        self,
        pos: Pos,
        message: str,
        trail: Sequence[tuple[str, Pos]] = (),
        notes: Sequence[tuple[Pos, str]] = (),
    ) -> GambitRuntimeError:
        path = self.program.path
        # Activations from the outermost (main) to the innermost: (name, call position).
        acts: list[tuple[str, Pos | None]] = [(f.code.where, f.call_pos) for f in self.frames]
        acts += [(name, cp) for name, cp in reversed(trail)]
        lines: list[str] = []
        for j in range(len(acts) - 1, 0, -1):
            cp = acts[j][1]
            if cp is None:
                continue
            lines.append(f"  called from {acts[j - 1][0]} at {path}:{cp[0]}:{cp[1]}")
            if len(lines) == 10:
                break
        return GambitRuntimeError(
            path,
            pos[0],
            pos[1],
            message,
            severity="runtime error",
            source_line=_line_of(self.program.source, pos[0]),
            notes=tuple(Note(path, p[0], p[1], text) for p, text in notes),
            trace_lines=tuple(lines),
        )

    def _exec(self, base: int) -> Any:
        """Execute frames above depth `base`; return a Decision at a `choose` (base 0
        only), a Committed marker (see `pause_at_commit`), or the value returned by the
        frame at depth `base` (None at main's end)."""
        frames = self.frames
        frame = frames[-1]
        instrs = frame.code.instrs
        L = frame.locals
        # The program counter lives in a local; it is written back to the frame only when
        # the frame is left (a call, a pause). A frame left by an exception is abandoned.
        pc = frame.pc
        while True:
            ins = instrs[pc]
            pc += 1
            op = ins[0]
            # Most frequent first (pausing procedures are runs, calls, returns and pauses).
            if op == OP_RUN:
                pc = ins[1](self, L)
            elif op == OP_EXEC:
                ins[1](self, L)
            elif op == OP_SET:
                L[ins[1]] = ins[2](self, L)
            elif op == OP_RET:
                value = ins[1](self, L) if ins[1] is not None else None
                frames.pop()
                if len(frames) == base:
                    return value
                dest = frame.dest
                frame = frames[-1]
                instrs = frame.code.instrs
                L = frame.locals
                pc = frame.pc
                if dest >= 0:
                    L[dest] = value
            elif op == OP_CALL:
                code, args = ins[1](self, L)
                if len(frames) + self.depth >= CALL_DEPTH_LIMIT:
                    raise RunError(
                        ins[3], f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded in '{code.name}'"
                    )
                frame.pc = pc
                frame = Frame(code, args, ins[2], ins[3])
                frames.append(frame)
                instrs = code.instrs
                L = frame.locals
                pc = 0
            elif op == OP_CHOOSE:
                if (
                    self.lookahead_seat is not None
                    and ins[5] is not None
                    and base == 0
                    and (self.committed or ins[5](self, L).index != self.lookahead_seat)
                ):
                    # Another turn starts here: the explored turn ended legally. The
                    # decision itself runs again if this fork is adopted (`advance`).
                    frame.pc = pc - 1
                    return Committed(ins[3][0], ins[3][1])
                frame.pc = pc
                return self._decide(ins, L, base)
            elif op == OP_HORIZON:
                # No `illegal` can run before this turn ends (with two or more players):
                # look-ahead of the option is complete, it is legal.
                if self.lookahead_seat is not None and self.seats >= 2 and base == 0:
                    frame.pc = pc
                    return Committed(ins[1][0], ins[1][1])
            elif op == OP_JF:
                if not ins[1](self, L):
                    pc = ins[2]
            elif op == OP_JUMP:
                pc = ins[1]
            elif op == OP_NEXT:
                seq, i = L[ins[1]]
                if i >= len(seq):
                    pc = ins[3]
                else:
                    L[ins[2]] = seq[i]
                    L[ins[1]] = (seq, i + 1)
            elif op == OP_ITER:
                L[ins[2]] = (ins[1](self, L), 0)
            elif op == OP_COMMIT:
                if self.decisions_made > 0:
                    self.committed = True
                    if self.pause_at_commit and base == 0:
                        frame.pc = pc
                        return Committed(ins[1][0], ins[1][1])
            else:  # pragma: no cover - the compiler emits only the opcodes above
                raise AssertionError(f"bad opcode {op}")

    def _decide(self, ins: tuple[Any, ...], L: list[Any], base: int) -> Decision:
        spec, dest, pos, secret = ins[1], ins[2], ins[3], ins[4]
        if base != 0:  # pragma: no cover - the checker keeps choose out of pure code
            raise RunError(pos, "'choose' cannot run inside a function")
        player, k, prompt, options = spec(self, L)
        if k is not None and k < 1:
            raise RunError(pos, f"choose[{k}] needs K of at least 1")
        if not options or (k is not None and k > len(options)):
            raise IllegalSignal(pos, player.index, self.committed)
        self.pending = (dest, options, k)
        return decision(player.index, options, Labels(self, options), k, secret, prompt,
                        pos[0], pos[1], self.committed)  # fmt: skip
