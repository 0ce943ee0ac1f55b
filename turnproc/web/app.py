"""The web pages of the games: an ASGI application (Starlette), served by `turnproc web`.

Public, read-only: `/` (the games), `/games/ID` (a game: standings, railroads,
PCs, map, the news of every turn), `/games/ID/turns/N` (a turn's public report)
the maps as SVG, and `/18xx/ID` (an 18xx game: whose move it is, companies,
players). A player's own page is `/play/TOKEN` (keys.py): his
private report, his PDFs, and the order form, checked as he types
(`/play/TOKEN/check`) and submitted through the mail intake (orders.py).

Safe by default: every page is rendered by Jinja2 with autoescaping (names
and announcements are the players' own text); a Content-Security-Policy
allows only this site's own script and style; the form carries a CSRF token
tied to a SameSite cookie and to the form; request bodies are bounded;
checks and submits are rate-limited per player and per client address;
private pages are never cached, and no page sends a Referer to another site (the
token is in the address of a player's pages).
"""

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from turnproc.config import Settings
from turnproc.families.continental_rails.report.maps import MapFacts
from turnproc.families.continental_rails.report.model import PlayerReport
from turnproc.intake.auth import FAILURE_WINDOW, FAILURES_BEFORE_SILENCE
from turnproc.mail.inbound import StoreFailed
from turnproc.store import repository as repo
from turnproc.store.models import Game, Game18xx, Player, Report
from turnproc.web import g18xx, keys, orders, pages, play18xx
from turnproc.web.index import NoSuchPage, index_page
from turnproc.web.limits import Limit, RateLimiter
from turnproc.web.reading import read_only_engine
from turnproc.web.sections import sections_for

HERE = Path(__file__).resolve().parent
MAX_BODY_BYTES = 128 * 1024  # a turnsheet is a few KB
BUSY_RETRY_SECONDS = 10  # Retry-After when the database is busy
CSRF_COOKIE = "turnproc_csrf"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # the link token never goes to another site
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class IdConvertor(Convertor[int]):
    """A path's id or turn number: at most 18 digits, so every id the route
    takes fits the database's 64-bit integers (a longer one is not found)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", IdConvertor())


class Guard:
    """ASGI middleware: security headers on every response, bounded request
    bodies (413, whether the length is announced or the body comes chunked),
    and a path with a trailing slash sent to the path without it by a relative
    redirect (an absolute one would name whatever host the request gave)."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        private = path.startswith("/play/")
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.max_body):
                await _plain(send, 413, "request too large")
                return
        if path != "/" and path.endswith("/") and scope["method"] in ("GET", "HEAD"):
            # "/" + the path without its slashes: never "//host", which a browser reads as a site.
            await _plain(send, 308, "moved", [(b"location", ("/" + path.strip("/")).encode())])
            return
        seen = 0
        started = False
        refused = False  # the body went over the limit: 413 sent, the rest dropped

        async def bounded() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    refused = True
                    if not started:
                        await _plain(send, 413, "request too large")
                    return {"type": "http.disconnect"}
            return message

        async def headed(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer
            if message["type"] == "http.response.start":
                started = True
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.decode("latin-1").lower() not in HEADERS
                ]
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                if private:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, bounded, headed)
        except Exception:
            if not refused:
                raise
            # The application saw its client go away when the body was cut off.


async def _plain(
    send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"), *(extra or [])]
    headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text.encode()})


@dataclass
class Web:
    """The application's shared parts: database, settings, signing key, limits."""

    engine: Engine
    settings: Settings
    key: bytes
    clock: Callable[[], datetime] = keys.utcnow
    checks: RateLimiter = field(default_factory=lambda: RateLimiter(Limit(120, 60)))
    submits: RateLimiter = field(default_factory=lambda: RateLimiter(Limit(10, 600)))
    clients: RateLimiter = field(default_factory=lambda: RateLimiter(Limit(300, 60)))
    bad_links: RateLimiter = field(default_factory=lambda: RateLimiter(Limit(20, 600)))
    # Maps and PDFs per client address: drawn or rendered once and then kept,
    # but a client walking through every turn of every game makes them all.
    heavy: RateLimiter = field(default_factory=lambda: RateLimiter(Limit(120, 60)))
    # Refused sheets per link and client address, as the mail intake counts
    # them per sender: a stranger's refusals never stop the player's form.
    refused: RateLimiter = field(
        default_factory=lambda: RateLimiter(
            Limit(FAILURES_BEFORE_SILENCE, FAILURE_WINDOW.total_seconds())
        )
    )
    templates: Environment = field(init=False)
    reader: Engine = field(init=False)

    def __post_init__(self) -> None:
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=select_autoescape(["html", "j2"], default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.globals["money"] = orders.money
        self.templates.globals["signed"] = orders.signed
        self.reader = read_only_engine(self.engine)

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.templates.get_template(name).render(**context)
        return HTMLResponse(html, status_code=status)

    def session(self) -> Session:
        """A session for reading (web/reading.py: never SQLite's write lock)."""
        return Session(self.reader)


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _game(session: Session, game_id: int) -> Game:
    try:
        return repo.get_game(session, game_id)
    except repo.NotFound:
        raise HTTPException(404, "no such game") from None


def _not_18xx(session: Session, game: Game) -> None:
    """404 for an 18xx game: its moves, not turns, are on its own page (/18xx/ID)."""
    if g18xx.row_of_game(session, game) is not None:
        raise HTTPException(404, "an 18xx game has no turns: see its page")


def _turn_of(path: str) -> tuple[int, int]:
    """The turn and map page a map's name N-P names (P: pages.CONTINENT ...)."""
    number, _, page = path.partition("-")
    if not number.isdigit() or page not in ("0", "1", "2"):
        raise HTTPException(404, "no such map")
    return int(number), int(page)


def _map_title(scenario: str, facts: MapFacts, turn: int, page: int) -> str:
    """The title of a turn's map page; 404 for a page the turn's report has not
    (the south-east, when no line or PC for sale reaches there)."""
    where = dict(pages.map_views(scenario, facts)).get(page)
    if where is None:
        raise HTTPException(404, "no such map")
    when = "the start of the game" if turn == 0 else f"the end of turn {turn}"
    return f"Map: {where}, railroads at {when}"


def create_app(engine: Engine, settings: Settings, web: Web | None = None) -> Starlette:
    """The application over `engine`; `web` replaces its shared parts (tests)."""
    web = web or Web(engine, settings, keys.signing_key(settings))

    async def index(request: Request) -> Response:
        asked = request.query_params.get("page", "1")
        if not (asked.isdigit() and len(asked) <= 9):
            raise HTTPException(404, "no such page of the games")

        def build() -> dict[str, Any]:
            with web.session() as session:
                try:
                    return {"index": index_page(session, int(asked))}
                except NoSuchPage:
                    raise HTTPException(404, "no such page of the games") from None

        return web.page("index.html", **await run_in_threadpool(build))

    async def game_page(request: Request) -> Response:
        game_id = int(request.path_params["game_id"])
        context = await run_in_threadpool(game_context, web, game_id)
        if "page18xx" in context:
            # An 18xx game made by `game new`: its page is the 18xx one.
            return RedirectResponse(context["page18xx"], status_code=303)
        return web.page("game.html", **context)

    def load_18xx(game_id: int) -> g18xx.Page18xx:
        with web.session() as session:
            page = g18xx.load_page(session, game_id)
        if page is None:
            raise HTTPException(404, "no such game")
        return page

    async def page_18xx(request: Request) -> Response:
        def build() -> dict[str, Any]:
            page = load_18xx(int(request.path_params["game_id"]))
            with web.session() as session:
                row = session.get(Game18xx, page.row_id)
            report = page.report
            return {
                "row": row,
                "page": page,
                "names": page.names,
                "to_move": page.names.get(report.to_move, report.to_move)
                if report.to_move
                else None,
                "bank": g18xx.bank(report),
                "market_end": any(cell.end for line in report.market for cell in line),
            }

        return web.page("g18xx.html", **await run_in_threadpool(build))

    async def map_18xx(request: Request) -> Response:
        heavy(request)

        def build() -> str:
            page = load_18xx(int(request.path_params["game_id"]))
            return g18xx.map_svg(page, f"{page.report.title}: the map after move {page.moves}")

        svg = await run_in_threadpool(build)
        return Response(
            svg, media_type="image/svg+xml", headers={"cache-control": "public, max-age=60"}
        )

    async def turn_page(request: Request) -> Response:
        game_id, turn = int(request.path_params["game_id"]), int(request.path_params["turn"])
        return web.page("turn.html", **await run_in_threadpool(turn_context, web, game_id, turn))

    def heavy(request: Request) -> None:
        if not web.heavy.allow(_client(request)):
            raise HTTPException(429, "Too many maps and reports asked for: wait a minute.")

    async def public_map(request: Request) -> Response:
        game_id = int(request.path_params["game_id"])
        turn, page = _turn_of(request.path_params["name"])
        heavy(request)

        def build() -> str:
            with web.session() as session:
                game = _game(session, game_id)
                _not_18xx(session, game)
                if not 0 <= turn <= pages.last_turn(game):
                    raise HTTPException(404, "no such turn")
                view = pages.turn_view(session, game, turn)
                key = ("public", *pages.turn_key(session, game, turn))
                title = _map_title(game.scenario, view.report, turn, page)
                return pages.map_svg(game.scenario, key, view.report, page, title)

        svg = await run_in_threadpool(build)
        return Response(
            svg, media_type="image/svg+xml", headers={"cache-control": "public, max-age=300"}
        )

    async def own_page(
        found: Found,
        browser: str,
        sheet: str | None = None,
        result: orders.Check | None = None,
        submitted: orders.Submitted | None = None,
        refusal: str | None = None,
        status: int = 200,
    ) -> Response:
        """The player's page: his 18xx seat's, or his Continental Rails position's."""
        if found.sequential:
            context = await run_in_threadpool(seat_context, web, found, browser, submitted, refusal)
            return web.page("play18xx.html", status=status, **context)
        context = await run_in_threadpool(
            player_context, web, found, browser, sheet, result, submitted, refusal
        )
        return web.page("play.html", status=status, **context)

    async def play(request: Request) -> Response:
        found = await run_in_threadpool(_player, web, request)
        browser = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        response = await own_page(found, browser)
        _set_browser(request, response, browser)
        return response

    async def check(request: Request) -> Response:
        found = await run_in_threadpool(_player, web, request)
        if found.sequential:
            raise HTTPException(404, "an 18xx move is checked when it is submitted")
        form = await request.form()
        refusal = _form_refusal(web, request, found, form)
        if refusal is None and not (
            web.checks.allow(f"player:{found.key}") and web.clients.allow(_client(request))
        ):
            refusal = "too many checks; wait a minute"
        if refusal is not None:
            return web.page("_check.html", status=400, refusal=refusal, result=None)
        text = str(form.get("sheet", ""))
        result = await run_in_threadpool(_check, web, found, text)
        return web.page("_check.html", result=result, refusal=None)

    async def submit(request: Request) -> Response:
        found = await run_in_threadpool(_player, web, request)
        form = await request.form()
        browser = request.cookies.get(CSRF_COOKIE, "")
        refusal = _form_refusal(web, request, found, form)
        text = str(form.get("sheet", ""))
        if found.sequential:
            # The move picked from those offered (a tile lay picked hex by hex),
            # else the orders written.
            move = (
                str(form.get("choice", "")).strip()
                or str(form.get("lay", "")).strip()
                or str(form.get("orders", ""))
            )
            if not move.strip() and refusal is None:
                refusal = "pick a move, or write your orders"
            text = await run_in_threadpool(_sheet18xx, web, found, move[: orders.MAX_SHEET_CHARS])
        secret = str(form.get("secret", "")).strip()
        if refusal is None and (len(secret) > orders.MAX_SECRET_CHARS or not secret.isprintable()):
            refusal = "the secret is not one we hand out; copy it from your welcome mail"
        wants_secret = orders.with_secret(text, "?", only_blank=True) != text
        if refusal is None and form.get("action") != "check" and not secret and wants_secret:
            refusal = "write your secret in its field below the sheet"
        if refusal is None and not (
            web.submits.allow(f"player:{found.key}") and web.clients.allow(_client(request))
        ):
            refusal = "too many submissions in the last minutes; wait a little"
        if refusal is None and form.get("action") == "check" and not found.sequential:
            result = await run_in_threadpool(_check, web, found, text)
            return await own_page(found, browser, text, result)
        if refusal is not None:
            return await own_page(found, browser, text, None, None, refusal, status=400)
        form_id = str(form.get("form_id", ""))
        sender = f"{found.key}/{_client(request)}"
        if web.refused.full(sender):
            # As mail goes unanswered after so many refusals, the form stops
            # taking sheets from this client (not from the player elsewhere).
            done = orders.Submitted(
                "refused",
                "too many refused sheets from here in the last hour; try later",
                "",
                False,
            )
        else:
            try:
                done = await run_in_threadpool(_submit, web, found, text, secret, form_id)
            except StoreFailed:
                return _busy(web, "Your sheet was not taken: submit it again in a moment.")
            except OperationalError:
                return _busy(
                    web,
                    "Your sheet is stored; it is checked by the next mail run and its "
                    "receipt comes by mail.",
                )
            if done.verdict == "refused":
                web.refused.allow(sender)
        return await own_page(found, browser, text, None, done)

    async def report_pdf(request: Request) -> Response:
        found = await run_in_threadpool(_player, web, request)
        turn = int(request.path_params["turn"])
        heavy(request)

        def load() -> bytes | None:
            from turnproc.pipeline.reports import report_pdfs

            with web.session() as session:
                report = repo.get_report(session, found.game_id, turn, found.position)
                if report is None or report.pdf is not None:
                    return report.pdf if report is not None else None

                def render() -> bytes | None:
                    # Kept by its digest only: rendered again from the stored facts.
                    return report_pdfs(session, [report]).get(report.id)

                return pages.PDFS.get((report.id, report.pdf_sha256), render)

        pdf = await run_in_threadpool(load)
        if pdf is None:
            raise HTTPException(404, "no such report")
        name = f"{found.game_name}-turn-{turn}-position-{found.position}.pdf"
        return Response(
            pdf,
            media_type="application/pdf",
            headers={"content-disposition": f'attachment; filename="{_ascii(name)}"'},
        )

    async def own_map(request: Request) -> Response:
        found = await run_in_threadpool(_player, web, request)
        turn, page = _turn_of(request.path_params["name"])
        heavy(request)

        def build() -> str:
            with web.session() as session:
                row = repo.get_report(session, found.game_id, turn, found.position)
                if row is None:
                    raise HTTPException(404, "no such report")
                try:
                    report = PlayerReport.model_validate_json(row.json)
                except ValidationError:  # a report stored by an older program
                    raise HTTPException(404, "this report has no map to show") from None
                game = _game(session, found.game_id)
                key = ("player", found.position, *pages.turn_key(session, game, turn))
                title = _map_title(game.scenario, report, turn, page)
                title += ", your lines on a yellow band"
                return pages.map_svg(
                    game.scenario, key, report, page, title, cache=pages.PLAYER_MAPS
                )

        svg = await run_in_threadpool(build)
        return Response(svg, media_type="image/svg+xml")

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "server error"
        return web.page("error.html", status=status, message=detail)

    async def busy(request: Request, exc: Exception) -> Response:
        return _busy(web, "Try again in a moment.")

    routes = [
        Route("/", index),
        Route("/games/{game_id:id}", game_page),
        Route("/games/{game_id:id}/turns/{turn:id}", turn_page),
        Route("/games/{game_id:id}/map/{name}.svg", public_map),
        Route("/18xx/{game_id:id}", page_18xx),
        Route("/18xx/{game_id:id}/map.svg", map_18xx),
        Route("/play/{token}", play),
        Route("/play/{token}", submit, methods=["POST"]),
        Route("/play/{token}/check", check, methods=["POST"]),
        Route("/play/{token}/report/{turn:id}.pdf", report_pdf),
        Route("/play/{token}/map/{name}.svg", own_map),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, OperationalError: busy},
    )
    app.state.web = web
    return Guard(app)  # type: ignore[return-value]


def _busy(web: Web, what: str) -> Response:
    """503: the database is busy (a turn run or the mail intake holds it
    longer than a page waits); never a server error."""
    response = web.page("error.html", status=503, message=f"The games' database is busy. {what}")
    response.headers["retry-after"] = str(BUSY_RETRY_SECONDS)
    return response


def _ascii(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _set_browser(request: Request, response: Response, browser: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        browser,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/play/",
    )


# --- a player's link ---------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """The player a valid link names."""

    token: str
    game_id: int
    game_name: str
    position: int
    sequential: bool  # an 18xx seat (play18xx.py)

    @property
    def key(self) -> str:
        return f"{self.game_id}/{self.position}"


def _player(web: Web, request: Request) -> Found:
    """The player of the request's link; 404 for a forged, expired or stale link."""
    token = request.path_params["token"]
    client = _client(request)
    gone = HTTPException(
        404, "This link is not valid (or has expired): use the link in your latest report mail."
    )
    read = keys.read_token(web.key, token, web.clock())
    if read is None:
        if not web.bad_links.allow(client):
            raise HTTPException(429, "Too many links that are not valid: wait ten minutes.")
        raise gone
    with web.session() as session:
        try:
            game = repo.get_game(session, read.game_id)
            player = repo.get_player(session, game.id, read.position)
        except repo.NotFound:
            raise gone from None
        if not player.human or keys.fingerprint(player.secret_hash, player.email) != (
            read.fingerprint
        ):
            raise gone
        sequential = g18xx.row_of_game(session, game) is not None
        return Found(token, game.id, game.name, player.position, sequential)


def _form_refusal(web: Web, request: Request, found: Found, form: Any) -> str | None:
    origin = request.headers.get("origin")
    if origin and origin != f"{request.url.scheme}://{request.url.netloc}":
        return "the form was sent from another site"
    browser = request.cookies.get(CSRF_COOKIE, "")
    return keys.check_csrf(
        web.key,
        browser,
        found.token,
        str(form.get("form_id", "")),
        str(form.get("csrf", "")),
        web.clock(),
    )


def _sheet18xx(web: Web, found: Found, move: str) -> str:
    with web.session() as session:
        game = repo.get_game(session, found.game_id)
        player = repo.get_player(session, game.id, found.position)
        return play18xx.orders_sheet(game, player, move)


def seat_context(
    web: Web,
    found: Found,
    browser: str,
    submitted: orders.Submitted | None = None,
    refusal: str | None = None,
) -> dict[str, Any]:
    """The context of an 18xx seat's page (play18xx.py)."""
    with web.session() as session:
        game = repo.get_game(session, found.game_id)
        player = repo.get_player(session, game.id, found.position)
        seat = play18xx.seat(session, game, player)
    assert seat is not None  # found.sequential
    form_id = keys.new_form_id(web.clock())
    return {
        "game": game,
        "player": player,
        "seat": seat,
        "token": found.token,
        "form_id": form_id,
        "csrf": keys.form_csrf(web.key, browser, found.token, form_id),
        "submitted": submitted,
        "refusal": refusal,
    }


def _check(web: Web, found: Found, text: str) -> orders.Check:
    with web.session() as session:
        game = repo.get_game(session, found.game_id)
        player = repo.get_player(session, game.id, found.position)
        return orders.check_sheet(session, game, player, text)


def _submit(web: Web, found: Found, text: str, secret: str, form_id: str) -> orders.Submitted:
    with web.session() as session:
        game = repo.get_game(session, found.game_id)
        player = repo.get_player(session, game.id, found.position)
    return orders.submit_sheet_by_web(
        web.engine, web.reader, web.settings, game, player, text, secret, form_id, web.clock()
    )


# --- page contexts -------------------------------------------------------------------


def game_context(web: Web, game_id: int) -> dict[str, Any]:
    with web.session() as session:
        game = _game(session, game_id)
        row18 = g18xx.row_of_game(session, game)
        if row18 is not None:
            return {"page18xx": f"/18xx/{row18.id}"}
        players = {p.position: p for p in repo.players(session, game.id)}
        turn = pages.last_turn(game)
        view = pages.turn_view(session, game, turn)
        wording = view.wording  # the words of the game's current state
        return {
            "game": game,
            "deadline": pages.when(game),
            "turn": turn,
            "view": view,
            "report": view.report,
            "maps": pages.map_views(game.scenario, view.report),
            "charts": pages.standings_charts(session, game, wording, players),
            "news": pages.news_of_every_turn(session, game, wording, players),
            "sections": sections_for(session, game),
        }


def turn_context(web: Web, game_id: int, turn: int) -> dict[str, Any]:
    with web.session() as session:
        game = _game(session, game_id)
        _not_18xx(session, game)
        if not 0 <= turn <= pages.last_turn(game):
            raise HTTPException(404, "no such turn")
        view = pages.turn_view(session, game, turn)
        return {
            "game": game,
            "turn": turn,
            "view": view,
            "report": view.report,
            "maps": pages.map_views(game.scenario, view.report),
        }


def player_context(
    web: Web,
    found: Found,
    browser: str,
    sheet: str | None = None,
    result: orders.Check | None = None,
    submitted: orders.Submitted | None = None,
    refusal: str | None = None,
) -> dict[str, Any]:
    now = web.clock()
    with web.session() as session:
        game = repo.get_game(session, found.game_id)
        player = repo.get_player(session, game.id, found.position)
        turns = repo.report_turns(session, game.id, player.position)
        latest = repo.get_report(session, game.id, turns[-1], player.position) if turns else None
        in_force = repo.orders_row(session, game.id, game.current_turn, player.position)
        if sheet is None:
            sheet = _sheet_to_edit(session, game, player)
        if submitted is not None and submitted.verdict in ("accepted", "errors"):
            sheet = orders.without_secret(sheet)
        form_id = keys.new_form_id(now)
        return {
            "game": game,
            "player": player,
            "deadline": pages.when(game),
            "token": found.token,
            "turns": turns,
            "latest": latest,
            "maps": _own_maps(game, latest),
            "in_force": in_force,
            "open": game.status == "active",
            "sheet": sheet,
            "form_id": form_id,
            "csrf": keys.form_csrf(web.key, browser, found.token, form_id),
            "result": result,
            "submitted": submitted,
            "refusal": refusal,
            "worth_chart": pages.own_net_worth_chart(session, game, player),
            "sections": sections_for(session, game, player),
        }


def _own_maps(game: Game, latest: Report | None) -> list[tuple[int, str]]:
    """The map pages of the player's latest report (none for a report stored by
    an older program, which has no map to show)."""
    if latest is None:
        return []
    try:
        report = PlayerReport.model_validate_json(latest.json)
    except ValidationError:
        return []
    return pages.map_views(game.scenario, report)


def _sheet_to_edit(session: Session, game: Game, player: Player) -> str:
    """The sheet last accepted from the player this turn (secret blanked), else a blank one."""
    row = repo.orders_row(session, game.id, game.current_turn, player.position)
    if row is not None and row.submission_id is not None:
        submission = repo.get_submission(session, row.submission_id)
        if submission is not None and submission.text:
            return orders.without_secret(submission.text)
    if game.status != "active":
        return ""
    return orders.blank_sheet(session, game, player)
