"""`turn_to_mailbox_s` of `turnproc bench`: from a turn falling due to every
report of it accepted by the mail server, as a site runs it.

The bench game at turn 15 (`bench.midgame`), 15 human players with their
orders in and the deadline passed, in a fresh SQLite database; then the two
commands of the cron line of docs/mail.md, each its own process as cron
starts it: `turnproc turn run --due` and `turnproc mail send`, to an SMTP
server on 127.0.0.1 (aiosmtpd, in this process). The figure is the CPU
seconds of those processes and of every process they start (the report
renderer's workers); `turn_to_mailbox_wall_s` is the wall-clock time. The
mail server's own CPU is not counted: a site's server is not the program's.
"""

import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import turnproc
from turnproc import __version__
from turnproc.bench import Unavailable, all_orders
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.pipeline import games
from turnproc.scenario.loader import load_scenario
from turnproc.store import db, mapping, repository

PLAYERS = 15
PROGRAM = Path(turnproc.__file__).resolve().parent
SENDER = "turns@bench.invalid"


class _Mailbox:
    """An SMTP server on 127.0.0.1 that accepts every message and counts the
    recipients it accepted."""

    def __init__(self) -> None:
        try:
            from aiosmtpd.controller import Controller
        except ImportError as exc:
            raise Unavailable(f"no SMTP server to measure against (aiosmtpd: {exc})") from None
        self.accepted: list[str] = []
        self.lock = threading.Lock()
        mailbox = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                with mailbox.lock:
                    mailbox.accepted.extend(envelope.rcpt_tos)
                return "250 2.0.0 OK queued"

        with socket.socket() as probe:  # a free port (the server checks it can be reached)
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        # A busy machine may take longer than aiosmtpd's default 5 s to start it.
        self.controller = Controller(
            Handler(), hostname="127.0.0.1", port=self.port, ready_timeout=120
        )
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


def _due_game(url: str, scenario_name: str, state: GameState) -> None:
    """The bench game in the database at `url`: turn 15, every position a
    human player with an address and orders in force, the deadline passed."""
    engine = db.open_database(url)
    now = datetime.now(UTC)
    scenario = load_scenario(scenario_name)
    with db.transaction(engine) as session:
        created = games.create_game(
            session, scenario=scenario_name, seed=state.seed, name="mailbox-bench", now=now
        )
        game = repository.get_game(session, created.game_id)
        for tycoon in state.tycoons:
            player = repository.get_player(session, game.id, tycoon.position)
            player.human, player.email = True, f"player{tycoon.position}@bench.invalid"
        human = state.model_copy(
            update={"tycoons": [t.model_copy(update={"human": True}) for t in state.tycoons]}
        )
        repository.add_turn_state(
            session, game.id, state.turn, mapping.state_json(human), __version__, now
        )
        game.current_turn = state.turn
        for orders in all_orders(scenario, state).values():
            sent = orders.model_copy(update={"source": "player"})
            repository.set_orders_in_force(session, game.id, state.turn, sent, now)
        game.deadline = now - timedelta(minutes=1)
    engine.dispose()


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _one_run(scenario_name: str, state: GameState) -> tuple[float, float]:
    """Wall and CPU seconds of one due turn and its mail, in a fresh database."""
    with tempfile.TemporaryDirectory(prefix="turnproc-mailbox-") as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        _due_game(url, scenario_name, state)
        mailbox = _Mailbox()
        env = {
            **os.environ,
            "TURNPROC_DATABASE_URL": url,
            "TURNPROC_SMTP_URL": f"smtp://127.0.0.1:{mailbox.port}",
            "TURNPROC_MAIL_FROM": SENDER,
        }
        env.pop("TURNPROC_MODERATOR_EMAIL", None)
        # The commands run this program, wherever it was imported from.
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(PROGRAM.parent), os.environ.get("PYTHONPATH")])
        )
        try:
            start, start_cpu = time.perf_counter(), _children_cpu()
            for command in (["turn", "run", "--due"], ["mail", "send"]):
                done = subprocess.run(
                    [sys.executable, "-m", "turnproc", *command],
                    env=env,
                    cwd=folder,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    raise RuntimeError(
                        f"`turnproc {' '.join(command)}` failed: "
                        f"{(done.stderr or done.stdout).strip()[-300:]}"
                    )
            cpu = _children_cpu() - start_cpu
            wall = time.perf_counter() - start
        finally:
            mailbox.stop()
        wanted = {f"player{t.position}@bench.invalid" for t in state.tycoons}
        if sorted(mailbox.accepted) != sorted(wanted):
            raise RuntimeError(
                f"the mail server accepted {len(mailbox.accepted)} reports, not {len(wanted)}"
            )
        return wall, cpu


def bench_turn_to_mailbox(scenario_name: str, state: GameState, runs: int) -> dict[str, float]:
    """Median wall and CPU seconds (of every process of the program) from a
    due turn to its reports accepted by the mail server."""
    if len(state.tycoons) != PLAYERS:
        raise Unavailable(f"the bench game has {len(state.tycoons)} players, not {PLAYERS}")
    measured = [_one_run(scenario_name, state) for _ in range(runs)]
    return {
        "turn_to_mailbox_s": round(statistics.median(cpu for _, cpu in measured), 4),
        "turn_to_mailbox_wall_s": round(statistics.median(wall for wall, _ in measured), 4),
    }
