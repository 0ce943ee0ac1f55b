"""`turnproc bench --scale N`: what a site of N weekly games asks of its database.

One real game is played first: the turn-15 state of the benchmark game
(`bench.midgame`) with 15 human players, whole batch turns (reports rendered,
stored, mail queued), each turn's mail then sent (to a server that accepts
everything), as `turnproc mail send` does, which drops the PDFs it sent. The
database's growth over three such turns, after a first one, is
`stored_bytes_per_game_turn`: what stays once the mail is out. The PDFs kept
until then are `pdf_bytes_until_sent_per_game_turn`. That game's rows are then copied, in bulk, into
N games at mid-game (their state, players, standings and the orders two thirds
of the players have sent) and N ended games, each with its own name, id and
deadline. Copies, not N real games: the figures measured on them (the due scan,
reminders, a new game) read these rows, and rows that look like real ones are all they
need. Only an empty database is used, and what the bench creates stays there
(bench on a database made for it, and drop it afterwards).
"""

import statistics
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sqlalchemy import Engine, func, insert, select, text, update
from sqlalchemy.orm import Session

from turnproc import __version__
from turnproc.bench import all_orders, midgame
from turnproc.core.errors import UsageError
from turnproc.mail.outbound import send_outbox
from turnproc.pipeline import games, schedule, turns
from turnproc.pipeline import players as pipeline_players
from turnproc.scenario.loader import load_scenario
from turnproc.store import mapping, repository
from turnproc.store.db import transaction
from turnproc.store.models import (
    Game,
    OrdersInForce,
    Player,
    Report,
    Standing,
    TurnState,
    game_name_key,
)

REAL_TURNS = 3
CHUNK = 500  # games inserted per statement batch
SENT_ORDERS = 10  # of 15 positions: players who sent orders by scan time


def _database_bytes(session: Session) -> int:
    if session.get_bind().dialect.name == "postgresql":
        return int(
            session.scalar(
                text(
                    "SELECT SUM(pg_total_relation_size(oid)) FROM pg_class "
                    "WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace"
                )
            )
            or 0
        )
    pages = session.scalar(text("PRAGMA page_count")) or 0
    free = session.scalar(text("PRAGMA freelist_count")) or 0
    size = session.scalar(text("PRAGMA page_size")) or 0
    return int((pages - free) * size)


class _Accepting:
    """A mail server that accepts every message (the scale bench sends the
    turn's mail to drop the PDFs kept until sent, not to measure sending)."""

    def send(self, message: EmailMessage, before_data: Callable[[], bool]) -> bool:
        return before_data()


def _mail_sent(engine: Engine) -> None:
    """The outbox sent, as `turnproc mail send` does after a turn (the PDFs
    sent are dropped, their digests kept), then on PostgreSQL the vacuum that
    autovacuum makes: the room of the rows dropped is free for the next turn's."""
    report = send_outbox(engine, _Accepting(), "scale@bench.invalid")
    if report.failed or report.dead or report.ambiguous:
        raise RuntimeError(f"the scale bench's mail did not all go: {report}")
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM"))


def _pdf_bytes_kept(session: Session, game_id: int) -> int:
    """The bytes of the PDFs a game's reports keep until their mail is sent."""
    return int(
        session.scalar(
            select(func.coalesce(func.sum(func.length(Report.pdf)), 0)).where(
                Report.game_id == game_id, Report.pdf.is_not(None)
            )
        )
        or 0
    )


def _timed(action: Callable[[], object], runs: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds (this process) of `runs` calls, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return round(statistics.median(walls), 4), round(statistics.median(cpus), 4), result


def _real_game(
    engine: Engine, scenario_name: str, seed: int, now: datetime
) -> tuple[int, int, int]:
    """The template game: turn 15 of the benchmark game with 15 human players,
    a first batch turn and three more played, each turn's mail sent. Returns
    its id, the bytes the three turns stored, and the bytes of the PDFs they
    kept until their mail was sent."""
    scenario = load_scenario(scenario_name)
    state = midgame(scenario, seed)
    human = state.model_copy(
        update={"tycoons": [t.model_copy(update={"human": True}) for t in state.tycoons]}
    )
    players = [
        pipeline_players.PlayerEntry(position=t.position, email=f"player{t.position}@scale.invalid")
        for t in state.tycoons
    ]
    with transaction(engine) as session:
        created = games.create_game(
            session,
            scenario=scenario_name,
            seed=seed,
            name="scale-template",
            now=now,
        )
        game = repository.get_game(session, created.game_id)
        for entry in players:  # humans with mail, as on a real site
            player = repository.get_player(session, game.id, entry.position)
            player.human, player.email = True, entry.email
        repository.add_turn_state(
            session, game.id, human.turn, mapping.state_json(human), __version__, now
        )
        game.current_turn = human.turn
    before, pdfs = 0, 0
    # The first turn's PDFs leave room (once sent and vacuumed) that the
    # next turns' PDFs use again, as on a site that has run a turn before.
    for played in range(1 + REAL_TURNS):
        if played == 1:
            with transaction(engine) as session:
                before = _database_bytes(session)
        with transaction(engine) as session:
            game = repository.get_game(session, created.game_id)
            current = mapping.state_from_json(
                repository.turn_state(session, game.id, game.current_turn).state
            )
            for orders in all_orders(scenario, current).values():
                sent = orders.model_copy(update={"source": "player"})
                repository.set_orders_in_force(session, game.id, game.current_turn, sent, now)
        turns.batch_turn(engine, created.game_id, now=now)
        if played:
            with transaction(engine) as session:
                pdfs += _pdf_bytes_kept(session, created.game_id)
        _mail_sent(engine)
    with transaction(engine) as session:
        grown = _database_bytes(session) - before
    return created.game_id, grown, pdfs


def _chunks(count: int) -> Iterator[range]:
    for start in range(0, count, CHUNK):
        yield range(start, min(count, start + CHUNK))


def _copy_games(
    session: Session, template_id: int, count: int, status: str, now: datetime, tag: str
) -> None:
    """`count` copies of the template game's current turn: games, players,
    state, standings and (mid-game) the orders of the first SENT_ORDERS players."""
    game = repository.get_game(session, template_id)
    turn = game.current_turn
    state = repository.turn_state(session, template_id, turn)
    players = [
        {c.key: getattr(p, c.key) for c in Player.__table__.columns if c.key not in ("id",)}
        for p in repository.players(session, template_id)
    ]
    standings = [
        {c.key: getattr(s, c.key) for c in Standing.__table__.columns}
        for s in repository.standings(session, template_id, turn)
    ]
    orders = [
        row
        for row in session.scalars(
            select(OrdersInForce).where(
                OrdersInForce.game_id == template_id, OrdersInForce.turn == turn - 1
            )
        )
    ][:SENT_ORDERS]
    for part in _chunks(count):
        rows = [
            {
                "name": f"scale-{tag}-{i}",
                "name_key": game_name_key(f"scale-{tag}-{i}"),
                "scenario": game.scenario,
                "seed": i,
                "current_turn": turn,
                "status": status,
                "deadline": now + timedelta(hours=1 + i % (7 * 24)),
                "grace_minutes": 0,
                "turn_days": 7,
                "reminder_hours": "48,12",
                "missed_turn_limit": 2,
                "missed_turn_policy": "computer",
                "anonymous": False,
                "early_run": True,
                "created_at": now,
                "due_at": now + timedelta(hours=1 + i % (7 * 24)),
            }
            for i in part
        ]
        ids = [
            game_id
            for (game_id,) in session.execute(
                insert(Game).returning(Game.id, sort_by_parameter_order=True), rows
            )
        ]
        session.execute(
            insert(Player),
            [
                {**p, "game_id": g, "email": f"p{p['position']}.{g}@scale.invalid"}
                for g in ids
                for p in players
            ],
        )
        session.execute(
            insert(TurnState),
            [
                {
                    "game_id": g,
                    "turn": turn,
                    "state": state.state,
                    "sha256": state.sha256,
                    "program_version": state.program_version,
                    "processed_at": now,
                }
                for g in ids
            ],
        )
        session.execute(insert(Standing), [{**s, "game_id": g} for g in ids for s in standings])
        if status == "active":
            session.execute(
                insert(OrdersInForce),
                [
                    {
                        "game_id": g,
                        "turn": turn,
                        "position": o.position,
                        "submission_id": None,
                        "orders": o.orders,
                        "source": "player",
                        "recorded_at": now,
                    }
                    for g in ids
                    for o in orders
                ],
            )


def run_scale(
    engine: Engine,
    count: int,
    scenario_name: str = "continental-rails",
    seed: int = 1,
    runs: int = 5,
    log: Callable[[str], None] = lambda _msg: None,
) -> dict[str, Any]:
    """The scale figures on `engine`'s (empty) database with `count` games."""
    if count < 1:
        raise UsageError("--scale must be at least 1")
    with transaction(engine) as session:
        if session.scalar(select(func.count()).select_from(Game)):
            raise UsageError(
                "--scale needs an empty database (it leaves its games there): "
                "point TURNPROC_DATABASE_URL at a new one"
            )
    now = datetime.now(UTC).replace(microsecond=0)
    figures: dict[str, Any] = {"games": count, "database": engine.dialect.name}
    log(f"a real game: 1 + {REAL_TURNS} batch turns from turn 15, 15 human players, mail sent")
    start = time.perf_counter()
    template, grown, pdfs = _real_game(engine, scenario_name, seed, now)
    figures["stored_bytes_per_game_turn"] = grown // REAL_TURNS
    figures["pdf_bytes_until_sent_per_game_turn"] = pdfs // REAL_TURNS
    figures["real_turns_s"] = round(time.perf_counter() - start, 1)

    log(f"{count} games at mid-game and {count} ended games, in bulk")
    start, cpu = time.perf_counter(), time.process_time()
    with transaction(engine) as session:
        _copy_games(session, template, count, "active", now, "active")
    with transaction(engine) as session:
        _copy_games(session, template, count, "ended", now, "ended")
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))
    figures["create_games_s"] = round(time.perf_counter() - start, 1)
    figures["create_games_cpu_s"] = round(time.process_time() - cpu, 1)
    with transaction(engine) as session:
        figures["database_bytes"] = _database_bytes(session)

    def scan() -> list[tuple[int, int, str]]:
        with transaction(engine) as session:
            return schedule.due_games(session, now)

    log("the due scan, nothing due")
    wall, cpu_s, due = _timed(scan, runs)
    if due:
        raise RuntimeError(f"the due scan found {len(due)} games due; none should be")
    figures["due_scan_s"], figures["due_scan_cpu_s"] = wall, cpu_s

    log("reminders: the first run after games pass a mark, then a run with nothing new")
    start, cpu = time.perf_counter(), time.process_time()
    with transaction(engine) as session:
        figures["reminders_queued"] = schedule.queue_reminders(session, now)
    figures["reminders_first_s"] = round(time.perf_counter() - start, 4)
    figures["reminders_first_cpu_s"] = round(time.process_time() - cpu, 4)

    def remind() -> int:
        with transaction(engine) as session:
            return schedule.queue_reminders(session, now)

    wall, cpu_s, again = _timed(remind, runs)
    if again:
        raise RuntimeError(f"reminders queued twice: {again}")
    figures["reminders_again_s"], figures["reminders_again_cpu_s"] = wall, cpu_s

    log("the due scan, 100 games due")
    with transaction(engine) as session:
        ids = list(
            session.scalars(
                select(Game.id).where(Game.status == "active").order_by(Game.id).limit(100)
            )
        )
        past = now - timedelta(minutes=5)
        session.execute(update(Game).where(Game.id.in_(ids)).values(deadline=past, due_at=past))
    wall, cpu_s, due = _timed(scan, runs)
    if len(due) != len(ids):
        raise RuntimeError(f"the due scan found {len(due)} games due, not {len(ids)}")
    figures["due_scan_100_due_s"], figures["due_scan_100_due_cpu_s"] = wall, cpu_s

    log(f"a new game with {count} ended games")
    made = iter(range(runs))

    def new_game() -> None:
        with transaction(engine) as session:
            games.create_game(
                session,
                scenario=scenario_name,
                seed=seed,
                name=f"scale-new-{next(made)}",
                now=now,
            )

    wall, cpu_s, _ = _timed(new_game, runs)
    figures["game_new_s"], figures["game_new_cpu_s"] = wall, cpu_s
    figures["runs"] = runs
    return figures
