"""Computer players play whole 18MS and 18GA games through the order language:
every move accepted by the engine, money conserved, the game ends by its
title's rules, companies float and earn, and the same seed plays the same game."""

import statistics

import pytest

from turnproc.cli import main as turnproc
from turnproc.families.g18xx import ai
from turnproc.families.g18xx.engine.game import BANK, Game
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.titles.load import new_game

END_REASONS = {"18MS": {"fixed_round"}, "18GA": {"bank", "stock_market", "bankrupt"}}


@pytest.mark.parametrize(
    ("title", "players", "seed"), [("18MS", 3, 1), ("18MS", 4, 2), ("18GA", 3, 3), ("18GA", 4, 4)]
)
def test_computer_players_play_a_whole_game(title: str, players: int, seed: int) -> None:
    game = new_game(title, list(range(1, players + 1)))
    start = {p: game.cash[p] for p in game.players}
    outcome = ai.play(game, seed)
    assert outcome.refused == []
    assert outcome.money_conserved and game.money_is_conserved()
    assert outcome.ended and outcome.end_reason in END_REASONS[title]
    floated = [c for c, s in game.companies.items() if s.floated]
    assert len(floated) >= 3
    assert len(game.tiles_on_map) >= 15
    assert all(s.operated for c, s in game.companies.items() if c in floated)
    # the companies earned: the players end worth more than they began with
    assert sum(outcome.scores.values()) > 2 * sum(start.values())


# 18MS, 3 players, seeds 1-4 (12 scores): the former computer players' median
# was $2,186 (`turnproc 18xx simulate --title 18ms --players 3 --games 4 --seed 1`
# before track, trains, dividends and shares were weighed by what they earn).
QUALITY_SEEDS = range(1, 5)
QUALITY_MEDIAN = 2_400


def test_computer_players_play_18ms_well_enough() -> None:
    """Over fixed seeds the players' median score clears a floor the former
    policy did not reach, every game ending by the rules with money conserved
    and nobody bankrupt."""
    scores: list[int] = []
    for seed in QUALITY_SEEDS:
        game = new_game("18MS", [1, 2, 3])
        outcome = ai.play(game, seed)
        assert outcome.refused == [] and outcome.money_conserved
        assert outcome.ended and outcome.end_reason == "fixed_round"
        assert not game.bankrupt
        scores.extend(outcome.scores.values())
    assert statistics.median(scores) >= QUALITY_MEDIAN, sorted(scores)


def test_four_computer_players_of_18ga_keep_out_of_bankruptcy() -> None:
    """18GA, 4 players, seed 5: the former computer players' game ended with a
    president bankrupt (his score $30, the median $1,575.50); these keep their
    companies in trains and play on until the bank or the market ends it."""
    game = new_game("18GA", [1, 2, 3, 4])
    outcome = ai.play(game, 5)
    assert outcome.refused == [] and outcome.money_conserved
    assert outcome.ended and outcome.end_reason in ("bank", "stock_market")
    assert not game.bankrupt
    assert statistics.median(outcome.scores.values()) >= 3_000, outcome.scores


def _moves(title: str, seed: int, count: int) -> list[str]:
    game = new_game(title, [1, 2, 3])
    lines = []
    for number in range(count):
        player = game.to_move()
        assert player is not None
        line = ai.next_order(game, player, seed, number)
        receipt = apply_orders(game, player, line)
        assert receipt.refused is None, receipt.refused
        lines.append(f"{player}: {line}")
    return lines


def test_the_same_seed_plays_the_same_game() -> None:
    assert _moves("18MS", 7, 60) == _moves("18MS", 7, 60)
    assert _moves("18MS", 7, 60) != _moves("18MS", 8, 60)


def test_a_computer_player_takes_over_a_seat_mid_game() -> None:
    """An abandoned seat goes on: the computer moves from any position."""
    game: Game = new_game("18MS", [1, 2, 3])
    _play_some(game, 9, 40)
    player = game.to_move()
    assert player is not None
    line = ai.next_order(game, player, 99, 40)
    assert apply_orders(game, player, line).refused is None


def _play_some(game: Game, seed: int, count: int) -> None:
    for number in range(count):
        player = game.to_move()
        assert player is not None
        assert apply_orders(game, player, ai.next_order(game, player, seed, number)).refused is None


def test_simulate_prints_the_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    code = turnproc(["18xx", "simulate", "--title", "18ms", "--players", "3", "--seed", "5"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("18MS seed 5: ") and "ends: fixed_round" in out
    assert turnproc(["18xx", "simulate", "--title", "1830", "--games", "1"]) != 0


def test_one_certificate_bought_a_turn() -> None:
    """3.2: after a purchase a player may still sell, but not buy again."""
    game = new_game("18MS", [1, 2, 3])
    for number in range(2000):
        player = game.to_move()
        assert player is not None
        if game.round == "stock" and game.stock_bought_this_turn:
            break
        assert apply_orders(game, player, ai.next_order(game, player, 11, number)).refused is None
    else:
        pytest.fail("no stock turn with a purchase and a sale still open")
    assert game.to_move() == player
    buyable = [c for c, s in game.companies.items() if s.par is not None]
    receipt = apply_orders(game, player, "\n".join(f"BUY {c}" for c in buyable))
    assert receipt.applied == []
    assert receipt.refused is not None and "one certificate bought a turn" in receipt.refused.reason
    assert apply_orders(game, player, "PASS").refused is None


def _stock_turn(title: str, players: int, seed: int, moves: int) -> Game:
    game = new_game(title, list(range(1, players + 1)))
    _play_some(game, seed, moves)
    return game


def test_a_president_facing_a_train_he_cannot_pay_for_hands_the_company_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """3.5, 4.2.5.2: when the president's company must soon buy a train that
    neither it nor he can pay for, and another player holds 20%, he sells
    below that player, who becomes president (and pays for the train)."""
    game = _stock_turn("18GA", 3, 3, 61)
    assert game.round == "stock" and game.to_move() == 3
    assert game.companies["W&A"].president == 3
    assert (game.percent_of(3, "W&A"), game.percent_of(1, "W&A")) == (60, 20)
    assert not ai.next_order(game, 3, 3, 61).startswith("SELL")  # W&A is doing well
    real = ai._train_reserve
    monkeypatch.setattr(ai, "_train_reserve", lambda g, c: 10_000 if c == "W&A" else real(g, c))
    line = ai.next_order(game, 3, 3, 61)
    assert line == "SELL 5 W&A"
    assert apply_orders(game, 3, line).refused is None
    assert game.companies["W&A"].president == 1
    assert game.money_is_conserved()


def test_a_president_short_of_cash_for_a_train_sells_in_the_stock_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """4.2.5.2: failing a hand-over, the president raises the money in the
    stock round by selling other shares, the least earning for their price
    first, rather than borrow or go bankrupt later."""
    game = _stock_turn("18GA", 3, 3, 61)
    held = [c for c, s in game.companies.items() if s.president != 3 and game.percent_of(3, c)]
    assert held
    real = ai._train_reserve
    monkeypatch.setattr(ai, "_train_reserve", lambda g, c: 10_000 if c == "W&A" else real(g, c))
    sales = list(ai._sales(game, 3))
    assert sales[0] == "SELL 5 W&A"  # the hand-over first
    assert sorted(sales[1:]) == sorted(f"SELL 1 {c}" for c in held)
    yields = [ai._prospects(game, c)[0] * 100 // game.market.price(c) for c in held]
    assert sales[1] == f"SELL 1 {held[yields.index(min(yields))]}"
    monkeypatch.setattr(ai, "_train_reserve", real)
    assert list(ai._sales(game, 3)) == []


def test_at_a_forced_train_purchase_the_president_sells_before_borrowing() -> None:
    """4.2.5.2 (18MS): a company without a train must buy one; when it and
    its president cannot pay, he sells shares of his other companies, the
    least earning for their price first, before borrowing at 50% interest."""
    game = _stock_turn("18MS", 3, 1, 195)
    assert game.operating_company() == "WRA" and not game.trains_of("WRA")
    assert ai.next_order(game, 1, 1, 195) == "BUY TRAIN 5"  # he can pay the rest
    game.pay(1, BANK, game.cash[1] - 50)  # ...and now he cannot
    held = [c for c in game.companies if c != "WRA" and game.percent_of(1, c)]
    yields = [ai._prospects(game, c)[0] * 100 // game.market.price(c) for c in held]
    least = held[yields.index(min(yields))]
    line = ai.next_order(game, 1, 1, 195)
    assert line == f"SELL 1 {least}"
    cash = game.cash[1]
    assert apply_orders(game, 1, line).refused is None
    assert game.cash[1] > cash and game.money_is_conserved()
