"""What the command line loads before it does anything (README, Speed: `cli_start_s`).

`turnproc --help` and a cron `turnproc mail ingest` of one message must not
pay for the reports (ReportLab), the web pages (Starlette, uvicorn) or the
engines they do not use. Which modules a process imported is deterministic,
unlike its time, so that is what these tests check, in a fresh process each.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Runs the command line in-process, then prints the names of the loaded modules.
PROBE = """
import contextlib, io, json, sys
from turnproc.cli import main
{setup}
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)))
"""

REPORTS_AND_WEB = ("reportlab", "PIL", "starlette", "uvicorn", "turnproc.web")


# The intake processes each message in a forked child (mail/guard.py), whose
# imports the parent never sees: here the message is processed in the process.
IN_PROCESS = """
import turnproc.mail.inbound
turnproc.mail.inbound.within_budget = lambda work, before=None: work()
"""


def _loaded(
    args: list[str], stdin: bytes = b"", env: dict[str, str] | None = None, setup: str = ""
) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(setup=setup), *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode()
    return set(json.loads(run.stdout.decode().splitlines()[-1]))


def _within(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_help_loads_no_library_the_commands_use() -> None:
    loaded = _loaded(["--help"])
    assert "turnproc.commands.mail" in loaded  # every command was registered
    heavy = (
        *REPORTS_AND_WEB,
        "sqlalchemy",
        "alembic",
        "pydantic",
        "rich",
        "jinja2",
        "turnproc.families",
        "turnproc.store",
    )
    assert _within(loaded, heavy) == []


SECRET = "k7fmq2xew9hdz4"
HELP_MAIL = b"From: someone@example.net\nSubject: help\nMessage-ID: <h@example.net>\n\nHELP\n"
SHEET_MAIL = (
    b"From: ann@example.org\nSubject: orders\nMessage-ID: <s@example.org>\n\n"
    b"TURNSHEET game: sheets turn: 1 player: 3 secret: " + SECRET.encode() + b"\nEND\n"
)


@pytest.mark.parametrize("message", [HELP_MAIL, SHEET_MAIL], ids=["help", "turnsheet"])
def test_mail_ingest_of_one_message_loads_no_reports_web_or_18xx(
    message: bytes, tmp_path: Path
) -> None:
    env = {"TURNPROC_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}"}
    # The sheet is the orders of a player of a Continental Rails game of this database.
    players = tmp_path / "players.csv"
    players.write_text(
        f"position,character,real_name,email,secret\n3,,Ann,ann@example.org,{SECRET}\n"
    )
    new = ["game", "new", "--scenario", "continental-rails", "--name", "sheets"]
    assert "turnproc.pipeline.games" in _loaded([*new, "--players", str(players)], env=env)
    loaded = _loaded(["mail", "ingest", "-"], message, env, setup=IN_PROCESS)
    assert "turnproc.mail.inbound" in loaded  # the message was taken in
    if message is SHEET_MAIL:  # and checked: the sheet was accepted
        assert "turnproc.intake.submit" in loaded
    the_18xx_pipeline = (
        "turnproc.sequential",
        "turnproc.families.g18xx.engine",
        "turnproc.families.g18xx.report",
    )
    # The database is up to date: Alembic, which upgrades it, stays unloaded.
    assert _within(loaded, (*REPORTS_AND_WEB, *the_18xx_pipeline, "alembic")) == []
    if message is HELP_MAIL:  # a command: the turnsheet's checks and receipt stay unloaded,
        # and so does every family (the registry imports one when asked for it)
        families = ("turnproc.families.continental_rails", "turnproc.families.g18xx")
        assert _within(loaded, ("turnproc.intake.submit", "jinja2", *families)) == []


def test_mail_send_of_stored_messages_loads_no_reports_or_rules_engine(tmp_path: Path) -> None:
    from .mailservers import TroubledSmtp

    server = TroubledSmtp()
    try:
        env = {
            "TURNPROC_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
            "TURNPROC_SMTP_URL": server.smtp_url(),
        }
        players = tmp_path / "players.csv"
        players.write_text(
            f"position,character,real_name,email,secret\n3,,Ann,ann@example.org,{SECRET}\n"
        )
        new = ["game", "new", "--scenario", "continental-rails", "--name", "sheets"]
        _loaded([*new, "--players", str(players)], env=env)
        _loaded(["mail", "send"], env=env)  # the welcome, with the rules drawn
        _loaded(["mail", "ingest", "-"], HELP_MAIL, env, setup=IN_PROCESS)
        before = len(server.accepted)
        loaded = _loaded(["mail", "send"], env=env)  # the answer to HELP
        assert len(server.accepted) == before + 1
    finally:
        server.stop()
    assert "turnproc.mail.outbound" in loaded
    # No report is rendered again: neither ReportLab nor the rules engine's
    # turn (its steps, the reports' pipeline) is loaded.
    rules = (
        "turnproc.pipeline.reports",
        "turnproc.families.continental_rails.engine.resolve",
        "turnproc.families.continental_rails.engine.steps",
        "turnproc.families.continental_rails.report",
    )
    assert _within(loaded, (*REPORTS_AND_WEB, *rules, "jinja2")) == []
    # Nor the engine's models (the store loads stored events and orders into
    # them on use), nor PostgreSQL's dialect and drivers on SQLite.
    assert _within(loaded, ("turnproc.families", "sqlalchemy.dialects.postgresql")) == []
    # The settings are read without pydantic, which nothing else here needs.
    assert _within(loaded, ("pydantic", "pydantic_core")) == []


def test_the_bench_times_whole_help_processes() -> None:
    from turnproc.bench import bench_cli_start

    figures = bench_cli_start(runs=1)
    assert set(figures) == {"cli_start_s", "cli_start_cpu_s"}
    assert figures["cli_start_s"] > 0 and figures["cli_start_cpu_s"] > 0


def test_a_cron_turn_run_loads_no_progress_bar(tmp_path: Path) -> None:
    """`turn run --due` with no terminal to show a progress bar on (cron)
    does not load rich's progress."""
    env = {"TURNPROC_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}"}
    loaded = _loaded(["turn", "run", "--due", "--no-drain"], env=env)
    assert "turnproc.pipeline.turns" in loaded
    assert _within(loaded, ("rich.progress", "rich.live")) == []
