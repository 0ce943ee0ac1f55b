"""4.2.2: station tokens, the home station (4.2a) and a lifted home's new city."""

from typing import TYPE_CHECKING

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.state import (
    BANK,
    ActionRefused,
    Holder,
)
from turnproc.families.g18xx.engine.steps import track
from turnproc.families.g18xx.engine.steps.base import Step
from turnproc.families.g18xx.engine.steps.track import reachable_cities

if TYPE_CHECKING:
    from turnproc.families.g18xx.engine.game import Game


def place_token(game: "Game", action: act.PlaceToken) -> None:
    """4.2.2: a station token in a free circle, $40 then $100."""
    choosing = (
        bool(game.pending_homes) and game.acting_company(action) == (game.pending_homes[0][1])
    )
    company = game.pending_homes[0][0] if choosing else game.current_company(action)
    state = game.companies[company]
    tile_id, _, index_text = action.city.rpartition("-")
    hex_name = next((h for h, s in game.hexes.items() if s.tile_id == tile_id), None)
    if hex_name is None or not index_text.isdigit():
        raise ActionRefused(f"no city {action.city} on the map")
    hex_state = game.hexes[hex_name]
    index = int(index_text)
    if index >= len(hex_state.nodes) or hex_state.nodes[index].kind != "city":
        raise ActionRefused(f"no city {action.city} on the map")
    if any(company in held for held in hex_state.tokens):
        raise ActionRefused(f"{company} already has a station in {hex_name} (4.2.2b)")
    single = sum(1 for n in hex_state.nodes if n.kind == "city") == 1
    kept = sum(
        1
        for c, s in game.companies.items()
        if c != company and s.home == hex_name and not s.home_placed and single
    )
    if len(hex_state.tokens[index]) + kept >= hex_state.nodes[index].slots:
        # 4.2.2: a circle is kept for each home station not yet placed
        raise ActionRefused(f"{action.city} is full" + (" (a home kept free)" if kept else ""))
    if state.tokens_used >= len(state.token_costs):
        raise ActionRefused(f"{company} has no station token left")
    cost = state.token_costs[state.tokens_used]
    home = hex_name == state.home and not state.home_placed
    assert game.turn is not None
    if not home and game.turn.tokens:
        raise ActionRefused("one station token a turn (4.2c)")
    free_token = False
    if action.entity_type == "company":
        private = game.privates[str(action.entity)]
        ability = private.data.ability
        free_token = ability is not None and ability.kind == "free_token"
        if (
            ability is None
            or ability.kind not in ("token_discount", "free_token")
            or private.uses >= ability.count
        ):
            raise ActionRefused(f"{action.entity} gives no token now")
        if ability.hexes and hex_name not in ability.hexes:
            raise ActionRefused(
                f"{action.entity} places a token only in {', '.join(ability.hexes)}"
            )
        private.uses += 1
        cost = 0 if ability.kind == "free_token" else cost * (100 - ability.percent) // 100
    if not home and not state.home_placed:
        raise ActionRefused(f"{company} places its home station in {state.home} first (4.2a)")
    if (
        not home
        and not free_token
        and (hex_name, index) not in track.reachable_cities(game, company)
    ):
        # a private's free station (W&SR) need not connect (12.III)
        raise ActionRefused(f"{company}'s track does not reach the city on {hex_name} (4.2.2a)")
    if game.cash[company] < cost:
        raise ActionRefused(f"{company} cannot pay ${cost}")
    game.pay(company, BANK, cost)
    hex_state.tokens[index].append(company)
    game.map_version += 1  # a station changes what the companies' track reaches
    state.tokens_used += 1
    if choosing:
        game.pending_homes.pop(0)
    if home:
        state.home_placed = True
    else:
        game.turn.tokens += 1
    game.rules.after_token_placed(game, company, hex_name)


def check_pending_home(game: "Game", action: act.Action) -> None:
    """Only the choice of the lifted home's city, or a private bought in the
    chooser's turn, comes first."""
    owner, chooser = game.pending_homes[0]
    acting = game.acting_company(action)
    if action.type == "place_token" and acting == chooser:
        return
    operating = game.turn is not None and game.turn.company == chooser
    if action.type == "buy_company" and acting == chooser and operating:
        return  # privates may be bought at any time of the turn (4.2)
    raise ActionRefused(
        f"{chooser}'s president, player {game.companies[chooser].president}, first chooses"
        f" the city of {owner}'s home station in {game.companies[owner].home} (TOKEN)"
    )


def place_home(game: "Game", company: str) -> None:
    """4.2a: the home station (and any second home) in the first city of its hex."""
    state = game.companies[company]
    for home in (state.home, *game.rules.extra_homes(company)):
        hex_state = game.hexes[home]
        index = next(i for i, n in enumerate(hex_state.nodes) if n.kind == "city")
        hex_state.tokens[index].append(company)
        game.map_version += 1
        state.tokens_used += 1
    state.home_placed = True


class PlaceToken(Step):
    """4.2.2: the operating company places a station token (a private's
    ability may place it for it)."""

    name = "place token"
    actions = frozenset(("place_token",))
    once_a_turn = True

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.turn.company,)) if game.turn is not None else frozenset()

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.PlaceToken)
        place_token(game, action)

    def is_open(self, game: "Game") -> bool:
        """Open while a station may still go down: a private's free one, or one
        the company can pay for in a city its track reaches with a circle free."""
        turn = game.turn
        assert turn is not None
        company = turn.company
        state = game.companies[company]
        cash = game.cash[company]
        if turn.tokens or not state.home_placed or state.tokens_used >= len(state.token_costs):
            return False
        if any(
            p.owner == company
            and not p.closed
            and p.data.ability is not None
            and p.data.ability.kind == "free_token"
            and p.uses < p.data.ability.count
            and any(
                n.kind == "city"
                and len(game.hexes[h].tokens[i]) < n.slots
                and company not in game.hexes[h].tokens[i]
                for h in p.data.ability.hexes
                for i, n in enumerate(game.hexes[h].nodes)
            )
            for p in game.privates.values()
        ):
            return True  # a private's free station may still go down
        if cash < state.token_costs[state.tokens_used]:
            return False
        # a circle is kept for each home station not yet placed (4.2.2)
        kept = [
            s.home
            for c, s in game.companies.items()
            if c != company
            and not s.home_placed
            and sum(1 for n in game.hexes[s.home].nodes if n.kind == "city") == 1
        ]
        return any(
            game.hexes[h].nodes[i].kind == "city"
            and not any(company in held for held in game.hexes[h].tokens)
            and len(game.hexes[h].tokens[i]) + kept.count(h) < game.hexes[h].nodes[i].slots
            for h, i in reachable_cities(game, company)
        )


class ChooseHome(Step):
    """A home station lifted by a first tile (the site's edition): the
    president of the company that laid the tile chooses its city before
    anyone acts, though his company may still buy a private (4.2)."""

    name = "choose a home city"
    actions = frozenset(("place_token",))

    def blocks(self, game: "Game") -> bool:
        return bool(game.pending_homes)

    def actors(self, game: "Game") -> frozenset[Holder]:
        return frozenset((game.pending_homes[0][1],)) if game.pending_homes else frozenset()

    def admit(self, game: "Game", action: act.Action) -> None:
        check_pending_home(game, action)

    def process(self, game: "Game", action: act.Action) -> None:
        assert isinstance(action, act.PlaceToken)
        place_token(game, action)
