"""The studio in a real browser: `esochess studio --no-browser --port P` driven by headless
Chromium through Selenium — the five pages render, and the four page flows work.

One server and one browser serve the whole module. With `STUDIO_SCREENSHOTS=DIR` the
flows also save the screenshots of docs/studio.md into DIR.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ESOCHESS = Path(sys.executable).with_name("esochess")
REPO = Path(__file__).resolve().parents[2]
SHOTS = os.environ.get("STUDIO_SCREENSHOTS")
WAIT = 30.0

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None,
        reason="headless Chromium and its driver are not installed (Debian packages "
        "`chromium` and `chromium-driver`)",
    ),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [str(ESOCHESS), "studio", "--no-browser", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the studio did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    assert CHROMIUM is not None and DRIVER is not None
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,860", "--no-first-run",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):  # fmt: skip
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except WebDriverException as exc:
        pytest.skip(f"headless Chromium could not be started: {exc.msg}")
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, condition: Callable[[], Any], what: str) -> Any:
    """Poll `condition` until it returns something true (short steps, one overall limit)."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + WAIT
    while True:
        try:
            value = condition()
        except StaleElementReferenceException:  # the page redrew it meanwhile: look again
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def text(driver: Any, element_id: str) -> str:
    return str(driver.find_element("id", element_id).text)


def shot(driver: Any, name: str) -> None:
    if SHOTS:
        driver.save_screenshot(str(Path(SHOTS) / name))


@pytest.mark.parametrize(
    ("page", "title", "board"),
    [("", "Start", False), ("chazz", "CHAZZ", True), ("chespel", "Chespel", True),
     ("gambit", "Gambit", False), ("cql", "CQL", False)],
)  # fmt: skip
def test_every_page_renders(server: str, browser: Any, page: str, title: str, board: bool) -> None:
    browser.get(server + page)
    assert browser.title == f"{title} — esochess studio"
    assert browser.find_element("css selector", "header a.here").text == title
    if board:
        wait_for(
            browser, lambda: browser.find_elements("css selector", "#board svg rect"), "a board"
        )
    errors = [
        e
        for e in browser.get_log("browser")
        if e["level"] == "SEVERE" and "favicon" not in e["message"]
    ]
    assert errors == []


def test_chazz_program_steps_forward_and_back(server: str, browser: Any) -> None:
    fen = (REPO / "examples/chazz/hello.fen").read_text().split("\n")[0]
    browser.get(server + "chazz?fen=" + quote(fen))
    wait_for(browser, lambda: text(browser, "status") == "paused", "the program to load")
    for expected in ("1", "2", "3"):
        browser.find_element("id", "forward").click()
        wait_for(browser, lambda e=expected: text(browser, "step") == e, f"step {expected}")
    browser.find_element("id", "back").click()
    wait_for(browser, lambda: text(browser, "step") == "2", "step 2 again")
    assert browser.find_elements("css selector", "#board svg #current")  # the executing square
    assert browser.find_element("css selector", "#tape td.ptr").text == "0"
    browser.find_element("id", "end").click()
    wait_for(browser, lambda: text(browser, "output") == "Hello, World!", "the whole output")
    assert text(browser, "status").startswith("ended after 44 steps")
    assert "fen=" in browser.current_url
    target = browser.find_element("id", "target")
    target.clear()
    target.send_keys("30")
    browser.find_element("id", "goto").click()  # run to a step
    wait_for(browser, lambda: text(browser, "step") == "30", "step 30")
    assert "Hello, World!".startswith(text(browser, "output")) and text(browser, "output")
    shot(browser, "studio-chazz.png")


def test_chespel_diagnostic_appears(server: str, browser: Any) -> None:
    browser.get(server + "chespel")
    wait_for(browser, lambda: "ok" in text(browser, "checkstatus"), "the example to check")
    source = browser.find_element("id", "source")
    source.clear()
    source.send_keys("module evaluation\nsym rule material:\n\tscore me.totalValu;\n")

    def notes() -> list[str]:
        return [n.text for n in browser.find_elements("css selector", "#listing .note")]

    # Diagnostics follow the typing; wait for the one of the finished text.
    note = wait_for(browser, lambda: [n for n in notes() if "totalValu" in n], "the diagnostic")
    assert "error: class Player has no method 'totalValu'" in note[0]
    assert note[0].index("^") == len("\tscore me.")  # under column 11
    assert "material.chp:3:11: error" in text(browser, "checkstatus")
    shot(browser, "studio-chespel-diagnostic.png")
    source.clear()
    source.send_keys("module evaluation\nsym rule material:\n\tscore me.totalValue;\n")
    wait_for(browser, lambda: "ok" in text(browser, "checkstatus"), "the fix to check")
    browser.find_element("id", "evaluate").click()
    wait_for(browser, lambda: "score for white: 0" in text(browser, "evaluation"), "the evaluation")
    browser.find_element("css selector", "#board svg rect.e2").click()
    # The redrawn board shows the pawn's squares; then the target is clicked.
    wait_for(
        browser,
        lambda: browser.find_elements("css selector", "#board svg rect:not(.square)"),
        "e2 selected",
    )
    wait_for(
        browser,
        lambda: browser.find_element("css selector", "#board svg rect.e4").click() or True,
        "e4",
    )
    wait_for(browser, lambda: "depth" in text(browser, "engineinfo"), "the engine's answer")
    assert text(browser, "moves").startswith("e4 ")
    shot(browser, "studio-chespel.png")


def test_gambit_game_played_to_its_end_against_random(server: str, browser: Any) -> None:
    browser.get(server + "gambit")
    wait_for(browser, lambda: browser.find_elements("css selector", "input.seat"), "the seats")
    browser.find_element("id", "seed").send_keys("7")
    browser.find_element("id", "start").click()
    for _ in range(20):
        wait_for(
            browser,
            lambda: (
                browser.find_elements("css selector", "#decision button") or text(browser, "result")
            ),
            "a decision or the result",
        )
        if text(browser, "result"):
            break
        buttons = browser.find_elements("css selector", "#decision button")
        before = text(browser, "log")
        buttons[0].click()
        wait_for(
            browser,
            lambda b=before: text(browser, "log") != b or text(browser, "result"),
            "the answer",
        )
    assert text(browser, "result").startswith("Result: ")
    link = browser.find_element("id", "download")
    assert link.is_displayed() and link.get_attribute("href").startswith("blob:")
    shot(browser, "studio-gambit.png")


def test_cql_first_matched_game_shown(server: str, browser: Any) -> None:
    browser.get(server + "cql")
    wait_for(browser, lambda: "ok" in text(browser, "checkstatus"), "the query to check")
    browser.find_element(
        "css selector", "#pgn option[value='studies-lichess-thijscom.pgn']"
    ).click()
    browser.find_element("id", "run").click()
    wait_for(browser, lambda: "matched" in text(browser, "summary"), "the run")
    assert text(browser, "summary").startswith("cql: 103 games read, 27 matched")
    wait_for(browser, lambda: browser.find_elements("css selector", "#board svg"), "the first game")
    assert text(browser, "comment") == "marked by CQL: CQL"
    marked = browser.find_elements("css selector", "#moves span.marked")
    assert marked and "at" in marked[0].get_attribute("class")
    assert "#" in marked[0].text  # the mating move
    shot(browser, "studio-cql.png")
