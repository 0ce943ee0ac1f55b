"""18MS special rules (rules 1.0, 19 October 2015) and the later edition that
18xx.games plays (option `edition=18xx.games`); the optional eleventh
operating round of rule 6 is option `operating_rounds=11`."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine.game import (
    BANK,
    Holder,
    PrivateState,
    TitleRules,
    Train,
    Turn,
)
from turnproc.families.g18xx.engine.title import Private, Title, TrainType

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game

EDITIONS = ("1.0", "18xx.games")
LENGTHS = ("10", "11")  # operating rounds in a game (6: an optional eleventh)
CHATTANOOGA_APPROACH = "B10"
CHATTANOOGA = "B12"
NEW_ORLEANS = "I1"


class Rules(TitleRules):
    def __init__(self, title: Title, options: dict[str, str]) -> None:
        super().__init__(title, options)
        self.edition = options.get("edition", "1.0")
        if self.edition not in EDITIONS:
            raise ValueError(f"18MS editions: {', '.join(EDITIONS)}")
        self.later = self.edition == "18xx.games"
        length = options.get("operating_rounds", "10")
        if length not in LENGTHS:
            raise ValueError(f"18MS games last {' or '.join(LENGTHS)} operating rounds")
        self.extra_round = length == "11"

    def last_operating_round(self) -> int | None:
        """5: the game ends after OR10 (6, optional: after OR11)."""
        last = self.title.last_operating_round
        assert last is not None
        return last + 1 if self.extra_round else last

    def operating_rounds_in_set(self, game: "Game", rounds: int) -> int:
        """6 (optional): OR11 follows OR10 with no stock round between."""
        last = self.title.last_operating_round
        if self.extra_round and game.operating_round + rounds == last:
            return rounds + 1
        return rounds

    def bank_cash(self) -> int:
        """1.4: $12,000 (the later edition: $10,000)."""
        return 10_000 if self.later else self.title.bank

    def private_revenue(self, private: Private) -> int:
        """10.III: AGS pays $10 (the later edition: $15, as does M&M)."""
        if self.later and private.id in ("AGS", "M&M"):
            return 15
        return private.revenue

    def start_operating_round(self, game: "Game") -> None:
        """Round of Play chart: in the later edition phase 3 (green tiles)
        begins with OR2; a player still in debt after a stock round borrows
        again with 50% interest."""
        if self.later and game.operating_round == 2:
            game.advance_phase("3")
        if game.round_in_set == 1:
            for player in game.players:
                debt = -game.cash[player]
                if debt > 0:
                    interest = (debt + 1) // 2 if self.later else debt // 2
                    game.pay(player, BANK, interest)

    def private_sale_refusal(
        self, game: "Game", company: str, private: PrivateState, price: int
    ) -> str | None:
        """4.2g: from OR3 at half to one and a half times par (the later edition:
        from OR2, and AGS and BS at face value in OR1); MC only before OR5 and
        with room for its train."""
        value = private.data.value
        first = game.operating_round == 1 and private.data.id in ("AGS", "BS") and self.later
        opens = 2 if self.later else 3
        if game.operating_round < opens and not first:
            return f"companies buy private companies from OR{opens} (4.2g)"
        if first and price != value:
            return f"{private.data.id} sells for exactly ${value} in OR1"
        if not value // 2 <= price <= value * 3 // 2:
            return f"{private.data.id} sells for ${(value + 1) // 2} to ${value * 3 // 2}"
        if private.data.id == "MC":
            if game.operating_round > 4:
                return "MC cannot be sold to a company after OR4"
            if len(game.trains_of(company)) >= game.title.phases[game.phase_index].train_limit:
                return "no room for MC's train"
        return None

    def setup(self, game: "Game") -> None:
        """10.I: the last 2+ train is kept aside for MC's exchange."""
        reserved = [t for t in game.trains if t.type.name == "2+"][-1]
        reserved.sellable = False

    def players_trade_privates(self, game: "Game") -> bool:
        """3.2b: players sell privates to each other at any agreed price while
        they are open (the later edition has no such sales)."""
        return not self.later

    def private_sellers(self, game: "Game", company: str) -> set[Holder]:
        """4: a company buys privates only from its president."""
        president = game.companies[company].president
        return {president} if president is not None else set()

    def phase_changed(self, game: "Game") -> None:
        """The first 6-train ends the New Orleans run bonus (4.2.2.1)."""
        if game.phase == "6":
            for state in game.companies.values():
                state.route_bonus.pop(NEW_ORLEANS, None)

    def after_private_bought(self, game: "Game", company: str, private: PrivateState) -> None:
        """10.III.4: MC is exchanged at once for a special 2+ train that cannot be sold."""
        if private.data.id != "MC":
            return
        train = next(
            (t for t in game.trains if t.type.name == "2+" and not t.sellable and t.owner is None),
            None,
        )
        if train is None or train.rusted:
            return
        train.owner = company
        train.sellable = False
        private.closed = True

    def used_cards_turn(self) -> bool:
        """18xx.games: a 2D/4D card bought from another company may be
        turned to its other side."""
        return self.later

    def sales_agreed_off_record(self) -> bool:
        """18xx.games records a private's sale between a player and another
        player or a company as the sale alone: the two agreed off the record."""
        return self.later

    def after_run(self, game: "Game", company: str) -> None:
        """18xx.games: a train that leaves play at the end of this operating
        round (4.2.5.1) may no longer be sold to another company once it has
        run in it."""
        if not self.later:
            return
        leaving = {
            rule.train
            for rule in self.title.obsolete_after_operating_round
            if rule.round == game.operating_round
        }
        for train in game.trains_of(company):
            if train.name in leaving:
                train.sellable = False

    def privates_for_sale_in_phase(self, game: "Game") -> bool:
        """4.2g: companies buy privates from phase 3 on (AGS and BS in OR1 of
        the later edition are a sale of that round alone)."""
        return game.phase_index > 0

    def private_upgrades(self) -> bool:
        """18xx.games: AGS's and BS's extra tiles may be upgrades too
        (10.III: yellow tiles)."""
        return self.later

    def president_funds_used_train(self) -> bool:
        """4.2.5.2 as 18xx.games plays it: a president whose company must buy
        a train may pay for another company's train, up to its face value."""
        return self.later

    def president_sells_in_train_step(self) -> bool:
        """4.2.5.2 as 18xx.games plays it: the president may sell shares in
        the company's train step even when no train must be bought."""
        return self.later

    def tile_lay_refusal(self, game: "Game", turn: Turn, upgrade: bool) -> str | None:
        """4.2b: one tile a turn; on its first turn a company may lay a second
        yellow tile, also after an upgrade. The later edition also lets the
        second lay be an upgrade after a yellow tile."""
        if not turn.lays:
            return None
        second = turn.first and len(turn.lays) == 1
        if second and (not upgrade or (self.later and not turn.lays[0])):
            return None
        return "one tile a turn, and a second yellow one on the first turn (4.2b)"

    def first_train_bought(self, game: "Game", kind: TrainType) -> None:
        """10.I (rules 1.0): green tiles become available with the first 3-train."""
        if not self.later and kind.name == "3+":
            game.advance_phase("3")

    def after_tile_laid(self, game: "Game", company: str, hex_name: str) -> None:
        """4.2.1.1: the first company to build to Chattanooga gets $50."""
        if game.flags.get("chattanooga") or hex_name != CHATTANOOGA_APPROACH:
            return
        if CHATTANOOGA in game.reachable(company):
            game.flags["chattanooga"] = True
            game.pay(BANK, company, 50)

    def after_token_placed(self, game: "Game", company: str, hex_name: str) -> None:
        """4.2.2.1: a station in New Orleans earns $100 and, until the first
        6-train, $10 more for each run there."""
        if hex_name != NEW_ORLEANS:
            return
        if game.phase_index < [p.name for p in game.title.phases].index("6"):
            game.companies[company].route_bonus[NEW_ORLEANS] = 10
        game.pay(BANK, company, 100)

    def ability_lay_is_free(self, private: PrivateState) -> bool:
        """AGS lays at normal cost (the later edition: free); BS always free."""
        if private.data.id == "AGS":
            return self.later
        return super().ability_lay_is_free(private)

    def train_discount(self, private: PrivateState) -> int:
        """M&O: $90 off a 3+ or 4+ train (the later edition: $100)."""
        return 100 if self.later else super().train_discount(private)

    def president_assist(
        self, game: "Game", company: str, train: Train, price: int
    ) -> tuple[int, int]:
        """Later edition: a president may add the missing cash (for a $50 fee)
        when the company has a train, the new one is permanent and the company
        has at least half its price."""
        if not self.later:
            return (0, 0)
        cash = game.cash[company]
        president = game.companies[company].president
        assert president is not None
        if (
            game.trains_of(company)
            and not train.type.towns_free
            and cash >= price // 2
            and price > cash
        ):
            assist = price - cash
            if game.cash[president] >= assist + 50:
                return (assist, 50)
        return (0, 0)

    def allows_loans(self) -> bool:
        """4.2.5.2: the president borrows what he cannot raise."""
        return True

    def loan_fee(self, debt: int) -> int:
        """4.2.5.2: 50% interest (the later edition: $50 when borrowing)."""
        return 50 if self.later else debt // 2

    def bank_trains_per_turn(self, game: "Game") -> int | None:
        """4.2.5f: one train from the bank a turn (the later edition: no limit)."""
        return None if self.later else 1
