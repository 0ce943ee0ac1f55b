"""The benchmark's whole-batch figure measures a real turn (every position's
orders in, reports rendered, stored, mail queued) and leaves no game behind."""

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from turnproc import bench
from turnproc.scenario.model import Scenario
from turnproc.store.db import transaction
from turnproc.store.models import Game

from .store_support import fresh_database, open_fresh


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_database(request.param, tmp_path)


def test_the_batch_bench_runs_a_whole_turn_and_cleans_up(url: str, scenario: Scenario) -> None:
    state = bench.midgame(scenario, 1)
    figures = bench._batch_runs(url, "continental-rails", state.model_dump_json(), runs=1)
    assert "error" not in figures, figures.get("error")
    assert figures["seconds"] > 0 and figures["peak_rss_mb"] > 0
    engine = open_fresh(url)
    with transaction(engine) as session:
        assert session.scalar(select(func.count()).select_from(Game)) == 0


_CHILD_PEAKS = """\
import resource
from turnproc.bench import own_peak_rss_mb
print(own_peak_rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_spawned_process_reports_its_own_peak_memory_not_its_parents() -> None:
    """The batch bench runs in a spawned process; Linux carries `ru_maxrss`
    across execve, so the parent's memory would be read as the batch's."""
    held = bytearray(300 * 2**20)
    held[::4096] = b"x" * len(held[::4096])  # resident, not merely reserved
    run = subprocess.run(
        [sys.executable, "-c", _CHILD_PEAKS], capture_output=True, text=True, check=True
    )
    own, inherited = map(float, run.stdout.split())
    if inherited < 300:
        pytest.skip("this kernel does not carry ru_maxrss across exec: nothing to tell apart")
    assert 10 < own < 200
    del held


def test_turn_to_mailbox_runs_the_cron_line_until_every_report_is_accepted(
    scenario: Scenario,
) -> None:
    """`turnproc turn run --due` and `turnproc mail send` as cron runs them,
    against a mail server on 127.0.0.1: the figure is only given once the
    server has accepted the report of each of the 15 players."""
    from turnproc.bench_mailbox import bench_turn_to_mailbox

    figures = bench_turn_to_mailbox("continental-rails", bench.midgame(scenario, 1), runs=1)
    assert figures["turn_to_mailbox_s"] > 0 and figures["turn_to_mailbox_wall_s"] > 0
    # Each command's share, and together no more than the whole.
    shares = figures["turn_to_mailbox_turn_run_s"], figures["turn_to_mailbox_mail_send_s"]
    assert min(shares) > 0
    assert sum(shares) <= figures["turn_to_mailbox_s"] + 0.01
    # `turn run --due --send` alone, given only once its 15 reports were accepted.
    assert figures["turn_to_mailbox_one_process_s"] > 0
