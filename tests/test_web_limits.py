"""The web server under hostile and heavy use (docs/web.md, "Safe by default"
and "Limits"): submissions that do not fork and never answer "database is
locked" as a server error, refusals counted per sender, bounded ids, bodies
and redirects, reads that never take SQLite's write lock, caches and limits
on the heavy pages, a games index paginated with a fixed number of queries,
and slow clients that cannot take the server down (real sockets)."""

import os
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from tests.store_support import fresh_database
from tests.test_web import GAME, SECRETS, World, _app, _form, _path, build_world
from turnproc.config import Settings
from turnproc.mail.inbound import ingest
from turnproc.store import repository as repo
from turnproc.store.db import create_db_engine, open_database
from turnproc.store.models import Game, Player, Submission
from turnproc.web import keys
from turnproc.web.app import Web, create_app
from turnproc.web.index import PER_PAGE
from turnproc.web.serve import PER_CLIENT, Guards, server_config


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from build_world(tmp_path_factory)


def _client(app: Any, address: str = "testclient") -> TestClient:
    return TestClient(app, raise_server_exceptions=False, client=(address, 50000))


def _sqlite_path(world: World) -> str:
    database = world.engine.url.database
    assert database is not None
    return database


@contextmanager
def write_lock(world: World) -> Iterator[None]:
    """Another process's writer holding SQLite's write lock (a turn run, a mail
    ingest) for as long as the block runs."""
    other = sqlite3.connect(_sqlite_path(world), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def _impatient(world: World) -> Any:
    """The test world's application over an engine that waits for SQLite's
    lock a fifth of a second, not thirty: a locked database shows at once."""
    engine = create_db_engine(str(world.engine.url))

    @event.listens_for(engine, "connect")
    def _short_wait(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA busy_timeout=200")

    web = Web(engine, world.settings, keys.signing_key(world.settings))
    return create_app(engine, world.settings, web)


# --- bounded ids, redirects and bodies ------------------------------------------------------


def test_an_id_too_large_for_the_database_is_not_found(world: World) -> None:
    with _client(_app(world)) as client:
        for path in (
            "/games/99999999999999999999999",
            f"/games/{world.game_id}/turns/99999999999999999999999",
            "/games/99999999999999999999999/map/1-0.svg",
            "/18xx/99999999999999999999999",
        ):
            page = client.get(path)
            assert page.status_code == 404, path
            assert "Traceback" not in page.text


def test_a_redirect_never_names_the_host_the_request_gave(world: World) -> None:
    with _client(_app(world)) as client:
        page = client.get(
            f"/games/{world.game_id}/",
            headers={"host": "evil.example"},
            follow_redirects=False,
        )
    assert page.status_code in (308, 404)
    assert all("evil.example" not in value for value in page.headers.values())
    if page.status_code == 308:
        assert page.headers["location"] == f"/games/{world.game_id}"
    with _client(_app(world)) as client:
        page = client.get("//evil.example/", follow_redirects=False)
    assert not page.headers.get("location", "/").startswith("//")


def test_a_chunked_body_over_the_limit_is_413(world: World) -> None:
    with _client(_app(world)) as client:
        bob = _path(world.link(2))
        fields = _form(client.get(bob).text)

        def chunks() -> Iterator[bytes]:
            yield f"form_id={fields['form_id']}&csrf={fields['csrf']}&sheet=".encode()
            for _ in range(40):
                yield b"x" * 4096

        page = client.post(
            f"{bob}/check",
            content=chunks(),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
    assert page.status_code == 413


# --- submissions: no fork, no "database is locked" -------------------------------------------


def test_a_web_submission_does_not_fork(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork from the threaded server copies locks other threads hold; the
    child then waits on them for ever (docs/web.md: no fork)."""
    forks = []

    def no_fork() -> int:
        forks.append(1)
        raise AssertionError("the web server forked")

    monkeypatch.setattr(os, "fork", no_fork)
    with _client(_app(world)) as client:
        bob = _path(world.link(2))
        fields = _form(client.get(bob).text)
        sheet = f"TURNSHEET game: {GAME} turn: 3 player: 2\nEND\n"
        data = {**fields, "sheet": sheet, "secret": SECRETS[2], "action": "submit"}
        done = client.post(bob, data=data)
    assert forks == []
    assert done.status_code == 200 and 'data-verdict="accepted"' in done.text


def test_a_locked_database_is_busy_not_a_server_error(world: World) -> None:
    app = _impatient(world)
    bob = _path(world.link(2))
    before = world.count(Submission)
    with _client(app) as client, write_lock(world):
        page = client.get(bob)
        assert page.status_code == 200, "reading the page needs no write lock"
        fields = _form(page.text)
        sheet = f"TURNSHEET game: {GAME} turn: 3 player: 2\nEND\n"
        data = {**fields, "sheet": sheet, "secret": SECRETS[2], "action": "submit"}
        done = client.post(bob, data=data)
    assert done.status_code == 503
    assert done.headers.get("retry-after")
    assert "busy" in done.text and "submit it again" in done.text
    assert "locked" not in done.text and "Traceback" not in done.text
    assert world.count(Submission) == before  # nothing stored: sending again is safe


def test_reading_pages_never_takes_the_write_lock(world: World) -> None:
    app = _impatient(world)
    cy = _path(world.link(3))
    with _client(app) as client, write_lock(world):
        for path in (
            "/",
            f"/games/{world.game_id}",
            f"/games/{world.game_id}/turns/1",
            f"/games/{world.game_id}/map/1-1.svg",
            cy,
            cy + "/report/1.pdf",
            cy + "/map/1-0.svg",
        ):
            assert client.get(path).status_code == 200, path


# --- refusals per sender -----------------------------------------------------------------------


def _forged_sheet(position: int, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"stranger{number}@example.net"
    message["To"] = "moderator@example.org"
    message["Subject"] = "orders"
    message["Message-ID"] = f"<forged-{position}-{number}@example.net>"
    message.set_content(f"TURNSHEET game: {GAME} turn: 3 player: {position} secret: x{number}\n")
    return message.as_bytes()


def test_strangers_refused_sheets_do_not_block_the_players_form(world: World) -> None:
    for number in range(6):
        outcome = ingest(world.engine, _forged_sheet(2, number), "test", keys.utcnow())
        assert outcome.verdict in ("refused", "ignored"), outcome
    assert world.count(Submission, game_id=world.game_id, position=2, verdict="refused") >= 5
    with _client(_app(world)) as client:
        bob = _path(world.link(2))
        fields = _form(client.get(bob).text)
        sheet = f"TURNSHEET game: {GAME} turn: 3 player: 2\nEND\n"
        data = {**fields, "sheet": sheet, "secret": SECRETS[2], "action": "submit"}
        done = client.post(bob, data=data)
    assert 'data-verdict="accepted"' in done.text, re.findall(r"refusal.{0,200}", done.text)


def test_a_strangers_refused_forms_do_not_block_the_player(world: World) -> None:
    """The form counts refused sheets per client: another address that holds
    the link and guesses is stopped, the player is not."""
    app = _app(world)
    cy = _path(world.link(3))
    sheet = f"TURNSHEET game: {GAME} turn: 3 player: 3\nEND\n"
    with _client(app, "203.0.113.9") as stranger:
        pages = []
        for attempt in range(7):
            fields = _form(stranger.get(cy).text)
            data = {**fields, "sheet": sheet, "secret": f"guess-{attempt}", "action": "submit"}
            pages.append(stranger.post(cy, data=data).text)
    assert "too many refused" in pages[-1]
    with _client(app, "198.51.100.7") as player:
        fields = _form(player.get(cy).text)
        data = {**fields, "sheet": sheet, "secret": SECRETS[3], "action": "submit"}
        page = player.post(cy, data=data).text
    assert "too many refused" not in page
    assert 'data-verdict="accepted"' in page


# --- the games index -------------------------------------------------------------------------


@pytest.fixture
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    """Two empty databases of the kind the test is run with."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with ExitStack() as stack:
        yield [
            stack.enter_context(contextmanager(fresh_database)(request.param, tmp_path / name))
            for name in ("a", "b")
        ]


def _site_with_games(url: str, count: int) -> tuple[Engine, Settings]:
    """The database at `url` holding `count` Continental Rails games of three players each."""
    engine = open_database(url)
    now = keys.utcnow()
    with Session(engine) as session, session.begin():
        for number in range(count):
            game = Game(
                name=f"g{number}", scenario="continental-rails", seed=number, created_at=now
            )
            session.add(game)
            session.flush()
            for position in (1, 2, 3):
                session.add(
                    Player(game_id=game.id, position=position, character=f"C{number}-{position}")
                )
    return engine, Settings(database_url=url, web_secret_key="t" * 40)


def _statements(engine: Engine, settings: Settings, path: str) -> tuple[int, str]:
    web = Web(engine, settings, keys.signing_key(settings))
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(args[2])

    for each in {engine, web.reader}:
        event.listen(each, "before_cursor_execute", count)
    try:
        with _client(create_app(engine, settings, web)) as client:
            page = client.get(path)
    finally:
        for each in {engine, web.reader}:
            event.remove(each, "before_cursor_execute", count)
    assert page.status_code == 200, page.text[:500]
    return len(seen), page.text


@pytest.mark.parametrize("databases", ["sqlite", "postgres"], indirect=True)
def test_the_games_index_reads_a_page_with_a_fixed_number_of_queries(
    databases: list[str],
) -> None:
    few, few_page = _statements(*_site_with_games(databases[0], 10), "/")
    many, many_page = _statements(*_site_with_games(databases[1], 200), "/")
    assert few == many
    assert few_page.count('<a href="/games/') == 10
    assert many_page.count('<a href="/games/') == PER_PAGE
    assert "C199-1, C199-2, C199-3" in many_page  # newest first
    assert 'href="/?page=2"' in many_page


@pytest.mark.parametrize("databases", ["sqlite", "postgres"], indirect=True)
def test_the_games_index_pages_through_every_game(databases: list[str]) -> None:
    engine, settings = _site_with_games(databases[0], 120)
    with _client(create_app(engine, settings)) as client:
        shown = []
        for page in (1, 2, 3):
            text = client.get(f"/?page={page}").text
            shown += re.findall(r'<a href="/games/(\d+)">', text)
        assert sorted(map(int, shown)) == list(range(1, 121))
        assert client.get("/?page=4").status_code == 404
        assert client.get("/?page=x").status_code == 404
        assert client.get("/?page=99999999999999999999").status_code == 404


# --- heavy pages: kept once made, limited per client -------------------------------------------


@pytest.fixture(scope="module")
def longer_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """The test game after four turns: more map pages than the cache once held."""
    yield from build_world(tmp_path_factory, turns=4)


def test_every_map_page_is_drawn_once(longer_world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A visitor walking through every turn's maps, public and his own, is
    served the second time from what was drawn the first."""
    world = longer_world
    from turnproc.web import pages

    drawn = []
    for name in ("draw_page", "draw_framed_page"):
        original = getattr(pages, name)

        def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            drawn.append(1)
            return _original(*args, **kwargs)

        monkeypatch.setattr(pages, name, counted)
    with Session(world.engine) as session:
        turns = {p: repo.report_turns(session, world.game_id, p) for p in (1, 2, 3)}
    paths = [f"/games/{world.game_id}/map/{t}-{p}.svg" for t in range(5) for p in (0, 1, 2)]
    for position, reported in turns.items():
        link = _path(world.link(position))
        paths += [f"{link}/map/{t}-{p}.svg" for t in reported for p in (0, 1, 2)]
    with _client(_app(world)) as client:
        found = [path for path in paths if client.get(path).status_code == 200]
        assert len(found) > 32, "fewer map pages than the old cache held: the test shows nothing"
        first = len(drawn)
        assert [client.get(path).status_code for path in found] == [200] * len(found)
    assert len(drawn) == first


def test_a_report_pdf_is_rendered_once(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from turnproc.pipeline import reports

    rendered = []
    original = reports.report_pdfs

    def counted(*args: Any, **kwargs: Any) -> Any:
        rendered.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(reports, "report_pdfs", counted)
    bob = _path(world.link(2))
    with _client(_app(world)) as client:
        first = client.get(f"{bob}/report/1.pdf")
        second = client.get(f"{bob}/report/1.pdf")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert len(rendered) <= 1


def test_maps_and_pdfs_are_limited_per_client(world: World) -> None:
    from turnproc.web.limits import Limit

    bob = _path(world.link(2))
    app = _app(world, heavy=Limit(3, 60))
    with _client(app, "203.0.113.5") as client:
        codes = [client.get(f"/games/{world.game_id}/map/1-{p}.svg").status_code for p in (0, 1)]
        codes.append(client.get(f"{bob}/report/1.pdf").status_code)
        codes.append(client.get(f"{bob}/map/1-0.svg").status_code)
        codes.append(client.get(f"/games/{world.game_id}/map/2-0.svg").status_code)
    assert codes == [200, 200, 200, 429, 429]
    with _client(app, "198.51.100.5") as other:
        assert other.get(f"/games/{world.game_id}/map/2-0.svg").status_code == 200


# --- slow clients: real sockets on 127.0.0.x ----------------------------------------------------

SLOW_CLIENTS = 200
PARTIAL = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"


@contextmanager
def _serving(world: World, guards: Guards) -> Iterator[int]:
    """The test world's application served by `turnproc web`'s own server
    configuration on a free port of 127.0.0.1."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = server_config(_app(world), "127.0.0.1", port, guards)
    config.log_level = "warning"
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start"
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def _connect(source: str, port: int) -> socket.socket:
    """A connection to the server from the loopback address `source`."""
    sock = socket.socket()
    sock.settimeout(20)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def _status(source: str, port: int) -> int:
    with _connect(source, port) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed `sock` (waiting at most its timeout)."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_slow_clients_do_not_take_the_server_down(world: World) -> None:
    """200 connections that never finish their request, from one address and
    from twenty, and the pages still answer everyone else."""
    slow: list[socket.socket] = []
    with _serving(world, Guards(read_seconds=600)) as port:
        try:
            for number in range(SLOW_CLIENTS):
                source = "127.0.0.2" if number % 2 else f"127.0.1.{number % 20 + 1}"
                sock = _connect(source, port)
                sock.sendall(PARTIAL)
                slow.append(sock)
            assert _status("127.0.0.3", port) == 200
            one_address = [s for i, s in enumerate(slow) if i % 2]
            cut = sum(1 for sock in one_address[PER_CLIENT:] if _closed(sock))
            assert cut == len(one_address) - PER_CLIENT, "one address holds more than its share"
        finally:
            for sock in slow:
                sock.close()


def test_a_request_that_does_not_arrive_in_time_is_cut_off(world: World) -> None:
    bob = _path(world.link(2))  # the form's page reads the body it is sent
    with _serving(world, Guards(read_seconds=1)) as port:
        with _connect("127.0.0.4", port) as header:
            header.sendall(PARTIAL)
            assert _closed(header), "a header sent slower than the limit kept its connection"
        with _connect("127.0.0.4", port) as body:
            body.sendall(
                f"POST {bob} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n\r\n".encode()
                + b"sheet=xxxx"
            )
            assert _closed(body), "a body sent slower than the limit kept its connection"
        assert _status("127.0.0.4", port) == 200
