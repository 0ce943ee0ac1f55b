"""`web_game_page_s` of `turnproc bench`: a turn-25 game's page, as a first visitor loads it.

A game of 15 computer players is played for 25 turns by the rules engine and
stored turn by turn as the batch stores it (states, events, rejections,
ledger, standings) in a fresh SQLite database. Each run then asks the
application in this process for the game page and both its map SVGs, with
what a new turn changes dropped from the page caches first (`web_game_page_s`),
or every cache emptied, as after a restart (`web_game_page_cold_s`); the
scenario and its map geometry stay loaded, as in a running server.
"""

import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from turnproc import __version__
from turnproc.config import Settings
from turnproc.families.boundary import Seat
from turnproc.families.registry import family_of
from turnproc.scenario.loader import load_scenario
from turnproc.store import mapping
from turnproc.store import repository as repo
from turnproc.store.db import open_database, transaction

TURNS = 25


def _store_game(url: str, scenario_name: str, seed: int, turns: int) -> int:
    scenario = load_scenario(scenario_name)
    family = family_of(scenario)
    state = family.new_game(scenario, seed, [Seat(position=p) for p in range(1, 16)], "")
    now = datetime.now(UTC)
    engine = open_database(url)
    with transaction(engine) as session:
        game = repo.create_game(
            session,
            name="bench-web",
            scenario=scenario_name,
            seed=seed,
            current_turn=1,
            status="active",
            deadline=now + timedelta(days=7),
            created_at=now,
        )
        for tycoon in state.tycoons:
            repo.add_player(
                session, game_id=game.id, position=tycoon.position, character=tycoon.character
            )
        repo.add_turn_state(session, game.id, 1, mapping.state_json(state), __version__, now)
        repo.replace_standings(session, game.id, 1, mapping.standings_rows(state, scenario))
        for turn in range(1, turns + 1):
            orders = {
                t.position: family.computer_orders(scenario, state, t.position)
                for t in state.tycoons
            }
            result = family.resolve_turn(scenario, state, orders)
            repo.add_computer_orders(session, game.id, turn, orders.values(), now)
            repo.add_events(session, game.id, turn, result.events, origin="turn")
            repo.add_rejections(session, game.id, turn, result.rejections)
            repo.add_ledger(session, game.id, turn, result.ledger, origin="turn")
            state = result.state
            repo.add_turn_state(
                session, game.id, turn + 1, mapping.state_json(state), __version__, now
            )
            rows = mapping.standings_rows(state, scenario)
            repo.replace_standings(session, game.id, turn + 1, rows)
            if state.ended:
                break
        game.current_turn = state.turn
        return game.id


async def _get(app: Any, path: str) -> tuple[int, int]:
    """One GET through the ASGI application: (status, body bytes)."""
    status, size = 0, 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, size
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            size += len(message.get("body", b""))

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"bench.invalid")],
        "client": ("127.0.0.1", 1),
        "server": ("bench.invalid", 80),
    }
    await app(scope, receive, send)
    return status, size


def bench_web(scenario_name: str, seed: int, runs: int, turns: int = TURNS) -> dict[str, Any]:
    """Median wall and CPU seconds of loading the game page of a turn-25 game
    (HTML and both maps) after a new turn and after a restart."""
    from turnproc.web import orders, pages
    from turnproc.web.app import create_app

    with tempfile.TemporaryDirectory(prefix="turnproc-bench-web-") as folder:
        url = f"sqlite:///{Path(folder) / 'web.db'}"
        game_id = _store_game(url, scenario_name, seed, turns)
        settings = Settings(database_url=url, web_secret_key="bench-" + "k" * 40)
        app = create_app(open_database(url), settings)
        paths = [f"/games/{game_id}", *(f"/games/{game_id}/map/{turns}-{z}.svg" for z in (0, 1))]

        async def load() -> None:
            for path in paths:
                status, _ = await _get(app, path)
                if status != 200:
                    raise RuntimeError(f"GET {path} answered {status}")

        asyncio.run(load())  # the scenario, fonts and templates loaded, as in a server
        figures: dict[str, Any] = {}
        for name, forget in (("web_game_page", _new_turn), ("web_game_page_cold", _restart)):
            walls, cpus = [], []
            for _ in range(runs):
                forget(pages, orders, turns)
                wall, cpu = time.perf_counter(), time.process_time()
                asyncio.run(load())
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            figures[f"{name}_s"] = round(statistics.median(walls), 4)
            figures[f"{name}_cpu_s"] = round(statistics.median(cpus), 4)
        return figures


def _new_turn(pages: Any, orders: Any, turn: int) -> None:
    """What a new turn leaves a running server: everything of the latest turn to
    work out again (its public report, maps, news, the live state); the news
    of earlier turns stays cached."""
    for cache in (pages.PUBLIC_REPORTS, pages.MAPS, orders._STATES):
        cache.clear()
    for key in [k for k in pages.NEWS.items if k[2] == turn]:
        del pages.NEWS.items[key]


def _restart(pages: Any, orders: Any, turn: int) -> None:
    """A server just started: nothing cached but the scenario."""
    for cache in (pages.PUBLIC_REPORTS, pages.MAPS, pages.NEWS, orders._STATES):
        cache.clear()
