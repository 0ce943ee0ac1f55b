"""An 18xx player's move form in an operating round (docs/web.md): it offers
the moves his "your move" mail lists, no other, the tile lays hex by hex
(pick a hex, see its tiles in each rotation); a lay made through the form is
the same move as the same lay by mail; in Chromium, a player picks a hex on
his map and a rotation and his lay is applied; the PDF of his "your move"
mail lists the same lays in its table "Your tile lays now".

The game is a new 18MS game played to its first operating round by the
moderator's `18xx move` (sequential.intake.moderator_move): the privates
drafted, three companies floated."""

import html
import re
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from tests.test_web_18xx import (
    MS_SEATS,
    _fresh_ms,
    _link,
    _moves,
    _position,
    _served,
    _shot,
    chromium,
)
from turnproc.config import Settings
from turnproc.families.g18xx.engine.game import Game as Engine18xx
from turnproc.families.g18xx.moves import alternatives, legal, legal_moves
from turnproc.store import g18xx as store
from turnproc.store.db import open_database
from turnproc.web import keys
from turnproc.web.app import create_app


def _stock_order(game: Engine18xx, player: int, orders: list[str]) -> str:
    """Par a company of one's own, then buy its shares until it floats."""
    if not any(game.percent_of(player, c) for c in game.companies):
        return next(o for o in orders if o.startswith("PAR "))
    mine = [o for o in orders if o.startswith("BUY ") and o.endswith(" IPO")]
    mine = [o for o in mine if game.percent_of(player, o.split()[1])]
    return mine[0] if mine else "PASS"


@pytest.fixture(scope="module")
def at_first_lay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database file of an 18MS game at its first operating turn."""
    from turnproc.sequential.intake import moderator_move

    tmp = tmp_path_factory.mktemp("lays")
    engine, _, _ = _fresh_ms(tmp, "played")
    while True:
        with Session(engine) as session, session.begin():
            game = store.load(session, "ms").game
            player = game.to_move()
            assert player is not None
            if game.round == "operating":
                break
            orders = legal_moves(game, player).orders()
            order = _stock_order(game, player, orders) if game.round == "stock" else orders[0]
            moderator_move(session, "ms", player, order, keys.utcnow())
    engine.dispose()
    return tmp / "played.db"


def _copy(source: Path, tmp_path: Path, label: str) -> tuple[Engine, Settings, int]:
    target = tmp_path / f"{label}.db"
    shutil.copyfile(source, target)
    url = f"sqlite:///{target}"
    settings = Settings(
        database_url=url, web_secret_key="t" * 40, mail_from="moderator@example.org"
    )
    engine = open_database(url)
    with Session(engine) as session:
        row = store.load(session, "ms").row
        game_id = row.game_id
    assert game_id is not None
    return engine, settings, game_id


def _engine_game(engine: Engine) -> Engine18xx:
    with Session(engine) as session:
        return store.load(session, "ms").game


def _offered(page: str) -> list[str]:
    """The orders the page's form offers: options of the moves list and
    the tile lays' radio buttons."""
    options = re.findall(r'<option value="([^"]+)">', page)
    lays = re.findall(r'<input type="radio" name="lay" value="([^"]+)">', page)
    hexes = set(re.findall(r'<select id="lay-hex">(.*?)</select>', page, re.S)[0].split('"'))
    return [html.unescape(o) for o in options + lays if o not in hexes]


def test_the_form_offers_what_the_mail_lists_and_only_that(
    at_first_lay: Path, tmp_path: Path
) -> None:
    engine, settings, game_id = _copy(at_first_lay, tmp_path, "offer")
    game = _engine_game(engine)
    player = game.to_move()
    assert player is not None and game.round == "operating"
    listed = legal_moves(game, player)
    assert any(line.startswith("LAY ") for line in listed.text().split("\n  "))
    mailed = {
        order for _, lines in listed.sections for line in lines for order in alternatives(line)
    }
    with TestClient(create_app(engine, settings), raise_server_exceptions=False) as client:
        page = client.get(_link(engine, settings, game_id, player)).text
    offered = _offered(page)
    assert offered and len(offered) == len(set(offered))
    assert set(offered) == mailed  # every order the mail lists, no other
    assert all(legal(game, player, order) for order in offered)
    # pick a hex, see its tiles: the tile lays are grouped by hex, each
    # rotation drawn, and none of them is in the list of other moves
    hexes = re.findall(r'<div class="lay-hex" data-hex="([^"]+)">', page)
    lays = [o for o in offered if o.startswith("LAY ")]
    assert hexes and {lay.split()[2] for lay in lays} == set(hexes)
    # his map outlines those hexes, each a polygon that picks it
    assert re.findall(r'<polygon class="pick" data-hex="([^"]+)"', page) == hexes
    assert page.count('<svg class="tile"') == len(lays)
    choice = page.split('<select id="choice"', 1)[1].split("</select>", 1)[0]
    assert "LAY " not in choice and "DONE" in choice


def test_a_lay_made_on_the_web_equals_the_same_lay_by_mail(
    at_first_lay: Path, tmp_path: Path
) -> None:
    from turnproc.mail.inbound import ingest

    web_engine, settings, game_id = _copy(at_first_lay, tmp_path, "web")
    mail_engine, _, _ = _copy(at_first_lay, tmp_path, "mail")
    player = _engine_game(web_engine).to_move()
    assert player is not None
    me = _link(web_engine, settings, game_id, player)
    before = len(_moves(web_engine))
    with TestClient(create_app(web_engine, settings), raise_server_exceptions=False) as client:
        page = client.get(me).text
        lays = re.findall(r'<input type="radio" name="lay" value="([^"]+)">', page)
        lay = html.unescape(lays[-1])
        fields = dict(re.findall(r'name="(form_id|csrf)" value="([^"]*)"', page))
        data = {**fields, "lay": lay, "secret": MS_SEATS[player][1], "action": "submit"}
        done = client.post(me, data=data)
        assert 'data-verdict="accepted"' in done.text, done.text[-3000:]
    head = re.search(r"<code>(TURNSHEET [^<]+)</code>", page)
    assert head is not None
    sheet_head = head.group(1).replace("secret: _", "secret: ").rstrip("_")
    mail = EmailMessage()
    mail["From"] = MS_SEATS[player][0]
    mail["To"] = "moderator@example.org"
    mail["Subject"] = "my move"
    mail["Message-ID"] = "<lay-1@example.org>"
    mail.set_content(
        f"{sheet_head.split(' secret:')[0]} secret: {MS_SEATS[player][1]}\n{lay}\nEND\n"
    )
    outcome = ingest(mail_engine, mail.as_bytes(), "test", keys.utcnow())
    assert outcome.verdict == "accepted", outcome
    web, mailed = _moves(web_engine), _moves(mail_engine)
    assert web == mailed and len(web) > before
    assert '"lay_tile"' in web[before][0]
    assert _position(web_engine) == _position(mail_engine)


def test_browser_picks_a_hex_then_a_tile_in_a_rotation(
    browser: Any, at_first_lay: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.support.select import Select

    engine, settings, game_id = _copy(at_first_lay, tmp_path, "browser")
    player = _engine_game(engine).to_move()
    assert player is not None
    before = len(_moves(engine))
    with _served(engine, settings) as base:
        browser.get(base + _link(engine, settings, game_id, player))
        hexes = browser.find_elements("css selector", ".lay-hex")
        assert hexes and not any(h.is_displayed() for h in hexes)  # until a hex is picked
        pick = Select(browser.find_element("id", "lay-hex"))
        target = str(pick.options[-1].get_attribute("value"))
        # on his map, the hexes of his lays are outlined: a click picks one
        outlined = browser.find_elements("css selector", "svg.lay-map polygon.pick")
        assert {str(p.get_attribute("data-hex")) for p in outlined} == {
            str(o.get_attribute("value")) for o in pick.options[1:]
        }
        next(p for p in outlined if p.get_attribute("data-hex") == target).click()
        assert pick.first_selected_option.get_attribute("value") == target
        shown = [h for h in hexes if h.is_displayed()]
        assert [h.get_attribute("data-hex") for h in shown] == [target]
        _shot(browser, "g18xx-lay-map", tmp_path)
        rotations = shown[0].find_elements("css selector", "label.rotation")
        assert rotations and all(
            r.find_element("tag name", "svg").size["width"] > 40 for r in rotations
        )
        rotations[-1].click()
        chosen = str(rotations[-1].find_element("tag name", "input").get_attribute("value"))
        assert chosen.startswith("LAY ") and f" {target} " in chosen
        _shot(browser, "g18xx-lay-picked", tmp_path)
        browser.find_element("id", "secret").send_keys(MS_SEATS[player][1])
        browser.find_element("css selector", "button[value='submit']").click()
        _wait_for(browser, "#submitted, #refusal")
        assert browser.find_elements("css selector", "#submitted[data-verdict='accepted']")
        _shot(browser, "g18xx-lay-made", tmp_path)
    made = _moves(engine)[before][0]
    tile, hex_name, rotation = chosen.split()[1:]
    assert f'"hex": "{hex_name}"' in made and f'"rotation": {rotation}' in made
    assert f'"tile": "{tile}-' in made


def _wait_for(browser: Any, selector: str) -> None:
    from tests.test_web_18xx import _wait

    _wait(lambda: browser.find_elements("css selector", selector))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def test_the_your_move_pdf_lists_the_same_lays_as_the_form(
    at_first_lay: Path, tmp_path: Path
) -> None:
    """The "your move" mail of the president to move carries the PDF whose
    table "Your tile lays now" gives each hex the form offers, with its tiles
    and their rotations."""
    from sqlalchemy import select

    from tests.mail_players import pdf_text
    from turnproc.store.models import OutboxMessage
    from turnproc.web.play18xx import form_choices

    engine, _, _ = _copy(at_first_lay, tmp_path, "pdf")
    game = _engine_game(engine)
    player = game.to_move()
    assert player is not None
    with Session(engine) as session:
        mails = session.scalars(
            select(OutboxMessage)
            .where(
                OutboxMessage.kind == "your-move", OutboxMessage.to_address == MS_SEATS[player][0]
            )
            .order_by(OutboxMessage.id)
        ).all()
    assert mails and mails[-1].pdf is not None
    text = pdf_text(mails[-1].pdf)
    assert "Your tile lays now" in text
    track = form_choices(game, player).track
    assert track
    for hex_choice in track:
        tiles = ", ".join(
            f"{t.tile} ({', '.join(str(r.rotation) for r in t.rotations)})"
            for t in hex_choice.tiles
        )
        assert re.search(rf"{hex_choice.hex}\b.*{re.escape(tiles)}", text), (tiles, text[-800:])
