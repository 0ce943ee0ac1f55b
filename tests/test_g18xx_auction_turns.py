"""18GA's private companies are sold in turn (3.1): each player buys the
cheapest, bids on another or passes, and an auction between a private's
bidders goes round them from the one after the highest bidder (3.1.1), so a
game by mail always knows whose move it is."""

from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.titles.load import new_game


def test_the_privates_are_sold_in_turn() -> None:
    game = new_game("18GA", [1, 2, 3])
    assert game.round == "auction" and game.to_move() == 1
    refused = apply_orders(game, 2, "BID OSR 105").refused
    assert refused is not None and "it is player 1's turn in the round" in refused.reason
    for player, order in ((1, "BID W&SR 75"), (2, "BID W&SR 80"), (3, "BID LTR 20")):
        assert game.to_move() == player
        assert apply_orders(game, player, order).refused is None
    # LTR is bought; MRC, the cheapest now, has no bids: the round goes on
    assert game.privates["LTR"].owner == 3 and game.to_move() == 1
    assert apply_orders(game, 1, "BID MRC 40").refused is None
    # MRC bought, so W&SR comes up between its bidders, from the one after
    # the highest (player 2): player 1
    assert game.auction.contest == "W&SR" and game.to_move() == 1
    refused = apply_orders(game, 2, "PASS").refused
    assert refused is not None and "it is player 1's turn in the W&SR auction" in refused.reason
    assert apply_orders(game, 1, "BID W&SR 85").refused is None
    assert game.to_move() == 2
    assert apply_orders(game, 2, "PASS").refused is None
    assert game.privates["W&SR"].owner == 1 and game.cash[1] == 600 - 40 - 85
    # the round goes on with the player after the last to buy in turn (1)
    assert game.auction.contest is None and game.to_move() == 2
    assert game.money_is_conserved()
