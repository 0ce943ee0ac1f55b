"""1832's stop values that depend on the phase and on tokens
(docs/rules-1832.md 6.5.2, 7.5, 7.6, 8.3, 8.4, 16.2): off-board areas and the
coal fields by phase range, Miami's first run, the Key West, Port and Cotton
bonuses, and who is paid for a WVCF token. Pure functions of the title data;
route finding itself is the engine's.
"""

from typing import Literal

from turnproc.core.errors import TurnprocError
from turnproc.families.g18xx.titles.c1832.data import Data1832

P5Owner = Literal["player", "company", "closed"]


class RevenueError(TurnprocError):
    """A stop or phase the title data does not have."""


def _phase_index(data: Data1832, phase: str) -> int:
    names = [p.name for p in data.title.phases]
    if phase not in names:
        raise RevenueError(f"no phase {phase!r}; phases are {', '.join(names)}")
    return names.index(phase)


def printed_value(data: Data1832, hex_id: str, phase: str, node: int = 0) -> int:
    """8.3: a stop's printed value; an off-board area, grey city or the coal
    fields takes the value of the phase's range (first in phases 2-4, second
    in 5-6, last from 8)."""
    _phase_index(data, phase)
    try:
        nodes = data.hex(hex_id).nodes
    except KeyError:
        raise RevenueError(f"no hex {hex_id!r}") from None
    if node >= len(nodes):
        raise RevenueError(f"{hex_id} has no stop {node}")
    revenue = nodes[node].revenue
    if isinstance(revenue, int):
        return revenue
    return revenue[data.phase(phase).offboard]


def miami_value(data: Data1832, phase: str, first_run_of_game: bool) -> int:
    """8.4: before phase 5 Miami scores $0 on the first train of the game that
    counts it (A4), its printed value otherwise."""
    miami = data.extras.miami
    early = _phase_index(data, phase) < _phase_index(data, miami.first_run_zero_before_phase)
    if early and first_run_of_game:
        return 0
    return printed_value(data, miami.hex, phase)


def key_west_bonus(data: Data1832, company: str, phase: str, token_placed: bool) -> int:
    """7.5: +$50 to Miami for the FEC while its Key West token is on the map
    (from phase 3, removed at phase 8); nothing for anyone else."""
    if not token_placed or not data.company(company).key_west:
        return 0
    return data.extras.miami.key_west_bonus if data.phase(phase).key_west else 0


def key_west_placeable(data: Data1832, company: str, phase: str) -> bool:
    """7.5: the FEC may place the token from phase 3 until phase 8."""
    return data.company(company).key_west and data.phase(phase).key_west


def port_bonus(data: Data1832, runner: str, owner: str, phase: str) -> int:
    """7.6, 16.2 P3: +$20 for the company owning the Port token, +$10 for any
    other, until phase 6 removes it."""
    if _phase_index(data, phase) >= _tokens_removed_at(data):
        return 0
    port = data.extras.port
    return port.owner_bonus if runner == owner else port.other_bonus


def cotton_bonus(data: Data1832, runner: str, owner: str, phase: str) -> int:
    """16.2 P2: +$10 for the owning company only, until phase 6 removes it."""
    if _phase_index(data, phase) >= _tokens_removed_at(data) or runner != owner:
        return 0
    return data.extras.cotton.bonus


def cotton_city(data: Data1832, hex_id: str) -> bool:
    """16.2 P2, A16: the non-coastal cities the Cotton token may go in."""
    return hex_id in data.extras.cotton.cities


def port_city(data: Data1832, hex_id: str) -> bool:
    """16.2 P3: a hex with an anchor."""
    try:
        return data.hex(hex_id).port
    except KeyError:
        return False


def _tokens_removed_at(data: Data1832) -> int:
    for index, train in enumerate(data.title.trains):
        if train.removes_private_tokens:
            return index
    return len(data.title.trains)


def coal_token_payments(data: Data1832, p5_owner: P5Owner) -> tuple[int, int]:
    """6.5.2, 16.2 P5: (to the company owning P5, to the bank) for a WVCF
    token; none is sold while a player owns P5."""
    if p5_owner == "player":
        raise RevenueError("no WVCF token is sold while a player owns P5 (6.5.2)")
    coal = data.extras.coal_fields
    to_owner = coal.owner_share if p5_owner == "company" else 0
    return to_owner, coal.price - to_owner
