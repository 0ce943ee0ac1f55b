"""What the web pages show, read through the repository.

Public pages show only the public part of the reports (`build_public_report`,
`public_news`): the reports' own privacy rules decide, never the web. A
player's page adds what his own stored report says. Net worth is private
(9.2: another tycoon's net worth only to a spy), so the public chart shows
the ranks by net worth that every report's player summary shows; a player
sees his own net worth on his page.

Pages of a stored turn never change (until a rollback, which changes the
stored state), so the public report and the map of a turn are cached by the
digests of the turn's stored states.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cache, lru_cache, partial
from typing import Any, TypeVar

from markupsafe import Markup
from sqlalchemy.orm import Session

from turnproc.families.continental_rails.engine.events import Announcement as AnnouncementEvent
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES
from turnproc.families.continental_rails.report import mapdraw
from turnproc.families.continental_rails.report.maps import (
    BBox,
    MapFacts,
    MapPages,
    continent_bbox,
    continent_title,
    draw_framed_page,
    draw_page,
    reaches_south_east,
)
from turnproc.families.continental_rails.report.model import (
    _SECTION_KINDS,
    NewsGroup,
    PublicReport,
    build_public_report,
    public_news,
)
from turnproc.families.continental_rails.report.render import meta_of
from turnproc.families.continental_rails.report.svgcanvas import SvgCanvas
from turnproc.families.continental_rails.report.wording import Wording, load_wording
from turnproc.pipeline.reports import stored_report_input
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario
from turnproc.store import repository as repo
from turnproc.store.models import Game, Player, Standing
from turnproc.web.charts import Series, line_chart, player_colour

T = TypeVar("T")


class _Cache:
    """A small LRU cache shared by the server's threads: at most `size` items
    and, when `max_bytes` is given, at most that many bytes of str or bytes
    values (maps and PDFs, whose sizes vary by game)."""

    def __init__(self, size: int, max_bytes: int | None = None) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self.lock:
            return key in self.items

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                found: T = self.items[key]
                return found
        value = make()
        with self.lock:
            if key in self.items:  # another thread made it meanwhile
                self.bytes -= _weight(self.items.pop(key))
            self.items[key] = value
            self.bytes += _weight(value)
            while len(self.items) > self.size or (
                self.max_bytes is not None and self.bytes > self.max_bytes and len(self.items) > 1
            ):
                self.bytes -= _weight(self.items.popitem(last=False)[1])
        return value

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.bytes = 0


def _weight(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 0


PUBLIC_REPORTS = _Cache(64)
# Every map page of every turn of the games being looked at: a visitor walking
# through the turns must not push out the pages everyone else is shown. A
# page is some hundred KB of SVG; a player's own pages are kept apart.
MAPS = _Cache(4096, max_bytes=96 * 1024 * 1024)
PLAYER_MAPS = _Cache(4096, max_bytes=48 * 1024 * 1024)
# A report's PDF rendered again from its stored facts (when only its digest is kept).
PDFS = _Cache(1024, max_bytes=64 * 1024 * 1024)
NEWS = _Cache(4096)  # one turn's news each


@cache
def scenario_for(name: str) -> Scenario:
    return load_scenario(name)


@cache
def map_pages(name: str) -> MapPages:
    return MapPages(scenario_for(name))


def last_turn(game: Game) -> int:
    """The latest turn with results (0: none yet, the opening)."""
    return game.current_turn - 1


def turn_key(session: Session, game: Game, turn: int) -> tuple[Hashable, ...]:
    digests = repo.turn_digests(session, game.id)
    return (game.id, turn, digests.get(turn), digests.get(turn + 1))


@dataclass(frozen=True)
class PCRow:
    """2.3 / 10.1 One private company: who holds it, and at what price it sells."""

    code: str
    name: str
    towns: str
    status: str
    holder: str
    price: int | None


@dataclass(frozen=True)
class TurnView:
    """A turn's public report and its PCs (what the game and turn pages show)."""

    report: PublicReport
    wording: Wording  # the words of the turn's end state
    pcs: list[PCRow]  # owned or released: the PCs a player may hold or buy
    others: dict[str, int]  # how many PCs are in each other status (unreleased, ...)


def turn_view(session: Session, game: Game, turn: int) -> TurnView:
    """The public part of the reports of `turn` (0: the opening)."""

    def build() -> TurnView:
        data = stored_report_input(session, game, turn)
        result = TurnResult(
            state=data.after,
            events=list(data.events),
            rejections=list(data.rejections),
            ledger=list(data.ledger),
        )
        wording = load_wording(data.scenario, data.after)
        report = build_public_report(
            data.scenario, data.before, result, meta_of(data), wording, opening=turn == 0
        )
        names = {t.position: f"{t.character} (#{t.position})" for t in data.after.tycoons}
        rows = []
        others: dict[str, int] = {}
        for code, pc in data.after.pcs.items():
            if pc.status not in ("owned", "available"):
                others[pc.status] = others.get(pc.status, 0) + 1
                continue
            route = data.scenario.routes.get(code)
            holder = names.get(pc.owner, "") if pc.status == "owned" and pc.owner else ""
            for_sale = pc.status == "available" or (pc.status == "owned" and pc.for_sale)
            rows.append(
                PCRow(
                    code=code,
                    name=route.name if route else code,
                    towns=" - ".join(
                        data.scenario.towns[t].name if t in data.scenario.towns else t
                        for t in (route.towns if route else [])
                    ),
                    status=("for sale" if pc.for_sale else "owned")
                    if pc.status == "owned"
                    else pc.status,
                    holder=holder,
                    price=pc.asking_price if for_sale else None,
                )
            )
        rows.sort(
            key=lambda row: (
                (data.scenario.routes[row.code].number, row.code)
                if row.code in data.scenario.routes
                else (0, row.code)
            )
        )
        return TurnView(report, wording, rows, dict(sorted(others.items())))

    return PUBLIC_REPORTS.get(turn_key(session, game, turn), build)


# The report's map pages by number, as the web names them (/map/N-0.svg ...).
CONTINENT, NORTH_EAST, SOUTH_EAST = 0, 1, 2


def map_views(scenario: str, facts: MapFacts) -> list[tuple[int, str]]:
    """The map pages a turn's report has, in the PDF's order, with what each
    shows: the continent page (fitted to the lines), the north-east, and the
    south-east when lines or PCs for sale reach there."""
    pages = map_pages(scenario)
    views = [
        (CONTINENT, continent_title(pages.scenario, facts)),
        (NORTH_EAST, "the north-east"),
    ]
    if reaches_south_east(pages.scenario, facts):
        views.append((SOUTH_EAST, "the south-east"))
    return views


def map_svg(
    scenario: str, key: Hashable, facts: MapFacts, page: int, title: str, cache: _Cache = MAPS
) -> str:
    """A map page of the report drawn as SVG by the PDF's own layout
    (maps.draw_page, maps.draw_framed_page for the south-east), kept in `cache`."""

    def draw() -> str:
        pages = map_pages(scenario)
        canvas = SvgCanvas(pages.width, pages.height)
        if page == SOUTH_EAST:
            canvas.out.append(_geography(scenario, page, None))
            frame = pages.south_east_frame()[0]
            draw_framed_page(canvas, pages, facts, frame, geography=False)
        else:
            zoom = page == NORTH_EAST
            bbox = None if zoom else continent_bbox(pages.scenario, facts)
            canvas.out.append(_geography(scenario, page, bbox))
            draw_page(canvas, pages, facts, zoom, geography=False)
        return canvas.svg(title)

    return cache.get((key, page), draw)


@lru_cache(maxsize=16)  # a frame per fit of the lines: bounded
def _geography(scenario: str, page: int, bbox: BBox | None) -> str:
    """A map page's coasts, lakes and borders as SVG: the same for every turn
    whose lines fit the same frame (`bbox`: the continent page's fit)."""
    pages = map_pages(scenario)
    if page == SOUTH_EAST:
        frame, style = pages.south_east_frame()
    else:
        frame, style = pages.frame(True) if page == NORTH_EAST else pages.fitted(bbox)
    canvas = SvgCanvas(pages.width, pages.height, ids="geography")
    clip = canvas.beginPath()
    clip.rect(frame.x, frame.y, frame.width, frame.height)
    canvas.clipPath(clip)
    mapdraw.draw_geography(canvas, frame, style)
    return canvas.body()


def when(game: Game) -> str:
    return f"{game.deadline:%Y-%m-%d %H:%M} UTC" if game.deadline else ""


@dataclass
class TurnNews:
    turn: int
    years: list[int]
    groups: list[NewsGroup]
    announcements: list[tuple[str, str]]  # (author, text)


def announcement_author(event: AnnouncementEvent, players: dict[int, Player]) -> str:
    """9.1 Who an announcement is from, as the report prints it."""
    if event.anonymous:
        return "anonymous"
    if event.position is None:
        return "the moderator"
    player = players.get(event.position)
    return f"{player.character if player else '?'} (#{event.position})"


def news_of_every_turn(
    session: Session, game: Game, wording: Wording, players: dict[int, Player]
) -> list[TurnNews]:
    """9.1 The news of every turn with results, latest first. A turn's news never
    changes once its state is stored, so each turn's is worded once (the key
    holds the digest of the state it ended in) and only a new turn's is read."""
    scenario = scenario_for(game.scenario)
    per_turn = int(scenario.params.get("scenario", {}).get("years_per_turn", 2))
    first = int(scenario.params.get("scenario", {}).get("first_year", 1841))
    digests = repo.turn_digests(session, game.id)
    wanted = range(1, game.current_turn)
    keys = {turn: ("news", game.id, turn, digests.get(turn + 1)) for turn in wanted}
    missing = [turn for turn in wanted if keys[turn] not in NEWS]
    public: dict[int, list[AnnouncementEvent | Any]] = {}
    if missing:
        # Private events and those a report shows in its own sections never reach the news.
        public = repo.public_events_between(
            session,
            game.id,
            min(missing),
            max(missing),
            leave_out=_SECTION_KINDS - {"announcement"},
        )

    def word(turn: int) -> TurnNews:
        events = public.get(turn, [])
        notes = [e for e in events if isinstance(e, AnnouncementEvent)]
        start = first + per_turn * (turn - 1)
        return TurnNews(
            turn=turn,
            years=list(range(start, start + per_turn)),
            groups=public_news(wording, wording.state, events),
            announcements=[(announcement_author(e, players), e.text) for e in notes],
        )

    return [NEWS.get(keys[turn], partial(word, turn)) for turn in reversed(wanted)]


def _by_turn(rows: list[Standing]) -> tuple[list[int], dict[int, dict[int, Standing]]]:
    table: dict[int, dict[int, Standing]] = {}
    for row in rows:
        table.setdefault(row.turn, {})[row.position] = row
    return sorted(table), table


@dataclass
class Chart:
    svg: Markup
    legend: list[tuple[str, str]] = field(default_factory=list)  # (colour, label)


def standings_charts(
    session: Session, game: Game, wording: Wording, players: dict[int, Player]
) -> list[Chart]:
    """The victory points of every category by turn, and the ranks by net worth."""
    turns, table = _by_turn(list(repo.standings_history(session, game.id)))
    positions = sorted(players)

    def label(position: int) -> str:
        player = players[position]
        return f"{player.character} (#{position})"

    def series(value: Callable[[Standing], int | None]) -> list[Series]:
        return [
            Series(
                label(pos),
                player_colour(pos),
                [value(table[t][pos]) if pos in table[t] else None for t in turns],
            )
            for pos in positions
        ]

    ranks: dict[tuple[int, int], int] = {}
    for turn in turns:
        ordered = sorted(table[turn].values(), key=lambda s: (-s.net_worth, s.position))
        for rank, row in enumerate(ordered, start=1):
            ranks[(turn, row.position)] = rank
    charts = [
        Chart(line_chart("Victory points, total", turns, series(lambda s: s.vp_total))),
        Chart(
            line_chart(
                "Rank by net worth (9.2)",
                turns,
                series(lambda s: ranks[(s.turn, s.position)]),
                ranks=len(positions),
            )
        ),
    ]
    for category in VP_CATEGORIES:
        column = f"vp_{category}"
        charts.append(
            Chart(
                line_chart(
                    f"Victory points: {wording.category(category)}",
                    turns,
                    series(lambda s, c=column: int(getattr(s, c))),  # type: ignore[misc]
                )
            )
        )
    charts[0].legend = [(player_colour(p), label(p)) for p in positions]
    return charts


def own_net_worth_chart(session: Session, game: Game, player: Player) -> Markup:
    """A player's own net worth and cash by turn (his page only)."""
    rows = [r for r in repo.standings_history(session, game.id) if r.position == player.position]
    turns = [r.turn for r in rows]
    return line_chart(
        f"Your net worth and cash by turn ({player.character})",
        turns,
        [
            Series("net worth", "#1f77b4", [r.net_worth for r in rows]),
            Series("cash", "#2ca02c", [r.cash for r in rows]),
        ],
    )
