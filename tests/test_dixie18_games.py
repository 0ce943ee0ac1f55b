"""Computer players play whole 18Dixie games on the family engine, one order
at a time: every order accepted, money conserved and each major's
certificates summing to 100% after every action, the game ending by one of
the title's end reasons (6); and the initial stock round as 3.3.1 says."""

import pytest

from turnproc.families.g18xx import ai
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.titles.dixie18.rules import in_open_market
from turnproc.families.g18xx.titles.load import new_game

END_REASONS = {"bank", "stock_market", "bankrupt"}  # 6a, 6b, 6c
INITIAL_PRIVATES = {f"P{n}" for n in range(1, 8)}


def certificates_whole(game: Game) -> bool:
    """Each major's certificates, wherever they are, make 100%."""
    for company in game.companies:
        held = sum(c.percent for c in game.certs.values() if c.company == company)
        counted = sum(
            sum(c.percent for c in certs)
            for (_, name), certs in game.holdings.items()
            if name == company
        )
        if held != 100 or counted != 100:
            return False
    return True


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 4), (5, 2)])
def test_computer_players_play_a_whole_18dixie_game(players: int, seed: int) -> None:
    game = new_game("18Dixie", list(range(1, players + 1)))
    moves = 0
    while not game.ended and moves < 2000:
        player = game.to_move()
        assert player is not None
        line = ai.next_order(game, player, seed, moves)
        receipt = apply_orders(game, player, line)
        assert receipt.refused is None, (moves, line, receipt.refused)
        assert game.money_is_conserved(), (moves, line)
        assert certificates_whole(game), (moves, line)
        # 12.1: privates close when phase 6 begins
        assert game.phase not in ("6", "7", "D") or all(p.closed for p in game.privates.values()), (
            moves,
            line,
        )
        moves += 1
    game.finish()
    assert game.ended and game.end_reason in END_REASONS
    assert game.operating_round >= 8
    floated = [c for c, s in game.companies.items() if s.floated]
    assert len(floated) >= 3
    # 3.3.2-3.3.3: P8-P10 were auctioned in SR2; whatever stayed unsold has left
    assert all(s.owner is not None or s.closed for s in game.privates.values())
    assert game.privates["P10"].closed and game.companies["WRA"].floated


def test_initial_auctions_give_each_player_one_private() -> None:
    """3.3.1: until each player owns one of P1-P7 the players without one
    nominate and bid; then the highest numbered unsold private leaves the
    game, the others wait in the open market, and the buyer of the lowest
    numbered private has the priority deal."""
    game = new_game("18Dixie", [1, 2, 3])
    for player, line in [
        (1, "BID P3 50"),  # nominates P3; 2 and 3 bid in turn
        (2, "BID P3 55"),
        (3, "PASS"),
        (1, "PASS"),  # 2 wins P3 at $55
    ]:
        receipt = apply_orders(game, player, line)
        assert receipt.refused is None, (line, receipt.refused)
    assert game.privates["P3"].owner == 2 and game.cash[2] == 700 - 55
    # player 1, who nominated, has none: he nominates again
    assert game.to_move() == 1
    refused = apply_orders(game, 1, "PASS").refused
    assert refused is not None and "3.3.1" in str(refused)
    for player, line in [(1, "BID P5 80"), (3, "PASS")]:
        assert apply_orders(game, player, line).refused is None
    assert game.privates["P5"].owner == 1
    # the last player buys his choice at its printed price, no auction
    assert apply_orders(game, 3, "BID P2 35").refused is not None
    assert apply_orders(game, 3, "BID P2 30").refused is None
    assert game.round == "stock"
    assert game.priority == 3  # P2 is the lowest numbered sold
    assert game.privates["P7"].closed  # the highest numbered unsold
    in_market = {p for p in game.privates if in_open_market(game, p)}
    assert in_market == {"P1", "P4", "P6"}
    # P8-P10 wait for the second stock round (3.3.2)
    assert apply_orders(game, 3, "BID P8 50").refused is not None
    # an open-market private at its printed price, as the turn's purchase
    assert apply_orders(game, 3, "BUY PRIVATE P4 50").refused is None
    assert game.privates["P4"].owner == 3 and game.to_move() == 1


def test_p6_gives_the_southern_floated() -> None:
    """12.3 P6: its buyer sets the Southern's par; three shares go to the open
    market, it floats with ten times par, and P6 is discarded."""
    game = new_game("18Dixie", [1, 2, 3])
    for player, line in [(1, "BID P6 140"), (2, "PASS"), (3, "PASS")]:
        assert apply_orders(game, player, line).refused is None
    assert game.to_move() == 1
    assert apply_orders(game, 1, "BID P1 20").refused is not None
    assert apply_orders(game, 1, "PAR SOU 80").refused is None
    sou = game.companies["SOU"]
    assert sou.floated and sou.president == 1 and game.cash["SOU"] == 800
    assert game.percent_of(1, "SOU") == 20 and game.percent_of("market", "SOU") == 30
    assert game.privates["P6"].closed and game.cash[1] == 700 - 140


def test_sou_is_reserved_while_p6_is_unsold() -> None:
    game = new_game("18Dixie", [1, 2, 3])
    for player, line in [(1, "BID P1 20"), (2, "PASS"), (3, "PASS")]:
        assert apply_orders(game, player, line).refused is None
    for player, line in [(2, "BID P2 30"), (3, "PASS"), (3, "BID P3 50")]:
        assert apply_orders(game, player, line).refused is None
    # P7 leaves the game, P4-P6 wait in the open market
    assert game.round == "stock" and not game.privates["P6"].closed
    refused = apply_orders(game, game.to_move() or 0, "PAR SOU 80").refused
    assert refused is not None and "P6" in str(refused)


def test_n_plus_m_trains_count_cities_and_stops() -> None:
    """4.4h, ambiguity 19: a 6+1 stops at no more than 6 cities and 7 places
    in all; towns may fill city places; a 5-train does not count towns."""
    game = new_game("18Dixie", [1, 2, 3])
    cities = [
        (h.hex, i)
        for h in game.title.hexes
        for i, n in enumerate(h.nodes)
        if n.kind == "city" and h.colour == "white"
    ]
    towns = [
        (h.hex, i)
        for h in game.title.hexes
        for i, n in enumerate(h.nodes)
        if n.kind == "town" and h.colour == "white"
    ]
    six_one = next(t for t in game.trains if t.name == "6+1")
    five = next(t for t in game.trains if t.name == "5")
    assert game.stop_value("SOU", cities[:6] + towns[:1], six_one) is not None
    assert game.stop_value("SOU", cities[:5] + towns[:2], six_one) is not None
    assert game.stop_value("SOU", cities[:7], six_one) is None
    assert game.stop_value("SOU", cities[:6] + towns[:2], six_one) is None
    assert game.stop_value("SOU", cities[:5] + towns[:3], five) is not None
    assert game.stop_value("SOU", cities[:6], five) is None


def test_removed_trains_pay_their_salvage() -> None:
    """4.6, 12.1: the first 4-train removes the 2-trains; each pays its
    owner its salvage value ($20) from the bank."""
    from turnproc.families.g18xx.engine.steps.trains import first_of_type

    game = new_game("18Dixie", [1, 2, 3])
    two, spare = [t for t in game.trains if t.name == "2"][:2]
    two.owner = "SOU"
    before = game.cash["SOU"]
    first_of_type(game, next(k for k in game.title.trains if k.name == "4"))
    assert two.rusted and spare.rusted and game.phase == "4"
    assert game.cash["SOU"] == before + 20
    assert game.money_is_conserved()
