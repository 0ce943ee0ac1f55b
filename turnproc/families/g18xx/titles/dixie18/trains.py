"""Train routes and their revenue, spare parts and salvage (4.4h-i, 4.4.1,
4.6, privates P2, P5 and P8)."""

from dataclasses import dataclass

from turnproc.families.g18xx.engine.track import split_coordinate
from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused


@dataclass(frozen=True)
class TrainRule:
    """How a train counts its stops."""

    name: str
    cities: int  # cities and off-board areas
    towns: int  # the +m of an n+m train: extra stops that must be towns
    towns_free: bool  # towns do not count at all
    multiplier: int


def train_rule(title: DixieTitle, name: str) -> TrainRule:
    for train in title.trains:
        if train.name == name:
            return TrainRule(name, train.cities, train.towns, train.towns_free, train.multiplier)
        for variant in train.variants:
            if variant.name == name:
                return TrainRule(name, variant.cities, 0, False, variant.multiplier)
    if name == title.special_train.name:
        s = title.special_train
        return TrainRule(name, s.cities, s.towns, False, s.multiplier)
    raise Refused("NO_SUCH_TRAIN", "12.1", f"no train {name!r}")


def check_stops(rule: TrainRule, cities: int, towns: int) -> None:
    """4.4h-i: non-permanent trains count cities and off-board areas only;
    n+m trains visit at most n of them and at most n+m stops, the extra ones
    towns; D trains count every stop. Towns on the route cannot be skipped."""
    if cities + towns < 2:
        raise Refused("ONE_STOP", "4.4f", "a route needs two stops")
    if cities > rule.cities:
        raise Refused("TOO_MANY_CITIES", "4.4i", f"a {rule.name} counts {rule.cities} cities")
    if not rule.towns_free and cities + towns > rule.cities + rule.towns:
        raise Refused(
            "TOO_MANY_STOPS", "4.4h", f"a {rule.name} stops at {rule.cities + rule.towns} places"
        )


def route_revenue(rule: TrainRule, stops: list[int], bonus: int = 0) -> int:
    """4.4.1: the sum of the stops' values (P2's +$10 already added to its
    city), doubled by D trains; P8's Pan-Am bonus is added after doubling
    (designed)."""
    return sum(stops) * rule.multiplier + bonus


def pan_am_bonus(title: DixieTitle, company: str) -> int:
    """P8: +$30 on a train of the IC, Frisco, ACL or WRA, +$20 otherwise."""
    ability = title.private("P8").ability
    return ability.bonus_for.get(company, ability.bonus)


def hex_distance(a: str, b: str) -> int:
    """Hexes between two coordinates (rows lettered, columns doubled)."""
    (ra, ca), (rb, cb) = split_coordinate(a), split_coordinate(b)
    rows, cols = abs(ra - rb), abs(ca - cb)
    return rows + max(0, (cols - rows) // 2)


def check_p2_token(title: DixieTitle, hex_name: str) -> None:
    """P2: the +$10 token goes on a city or town within 4 hexes of Dothan."""
    ability = title.private("P2").ability
    assert ability.near is not None
    if hex_distance(hex_name, ability.near) > ability.distance:
        raise Refused("TOO_FAR", "12.3 P2", f"within {ability.distance} hexes of {ability.near}")


@dataclass(frozen=True)
class Obsolescence:
    """4.6: a train whose type is removed from play."""

    removed: bool
    salvage: int  # paid to the owner when removed
    spare_parts_left: int


def on_rust(title: DixieTitle, train: str, spare_parts: int) -> Obsolescence:
    """4.6: a train with a spare part (5-trains have one built in) becomes
    obsolete instead of leaving; otherwise it leaves and pays salvage."""
    data = next(t for t in title.trains if t.name == train)
    parts = spare_parts + data.spare_parts
    if parts:
        return Obsolescence(removed=False, salvage=0, spare_parts_left=parts)
    return Obsolescence(removed=True, salvage=data.salvage, spare_parts_left=0)


def after_obsolete_run(title: DixieTitle, train: str, spare_parts: int) -> Obsolescence:
    """4.6: each run of an obsolete train uses a spare part; with none left
    it leaves and pays salvage."""
    data = next(t for t in title.trains if t.name == train)
    left = spare_parts - 1
    if left > 0:
        return Obsolescence(removed=False, salvage=0, spare_parts_left=left)
    return Obsolescence(removed=True, salvage=data.salvage, spare_parts_left=0)


def p5_price(title: DixieTitle, train: str) -> int:
    """P5: a train from the Initial Offering at half its listed price."""
    data = next(t for t in title.trains if t.name == train)
    return data.price * title.private("P5").ability.percent // 100


def president_contribution(
    company_cash: int, price: int, cheapest: int, from_company: bool = False
) -> int:
    """4.7.1a-c: a company that can pay for the cheapest train in the Initial
    Offering or open market must buy one itself; otherwise its president
    adds exactly what the chosen train lacks (any available train, the
    company left with no cash), never for a train of another company."""
    if from_company:
        if price > company_cash:
            raise Refused(
                "NO_PERSONAL_FUNDS", "4.7.1a", "no president's money for another company's train"
            )
        return 0
    if price <= company_cash:
        return 0
    if company_cash >= cheapest:
        raise Refused(
            "MUST_BUY_AFFORDABLE", "4.7.1a", f"the company can pay for a ${cheapest} train itself"
        )
    return price - company_cash


def phase_started_by(title: DixieTitle, train: str) -> str | None:
    """1.2, 4.7e: the first train of a type starts its phase (2D and 4D, one
    card, start phase D like the 5D)."""
    for data in title.trains:
        if data.name == train or any(v.name == train for v in data.variants):
            return data.phase
    raise Refused("NO_SUCH_TRAIN", "12.1", f"no train {train!r}")


def removed_by(title: DixieTitle, train: str) -> tuple[str, ...]:
    """4.7e, 11 FAQ: the trains the first one of this type removes from play
    (a 2D removes nothing, a 5D the 5-trains)."""
    phase_started_by(title, train)  # the train exists
    return tuple(t.name for t in title.trains if t.rusted_by == train)


def on_sale(title: DixieTitle, remaining: dict[str, int], phase: str) -> tuple[str, ...]:
    """4.7b: Initial Offering trains are sold in order: the first type with
    trains left is on sale; types on sale only from a later phase wait for
    it, and those that come on sale together (2D/4D and 5D after the 7+3)
    are on sale together."""
    names = [p.name for p in title.phases]
    reached = names.index(phase)
    for i, data in enumerate(title.trains):
        if remaining.get(data.name, data.count) <= 0:
            continue
        if data.after_phase and names.index(data.after_phase) > reached:
            return ()
        group = [data] + [
            t
            for t in title.trains[i + 1 :]
            if data.after_phase
            and t.after_phase == data.after_phase
            and remaining.get(t.name, t.count) > 0
        ]
        return tuple(n for t in group for n in (t.name, *(v.name for v in t.variants)))
    return ()


def check_bank_purchase(title: DixieTitle, phase: str, bought_this_turn: int) -> None:
    """4.7f: one train a turn from the Initial Offering or open market until
    phase 6 (the company that buys the first 6+1 may buy more at once)."""
    data = next(p for p in title.phases if p.name == phase)
    if not data.several_bank_trains and bought_this_turn >= 1:
        raise Refused("ONE_TRAIN_A_TURN", "4.7f", "one train a turn from the bank before the 6+1")


def excess_trains(
    title: DixieTitle, phase: str, trains: int, obsolete: int = 0, system: bool = False
) -> int:
    """4.7h, 5.4i: trains over the phase's limit (three for the SCL/ICG),
    discarded to the open market; obsolete trains do not count (11 FAQ)."""
    limit = (
        title.merger_terms.train_limit
        if system
        else next(p for p in title.phases if p.name == phase).train_limit
    )
    return max(0, trains - obsolete - limit)


def stop_value(title: DixieTitle, hex_name: str, phase: str, node: int = 0) -> int:
    """4.4.1: boxed values (off-board areas, Savannah, Jacksonville, ...) pay
    the yellow value until the first 6+1, then the brown one."""
    data = next(p for p in title.phases if p.name == phase)
    place = next((h for h in title.hexes if h.hex == hex_name), None)
    if place is None or node >= len(place.nodes):
        raise Refused("NO_SUCH_STOP", "4.4.1", f"no stop {node} in {hex_name}")
    revenue = place.nodes[node].revenue
    return revenue if isinstance(revenue, int) else revenue[data.revenue_colour]
