"""Rules of the published games beyond the recorded ones: the 18GA private
auction's turns (3.1, 3.1.1, 3.1.2), privates blocking their home hexes
(18GA 4.2.1k), discarding trains when the train limit falls (4.2.5g),
privates sold between players (3.2b, 3.2c4) and 18MS's optional eleventh
operating round (18MS 6). Each rule is shown through the order language, with
the refusals and the legal alternatives they name."""

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from tests.g18xx_fixtures import load_recorded
from tests.store_support import fresh_database
from turnproc import sequential
from turnproc.core.errors import UsageError
from turnproc.families.g18xx import ai
from turnproc.families.g18xx.engine.actions import parse_action
from turnproc.families.g18xx.engine.game import Game
from turnproc.families.g18xx.family import G18XX
from turnproc.families.g18xx.orders import apply_orders
from turnproc.families.g18xx.replay import standing_actions
from turnproc.families.g18xx.titles.load import new_game
from turnproc.mail.inbound import IngestOutcome, ingest
from turnproc.store import g18xx as g18xx_store
from turnproc.store.db import open_database, transaction
from turnproc.store.models import OutboxMessage


def _ok(game: Game, player: int, text: str) -> None:
    receipt = apply_orders(game, player, text)
    assert receipt.refused is None, receipt.refused
    assert game.money_is_conserved()


def _refused(game: Game, player: int, text: str) -> str:
    cash = dict(game.cash)
    receipt = apply_orders(game, player, text)
    assert receipt.refused is not None, f"{text!r} was taken"
    assert game.cash == cash
    return receipt.refused.reason


def _recorded(name: str, upto: int) -> Game:
    """A recorded 18GA game replayed up to (not including) standing action `upto`."""
    data = load_recorded(name)
    game = new_game("18GA", [p["id"] for p in data["players"]])
    for raw in standing_actions(data["actions"])[:upto]:
        game.apply_unchecked(parse_action(raw))
    return game


# --- 18GA: the private companies' auction ---------------------------------------


def test_18ga_auction_turns_go_round_the_table_from_the_priority_deal() -> None:
    game = new_game("18GA", [1, 2, 3])
    assert game.round == "auction" and game.to_move() == 1
    assert "player 1's turn" in _refused(game, 2, "BID OSR 105")
    _ok(game, 1, "BID OSR 105")
    assert game.to_move() == 2
    assert "at least $110" in _refused(game, 2, "BID OSR 105")  # 3.1b: $5 more
    assert "at least $75" in _refused(game, 2, "BID W&SR 72")  # over the par value
    assert "LTR is bought at $20" in _refused(game, 2, "BID LTR 25")
    _ok(game, 2, "BID OSR 110")
    _ok(game, 3, "BID MRC 45")
    _ok(game, 1, "BID MRC 50")
    # 3.1a: player 2 buys LTR, so MRC, bid on twice, is auctioned at once;
    # 3.1.1: its bidders take turns from the one after the highest (player 1)
    _ok(game, 2, "BID LTR 20")
    assert game.auction.contest == "MRC" and game.to_move() == 3
    assert "bidder 3's turn" in _refused(game, 1, "BID MRC 60")
    assert "at least $55" in _refused(game, 3, "BID MRC 52")
    _ok(game, 3, "BID MRC 55")
    assert game.to_move() == 1
    _ok(game, 1, "PASS")
    assert game.privates["MRC"].owner == 3 and game.cash[3] == 600 - 55
    # the stock round's turns go on after the buyer of LTR
    assert game.auction.contest is None and game.to_move() == 3


def test_18ga_contest_lets_a_bidder_who_passed_bid_again() -> None:
    """3.1.1: a player who passed may bid later if he gets another turn; the
    contest ends when all but the high bidder pass in a row."""
    game = new_game("18GA", [1, 2, 3])
    for player, order in [
        (1, "BID OSR 105"),
        (2, "BID OSR 110"),
        (3, "BID OSR 115"),
        (1, "BID LTR 20"),
        (2, "BID MRC 40"),
        (3, "BID W&SR 70"),
    ]:
        assert game.to_move() == player
        _ok(game, player, order)
    # OSR is the cheapest now, with three bids: player 1 follows the high bidder
    assert game.auction.contest == "OSR" and game.to_move() == 1
    _ok(game, 1, "PASS")
    _ok(game, 2, "BID OSR 120")
    _ok(game, 3, "PASS")
    _ok(game, 1, "BID OSR 125")  # back in after passing
    _ok(game, 2, "PASS")
    assert game.auction.contest == "OSR"  # player 3 has not passed since
    _ok(game, 3, "PASS")
    assert game.privates["OSR"].owner == 1 and game.cash[1] == 600 - 20 - 125
    # M&BR has no bid: the next turn is the player after the last buyer (3)
    assert game.auction.contest is None and game.to_move() == 1


def test_18ga_bids_set_cash_aside() -> None:
    """3.1b: a bid may not use money set aside for bids on other privates."""
    game = new_game("18GA", [1, 2, 3])
    _ok(game, 1, "BID M&BR 400")
    _ok(game, 2, "PASS")
    _ok(game, 3, "PASS")
    assert "cash is $600" in _refused(game, 1, "BID OSR 205")
    _ok(game, 1, "BID OSR 200")


def test_18ga_everyone_passing_makes_the_first_private_cheaper_then_pays_revenue() -> None:
    """3.1.2: a round of passes makes LTR $5 cheaper; once LTR is sold, a
    round of passes is an operating round in which the privates pay."""
    game = new_game("18GA", [1, 2, 3])
    for player in (1, 2, 3):
        _ok(game, player, "PASS")
    assert game.auction.price["LTR"] == 15 and game.to_move() == 1
    assert "LTR is bought at $15" in _refused(game, 1, "BID LTR 20")
    _ok(game, 1, "BID LTR 15")
    before = game.cash[1]
    for player in (2, 3, 1):
        _ok(game, player, "PASS")
    assert game.cash[1] == before + 5  # LTR's revenue
    assert game.auction.price["MRC"] == 40  # no discount on any other private


def test_computer_players_play_the_18ga_auction_by_the_engines_turns() -> None:
    game = new_game("18GA", [1, 2, 3, 4])
    moves = 0
    while game.round == "auction":
        player = game.to_move()
        assert player is not None
        _ok(game, player, ai.next_order(game, player, 11, moves))
        moves += 1
    assert all(p.owner is not None for p in game.privates.values())
    assert game.round == "stock"


# --- 18GA: privates block their home hexes -------------------------------------


def test_18ga_a_players_private_blocks_its_home_hex_until_a_company_buys_it() -> None:
    """4.2.1k: M&BR's hex F4 takes no tile while a player owns it."""
    game = _recorded("18GA/18GA_game_end_bankrupt.json", 296)
    assert game.operating_company() == "CoG" and game.phase == "4"
    president = game.companies["CoG"].president
    assert president is not None and game.privates["M&BR"].owner == 14908 != president
    reason = _refused(game, president, "LAY 7 F4 0")
    assert "M&BR" in reason and "4.2.1k" in reason
    assert game.blocking_private("I9") is None  # Waycross is never blocked
    # a company buys from a player other than its president only at his offer
    reason = _refused(game, president, "BUY PRIVATE M&BR 100")
    assert "14908 has not offered M&BR for $100" in reason
    offer = {"type": "offer_company", "entity": 14908, "entity_type": "player"}
    game.apply(parse_action(dict(offer, company="M&BR", price=100, to="CoG")))
    assert "standing offers: M&BR for $100 from 14908" in _refused(
        game, president, "BUY PRIVATE M&BR 90"
    )
    _ok(game, president, "BUY PRIVATE M&BR 100")
    assert game.privates["M&BR"].owner == "CoG" and game.offers == []
    _ok(game, president, "LAY 7 F4 0")


# --- 4.2.5g: discarding when the train limit falls ------------------------------


def test_a_company_over_the_new_train_limit_discards_before_anything_else() -> None:
    # G&F has just bought the first 4-train in its turn (phase 4, limit 3)
    game = _recorded("18GA/18GA_game_end_bankrupt.json", 325)
    assert game.operating_company() == "G&F" and game.train_limit() == 3
    president = game.companies["G&F"].president
    assert president is not None
    _ok(game, president, "BUY TRAIN 3 FROM ACL 1")
    _ok(game, president, "BUY TRAIN 5")  # the first 5: phase 5, limit 2
    assert game.train_limit() == 2 and game.discards == ["G&F"]
    assert game.to_move() == president
    reason = _refused(game, president, "DONE")
    assert "limit is now 2" in reason and "DISCARD" in reason
    others = [p for p in game.players if p != president]
    assert "its president is player" in _refused(game, others[0], "DISCARD 3")
    assert "its trains: 3, 4, 5" in _refused(game, president, "DISCARD 8")
    assert ai.next_order(game, president, 1, 0) == "DISCARD 3-3"  # the shortest goes
    _ok(game, president, "DISCARD 3")
    assert game.discards == [] and [t.name for t in game.trains_of("G&F")] == ["4", "5"]
    # the train is in the open market, on sale at face value (4.2.5c)
    on_sale = {t.id: t.price for t in game.available_trains()}
    assert on_sale["3-3"] == 180
    _ok(game, president, "DONE")


def test_discard_is_refused_when_no_company_is_over_its_limit() -> None:
    game = _recorded("18GA/18GA_game_end_bankrupt.json", 325)
    president = game.companies["G&F"].president
    assert president is not None
    assert "no company is over its train limit" in _refused(game, president, "DISCARD 4")


# --- private companies sold between players -------------------------------------


def _18ga_stock_round() -> Game:
    """3 players after the auction: 1 has LTR and OSR, 2 MRC and M&BR, 3 W&SR."""
    game = new_game("18GA", [1, 2, 3])
    for player, order in [
        (1, "BID LTR 20"),
        (2, "BID MRC 40"),
        (3, "BID W&SR 70"),
        (1, "BID OSR 100"),
        (2, "BID M&BR 150"),
    ]:
        _ok(game, player, order)
    assert game.round == "stock" and game.to_move() == 3
    return game


def test_18ga_a_player_buys_a_private_another_player_offered_him() -> None:
    game = _18ga_stock_round()
    reason = _refused(game, 3, "BUY PRIVATE MRC 60")
    assert "2 has not offered MRC for $60" in reason and "standing offers: none" in reason
    _ok(game, 3, "PAR GA 70")
    _ok(game, 1, "PASS")
    _ok(game, 2, "OFFER MRC TO 3 FOR 60\nPASS")
    assert "standing offers: MRC for $60 from 2" in _refused(game, 3, "BUY PRIVATE MRC 50")
    cash = game.cash[2], game.cash[3]
    _ok(game, 3, "BUY PRIVATE MRC 60")  # player 3's one purchase this turn
    assert game.privates["MRC"].owner == 3
    assert (game.cash[2], game.cash[3]) == (cash[0] + 60, cash[1] - 60)
    assert game.to_move() == 1


def test_18ga_an_owner_sells_to_a_player_who_offered_to_buy() -> None:
    game = _18ga_stock_round()
    _ok(game, 3, "OFFER 80 FOR OSR\nPASS")
    assert "3 has not offered to buy OSR for $90" in _refused(
        game, 1, "SELL PRIVATE OSR TO 3 FOR 90"
    )
    assert "is not yours to sell" in _refused(game, 1, "SELL PRIVATE W&SR TO 3 FOR 80")
    _ok(game, 1, "SELL PRIVATE OSR TO 3 FOR 80")
    assert game.privates["OSR"].owner == 3
    assert game.to_move() == 1  # a sale is not a purchase: his turn goes on
    _ok(game, 1, "PAR GA 70")


def test_an_offer_can_be_withdrawn() -> None:
    game = _18ga_stock_round()
    _ok(game, 3, "PASS")
    _ok(game, 1, "OFFER OSR TO 2 FOR 100\nWITHDRAW OSR\nPASS")
    assert game.offers == []
    assert "1 has not offered OSR" in _refused(game, 2, "BUY PRIVATE OSR 100")


def test_18ms_players_trade_privates_in_the_rules_text_not_in_the_later_edition() -> None:
    for edition, allowed in (("1.0", True), ("18xx.games", False)):
        game = new_game("18MS", [1, 2, 3], {"edition": edition})
        for _ in range(3):  # the draft: each player buys one private
            player = game.to_move()
            assert player is not None
            _ok(game, player, ai.next_order(game, player, 5, 0))
        first = game.to_move()
        assert first is not None
        mine = next(p for p in game.privates.values() if p.owner == first)
        text = f"OFFER {mine.data.id} TO {game.next_player(first)} FOR 10"
        if allowed:
            _ok(game, first, text)
        else:
            assert "may not sell private companies" in _refused(game, first, text)
        # 18MS 4: a company buys privates from its president only
        reason = _refused(game, first, f"OFFER {mine.data.id} TO GMO FOR 10")
        assert "GMO buys private companies only from its president" in reason


# --- 18MS: the optional eleventh operating round ------------------------------


def _rounds(game: Game, seed: int) -> list[str]:
    """The rounds of a computer-played game in order, e.g. 'OR9', 'SR'."""
    seen: list[str] = []
    moves = 0
    while not game.ended:
        player = game.to_move()
        assert player is not None
        _ok(game, player, ai.next_order(game, player, seed, moves))
        moves += 1
        label = f"OR{game.operating_round}" if game.round == "operating" else "SR"
        if not seen or seen[-1] != label:
            seen.append(label)
    return seen


@pytest.mark.parametrize(("option", "last"), [({}, 10), ({"operating_rounds": "11"}, 11)])
def test_18ms_game_lasts_ten_operating_rounds_or_eleven_by_option(
    option: dict[str, str], last: int
) -> None:
    game = new_game("18MS", [1, 2, 3], option)
    rounds = _rounds(game, 3)
    assert game.end_reason == "fixed_round" and game.operating_round == last
    ors = [r for r in rounds if r.startswith("OR")]
    assert ors == [f"OR{n}" for n in range(1, last + 1)]
    # the last stock round is followed by OR9, OR10 (and OR11) with none between
    assert rounds[-(last - 7) :] == ["SR"] + [f"OR{n}" for n in range(9, last + 1)]


def test_18ms_length_option_is_checked() -> None:
    with pytest.raises(ValueError, match="10 or 11"):
        new_game("18MS", [1, 2, 3], {"operating_rounds": "12"})
    assert G18XX.options["18MS"]["operating_rounds"] == ("10", "11")


SEATS = {1: "ann@example.org", 2: "bob@example.org", 3: "cy@example.org"}
MODERATOR = "mod@example.org"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _mail(engine: Engine, position: int, orders: str, move: int) -> IngestOutcome:
    message = EmailMessage()
    message["From"] = SEATS[position]
    message["To"] = MODERATOR
    message["Subject"] = "my move"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(
        f"TURNSHEET game: ga1 turn: {move} player: {position} "
        f"secret: secret{position}number{position}\n{orders}\nEND\n"
    )
    return ingest(engine, message.as_bytes(), "test", NOW, moderator=MODERATOR)


def _your_move_mails(engine: Engine) -> list[str]:
    with transaction(engine) as session:
        rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        return [r.to_address for r in rows if r.kind == "your-move"]


def test_18ga_auction_by_mail_tells_the_bidder_whose_turn_it_is(tmp_path: Path) -> None:
    """The pipeline asks the engine who is to move: the auction's first
    "your move" mail goes to the priority deal, a bid out of turn is refused."""
    for url in fresh_database("sqlite", tmp_path):
        engine = open_database(url)
        with transaction(engine) as session:
            sequential.create_game(
                session,
                scenario="18ga",
                seats=[
                    sequential.Seat(p, a, f"P{p}", f"secret{p}number{p}") for p, a in SEATS.items()
                ],
                name="ga1",
                seed=1,
                options={},
                move_hours=48,
                now=NOW,
            )
        assert _your_move_mails(engine) == [SEATS[1]]
        wrong = _mail(engine, 2, "BID OSR 105", 1)
        assert wrong.verdict == "rejected" and "player 1's move" in wrong.detail
        assert _mail(engine, 1, "BID OSR 105", 1).verdict == "accepted"
        assert _your_move_mails(engine) == [SEATS[1], SEATS[2]]


def test_18ms_game_by_mail_takes_the_length_option(tmp_path: Path) -> None:
    for url in fresh_database("sqlite", tmp_path):
        engine = open_database(url)
        seats = [sequential.Seat(p, a, f"P{p}", f"secret{p}number{p}") for p, a in SEATS.items()]
        with transaction(engine) as session:
            with pytest.raises(UsageError, match="no option operating_rounds=12"):
                sequential.create_game(
                    session,
                    scenario="18ms",
                    seats=seats,
                    name="ms11",
                    seed=1,
                    options={"operating_rounds": "12"},
                    move_hours=48,
                    now=NOW,
                )
            sequential.create_game(
                session,
                scenario="18ms",
                seats=seats,
                name="ms11",
                seed=1,
                options={"operating_rounds": "11"},
                move_hours=48,
                now=NOW,
            )
        with transaction(engine) as session:
            game = g18xx_store.load(session, "ms11").game
            assert game.rules.last_operating_round() == 11
