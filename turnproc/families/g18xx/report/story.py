"""The game's log as players read it: each action in words, with the money it
moved and every share price it changed, and why ("Bob (L&N) laid tile 9 on
D10 for $60", "L&N 70 -> 75 (paid out: right one)").

The words are made by replaying the actions on a new game: each action is
described against the position it was made in (the route's towns and
earnings, where a share came from, what the train cost) and the position it
left (the price moves). The replay is the same one loading a game makes
(a few milliseconds).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import IPO, POOL, ActionRefused, Game, Holder
from turnproc.families.g18xx.orders import place_name

NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Entry:
    """One action of the log: its index among the actions, the player whose
    move it was (a company's president), and the words."""

    index: int
    actor: int | None
    text: str


def story(
    new: Callable[[], Game],
    actions: Sequence[act.Action],
    names: dict[int, str],
) -> list[Entry]:
    """The log of `actions` applied to the game `new` makes, in words;
    `names`: the players' names by seat."""
    game = new()
    game.recorded_revenue_stands = True
    entries: list[Entry] = []
    for index, action in enumerate(actions):
        if action.type in ("message", "log"):
            continue
        actor = _actor(game, action)
        before = _prices(game)
        round_before = game.round
        revenue = game.turn.revenue if game.turn is not None else None
        operating = game.turn.company if game.turn is not None and not game.turn.ran else None
        words = _words(game, action, names)
        cash_before = dict(game.cash)
        try:
            game.apply_unchecked(action)
        except ActionRefused:
            break
        spent = _spent(game, action, cash_before)
        if spent:
            words += spent
        moves = _price_moves(game, action, before, round_before, revenue, operating)
        if moves:
            words += "; " + "; ".join(moves)
        entries.append(Entry(index, actor, words))
    return entries


def since_last_move(entries: Sequence[Entry], reader: int) -> list[Entry]:
    """The entries after the reader's last move (all, if he has not moved)."""
    last = max((n for n, e in enumerate(entries) if e.actor == reader), default=-1)
    return list(entries[last + 1 :])


def _actor(game: Game, action: act.Action) -> int | None:
    if action.entity_type == "player":
        return int(action.entity)
    try:
        company = game.acting_company(action)
    except ActionRefused:
        return None
    return game.companies[company].president if company in game.companies else None


def _who(game: Game, action: act.Action, names: dict[int, str]) -> str:
    if action.entity_type == "player":
        return _name(int(action.entity), names)
    private = None
    company = str(action.entity)
    if action.entity_type == "company":
        private = company
        owner = game.privates[company].owner if company in game.privates else None
        company = str(owner)
    president = game.companies[company].president if company in game.companies else None
    who = f"{_name(president, names)} ({company}" if president is not None else f"({company}"
    return who + (f", with {private})" if private else ")")


def _name(seat: int | None, names: dict[int, str]) -> str:
    if seat is None:
        return "nobody"
    return names.get(seat) or f"player {seat}"


def _train_name(game: Game, train_id: str) -> str:
    return next((t.name for t in game.trains if t.id == train_id), train_id.rpartition("-")[0])


def _words(game: Game, action: act.Action, names: dict[int, str]) -> str:
    who = _who(game, action, names)
    match action:
        case act.Bid() if game.round == "draft":
            return f"{who} bought {action.company}"
        case act.Bid():
            return f"{who} bid ${action.price:,} for {action.company}"
        case act.Par():
            return f"{who} started {action.corporation} at par ${action.share_price.split(',')[0]}"
        case act.BuyShares():
            cert = game.certs.get(action.shares[0])
            company = action.shares[0].rpartition("_")[0]
            source = ""
            if cert is not None:
                source = {IPO: " from the initial offering", POOL: " from the open market"}.get(
                    str(cert.owner), ""
                )
            return f"{who} bought {action.percent}% of {company}{source}"
        case act.SellShares():
            company = action.shares[0].rpartition("_")[0]
            return f"{who} sold {action.percent}% of {company}"
        case act.Pass():
            return f"{who} passed"
        case act.BuyCompany():
            return f"{who} bought the private {action.company}"
        case act.OfferCompany() if action.price == 0:
            return f"{who} withdrew his offers on {action.company}"
        case act.OfferCompany():
            to = f" to {_holder(action.to, names)}" if action.to is not None else ""
            return f"{who} offered {action.company}{to} for ${action.price:,}"
        case act.SellCompany():
            return (
                f"{who} sold the private {action.company} to {_name(action.to, names)}"
                f" for ${action.price:,}"
            )
        case act.DiscardTrain():
            return f"{who} discarded a {_train_name(game, action.train)} to the open market"
        case act.LayTile():
            tile = action.tile.rpartition("-")[0]
            place = place_name(game, action.hex)
            where = action.hex if place == action.hex else f"{action.hex} ({place})"
            return f"{who} laid tile {tile} on {where}"
        case act.PlaceToken():
            return f"{who} placed a station in {_token_hex(game, action)}"
        case act.RunRoutes():
            return f"{who} {_runs(game, action)}"
        case act.Dividend():
            return f"{who} {_dividend(game, action)}"
        case act.BuyTrain():
            train = next((t for t in game.trains if t.id == action.train), None)
            name = action.variant or _train_name(game, action.train)
            seller = "the bank"
            if train is not None and train.owner is not None:
                seller = train.owner
            elif train is not None and train.discarded:
                seller = "the open market"
            return f"{who} bought a {name} train from {seller} for ${action.price:,}"
        case act.EndTurn():
            return f"{who} ended its turn"
        case act.Bankrupt():
            return f"{who}: the president went bankrupt"
    return f"{who}: {action.type}"


def _holder(holder: int | str | None, names: dict[int, str]) -> str:
    if isinstance(holder, int):
        return _name(holder, names)
    return str(holder)


def _token_hex(game: Game, action: act.PlaceToken) -> str:
    """The hex of the city a station goes in ("<tile>-<copy>-<city>" or a
    printed hex's "<hex>-<city>")."""
    for name, state in game.hexes.items():
        if action.city.startswith(f"{state.tile_id}-") or action.city.startswith(f"{name}-"):
            place = place_name(game, name)
            return name if place == name else f"{name} ({place})"
    return action.city


def _runs(game: Game, action: act.RunRoutes) -> str:
    company = game.acting_company(action) or ""
    parts = []
    total = 0
    for route in action.routes:
        try:
            revenue = (
                route.revenue if route.revenue is not None else game.route_revenue(company, route)
            )
        except (ActionRefused, ValueError):
            revenue = 0
        total += revenue
        stops: list[str] = []
        for chain in route.connections:
            for hex_name in (chain[0], chain[-1]):
                if hex_name not in stops:
                    stops.append(hex_name)
        towns = "–".join(place_name(game, h) for h in stops)
        parts.append(f"{_train_name(game, route.train)} {towns} for ${revenue:,}")
    if not parts:
        return "ran no train"
    return "ran " + ", ".join(parts) + (f" (${total:,} in all)" if len(parts) > 1 else "")


def _dividend(game: Game, action: act.Dividend) -> str:
    revenue = game.turn.revenue if game.turn is not None and game.turn.revenue else 0
    if revenue == 0:
        return "had no revenue"
    if action.kind == "payout":
        per_share = revenue // game.title.shares_per_company
        return f"paid ${per_share:,} a share (${revenue:,})"
    return f"withheld ${revenue:,}"


def _spent(game: Game, action: act.Action, before: dict[Holder, int]) -> str:
    """What the action cost its maker, where the words do not say it."""
    if action.type not in ("par", "buy_shares", "sell_shares", "lay_tile", "place_token", "bid"):
        return ""
    if action.type == "bid" and game.round == "auction":
        return ""
    payer: Holder | None = action.entity if action.entity_type == "player" else None
    if payer is None:
        try:
            payer = game.acting_company(action)
        except ActionRefused:
            return ""
    if payer is None:
        return ""
    change = game.cash.get(payer, 0) - before.get(payer, 0)
    if change < 0:
        return f" for ${-change:,}"
    if change > 0:
        return f" for ${change:,}"
    return ""


def _prices(game: Game) -> dict[str, tuple[int, int, int]]:
    return {
        company: (row, col, game.market.grid[row][col].price)
        for company, (row, col) in game.market.where.items()
    }


def _price_moves(
    game: Game,
    action: act.Action,
    before: dict[str, tuple[int, int, int]],
    round_before: str,
    revenue: int | None,
    unpaid: str | None,
) -> list[str]:
    """Each share price the action changed, with the rule that moved it.
    `unpaid`: the company operating that has not yet paid or withheld."""
    out = []
    for company, (row, col, price) in _prices(game).items():
        old = before.get(company)
        if old is None or (old[0], old[1]) == (row, col):
            continue
        steps = _steps(row - old[0], col - old[1])
        reason = _reason(game, action, round_before, revenue)
        if company == unpaid and not isinstance(action, act.Dividend) and col < old[1]:
            reason = "no run, nothing paid"
        out.append(f"{company} {old[2]} → {price} ({reason}: {steps})")
    return out


def _steps(rows: int, cols: int) -> str:
    parts = []
    if cols:
        parts.append(f"{'right' if cols > 0 else 'left'} {_count(abs(cols))}")
    if rows:
        parts.append(f"{'down' if rows > 0 else 'up'} {_count(abs(rows))}")
    return " and ".join(parts)


def _count(n: int) -> str:
    return NUMBERS[n] if n < len(NUMBERS) else str(n)


def _reason(game: Game, action: act.Action, round_before: str, revenue: int | None) -> str:
    """The rule that moved a price (4.2.4 dividends, 3.2a sales, 3.6 the end
    of a stock round)."""
    if isinstance(action, act.Dividend):
        if not revenue:
            return "no revenue"
        return "paid out" if action.kind == "payout" else "withheld"
    if isinstance(action, act.SellShares):
        count = action.percent // 10
        return f"sold {_count(count)} share{'s' if count > 1 else ''}"
    if round_before == "stock" and game.round != "stock":
        return "sold out at the end of the stock round"
    return "moved"
