"""The studio's HTTP endpoints (Starlette's TestClient): pages, answers, the messages of
mistakes, and hostile input posted to every endpoint."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from esochess.studio import app as studio_app
from esochess.studio.app import ROUTES, create_app

REPO = Path(__file__).resolve().parents[2]
LOCAL = {"base_url": "http://127.0.0.1:8765", "client": ("127.0.0.1", 50000)}
ENDPOINTS = [*ROUTES, "/api/cql/run"]
NIM = (REPO / "examples/gambit/nim.gmb").read_text()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(), **LOCAL) as test_client:  # type: ignore[arg-type]
        yield test_client


def lines(response: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines()]


@pytest.mark.parametrize("page", ["/", "/chazz", "/chespel", "/gambit", "/cql"])
def test_pages_are_served_with_their_scripts(client: TestClient, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200 and "esochess studio" in response.text
    for asset in ("/static/studio.css", "/static/common.js", "/code.css"):
        assert client.get(asset).status_code == 200
    assert (
        "http://" not in response.text and "https://" not in response.text
    )  # nothing from the net


def test_unknown_page_and_example_are_404(client: TestClient) -> None:
    assert client.get("/nope").status_code == 404
    assert client.get("/api/examples/nope").status_code == 404
    assert client.get("/api/examples/pgn/..%2F..%2Fpyproject.toml").status_code == 404
    assert client.get("/api/examples/cql/mate.cql").text.startswith("// First query")
    assert "lichess-carlsen-2018.pgn" in client.get("/api/examples/pgn").json()


def test_other_machines_and_host_names_are_refused() -> None:
    with TestClient(
        create_app(), base_url="http://127.0.0.1:8765", client=("192.168.1.9", 5)
    ) as remote:
        assert remote.get("/").status_code == 403
    with TestClient(
        create_app(), base_url="http://evil.example:8765", client=("127.0.0.1", 5)
    ) as rebound:
        assert rebound.get("/").status_code == 400
    with TestClient(
        create_app(local_only=False), base_url="http://studio.lan", client=("192.168.1.9", 5)
    ) as lan:
        assert lan.get("/").status_code == 200


def test_chazz_endpoints(client: TestClient) -> None:
    board = client.post("/api/chazz/board", json={"fen": "8/8 w"}).json()
    assert board["rows"] == 2 and board["svg"].startswith("<svg")
    edited = client.post(
        "/api/chazz/edit", json={"fen": "8/8 w", "row": 0, "col": 0, "piece": "R"}
    ).json()
    assert edited["fen"] == "R7/8 w"
    snap = client.post("/api/chazz/step", json={"fen": "RR w", "input": "", "step": 1}).json()
    assert snap["output"] == "\x00" and snap["square"] == [0, 1]
    bad = client.post("/api/chazz/board", json={"fen": "9z w"})
    assert bad.status_code == 400 and bad.json() == {"error": "Error: Invalid FEN format"}


def test_chespel_endpoints(client: TestClient) -> None:
    text = "module evaluation\nsym rule material:\n\tscore me.totalValue;\n"
    assert client.post("/api/chespel/check", json={"text": text}).json()["ok"] is True
    evaluation = client.post("/api/chespel/eval", json={"text": text, "fen": "startpos"}).json()
    assert "score for white: 0" in evaluation["output"]
    moved = client.post(
        "/api/chespel/move",
        json={"text": text, "moves": [], "from": "e2", "to": "e4", "movetime": 50},
    ).json()
    assert moved["position"]["moves"][0] == "e2e4" and len(moved["position"]["moves"]) == 2
    assert moved["engine"]["depth"] >= 1
    broken = client.post(
        "/api/chespel/eval",
        json={"text": "module evaluation\nrule x:\n\tscore foo;\n", "fen": "startpos"},
    )
    assert broken.status_code == 400
    assert broken.json()["error"].startswith("program.chp:3:8: error: unknown name 'foo'")
    bad_fen = client.post("/api/chespel/position", json={"fen": "8/8/8 w - - 0 1"})
    assert bad_fen.status_code == 400 and bad_fen.json()["error"].startswith("<fen>:1:")


def test_gambit_endpoints(client: TestClient) -> None:
    played = client.post(
        "/api/gambit/play", json={"name": "nim", "text": NIM, "players": "random", "seed": 5}
    ).json()
    assert played["result"] and played["record"]
    replay = client.post(
        "/api/gambit/replay",
        json={"name": "nim", "text": NIM, "record": played["record"], "step": 1},
    ).json()
    assert replay["total"] >= 2 and replay["log"].count(" -> ") == 1
    pending = client.post(
        "/api/gambit/play", json={"text": NIM, "players": "human,random", "answers": []}
    ).json()
    assert isinstance(pending["seed"], int) and pending["pending"]["options"][0] == [1, "heap 1"]


def test_cql_run_streams_progress_then_the_result(client: TestClient) -> None:
    query = "cql() mate"
    response = client.post(
        "/api/cql/run", json={"text": query, "pgn": "studies-lichess-thijscom.pgn"}
    )
    messages = lines(response)
    assert messages[0] == {"read": 0, "total": 103}
    assert messages[-1]["result"]["summary"].startswith("cql: 103 games read, 27 matched")
    uploaded = lines(
        client.post("/api/cql/run", json={"text": query, "upload": "1. f3 e5 2. g4 Qh4# 0-1\n"})
    )
    assert uploaded[-1]["result"]["matches"][0]["plies"][-1]["cql"] == "CQL"
    wrong = lines(
        client.post(
            "/api/cql/run", json={"text": "cql() matte", "pgn": "studies-lichess-thijscom.pgn"}
        )
    )
    assert wrong[-1]["error"].startswith("program.cql:1:7: error:")


HOSTILE_BODIES: list[Any] = [
    b"not json",
    b"[1, 2, 3]",
    b"{\"text\": " * 2000,
    {"text": 7, "fen": ["x"], "name": {"a": 1}, "moves": "e2e4", "step": -1, "seed": "x"},
    {"text": "x" * (300 * 1024), "fen": "8" * 300000},
    {"text": "__import__('os').system('touch /tmp/studio-pwned')", "fen": "startpos", "name": "../../x",
     "players": "human", "answers": ["1"] * 6000, "record": "{\"seed\": 1}", "step": 10**12,
     "row": 10**9, "col": -1, "piece": "RR", "rows": 10**6, "cols": 10**6, "language": "python",
     "pgn": "../../pyproject.toml", "upload": None, "from": "zz", "to": "e9", "movetime": 10**9,
     "selected": "<script>"},
]  # fmt: skip


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_hostile_input_gets_a_message_never_a_traceback(client: TestClient, endpoint: str) -> None:
    for body in HOSTILE_BODIES:
        if isinstance(body, bytes):
            response = client.post(
                endpoint, content=body, headers={"Content-Type": "application/json"}
            )
        else:
            response = client.post(endpoint, json=body)
        assert response.status_code in (200, 400), (endpoint, response.text[:200])
        assert "Traceback" not in response.text and 'File "' not in response.text
        if response.status_code == 400:
            assert response.json()["error"]
        elif endpoint == "/api/cql/run":  # a stream: a bad query or file ends it with an error line
            assert "error" in lines(response)[-1]
        else:  # what was sound in the body was answered
            assert response.json()
    assert not Path("/tmp/studio-pwned").exists()
    assert multiprocessing.active_children() == []  # no worker outlives its request


def test_a_program_that_never_ends_is_stopped(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(studio_app.TIME_LIMITS, "run", 1.0)
    endless = "players 2\nmain() {\n    while true { }\n}\n"
    response = client.post("/api/gambit/play", json={"text": endless, "players": "random"})
    assert response.status_code == 400
    assert response.json() == {"error": "error: stopped after the time limit of 1 s"}
    assert multiprocessing.active_children() == []


def test_oversized_request_is_refused(client: TestClient) -> None:
    huge = b'{"text": "' + b"x" * (studio_app.MAX_BODY + 1) + b'"}'
    response = client.post(
        "/api/cql/check", content=huge, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400 and "larger than" in response.json()["error"]
