"""A title's special rules as hooks the steps call; the defaults are the
general 18xx ones (rules sections cited with each)."""

from functools import cached_property
from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine.rounds import Round, Rounds, default_rounds
from turnproc.families.g18xx.engine.state import Holder, PrivateState, Train, Turn
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.title import Private, Title, TrainType

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


class TitleRules:
    """A title's special rules; the defaults are the general 18xx ones."""

    def __init__(self, title: Title, options: dict[str, str]) -> None:
        self.title = title
        self.options = options

    @cached_property
    def rounds(self) -> Rounds:
        """The rounds of play, each a sequence of steps: the engine's, with
        this title's steps in place of the engine's of the same name, and its
        own rounds added."""
        base = default_rounds()
        overrides = {s.name: s for s in self.step_overrides()}

        def swap(steps: tuple[Step, ...]) -> tuple[Step, ...]:
            return tuple(overrides.get(s.name, s) for s in steps)

        return Rounds(
            rounds={
                **{n: r.with_steps(overrides) for n, r in base.rounds.items()},
                **self.extra_rounds(),
            },
            standing=swap(base.standing),
            blocking=swap(base.blocking),
        )

    def step_overrides(self) -> tuple[Step, ...]:
        """The title's own steps, each replacing the engine's step of its name."""
        return ()

    def extra_rounds(self) -> dict[str, Round]:
        """Rounds the title adds (a merger round), scheduled by `round_before_stock`."""
        return {}

    def round_before_stock(self, game: "Game") -> str | None:
        """A round of the title's own to play before the stock round that is
        due; the round starts the stock round when it is over."""
        return None

    def bank_cash(self) -> int:
        return self.title.bank

    def setup(self, game: "Game") -> None:
        """Hook after the game is laid out."""

    def private_revenue(self, private: Private) -> int:
        return private.revenue

    def start_operating_round(self, game: "Game") -> None:
        """Hook at the start of each operating round, before privates pay."""

    def private_sale_refusal(
        self, game: "Game", company: str, private: PrivateState, price: int
    ) -> str | None:
        """Companies buy privates in phases that allow it, at half to one and a
        half times face value."""
        if not game.title.phases[game.phase_index].companies_buy_privates:
            return f"companies may not buy private companies in phase {game.phase}"
        value = private.data.value
        low, high = (value + 1) // 2, value * 3 // 2
        if not low <= price <= high:
            return f"{private.data.id} sells for ${low} to ${high}"
        return None

    def after_private_bought(self, game: "Game", company: str, private: PrivateState) -> None:
        """Hook after a company buys a private."""

    def after_tile_laid(self, game: "Game", company: str, hex_name: str) -> None:
        """Hook after a tile lay is paid for."""

    def after_token_placed(self, game: "Game", company: str, hex_name: str) -> None:
        """Hook after a station token is placed and paid for."""

    def ability_lay_is_free(self, private: PrivateState) -> bool:
        return private.data.ability is not None and private.data.ability.free

    def train_discount(self, private: PrivateState) -> int:
        return private.data.ability.discount if private.data.ability else 0

    def president_assist(
        self, game: "Game", company: str, train: Train, price: int
    ) -> tuple[int, int]:
        """(amount the president adds, fee) when the title lets a president help."""
        return (0, 0)

    def loan_fee(self, debt: int) -> int:
        return 0

    def allows_loans(self) -> bool:
        """Whether a president short of cash for a forced train borrows from the bank."""
        return False

    def bank_trains_per_turn(self, game: "Game") -> int | None:
        """How many trains a company may buy from the bank in one turn (None: any)."""
        return 1 if game.title.phases[game.phase_index].one_bank_train else None

    def bankrupt_with_trains(self) -> bool:
        """Whether a president may go bankrupt when his company has a train
        but cannot pay for the cheapest one in the bank (the site's edition);
        by the rules only a forced purchase bankrupts (4.2.5.1)."""
        return False

    def share_goes_with_private(self) -> bool:
        """Whether a player who buys a private from another gets the share it
        came with again, wherever it is (the site's edition); by the rules the
        share is the first owner's own certificate."""
        return False

    def sales_agreed_off_record(self) -> bool:
        """Whether a private's sale between a player and another player or a
        company needs no standing offer: the site's logs record only the sale."""
        return False

    def used_cards_turn(self) -> bool:
        """Whether a two-sided train bought from another company may be turned
        to its other side (the site's edition)."""
        return False

    def privates_for_sale_in_phase(self, game: "Game") -> bool:
        """Whether the phase opens the sale of privates to companies in
        general (a sale the rules allow in one round only does not count)."""
        return game.title.phases[game.phase_index].companies_buy_privates

    def private_upgrades(self) -> bool:
        """Whether a private's extra tiles may be upgrades (the site's
        edition); by the rules they are yellow."""
        return False

    def lift_untracked_homes(self) -> bool:
        """Whether the first tile in a hex of several cities lifts the home
        stations placed before it, for their companies to choose again (the
        site's edition)."""
        return False

    def first_city_without_track(self) -> bool:
        """Whether a home of several cities with no track yet takes the first
        city without the president's choice (the site's edition)."""
        return False

    def after_run(self, game: "Game", company: str) -> None:
        """Hook after a company runs its trains."""

    def extra_homes(self, company: str) -> tuple[str, ...]:
        """Hexes where the company places a second home station with its first."""
        return ()

    def obsolete_not_rusted(self, train: str) -> bool:
        """Whether companies' trains of this name become obsolete (run once
        more) rather than leave play when they are made so."""
        return False

    def president_funds_used_train(self) -> bool:
        """4.2.5.2: a president's cash pays only for a train from the bank;
        True for the edition where it may pay for another company's train."""
        return False

    def president_sells_in_train_step(self) -> bool:
        """4.2.5.2: a president sells shares in the operating round only to
        pay for a train the company must buy; True for the edition where he
        may sell in the company's train step at will."""
        return False

    def lowest_bidder_moves(self) -> bool:
        """3.1.1: in a contest for a private the bidders move clockwise from
        the highest, and one who passed may bid again; True for the edition in
        which the lowest bidder moves and a pass leaves the contest."""
        return False

    def tile_lay_refusal(self, game: "Game", turn: Turn, upgrade: bool) -> str | None:
        """4.2.1: one tile lay or upgrade a turn."""
        return "one tile a turn (4.2b)" if turn.lays else None

    def private_sellers(self, game: "Game", company: str) -> set[Holder]:
        """Who may sell a private to the company: any player by default."""
        return set(game.players)

    def players_trade_privates(self, game: "Game") -> bool:
        """Whether players may sell privates to each other now (3.2b)."""
        return game.title.phases[game.phase_index].players_trade_privates

    def phase_changed(self, game: "Game") -> None:
        """Hook after the phase advances."""

    def first_train_bought(self, game: "Game", kind: TrainType) -> None:
        """Hook after the first train of a type leaves the bank."""

    def end_of_set(self, game: "Game") -> None:
        """Hook after a set of operating rounds, before the next stock round."""

    def last_operating_round(self) -> int | None:
        """The operating round that ends the game, if the title fixes one."""
        return self.title.last_operating_round

    def operating_rounds_in_set(self, game: "Game", rounds: int) -> int:
        """How many operating rounds follow the stock round just ended."""
        return rounds
