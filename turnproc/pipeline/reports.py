"""Reports: what a turn's report is made from (`ReportInput`), starting the
family's renderer (it may work in other processes while the turn is
stored), plain summary reports, and queueing each player's report mail.
"""

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.orm import Session

from turnproc.core.ledger import LedgerEntry
from turnproc.core.money import money
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.registry import family_of
from turnproc.pipeline.links import mail_footer
from turnproc.pipeline.reruns import RERUN_LOG, stored_rerun_reason
from turnproc.pipeline.schedule import _when
from turnproc.pipeline.stored import scenario_for
from turnproc.scenario.model import Scenario
from turnproc.store import mapping, repository
from turnproc.store.models import Game, Player, Report, pack


@dataclass(frozen=True)
class PlayerInfo:
    position: int
    character: str
    real_name: str
    email: str | None
    phone: str
    human: bool
    share_email: bool = False  # 3.1: the player agreed to show his address


@dataclass(frozen=True)
class ReportInput:
    """Everything a report of one turn is made from."""

    scenario: Scenario
    game: str
    turn: int  # the turn whose results the report shows (0: the game's start)
    before: GameState
    after: GameState
    events: list[Event]
    rejections: list[Rejection]
    ledger: list[LedgerEntry]
    players: dict[int, PlayerInfo]
    anonymous: bool
    deadline: str = ""  # when orders for the next turn are due, as printed
    # Orders given for players who sent none (the missed-turn policy), by position.
    stood_in: dict[int, PlayerOrders] = field(default_factory=dict)
    # The turn was run again: the moderator's reason ("" if none); None: first run.
    replaces: str | None = None

    @classmethod
    def of_resolved(
        cls, scenario: Scenario, game: str, before: GameState, result: TurnResult
    ) -> "ReportInput":
        """A turn resolved outside the database (the bench, tests): its players
        known only by their tycoons, with no contact details."""
        return cls(
            scenario=scenario,
            game=game,
            turn=before.turn,
            before=before,
            after=result.state,
            events=list(result.events),
            rejections=list(result.rejections),
            ledger=list(result.ledger),
            players={
                t.position: PlayerInfo(t.position, t.character, "", None, "", t.human)
                for t in before.tycoons
            },
            anonymous=False,
        )


@dataclass(frozen=True)
class RenderedReport:
    text: str
    pdf: bytes | None
    json: str


@dataclass(frozen=True)
class StoredReport:
    """A rendered report as the store keeps it: text and JSON deflated, the
    PDF's bytes (kept only until its mail is sent) and its digest (kept for
    good), and the digest of text and JSON that keys its mail."""

    text_z: bytes
    json_z: bytes
    pdf: bytes | None
    pdf_sha256: str | None
    has_pdf: bool
    mail_digest: str


def stored_report(report: RenderedReport) -> StoredReport:
    """A report's stored form. The batch works it out in the renderer's worker
    process that drew the report, while the others still render (deflating a
    turn's 15 reports took 0.07 s of the batch's CPU, after all of them)."""
    return StoredReport(
        text_z=pack(report.text),
        json_z=pack(report.json),
        pdf=report.pdf,
        pdf_sha256=None if report.pdf is None else hashlib.sha256(report.pdf).hexdigest(),
        has_pdf=bool(report.pdf),
        mail_digest=hashlib.sha256((report.text + report.json).encode()).hexdigest()[:16],
    )


class Reports(Protocol):
    """Reports being rendered
    (turnproc.families.continental_rails.report.render.PendingReports):
    `result()` waits for them, `close()` abandons them; `finished()` has
    their stored forms where the renderer made them (`stored_report`)."""

    def result(self) -> dict[int, RenderedReport]: ...
    def finished(self) -> dict[int, Any]: ...
    def close(self) -> None: ...


@dataclass
class ReadyReports:
    """Reports rendered before the caller asked."""

    reports: dict[int, RenderedReport]

    def result(self) -> dict[int, RenderedReport]:
        return self.reports

    def finished(self) -> dict[int, Any]:
        return {}

    def close(self) -> None:
        pass


def start_reports(
    report: ReportInput, positions: Iterable[int] | None = None, store: bool = True
) -> Reports:
    """Start rendering the reports of `positions` (default: every position): the
    single place the batch calls the family's renderer. The renderer may work
    in other processes while the caller stores the turn; with `store`, it
    hands back each report's stored form alone (`Reports.finished`), made
    where the report was rendered, and `result()` may be empty."""
    start = family_of(report.scenario).report_renderer()
    wanted = None if positions is None else sorted(positions)
    if not store:
        plain: Reports = start(report, positions=wanted)
        return plain
    pending: Reports = start(report, positions=wanted, finish=stored_report, keep=False)
    return pending


def render_reports(
    report: ReportInput, positions: Iterable[int] | None = None
) -> dict[int, RenderedReport]:
    """The reports of `positions` (default: every position), rendered now."""
    pending = start_reports(report, positions, store=False)
    try:
        return pending.result()
    finally:
        pending.close()


def summary_reports(
    report: ReportInput, positions: Iterable[int] | None = None
) -> dict[int, RenderedReport]:
    """A plain report per position: cash, holdings, visible news and refused orders."""
    wanted = [t.position for t in report.after.tycoons] if positions is None else positions
    return {position: _summary_report(report, position) for position in wanted}


def start_summary_reports(
    report: ReportInput, positions: Iterable[int] | None = None, store: bool = True
) -> Reports:
    """`summary_reports` in the shape of `start_reports` (the stored forms are
    made when stored)."""
    return ReadyReports(summary_reports(report, positions))


def _visible_to(event: Event, position: int) -> bool:
    return event.visibility == "public" or event.position == position


def _summary_report(report: ReportInput, position: int) -> RenderedReport:
    tycoon = report.after.tycoon(position)
    news = [e.model_dump(mode="json") for e in report.events if _visible_to(e, position)]
    refused = [r.model_dump(mode="json") for r in report.rejections if r.position == position]
    data = {
        "game": report.game,
        "turn": report.turn,
        "position": position,
        "tycoon": tycoon.model_dump(mode="json"),
        "news": news,
        "rejections": refused,
    }
    lines = [
        f"{report.game}: turn {report.turn} results for position {position}, {tycoon.character}",
        f"Cash {money(tycoon.cash)}   Bank loan {money(tycoon.loan)}",
        "Holdings: "
        + (", ".join(f"{code} {n}" for code, n in sorted(tycoon.holdings.items())) or "none"),
        f"News items: {len(news)}   Orders refused or cut: {len(refused)}",
    ]
    lines += [f"  {r['code']}: {r['hint']}" for r in refused]
    return RenderedReport(text="\n".join(lines) + "\n", pdf=None, json=mapping.canonical_json(data))


def _player_infos(session: Session, game_id: int) -> dict[int, PlayerInfo]:
    return {
        p.position: PlayerInfo(
            p.position, p.character, p.real_name, p.email, p.phone, p.human, p.share_email
        )
        for p in repository.players(session, game_id)
    }


def report_deadline(session: Session, game: Game, turn: int) -> str:
    """The deadline a report of `turn` prints for the next turn: for the last
    turn processed, the game's deadline as it stands (a schedule change moves
    it); for earlier ones, from stored facts only (when the turn was
    processed, the game's schedule), so a report rendered again later is the
    report first mailed."""
    if turn == game.current_turn - 1 and game.deadline is not None:
        return _when(game.deadline)
    if turn == 0:
        processed = game.created_at
    else:
        processed = repository.turn_state(session, game.id, turn + 1).processed_at
    return _when(processed + timedelta(days=game.turn_days))


def stored_report_input(
    session: Session, game: Game, turn: int, deadline: str | None = None
) -> ReportInput:
    """The stored facts of `turn` (0: the opening), for rendering its reports
    again; the players' contacts are today's. `deadline` replaces the printed
    deadline worked out from the stored facts (`report_deadline`)."""
    after = mapping.state_from_json(repository.turn_state(session, game.id, turn + 1).state)
    if turn == 0:
        before, events, rejections, ledger = after, [], [], []
    else:
        before = mapping.state_from_json(repository.turn_state(session, game.id, turn).state)
        events = list(repository.events(session, game.id, turn))
        rejections = list(repository.rejections(session, game.id, turn))
        ledger = list(repository.ledger(session, game.id, turn))
    return _report_input(
        session,
        game,
        scenario_for(game.scenario),
        before,
        after,
        events,
        rejections,
        ledger,
        turn=turn,
        deadline=report_deadline(session, game, turn) if deadline is None else deadline,
        stood_in=_stood_in(session, game, turn),
        replaces=stored_rerun_reason(repository.log_entries_of(session, game.id, RERUN_LOG), turn),
    )


def _stood_in(session: Session, game: Game, turn: int) -> dict[int, PlayerOrders]:
    """The stored orders given for human players who sent none for `turn`."""
    if turn == 0:
        return {}
    humans = {p.position for p in repository.players(session, game.id) if p.human}
    return {
        position: orders
        for position, orders in repository.orders_in_force(
            session, game.id, turn, include_computer=True
        ).items()
        if position in humans and orders.source != "player"
    }


def _report_input(
    session: Session,
    game: Game,
    scenario: Scenario,
    before: GameState,
    after: GameState,
    events: list[Event],
    rejections: list[Rejection],
    ledger: list[LedgerEntry],
    turn: int,
    deadline: str,
    stood_in: dict[int, PlayerOrders] | None = None,
    replaces: str | None = None,
) -> ReportInput:
    return ReportInput(
        scenario=scenario,
        game=game.name,
        turn=turn,
        before=before,
        after=after,
        events=events,
        rejections=rejections,
        ledger=ledger,
        players=_player_infos(session, game.id),
        anonymous=game.anonymous,
        deadline=deadline,
        stood_in=stood_in or {},
        replaces=replaces,
    )


def _stored(
    reports: Mapping[int, RenderedReport], finished: Mapping[int, Any] | None = None
) -> dict[int, StoredReport]:
    """The reports' stored forms, by position: those the renderer made
    (`Reports.finished`), the others made here from `reports`."""
    stored = {
        position: made
        for position, made in (finished or {}).items()
        if isinstance(made, StoredReport)
    }
    for position, report in reports.items():
        if position not in stored:
            stored[position] = stored_report(report)
    return dict(sorted(stored.items()))


def _store_reports(
    session: Session,
    game_id: int,
    turn: int,
    stored: Mapping[int, StoredReport],
    deadline: str,
    mailed: Collection[int],
) -> dict[int, int]:
    """Store a turn's reports once (report ids by position). The PDFs of the
    `mailed` positions are stored as rendered, for the outbox to send without
    rendering them again; the sender drops each once its mail is sent
    (docs/scale.md). The others keep their digest only."""
    return repository.add_reports(
        session,
        game_id,
        turn,
        {
            position: (r.text_z, r.json_z, r.pdf if position in mailed else None, r.pdf_sha256)
            for position, r in stored.items()
        },
        deadline,
    )


def mailed_positions(players: Mapping[int, Player]) -> set[int]:
    """The positions whose report the batch mails: human players with an address."""
    return {p.position for p in players.values() if p.human and p.email}


def _queue_reports(
    session: Session,
    game: Game,
    turn: int,
    players: dict[int, Player],
    stored: Mapping[int, StoredReport],
    report_ids: dict[int, int],
    now: datetime,
) -> None:
    """The report mail of a turn, in one statement; each message carries its
    stored report by reference (text, JSON and PDF are not copied)."""
    messages = []
    mailed = mailed_positions(players)
    for position, report in sorted(stored.items()):
        if position not in mailed:
            continue
        player = players[position]
        digest = report.mail_digest
        messages.append(
            {
                "idempotency_key": f"report/{game.id}/{turn}/{position}/{digest}",
                "kind": "report",
                "to_address": player.email,
                "subject": f"[{game.name}] Turn {turn} report: position {position}",
                # Mailed after the report's text (see OutboxMessage).
                "body": mail_footer(game.id, player, now),
                "game_id": game.id,
                "turn": turn,
                "position": position,
                "pdf_name": f"{game.name}-turn-{turn}-position-{position}.pdf"
                if report.has_pdf
                else None,
                "report_id": report_ids[position],
            }
        )
    repository.queue_mails(session, messages, now)
    # A player sent this very report before (a rerun that changed nothing)
    # gets no second mail: its PDF is not kept for one.
    repository.drop_pdfs_not_mailed(session, game.id, turn)


def report_pdfs(session: Session, reports: Iterable[Report]) -> dict[int, bytes]:
    """The PDFs of stored reports (by report id), rendered again from the
    stored facts, one rendering per game, turn and printed deadline. A PDF
    that does not match the digest stored with its report (a program release
    that draws reports differently, a player's contact details changed since)
    is still the report of those facts; the outbox sends it as rendered now
    and tells the moderator (mail.outbound.DigestMismatch)."""
    groups: dict[tuple[int, int, str], list[Report]] = {}
    for report in reports:
        groups.setdefault((report.game_id, report.turn, report.deadline), []).append(report)
    pdfs: dict[int, bytes] = {}
    for (game_id, turn, deadline), wanted in groups.items():
        game = repository.get_game(session, game_id)
        data = stored_report_input(session, game, turn, deadline=deadline or None)
        rendered = render_reports(data, [r.position for r in wanted])
        for report in wanted:
            pdf = rendered[report.position].pdf
            if pdf is not None:
                pdfs[report.id] = pdf
    return pdfs


class OutboxPdfs:
    """`report_pdfs` for the outbox, sent one message at a time: asked for
    reports, it renders with them every report of their turns still waiting in
    the outbox (each turn's map pages are drawn once), and keeps the PDFs of
    the turns it rendered last while their messages are sent."""

    def __init__(self) -> None:
        self.kept: dict[int, bytes] = {}

    def __call__(self, session: Session, reports: Sequence[Report]) -> dict[int, bytes]:
        missing = {report.id: report for report in reports if report.id not in self.kept}
        if missing:
            wanted = dict(missing)
            for game_id, turn in sorted({(r.game_id, r.turn) for r in missing.values()}):
                waiting = repository.reports_waiting_in_outbox(session, game_id, turn)
                wanted.update((r.id, r) for r in waiting if r.pdf is None)
            still = {r.id: self.kept[r.id] for r in reports if r.id in self.kept}
            self.kept = still | report_pdfs(session, wanted.values())
        return {report.id: self.kept[report.id] for report in reports if report.id in self.kept}
