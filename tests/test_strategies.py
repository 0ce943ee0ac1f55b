"""Scripted strategies play seats as players do (issue 12): through the
intake's order check, with money and shares conserved after every step."""

import json

import pytest

from turnproc.cli import main
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.tools.exploits import measure, seat_of
from turnproc.families.continental_rails.tools.simulate import (
    game_seed,
    parse_strategy_seats,
    play_game,
    strategy_player_orders,
)
from turnproc.families.continental_rails.tools.strategies import STRATEGIES, strategy_orders
from turnproc.scenario.model import Scenario


def test_every_strategy_plays_a_seat_and_conserves_money_and_shares(scenario: Scenario) -> None:
    for position, name in enumerate(sorted(STRATEGIES), start=1):
        stats = play_game(scenario, game_seed(5, position), turns=4, seats={position: name})
        assert stats.crashed is None, (name, stats.crashed)
        assert stats.problems == [], (name, stats.problems[:3])
        assert stats.turns == 4
        assert stats.personalities[position] == name  # reported by its strategy


def test_strategies_write_orders_the_intake_accepts(scenario: Scenario) -> None:
    state = new_game(scenario, 7, [PlayerSetup(position=p) for p in range(1, 16)])
    sweep, struck = strategy_player_orders(scenario, state, 4, "director-sweep")
    assert struck == 0
    kinds = [o.kind for o in sweep.orders]
    assert kinds[0] == "borrow" and kinds.count("buy") == len(state.railroads)
    assert sweep.source == "player"
    assert strategy_orders("idle", scenario, state, 4) == []
    prodigal = strategy_orders("minimal-prodigal", scenario, state, 3)
    assert [o for o in prodigal if o.kind == "prodigal"] == [prodigal[0]]
    assert prodigal[0].model_dump()["amount"] == 1000


def test_looter_issues_borrows_and_pays_out_in_its_railroads(scenario: Scenario) -> None:
    state = new_game(scenario, 7, [PlayerSetup(position=p) for p in range(1, 16)])
    state.railroads["NYC"].president = 2
    orders = strategy_orders("looter", scenario, state, 2)
    nyc = [o for o in orders if getattr(o, "railroad", None) == "NYC"]
    kinds = {o.kind for o in nyc}
    assert {"issue_stock", "issue_bonds", "short_loan", "dividend"} <= kinds
    assert not kinds & {"build_row", "bid_row", "capital_improvement"}
    assert [o.model_dump()["per_share"] for o in nyc if o.kind == "dividend"] == [99]


def test_strategy_flags_are_checked() -> None:
    assert parse_strategy_seats(["looter@3", "idle@15"]) == {3: "looter", 15: "idle"}
    for bad in (["nobody@3"], ["looter@0"], ["looter@16"], ["looter"], ["looter@3", "idle@3"]):
        with pytest.raises(ValueError):
            parse_strategy_seats(bad)


def test_simulate_command_takes_strategy_seats(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "1", "--turns", "2", "--seed", "9", "--workers", "1"]
    assert main([*args, "--json", "--strategy", "idle@4"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["games"][0]["strategies"] == {"4": "idle"}
    assert main([*args, "--strategy", "cheat@4"]) == 2
    assert "unknown strategy" in capsys.readouterr().err


def test_exploit_measure_rotates_seats_and_compares_with_the_same_seat() -> None:
    assert [seat_of(g) for g in (1, 2, 15, 16, 45)] == [1, 2, 15, 1, 15]
    report = measure("continental-rails", games=2, seed=3, turns=2, workers=1, names=["idle"])
    idle = report["strategies"]["idle"]
    assert idle["games"] == 2
    assert set(idle["win_rate"]) == {
        "robber_baron",
        "rail_mogul",
        "rail_builder",
        "rail_magnate",
        "rail_prodigal",
        "rail_baron",
    }
    assert 1 <= idle["mean_rank"] <= 15
    assert report["conservation_failures"] == 0 and report["crashed"] == 0


def test_issue_24_strategies_write_their_tricks(scenario: Scenario) -> None:
    state = new_game(scenario, 7, [PlayerSetup(position=p) for p in range(1, 16)])
    # Prodigal farming: the whole credit room borrowed, all the cash spent.
    farmer, struck = strategy_player_orders(scenario, state, 2, "prodigal-farmer")
    assert struck == 0
    borrow, spend = farmer.orders
    assert borrow.kind == "borrow" and spend.kind == "prodigal"
    assert spend.model_dump()["amount"] == state.tycoon(2).cash + borrow.model_dump()["amount"]
    # The leveraged sweep borrows 90% of its room at Normal and repays from Recession on.
    sweep = strategy_orders("leveraged-sweep", scenario, state, 4)
    assert sweep[0].kind == "borrow" and any(o.kind == "buy" for o in sweep)
    assert len([o for o in sweep if o.kind == "request_presidency"]) == 2
    state.climate = 5
    state.tycoon(4).loan = 500
    bad = strategy_orders("leveraged-sweep", scenario, state, 4)
    assert [o.kind for o in bad if o.kind in {"borrow", "repay_loan", "buy"}] == ["repay_loan"]
    # Rail Mogul by chairmanships: buys into five railroads, asks for two presidencies.
    state.climate = 4
    state.tycoon(5).cash = 100_000
    mogul = strategy_orders("chairman-mogul", scenario, state, 5)
    assert len({o.model_dump()["railroad"] for o in mogul if o.kind == "buy"}) == 5
    assert len([o for o in mogul if o.kind == "request_presidency"]) == 2


def test_exploit_report_judges_rank_and_own_bankruptcies() -> None:
    report = measure(
        "continental-rails", games=1, seed=3, turns=3, workers=1, names=["prodigal-farmer"]
    )
    farmer = report["strategies"]["prodigal-farmer"]
    assert farmer["bankruptcies_max"] >= farmer["bankruptcies_per_game"] >= 0
    assert farmer["mean_rank"] is not None
    # The bar on rank: a strategy ranked 7.0 or better fails it whatever else it does.
    assert farmer["meets_bar"] == (
        farmer["mean_rank"] > 7.0
        and farmer["bankruptcies_max"] <= 3
        and farmer["best_category_rate"] <= 0.35
        and farmer["richer_than_seat"] <= 0.55
    )
