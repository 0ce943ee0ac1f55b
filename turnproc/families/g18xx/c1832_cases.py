"""1832 rule case files (cases/1832/*.toml, docs/cases.md "1832"): each
states a rule of the rules text as given numbers and the numbers that must
come out, checked against the 1832 title data and market arithmetic.

A case the code cannot run yet says `pending = true` and why; it is reported
PENDING, never PASS, until the code it needs exists.
"""

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832 import operating as op
from turnproc.families.g18xx.titles.c1832 import revenue as rv
from turnproc.families.g18xx.titles.c1832 import shares as sh
from turnproc.families.g18xx.titles.c1832 import stock as st
from turnproc.families.g18xx.titles.c1832 import trains as tr
from turnproc.families.g18xx.titles.c1832.data import Data1832, load

GAME = "1832"


class Case1832Error(TurnprocError):
    """A case file that cannot be read or run."""


class Case1832(BaseModel):
    """One 1832 case file."""

    model_config = ConfigDict(extra="forbid")

    game: str
    title: str
    rules: str
    check: str
    pending: bool = False
    reason: str | None = None
    given: dict[str, Any] = Field(default_factory=dict)
    orders: list[dict[str, Any]] = Field(default_factory=list)
    expect: dict[str, Any] = Field(default_factory=dict)


@dataclass
class Verdict1832:
    path: Path
    title: str
    pending: bool = False
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.pending and not self.failures

    @property
    def mark(self) -> str:
        return "FAIL" if self.failures else "PENDING" if self.pending else "PASS"


class _Given(dict[str, Any]):
    """A case's inputs, remembering which the check read: an input no check
    reads is a mistake in the case file (a misspelt name would pass unseen)."""

    def __init__(self, items: dict[str, Any]) -> None:
        super().__init__(items)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


def is_1832_case(path: Path) -> bool:
    """Whether a case file declares `game = "1832"` (unreadable files: no)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return data.get("game") == GAME


def load_case(path: Path) -> Case1832:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Case1832Error(f"{path}: no such case file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise Case1832Error(f"{path}: invalid TOML ({exc})") from None
    try:
        case = Case1832.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise Case1832Error(f"{path}: {where}: {err['msg']}") from None
    if case.game != GAME:
        raise Case1832Error(f"{path}: not an 1832 case (game = {case.game!r})")
    if not case.expect:
        raise Case1832Error(f"{path}: a case must expect something")
    if case.pending and not case.reason:
        raise Case1832Error(f"{path}: a pending case says why (reason)")
    if not case.pending and case.check not in CHECKS and case.check not in ORDER_CHECKS:
        known = ", ".join(sorted([*CHECKS, *ORDER_CHECKS]))
        raise Case1832Error(f"{path}: unknown check {case.check!r}; known: {known}")
    return case


def _cell(value: Any) -> mk.Cell:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise Case1832Error(f"a market box is [row, column], not {value!r}")
    return (value[0], value[1])


def _holdings(given: dict[str, Any]) -> mk.Holdings:
    return mk.Holdings(
        players={str(k): int(v) for k, v in given.get("players", {}).items()},
        initial_offering=int(given.get("initial_offering", 0)),
        redeemed=int(given.get("redeemed", 0)),
        open_market=int(given.get("open_market", 0)),
    )


def _box(market: mk.Market, cell: mk.Cell) -> dict[str, Any]:
    box = market.box(cell)
    return {
        "cell": list(cell),
        "price": box.price,
        "zone": box.zone,
        "closed": box.zone == "closed",
        "lower": box.lower,
    }


def _market_move(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    start = _cell(g["start"]) if "start" in g else market.par_cell(int(g["par"]))
    cell = start
    if "sold" in g:
        cell = market.after_sale(cell, int(g["sold"]))
    if "dividend" in g:
        cell = market.after_dividend(cell, g["dividend"], int(g.get("income", 1)))
    cell = market.move(cell, list(g.get("moves", [])))
    return _box(market, cell) | {"start_price": market.price(start)}


def _dividend(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    shares = int(g.get("shares", data.title.shares_per_company))
    payout = mk.dividend(g["kind"], int(g["income"]), _holdings(g), shares)
    out: dict[str, Any] = {
        "players": payout.players,
        "company": payout.company,
        "retained": payout.retained,
        "open_market": payout.open_market,
        "per_share": payout.per_share,
    }
    if "start" in g:
        market = mk.Market(data.title.market)
        cell = market.after_dividend(_cell(g["start"]), g["kind"], int(g["income"]))
        out["market"] = _box(market, cell)
    return out


def _system_price(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    cell, price = market.system_placement(_cell(g["first"]), _cell(g["second"]))
    return _box(market, cell) | {"value": price, "par": mk.system_par(data, price)}


def _system_par(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    return {"par": mk.system_par(data, int(g["price"]))}


def _reissue(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "price" in g:
        out["par"] = mk.reissue_par(data, int(g["old_par"]), int(g["price"]))
    if "bracket_of" in g:
        out["minimum_price"] = mk.reissue_minimum_price(data, int(g["bracket_of"]))
    return out


def _redemption(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    state = mk.RedemptionState(
        holdings=_holdings(g),
        shares=int(g.get("shares", data.title.shares_per_company)),
        president=str(g["president"]),
        price=int(g["price"]),
        treasury=int(g["treasury"]),
        operating=bool(g.get("operating", True)),
        floated_this_round=bool(g.get("floated_this_round", False)),
        redeemed_this_round=int(g.get("redeemed_this_round", 0)),
        system=bool(g.get("system", False)),
    )
    refusal = mk.redemption_refusal(data, state, str(g["source"]))
    return {"allowed": refusal is None, "refusal": refusal or "", "cost": state.price}


def _takeover_cost(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    cost = mk.takeover_cost(_holdings(g), int(g["price"]), int(g["par"]))
    return {"total": cost.total, "to_players": cost.to_players, "to_bank": cost.to_bank}


def _certificate_limit(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    if "companies" in g:
        companies = int(g["companies"])
    else:
        companies = mk.companies_in_play(
            data, int(g.get("closed", 0)), int(g.get("shells_taken_over", 0))
        )
    return {
        "limit": mk.certificate_limit(data, int(g["players"]), companies),
        "companies": companies,
    }


def _starting_cash(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    players = int(g["players"])
    return {"cash": mk.starting_cash(data, players, bool(g.get("southern_bank", False)))}


def _zone(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    zone = market.box(_cell(g["cell"])).zone
    return {
        "zone": zone,
        "counts_toward_limit": mk.counts_toward_limit(zone),
        "may_exceed_holding_limit": mk.may_exceed_holding_limit(zone),
        "may_buy_several": mk.may_buy_several(zone),
    }


def _open_market(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    shares = int(g.get("shares", data.title.shares_per_company))
    return {"room": mk.open_market_room(data, shares, int(g["in_open_market"]))}


def _private_price(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    bounds = mk.private_price_range(data, str(g["private"]), str(g["phase"]))
    if bounds is None:
        return {"buyable": False}
    return {"buyable": True, "least": bounds[0], "most": bounds[1]}


def _data(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    """A fact of the title data, by a dotted path; a list's item is named by
    its `id`, `name` or `hex` (the index when no item has that name)."""
    node: Any = json.loads(data.model_dump_json(by_alias=True))
    for part in str(g["path"]).split("."):
        found = (
            [
                item
                for item in node
                if isinstance(item, dict)
                and part in (item.get("id"), item.get("name"), item.get("hex"))
            ]
            if isinstance(node, list)
            else []
        )
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif len(found) == 1:
            node = found[0]
        elif isinstance(node, list) and not found and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise Case1832Error(f"data path {g['path']!r}: nothing at {part!r}")
    return {"value": node}


def _sale(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    start = _cell(g["start"]) if "start" in g else market.par_cell(int(g["par"]))
    sale = mk.sell(market, start, int(g["shares"]), bool(g.get("protected", False)))
    return _box(market, sale.cell) | {"proceeds": sale.proceeds, "paid_by": sale.paid_by}


def _starting_treasury(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    return {"treasury": mk.starting_treasury(data, int(g["par"]))}


def _system_president(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    holdings = {str(k): int(v) for k, v in g["holdings"].items()}
    president = mk.system_president(data, str(g["initiator"]), list(g["seats"]), holdings)
    return {"forms": president is not None, "president": president or ""}


def _stop_value(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    phase = str(g["phase"])
    if g["hex"] == data.extras.miami.hex:
        value = rv.miami_value(data, phase, bool(g.get("first_run_of_game", False)))
        company = g.get("company")
        if company:
            value += rv.key_west_bonus(data, company, phase, bool(g.get("key_west", False)))
        return {"value": value}
    return {"value": rv.printed_value(data, str(g["hex"]), phase, int(g.get("node", 0)))}


def _token_bonus(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    bonus = rv.port_bonus if g["token"] == "port" else rv.cotton_bonus
    return {"bonus": bonus(data, str(g["runner"]), str(g["owner"]), str(g["phase"]))}


def _token_city(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    where = rv.port_city if g["token"] == "port" else rv.cotton_city
    return {"allowed": where(data, str(g["hex"]))}


def _coal_token(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    to_owner, to_bank = rv.coal_token_payments(data, g["p5_owner"])
    return {"to_owner": to_owner, "to_bank": to_bank}


def _key_west(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    return {"placeable": rv.key_west_placeable(data, str(g["company"]), str(g["phase"]))}


def _certificate_count(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    """Each company as {cell, certificates, sold}: the zone after the sale
    the player assumes unprotected (5.3.5)."""
    market = mk.Market(data.title.market)
    holdings = {}
    for name, item in g.get("companies", {}).items():
        cell = market.after_sale(_cell(item["cell"]), int(item.get("sold", 0)))
        holdings[name] = sh.Holding(int(item["certificates"]), market.box(cell).zone)
    count = sh.certificate_count(
        holdings, int(g.get("privates", 0)), bool(g.get("mortgaged_southern_bank", False))
    )
    return {"count": count}


def _new_president(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    holdings = {str(k): int(v) for k, v in g["holdings"].items()}
    return {"president": sh.new_president(list(g["seats"]), str(g["president"]), holdings)}


def _president_may_sell(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    holdings = {str(k): int(v) for k, v in g["holdings"].items()}
    allowed = sh.may_sell_presidents_share(
        data,
        str(g["president"]),
        holdings,
        int(g.get("open_market", 0)),
        int(g.get("shares", data.title.shares_per_company)),
    )
    return {"allowed": allowed}


def _reissue_allowed(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    state = sh.ReissueState(
        redeemed=int(g["redeemed"]),
        initial_offering=int(g.get("initial_offering", 0)),
        reissued_this_round=bool(g.get("reissued_this_round", False)),
        operating=bool(g.get("operating", True)),
    )
    refusal = sh.reissue_refusal(state)
    return {"allowed": refusal is None, "refusal": refusal or ""}


def _share_price_order(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    tokens = [(str(t["company"]), _cell(t["cell"])) for t in g["tokens"]]
    return {"order": mk.share_price_order(market, tokens)}


def _train_limit(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    return {"limit": mk.train_limit(data, str(g["phase"]), bool(g.get("system", False)))}


def _southern_bank(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    value = int(g["asset_value"])
    least, most = mk.mortgage_range(data, value)
    repay_least, repay_most = mk.mortgage_repayment_range(data, value)
    return {
        "least": least,
        "most": most,
        "repay_least": repay_least,
        "repay_most": repay_most,
        "interest": mk.mortgage_interest(data, value, int(g.get("treasury", 0))),
    }


def _civil_war(data: Data1832, g: dict[str, Any]) -> dict[str, Any]:
    market = mk.Market(data.title.market)
    start = _cell(g["start"]) if "start" in g else market.par_cell(int(g["par"]))
    cell = market.move(start, ["left"] * data.extras.civil_war.left_moves)
    return _box(market, cell) | {"pays": mk.civil_war_cash(data, int(g.get("cash", 0)))}


CHECKS: dict[str, Callable[[Data1832, dict[str, Any]], dict[str, Any]]] = {
    "market_move": _market_move,
    "dividend": _dividend,
    "system_price": _system_price,
    "system_par": _system_par,
    "reissue": _reissue,
    "redemption": _redemption,
    "takeover_cost": _takeover_cost,
    "certificate_limit": _certificate_limit,
    "starting_cash": _starting_cash,
    "zone": _zone,
    "open_market": _open_market,
    "private_price": _private_price,
    "data": _data,
    "sale": _sale,
    "starting_treasury": _starting_treasury,
    "system_president": _system_president,
    "stop_value": _stop_value,
    "token_bonus": _token_bonus,
    "coal_token": _coal_token,
    "token_city": _token_city,
    "key_west": _key_west,
    "certificate_count": _certificate_count,
    "new_president": _new_president,
    "president_may_sell": _president_may_sell,
    "reissue_allowed": _reissue_allowed,
    "share_price_order": _share_price_order,
    "train_limit": _train_limit,
    "southern_bank": _southern_bank,
    "civil_war": _civil_war,
}


Orders = list[dict[str, Any]]


def _stock_round(data: Data1832, given: dict[str, Any], orders: Orders) -> dict[str, Any]:
    """A stock round set up from `given` (seats, cash, companies with their
    box, president, holdings, treasury and trains, unsold privates, owned
    privates) and played order by order; the first refused order ends the
    case with its code as `rejection`. A president who sends no protect
    order once the orders are over declines [designed: silence declines]."""
    seats = list(given.get("seats", ["A", "B", "C", "D"]))
    cash = {p: int(given.get("cash", 1000)) for p in seats}
    holdings: dict[str, dict[str, int]] = {p: {} for p in seats}
    companies = {c.id: st.Company(c.id) for c in data.title.companies}
    for cid, spec in given.get("companies", {}).items():
        item = companies[cid]
        item.cell = tuple(spec["cell"]) if "cell" in spec else None
        item.president = spec.get("president")
        item.treasury = int(spec.get("treasury", 0))
        item.trains = list(spec.get("trains", []))
        item.open_market = int(spec.get("open_market", 0))
        item.redeemed = int(spec.get("redeemed", 0))
        item.operated = bool(spec.get("operated", False))
        item.par = int(spec.get("par", 0))
        item.floated = bool(spec.get("floated", item.operated))
        for player, count in spec.get("holdings", {}).items():
            holdings[player][cid] = int(count)
        outside = sum(int(n) for n in spec.get("holdings", {}).values())
        # the rest of the ten shares is on the initial offering unless given
        item.ipo = int(
            spec.get(
                "initial_offering",
                data.title.shares_per_company - outside - item.open_market - item.redeemed,
            )
        )
    unsold = list(given.get("unsold_privates", []))
    game = st.StockRound(
        data=data,
        seats=seats,
        cash=cash,
        holdings=holdings,
        companies=companies,
        bank=int(given.get("bank", data.title.bank - sum(cash.values()))),
        turn=seats.index(given.get("turn", seats[0])),
        private_prices={
            p: int(given.get("private_prices", {}).get(p, data.private(p).value)) for p in unsold
        },
        privates=dict(given.get("privates", {})),
        started_this_round=set(given.get("started_this_round", [])),
    )
    before = dict(cash)
    rejection = None
    ending = None
    try:
        acting: str | None = None
        for order in orders:
            kind = order["kind"]
            player = order.get("player", "")
            # a turn ends when another player's order or a protection decision comes
            if acting is not None and (player != acting or kind in ("protect", "decline")):
                game.finish_turn(acting)
                acting = None
            if kind in ("sell", "buy", "use_p4", "buy_private", "redeem", "reissue"):
                acting = player
            if kind == "sell":
                game.sell(player, order["company"], int(order["shares"]))
            elif kind == "buy":
                game.buy(player, order["company"], order["from"], int(order.get("shares", 1)))
            elif kind == "protect":
                game.protect(player, order["company"])
            elif kind == "decline":
                game.decline(player, order["company"])
            elif kind == "use_p4":
                game.use_p4(player, order["company"])
            elif kind == "buy_private":
                game.buy_private(player, order["private"])
            elif kind == "par":
                game.par(player, order["company"], int(order["par"]))
            elif kind == "redeem":
                game.redeem(player, order["company"], order["from"], bool(order.get("consent")))
            elif kind == "reissue":
                game.reissue(player, order["company"])
            elif kind == "takeover":
                game.take_over(order["buyer"], order["target"], int(order["train_limit"]))
            elif kind == "form_system":
                first, second = order["companies"]
                game.form_system(player, first, second, order["name"])
            elif kind == "pay_dividend":
                ending = op.pay_dividend(game, order["company"], order["as"], int(order["income"]))
            elif kind == "pass":
                game.pass_turn(player)
            elif kind == "all_pass":
                game.all_pass_before_p7()
            else:
                raise Case1832Error(f"unknown stock round order {kind!r}")
        if acting is not None:
            game.finish_turn(acting)
        for sale in list(game.pending):
            game.decline(game.companies[sale.company].president or "", sale.company)
    except st.Refusal as exc:
        rejection = exc.code
    return {
        "rejection": rejection,
        "next_turn": game.current,
        "closed": sorted(c.id for c in game.companies.values() if c.closed and not c.taken_over),
        "taken_over": sorted(c.id for c in game.companies.values() if c.taken_over),
        "open_market_trains": game.open_market_trains,
        "certificate_limit": game.certificate_limit(),
        "holdings": game.holdings,
        "cash_change": {p: game.cash[p] - before[p] for p in seats},
        "private_prices": game.private_prices,
        "privates": game.privates,
        "sold_toward_operating": {
            c: game.sold_toward_operating(c) for c in game.companies if game.companies[c].president
        },
        "companies": {
            c.id: {
                "treasury": c.treasury,
                "redeemed": c.redeemed,
                "reissued": c.reissued,
                "initial_offering": c.ipo,
                "open_market": c.open_market,
                "par": c.par,
                "president": c.president,
                "escrow": c.escrow,
                "floated": c.floated,
                "trains": c.trains,
            }
            for c in game.companies.values()
            if c.president is not None
        },
        "bank": game.bank,
        "game_ends_after": ending,
        "certificates_removed": game.system_certificates_removed,
        "ended": game.ended,
        "certificates": {p: game.certificates(p) for p in seats},
        "cells": {c.id: list(c.cell) for c in game.companies.values() if c.cell is not None},
    }


def _trains(data: Data1832, given: dict[str, Any], orders: Orders) -> dict[str, Any]:
    """Trains bought in order from `given` (phase, the first train left in
    the bank, the open market's trains, each company's trains, share price
    order); the first refused order ends the case with its code."""
    room = tr.TrainRoom.new(data)
    room.phase = str(given.get("phase", room.phase))
    first = given.get("bank_from")
    if first is not None:
        room.bank = room.bank[room.bank.index(str(first)) :]
    room.open_market = list(given.get("open_market_trains", []))
    room.owned = {c: list(t) for c, t in given.get("companies", {}).items()}
    room.price_order = list(given.get("price_order", []))
    discarded: list[list[str]] = []
    rejection = None
    try:
        for order in orders:
            if order["kind"] != "buy_train":
                raise Case1832Error(f"unknown train order {order['kind']!r}")
            out = room.buy(
                order["company"],
                str(order["train"]),
                order.get("from", tr.BANK),
                bool(order.get("president_contributes", False)),
            )
            discarded += [list(d) for d in out]
    except st.Refusal as exc:
        rejection = exc.code
    return {
        "rejection": rejection,
        "phase": room.phase,
        "trains": room.owned,
        "open_market_trains": room.open_market,
        "discarded": discarded,
        "train_limit": {c: room.limit(c) for c in room.owned},
    }


def _forced_sale(data: Data1832, given: dict[str, Any]) -> dict[str, Any]:
    shortfall = int(given["train_price"]) - int(given["treasury"]) - int(given["cash"])
    sold = tr.forced_sale_shares(
        data, int(given["holding"]), given["zone"], int(given["price"]), shortfall
    )
    return {"sold": sold, "holding_after": int(given["holding"]) - sold}


def _bank_broken(data: Data1832, given: dict[str, Any]) -> dict[str, Any]:
    ending = tr.bank_pays(int(given["bank"]), int(given["payment"]), given["round"])
    return {"game_ends_after": ending}


CHECKS["forced_sale"] = _forced_sale
CHECKS["bank_broken"] = _bank_broken

ORDER_CHECKS: dict[str, Callable[[Data1832, dict[str, Any], Orders], dict[str, Any]]] = {
    "stock_round": _stock_round,
    "trains": _trains,
}


def _compare(actual: Any, wanted: Any, where: str) -> list[str]:
    """`wanted` must match `actual`; tables compare key by key (a subset)."""
    if isinstance(wanted, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected a table {wanted}, got {actual!r}"]
        failures: list[str] = []
        for key, value in wanted.items():
            if key not in actual:
                failures.append(f"{where}.{key}: missing (got {sorted(actual)})")
            else:
                failures += _compare(actual[key], value, f"{where}.{key}")
        return failures
    if actual != wanted:
        return [f"{where}: expected {wanted!r}, got {actual!r}"]
    return []


def run_case(path: Path, data: Data1832) -> Verdict1832:
    try:
        case = load_case(path)
    except Case1832Error as exc:
        return Verdict1832(path, "(unreadable)", failures=[str(exc)])
    if case.pending:
        return Verdict1832(path, case.title, pending=True)
    wanted_error = case.expect.get("error")
    given = _Given(case.given)
    try:
        if case.check in ORDER_CHECKS:
            actual = ORDER_CHECKS[case.check](data, given, case.orders)
        else:
            actual = CHECKS[case.check](data, given)
    except TurnprocError as exc:
        if wanted_error is not None and str(wanted_error) in str(exc):
            return Verdict1832(path, case.title)
        return Verdict1832(path, case.title, failures=[f"refused: {exc}"])
    except (KeyError, ValueError, TypeError) as exc:
        return Verdict1832(path, case.title, failures=[f"could not run: {exc!r}"])
    unread = sorted(set(given) - given.read)
    if unread:
        return Verdict1832(
            path, case.title, failures=[f"given {unread} not used by check {case.check!r}"]
        )
    if wanted_error is not None:
        return Verdict1832(path, case.title, failures=[f"expected the error {wanted_error!r}"])
    return Verdict1832(path, case.title, failures=_compare(actual, case.expect, "expect"))


def run_files(paths: list[Path], as_json: bool = False) -> int:
    """`turnproc case run` for 1832 case files: PASS, FAIL or PENDING per case;
    exit status 1 when any fails."""
    data = load()
    verdicts = [run_case(path, data) for path in paths]
    if as_json:
        rows = [
            {
                "file": str(v.path),
                "title": v.title,
                "passed": v.passed,
                "pending": v.pending,
                "failures": v.failures,
            }
            for v in verdicts
        ]
        print(json.dumps(rows, indent=2))
    else:
        for v in verdicts:
            print(f"{v.mark}  {v.path}  {v.title}")
            for failure in v.failures:
                print(f"      {failure}")
        counts = {m: sum(v.mark == m for v in verdicts) for m in ("PASS", "FAIL", "PENDING")}
        print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['PENDING']} pending")
    return 1 if any(v.failures for v in verdicts) else 0
