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
`turn_to_mailbox_turn_run_s` and `turn_to_mailbox_mail_send_s` are the two
commands' own shares.

`python -m turnproc.bench_mailbox [--runs N]` divides the figure further
(README, Speed): each command runs the same way, but inside a process that
notes the CPU seconds of its start, of importing what the command imports,
and of the command's steps, and the medians over the runs are printed as
JSON. This module imports only the standard library at the top, so that
process starts as `turnproc` does.
"""

import functools
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import turnproc

if TYPE_CHECKING:
    from turnproc.families.continental_rails.engine.state import GameState

PLAYERS = 15
PROGRAM = Path(turnproc.__file__).resolve().parent
SENDER = "turns@bench.invalid"
# The cron line of docs/mail.md, in order, by the name of each one's figure.
COMMANDS = (("turn_run", ("turn", "run", "--due")), ("mail_send", ("mail", "send")))
# The cron line's option that sends the outbox in the turn run's own process
# (docs/mail.md): an extra figure, `turn_to_mailbox_one_process_s`.
ONE_PROCESS = (("turn_run_send", ("turn", "run", "--due", "--send")),)
# Where a command run by `--inside` writes the CPU seconds of its parts.
PARTS_ENV = "TURNPROC_BENCH_PARTS_FILE"


class _Mailbox:
    """An SMTP server on 127.0.0.1 that accepts every message and counts the
    recipients it accepted."""

    def __init__(self) -> None:
        from turnproc.bench import Unavailable

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


def _due_game(url: str, scenario_name: str, state: "GameState") -> None:
    """The bench game in the database at `url`: turn 15, every position a
    human player with an address and orders in force, the deadline passed."""
    from turnproc import __version__
    from turnproc.bench import all_orders
    from turnproc.pipeline import games
    from turnproc.scenario.loader import load_scenario
    from turnproc.store import db, mapping, repository

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


def _one_run(
    scenario_name: str,
    state: "GameState",
    parts: bool = False,
    commands: tuple[tuple[str, tuple[str, ...]], ...] = COMMANDS,
) -> dict[str, float]:
    """Wall and CPU seconds of one due turn and its mail, in a fresh database;
    with `parts`, those of each command's parts as well (`_inside`)."""
    with tempfile.TemporaryDirectory(prefix="turnproc-mailbox-") as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        _due_game(url, scenario_name, state)
        mailbox = _Mailbox()
        parts_file = Path(folder) / "parts.json"
        env = {
            **os.environ,
            "TURNPROC_DATABASE_URL": url,
            "TURNPROC_SMTP_URL": f"smtp://127.0.0.1:{mailbox.port}",
            "TURNPROC_MAIL_FROM": SENDER,
            PARTS_ENV: str(parts_file),
        }
        env.pop("TURNPROC_MODERATOR_EMAIL", None)
        # The commands run this program, wherever it was imported from.
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(PROGRAM.parent), os.environ.get("PYTHONPATH")])
        )
        program = ["turnproc.bench_mailbox", "--inside"] if parts else ["turnproc"]
        figures: dict[str, float] = {}
        try:
            start, start_cpu = time.perf_counter(), _children_cpu()
            for name, command in commands:
                before = _children_cpu()
                done = subprocess.run(
                    [sys.executable, "-m", *program, *command],
                    env=env,
                    cwd=folder,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                figures[f"turn_to_mailbox_{name}_s"] = _children_cpu() - before
                if done.returncode != 0:
                    raise RuntimeError(
                        f"`turnproc {' '.join(command)}` failed: "
                        f"{(done.stderr or done.stdout).strip()[-300:]}"
                    )
                if parts:
                    measured = json.loads(parts_file.read_text(encoding="utf-8"))
                    figures.update({f"{name}.{part}": s for part, s in measured.items()})
                    # After the command: the interpreter's own end.
                    figures[f"{name}.exit"] = (
                        figures[f"turn_to_mailbox_{name}_s"] - measured["total"]
                    )
            figures["turn_to_mailbox_s"] = _children_cpu() - start_cpu
            figures["turn_to_mailbox_wall_s"] = time.perf_counter() - start
        finally:
            mailbox.stop()
        wanted = {f"player{t.position}@bench.invalid" for t in state.tycoons}
        if sorted(mailbox.accepted) != sorted(wanted):
            raise RuntimeError(
                f"the mail server accepted {len(mailbox.accepted)} reports, not {len(wanted)}"
            )
        return figures


def _medians(measured: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(m[key] for m in measured), 4) for key in measured[0]}


def bench_turn_to_mailbox(scenario_name: str, state: "GameState", runs: int) -> dict[str, float]:
    """Median wall and CPU seconds (of every process of the program) from a
    due turn to its reports accepted by the mail server, and each command's
    CPU seconds."""
    from turnproc.bench import Unavailable

    if len(state.tycoons) != PLAYERS:
        raise Unavailable(f"the bench game has {len(state.tycoons)} players, not {PLAYERS}")
    figures = _medians([_one_run(scenario_name, state) for _ in range(runs)])
    one = _medians([_one_run(scenario_name, state, commands=ONE_PROCESS) for _ in range(runs)])
    figures["turn_to_mailbox_one_process_s"] = one["turn_to_mailbox_s"]
    return figures


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process, and of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime, _children_cpu()


class _Parts:
    """CPU seconds of named parts of one command, each its own and its
    children's; a part entered again while running (a nested call) counts once."""

    def __init__(self) -> None:
        self.own: dict[str, float] = {}
        self.children: dict[str, float] = {}
        self._running: set[str] = set()

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        if name in self._running:
            yield
            return
        self._running.add(name)
        own, children = _cpu()
        try:
            yield
        finally:
            self._running.discard(name)
            own_after, children_after = _cpu()
            self.own[name] = self.own.get(name, 0.0) + own_after - own
            self.children[name] = self.children.get(name, 0.0) + children_after - children

    def time(self, owner: Any, attribute: str, name: str) -> None:
        """Count every call of `owner.attribute` in the part `name`."""
        function: Callable[..., Any] = getattr(owner, attribute)

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.part(name):
                return function(*args, **kwargs)

        setattr(owner, attribute, timed)


# What each command imports before it works (the rest it imports while
# working is counted in the part that imports it).
_IMPORTS = {
    "turn_run": (
        "turnproc.cli",
        "turnproc.commands.db",
        "turnproc.commands.mail",
        "turnproc.config",
        "turnproc.pipeline.schedule",
        "turnproc.pipeline.turns",
        "turnproc.families.continental_rails.report.render",
    ),
    "mail_send": (
        "turnproc.cli",
        "turnproc.commands.db",
        "turnproc.config",
        "turnproc.mail.outbound",
        "turnproc.mail.transport",
        "turnproc.mail.urls",
    ),
}


def _time_turn_run(parts: _Parts) -> None:
    import dataclasses

    from turnproc.families import registry
    from turnproc.pipeline import turns
    from turnproc.store import mapping, repository

    name = registry.DEFAULT_FAMILY
    family = registry.family_named(name)
    timed_resolve = functools.partial(_resolve_in_part, parts, family.resolve_turn)
    registry.FAMILIES[name] = dataclasses.replace(family, resolve_turn=timed_resolve)
    parts.time(repository, "turn_state", "load")
    parts.time(mapping, "state_from_json", "load")
    parts.time(repository, "orders_in_force", "load")
    parts.time(turns, "computer_orders_for", "computer_orders")
    parts.time(turns, "start_reports", "reports_start")
    parts.time(turns, "_stored", "reports_wait")
    parts.time(turns, "_store_reports", "store_reports_and_mail")
    parts.time(turns, "_queue_reports", "store_reports_and_mail")


def _resolve_in_part(parts: _Parts, resolve: Callable[..., Any], *args: Any) -> Any:
    with parts.part("resolve"):
        return resolve(*args)


def _time_mail_send(parts: _Parts) -> None:
    from turnproc.mail import outbound, transport

    parts.time(outbound, "compose", "compose")
    parts.time(outbound, "_load", "load_and_compose")
    parts.time(transport, "envelope", "flatten")
    parts.time(transport.SmtpTransport, "send", "smtp_with_flatten_and_claim")


def _inside(name: str, argv: list[str]) -> int:
    """Run the command `argv` in this process, noting the CPU seconds of its
    parts in the file named by PARTS_ENV."""
    import importlib

    started_own, _ = _cpu()
    parts = _Parts()
    with parts.part("imports"):
        for module in _IMPORTS[name]:
            importlib.import_module(module)
    (_time_turn_run if name == "turn_run" else _time_mail_send)(parts)
    from turnproc.cli import main

    sys.argv = ["turnproc", *argv]  # as the program runs it (cli.main ends it so)
    with parts.part("command"):
        code = main()
    seconds = {"start": started_own}
    for part in parts.own:
        seconds[part] = parts.own[part] + parts.children[part]
    seconds["workers"] = parts.children["command"]
    own, children = _cpu()
    seconds["total"] = own + children
    Path(os.environ[PARTS_ENV]).write_text(json.dumps(seconds), encoding="utf-8")
    return code


def mailbox_parts(runs: int, seed: int = 1) -> dict[str, float]:
    """Medians over `runs` of `turn_to_mailbox_s` measured by parts."""
    from turnproc.bench import midgame
    from turnproc.scenario.loader import load_scenario

    state = midgame(load_scenario("continental-rails"), seed)
    return _medians([_one_run("continental-rails", state, parts=True) for _ in range(runs)])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--inside"]:
        command = tuple(argv[1:])
        name = next(name for name, known in COMMANDS if known == command)
        return _inside(name, list(command))
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 3
    print(json.dumps(mailbox_parts(runs), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
