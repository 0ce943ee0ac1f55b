"""The turnsheet benchmark (`parse_turnsheet_s` of `turnproc bench`).

`full_turnsheet` writes the sheet of a president of two railroads using every
action of rules 10.1 and 10.2; `parse_turnsheet_seconds` times parsing and
checking it (the work `submit_sheet` does besides the database and the
secret's slow hash) and returns the median.
"""

import statistics
import timeit

from turnproc.families.continental_rails.engine.network import route_owners, touches
from turnproc.families.continental_rails.engine.state import GameState
from turnproc.families.continental_rails.turnsheet.check import evaluate
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary
from turnproc.scenario.model import Scenario


def _president_of_two(state: GameState) -> tuple[GameState, int, list[str]]:
    """A position presiding two railroads: the state's own if there is one, else
    a copy where the first tycoon is made president of the two oldest."""
    by_president: dict[int, list[str]] = {}
    for code, rr in sorted(state.railroads.items(), key=lambda item: item[1].number):
        if rr.president is not None:
            by_president.setdefault(rr.president, []).append(code)
    for position, codes in sorted(by_president.items()):
        if len(codes) >= 2:
            return state, position, codes[:2]
    copy = state.model_copy(deep=True)
    codes = sorted(copy.railroads, key=lambda code: copy.railroads[code].number)[:2]
    for code in codes:
        copy.railroads[code].president = 1
    return copy, 1, codes


def full_turnsheet(state: GameState, scenario: Scenario) -> tuple[GameState, str]:
    """The state to check against and a sheet using every action (34 order kinds)."""
    state, position, (first, second) = _president_of_two(state)
    me = state.tycoon(position)
    for_sale = [c for c, pc in state.pcs.items() if pc.status == "available"] or ["B&M"]
    own_pc = me.pcs[0] if me.pcs else for_sale[-1]
    owners = route_owners(state)
    rows = [
        r.code
        for r in sorted(scenario.routes.values(), key=lambda r: r.number)
        if r.kind == "RoW"
        and r.code not in owners
        and touches(scenario, state.railroads[first].lines, r.code)
    ] or [next(r.code for r in scenario.routes.values() if r.kind == "RoW")]
    other = next((c for c in sorted(state.railroads) if c not in (first, second)), second)
    header = (
        f"TURNSHEET game: {state.game or 'bench'} turn: {state.turn} "
        f"player: {position} secret: bench-secret"
    )
    personal = [
        "PERSONAL",
        "NAME Jay Gould",
        "BORROW 1000",
        "REPAY 100",
        f"BID {for_sale[0]} 1500",
        f"OFFER {own_pc} 900",
        f"INCORPORATE {own_pc}",
        f"MERGE {own_pc} INTO {first}",
        f"TREASURY 10 {first}",
        f"LEND {second} 200",
        f"COLLECT {second} 100",
        "PRODIGAL 1000",
        "SPY 7",
        f"SPY RAILROAD {other}",
        f"PRESIDENT {first}",
        f"PRESIDENT {second}",
        f"SELL 10 {other}",
        f"BUY 50 {first}",
        f"SHORT 20 {other}",
        f"COVER 5 {other}",
    ]
    railroad_lines: list[str] = []
    for code, mate in ((first, second), (second, first)):
        rr = state.railroads[code]
        railroad_lines += [
            f"RAILROAD {rr.number} {code}",
            "DIVIDEND 2",
            "ISSUE STOCK 50",
            "ISSUE BONDS 500",
            "REDEEM BONDS 100",
            "LOAN 300",
            "REPAY LOAN 100",
            f"BID {rows[0]} 400",
            f"BUILD {rows[0]}",
            "SELL LAND 10",
            f"DOUBLE TRACK {rr.lines[0]}",
            f"LOCOMOTIVE {min(9, rr.locomotive + 1)}",
            "TECHNOLOGY B",
            "DONATE 100",
            f"RATE WAR {other} 10%",
            "IMPROVE 200",
            f"MERGE {mate}",
        ]
    return state, "\n".join([header, *personal, *railroad_lines, "END", ""])


def parse_turnsheet_seconds(state: GameState, scenario: Scenario, repeat: int = 21) -> float:
    """Median seconds to parse and check the full turnsheet of `full_turnsheet`."""
    state, text = full_turnsheet(state, scenario)
    vocabulary = Vocabulary.from_scenario(scenario, state)
    evaluate(text, state, scenario, vocabulary)  # warm the caches a real server keeps warm
    times = timeit.repeat(
        lambda: evaluate(text, state, scenario, Vocabulary.from_scenario(scenario, state)),
        number=1,
        repeat=repeat,
    )
    return statistics.median(times)
