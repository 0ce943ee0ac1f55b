"""The games' web pages (docs/web.md): what they show, what they keep private,
and the order form going through the mail intake. The game is real: made by
`game new` with three human players (one with a hostile name), two turns run
by `turn run` with the real engine and renderer, and a PRESS announcement
with markup mailed in between. The last tests drive Debian's chromium
through its chromedriver."""

import hashlib
import html
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from turnproc.cli import main
from turnproc.config import Settings, load_settings
from turnproc.core.palette import PALETTE
from turnproc.mail.inbound import ingest
from turnproc.pipeline import links
from turnproc.pipeline.links import player_url
from turnproc.store import repository as repo
from turnproc.store.db import open_database
from turnproc.store.models import OrdersInForce, OutboxMessage, Submission
from turnproc.web import keys, orders
from turnproc.web.app import Web, create_app
from turnproc.web.limits import Limit, RateLimiter

GAME = "webtest"
HOSTILE = "<img src=x onerror=alert(1)> & Co"
PRESS = "<b>Buy NYC!</b> <script>alert('press')</script>"
PLAYERS = f"""position,character,real_name,email,secret
1,"{HOSTILE}",<i>Ann</i>,ann@example.org,ann-secret-1841
2,Jay Gould,Bob,bob@example.org,bob-secret-1842
3,Henry Plant,Cy,cy@example.org,cy-secret-1843
"""
SECRETS = {1: "ann-secret-1841", 2: "bob-secret-1842", 3: "cy-secret-1843"}


@dataclass
class World:
    engine: Engine
    settings: Settings
    game_id: int
    tmp: Path

    def link(self, position: int, base: str = "http://testserver", days: int = 30) -> str:
        with Session(self.engine) as session:
            player = repo.get_player(session, self.game_id, position)
            settings = replace(self.settings, web_link_days=days)
            return player_url(settings, base, self.game_id, player, keys.utcnow())

    def count(self, model: Any, **where: Any) -> int:
        with Session(self.engine) as session:
            query = select(func.count()).select_from(model)
            for name, value in where.items():
                query = query.where(getattr(model, name) == value)
            return int(session.scalar(query) or 0)

    def available_pc(self) -> tuple[str, int]:
        """A PC anyone may bid for now, and its asking price."""
        with Session(self.engine) as session:
            game = repo.get_game(session, self.game_id)
            state, _ = orders.live_state(session, game)
        for code, pc in sorted(state.pcs.items()):
            if pc.status == "available" and pc.asking_price > 10:
                return code, pc.asking_price
        raise AssertionError("no PC is available in the test game")


def _press(engine: Engine) -> None:
    message = EmailMessage()
    message["From"] = "ann@example.org"
    message["To"] = "moderator@example.org"
    message["Subject"] = "press"
    message["Message-ID"] = "<press-1@example.org>"
    message.set_content(f"PRESS game: {GAME} player: 1 secret: {SECRETS[1]}\n{PRESS}\nEND\n")
    outcome = ingest(engine, message.as_bytes(), "test", keys.utcnow())
    assert outcome.verdict == "press", outcome


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from build_world(tmp_path_factory)


def build_world(tmp_path_factory: pytest.TempPathFactory, turns: int = 2) -> Iterator[World]:
    """The test game (the module docstring), in a fresh database of its own,
    after `turns` turns (the press mailed during the second)."""
    tmp = tmp_path_factory.mktemp("web")
    env = {
        "TURNPROC_DATABASE_URL": f"sqlite:///{tmp / 'web.db'}",
        "TURNPROC_WEB_URL": "http://testserver",
        "TURNPROC_WEB_KEY_FILE": str(tmp / "web.key"),
        "TURNPROC_MAIL_FROM": "moderator@example.org",
        "TURNPROC_CONFIG": str(tmp / "absent.toml"),
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        (tmp / "players.csv").write_text(PLAYERS, encoding="utf-8")
        new = ["game", "new", "--scenario", "continental-rails", "--name", GAME, "--seed", "5"]
        assert main([*new, "--players", str(tmp / "players.csv")]) == 0
        assert main(["turn", "run", GAME, "--force", "--accept-missing"]) == 0
        engine = open_database(env["TURNPROC_DATABASE_URL"])
        _press(engine)
        for _ in range(1, turns):
            assert main(["turn", "run", GAME, "--force", "--accept-missing"]) == 0
        with Session(engine) as session:
            game_id = repo.get_game(session, GAME).id
        yield World(engine, load_settings(), game_id, tmp)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _app(world: World, **limits: Limit) -> Any:
    web = Web(world.engine, world.settings, keys.signing_key(world.settings))
    for name, limit in limits.items():
        setattr(web, name, RateLimiter(limit))
    return create_app(world.engine, world.settings, web)


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(_app(world)) as test_client:
        yield test_client


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def _form(html: str) -> dict[str, str]:
    fields = dict(re.findall(r'name="(form_id|csrf)" value="([^"]*)"', html))
    assert set(fields) == {"form_id", "csrf"}, "the order form is missing"
    return fields


# --- public pages ----------------------------------------------------------------------


def test_pages_escape_hostile_names_and_send_security_headers(
    world: World, client: TestClient
) -> None:
    for path in ("/", f"/games/{world.game_id}", f"/games/{world.game_id}/turns/2"):
        page = client.get(path)
        assert page.status_code == 200, path
        assert "<img src=x" not in page.text, path
        assert "&lt;img src=x onerror=alert(1)&gt; &amp; Co" in page.text, path
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "same-origin"
        assert page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in client.get(f"/games/{world.game_id}").text.split("</head>")[1]


def test_game_page_shows_charts_map_news_and_the_press_literally(
    world: World, client: TestClient
) -> None:
    page = client.get(f"/games/{world.game_id}").text
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 520 210"') == 8
    assert f"/games/{world.game_id}/map/2-0.svg" in page
    assert "Turn 2" in page and "Turn 1" in page
    assert "&lt;b&gt;Buy NYC!&lt;/b&gt; &lt;script&gt;alert(&#39;press&#39;)&lt;/script&gt;" in page
    assert "<b>Buy NYC!</b>" not in page


def test_map_svg_draws_every_railroad_in_its_colour(world: World, client: TestClient) -> None:
    svg = client.get(f"/games/{world.game_id}/map/2-0.svg")
    assert svg.status_code == 200
    assert svg.headers["content-type"].startswith("image/svg+xml")
    with Session(world.engine) as session:
        game = repo.get_game(session, world.game_id)
        from turnproc.web.pages import turn_view

        railroads = turn_view(session, game, 2).report.railroads
    assert railroads, "no railroad after two turns: the test shows nothing"
    for index, _ in enumerate(sorted(railroads, key=lambda rr: rr.number)):
        assert f'stroke="{PALETTE[index % len(PALETTE)]}"' in svg.text
    assert "<script" not in svg.text
    assert client.get(f"/games/{world.game_id}/map/9-0.svg").status_code == 404
    assert client.get(f"/games/{world.game_id}/map/2-7.svg").status_code == 404


def test_the_web_shows_the_map_pages_of_the_pdf_report(world: World, client: TestClient) -> None:
    """The continent (titled by what it shows), the north-east, and the
    south-east when lines or PCs for sale reach there, as in the PDF (9)."""
    from turnproc.families.continental_rails.report.maps import reaches_south_east
    from turnproc.web.pages import map_pages, map_views, turn_view

    base = f"/games/{world.game_id}/map"
    reached = {}
    with Session(world.engine) as session:
        game = repo.get_game(session, world.game_id)
        for turn in (0, 1, 2):
            report = turn_view(session, game, turn).report
            reached[turn] = reaches_south_east(map_pages(game.scenario).scenario, report)
        # No line and no PC for sale: the whole continent and the north-east only.
        nothing = report.model_copy(update={"pcs": [], "railroads": []})
        assert map_views(game.scenario, nothing) == [(0, "North America"), (1, "the north-east")]
    assert reached[2], "the lines and PCs for sale of turn 2 do not reach the south-east"
    page = client.get(f"/games/{world.game_id}").text
    assert [f"{base}/2-{n}.svg" for n in (0, 1, 2)] == re.findall(rf"{base}/2-\d\.svg", page)
    assert 'alt="Railroads: the south-east"' in page
    assert 'alt="Railroads: North America"' not in page  # the continent page is fitted
    south_east = client.get(f"{base}/2-2.svg")
    assert south_east.status_code == 200
    assert "<title>Map: the south-east, railroads at the end of turn 2</title>" in south_east.text
    assert "Savannah" in south_east.text and "Boston" not in south_east.text
    turn_page = client.get(f"/games/{world.game_id}/turns/2").text
    assert f"{base}/2-2.svg" in turn_page
    for turn, reaches in reached.items():
        status = client.get(f"{base}/{turn}-2.svg").status_code
        assert status == (200 if reaches else 404), turn
    assert client.get(f"{base}/2-3.svg").status_code == 404
    # A player's page links his own map pages, the south-east among them.
    bob = _path(world.link(2))
    links = re.findall(rf"{bob}/map/2-\d\.svg", client.get(bob).text)
    assert links == [f"{bob}/map/2-{n}.svg" for n in (0, 1, 2)]
    own = client.get(links[2])
    assert own.status_code == 200
    assert "the south-east, railroads at the end of turn 2, your lines on a yellow band" in own.text


# --- a player's own page ------------------------------------------------------------------


def test_welcome_and_report_mail_carry_a_working_link(world: World, client: TestClient) -> None:
    with Session(world.engine) as session:
        mail = [m for m in repo.outbox(session, world.game_id) if m.to_address == "bob@example.org"]
    kinds = {m.kind for m in mail if "http://testserver/play/" in m.body}
    assert {"welcome", "report"} <= kinds
    url = re.search(r"http://testserver/play/\S+", mail[-1].body)
    assert url is not None
    page = client.get(_path(url.group(0)))
    assert page.status_code == 200
    assert "player 2 of webtest" in page.text
    assert page.headers["cache-control"] == "no-store"


def test_a_link_opens_its_own_players_page_and_nothing_else(
    world: World, client: TestClient
) -> None:
    bob = _path(world.link(2))
    with Session(world.engine) as session:
        ann_report = repo.get_report(session, world.game_id, 2, 1)
        bob_report = repo.get_report(session, world.game_id, 2, 2)
    assert ann_report is not None and bob_report is not None
    ann_private = next(line for line in ann_report.text.splitlines() if "player #1" in line)
    page = client.get(bob).text
    assert "Report for Jay Gould" in page
    assert ann_private not in page
    # Bob's link with the position changed to Ann's: the signature no longer holds.
    body, mac = bob.rsplit("/", 1)[1].split(".")
    payload = links.unb64(body).decode().split(".")
    payload[2] = "1"
    forged = links.b64(".".join(payload).encode()) + "." + mac
    refused = client.get(f"/play/{forged}")
    assert refused.status_code == 404
    assert ann_private not in refused.text and HOSTILE not in refused.text
    assert client.get(f"/play/{forged}/report/2.pdf").status_code == 404
    pdf = client.get(f"{bob}/report/2.pdf")
    # The stored report keeps the PDF's digest; the page renders it again, byte for byte.
    assert pdf.status_code == 200
    assert hashlib.sha256(pdf.content).hexdigest() == bob_report.pdf_sha256


def test_expired_and_stale_links_are_refused(world: World, client: TestClient) -> None:
    assert client.get(_path(world.link(3, days=-1))).status_code == 404
    key = keys.signing_key(world.settings)
    stale = keys.fingerprint("scrypt$an-earlier-secret", "cy@example.org")
    token = keys.make_token(key, world.game_id, 3, stale, keys.utcnow(), 30)
    assert client.get(f"/play/{token}").status_code == 404
    assert client.get("/play/not-a-token").status_code == 404


def test_check_shows_errors_and_never_checks_another_position(
    world: World, client: TestClient
) -> None:
    bob = _path(world.link(2))
    fields = _form(client.get(bob).text)
    pc, price = world.available_pc()
    low = f"TURNSHEET game: {GAME} turn: 3 player: 2\nBID {pc} {price - 10}\n"
    shown = client.post(f"{bob}/check", data={**fields, "sheet": low})
    assert shown.status_code == 200
    assert "BELOW_MINIMUM" in shown.text and "Cash walk" in shown.text
    theirs = f"TURNSHEET game: {GAME} turn: 3 player: 1\nBID {pc} {price}\n"
    shown = client.post(f"{bob}/check", data={**fields, "sheet": theirs})
    assert "headed for player 1; you are player 2" in shown.text
    assert "Cash walk" not in shown.text and "Credit available" not in shown.text


def test_the_form_needs_its_csrf_token_cookie_and_origin(world: World, client: TestClient) -> None:
    bob = _path(world.link(2))
    fields = _form(client.get(bob).text)
    sheet = {"sheet": f"TURNSHEET game: {GAME} turn: 3 player: 2\n"}
    assert client.post(f"{bob}/check", data={**fields, **sheet}).status_code == 200
    bad = {**fields, "csrf": fields["csrf"][:-2] + "AA"}
    assert client.post(f"{bob}/check", data={**bad, **sheet}).status_code == 400
    evil = client.post(
        f"{bob}/check", data={**fields, **sheet}, headers={"origin": "http://evil.example"}
    )
    assert evil.status_code == 400
    with TestClient(_app(world)) as stranger:  # no cookie: another browser
        assert stranger.post(f"{bob}/check", data={**fields, **sheet}).status_code == 400
    before = world.count(Submission)
    assert client.post(bob, data={**bad, **sheet, "secret": SECRETS[2]}).status_code == 400
    assert world.count(Submission) == before


def test_submit_goes_through_the_mail_intake_once(world: World, client: TestClient) -> None:
    bob = _path(world.link(2))
    fields = _form(client.get(bob).text)
    pc, price = world.available_pc()
    sheet = f"TURNSHEET game: {GAME} turn: 3 player: 2 secret: ____\nBID {pc} {price}\nEND\n"
    data = {**fields, "sheet": sheet, "secret": SECRETS[2], "action": "submit"}
    done = client.post(bob, data=data)
    assert done.status_code == 200
    assert 'data-verdict="accepted"' in done.text
    assert SECRETS[2] not in done.text
    with Session(world.engine) as session:
        row = repo.orders_row(session, world.game_id, 3, 2)
        assert row is not None and row.source == "player" and row.submission_id is not None
        submission = repo.get_submission(session, row.submission_id)
        assert submission is not None and submission.verdict == "accepted"
        assert (
            submission.message_id == f"<{fields['form_id']}.{world.game_id}.2@{orders.WEB_DOMAIN}>"
        )
        receipts = [
            m
            for m in repo.outbox(session, world.game_id)
            if m.kind == "receipt" and m.to_address == "bob@example.org"
        ]
    assert receipts and receipts[-1].subject.startswith(f"[{GAME}] OK: turnsheet accepted")
    # The same form again (a replayed request): a duplicate, taken once.
    count = world.count(Submission)
    again = client.post(bob, data=data)
    assert 'data-verdict="duplicate"' in again.text
    assert world.count(Submission) == count
    assert world.count(OrdersInForce, game_id=world.game_id, turn=3, position=2) == 1


def test_wrong_secrets_are_refused_then_the_form_stops_taking_sheets(world: World) -> None:
    with TestClient(_app(world)) as client:
        cy = _path(world.link(3))
        sheet = f"TURNSHEET game: {GAME} turn: 3 player: 3\n"
        verdicts = []
        for attempt in range(6):
            fields = _form(client.get(cy).text)
            data = {**fields, "sheet": sheet, "secret": f"guess-{attempt}", "action": "submit"}
            page = client.post(cy, data=data).text
            verdicts.append(re.search(r'data-verdict="(\w+)"', page).group(1))  # type: ignore[union-attr]
        refused = world.count(Submission, game_id=world.game_id, position=3, verdict="refused")
    assert verdicts == ["refused"] * 6
    assert refused == 5, "the sixth guess must not reach the intake"
    assert "wrong secret" not in page and "too many refused" in page


def test_requests_are_bounded_and_rate_limited(world: World) -> None:
    with TestClient(_app(world, checks=Limit(3, 60))) as client:
        bob = _path(world.link(2))
        fields = _form(client.get(bob).text)
        huge = client.post(f"{bob}/check", data={**fields, "sheet": "x" * 200_000})
        assert huge.status_code == 413
        sheet = {"sheet": f"TURNSHEET game: {GAME} turn: 3 player: 2\n"}
        codes = [
            client.post(f"{bob}/check", data={**fields, **sheet}).status_code for _ in range(4)
        ]
        assert codes == [200, 200, 200, 400]


# --- in a real browser: Debian's chromium and chromedriver --------------------------------

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def browser_site(world: World) -> Iterator[tuple[Any, str]]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        if os.environ.get("TURNPROC_REQUIRE_CHROMIUM"):
            pytest.fail("chromium and chromium-driver are required here (apt-get install)")
        pytest.skip("needs Debian's chromium and chromium-driver")
    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(_app(world), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + BROWSER_WAIT_S
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start"
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(BROWSER_WAIT_S)
    try:
        yield driver, f"http://127.0.0.1:{port}"
    finally:
        driver.quit()
        server.should_exit = True
        thread.join(timeout=10)


# How long the browser tests wait for the server or a page to show something:
# a bound for what never comes, far beyond what a machine busy with other
# work needs, not a speed.
BROWSER_WAIT_S = 180.0


def _wait(predicate: Any, seconds: float = BROWSER_WAIT_S) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting in the browser"
        time.sleep(0.1)


def _shot(driver: Any, world: World, name: str) -> None:
    folder = Path(os.environ.get("TURNPROC_WEB_SCREENSHOTS", world.tmp))
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / f"{name}.png"))


def test_browser_game_page_renders_its_map_and_charts(
    world: World, browser_site: tuple[Any, str]
) -> None:
    driver, site = browser_site
    driver.get(f"{site}/games/{world.game_id}")
    maps = driver.find_elements("css selector", "figure.map img")
    assert len(maps) == 3  # the continent, the north-east and the south-east
    _wait(
        lambda: all(
            driver.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth > 0", img
            )
            for img in maps
        )
    )
    charts = driver.find_elements("css selector", "svg.chart")
    assert len(charts) == 8 and all(c.size["width"] > 200 for c in charts)
    assert driver.find_elements("css selector", "svg.chart polyline")
    driver.find_element("css selector", "figure.map button[data-zoom='in']").click()
    transform = driver.execute_script("return arguments[0].style.transform", maps[0])
    assert "scale(1.5)" in transform
    _shot(driver, world, "game")


def test_browser_press_with_markup_shows_literally(
    world: World, browser_site: tuple[Any, str]
) -> None:
    driver, site = browser_site
    driver.get(f"{site}/games/{world.game_id}/turns/2")
    quotes = driver.find_elements("css selector", "blockquote.press p.text")
    assert [q.text for q in quotes] == [PRESS]
    assert not driver.find_elements("css selector", "blockquote.press b, blockquote.press script")
    assert driver.execute_script("return document.querySelectorAll('img[src=x]').length") == 0
    _shot(driver, world, "turn")


def test_browser_form_shows_a_below_minimum_bid_before_submitting(
    world: World, browser_site: tuple[Any, str]
) -> None:
    from selenium.webdriver.common.keys import Keys

    driver, site = browser_site
    driver.get(site + _path(world.link(1)))
    pc, price = world.available_pc()
    before = world.count(Submission)
    sheet = driver.find_element("id", "sheet")
    sheet.send_keys(Keys.CONTROL, "a")
    sheet.send_keys(Keys.DELETE)
    sheet.send_keys(f"TURNSHEET game: {GAME} turn: 3 player: 1\nBID {pc} {price // 2}\n")
    panel = driver.find_element("id", "check")
    _wait(lambda: "BELOW_MINIMUM" in panel.text)
    assert f"asking price of {pc}" in panel.text
    assert world.count(Submission) == before, "the check must store nothing"
    _shot(driver, world, "form-error")


def test_browser_submitted_sheet_is_in_force_with_a_receipt_queued(
    world: World, browser_site: tuple[Any, str]
) -> None:
    from selenium.webdriver.common.keys import Keys

    driver, site = browser_site
    driver.get(site + _path(world.link(1)))
    pc, price = world.available_pc()
    sheet = driver.find_element("id", "sheet")
    sheet.send_keys(Keys.CONTROL, "a")
    sheet.send_keys(Keys.DELETE)
    sheet.send_keys(f"TURNSHEET game: {GAME} turn: 3 player: 1\nBID {pc} {price}\nEND\n")
    panel = driver.find_element("id", "check")
    _wait(lambda: "would be accepted" in panel.text)
    driver.find_element("id", "secret").send_keys(SECRETS[1])
    driver.find_element("css selector", "button[value='submit']").click()
    _wait(lambda: driver.find_elements("css selector", "#submitted, #refusal"))
    assert driver.find_elements("css selector", "#submitted[data-verdict='accepted']"), (
        driver.find_element("css selector", "#orders").get_attribute("innerHTML")[:3000]
    )
    with Session(world.engine) as session:
        row = repo.orders_row(session, world.game_id, 3, 1)
        assert row is not None and row.source == "player"
        receipt = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "receipt", OutboxMessage.to_address == "ann@example.org"
            )
        ).all()
    assert receipt and receipt[-1].status == "queued"
    assert f"BID {pc} {price}" in receipt[-1].body
    _shot(driver, world, "form-submitted")


def test_browser_another_players_link_cannot_read_this_players_page(
    world: World, browser_site: tuple[Any, str]
) -> None:
    driver, site = browser_site
    bob = world.link(2, base=site)
    body, mac = bob.rsplit("/", 1)[1].split(".")
    payload = links.unb64(body).decode().split(".")
    payload[2] = "1"
    driver.get(f"{site}/play/{links.b64('.'.join(payload).encode())}.{mac}")
    assert "not valid" in driver.page_source
    assert "player 1 of" not in driver.page_source
    driver.get(bob)
    assert "player 2 of webtest" in driver.page_source
    assert "Report for Jay Gould" in driver.find_element("css selector", "pre.report").text
    _shot(driver, world, "player")


def test_the_web_bench_loads_a_stored_game_page() -> None:
    from turnproc.web.bench import bench_web

    figures = bench_web("continental-rails", 1, runs=1, turns=3)
    assert set(figures) == {
        "web_game_page_s",
        "web_game_page_cpu_s",
        "web_game_page_cold_s",
        "web_game_page_cold_cpu_s",
    }
    assert all(value > 0 for value in figures.values())


def test_a_family_brings_its_own_sections(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from jinja2 import ChoiceLoader, DictLoader

    from turnproc.web import sections

    whose_move = sections.Section(
        "Whose move", "whose_move.html", lambda _session, game, player: {"who": "<b>Jay</b>"}
    )
    monkeypatch.setitem(sections.FAMILY_SECTIONS, "continental-rails", [whose_move])
    web = Web(world.engine, world.settings, keys.signing_key(world.settings))
    assert web.templates.loader is not None
    web.templates.loader = ChoiceLoader(
        [
            DictLoader({"sections/whose_move.html": "<p id=move>{{ ctx.who }} moves</p>"}),
            web.templates.loader,
        ]
    )
    with TestClient(create_app(world.engine, world.settings, web)) as client:
        for path in (f"/games/{world.game_id}", _path(world.link(2))):
            page = client.get(path).text
            assert '<section id="whose_move">' in page and "<h2>Whose move</h2>" in page
            assert "<p id=move>&lt;b&gt;Jay&lt;/b&gt; moves</p>" in page


def test_the_check_button_works_without_script(world: World, client: TestClient) -> None:
    bob = _path(world.link(2))
    fields = _form(client.get(bob).text)
    pc, price = world.available_pc()
    sheet = f"TURNSHEET game: {GAME} turn: 3 player: 2\nBID {pc} {price - 10}\n"
    before = world.count(Submission)
    page = client.post(bob, data={**fields, "sheet": sheet, "action": "check"})
    assert page.status_code == 200
    assert "BELOW_MINIMUM" in page.text
    assert html.escape(f"BID {pc} {price - 10}") in page.text  # the sheet stays as typed
    assert world.count(Submission) == before
    assert client.get(f"/games/{world.game_id}/turns/3").status_code == 404
    assert client.get("/games/999").status_code == 404


def test_an_18xx_game_page_says_whose_move_it_is(tmp_path: Path) -> None:
    from tests.g18xx_fixtures import load_recorded
    from turnproc.store import g18xx as store

    data = load_recorded("18MS/14375.json")
    url = f"sqlite:///{tmp_path / 'g18xx.db'}"
    engine = open_database(url)
    with Session(engine) as session, session.begin():
        row = store.import_recorded(session, data, "ms <b>1</b>", keys.utcnow(), upto=40)
        game_id = row.id
        game = store.load(session, row.name).game
        who = game.to_move()
    assert who is not None
    name = next(str(p.get("name") or p["id"]) for p in data["players"] if p["id"] == who)
    settings = Settings(database_url=url, web_secret_key="t" * 40)
    with TestClient(create_app(engine, settings)) as client:
        index = client.get("/").text
        assert f'<a href="/18xx/{game_id}">ms &lt;b&gt;1&lt;/b&gt;</a>' in index
        assert html.escape(name) in index
        page = client.get(f"/18xx/{game_id}").text
        assert "<h2>Whose move it is</h2>" in page
        assert f'<p class="to-move"><b>{html.escape(name)}</b>' in page
        assert client.get(f"/18xx/{game_id + 1}").status_code == 404
