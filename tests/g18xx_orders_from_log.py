"""A recorded game's actions as the orders a player would mail (docs/18xx.md),
to drive a game by mail to its end: each action with the player who sends it."""

from typing import Any

from turnproc.families.g18xx.engine.game import IPO, Game

PROGRAMS = ("program_share_pass", "program_buy_shares", "program_disable", "program_close_pass")
NOTES = ("log", "message")  # a line in the game's log, changing nothing


def sender(game: Game, raw: dict[str, Any]) -> int:
    """The player who gives the order: the player, or the president of the
    company acting (or owning the private that acts)."""
    if raw["entity_type"] == "player":
        return int(raw["entity"])
    company = raw["entity"]
    if raw["entity_type"] == "company":
        company = game.privates[company].owner
    president = game.companies[str(company)].president
    assert president is not None
    return president


def order_for(game: Game, raw: dict[str, Any], laid: dict[str, str]) -> str | None:
    """The order line for one recorded action (None: a programmed action,
    which changes nothing in the game). `laid`: the hex of each tile copy the
    log laid (the order language picks its own copies)."""
    kind = raw["type"]
    if kind in PROGRAMS or kind in NOTES:
        return None
    if raw["entity_type"] == "company":
        inner = order_for(game, dict(raw, entity_type="corporation"), laid)
        return f"USE {raw['entity']} {inner}"
    if kind == "pass":
        return "PASS"
    if kind == "bid":
        return f"BID {raw['company']} {raw['price']}"
    if kind == "par":
        return f"PAR {raw['corporation']} {raw['share_price'].split(',')[0]}"
    if kind == "buy_shares":
        cert = game.certs[raw["shares"][0]]
        return f"BUY {cert.company} {'IPO' if cert.owner == IPO else 'MARKET'}"
    if kind == "sell_shares":
        company = raw["shares"][0].rpartition("_")[0]
        return f"SELL {raw['percent'] // 10} {company}"
    if kind == "lay_tile":
        laid[raw["tile"]] = raw["hex"]
        return f"LAY {raw['tile'].rpartition('-')[0]} {raw['hex']} {raw['rotation']}"
    if kind == "place_token":
        tile, _, index = raw["city"].rpartition("-")
        hex_name = laid.get(tile) or tile.rpartition("-")[0]
        return f"TOKEN {hex_name} {index}"
    if kind == "run_routes":
        return "RUN BEST"
    if kind == "dividend":
        return str(raw["kind"]).upper()
    if kind == "buy_train":
        train = next(t for t in game.trains if t.id == raw["train"])
        if train.owner is not None:
            return f"BUY TRAIN {train.name} FROM {train.owner} {raw['price']}"
        return f"BUY TRAIN {raw.get('variant') or train.type.name}"
    if kind == "buy_company":
        return f"BUY PRIVATE {raw['company']} {raw['price']}"
    if kind == "end_turn":
        return "DONE"
    if kind == "bankrupt":
        return "BANKRUPT"
    raise ValueError(f"no order for {kind}")


def acting_company(game: Game, raw: dict[str, Any]) -> str | None:
    if raw["entity_type"] == "corporation":
        return str(raw["entity"])
    if raw["entity_type"] == "company":
        owner = game.privates[raw["entity"]].owner
        return owner if isinstance(owner, str) else None
    return None


def mail_orders(game: Game, actions: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Every order of a recorded game, in order, with its sender: the orders
    applied to `game` (a new game of the same title and seats) as they are
    listed. A company's turn ends with DONE when the log goes on with another
    company or another round; a company's plain pass (which changes nothing)
    is left out."""
    from turnproc.families.g18xx.orders import apply_orders

    orders: list[tuple[int, str]] = []
    laid: dict[str, str] = {}

    def send(player: int, text: str) -> None:
        receipt = apply_orders(game, player, text)
        assert receipt.refused is None, (text, receipt.refused)
        orders.append((player, text))

    for raw in actions:
        for action in [raw, *raw.get("auto_actions", [])]:
            if action["type"] in PROGRAMS or action["type"] in NOTES:
                continue
            company = acting_company(game, action)
            if action["type"] == "pass" and action["entity_type"] == "corporation":
                continue
            if game.round == "operating" and game.turn is not None and company != game.turn.company:
                president = game.companies[game.turn.company].president
                assert president is not None
                send(president, "DONE")
            text = order_for(game, action, laid)
            if text is not None:
                send(sender(game, action), text)
    if game.round == "operating" and game.turn is not None and not game.ended:
        president = game.companies[game.turn.company].president
        assert president is not None
        send(president, "DONE")
    return orders
