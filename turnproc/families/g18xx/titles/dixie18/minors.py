"""Minor companies: their turn, their revenue and their closing into
preferred shares of the majors (1.3.3, 4.1, 4.2, 4.5, 5.1, 5.2)."""

from dataclasses import dataclass

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused


def split_revenue(revenue: int) -> tuple[int, int]:
    """4.5: a minor pays half its revenue to its owner and half to its
    treasury; an odd dollar stays in the treasury (ambiguity 9). Returns
    (owner, treasury)."""
    if revenue < 0:
        raise Refused("REVENUE", "4.5", "revenue cannot be negative")
    owner = revenue // 2
    return owner, revenue - owner


def tile_lays(title: DixieTitle, minor: bool, first_turn: bool) -> int:
    """4.2: a major lays up to two tiles, a minor one; on its first turn
    either may lay one extra yellow tile."""
    lays = title.tile_lays.minor if minor else title.tile_lays.major
    return lays + (title.tile_lays.first_turn_extra_yellow if first_turn else 0)


def operating_order(minors: list[str]) -> list[str]:
    """4b: minors owned by players operate in number order."""
    return sorted(minors, key=lambda m: int(m.lstrip("M")))


def closing_after(title: DixieTitle, operating_round: int) -> tuple[str, ...]:
    """5.2: minors 1-4 close after OR3, 5-8 after OR4, 9-13 after OR5, in
    number order (13 always last)."""
    return tuple(
        m.id
        for m in sorted(title.minors, key=lambda m: int(m.id.lstrip("M")))
        if m.closes_after_or == operating_round
    )


def check_home(title: DixieTitle, minor_id: str, home: str) -> None:
    """4.1: a minor's home token goes on its home city; minors 9 and 12
    choose one of two."""
    homes = title.minor(minor_id).homes
    if home not in homes:
        raise Refused("NOT_HOME", "4.1", f"{minor_id}'s home is {' or '.join(homes)}")


@dataclass(frozen=True)
class Closure:
    """5.2: what closing one minor does."""

    successor: str
    cash_to_successor: int  # onto its charter, even if it has not floated
    tokens_gained: tuple[str, ...]  # hexes where the successor gets a free token
    tokens_removed: tuple[str, ...]  # the successor already has a station there (4.3b)


def close_minor(
    title: DixieTitle,
    minor_id: str,
    successor: str,
    cash: int,
    stations: list[str],
    successor_stations: list[str],
    preferred_left: dict[str, int],
) -> Closure:
    """5.1, 5.2, 5.2.2: the owner takes a preferred share of a listed major
    (minor 13: of any major with one left); the treasury and the placed
    stations become the major's, a station where it already has one is
    removed; extra tokens never placed are lost."""
    minor = title.minor(minor_id)
    allowed = (
        tuple(c.id for c in title.companies) if minor.successors == "any" else minor.successors
    )
    if successor not in allowed:
        raise Refused("NOT_SUCCESSOR", "5.2", f"{minor_id} becomes a share of {', '.join(allowed)}")
    if preferred_left.get(successor, 0) < 1:
        raise Refused("NO_PREFERRED_SHARE", "5.2", f"no preferred share of {successor} is left")
    if len(stations) > len(minor.tokens):
        raise Refused("TOO_MANY_STATIONS", "5.2.2", f"{minor_id} has {len(minor.tokens)} tokens")
    gained: list[str] = []
    removed: list[str] = []
    held = set(successor_stations)
    for hex_name in stations:
        if hex_name in held:
            removed.append(hex_name)
        else:
            gained.append(hex_name)
            held.add(hex_name)
    return Closure(
        successor=successor,
        cash_to_successor=cash,
        tokens_gained=tuple(gained),
        tokens_removed=tuple(removed),
    )


def check_minor_train(buying: bool) -> None:
    """1.3.3, 4.7: a minor runs only its built-in 2-train and never buys or
    sells a train."""
    if buying:
        raise Refused("MINOR_TRAIN", "4.7", "a minor company never buys or sells trains")
