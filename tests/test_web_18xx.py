"""The web pages of the 18xx games (docs/web.md): one games index for both
families, `/games/N` of an 18xx game sent to its page, and the 18xx page with
the map, the stock market, the charters, the players and the log. The games
are real: a Continental Rails game and an 18MS game made by `game new`, and
an 18MS game recorded on 18xx.games imported up to its 120th action."""

import html
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from turnproc.cli import main
from turnproc.config import Settings
from turnproc.store.db import open_database
from turnproc.store.models import Game, Game18xx, Move18xx, Player
from turnproc.web import keys
from turnproc.web.app import create_app

SEATS = "position,character,real_name,email,secret\n" + "".join(
    f"{p},,P{p} <b>,p{p}@example.org,secret-{p}-xyzw\n" for p in (1, 2, 3)
)


@dataclass
class Site:
    engine: Engine
    settings: Settings
    rails: int  # the Continental Rails game's id
    ms: int  # the 18MS game's id in the games list
    ms_page: int  # its 18xx page's id
    recorded: int  # the imported game's 18xx page id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    from tests.g18xx_fixtures import load_recorded
    from turnproc.store import g18xx as store

    data = load_recorded("18MS/14375.json")
    tmp = tmp_path_factory.mktemp("web18xx")
    url = f"sqlite:///{tmp / 'site.db'}"
    env = {"TURNPROC_DATABASE_URL": url, "TURNPROC_CONFIG": str(tmp / "absent.toml")}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        (tmp / "seats.csv").write_text(SEATS, encoding="utf-8")
        rails = ["game", "new", "--scenario", "continental-rails", "--name", "rails", "--seed", "3"]
        assert main([*rails, "--players", str(tmp / "seats.csv")]) == 0
        ms = ["game", "new", "--scenario", "18ms", "--name", "ms", "--players"]
        assert main([*ms, str(tmp / "seats.csv")]) == 0
        engine = open_database(url)
        with Session(engine) as session, session.begin():
            recorded = store.import_recorded(session, data, "recorded", keys.utcnow(), upto=120)
            games = {g.name: g.id for g in session.scalars(select(Game))}
            ms_row = session.scalar(select(Game18xx).where(Game18xx.name == "ms"))
            assert ms_row is not None
            ids = (games["rails"], games["ms"], ms_row.id, recorded.id)
        yield Site(engine, Settings(database_url=url, web_secret_key="t" * 40), *ids)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def client(site: Site) -> Iterator[TestClient]:
    with TestClient(create_app(site.engine, site.settings), raise_server_exceptions=False) as c:
        yield c


def test_one_index_for_both_families(site: Site, client: TestClient) -> None:
    index = client.get("/")
    assert index.status_code == 200, index.text[-2000:]
    assert f'<a href="/games/{site.rails}">rails</a>' in index.text
    assert f'<a href="/18xx/{site.ms_page}">ms</a>' in index.text
    assert f'<a href="/18xx/{site.recorded}">recorded</a>' in index.text
    assert "Continental Rails" in index.text and index.text.count("18MS") >= 2
    assert html.escape("P3 <b>") in index.text and "P3 <b>" not in index.text


def test_an_18xx_game_of_the_games_list_goes_to_its_page(site: Site, client: TestClient) -> None:
    moved = client.get(f"/games/{site.ms}", follow_redirects=False)
    assert moved.status_code == 303
    assert moved.headers["location"] == f"/18xx/{site.ms_page}"
    page = client.get(f"/games/{site.ms}")
    assert page.status_code == 200
    assert "<h2>Whose move it is</h2>" in page.text
    assert f'<p class="to-move"><b>{html.escape("P3 <b>")}</b>' in page.text  # 18MS: last first
    assert client.get(f"/games/{site.ms}/turns/1").status_code == 404
    assert client.get(f"/games/{site.ms}/map/0-0.svg").status_code == 404


def test_the_18xx_page_shows_map_market_charters_players_and_log(
    site: Site, client: TestClient
) -> None:
    page = client.get(f"/18xx/{site.recorded}")
    assert page.status_code == 200
    text = page.text
    for heading in ("Map", "Stock market", "Charters", "Players", "Private companies", "Log"):
        assert f"<h2>{heading}</h2>" in text, heading
    market = re.search(r'<div class="market">(<svg .*?</svg>)</div>', text, re.S)
    assert market is not None and "<rect" in market.group(1)
    log = re.findall(r"<li>(\d+)\. ", text)
    assert len(log) > 50 and int(log[0]) > int(log[-1])  # newest first
    assert "lays tile" in text
    found = re.search(rf'<img src="(/18xx/{site.recorded}/map.svg[^"]*)"', text)
    assert found is not None
    svg = client.get(html.unescape(found.group(1)))
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.count("<path") > 50  # the hexes and their track
    assert re.search(r">\s*(57|7|8|9)\s*</text>", svg.text), "no tile number on the map"
    assert "<script" not in svg.text
    assert client.get(f"/18xx/{site.recorded + 100}/map.svg").status_code == 404


# --- a player's page and its move form ----------------------------------------------------------

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
MS_SEATS = {p: (f"p{p}@example.org", f"secret-{p}-xyzw") for p in (1, 2, 3)}


def _fresh_ms(tmp_path: Path, label: str) -> tuple[Engine, Settings, int]:
    """A new 18MS game (the same seats and seed each time) in a database of its own."""
    from turnproc import sequential

    url = f"sqlite:///{tmp_path / f'{label}.db'}"
    engine = open_database(url)
    with Session(engine) as session, session.begin():
        game, _ = sequential.create_game(
            session,
            scenario="18ms",
            seats=[sequential.Seat(p, a, f"P{p}", s) for p, (a, s) in MS_SEATS.items()],
            name="ms",
            seed=1,
            options={},
            move_hours=48,
            now=NOW,
        )
        game_id = game.id
    settings = Settings(
        database_url=url, web_secret_key="t" * 40, mail_from="moderator@example.org"
    )
    return engine, settings, game_id


def _link(engine: Engine, settings: Settings, game_id: int, position: int) -> str:
    from turnproc.pipeline.links import player_url

    with Session(engine) as session:
        player = session.scalar(
            select(Player).where(Player.game_id == game_id, Player.position == position)
        )
        assert player is not None
        url = player_url(settings, "http://testserver", game_id, player, keys.utcnow())
    return "/" + url.split("/", 3)[3]


def _moves(engine: Engine) -> list[tuple[str, int | None]]:
    with Session(engine) as session:
        return [
            (m.action, m.player)
            for m in session.scalars(select(Move18xx).order_by(Move18xx.seq)).all()
        ]


def _position(engine: Engine) -> object:
    from turnproc.store import g18xx as store

    with Session(engine) as session:
        return store.position(store.load(session, "ms").game)


def test_a_move_made_on_the_web_equals_the_same_move_by_mail(tmp_path: Path) -> None:
    from turnproc.families.g18xx.moves import legal as _takes
    from turnproc.mail.inbound import ingest

    web_engine, settings, game_id = _fresh_ms(tmp_path, "web")
    mail_engine, _, _ = _fresh_ms(tmp_path, "mail")
    assert _position(web_engine) == _position(mail_engine)
    me = _link(web_engine, settings, game_id, 3)  # 18MS: the draft starts with the last seat
    with TestClient(create_app(web_engine, settings), raise_server_exceptions=False) as client:
        page = client.get(me)
        assert page.status_code == 200, page.text[-1500:]
        choices = re.findall(r'<option value="([^"]+)">', page.text)
        assert choices and all(c.startswith("BID ") for c in choices), choices
        with Session(web_engine) as session:
            from turnproc.store import g18xx as store

            engine = store.load(session, "ms").game
        assert not _takes(engine, 3, "PASS") and "PASS" not in choices
        fields = dict(re.findall(r'name="(form_id|csrf)" value="([^"]*)"', page.text))
        move = html.unescape(choices[0])
        data = {**fields, "choice": move, "secret": MS_SEATS[3][1], "action": "submit"}
        done = client.post(me, data=data)
        assert 'data-verdict="accepted"' in done.text, done.text[-3000:]
        # Now it is player 2's move: player 3's page offers no moves.
        assert "<select" not in client.get(me).text
    mail = EmailMessage()
    mail["From"] = MS_SEATS[3][0]
    mail["To"] = "moderator@example.org"
    mail["Subject"] = "my move"
    mail["Message-ID"] = "<move-1@example.org>"
    mail.set_content(
        f"TURNSHEET game: ms turn: 1 player: 3 secret: {MS_SEATS[3][1]}\n{move}\nEND\n"
    )
    outcome = ingest(mail_engine, mail.as_bytes(), "test", keys.utcnow())
    assert outcome.verdict == "accepted", outcome
    assert _moves(web_engine) == _moves(mail_engine) and len(_moves(web_engine)) == 1
    assert _position(web_engine) == _position(mail_engine)


def test_a_move_the_rules_refuse_is_answered_with_the_reason(tmp_path: Path) -> None:
    engine, settings, game_id = _fresh_ms(tmp_path, "refused")
    me = _link(engine, settings, game_id, 3)
    with TestClient(create_app(engine, settings), raise_server_exceptions=False) as client:
        page = client.get(me)
        fields = dict(re.findall(r'name="(form_id|csrf)" value="([^"]*)"', page.text))
        data = {**fields, "orders": "BID NOSUCH 40", "secret": MS_SEATS[3][1]}
        done = client.post(me, data=data)
    assert 'data-verdict="rejected"' in done.text  # a player's own move: docs/mail.md
    assert _moves(engine) == []


def test_the_link_in_a_players_mails_opens_his_page_over_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The welcome, the "your move" mail and the receipt end with the signed
    link to the player's own page (pipeline/links.py), and that link, fetched
    over HTTP from `turnproc web`, is his page with his move form."""
    import urllib.request

    from turnproc import sequential
    from turnproc.config import load_settings
    from turnproc.mail.inbound import ingest
    from turnproc.store.models import OutboxMessage

    url = f"sqlite:///{tmp_path / 'links.db'}"
    monkeypatch.setenv("TURNPROC_DATABASE_URL", url)
    monkeypatch.setenv("TURNPROC_WEB_KEY_FILE", str(tmp_path / "web.key"))
    monkeypatch.setenv("TURNPROC_MAIL_FROM", "moderator@example.org")
    monkeypatch.setenv("TURNPROC_CONFIG", str(tmp_path / "absent.toml"))
    engine = open_database(url)
    with _served(engine, load_settings()) as base:
        monkeypatch.setenv("TURNPROC_WEB_URL", base)
        with Session(engine) as session, session.begin():
            sequential.create_game(
                session,
                scenario="18ms",
                seats=[sequential.Seat(p, a, f"P{p}", s) for p, (a, s) in MS_SEATS.items()],
                name="ms",
                seed=1,
                options={},
                move_hours=48,
                now=keys.utcnow(),
            )

        def mails(kind: str, to: str) -> list[str]:
            with Session(engine) as session:
                rows = session.scalars(
                    select(OutboxMessage).where(
                        OutboxMessage.kind == kind, OutboxMessage.to_address == to
                    )
                )
                return [row.body for row in rows]

        def link(body: str) -> str:
            found = re.findall(rf"^{re.escape(base)}/play/\S+$", body, re.M)
            assert len(found) == 1, body[-600:]
            return found[0]

        (welcome,) = mails("welcome", MS_SEATS[3][0])
        (your_move,) = mails("your-move", MS_SEATS[3][0])  # 18MS: the last seat drafts first
        assert link(welcome) == link(your_move)  # both signed as the game starts
        with urllib.request.urlopen(link(your_move), timeout=30) as answer:
            page = answer.read().decode()
        assert "player 3 of ms" in page and '<select id="choice"' in page
        # what he may do: each step's heading, then its orders as he writes them
        assert '<p class="step">Buy one private' in page and '<code class="order">BID ' in page
        with urllib.request.urlopen(link(mails("welcome", MS_SEATS[1][0])[0]), timeout=30) as a:
            assert "player 1 of ms" in a.read().decode()
        move = re.findall(r'<option value="([^"]+)">', page)[0]
        mail = EmailMessage()
        mail["From"] = MS_SEATS[3][0]
        mail["To"] = "moderator@example.org"
        mail["Subject"] = "my move"
        mail["Message-ID"] = "<link-1@example.org>"
        secret = MS_SEATS[3][1]
        mail.set_content(f"TURNSHEET game: ms turn: 1 player: 3 secret: {secret}\n{move}\nEND\n")
        assert ingest(engine, mail.as_bytes(), "test", keys.utcnow()).verdict == "accepted"
        (receipt,) = mails("receipt", MS_SEATS[3][0])
        with urllib.request.urlopen(link(receipt), timeout=30) as answer:
            assert "player 3 of ms" in (mine := answer.read().decode())
            assert "Not your move" in mine
        (next_move,) = mails("your-move", MS_SEATS[2][0])
        with urllib.request.urlopen(link(next_move), timeout=30) as answer:
            assert '<select id="choice"' in answer.read().decode()


# --- in a real browser: Debian's chromium and chromedriver ---------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium driven by chromedriver; skips the test without them
    (fails with TURNPROC_REQUIRE_CHROMIUM set)."""
    from tests.test_web import CHROMEDRIVER, CHROMIUM

    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        if os.environ.get("TURNPROC_REQUIRE_CHROMIUM"):
            pytest.fail("chromium and chromium-driver are required here (apt-get install)")
        pytest.skip("needs Debian's chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@contextmanager
def _served(engine: Engine, settings: Settings) -> Iterator[str]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(engine, settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _wait(predicate: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting in the browser"
        time.sleep(0.1)


def _shot(driver: Any, name: str, tmp: Path) -> None:
    folder = Path(os.environ.get("TURNPROC_WEB_SCREENSHOTS", tmp))
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / f"{name}.png"))


def test_browser_18xx_page_draws_its_map_and_market(
    site: Site, browser: Any, tmp_path: Path
) -> None:
    with _served(site.engine, site.settings) as base:
        browser.get(f"{base}/")
        browser.find_element("link text", "recorded").click()
        _wait(lambda: browser.find_elements("css selector", "figure.map img"))
        image = browser.find_element("css selector", "figure.map img")
        _wait(
            lambda: browser.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth > 0", image
            )
        )
        market = browser.find_element("css selector", ".market svg")
        assert market.size["width"] > 500
        assert len(browser.find_elements("css selector", "ul.log li")) > 50
        browser.find_element("css selector", "figure.map button[data-zoom='in']").click()
        assert "scale(1.5)" in browser.execute_script("return arguments[0].style.transform", image)
        _shot(browser, "g18xx", tmp_path)


def test_browser_18xx_move_form_moves(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.select import Select

    engine, settings, game_id = _fresh_ms(tmp_path, "browser")
    me = _link(engine, settings, game_id, 3)
    with _served(engine, settings) as base:
        browser.get(base + me)
        choice = Select(browser.find_element("id", "choice"))
        offered = [str(o.get_attribute("value") or "") for o in choice.options]
        offered = [value for value in offered if value]
        assert offered and "PASS" not in offered
        choice.select_by_value(offered[-1])
        browser.find_element("id", "secret").send_keys(MS_SEATS[3][1])
        browser.find_element("css selector", "button[value='submit']").click()
        _wait(lambda: browser.find_elements("css selector", "#submitted, #refusal"))
        assert browser.find_elements("css selector", "#submitted[data-verdict='accepted']")
        _shot(browser, "g18xx-moved", tmp_path)
    moves = _moves(engine)
    assert len(moves) == 1 and moves[0][1] == 3


def test_the_form_offers_the_tile_lays_the_rules_allow() -> None:
    """In a recorded 18MS game, at each tile lay its players made that the
    engine takes as a LAY order: that lay is among the moves offered, and the
    engine takes every move offered there."""
    import copy

    from tests.g18xx_fixtures import load_recorded
    from turnproc.families.g18xx.engine.actions import parse_action
    from turnproc.families.g18xx.engine.game import ActionRefused
    from turnproc.families.g18xx.engine.game import Game as Engine18xx
    from turnproc.families.g18xx.orders import parse_order
    from turnproc.families.g18xx.replay import RECORDED_OPTIONS, standing_actions
    from turnproc.families.g18xx.titles.load import new_game
    from turnproc.web.play18xx import legal_orders

    def taken(game: Engine18xx, player: int, line: str) -> bool:
        trial = copy.deepcopy(game, {id(game.title): game.title, id(game.rules): game.rules})
        try:
            trial.apply(parse_order(trial, player, line)[0])
        except (ValueError, KeyError, ActionRefused):
            return False
        return True

    data = load_recorded("18MS/14375.json")
    game = new_game("18MS", [p["id"] for p in data["players"]], RECORDED_OPTIONS.get("18MS", {}))
    game.recorded_revenue_stands = True
    checked = 0
    for action in standing_actions(data["actions"])[:120]:
        player = game.to_move()
        if action["type"] == "lay_tile" and player is not None:
            tile = action["tile"].rpartition("-")[0]
            made = f"LAY {tile} {action['hex']} {action['rotation']}"
            if taken(game, player, made):
                offered = list(legal_orders(game, player))
                assert made in offered, offered
                assert all(taken(game, player, line) for line in offered)
                checked += 1
        game.apply_unchecked(parse_action(action))
    assert checked >= 3
