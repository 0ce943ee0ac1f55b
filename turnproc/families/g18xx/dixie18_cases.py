"""Rule cases for 18Dixie (`cases/18dixie/*.toml`, docs/cases.md): each names
one rule's arithmetic, what it is given, and the result or refusal the
rules text demands. A case that needs the game engine says so in `pending`
and is reported as pending, never as passed."""

import dataclasses
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from turnproc.families.g18xx.titles.dixie18 import (
    endgame,
    merger,
    minors,
    shares,
    stations,
    stock_chart,
    supply,
    trains,
)
from turnproc.families.g18xx.titles.dixie18.data import DixieTitle, load_dixie
from turnproc.families.g18xx.titles.dixie18.refusals import Refused

GAME = "18dixie"
_KEYS = {"title", "rules", "game", "check", "given", "expect", "pending"}


def _certificates(items: list[dict[str, Any]]) -> list[shares.Certificate]:
    return [shares.Certificate(**item) for item in items]


def _holdings(items: list[dict[str, int]]) -> list[endgame.Holding]:
    return [endgame.Holding(**item) for item in items]


ALLOWED = "allowed"


def _allowed(check: Callable[..., None]) -> Callable[..., str]:
    """A check that refuses or lets pass: its result is "allowed"."""

    def run(*args: Any, **kwargs: Any) -> str:
        check(*args, **kwargs)
        return ALLOWED

    return run


def _stops(t: DixieTitle, train: str, cities: int, towns: int) -> str:
    return _allowed(trains.check_stops)(trains.train_rule(t, train), cities, towns)


def _rule_of(refusal: str) -> str:
    """The rule a refusal cites: the last "(3.3.1)"-like reference in it."""
    found = re.findall(r"\((\d[\w.]*)", refusal)
    return found[-1] if found else ""


def _engine(
    t: DixieTitle, players: int, orders: list[str], first_train: str | None = None
) -> dict[str, Any]:
    """The title played on the family engine: a new game for `players`, each
    order ("<player>: <line>") applied in turn until one is refused; then,
    if named, the first train of a type leaves the bank (its phase and
    effects). The result is the position and the refusal, if any."""
    from turnproc.families.g18xx.engine.steps.trains import first_of_type
    from turnproc.families.g18xx.orders import apply_orders
    from turnproc.families.g18xx.titles.dixie18.rules import in_open_market
    from turnproc.families.g18xx.titles.load import new_game

    game = new_game(t.title, list(range(1, players + 1)))
    refused, refused_at = "", 0
    for number, order in enumerate(orders, 1):
        who, _, line = order.partition(":")
        receipt = apply_orders(game, int(who), line.strip())
        if receipt.refused is not None:
            refused, refused_at = str(receipt.refused), number
            break
    if first_train is not None:
        first_of_type(game, next(k for k in game.title.trains if k.name == first_train))

    def owner(private: Any) -> Any:
        if private.closed:
            return "closed"
        if in_open_market(game, private.data.id):
            return "market"
        if private.owner is None:
            return "unsold"
        return private.owner

    return {
        "round": game.round,
        "phase": game.phase,
        "priority": game.priority,
        "to_move": game.to_move(),
        "cash": {str(p): game.cash[p] for p in game.players},
        "privates": {p: owner(s) for p, s in game.privates.items()},
        "companies": {
            c: {
                "par": s.par,
                "floated": s.floated,
                "president": s.president,
                "cash": game.cash[c],
                "market_percent": game.percent_of("market", c),
                "price": game.market.price(c),
                "trains": [tr.name for tr in game.trains_of(c)],
            }
            for c, s in game.companies.items()
            if s.par is not None
        },
        "refused_at": refused_at,
        "refused_rule": _rule_of(refused),
    }


# Each check takes the title and the case's [given] table.
CHECKS: dict[str, Callable[..., Any]] = {
    "opening_bid": lambda t, **g: _allowed(supply.check_opening_bid)(**g),
    "raise_bid": lambda t, **g: _allowed(supply.check_raise)(**g),
    "initial_round_end": lambda t, bought: supply.initial_round_end(t, bought),
    "must_pass_in_initial_auctions": lambda t, **g: supply.must_pass_in_initial_auctions(**g),
    "stock_round_supply": lambda t, stock_round: supply.stock_round_supply(t, stock_round),
    "open_market_price": lambda t, company: supply.open_market_price(t, company),
    "max_holding": lambda t, company: shares.max_holding(t, company),
    "purchase_limit": lambda t, **g: _allowed(shares.check_purchase_limit)(t, **g),
    "certificates_counted": lambda t, certificates: shares.certificates_counted(
        _certificates(certificates)
    ),
    "certificate_limit": lambda t, **g: shares.certificate_limit(t, **g),
    "certificate_limit_purchase": lambda t, **g: _allowed(shares.check_certificate_limit)(**g),
    "certificate_price": lambda t, **g: shares.certificate_price(t, **g),
    "float_capital": lambda t, **g: shares.float_capital(t, **g),
    "take_priority": lambda t, owner: supply.take_priority(t, owner),
    "president_contribution": lambda t, **g: trains.president_contribution(**g),
    "after_sale": lambda t, **g: stock_chart.after_sale(t, **g),
    "after_operating": lambda t, **g: stock_chart.after_operating(t, **g),
    "after_stock_round": lambda t, **g: stock_chart.after_stock_round(t, **g),
    "par_cell": lambda t, par: stock_chart.par_cell(t, par),
    "merger_subsidy": lambda t, train: merger.merger_for(t, train).subsidy,
    "phase_started_by": lambda t, train: trains.phase_started_by(t, train),
    "removed_by": lambda t, train: trains.removed_by(t, train),
    "on_sale": lambda t, remaining, phase: trains.on_sale(t, remaining, phase),
    "bank_purchase": lambda t, **g: _allowed(trains.check_bank_purchase)(t, **g),
    "excess_trains": lambda t, **g: trains.excess_trains(t, **g),
    "stop_value": lambda t, **g: trains.stop_value(t, **g),
    "phase": lambda t, phase: next(p for p in t.phases if p.name == phase).model_dump(),
    "president_sale": lambda t, **g: _allowed(shares.check_president_sale)(**g),
    "buy_after_sale": lambda t, **g: _allowed(shares.check_buy_after_sale)(**g),
    "floats": lambda t, **g: shares.floats(t, **g),
    "sale": lambda t, **g: _allowed(shares.check_sale)(t, **g),
    "pay_out": lambda t, **g: shares.pay_out(**g),
    "new_president": lambda t, **g: shares.new_president(**g),
    "release_preferred": lambda t, **g: shares.release_preferred(**g),
    "minor_split": lambda t, revenue: minors.split_revenue(revenue),
    "tile_lays": lambda t, **g: minors.tile_lays(t, **g),
    "minor_order": lambda t, minors_owned: minors.operating_order(minors_owned),
    "closing_after": lambda t, operating_round: minors.closing_after(t, operating_round),
    "minor_home": lambda t, **g: _allowed(minors.check_home)(t, **g),
    "close_minor": lambda t, **g: minors.close_minor(t, **g),
    "minor_train": lambda t, buying: _allowed(minors.check_minor_train)(buying),
    "merger_for": lambda t, train: merger.merger_for(t, train).id,
    "may_merge": lambda t, operated, consents, other_formed: _allowed(merger.check_may_merge)(
        tuple(operated), tuple(consents), other_formed
    ),
    "merger_price": lambda t, prices: merger.merger_price(t, tuple(prices)),
    "president_exchange": lambda t, **g: merger.president_exchange(**g),
    "pair_exchange": lambda t, predecessor_percent: merger.pair_exchange(predecessor_percent),
    "odd_share_terms": lambda t, price: merger.odd_share_terms(price),
    "odd_share_top_up": lambda t, **g: _allowed(merger.check_odd_share_top_up)(**g),
    "tokens_kept": lambda t, **g: _allowed(merger.check_tokens_kept)(t, **g),
    "trains_to_discard": lambda t, trains_owned: merger.trains_to_discard(t, trains_owned),
    "system_operates_this_round": lambda t, predecessor_operated: merger.may_operate_this_round(
        predecessor_operated
    ),
    "stops": _stops,
    "route_revenue": lambda t, train, stops, bonus=0: trains.route_revenue(
        trains.train_rule(t, train), stops, bonus
    ),
    "pan_am_bonus": lambda t, company: trains.pan_am_bonus(t, company),
    "p2_token": lambda t, hex: _allowed(trains.check_p2_token)(t, hex),
    "on_rust": lambda t, **g: trains.on_rust(t, **g),
    "after_obsolete_run": lambda t, **g: trains.after_obsolete_run(t, **g),
    "p5_price": lambda t, train: trains.p5_price(t, train),
    "game_end": lambda t, **g: endgame.game_end(t, **g),
    "price_ends_game": lambda t, price: endgame.price_ends_game(t, price),
    "net_worth": lambda t, cash, holdings, printed_values, bankrupt=False: endgame.net_worth(
        cash, _holdings(holdings), printed_values, bankrupt
    ),
    "station": lambda t, **g: _allowed(stations.check_station)(**g),
    "engine": _engine,
    "station_cost": lambda t, stations_bought_before: stations.station_cost(
        t, stations_bought_before
    ),
}


@dataclasses.dataclass
class DixieVerdict:
    path: Path
    title: str
    failures: list[str] = dataclasses.field(default_factory=list)
    pending: str | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and self.pending is None


def is_case(path: Path) -> bool:
    """Whether a case file is an 18Dixie case (`game = "18dixie"`)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("game") == GAME
    except (OSError, tomllib.TOMLDecodeError):
        return False


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _compare(expected: Any, actual: Any, where: str) -> list[str]:
    """Tables compare as subsets (only the fields written are checked)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{where}.{key}: missing in {actual}")
            else:
                out.extend(_compare(value, actual[key], f"{where}.{key}"))
        return out
    if expected != actual:
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return []


def run_case(path: Path, title: DixieTitle | None = None) -> DixieVerdict:
    """Run one 18Dixie case file."""
    try:
        case = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return DixieVerdict(path, "(unreadable)", [str(exc)])
    name = str(case.get("title", "(untitled)"))
    verdict = DixieVerdict(path, name)
    unknown = sorted(set(case) - _KEYS)
    if unknown:
        verdict.failures.append(f"unknown keys: {', '.join(unknown)}")
    expect = case.get("expect")
    if not isinstance(expect, dict) or not expect:
        verdict.failures.append("a case must expect something ([expect])")
    if not case.get("rules"):
        verdict.failures.append("a case names the rules it checks (rules = ...)")
    if "pending" in case:
        verdict.pending = str(case["pending"])
        return verdict
    check = CHECKS.get(str(case.get("check")))
    if check is None:
        verdict.failures.append(f"unknown check {case.get('check')!r}; known: {sorted(CHECKS)}")
    if verdict.failures or check is None or not isinstance(expect, dict):
        return verdict
    given = case.get("given", {})
    try:
        result: Any = check(title or load_dixie(), **given)
        refusal: Refused | None = None
    except Refused as exc:
        refusal = exc
    except TypeError as exc:
        verdict.failures.append(f"bad [given] for {case['check']}: {exc}")
        return verdict
    if "refused" in expect:
        if refusal is None:
            verdict.failures.append(f"expected refusal {expect['refused']}, got {_plain(result)!r}")
        else:
            if refusal.code != expect["refused"]:
                verdict.failures.append(f"refused {refusal.code}, expected {expect['refused']}")
            if "rule" in expect and refusal.rule != expect["rule"]:
                verdict.failures.append(f"refused under {refusal.rule}, expected {expect['rule']}")
    elif refusal is not None:
        verdict.failures.append(f"refused: {refusal.code} {refusal}")
    elif "result" in expect:
        verdict.failures.extend(_compare(expect["result"], _plain(result), "result"))
    else:
        verdict.failures.append("[expect] needs result or refused")
    return verdict
