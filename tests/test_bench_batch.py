"""The benchmark's whole-batch figure measures a real turn (every position's
orders in, reports rendered, stored, mail queued) and leaves no game behind."""

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
