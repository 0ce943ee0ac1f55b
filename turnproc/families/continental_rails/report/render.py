"""The renderer's entry points for the batch, the bench and `turnproc report render`.

`render_player_report` renders one position's report three ways (PDF with
maps, plain text, JSON) from one `PlayerReport`. `start_turn_reports` renders
every position of a turn, sharing the map's geography and using worker
processes when there are several cores, and returns at once, so the batch can
store the turn while the reports render; `render_turn_reports` waits for them.
The input is handed to the workers by fork, so nothing large is pickled on the
way in.
"""

import contextlib
import gc
import multiprocessing
import multiprocessing.process
import os
import resource
import statistics
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, NoReturn, Protocol

from turnproc.core.collection import few_collections
from turnproc.core.ledger import LedgerEntry
from turnproc.families.continental_rails.engine.events import Announcement as AnnouncementEvent
from turnproc.families.continental_rails.engine.events import Event, Rejection
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.report import internals
from turnproc.families.continental_rails.report.export import render_json
from turnproc.families.continental_rails.report.maps import Drawn, MapPages, Page
from turnproc.families.continental_rails.report.meta import (
    Announcement,
    Contact,
    GameMeta,
    Replacement,
    StoodIn,
)
from turnproc.families.continental_rails.report.model import PlayerReport, build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.text import render_text, text_template
from turnproc.families.continental_rails.report.wording import Wording, load_wording
from turnproc.families.continental_rails.turnsheet.language import format_order
from turnproc.families.continental_rails.turnsheet.render import (
    render_turnsheet,
    turnsheet_template,
)
from turnproc.scenario.model import Scenario


@dataclass(frozen=True)
class RenderedReport:
    """One position's report: the email body, the PDF attachment, the JSON export."""

    text: str
    pdf: bytes | None
    json: str


class PlayerContact(Protocol):
    """What the store knows of a player (turnproc.pipeline.reports.PlayerInfo)."""

    @property
    def real_name(self) -> str: ...
    @property
    def email(self) -> str | None: ...
    @property
    def phone(self) -> str: ...
    @property
    def share_email(self) -> bool: ...


class TurnInput(Protocol):
    """A stored or just-resolved turn (turnproc.pipeline.reports.ReportInput)."""

    @property
    def scenario(self) -> Scenario: ...
    @property
    def game(self) -> str: ...
    @property
    def turn(self) -> int: ...  # 0: the opening report of a new game
    @property
    def before(self) -> GameState: ...
    @property
    def after(self) -> GameState: ...
    @property
    def events(self) -> Sequence[Event]: ...
    @property
    def rejections(self) -> Sequence[Rejection]: ...
    @property
    def ledger(self) -> Sequence[LedgerEntry]: ...
    @property
    def players(self) -> Mapping[int, PlayerContact]: ...
    @property
    def anonymous(self) -> bool: ...
    @property
    def deadline(self) -> str: ...  # next turn's deadline as printed; "" if none
    @property
    def stood_in(self) -> Mapping[int, PlayerOrders]: ...  # orders given for missed turns
    @property
    def replaces(self) -> str | None: ...  # run again: the moderator's reason; None: first run


def meta_of(data: TurnInput) -> GameMeta:
    """The report's game metadata from the batch's input."""
    return GameMeta(
        name=data.game,
        anonymous=data.anonymous,
        deadline=data.deadline,
        contacts={
            pos: Contact(
                real_name=p.real_name,
                email=p.email or "",
                phone=p.phone,
                withhold_address=not p.share_email,
            )
            for pos, p in data.players.items()
        },
        stood_in={
            position: StoodIn(source=orders.source, orders=[format_order(o) for o in orders.orders])
            for position, orders in data.stood_in.items()
        },
        replaces=None if data.replaces is None else Replacement(reason=data.replaces),
        announcements=[
            Announcement(
                position=None if data.anonymous else event.position,
                anonymous=event.anonymous,
                text=event.text,
            )
            for event in data.events
            if isinstance(event, AnnouncementEvent)
        ],
    )


def render_player_report(
    scenario: Scenario,
    start: GameState,
    result: TurnResult,
    meta: GameMeta,
    position: int,
    maps: MapPages | None = None,
    turnsheet: bool = True,
    opening: bool = False,
    wording: Wording | None = None,
) -> RenderedReport:
    """9 The report of `position` for the turn `result` resolved (or, with
    `opening`, the game's starting situation), with next turn's turnsheet."""
    sheet = None
    if turnsheet and not result.state.ended:
        sheet = render_turnsheet(
            result.state, scenario, position, game=meta.name or None, deadline=meta.deadline or None
        )
    report = build_report(
        scenario, start, result, meta, position, turnsheet=sheet, wording=wording, opening=opening
    )
    return RenderedReport(
        text=render_text(report), pdf=render_pdf(report, maps), json=render_json(report)
    )


@dataclass(frozen=True)
class _Turn:
    """One turn being rendered for many readers: what they all share."""

    data: TurnInput
    meta: GameMeta
    result: TurnResult
    wording: Wording
    maps: MapPages | None
    first: PlayerReport  # any reader's report: it keys the map's railroad layer
    # Applied to each report in the process that rendered it (see start_turn_reports).
    finish: "Callable[[RenderedReport], Any] | None" = None
    keep: bool = True  # False: the report itself is not kept, only what `finish` made

    def finished(self, position: int) -> tuple[RenderedReport | None, Any]:
        """The report of `position` (if kept) and what `finish` makes of it."""
        report = self.render(position)
        made = None if self.finish is None else self.finish(report)
        return report if self.keep else None, made

    def render(self, position: int) -> RenderedReport:
        return render_player_report(
            self.data.scenario,
            self.data.before,
            self.result,
            self.meta,
            position,
            maps=self.maps,
            opening=self.data.turn == 0,
            wording=self.wording,
        )


# The turn handed to forked workers by inheritance, never pickled.
_JOB: list[_Turn] = []
# Each shared map page's geography and railroad layer.
Layers = dict[Page, tuple[Drawn, Drawn | None]]


def _do(kind: str, argument: Any, layers: Layers) -> Any:
    """One task of a worker: draw a shared map page's railroad layer ("draw",
    page) or render one position's report ("render", position), after taking
    the pages other workers drew since its last task."""
    turn = _JOB[0]
    if turn.maps is not None:
        for page, (geography, layer) in layers.items():
            turn.maps.install(turn.first, page, geography, layer)
    if kind == "draw":
        assert turn.maps is not None
        return turn.maps.draw_shared(turn.first, argument)
    return turn.finished(argument)


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class _Workers:
    """Forked worker processes, each with its own pipe. Unlike a
    multiprocessing.Pool there is no queue shared by the workers, so a worker
    that dies (killed for memory, a crash in C code) is noticed at once and the
    others can still be stopped; a Pool hangs on both."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("fork")
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.pipes: list[Connection] = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_work, args=(theirs, ours), name="report-renderer", daemon=True
            )
            process.start()
            theirs.close()
            self.processes.append(process)
            self.pipes.append(ours)

    def run(self, tasks: Sequence[tuple[str, Any]], stop: threading.Event) -> list[Any] | None:
        """The tasks handed out in order, each to the next worker free (the
        reports differ in length: a fixed share each leaves one worker idle
        while the other finishes), results in the tasks' order; None if `stop`
        is set. A shared page drawn by one worker goes to each other one with
        its next task. No report is handed out before every shared page is
        in: a worker that would start one while another still draws a page
        waits for that page (a few hundredths of a second) rather than draw
        it again itself, which takes longer. Once the pages are in and while
        more than one task a worker is left, each worker holds its next task
        as well, so it never waits for this process between two."""
        queue = deque(range(len(tasks)))
        results: list[Any] = [None] * len(tasks)
        drawn: Layers = {}
        has: list[set[Page]] = [set() for _ in self.pipes]
        held: dict[Connection, deque[int]] = {pipe: deque() for pipe in self.pipes}
        pages = sum(1 for kind, _ in tasks if kind == "draw")

        def hand(worker: int) -> None:
            index = queue.popleft()
            kind, argument = tasks[index]
            news = {page: both for page, both in drawn.items() if page not in has[worker]}
            has[worker].update(news)
            held[self.pipes[worker]].append(index)
            try:
                self.pipes[worker].send((kind, argument, news))
            except OSError:  # the worker died before it got the task
                self._died(self.processes[worker])

        def top_up(worker: int) -> None:
            ahead = 2 if len(drawn) == pages and len(queue) > len(self.pipes) else 1
            while queue and len(held[self.pipes[worker]]) < ahead:
                if tasks[queue[0]][0] != "draw" and len(drawn) < pages:
                    return  # the shared pages are not all in yet
                hand(worker)

        for worker in range(len(self.pipes)):
            top_up(worker)
        sentinels = {process.sentinel: process for process in self.processes}
        while any(held.values()):
            if stop.is_set():
                return None
            busy = [pipe for pipe, indices in held.items() if indices]
            for ready in wait([*busy, *sentinels], timeout=0.05):
                if ready in sentinels:
                    self._died(sentinels[ready])
                assert isinstance(ready, Connection)
                worker = self.pipes.index(ready)
                try:
                    status, value = ready.recv()
                except (EOFError, OSError):  # the worker died while we waited for it
                    self._died(self.processes[worker])
                if status != "ok":
                    raise RuntimeError(f"the report renderer failed: {value}")
                index = held[ready].popleft()
                results[index] = value
                kind, argument = tasks[index]
                if kind == "draw":
                    drawn[argument] = value
                    has[worker].add(argument)
                    if len(drawn) == pages:  # the reports can go out to every worker now
                        for other in range(len(self.pipes)):
                            top_up(other)
                top_up(worker)
        return results

    @staticmethod
    def _died(process: multiprocessing.process.BaseProcess) -> NoReturn:
        process.join(timeout=1)
        raise RuntimeError(f"a report renderer process died (exit code {process.exitcode})")

    def stop(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(OSError):  # that worker may be gone already
                pipe.send(None)
        for process in self.processes:
            process.join(timeout=2)
            if process.is_alive():
                process.kill()
                process.join()
        for pipe in self.pipes:
            pipe.close()


def _work(pipe: Connection, parents_end: Connection) -> None:
    """A worker process: draw map pages and render reports until told to stop."""
    parents_end.close()
    while True:
        try:
            task = pipe.recv()
        except EOFError:  # the batch process is gone
            return
        if task is None:
            return
        try:
            pipe.send(("ok", _do(*task)))
        except Exception as exc:
            pipe.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))


# The reports by position and what `finish` made of each.
_Outcome = tuple[dict[int, RenderedReport], dict[int, Any]]


def _outcome(done: Iterable[tuple[int, tuple[RenderedReport | None, Any]]]) -> _Outcome:
    reports: dict[int, RenderedReport] = {}
    made: dict[int, Any] = {}
    for position, (report, value) in done:
        if report is not None:
            reports[position] = report
        made[position] = value
    return reports, made


class PendingReports:
    """Reports being rendered by worker processes while the caller goes on
    (the batch stores the turn meanwhile). `result()` waits for them; `close()`
    stops the workers if the caller gives up first. Use as a context manager."""

    def __init__(
        self,
        ready: dict[int, RenderedReport] | None = None,
        workers: _Workers | None = None,
        driver: threading.Thread | None = None,
        outcome: "list[_Outcome | BaseException] | None" = None,
        stop: threading.Event | None = None,
        finished: dict[int, Any] | None = None,
    ) -> None:
        self._ready = ready
        self._finished = finished if finished is not None else {}
        self._stop = stop
        self._workers = workers
        self._driver = driver
        self._outcome = outcome if outcome is not None else []

    def result(self) -> dict[int, RenderedReport]:
        if self._ready is None:
            assert self._driver is not None
            self._driver.join()
            self.close()
            if not self._outcome:
                raise RuntimeError("the reports were abandoned (close) before they were ready")
            found = self._outcome[0]
            if isinstance(found, BaseException):
                raise found
            self._ready, self._finished = found
        return self._ready

    def finished(self) -> dict[int, Any]:
        """What `finish` made of each report, by position (once `result()` is in)."""
        self.result()
        return self._finished

    def close(self) -> None:
        if self._stop is not None:
            self._stop.set()  # the helper thread stops waiting for abandoned work
        if self._driver is not None:
            self._driver.join()
        if self._workers is not None:
            self._workers.stop()
            self._workers = None
        _JOB.clear()

    def __enter__(self) -> "PendingReports":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_turn_reports(
    data: TurnInput,
    positions: Sequence[int] | None = None,
    workers: int | None = None,
    maps: bool = True,
    meta: GameMeta | None = None,
    finish: Callable[[RenderedReport], Any] | None = None,
    keep: bool = True,
) -> PendingReports:
    """Start rendering every position's report of one turn in `workers`
    processes (default: up to 2) and return at once; with one worker (or no
    fork) the reports are rendered before returning. `meta` replaces the
    metadata taken from `data` (announcements, deadline). `finish` is
    applied to each report in the worker that rendered it, beside the other
    reports still rendering rather than after them all (the batch deflates a
    report for the store there); `PendingReports.finished()` has the results.
    With `keep` False only those come back and `result()` is empty (the
    batch stores no PDF: they are most of the bytes a worker sends back).

    The geography of each map page every reader has (the continent, the
    north-east, the south-east if lines reach there) is drawn here, once per
    process; their railroad layers are the workers' first tasks, each drawn
    and compressed once and handed to the other workers with their next
    task. Then each report goes to the next worker free. The worker
    processes are forked here, in the caller's thread; a helper thread only
    hands them their work and collects the results."""
    wanted = list(positions) if positions is not None else [t.position for t in data.after.tycoons]
    if not wanted:
        return PendingReports(ready={})
    result = TurnResult(
        state=data.after,
        events=list(data.events),
        rejections=list(data.rejections),
        ledger=list(data.ledger),
    )
    meta = meta or meta_of(data)
    wording = load_wording(data.scenario, data.after)
    pages = MapPages(data.scenario) if maps else None
    first = build_report(data.scenario, data.before, result, meta, wanted[0], wording=wording)
    turn = _Turn(data, meta, result, wording, pages, first, finish, keep)
    count = min(workers or default_workers(), len(wanted))
    if count <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        with few_collections():
            if pages is not None and internals.PRIVATE:
                pages.prepare(first)
            ready, made = _outcome((pos, turn.finished(pos)) for pos in wanted)
            return PendingReports(ready=ready, finished=made)
    # Compiled and drawn here once per process, inherited by every worker.
    text_template()
    turnsheet_template()
    shared: list[Page] = []
    if pages is not None and internals.PRIVATE:  # else each report draws its maps whole
        pages.geography(False, first)
        pages.geography(True)
        pages.south_east(first)
        shared = pages.shared_pages(first)
    _JOB.clear()
    _JOB.append(turn)
    # The workers' inherited objects stay out of their garbage collector's
    # way: it does not walk them (nor copy the memory they are in).
    gc.freeze()
    try:
        with few_collections():
            forked = _Workers(count)
    finally:
        gc.unfreeze()
    outcome: list[_Outcome | BaseException] = []
    stop = threading.Event()

    def drive() -> None:
        try:
            tasks = [("draw", page) for page in shared] + [("render", pos) for pos in wanted]
            done = forked.run(tasks, stop)
            if done is None:
                return
            outcome.append(_outcome(zip(wanted, done[len(shared) :], strict=True)))
        except BaseException as exc:  # handed to the caller by result()
            outcome.append(exc)

    driver = threading.Thread(target=drive, name="report-renderer", daemon=True)
    driver.start()
    return PendingReports(workers=forked, driver=driver, outcome=outcome, stop=stop)


def render_turn_reports(
    data: TurnInput,
    positions: Sequence[int] | None = None,
    workers: int | None = None,
    maps: bool = True,
    meta: GameMeta | None = None,
) -> dict[int, RenderedReport]:
    """Every position's report of one turn (see `start_turn_reports`)."""
    with start_turn_reports(data, positions, workers, maps, meta) as pending:
        return pending.result()


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def render_turn_seconds(data: TurnInput, runs: int = 3) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (this process and its workers) of
    `render_turn_reports(data)` over `runs` runs after one warm-up run. On a
    loaded machine the wall clock grows with the load; the CPU time does not."""
    render_turn_reports(data)
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), _cpu_seconds()
        render_turn_reports(data)
        cpus.append(_cpu_seconds() - cpu)
        walls.append(time.perf_counter() - wall)
    return round(statistics.median(walls), 4), round(statistics.median(cpus), 4)
