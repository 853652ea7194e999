"""The studio's ASGI application: five pages, their static files and a JSON API.

Every API call reads a JSON object whose fields are checked here (types, sizes, ranges)
and hands them to one language adapter, in a worker process with a time limit (`jobs`).
A mistake in what the page sent comes back as HTTP 400 with `{"error": TEXT}`, TEXT
being what the command line prints for it; anything else as 500 with a one-line message.
No response ever carries a traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from string import Template
from typing import Any

import anyio
import chess
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from esochess.fen import SourceError, format_diagnostic, parse_fen
from esochess.fen.render import render_svg
from esochess.studio import (
    chazz_adapter,
    chespel_adapter,
    cql_adapter,
    examples,
    gambit_adapter,
    jobs,
)
from esochess.studio.highlight import highlight, stylesheet
from esochess.studio.hosts import is_loopback
from esochess.studio.jobs import Progress, UserError

STATIC = Path(__file__).parent / "static"
PAGES = ("chazz", "chespel", "gambit", "cql")
TITLES = {
    "index": "Start",
    "chazz": "CHAZZ",
    "chespel": "Chespel",
    "gambit": "Gambit",
    "cql": "CQL",
}
MAX_BODY = 16 * 1024 * 1024
MAX_SOURCE = 256 * 1024
MAX_FEN = 200_000
MAX_ITEMS = 5_000

#: Wall-clock seconds a worker may take, by kind of work (a chess move adds its think time).
TIME_LIMITS = {"check": 15.0, "run": 60.0, "query": 300.0}

Handler = Callable[[Request], Awaitable[Response]]


class Fields:
    """The checked fields of one request's JSON object."""

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise UserError("error: the request must be a JSON object")
        self.data = data

    def text(self, name: str, limit: int = MAX_SOURCE, default: str | None = None) -> str:
        """A string field of at most `limit` characters."""
        value = self.data.get(name, default)
        if not isinstance(value, str):
            raise UserError(f"error: '{name}' must be text")
        if len(value) > limit:
            raise UserError(f"error: '{name}' is longer than {limit} characters")
        return value

    def optional(self, name: str, limit: int = MAX_SOURCE) -> str | None:
        """A string field that may be missing or null."""
        return None if self.data.get(name) is None else self.text(name, limit)

    def integer(self, name: str, low: int, high: int, default: int | None = None) -> int:
        """An integer field within [low, high]."""
        value = self.data.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UserError(f"error: '{name}' must be a whole number from {low} to {high}")
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        """A boolean field."""
        value = self.data.get(name, default)
        if not isinstance(value, bool):
            raise UserError(f"error: '{name}' must be true or false")
        return value

    def texts(self, name: str, limit: int = 64) -> list[str]:
        """A list of short strings."""
        value = self.data.get(name, [])
        if not isinstance(value, list) or len(value) > MAX_ITEMS:
            raise UserError(f"error: '{name}' must be a list of at most {MAX_ITEMS} items")
        if not all(isinstance(v, str) and len(v) <= limit for v in value):
            raise UserError(
                f"error: every item of '{name}' must be text of at most {limit} characters"
            )
        return list(value)

    def name(self, suffix: str) -> str:
        """The program's file name shown in diagnostics (a plain name with `suffix`)."""
        value = self.text("name", 100, f"program{suffix}").strip() or f"program{suffix}"
        return value if value.endswith(suffix) else value + suffix


async def fields(request: Request) -> Fields:
    """The request's JSON object, refused when too large or not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise UserError(f"error: the request is larger than {MAX_BODY // (1024 * 1024)} MB")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise UserError(f"error: the request is larger than {MAX_BODY // (1024 * 1024)} MB")
    try:
        return Fields(json.loads(body))
    except (ValueError, RecursionError):
        raise UserError("error: the request is not valid JSON") from None


def as_json(value: Any) -> Any:
    """Dataclasses (nested) to plain JSON data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value


def api(handler: Callable[[Fields], Awaitable[Any]]) -> Handler:
    """A JSON endpoint: errors become `{"error": …}` answers, never tracebacks."""

    async def endpoint(request: Request) -> Response:
        try:
            return JSONResponse(as_json(await handler(await fields(request))))
        except UserError as exc:
            return JSONResponse({"error": exc.text}, status_code=400)
        except Exception as exc:  # noqa: BLE001 - the browser gets a message, not a traceback
            return JSONResponse(
                {"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500
            )

    return endpoint


async def work(fn: Callable[..., Any], *args: Any, kind: str, extra: float = 0.0) -> Any:
    """Run an adapter function in a worker process, off the event loop."""
    return await run_in_threadpool(jobs.run, fn, *args, timeout=TIME_LIMITS[kind] + extra)


# ---------------------------------------------------------------------------- pages


def render_page(name: str) -> str:
    """A page: the shared shell (head, navigation) around the page's own body."""
    links = []
    for page, title in TITLES.items():
        href = "/" if page == "index" else f"/{page}"
        here = ' class="here"' if page == name else ""
        links.append(f'<a href="{href}"{here}>{title}</a>')
    nav = "".join(links)
    shell = Template((STATIC / "shell.html").read_text(encoding="utf-8"))
    body = (STATIC / "pages" / f"{name}.html").read_text(encoding="utf-8")
    return shell.substitute(title=TITLES[name], nav=nav, body=body)


async def page(request: Request) -> Response:
    """One of the five pages (static HTML; its script does the rest)."""
    name = request.path_params.get("page", "index")
    if name not in TITLES:
        return PlainTextResponse("no such page", status_code=404)
    return HTMLResponse(render_page(name))


async def code_css(request: Request) -> Response:
    """The stylesheet of the highlighted listings."""
    return Response(stylesheet(), media_type="text/css")


async def example_list(request: Request) -> Response:
    """The shipped examples of one kind."""
    kind = request.path_params["kind"]
    if kind not in examples.KINDS:
        return JSONResponse({"error": f"error: no examples of kind '{kind}'"}, status_code=404)
    return JSONResponse(examples.names(kind))


async def example_text(request: Request) -> Response:
    """The text of one shipped example (only names from the list)."""
    kind, name = request.path_params["kind"], request.path_params["name"]
    found = examples.path(kind, name) if kind in examples.KINDS else None
    if found is None:
        return JSONResponse({"error": f"error: no example '{name}'"}, status_code=404)
    return PlainTextResponse(found.read_text(encoding="utf-8", errors="replace"))


# ---------------------------------------------------------------------------- boards


async def board(f: Fields) -> Any:
    """A chess position drawn as SVG, with its last move marked."""
    fen = f.text("fen", 200)
    try:
        position = parse_fen(fen, path="<fen>")
    except SourceError as exc:
        raise UserError(format_diagnostic(exc)) from None
    last = f.optional("lastmove", 8)
    try:
        move = chess.Move.from_uci(last) if last else None
    except ValueError:
        raise UserError(f"error: '{last}' is not a move") from None
    return {"svg": render_svg(position, lastmove=move)}


async def highlighted(f: Fields) -> Any:
    """A program as highlighted HTML lines (the Pygments lexer of its language)."""
    language = f.text("language", 20)
    if language not in PAGES:
        raise UserError(f"error: unknown language '{language}'")
    return {"lines": highlight(language, f.text("text"))}


# ---------------------------------------------------------------------------- CHAZZ


async def chazz_board(f: Fields) -> Any:
    return chazz_adapter.board(f.text("fen", MAX_FEN))


async def chazz_edit(f: Fields) -> Any:
    fen = f.text("fen", MAX_FEN)
    if "rows" in f.data:
        return chazz_adapter.resize(fen, f.integer("rows", 1, 30000), f.integer("cols", 1, 30000))
    return chazz_adapter.edit(
        fen, f.integer("row", 0, 30000), f.integer("col", 0, 30000), f.text("piece", 1)
    )


async def chazz_step(f: Fields) -> Any:
    return await work(
        chazz_adapter.snapshot,
        f.text("fen", MAX_FEN),
        f.text("input", 65536).encode("utf-8"),
        f.integer("step", 0, chazz_adapter.MAX_STEPS),
        f.flag("prompt", True),
        kind="run",
    )


# ---------------------------------------------------------------------------- Chespel


async def chespel_check(f: Fields) -> Any:
    return await work(chespel_adapter.check, f.name(".chp"), f.text("text"), kind="check")


async def chespel_eval(f: Fields) -> Any:
    output = await work(
        chespel_adapter.evaluate, f.name(".chp"), f.text("text"), f.text("fen", 200), kind="run"
    )
    return {"output": output}


async def chespel_position(f: Fields) -> Any:
    return chespel_adapter.position(
        f.text("fen", 200, "startpos"), f.texts("moves", 8), f.optional("selected", 4)
    )


async def chespel_place(f: Fields) -> Any:
    turn = f.text("turn", 5, "white")
    if turn not in ("white", "black"):
        raise UserError("error: 'turn' must be white or black")
    return chespel_adapter.place(f.text("fen", 200), f.text("square", 4), f.text("piece", 1), turn)


async def chespel_move(f: Fields) -> Any:
    """A human move (if given), then the engine's answer when the game goes on."""
    fen, moves = f.text("fen", 200, "startpos"), f.texts("moves", 8)
    origin, target = f.optional("from", 4), f.optional("to", 4)
    if origin and target:
        moves.append(chespel_adapter.human_move(chespel_adapter.replay(fen, moves), origin, target))
    reply: Any = None
    if chespel_adapter.position(fen, moves).result is None:
        movetime = f.integer("movetime", 10, 10_000, 500)
        reply = await work(
            chespel_adapter.engine_move,
            f.name(".chp"),
            f.text("text"),
            fen,
            moves,
            movetime,
            kind="run",
            extra=movetime / 1000,
        )
        if reply.move is not None:
            moves.append(reply.move)
    return {"position": chespel_adapter.position(fen, moves), "engine": reply}


# ---------------------------------------------------------------------------- Gambit


async def gambit_check(f: Fields) -> Any:
    return await work(gambit_adapter.check, f.name(".gmb"), f.text("text"), kind="check")


async def gambit_play(f: Fields) -> Any:
    seed = None if f.data.get("seed") is None else f.integer("seed", 0, 2**32 - 1)
    return await work(
        gambit_adapter.play,
        f.name(".gmb"),
        f.text("text"),
        f.text("players", 400, "human"),
        seed,
        f.texts("answers", 200),
        kind="run",
    )


async def gambit_replay(f: Fields) -> Any:
    total, log = await work(
        gambit_adapter.replay_steps,
        f.name(".gmb"),
        f.text("text"),
        f.text("record", 1024 * 1024),
        f.integer("step", 0, gambit_adapter.MAX_DECISIONS),
        kind="run",
    )
    return {"total": total, "log": log}


# ---------------------------------------------------------------------------- CQL


async def cql_check(f: Fields) -> Any:
    ok, report = await work(cql_adapter.check, f.name(".cql"), f.text("text"), kind="check")
    return {"ok": ok, "report": report}


async def cql_run(request: Request) -> Response:
    """Run a query; the answer streams one JSON line per progress step, then the result."""
    try:
        f = await fields(request)
        name, text = f.name(".cql"), f.text("text")
        shipped = f.optional("pgn", 200)
        path = None
        if shipped is not None:
            found = examples.path("pgn", shipped)
            if found is None:
                raise UserError(f"error: no shipped PGN file '{shipped}'")
            path = str(found)
        upload_name = f.text("upload_name", 200, "upload.pgn")
        upload = None if path is not None else f.text("upload", MAX_BODY)
    except UserError as exc:
        return JSONResponse({"error": exc.text}, status_code=400)
    args = (cql_adapter.run, name, text, path, upload_name, upload)
    return StreamingResponse(_lines(args), media_type="application/x-ndjson")


async def _lines(args: tuple[Any, ...]) -> AsyncIterator[str]:
    stream = jobs.stream(*args, timeout=TIME_LIMITS["query"])
    done = object()
    try:
        while True:
            item = await anyio.to_thread.run_sync(next, stream, done)
            if item is done:
                return
            if isinstance(item, Progress):
                read, total = item.value
                yield json.dumps({"read": read, "total": total}) + "\n"
            else:
                yield json.dumps({"result": as_json(item)}) + "\n"
    except UserError as exc:
        yield json.dumps({"error": exc.text}) + "\n"
    except Exception as exc:  # noqa: BLE001 - a message, never a traceback
        yield json.dumps({"error": f"internal error: {type(exc).__name__}: {exc}"}) + "\n"
    finally:
        await anyio.to_thread.run_sync(stream.close)


ROUTES: dict[str, Callable[[Fields], Awaitable[Any]]] = {
    "/api/board": board,
    "/api/highlight": highlighted,
    "/api/chazz/board": chazz_board,
    "/api/chazz/edit": chazz_edit,
    "/api/chazz/step": chazz_step,
    "/api/chespel/check": chespel_check,
    "/api/chespel/eval": chespel_eval,
    "/api/chespel/position": chespel_position,
    "/api/chespel/move": chespel_move,
    "/api/chespel/place": chespel_place,
    "/api/gambit/check": gambit_check,
    "/api/gambit/play": gambit_play,
    "/api/gambit/replay": gambit_replay,
    "/api/cql/check": cql_check,
}


LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]


class LocalOnly:
    """Refuse any request from another machine (or a web page posing as this host)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            if client is None or not is_loopback(client[0]):
                response = PlainTextResponse("the studio serves this machine only", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(local_only: bool = True) -> Starlette:
    """The studio application; `local_only` refuses clients on other machines and
    requests for another host name (so a web page elsewhere cannot rebind to it)."""
    routes = [
        Route("/", page),
        *(Route(path, api(handler), methods=["POST"]) for path, handler in ROUTES.items()),
        Route("/api/cql/run", cql_run, methods=["POST"]),
        Route("/code.css", code_css),
        Route("/api/examples/{kind}", example_list),
        Route("/api/examples/{kind}/{name}", example_text),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/{page}", page),
    ]
    middleware = (
        [Middleware(LocalOnly), Middleware(TrustedHostMiddleware, allowed_hosts=LOCAL_HOSTS)]
        if local_only
        else []
    )
    return Starlette(routes=routes, middleware=middleware, lifespan=_lifespan)


@contextlib.asynccontextmanager
async def _lifespan(_app: Starlette) -> AsyncIterator[None]:
    # The fork server imports the four languages once, while the browser is opening.
    await anyio.to_thread.run_sync(jobs.start)
    yield
