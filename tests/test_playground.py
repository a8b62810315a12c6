"""The playground in a real browser: headless Chromium (Debian's chromium + chromium-driver, installed by
`make browser`) drives the page served by a real uvicorn on 127.0.0.1, and checks it against the API."""

from __future__ import annotations

import base64
import io
import os
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
TIMEOUT = 30

OPERA_GAME = """[Event "Paris"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
"""
XIANGQI_GAME = "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 g3g4 c6c5 b0c2 b7a7 c3c4 h7h3 c2d4 c5c4 d4c6 h3g3"
"""A central-cannon opening in ICCS, checked move by move against cchess below."""
XIANGQI_PGN = """[Game "Chinese Chess"]
[Format "Chinese"]

1. 炮二平五 马８进７ 2. 马二进三 车９平８ 3. 车一平二 马２进３ 4. 兵三进一 卒３进１
5. 马八进七 炮２平１ 6. 兵七进一 炮８进４ 7. 马七进六 卒３进１ 8. 马六进七 炮８平７ *
"""
"""The same game as an xqbase PGN in Chinese notation (what the test pastes)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server():
    """A real uvicorn serving app.main:app on a free loopback port, stopped at teardown."""
    port = free_port()
    env = {**os.environ, "PLYBITS_ACCESS_LOG": "0"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / "playground-uvicorn.log", "wb")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"uvicorn exited with {process.returncode}; see {log.name}")
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"uvicorn did not answer on {base} within {TIMEOUT}s; see {log.name}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium through Debian's chromedriver (never a Selenium Manager download)."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.skip(f"browser test needs {' and '.join(missing)}: run `make browser` as root "
                    "(apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.chrome.service import Service

    previous = os.environ.get("SE_OFFLINE")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not try to download a driver
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # to see Content-Security-Policy refusals
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(TIMEOUT)
    try:
        yield driver
    finally:
        driver.quit()
        if previous is None:
            os.environ.pop("SE_OFFLINE", None)
        else:
            os.environ["SE_OFFLINE"] = previous


def wait(driver, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, TIMEOUT).until(lambda d: condition(d), message=what)


def by_id(driver, name: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def open_page(driver, base: str) -> None:
    driver.get(base + "/")
    wait(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true", "page ready")


def paste_and_encode(driver, game: str, record: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(by_id(driver, "game")).select_by_value(game)
    area = by_id(driver, "record")
    area.clear()
    area.send_keys(record)
    by_id(driver, "go").click()


def chart_rows(driver) -> dict[str, dict[str, str]]:
    from selenium.webdriver.common.by import By

    return {
        row.get_attribute("data-scheme"): {
            "bytes": row.get_attribute("data-bytes"),
            "label": row.find_element(By.CLASS_NAME, "label").text,
        }
        for row in by_id(driver, "chart").find_elements(By.CLASS_NAME, "bar-row")
    }


def board_ply(driver) -> int:
    """The ply the board shows, once its image has loaded."""
    wait(driver, lambda d: d.execute_script(
        "const i = document.getElementById('board'); return i.complete && i.naturalWidth > 0;"), "board image")
    return int(by_id(driver, "board").get_attribute("data-ply"))


def check_against_api(driver, base: str, game: str, record: str) -> dict:
    """Sizes, container and decoded moves shown on the page equal what the API answers."""
    schemes = [c["scheme"] for c in httpx.get(base + "/v1/codecs").json() if c["game"] == game]
    wait(driver, lambda d: len(chart_rows(d)) == len(schemes) and not by_id(d, "moves").text == "", "chart and moves")
    shown = chart_rows(driver)
    encoded = {}
    for scheme in schemes:
        api = httpx.post(base + "/v1/encode", json={"game": game, "scheme": scheme, "record": record}).json()
        if "size_bytes" not in api:  # a scheme refusing this game: the page shows the API's problem instead
            assert shown[scheme]["bytes"] is None and api["detail"].split(": ")[-1] in shown[scheme]["label"]
            continue
        encoded[scheme] = api
        assert shown[scheme]["bytes"] == str(api["size_bytes"])
        assert shown[scheme]["label"].startswith(f"{api['size_bytes']} bytes · {api['bits_per_ply']:.2f} bits/ply")
    assert encoded, f"no scheme of {game} encoded the game"
    first = encoded[next(s for s in schemes if s in encoded)]
    assert by_id(driver, "b64").text == first["data"]
    blob = httpx.post(base + "/v1/decode", json={"data": first["data"]}).json()
    padded = first["data"] + "=" * (-len(first["data"]) % 4)
    assert by_id(driver, "hex").text == base64.urlsafe_b64decode(padded).hex()
    from selenium.webdriver.common.by import By

    shown_moves = [span.text for span in by_id(driver, "moves").find_elements(By.CSS_SELECTOR, "li .mv")]
    assert shown_moves == blob["moves"]
    return {"plies": first["plies"], "moves": blob["moves"]}


def board_pieces(base: str, driver) -> int:
    """Pieces in the SVG the board image shows (fetched again from the same URL)."""
    svg = httpx.get(by_id(driver, "board").get_attribute("src")).text
    return svg.count('class="piece')


def test_chess_game_sizes_moves_and_stepping(server, browser):
    chess = pytest.importorskip("chess")
    import chess.pgn

    open_page(browser, server)
    paste_and_encode(browser, "chess", OPERA_GAME)
    shown = check_against_api(browser, server, "chess", OPERA_GAME)
    game = chess.pgn.read_game(io.StringIO(OPERA_GAME))
    boards = [game.board()]
    for move in game.mainline_moves():
        boards.append(boards[-1].copy())
        boards[-1].push(move)
    assert shown["plies"] == len(boards) - 1 == 33
    assert board_ply(browser) == 0 and "ply 0 / 33" in by_id(browser, "ply").text

    for _ in range(3):
        by_id(browser, "forward").click()
    assert board_ply(browser) == 3
    src = urllib.parse.parse_qs(urllib.parse.urlparse(by_id(browser, "board").get_attribute("src")).query)
    assert src["position"] == [boards[3].fen()] and src["last"] == ["g1f3"]
    by_id(browser, "back").click()
    assert board_ply(browser) == 2

    from selenium.webdriver.common.keys import Keys

    body = browser.find_element("tag name", "body")
    by_id(browser, "board").click()  # focus leaves the text area: the arrows step the board
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert board_ply(browser) == 4
    body.send_keys(Keys.ARROW_LEFT)
    assert board_ply(browser) == 3
    body.send_keys(Keys.END)
    assert board_ply(browser) == 33
    assert "checkmate" in by_id(browser, "status").text
    assert board_pieces(server, browser) == len(boards[-1].piece_map())
    assert by_id(browser, "forward").get_attribute("disabled") is not None
    browser.save_screenshot(str(ARTIFACTS / "playground-chess.png"))
    by_id(browser, "first").click()
    assert board_ply(browser) == 0 and board_pieces(server, browser) == 32
    by_id(browser, "flip").click()
    assert board_ply(browser) == 0 and "flip=true" in by_id(browser, "board").get_attribute("src")


def test_xiangqi_game_sizes_and_stepping(server, browser):
    if "xiangqi" not in {c["game"] for c in httpx.get(server + "/v1/codecs").json()}:
        pytest.skip("game 'xiangqi' is not registered in this build yet")
    cchess = pytest.importorskip("cchess")
    board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
    for ply, iccs in enumerate(XIANGQI_GAME.split()):
        assert board.is_valid_iccs_move(iccs) and board.move_iccs(iccs), (ply, iccs)
        board.next_turn()
    open_page(browser, server)
    paste_and_encode(browser, "xiangqi", XIANGQI_PGN)
    shown = check_against_api(browser, server, "xiangqi", XIANGQI_PGN)
    assert shown["plies"] == 16
    iccs = httpx.post(server + "/v1/convert", json={"game": "xiangqi", "moves": shown["moves"],
                                                    "to_notation": "iccs"}).json()["moves"]
    assert iccs == XIANGQI_GAME.split()
    from selenium.webdriver.common.keys import Keys

    by_id(browser, "board").click()
    body = browser.find_element("tag name", "body")
    for _ in range(5):
        body.send_keys(Keys.ARROW_RIGHT)
    assert board_ply(browser) == 5
    by_id(browser, "last").click()
    assert board_ply(browser) == 16
    src = urllib.parse.parse_qs(urllib.parse.urlparse(by_id(browser, "board").get_attribute("src")).query)
    assert src["position"][0].split()[0] == board.to_fen().split()[0] and src["last"] == ["h3g3"]
    assert board_pieces(server, browser) == len(list(board.get_pieces())) == 31  # d4c6 took a black soldier
    browser.save_screenshot(str(ARTIFACTS / "playground-xiangqi.png"))


def test_error_is_shown_with_its_ply(server, browser):
    open_page(browser, server)
    paste_and_encode(browser, "chess", "1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf3 *")
    wait(browser, lambda d: not by_id(d, "error").get_attribute("hidden"), "error box")
    box = by_id(browser, "error")
    assert box.get_attribute("data-ply") == "5"  # the problem's 0-based ply
    assert box.text.startswith('ply 6 (move "Nf3")')
    assert board_ply(browser) == 5  # the board shows the position the bad move was tried in
    from selenium.webdriver.common.by import By

    assert browser.find_element(By.CSS_SELECTOR, "#moves li.bad .mv").text == "Nf3"


@pytest.mark.parametrize("game", ["abalone", "entropy"])
def test_first_sample_of_the_other_games(server, browser, game):
    if game not in {c["game"] for c in httpx.get(server + "/v1/codecs").json()}:
        pytest.skip(f"game {game!r} is not registered in this build yet")
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    sample = httpx.get(server + "/static/samples.json").json()[game][0]
    open_page(browser, server)
    Select(by_id(browser, "game")).select_by_value(game)
    Select(by_id(browser, "sample")).select_by_index(1)  # picking a sample encodes it at once
    shown = check_against_api(browser, server, game, sample["record"])
    replay = httpx.post(server + "/v1/replay", json={"game": game, "record": sample["record"]}).json()
    assert shown["plies"] == len(replay["positions"])
    by_id(browser, "board").click()
    browser.find_element("tag name", "body").send_keys(Keys.END)
    assert board_ply(browser) == shown["plies"]
    status = replay["status"]
    if game == "abalone":  # 14 marbles a side, less those pushed off
        assert board_pieces(server, browser) == 28 - sum(status["ejected"].values())
    else:  # a finished New Entropy game leaves round 2's full board: one chip per turn of the round
        assert status["status"] == "finished" and board_pieces(server, browser) == 49
        picture = httpx.get(by_id(browser, "board").get_attribute("src")).text
        assert f"round 1: {status['scores'][0]}" in picture and f"round 2: {status['scores'][1]}" in picture
    browser.save_screenshot(str(ARTIFACTS / f"playground-{game}.png"))


def test_content_security_policy_refuses_nothing_the_page_uses(server, browser):
    """The playground works under its Content-Security-Policy: the browser refused nothing while it ran."""
    open_page(browser, server)
    paste_and_encode(browser, "chess", OPERA_GAME)
    check_against_api(browser, server, "chess", OPERA_GAME)
    by_id(browser, "forward").click()
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == []
