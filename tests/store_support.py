"""Shared helpers of the storage tests: fresh databases on SQLite and PostgreSQL.

PostgreSQL tests use TURNPROC_TEST_POSTGRES_URL; each database is a fresh
schema (dropped afterwards), so parallel pytest workers never meet. Without
the variable, or with the server unreachable, they skip with the reason,
unless TURNPROC_REQUIRE_POSTGRES=1 (CI), where they fail instead.
"""

import dataclasses
import os
import uuid
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from turnproc.core.ledger import BANK, tycoon_account
from turnproc.families.boundary import GameFamily
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.orders import PlayerOrders
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.family import CONTINENTAL_RAILS
from turnproc.scenario.model import Scenario
from turnproc.store import db


def postgres_base_url() -> str:
    """The test server's URL, or skip (fail under TURNPROC_REQUIRE_POSTGRES=1)."""
    url = os.environ.get("TURNPROC_TEST_POSTGRES_URL")
    required = os.environ.get("TURNPROC_REQUIRE_POSTGRES") == "1"
    reason = ""
    if not url:
        reason = "TURNPROC_TEST_POSTGRES_URL is not set"
    else:
        try:
            probe = create_engine(url)
            with probe.connect() as connection:
                connection.execute(text("SELECT 1"))
            probe.dispose()
        except SQLAlchemyError as exc:
            reason = f"PostgreSQL at {url} unreachable: {str(exc).splitlines()[0]}"
    if reason:
        if required:
            pytest.fail(f"TURNPROC_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(reason)
    assert url is not None
    return url


def _with_search_path(url: str, schema: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{schema}"


def fresh_database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A URL for an empty database of `kind` ("sqlite" or "postgres")."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'turnproc.db'}"
        _forget(f"sqlite:///{tmp_path / 'turnproc.db'}")
        return
    base = postgres_base_url()
    schema = f"store_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = _with_search_path(base, schema)
    try:
        yield url
    finally:
        _forget(url)
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def _forget(url: str) -> None:
    engine = db._ready.pop(url, None)
    if engine is not None:
        engine.dispose()


def open_fresh(url: str) -> Engine:
    return db.open_database(url)


NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


class StoreTestEvent(Event):
    """An event of the stand-in turn below."""

    kind: Literal["store_test_event"] = "store_test_event"
    amount: int = 0
    orders: int = 0


def stand_in_resolve(
    scenario: Scenario,
    state: GameState,
    orders: Mapping[int, PlayerOrders],
    after_step: object = None,
) -> TurnResult:
    """A stand-in for `resolve_turn` that keeps its contract (seeded randomness,
    every dollar through the ledger, typed events, turn + 1) without depending on
    the rules steps, which other work changes: the storage tests check storage.
    Each position gains or spends a random sum, plus $1 per order it gave."""
    ctx = TurnContext(
        scenario=scenario,
        state=state.model_copy(deep=True),
        start=state.model_copy(deep=True),
        orders=orders,
    )
    draw = ctx.rng("store-test")
    for tycoon in ctx.state.tycoons:
        account = tycoon_account(tycoon.position)
        given = len(ctx.orders_of(tycoon.position))
        amount = draw.randrange(1, 60)
        if draw.random() < 0.5:
            ctx.transfer(BANK, account, amount + given, "store_test_income")
        else:
            amount = min(amount, ctx.balance(account))
            ctx.transfer(account, BANK, amount, "store_test_spending")
        ctx.emit(
            StoreTestEvent(
                position=tycoon.position, visibility="private", amount=amount, orders=given
            )
        )
    ctx.state.turn += 1
    return TurnResult(
        state=ctx.state, events=ctx.events, rejections=ctx.rejections, ledger=ctx.ledger
    )


def empty_computer_orders(scenario: Scenario, state: GameState, position: int) -> PlayerOrders:
    return PlayerOrders(position=position, source="computer")


STAND_IN = dataclasses.replace(
    CONTINENTAL_RAILS,
    name="stand-in",
    resolve_turn=stand_in_resolve,
    computer_orders=empty_computer_orders,
)


def stand_in_family(scenario: Scenario) -> GameFamily:
    """The game family the storage tests play: the stand-in turn, no computer orders."""
    return STAND_IN


def use_stand_in_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in turn, no computer orders, and plain summary reports (the
    PDF renderer is tested, and timed, by its own tests and `turnproc bench`)."""
    from turnproc.pipeline import games, reports, turns

    monkeypatch.setattr(reports, "family_of", stand_in_family)
    monkeypatch.setattr(games, "family_of", stand_in_family)
    monkeypatch.setattr(turns, "family_of", stand_in_family)
    monkeypatch.setattr(reports, "start_reports", reports.start_summary_reports)
    monkeypatch.setattr(turns, "start_reports", reports.start_summary_reports)
