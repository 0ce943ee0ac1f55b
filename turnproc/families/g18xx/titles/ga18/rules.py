"""18GA special rules (the 18Dixie rulebook's 18GA chapter, with the published
map and charts), the edition 18xx.games plays (option `edition=18xx.games`) and
the seed's optional rules 7a (`double_yellow_first_or`) and 7b
(`new_georgia_florida_home`)."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine.game import PrivateState, TitleRules, Turn, printed_hex
from turnproc.families.g18xx.engine.title import Title

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game

FREE_TRAIN = "2"
EDITIONS = ("6.0", "18xx.games")
OPTIONAL_RULES = (
    "double_yellow_first_or",
    "new_georgia_florida_home",
    "soft_rust_4t",
    "cotton_port",
)
COTTON_PORT = "cotton_port"
GEORGIA_AND_FLORIDA = "G&F"
COLUMBUS = "G3"
ATLANTIC_COAST_LINE = "ACL"


class Rules(TitleRules):
    def __init__(self, title: Title, options: dict[str, str]) -> None:
        super().__init__(title, options)
        self.edition = options.get("edition", "6.0")
        if self.edition not in EDITIONS:
            raise ValueError(f"18GA editions: {', '.join(EDITIONS)}")
        self.later = self.edition == "18xx.games"
        for key, value in options.items():
            if key != "edition" and (key not in OPTIONAL_RULES or value not in ("yes", "no")):
                raise ValueError(
                    f"18GA options: edition, and yes or no for {', '.join(OPTIONAL_RULES)}"
                )
        self.double_yellow = options.get("double_yellow_first_or") == "yes"
        self.columbus_home = options.get("new_georgia_florida_home") == "yes"
        # seed 10.2/10.3, the Cotton Port variant: Charleston and its hexes
        self.cotton_port = options.get(COTTON_PORT) == "yes"
        # 4.2.5.2: 4-trains run once more after the first 8-train; both
        # editions remove them at once (seed 7c, as the recorded games) unless
        # the option asks for the rules' way
        self.soft_rust = options.get("soft_rust_4t") == "yes"

    def setup(self, game: "Game") -> None:
        """The last 2-train is marked Free and kept for the Ocilla Southern.
        7b (optional): the Georgia & Florida starts in Columbus, not Albany."""
        reserved = [t for t in game.trains if t.type.name == FREE_TRAIN][-1]
        reserved.sellable = False
        if self.columbus_home:
            game.companies[GEORGIA_AND_FLORIDA].home = COLUMBUS
        if self.cotton_port:
            variant = game.title.variants[COTTON_PORT]
            for printed in variant.hexes:
                game.hexes[printed.hex] = printed_hex(printed)
            for company, costs in variant.tokens.items():
                game.companies[company].token_costs = costs
        # Jacksonville holds the ACL's home station from the start, so no
        # other company's train runs through it [map/charts]
        acl = game.companies[ATLANTIC_COAST_LINE]
        game.hexes[acl.home].tokens[0].append(acl.id)
        acl.home_placed = True
        acl.tokens_used = 1

    def extra_homes(self, company: str) -> tuple[str, ...]:
        """Cotton Port (seed 4.2a): the Georgia Railroad's second home,
        Charleston, placed with Augusta."""
        if not self.cotton_port:
            return ()
        return self.title.variants[COTTON_PORT].extra_homes.get(company, ())

    def obsolete_not_rusted(self, train: str) -> bool:
        """4.2.5.2: the first 8-train makes the companies' 4-trains obsolete:
        each runs once more, then leaves play (7c, optional, and 18xx.games:
        they leave at once)."""
        return train == "4" and self.soft_rust

    def lowest_bidder_moves(self) -> bool:
        """3.1.1 as 18xx.games plays it: the lowest bidder moves, a pass is final."""
        return self.later

    def bankrupt_with_trains(self) -> bool:
        """18xx.games: a president goes bankrupt when he and the company cannot
        pay for the cheapest train in the bank, trains or not."""
        return self.later

    def first_city_without_track(self) -> bool:
        """18xx.games: the W&A's home goes to Atlanta's first city when no
        track has been laid there; the president chooses only once it has."""
        return self.later

    def lift_untracked_homes(self) -> bool:
        """18xx.games: the first tile in Atlanta lifts the W&A's home station,
        and the president of the company that laid it chooses its city on the
        new tile at once."""
        return self.later

    def share_goes_with_private(self) -> bool:
        """18xx.games: a player who buys the M&BR from another player gets
        its CoG share too, from whoever holds it (the open market included)."""
        return self.later

    def sales_agreed_off_record(self) -> bool:
        """18xx.games records a private's sale between a player and another
        player or a company as the sale alone: the two agreed off the record."""
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
        """4.2.1: one tile a turn; 7a (optional): on its first turn a company
        may lay two yellow tiles."""
        if not turn.lays:
            return None
        if self.double_yellow and turn.first and turn.lays == [False] and not upgrade:
            return None
        return "one tile a turn (4.2b); two yellow ones on the first turn (7a)"

    def after_private_bought(self, game: "Game", company: str, private: PrivateState) -> None:
        """Ocilla Southern: the buying company gets the free 2-train unless a
        4-train has been bought or it has no room; the train cannot be sold."""
        if private.data.id != "OSR":
            return
        train = next(
            (
                t
                for t in game.trains
                if t.type.name == FREE_TRAIN and not t.sellable and t.owner is None
            ),
            None,
        )
        if train is None or train.rusted:
            return
        limit = game.title.phases[game.phase_index].train_limit
        if "4" in game.types_bought or len(game.trains_of(company)) >= limit:
            train.rusted = True
            return
        train.owner = company
