"""`turnproc bench`: the figures users care about, as medians over several runs.

Everything is measured on one fixed mid-game state: turn 15 of a seeded game of
15 computer players (`midgame`). The pieces that belong to other layers
(turnsheet intake, the batch, the renderer) are imported when measured; a piece
that cannot be measured yet is reported as null with the reason in `notes`, so
the command always works. `replay_18xx_s` is the median, over the recorded 18xx
games beside the repository, of each game's median CPU seconds for a full replay.
`turn_to_mailbox_s` is the CPU seconds, over every process of the program, from
the bench game's turn falling due to its reports accepted by a mail server on
127.0.0.1 (turnproc/bench_mailbox.py).
"""

import importlib
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from turnproc.core.errors import TurnprocError
from turnproc.families.continental_rails import ai
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import resolve_turn
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.tools.simulate import play_game
from turnproc.scenario.loader import load_scenario
from turnproc.scenario.model import Scenario

KEYS = (
    "resolve_turn_s",
    "parse_turnsheet_s",
    "batch_turn_sqlite_s",
    "batch_turn_postgres_s",
    "render_reports_s",
    "simulate_game_s",
    "replay_18xx_s",
    "peak_rss_mb",
    "web_game_page_s",
    "cli_start_s",
    "turn_to_mailbox_s",
)
MIDGAME_TURN = 15
POSTGRES_ENV = "TURNPROC_BENCH_POSTGRES_URL"
FIXTURES_ENV = "TURNPROC_18XX_FIXTURES"
REPO = Path(__file__).resolve().parent.parent


class Unavailable(Exception):
    """A piece of the program that cannot be measured (yet); the message says why."""


def _failure(exc: BaseException) -> str:
    """An exception as one line: type, message, and the program's line that raised it."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/turnproc/" in f.filename] or frames
    where = f" ({ours[-1].filename.split('/turnproc/')[-1]}:{ours[-1].lineno})" if ours else ""
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}{where}"


def median_seconds(
    action: Callable[[], object], runs: int, cpu: list[float] | None = None
) -> float:
    """Median wall-clock seconds of `runs` calls; the median CPU seconds of this
    process are appended to `cpu` when given (a loaded machine inflates the
    wall clock, not the CPU time)."""
    times = []
    cpu_times = []
    for _ in range(runs):
        start = time.perf_counter()
        start_cpu = time.process_time()
        action()
        cpu_times.append(time.process_time() - start_cpu)
        times.append(time.perf_counter() - start)
    if cpu is not None:
        cpu.append(round(statistics.median(cpu_times), 4))
    return round(statistics.median(times), 4)


def all_orders(scenario: Scenario, state: GameState) -> dict[int, PlayerOrders]:
    facts = ai.TurnFacts(scenario, state)
    return {
        t.position: ai.computer_orders(scenario, state, t.position, facts) for t in state.tycoons
    }


def midgame(scenario: Scenario, seed: int) -> GameState:
    """The state at the start of turn 15 of the seeded game of computer players."""
    state = new_game(scenario, seed, [PlayerSetup(position=p) for p in range(1, 16)])
    while state.turn < MIDGAME_TURN and not state.ended:
        state = resolve_turn(scenario, state, all_orders(scenario, state)).state
    return state


def bench_parse(scenario: Scenario, state: GameState, runs: int) -> float:
    """One full turnsheet (a president of two railroads, every action) parsed and
    checked, as intake does on arrival: intake's own benchmark."""
    try:
        intake_bench = importlib.import_module(
            "turnproc.families.continental_rails.turnsheet.bench"
        )
        measure = intake_bench.parse_turnsheet_seconds
    except (ImportError, AttributeError) as exc:
        raise Unavailable(f"turnsheet intake benchmark not available: {exc}") from None
    return round(float(measure(state, scenario, repeat=runs)), 4)


def _replay_all(floor: Any, recorded: list[tuple[bytes, Any]]) -> None:
    for _, ops in recorded:
        floor.replay(ops)


def _as_played_by_people(state: GameState) -> GameState:
    """`state` with every position in human hands, as the batch bench has it
    (a human player's report has a page of his own railroads' lines)."""
    return state.model_copy(
        update={"tycoons": [t.model_copy(update={"human": True}) for t in state.tycoons]}
    )


def bench_render(scenario: Scenario, state: GameState, runs: int) -> dict[str, float]:
    """The 15 reports of one turn (PDF with maps, text, JSON), without the
    database: wall and CPU seconds (this process and its workers), and the
    bare-canvas floor: the same drawing calls replayed on a plain ReportLab
    canvas and written (render.floor), CPU seconds in this process. The
    reports are those the batch bench renders, of 15 human players; the same
    figures for 15 computer players (no page of their own lines) carry the
    suffix `_computer`."""
    try:
        renderer = importlib.import_module("turnproc.families.continental_rails.report.render")
        reports = importlib.import_module("turnproc.pipeline.reports")
        floor = importlib.import_module("turnproc.families.continental_rails.report.floor")
    except (ImportError, AttributeError) as exc:
        raise Unavailable(f"report renderer not wired yet: {exc}") from None
    orders = all_orders(scenario, state)
    figures: dict[str, float] = {}
    for suffix, start in (("", _as_played_by_people(state)), ("_computer", state)):
        result = resolve_turn(scenario, start, orders)
        report = reports.ReportInput.of_resolved(scenario, "bench", start, result)
        wall, cpu = renderer.render_turn_seconds(report, runs)
        recorded = floor.record_turn(report)
        rendered = renderer.render_turn_reports(report)
        positions = [t.position for t in result.state.tycoons]
        for position, (pdf, ops) in zip(positions, recorded, strict=True):
            if floor.replay(ops) != pdf or rendered[position].pdf != pdf:
                raise RuntimeError("the floor's replayed PDF is not the report's")
        floor_cpu: list[float] = []
        median_seconds(partial(_replay_all, floor, recorded), runs, floor_cpu)
        figures |= {
            f"render_reports_s{suffix}": wall,
            f"render_reports_cpu_s{suffix}": cpu,
            f"render_floor_s{suffix}": floor_cpu[-1],
            f"render_floor_ratio{suffix}": round(cpu / floor_cpu[-1], 2),
        }
    return figures


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its finished children (the report
    renderer's workers); the database server's are not counted."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_cli_start(runs: int) -> dict[str, float]:
    """cli_start_s: wall seconds of a whole `turnproc --help` process (the
    interpreter's start, the imports, the parser; what every cron `turnproc
    mail ingest` pays before it reads its message), median of `runs`; and
    cli_start_cpu_s, its CPU seconds."""
    script = Path(sys.executable).with_name("turnproc")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "turnproc"]
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*command, "--help"], check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {
        "cli_start_s": round(statistics.median(walls), 4),
        "cli_start_cpu_s": round(statistics.median(cpus), 4),
    }


def own_peak_rss_mb() -> float:
    """This process's own peak resident memory in MB. Linux keeps
    `ru_maxrss` across execve, so a process spawned by a large one would
    report its parent's memory there; the high-water mark of the process's
    own address space (VmHWM) starts afresh at exec. Elsewhere, `ru_maxrss`."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _batch_runs(url: str, scenario_name: str, state_json: str, runs: int) -> dict[str, Any]:
    """In a fresh process: a game at turn 15 in the database at `url`, then
    `runs` whole batch turns (each rolled back afterwards). Returns the median
    seconds and this process's peak memory."""
    try:
        games = importlib.import_module("turnproc.pipeline.games")
        pipeline_players = importlib.import_module("turnproc.pipeline.players")
        turns = importlib.import_module("turnproc.pipeline.turns")
        db = importlib.import_module("turnproc.store.db")
        repository = importlib.import_module("turnproc.store.repository")
        mapping = importlib.import_module("turnproc.store.mapping")
        from turnproc import __version__

        state = GameState.model_validate_json(state_json)
        engine = db.open_database(url)
        now = datetime.now(UTC)
        name = f"bench-{os.getpid()}-{time.time_ns()}"
        players = [
            pipeline_players.PlayerEntry(
                position=t.position, email=f"player{t.position}@bench.invalid"
            )
            for t in state.tycoons
        ]
        with db.transaction(engine) as session:
            created = games.create_game(
                session,
                scenario=scenario_name,
                players=players,
                seed=state.seed,
                name=name,
                now=now,
            )
            game = repository.get_game(session, created.game_id)
            human = _as_played_by_people(state)
            repository.add_turn_state(
                session, game.id, state.turn, mapping.state_json(human), __version__, now
            )
            game.current_turn = state.turn
            # A mid-game turn as players play it: every position's orders came in.
            scenario = load_scenario(scenario_name)
            for orders in all_orders(scenario, state).values():
                sent = orders.model_copy(update={"source": "player"})
                repository.set_orders_in_force(session, game.id, state.turn, sent, now)
        times, cpu_times = [], []
        for _ in range(runs):
            start, start_cpu = time.perf_counter(), _cpu_with_children()
            outcome = turns.batch_turn(engine, created.game_id, now=now)
            cpu_times.append(_cpu_with_children() - start_cpu)
            times.append(time.perf_counter() - start)
            if not outcome.processed:
                return {"error": f"the batch did not run the turn: {outcome.message}"}
            with db.transaction(engine) as session:
                turns.rollback(session, created.game_id, state.turn, now, reason="bench")
        with db.transaction(engine) as session:  # the bench leaves no game behind
            session.delete(repository.get_game(session, created.game_id))
        peak = own_peak_rss_mb()
        # The largest of the report renderer's worker processes (forked, so
        # much of it is shared with the batch process rather than added to it).
        worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        return {
            "seconds": round(statistics.median(times), 4),
            "cpu_seconds": round(statistics.median(cpu_times), 4),
            "peak_rss_mb": round(peak, 1),
            "peak_rss_render_worker_mb": round(worker, 1),
        }
    except Exception as exc:
        return {"error": _failure(exc)}


def bench_batch(url: str, scenario_name: str, state: GameState, runs: int) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(_batch_runs, url, scenario_name, state.model_dump_json(), runs).result()


def recorded_18xx_games() -> list[Path]:
    """The recorded 18xx games beside the repository (../shared/18xx/fixtures,
    or the folder named by TURNPROC_18XX_FIXTURES)."""
    named = os.environ.get(FIXTURES_ENV)
    folders = [Path(named)] if named else []
    folders += [REPO.parent / "shared/18xx/fixtures", REPO.parent.parent / "shared/18xx/fixtures"]
    folder = next((f for f in folders if f.is_dir()), None)
    if folder is None:
        raise Unavailable(f"no recorded 18xx games in {' or '.join(str(f) for f in folders)}")
    return sorted(folder.glob("*/*.json"))


def bench_replay_18xx(runs: int) -> dict[str, float]:
    """Median CPU seconds of a full replay of each recorded 18xx game."""
    import json

    from turnproc.families.g18xx.replay import replay

    per_game: dict[str, float] = {}
    for path in recorded_18xx_games():
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        cpu: list[float] = []
        median_seconds(partial(replay, data), runs, cpu)
        per_game[f"{path.parent.name}/{path.name}"] = cpu[-1]
    return per_game


def _bench_web(
    figures: dict[str, Any], notes: dict[str, str], scenario_name: str, seed: int, runs: int
) -> None:
    """web_game_page_s (turnproc/web/bench.py)."""
    try:
        from turnproc.web.bench import bench_web

        figures.update(bench_web(scenario_name, seed, runs))
    except Exception as exc:
        notes["web_game_page_s"] = f"failed: {_failure(exc)}"


def _bench_mailbox(
    figures: dict[str, Any], notes: dict[str, str], scenario_name: str, state: GameState, runs: int
) -> None:
    """turn_to_mailbox_s (turnproc/bench_mailbox.py)."""
    try:
        from turnproc.bench_mailbox import bench_turn_to_mailbox

        figures.update(bench_turn_to_mailbox(scenario_name, state, runs))
    except Unavailable as exc:
        notes["turn_to_mailbox_s"] = str(exc)
    except Exception as exc:
        notes["turn_to_mailbox_s"] = f"failed: {_failure(exc)}"


def run_bench(
    scenario_name: str = "continental-rails",
    seed: int = 1,
    runs: int = 5,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    """Every figure of `turnproc bench`, with notes for those not measured."""
    scenario = load_scenario(scenario_name)
    figures: dict[str, Any] = dict.fromkeys(KEYS)
    notes: dict[str, str] = {}
    log("cli_start (turnproc --help)")
    try:
        figures.update(bench_cli_start(max(runs, 7)))
    except Exception as exc:
        notes["cli_start_s"] = f"failed: {_failure(exc)}"
    log(f"building the turn-{MIDGAME_TURN} state (seed {seed})")
    try:
        state = midgame(scenario, seed)
        orders = all_orders(scenario, state)
        log("resolve_turn")
        cpu: list[float] = []
        figures["resolve_turn_s"] = median_seconds(
            lambda: resolve_turn(scenario, state, orders), max(runs, 5), cpu
        )
        figures["resolve_turn_cpu_s"] = cpu[-1]
    except Exception as exc:
        raise TurnprocError(
            f"the rules engine failed on the benchmark game (seed {seed}): {_failure(exc)}"
        ) from None
    figures["computer_orders_s"] = median_seconds(
        lambda: all_orders(scenario, state), max(runs, 5), cpu
    )
    figures["computer_orders_cpu_s"] = cpu[-1]

    log("parse_turnsheet")
    try:
        figures["parse_turnsheet_s"] = bench_parse(scenario, state, max(runs, 5))
    except Unavailable as exc:
        notes["parse_turnsheet_s"] = str(exc)
    except Exception as exc:
        notes["parse_turnsheet_s"] = f"failed: {_failure(exc)}"

    log("render_reports")
    try:
        figures.update(bench_render(scenario, state, max(1, runs // 2)))
    except Unavailable as exc:
        notes["render_reports_s"] = str(exc)
    except Exception as exc:
        notes["render_reports_s"] = f"failed: {_failure(exc)}"

    log("batch_turn (SQLite)")
    with tempfile.TemporaryDirectory(prefix="turnproc-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        outcome = bench_batch(url, scenario_name, state, max(1, runs // 2))
    if "error" in outcome:
        notes["batch_turn_sqlite_s"] = outcome["error"]
        notes["peak_rss_mb"] = "no batch run was measured"
    else:
        figures["batch_turn_sqlite_s"] = outcome["seconds"]
        figures["batch_turn_sqlite_cpu_s"] = outcome["cpu_seconds"]
        figures["peak_rss_mb"] = outcome["peak_rss_mb"]
        figures["peak_rss_render_worker_mb"] = outcome["peak_rss_render_worker_mb"]

    postgres = os.environ.get(POSTGRES_ENV)
    if not postgres:
        notes["batch_turn_postgres_s"] = f"{POSTGRES_ENV} is not set"
    else:
        log("batch_turn (PostgreSQL)")
        outcome = bench_batch(postgres, scenario_name, state, max(1, runs // 2))
        if "error" in outcome:
            notes["batch_turn_postgres_s"] = outcome["error"]
        else:
            figures["batch_turn_postgres_s"] = outcome["seconds"]
            figures["batch_turn_postgres_cpu_s"] = outcome["cpu_seconds"]

    log("turn_to_mailbox (`turn run --due`, then `mail send` to an SMTP server on 127.0.0.1)")
    _bench_mailbox(figures, notes, scenario_name, state, max(1, runs // 2))

    log("web_game_page (a turn-25 game)")
    _bench_web(figures, notes, scenario_name, seed, max(3, runs))

    log("simulate_game (25 turns)")
    played: list[int] = []

    failures: list[str] = []

    def one_game() -> None:
        stats = play_game(scenario, seed, turns=25, check=False)
        played.append(stats.turns)
        if stats.crashed:
            failures.append(stats.crashed)

    seconds = median_seconds(one_game, max(1, runs // 2), cpu)
    figures["simulate_game_cpu_s"] = cpu[-1]
    if failures:
        notes["simulate_game_s"] = f"the engine failed: {failures[0]}"
    else:
        figures["simulate_game_s"] = seconds
    log("replay_18xx (recorded games)")
    try:
        per_game = bench_replay_18xx(max(runs, 5))
        figures["replay_18xx_s"] = round(statistics.median(per_game.values()), 4)
        figures["replay_18xx_games_cpu_s"] = per_game
    except Unavailable as exc:
        notes["replay_18xx_s"] = str(exc)
    except Exception as exc:
        notes["replay_18xx_s"] = f"failed: {_failure(exc)}"
    figures["simulate_game_turns"] = played[-1]
    figures["midgame_turn"] = state.turn
    figures["midgame_railroads"] = len(state.railroads)
    figures["seed"] = seed
    figures["runs"] = runs
    figures["python"] = platform.python_version()
    figures["cpus"] = os.cpu_count()
    figures["notes"] = notes
    return figures
