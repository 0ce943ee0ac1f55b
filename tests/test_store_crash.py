"""Crash safety and concurrency of turn runs, with real processes.

A turn run killed with SIGKILL at random moments leaves the game exactly at the
old turn or exactly at the new one; running it again gives the export of an
uninterrupted run. Two workers against PostgreSQL with 20 due games process
each exactly once.
"""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from turnproc.pipeline import games, stored
from turnproc.pipeline import reports as pipeline_reports
from turnproc.pipeline import turns as pipeline_turns
from turnproc.store import repository
from turnproc.store.db import transaction
from turnproc.store.models import EventRow, LedgerRow, ModeratorLog, Report, TurnState

from .store_support import NOW, fresh_database, open_fresh

ROOT = Path(__file__).resolve().parent.parent
KILLS = 15


def _driver(url: str, *args: str, real: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "TURNPROC_DATABASE_URL": url, "TURNPROC_TEST_REAL_TURN": "01"[real]}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store_driver", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _run_to_end(url: str, *args: str, real: bool = False) -> str:
    process = _driver(url, *args, real=real)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out


def _new_game(engine: Engine, name: str, seed: int, now_days: int = 0) -> int:
    with transaction(engine) as session:
        return games.create_game(
            session,
            scenario="continental-rails",
            seed=seed,
            name=name,
            now=NOW + timedelta(days=now_days),
        ).game_id


def _rows(engine: Engine, model: Any, game_id: int) -> int:
    with transaction(engine) as session:
        return int(
            session.scalar(select(func.count()).select_from(model).where(model.game_id == game_id))
            or 0
        )


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


@pytest.mark.slow
def test_a_killed_turn_run_leaves_the_game_before_or_after_the_turn(
    url: str, tmp_path: Path
) -> None:
    _kill_turn_runs(url, KILLS, real=False, seed=20261130)


@pytest.mark.slow
def test_a_killed_turn_run_with_the_real_engine_and_renderer(url: str, tmp_path: Path) -> None:
    """The same with the real rules and the forked report renderer, whose
    workers are busy while the turn is being stored."""
    _kill_turn_runs(url, 5, real=True, seed=20261201)


def _kill_turn_runs(url: str, kills: int, real: bool, seed: int) -> None:
    engine = open_fresh(url)
    game_id = _new_game(engine, "crash", seed=5)
    with transaction(engine) as session:
        old_export = stored.export(session, game_id)
    before = {m: _rows(engine, m, game_id) for m in (TurnState, EventRow, LedgerRow, Report)}
    run = ("turn", "run", str(game_id), "--force", "--turn", "1")

    # The reference: the same turn, never interrupted.
    started = time.perf_counter()
    _run_to_end(url, *run, real=real)
    work = time.perf_counter() - started
    with transaction(engine) as session:
        reference = stored.export(session, game_id, 2)
        pipeline_turns.rollback(session, game_id, 1, NOW, reason="crash test")

    draw = random.Random(seed)
    outcomes = []
    for kill in range(kills):
        process = _driver(url, *run, real=real)
        if kill % 5:  # most kills land in the turn's work, after the imports
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "ready"
            time.sleep(draw.uniform(0, min(work, 1.0)))
        else:
            time.sleep(draw.uniform(0, work))
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        with transaction(engine) as session:
            game = repository.get_game(session, game_id)
            turns = repository.stored_turns(session, game_id)
            outcomes.append(game.current_turn)
            if game.current_turn == 1:
                assert turns == [1]
                assert stored.export(session, game_id) == old_export
            else:
                assert game.current_turn == 2 and turns == [1, 2]
                assert stored.export(session, game_id, 2) == reference
        if outcomes[-1] == 2:
            with transaction(engine) as session:
                pipeline_turns.rollback(session, game_id, 1, NOW, reason="crash test")
        assert {m: _rows(engine, m, game_id) for m in before} == before
    _run_to_end(url, *run, real=real)
    with transaction(engine) as session:
        assert stored.export(session, game_id, 2) == reference
    assert len(outcomes) == kills and 1 in outcomes


def _assert_each_run_once(engine: Engine, ids: list[int]) -> None:
    with transaction(engine) as session:
        for game_id in ids:
            assert repository.get_game(session, game_id).current_turn == 2
            runs = session.scalar(
                select(func.count()).where(
                    ModeratorLog.game_id == game_id, ModeratorLog.action == "turn_run"
                )
            )
            assert runs == 1


def test_two_workers_process_twenty_due_games_exactly_once(tmp_path: Path) -> None:
    for url in fresh_database("postgres", tmp_path):
        engine = open_fresh(url)
        ids = [_new_game(engine, f"due-{i}", seed=i, now_days=-30) for i in range(20)]
        workers = [_driver(url, "turn", "run", "--due", "--json") for _ in range(2)]
        results = []
        for worker in workers:
            out, err = worker.communicate(timeout=300)
            assert worker.returncode == 0, out + err
            results.append(json.loads(out[out.index("{") :]))
        done = [sorted(o["game_id"] for o in r["processed"]) for r in results]
        assert sorted(done[0] + done[1]) == ids
        assert not set(done[0]) & set(done[1])
        _assert_each_run_once(engine, ids)


def test_worker_processes_and_another_runner_share_the_due_games(tmp_path: Path) -> None:
    """`turn run --due --workers 2` beside a plain `turn run --due`: three
    workers in two processes, each of 12 due games processed exactly once, and
    the multi-worker run reports every game its workers processed."""
    for url in fresh_database("postgres", tmp_path):
        engine = open_fresh(url)
        ids = [_new_game(engine, f"pool-{i}", seed=100 + i, now_days=-30) for i in range(12)]
        runners = [
            _driver(url, "turn", "run", "--due", "--workers", "2", "--json"),
            _driver(url, "turn", "run", "--due", "--json"),
        ]
        done = []
        for runner in runners:
            out, err = runner.communicate(timeout=300)
            assert runner.returncode == 0, out + err
            report = json.loads(out[out.index("{") :])
            assert report["failed"] == []
            done.append([o["game_id"] for o in report["processed"]])
        assert sorted(done[0] + done[1]) == ids
        _assert_each_run_once(engine, ids)


def test_due_worker_processes_run_the_real_renderer(tmp_path: Path) -> None:
    """The report renderer forks its own workers inside `--workers` processes."""
    for url in fresh_database("postgres", tmp_path):
        engine = open_fresh(url)
        ids = [_new_game(engine, f"real-{i}", seed=300 + i, now_days=-30) for i in range(3)]
        runner = _driver(url, "turn", "run", "--due", "--workers", "2", "--json", real=True)
        out, err = runner.communicate(timeout=300)
        assert runner.returncode == 0, out + err
        report = json.loads(out[out.index("{") :])
        assert report["failed"] == [] and [o["game_id"] for o in report["processed"]] == ids
        _assert_each_run_once(engine, ids)
        with transaction(engine) as session:
            reports = session.scalars(select(Report).where(Report.game_id.in_(ids))).all()
            assert len(reports) == 45 and all(len(r.pdf_sha256 or "") == 64 for r in reports)
            # The PDFs the workers rendered are the ones rendered again for the mail.
            again = pipeline_reports.report_pdfs(session, reports[:15])
        assert [hashlib.sha256(again[r.id]).hexdigest() for r in reports[:15]] == [
            r.pdf_sha256 for r in reports[:15]
        ]


def test_sqlite_takes_one_due_worker(tmp_path: Path) -> None:
    for url in fresh_database("sqlite", tmp_path):
        engine = open_fresh(url)
        ids = [_new_game(engine, f"lite-{i}", seed=200 + i, now_days=-30) for i in range(3)]
        runner = _driver(url, "turn", "run", "--due", "--workers", "3", "--json")
        out, err = runner.communicate(timeout=300)
        assert runner.returncode == 0, out + err
        assert "SQLite takes one worker; running with 1" in err
        report = json.loads(out[out.index("{") :])
        assert [o["game_id"] for o in report["processed"]] == ids


def test_sqlite_file_copy_is_a_backup(tmp_path: Path) -> None:
    """A moderator's backup of a SQLite game is the file: a copy opens and exports the same."""
    for url in fresh_database("sqlite", tmp_path):
        engine = open_fresh(url)
        game_id = _new_game(engine, "backup", seed=8)
        with transaction(engine) as session:
            original = stored.export(session, game_id)
        copy = tmp_path / "copy.db"
        shutil.copy(tmp_path / "turnproc.db", copy)
        other = open_fresh(f"sqlite:///{copy}")
        with transaction(other) as session:
            assert stored.export(session, game_id) == original
        other.dispose()
