"""Failures of the machine, not of the request: a full disk, a damaged SQLite
file, a PostgreSQL backend killed mid-run. Each gives one line and exit 75
(EX_TEMPFAIL), stores nothing half, and the same command succeeds once the
cause is gone.

The disk is really full: a small tmpfs mounted for the test (root only; the
tests skip and say so elsewhere), or a file size limit (RLIMIT_FSIZE, any
user) that makes the kernel refuse writes past it with EFBIG."""

import mailbox
import os
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from pypdf import PdfReader
from sqlalchemy import create_engine, func, select, text

from turnproc.files import write_whole
from turnproc.store import db
from turnproc.store.db import transaction
from turnproc.store.models import Game, Submission, TurnState

from .store_support import fresh_database, postgres_base_url

ROOT = Path(__file__).resolve().parent.parent
EX_TEMPFAIL = 75


def turnproc(
    *args: str, env: dict[str, str], cwd: Path, limit_bytes: int | None = None
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run(
        [sys.executable, "-m", "turnproc", *args],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=limit,
    )


def one_line(run: subprocess.CompletedProcess[str]) -> str:
    """The command's whole complaint, checked to be one line and no traceback."""
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("turnproc: ")
    return lines[0]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 24 MB tmpfs: a file system that really runs out of space."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the RLIMIT_FSIZE tests cover the rest")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path, leave: int) -> Path:
    """Fill the file system of `folder` but for about `leave` bytes."""
    filler = folder / "filler"
    with filler.open("wb") as stream:
        block = b"\0" * (1 << 16)
        try:
            while True:
                stream.write(block)
                stream.flush()
        except OSError:
            pass
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def new_game(env: dict[str, str], cwd: Path) -> None:
    made = turnproc(
        "game", "new", "--scenario", "continental-rails", "--seed", "5", "--name", "r",
        env=env, cwd=cwd,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr


def test_a_full_disk_during_turn_run_is_one_line_and_stores_nothing(
    small_disk: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{small_disk / 'game.db'}"
    env = {"TURNPROC_DATABASE_URL": url}
    new_game(env, tmp_path)
    filler = fill(small_disk, leave=256 * 1024)
    run = turnproc("turn", "run", "r", "--force", env=env, cwd=tmp_path)
    assert run.returncode == EX_TEMPFAIL
    assert "the disk is full" in one_line(run)
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        assert connection.execute(text("SELECT current_turn FROM games")).scalar() == 1
        assert connection.execute(text("SELECT max(turn) FROM turn_states")).scalar() == 1
    engine.dispose()
    filler.unlink()
    again = turnproc("turn", "run", "r", "--force", env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    with transaction(db.open_database(url)) as session:
        assert session.scalar(select(Game.current_turn)) == 2
        assert session.scalar(select(func.max(TurnState.turn))) == 2


def _pdfs_are_whole(folder: Path) -> list[str]:
    names = []
    for path in sorted(folder.rglob("*")):
        assert ".part" not in path.name, f"a temporary file was left: {path}"
        if path.suffix == ".pdf":
            assert len(PdfReader(path).pages) >= 1  # raises on a truncated file
            names.append(path.name)
    return names


@pytest.fixture(scope="module")
def played_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite game with turn 1 played (its reports stored)."""
    folder = tmp_path_factory.mktemp("played")
    env = {"TURNPROC_DATABASE_URL": f"sqlite:///{folder / 'game.db'}"}
    new_game(env, folder)
    played = turnproc("turn", "run", "r", "--force", env=env, cwd=folder)
    assert played.returncode == 0, played.stderr
    return folder / "game.db"


def test_a_full_disk_during_report_render_leaves_no_truncated_pdf(
    small_disk: Path, played_game: Path, tmp_path: Path
) -> None:
    env = {"TURNPROC_DATABASE_URL": f"sqlite:///{played_game}"}
    out = small_disk / "reports"
    first = turnproc(
        "report", "render", "r", "--player", "2", "--out", str(out), env=env, cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    before = (out / "turn-1" / "player-2.pdf").read_bytes()
    filler = fill(small_disk, leave=64 * 1024)
    run = turnproc("report", "render", "r", "--out", str(out), env=env, cwd=tmp_path)
    assert run.returncode == EX_TEMPFAIL
    assert "the disk is full" in one_line(run)
    assert "player-2.pdf" in _pdfs_are_whole(out)
    assert (out / "turn-1" / "player-2.pdf").read_bytes() == before
    filler.unlink()
    again = turnproc("report", "render", "r", "--out", str(out), env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(_pdfs_are_whole(out)) == 15


def test_a_file_size_limit_during_report_render_leaves_no_truncated_pdf(
    played_game: Path, tmp_path: Path
) -> None:
    """The same without root: writes past RLIMIT_FSIZE fail with EFBIG."""
    env = {"TURNPROC_DATABASE_URL": f"sqlite:///{played_game}"}
    out = tmp_path / "reports"
    run = turnproc(
        "report", "render", "r", "--player", "3", "--out", str(out),
        env=env, cwd=tmp_path, limit_bytes=20_000,
    )  # fmt: skip
    assert run.returncode == EX_TEMPFAIL
    assert "the disk is full (File too large" in one_line(run)
    assert _pdfs_are_whole(out) == []


def _damage_table(path: Path, table: str) -> None:
    """Overwrite the first page (the b-tree root) of `table` and of each of its
    indexes with garbage."""
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        page_size = connection.execute(text("PRAGMA page_size")).scalar_one()
        roots = (
            connection.execute(
                text("SELECT rootpage FROM sqlite_master WHERE tbl_name = :t AND rootpage > 0"),
                {"t": table},
            )
            .scalars()
            .all()
        )
    engine.dispose()
    assert roots
    with path.open("r+b") as stream:
        for root in roots:
            stream.seek((root - 1) * page_size)
            stream.write(bytes([0xA5]) * page_size)


@pytest.mark.parametrize(
    ("table", "command"),
    [
        ("outbox", ["mail", "send"]),
        ("outbox", ["mail", "send", "--dry-run", "eml"]),
        ("games", ["game", "list"]),
        ("games", ["turn", "run", "--due"]),
    ],
)
def test_a_damaged_sqlite_page_is_one_line(tmp_path: Path, table: str, command: list[str]) -> None:
    path = tmp_path / "game.db"
    env = {
        "TURNPROC_DATABASE_URL": f"sqlite:///{path}",
        "TURNPROC_SMTP_URL": "smtp://127.0.0.1:1",
    }
    new_game(env, tmp_path)
    _damage_table(path, table)
    run = turnproc(*command, env=env, cwd=tmp_path)
    assert run.returncode == EX_TEMPFAIL
    assert "the database is damaged (database disk image is malformed)" in one_line(run)


def _maildir(folder: Path, count: int) -> Path:
    box = mailbox.Maildir(folder / "Maildir", create=True)
    for n in range(count):
        msg = EmailMessage()
        msg["From"] = f"stranger{n}@example.org"
        msg["To"] = "crails@example.org"
        msg["Subject"] = "help"
        msg["Message-ID"] = f"<m{n}@example.org>"
        msg.set_content("HELP\n")
        box.add(msg)
    return folder / "Maildir"


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    yield from fresh_database("postgres", tmp_path)


# The fifth message the ingest stores waits for a lock the test holds, so
# the backend is dropped mid-run however fast or slow the machine is.
HOLD_THE_FIFTH = """
CREATE FUNCTION hold_the_fifth() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM submissions) >= 4 THEN
        PERFORM pg_advisory_xact_lock({key});
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER hold_the_fifth BEFORE INSERT ON submissions
    FOR EACH ROW EXECUTE FUNCTION hold_the_fifth();
"""


def test_postgres_dropped_mid_ingest_is_one_line_and_loses_no_mail(
    pg_url: str, tmp_path: Path
) -> None:
    """The backend of `mail ingest` is terminated while it stores its fifth
    message (held there by a lock the test holds, so no machine is too fast
    or too slow for it): one line, exit 75, and no mail lost."""
    app = f"ingest-{uuid.uuid4().hex[:8]}"
    key = uuid.uuid4().int % 2**62  # one test's lock, whatever else shares the server
    watcher = db.open_database(pg_url)  # the schema, before the victim starts
    with watcher.begin() as connection:
        connection.execute(text(HOLD_THE_FIFTH.format(key=key)))
    maildir = _maildir(tmp_path, 80)
    env = {**os.environ, "TURNPROC_DATABASE_URL": f"{pg_url}&application_name={app}"}
    command = [sys.executable, "-m", "turnproc", "mail", "ingest", "--maildir", str(maildir)]
    killer = create_engine(postgres_base_url(), isolation_level="AUTOCOMMIT")
    terminated = 0
    with killer.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        victim = subprocess.Popen(
            command,
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        while victim.poll() is None:
            held = connection.execute(
                text(
                    "SELECT count(*) FROM pg_locks JOIN pg_stat_activity USING (pid)"
                    " WHERE locktype = 'advisory' AND NOT granted AND application_name = :app"
                ),
                {"app": app},
            ).scalar_one()
            if held:
                terminated += connection.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE application_name = :app"
                    ),
                    {"app": app},
                ).scalar_one()
            time.sleep(0.02)
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
    with watcher.begin() as connection:
        connection.execute(text("DROP TRIGGER hold_the_fifth ON submissions"))
        assert connection.execute(text("SELECT count(*) FROM submissions")).scalar_one() == 4
    killer.dispose()
    _, stderr = victim.communicate()
    assert terminated >= 1
    assert victim.returncode == EX_TEMPFAIL, stderr
    line = one_line(subprocess.CompletedProcess(command, victim.returncode, "", stderr))
    assert "database" in line or "could not be stored" in line

    # Nothing was lost: what was stored is kept (the one message being answered
    # when the connection died waits as "received"), the rest is still unread.
    with transaction(watcher) as session:
        waiting = session.scalars(
            select(Submission.id).where(Submission.verdict == "received")
        ).all()
    assert len(waiting) <= 1
    again = subprocess.run(command, env=env, cwd=tmp_path, timeout=600, capture_output=True)
    assert again.returncode == 0, again.stderr
    if waiting:
        retried = subprocess.run(
            [sys.executable, "-m", "turnproc", "mail", "retry", *map(str, waiting)],
            env=env, cwd=tmp_path, timeout=600, capture_output=True,
        )  # fmt: skip
        assert retried.returncode == 0, retried.stderr
    assert list((maildir / "new").iterdir()) == []
    with transaction(watcher) as session:
        verdicts = session.scalars(select(Submission.verdict)).all()
    assert len(verdicts) == 80
    assert "received" not in verdicts and "error" not in verdicts
    watcher.dispose()


def test_a_file_written_whole_gets_the_usual_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_whole(tmp_path / "player-1.pdf", b"%PDF-1.4 whole")
    finally:
        os.umask(umask)
    assert (tmp_path / "player-1.pdf").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["player-1.pdf"]
