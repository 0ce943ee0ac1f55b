"""The 18xx order language (docs/18xx.md): one order a line, turned into engine
actions against the live game and applied in order up to the first refusal.

    PAR GMO 70          BUY GMO [IPO|MARKET]     SELL 2 IC        PASS
    BID AGS 30          LAY 57 D4 2              TOKEN D4 [city]
    RUN BEST            RUN 2+ E11 E13 E15; 3+ C9 D10 E11
    PAYOUT | WITHHOLD   BUY TRAIN 3+ [FROM IC 120]               BUY PRIVATE BS 40
    USE BS LAY 8 C11 0  USE M&M TOKEN E5         USE M&O BUY TRAIN 4+
    DONE                BANKRUPT                 DISCARD 3
    OFFER MRC TO 2 FOR 60    OFFER 60 FOR MRC    WITHDRAW MRC
    SELL PRIVATE MRC TO 2 FOR 60                 BUY PRIVATE MRC 60 (stock round)

Every refusal says why and, where the engine knows them, the legal
alternatives.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from turnproc.families.g18xx.engine import actions as act
from turnproc.families.g18xx.engine.game import IPO, POOL, ActionRefused, Game, Train
from turnproc.families.g18xx.engine.track import edge_towards

MAX_TEXT = 10_000
MAX_ORDERS = 40
MAX_LINE = 200


class OrderError(ValueError):
    """An order that cannot be read or is refused; `line` is 1-based."""

    def __init__(self, line: int, text: str, reason: str) -> None:
        super().__init__(f"line {line}: {text!r}: {reason}")
        self.line = line
        self.text = text
        self.reason = reason


@dataclass
class Receipt:
    """What a mail's orders did: each applied order with a note, then the
    refusal that stopped them, if any."""

    applied: list[tuple[str, str]] = field(default_factory=list)
    refused: OrderError | None = None
    actions: list[act.Action] = field(default_factory=list)


def apply_orders(game: Game, player: int, text: str) -> Receipt:
    """Apply a mail's orders in order, up to the first that fails."""
    receipt = Receipt()
    if len(text) > MAX_TEXT:
        receipt.refused = OrderError(0, text[:40], f"orders are limited to {MAX_TEXT} characters")
        return receipt
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if len(lines) > MAX_ORDERS:
        receipt.refused = OrderError(
            lines[MAX_ORDERS][0], "", f"at most {MAX_ORDERS} orders a mail"
        )
        return receipt
    for number, line in lines:
        try:
            if len(line) > MAX_LINE:
                raise ValueError(f"an order is at most {MAX_LINE} characters")
            action, note = parse_order(game, player, line)
            game.apply(action)
            receipt.actions.append(action)
        except (ValueError, ActionRefused) as exc:
            receipt.refused = OrderError(number, line, str(exc))
            return receipt
        receipt.applied.append((line, note))
    return receipt


def _operating(game: Game, player: int) -> str:
    """The company the player runs now: the one operating, or the next to
    operate once the one before has ended its turn with DONE."""
    company = game.operating_company()
    if company is None:
        raise ValueError("no company operates now")
    president = game.companies[company].president
    if president != player:
        raise ValueError(f"{company} operates now; its president is player {president}")
    return company


def parse_order(game: Game, player: int, line: str) -> tuple[act.Action, str]:
    """One order line as an engine action, and a note for the receipt."""
    words = line.replace(",", " ").split()
    head = words[0].upper()
    args = words[1:]
    base: dict[str, Any] = {"entity": player, "entity_type": "player"}
    stock_round = game.round in ("stock", "auction", "draft")

    if head == "PASS":
        if stock_round:
            return act.Pass(type="pass", **base), "pass"
        company = _operating(game, player)
        return act.Pass(type="pass", entity=company, entity_type="corporation"), f"{company} passes"
    if head == "BID" and len(args) == 2:
        private, price = args[0].upper(), _number(args[1])
        return act.Bid(type="bid", company=_private_id(game, private), price=price, **base), ""
    if head == "PAR" and len(args) == 2:
        company, price = _company(game, args[0]), _number(args[1])
        cells = [
            (r, c)
            for r, row in enumerate(game.market.grid)
            for c, cell in enumerate(row)
            if cell.par and cell.price == price
        ]
        if not cells:
            raise ValueError(f"par values: {', '.join(f'${p}' for p in game.title.par_prices)}")
        row, col = cells[0]
        return act.Par(
            type="par", corporation=company, share_price=f"{price},{row},{col}", **base
        ), f"{company} par ${price}"
    if head == "BUY" and args and args[0].upper() == "TRAIN":
        return _buy_train(game, player, args[1:])
    if head == "BUY" and args and args[0].upper() == "PRIVATE" and len(args) == 3:
        private, price = _private_id(game, args[1].upper()), _number(args[2])
        if game.round == "stock":
            return act.BuyCompany(type="buy_company", company=private, price=price, **base), (
                f"buys {private} from player {game.privates[private].owner} for ${price}"
            )
        company = _operating(game, player)
        return act.BuyCompany(
            type="buy_company",
            entity=company,
            entity_type="corporation",
            company=_private_id(game, args[1].upper()),
            price=_number(args[2]),
        ), f"{company} buys {args[1].upper()}"
    if head == "BUY" and 1 <= len(args) <= 2:
        company = _company(game, args[0])
        source = args[1].upper() if len(args) == 2 else None
        if source not in (None, "IPO", "MARKET"):
            raise ValueError("BUY <company> [IPO|MARKET]")
        ipo = [c for c in game.shares_of(IPO, company) if not c.president]
        pool = game.shares_of(POOL, company)
        pick = (ipo if source != "MARKET" else []) or (pool if source != "IPO" else [])
        if not pick:
            raise ValueError(
                f"no {company} share for sale{' in the ' + source.lower() if source else ''}"
            )
        cert = pick[0]
        where = "initial offering" if pick is ipo else "open market"
        par = game.companies[company].par
        price = par if pick is ipo and par is not None else game.market.price(company)
        return act.BuyShares(
            type="buy_shares", shares=(cert.id,), percent=cert.percent, **base
        ), f"buys {cert.percent}% of {company} from the {where} for ${price}"
    if head == "SELL" and len(args) == 2:
        count, company = _number(args[0]), _company(game, args[1])
        held = sorted(game.shares_of(player, company), key=lambda c: c.president)
        chosen, total = [], 0
        for cert in held:
            if total >= count * 10:
                break
            chosen.append(cert)
            total += cert.percent
        if total < count * 10:
            raise ValueError(f"you hold {game.percent_of(player, company)}% of {company}")
        return act.SellShares(
            type="sell_shares", shares=tuple(c.id for c in chosen), percent=count * 10, **base
        ), f"sells {count * 10}% of {company}"
    if head in ("OFFER", "WITHDRAW") or (head == "SELL" and args and args[0].upper() == "PRIVATE"):
        return _private_trade(game, player, head, [a.upper() for a in args])
    if head == "USE" and len(args) >= 2:
        private = _private_id(game, args[0].upper())
        owner = game.privates[private].owner
        if not isinstance(owner, str) or game.companies[owner].president != player:
            raise ValueError(f"{private} is not owned by a company you run")
        action, note = parse_order(game, player, " ".join(args[1:]))
        data = action.model_dump()
        data.update(entity=private, entity_type="company")
        if data["type"] == "buy_train":  # a private's discount (18MS M&O)
            data["price"] -= game.rules.train_discount(game.privates[private])
        return act.parse_action(data), f"{private}: {note}"

    if head == "DISCARD" and len(args) == 1:
        return _discard(game, player, args[0])

    if head not in ("LAY", "TOKEN", "RUN", "PAYOUT", "WITHHOLD", "BANKRUPT", "DONE"):
        raise ValueError("unknown order; see docs/18xx.md")
    company = _operating(game, player)
    corp: dict[str, Any] = {"entity": company, "entity_type": "corporation"}
    if head == "LAY" and len(args) == 3:
        name, hex_name, rotation = args[0], args[1].upper(), _number(args[2])
        tile = game.title.tiles.get(name)
        if tile is None:
            raise ValueError(f"no tile {name}")
        free = [i for i in range(tile.count) if f"{name}-{i}" not in game.tiles_on_map]
        if not free:
            raise ValueError(f"all {tile.count} copies of tile {name} are on the map")
        return act.LayTile(
            type="lay_tile", hex=hex_name, tile=f"{name}-{free[0]}", rotation=rotation, **corp
        ), f"{company} lays {name} on {hex_name} rotation {rotation}"
    if head == "TOKEN" and 1 <= len(args) <= 2:
        hex_name = args[0].upper()
        state = game.hexes.get(hex_name)
        if state is None:
            raise ValueError(f"no hex {hex_name}")
        cities = [
            i
            for i, n in enumerate(state.nodes)
            if n.kind == "city" and len(state.tokens[i]) < n.slots
        ]
        index = _number(args[1]) if len(args) == 2 else (cities[0] if cities else 0)
        return act.PlaceToken(
            type="place_token", city=f"{state.tile_id}-{index}", slot=0, **corp
        ), f"{company} places a station in {hex_name}"
    if head == "RUN" and [a.upper() for a in args] == ["BEST"]:
        total, picked = game.best_routes(company)
        routes = tuple(
            act.Route(train=train, connections=tuple(link.chain for link in route.links))
            for train, route in sorted(picked.items())
        )
        spelled = "; ".join(
            f"{_train(game, train).name} {'–'.join(place_name(game, h) for h, _ in route.stops)}"
            f" ({' '.join(h for h, _ in route.stops)})"
            f" ${game.stop_value(company, route.stops, _train(game, train))}"
            for train, route in sorted(picked.items())
        )
        return act.RunRoutes(type="run_routes", routes=routes, **corp), (
            f"{company} runs for ${total}: {spelled or 'no route'}"
        )
    if head == "RUN" and args:
        routes = tuple(
            _explicit_route(game, company, part.split())
            for part in " ".join(args).split(";")
            if part.strip()
        )
        return act.RunRoutes(type="run_routes", routes=routes, **corp), f"{company} runs"
    if head in ("PAYOUT", "WITHHOLD") and not args:
        kind = "payout" if head == "PAYOUT" else "withhold"
        return act.Dividend(type="dividend", kind=kind, **corp), f"{company}: {kind}"
    if head == "DONE" and not args:
        return act.EndTurn(type="end_turn", **corp), f"{company} ends its turn"
    if head == "BANKRUPT" and not args:
        return act.Bankrupt(type="bankrupt", **corp), f"{company}'s president goes bankrupt"
    raise ValueError(f"{head} takes other arguments; see docs/18xx.md")


def place_name(game: Game, hex_name: str) -> str:
    """A hex by its town's name where the map gives one (Birmingham)."""
    for data in game.title.hexes:
        if data.hex == hex_name and data.name:
            return data.name
    return hex_name


def _train(game: Game, train_id: str) -> Train:
    return next(t for t in game.trains if t.id == train_id)


def _private_trade(game: Game, player: int, head: str, args: list[str]) -> tuple[act.Action, str]:
    """`OFFER MRC TO 2 FOR 60` / `OFFER MRC TO GA FOR 60` (the owner offers),
    `OFFER 60 FOR MRC` (a player offers to buy), `WITHDRAW MRC`,
    `SELL PRIVATE MRC TO 2 FOR 60` (the owner takes up a player's offer)."""
    base: dict[str, Any] = {"entity": player, "entity_type": "player"}
    if head == "WITHDRAW" and len(args) == 1:
        private = _private_id(game, args[0])
        return act.OfferCompany(type="offer_company", company=private, price=0, **base), (
            f"withdraws the offers on {private}"
        )
    if head == "OFFER" and len(args) == 3 and args[1] == "FOR":
        private, price = _private_id(game, args[2]), _number(args[0])
        owner = game.privates[private].owner
        return act.OfferCompany(type="offer_company", company=private, price=price, **base), (
            f"offers ${price} for {private} to its owner, player {owner}"
        )
    if head == "OFFER" and len(args) == 5 and (args[1], args[3]) == ("TO", "FOR"):
        private, price = _private_id(game, args[0]), _number(args[4])
        to = _holder(game, args[2])
        return act.OfferCompany(
            type="offer_company", company=private, price=price, to=to, **base
        ), f"offers {private} to {_name(to)} for ${price}"
    if head == "SELL" and len(args) == 6 and (args[2], args[4]) == ("TO", "FOR"):
        private, price = _private_id(game, args[1]), _number(args[5])
        to = _holder(game, args[3])
        if not isinstance(to, int):
            raise ValueError("a company buys a private on its own turn (BUY PRIVATE)")
        return act.SellCompany(
            type="sell_company", company=private, price=price, to=to, **base
        ), f"sells {private} to player {to} for ${price}"
    raise ValueError(
        "OFFER <private> TO <player|company> FOR <price>, OFFER <price> FOR <private>,"
        " WITHDRAW <private>, SELL PRIVATE <private> TO <player> FOR <price>"
    )


def _holder(game: Game, text: str) -> int | str:
    """A player by his number or a company by its name."""
    if text.isdigit() and int(text) in game.players:
        return int(text)
    return _company(game, text)


def _name(holder: int | str) -> str:
    return f"player {holder}" if isinstance(holder, int) else holder


def _discard(game: Game, player: int, wanted: str) -> tuple[act.Action, str]:
    """`DISCARD <train>`: the company over its train limit puts a train (by
    type or id) into the open market."""
    if not game.discards:
        raise ValueError("no company is over its train limit")
    company = game.discards[0]
    president = game.companies[company].president
    if president != player:
        raise ValueError(f"{company} must discard a train; its president is player {president}")
    trains = game.trains_of(company)
    train = next((t for t in trains if t.id == wanted), None) or next(
        (t for t in trains if t.name.upper() == wanted.upper()), None
    )
    if train is None:
        raise ValueError(
            f"{company} has no train {wanted}; its trains: {', '.join(t.name for t in trains)}"
        )
    return act.DiscardTrain(
        type="discard_train", entity=company, entity_type="corporation", train=train.id
    ), f"{company} discards a {train.name} train to the open market"


def _buy_train(game: Game, player: int, args: list[str]) -> tuple[act.Action, str]:
    company = _operating(game, player)
    corp: dict[str, Any] = {"entity": company, "entity_type": "corporation"}
    if not args:
        raise ValueError("BUY TRAIN <type> [FROM <company> <price>]")
    name = args[0].upper()
    if len(args) == 4 and args[1].upper() == "FROM":
        seller, price = _company(game, args[2]), _number(args[3])
        train = next((t for t in game.trains_of(seller) if t.name.upper() == name), None)
        if train is None:
            raise ValueError(f"{seller} has no {name} train")
        return act.BuyTrain(
            type="buy_train", train=train.id, price=price, variant=train.name, **corp
        ), f"{company} buys {train.id} from {seller} for ${price}"
    if len(args) != 1:
        raise ValueError("BUY TRAIN <type> [FROM <company> <price>]")
    for train in game.available_trains():
        if train.type.name.upper() == name:
            return act.BuyTrain(
                type="buy_train",
                train=train.id,
                price=train.type.price,
                variant=train.type.name,
                **corp,
            ), f"{company} buys a {train.type.name} train for ${train.type.price}"
        for variant in train.type.variants:
            if variant.name.upper() == name:
                return act.BuyTrain(
                    type="buy_train",
                    train=train.id,
                    price=variant.price,
                    variant=variant.name,
                    **corp,
                ), f"{company} buys a {variant.name} train for ${variant.price}"
    on_sale = sorted({t.type.name for t in game.available_trains()})
    raise ValueError(f"no {name} train for sale; on sale: {', '.join(on_sale) or 'none'}")


def _explicit_route(game: Game, company: str, words: list[str]) -> act.Route:
    """`<train> <hex> <hex> ...`: the hexes along the track, split into the
    legs between stops."""
    if len(words) < 2:
        raise ValueError("RUN <train> <hex> <hex> ...")
    wanted, hexes = words[0], [w.upper() for w in words[1:]]
    trains = game.trains_of(company)
    train = next((t for t in trains if t.id == wanted), None) or next(
        (t for t in trains if t.name.upper() == wanted.upper()), None
    )
    if train is None:
        raise ValueError(
            f"{company} has no train {wanted}; its trains: {', '.join(t.id for t in trains)}"
        )
    if len(hexes) == 1:
        return act.Route(train=train.id, connections=((hexes[0],),))
    legs: list[tuple[str, ...]] = []
    leg = [hexes[0]]
    for index in range(1, len(hexes)):
        here = hexes[index]
        leg.append(here)
        if index == len(hexes) - 1:
            break
        state = game.hexes.get(here)
        entry = edge_towards(here, hexes[index - 1], game.title.layout)
        if state is None or entry is None:
            raise ValueError(f"{hexes[index - 1]} and {here} are not neighbours")
        if state.node_at_edge(entry) is not None:
            legs.append(tuple(leg))
            leg = [here]
    legs.append(tuple(leg))
    return act.Route(train=train.id, connections=tuple(legs))


def _number(text: str) -> int:
    if not re.fullmatch(r"\$?\d{1,6}", text):
        raise ValueError(f"{text!r} is not a number")
    return int(text.lstrip("$"))


def _company(game: Game, text: str) -> str:
    for company in game.companies:
        if company.upper() == text.upper():
            return company
    raise ValueError(f"no company {text}; companies: {', '.join(game.companies)}")


def _private_id(game: Game, text: str) -> str:
    for private in game.privates:
        if private.upper() == text.upper():
            return private
    raise ValueError(f"no private {text}; privates: {', '.join(game.privates)}")
