"""Victory points in six categories, game end and records (rules 1.2, 1.3, 11.3).

Each turn tycoons score in five categories by their status at the end of the
turn or their actions during it; the sixth, Rail Baron, is recomputed from
the other five [original]. Every table is in turnproc/scenarios/continental-rails/
victory.toml; the rules are written up in docs/rules/01-victory-points.md.

"The president of a railroad this turn" is the president who ran it during
the turn: its president at the start of the turn, or the incorporator of a
railroad founded this turn. The elections at the end of the turn choose next
turn's president and do not change this turn's points.
"""

from collections.abc import Iterable
from typing import Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel

from turnproc.core import rng
from turnproc.core.models import maker
from turnproc.families.continental_rails.engine.context import TurnContext
from turnproc.families.continental_rails.engine.events import Event
from turnproc.families.continental_rails.engine.network import regions_linked, towns_of
from turnproc.families.continental_rails.engine.state import VP_CATEGORIES, GameState, RecordHolder
from turnproc.families.continental_rails.engine.steps.stockmarket import cover_all_shorts
from turnproc.families.continental_rails.engine.valuation import loans_by_lender, net_worth
from turnproc.scenario.model import Scenario

# --- parameters (turnproc/scenarios/continental-rails/victory.toml) ---------


class NetWorthBand(BaseModel):
    net_worth: int  # at least this net worth (game dollars) ...
    points: int  # ... scores this many VP a turn


class RobberBaronParams(BaseModel):
    bands: list[NetWorthBand]
    millionaire_net_worth: int  # the $1,000,000 of the rules, in game dollars
    millionaire_bonus: int


class MogulParams(BaseModel):
    president: int
    chairman: int
    director: int
    reorganized: int  # the president of a railroad reorganized this turn
    max_seat_points: int  # VP a turn from seats besides presidencies, largest holdings first
    # An office scores in full on a railroad worth at least this % of the
    # average railroad (market value), in proportion below (rounded down).
    full_weight_percent: int


class RegionBonus(BaseModel):
    """A bonus for linking any region of `a` with any region of `b`. One bonus
    may name several alternatives: the rules' Pacific-to-Gulf and
    Pacific-to-Mississippi are the same bonus."""

    id: str
    a: list[str]
    b: list[str]
    points: int

    def linked(self, regions: set[str]) -> bool:
        return not regions.isdisjoint(self.a) and not regions.isdisjoint(self.b)


class _Bonus(NamedTuple):
    """A `RegionBonus` as the points are worked out from it each turn: its
    regions as sets, its fields read without pydantic's attribute hook."""

    id: str
    a: frozenset[str]
    b: frozenset[str]
    points: int

    def linked(self, regions: set[str]) -> bool:
        return not regions.isdisjoint(self.a) and not regions.isdisjoint(self.b)


# `_bonus_table` by the bonuses' list (kept, so its id stays its own).
_BONUS_TABLES: dict[int, tuple[list[RegionBonus], tuple[_Bonus, ...]]] = {}


def _bonus_table(bonuses: list[RegionBonus]) -> tuple[_Bonus, ...]:
    """The bonuses of a section of victory.toml as `_Bonus`es, in their order,
    made once per section read."""
    found = _BONUS_TABLES.get(id(bonuses))
    if found is None or found[0] is not bonuses:
        if len(_BONUS_TABLES) >= 64:
            _BONUS_TABLES.clear()
        table = tuple(_Bonus(b.id, frozenset(b.a), frozenset(b.b), b.points) for b in bonuses)
        found = _BONUS_TABLES[id(bonuses)] = (bonuses, table)
    return found[1]


class BuilderParams(BaseModel):
    per_region: int
    first_multiplier: int
    bonuses: list[RegionBonus]


class MagnateParams(BaseModel):
    per_region: int
    bonuses: list[RegionBonus]


class ProdigalParams(BaseModel):
    points: int  # available each turn
    even_points: int  # of which divided evenly among the prodigals
    minimum: int  # spending that makes a prodigal
    loan_cover_percent: int  # spending is cut to cash less this % of the bank loan


class BankruptcyVPParams(BaseModel):
    """victory.toml [bankruptcy]: a tycoon who goes bankrupt (3.6) scores
    nothing in the turn and loses `robber_baron` VP (a negative number)."""

    robber_baron: int


class BaronParams(BaseModel):
    per_category: int  # the best in a category gets this many Rail Baron points


class GameEndParams(BaseModel):
    last_certain_turn: int  # the game surely goes on after this turn ...
    end_percent: int  # ... then ends after each later turn with this chance
    perfect_baron: int  # a record Rail Baron score this high replaces any record (11.3)


class VictoryParams(BaseModel):
    """victory.toml"""

    robber_baron: RobberBaronParams
    rail_mogul: MogulParams
    rail_builder: BuilderParams
    rail_magnate: MagnateParams
    rail_prodigal: ProdigalParams
    rail_baron: BaronParams
    game_end: GameEndParams
    bankruptcy: BankruptcyVPParams


def victory_params(scenario: Scenario) -> VictoryParams:
    return scenario.section("victory", VictoryParams)


# --- events --------------------------------------------------------------------


class VPAwarded(Event):
    """1.2 Victory points scored. `reason` is a code (net_worth, millionaire,
    president, chairman, director, reorganized, new_region, region_bonus,
    system, prodigal, baron); `detail` names the region, the bonus or the
    Magnate system ("NYC+PENN"); `first` marks points doubled for the first
    railroad to make that link. For Rail Baron, `points` is the new total."""

    kind: Literal["vp_awarded"] = "vp_awarded"
    position: int
    category: str
    points: int
    reason: str
    detail: str = ""
    first: bool = False
    news_order: ClassVar[int] = 130


_vp_awarded = maker(VPAwarded)


class GameEnded(Event):
    """1.3 The game ended after this turn."""

    kind: Literal["game_ended"] = "game_ended"
    turn: int
    news_order: ClassVar[int] = 0


class GameWon(Event):
    """1.3 The winner(s) of a category: most VP (several on a tie)."""

    kind: Literal["game_won"] = "game_won"
    category: str
    positions: list[int]
    score: int
    news_order: ClassVar[int] = 1


class RecordSet(Event):
    """11.3 A new record in a category over all games."""

    kind: Literal["record_set"] = "record_set"
    category: str
    positions: list[int]
    score: int
    news_order: ClassVar[int] = 2


# --- the categories ----------------------------------------------------------------


def _award(
    ctx: TurnContext,
    position: int,
    category: str,
    points: int,
    reason: str,
    railroad: str | None = None,
    detail: str = "",
    first: bool = False,
) -> None:
    if points == 0:
        return
    if points > 0 and position in bankrupt_this_turn(ctx):
        return  # [designed, issue 24] a bankrupt scores nothing in his bankruptcy's turn
    ctx.state.tycoon(position).vp[category] += points
    ctx.emit(
        _vp_awarded(
            {
                "position": position,
                "category": category,
                "points": points,
                "reason": reason,
                "railroad": railroad,
                "detail": detail,
                "first": first,
            }
        )
    )


def _events(ctx: TurnContext, kind: str) -> list[Any]:
    return ctx.events_of(kind)


def bankrupt_this_turn(ctx: TurnContext) -> set[int]:
    """The tycoons who went bankrupt this turn (3.6)."""
    return {event.position for event in _events(ctx, "bankruptcy")}


def bankruptcy_penalty(ctx: TurnContext, params: BankruptcyVPParams) -> None:
    """3.6, 1.2 [designed, issue 24: bankruptcy cost nothing, so a tycoon could
    borrow, spend, go bankrupt and start again every turn] A tycoon who went
    bankrupt this turn scores no VP in it (his Prodigal spending is lost to
    his creditors) and loses `robber_baron` VP in Robber Baron, his name as a
    man of fortune."""
    for pos in sorted(bankrupt_this_turn(ctx)):
        ctx.state.tycoon(pos).vp["robber_baron"] += params.robber_baron
        ctx.emit(
            _vp_awarded(
                {
                    "position": pos,
                    "category": "robber_baron",
                    "points": params.robber_baron,
                    "reason": "bankrupt",
                }
            )
        )


def turn_presidents(ctx: TurnContext) -> dict[str, int | None]:
    """Who presided each railroad during this turn (see the module docstring)."""
    presidents = {code: rr.president for code, rr in ctx.start.railroads.items()}
    for event in _events(ctx, "railroad_incorporated"):
        presidents[event.railroad] = event.position
    return presidents


def robber_baron_points(params: RobberBaronParams, worth: int) -> int:
    """1.2 Robber Baron VP for a net worth: the highest band reached."""
    points = 0
    for band in params.bands:
        if worth >= band.net_worth:
            points = max(points, band.points)
    return points


def robber_baron(ctx: TurnContext, params: RobberBaronParams) -> None:
    """1.2 Robber Baron: VP by net worth at the end of the turn, and a bonus to
    the first tycoon(s) worth more than $1,000,000 — historical dollars, i.e.
    $10,000 in the game [designed: a fortune of the era; game dollars would be
    $100 million, Vanderbilt's whole estate]."""
    state = ctx.state
    lent = loans_by_lender(state)
    worths = {t.position: net_worth(state, ctx.scenario, t.position, lent) for t in state.tycoons}
    for pos, worth in worths.items():
        _award(ctx, pos, "robber_baron", robber_baron_points(params, worth), "net_worth")
    if not state.first_millionaires:
        rich = [pos for pos, worth in worths.items() if worth > params.millionaire_net_worth]
        for pos in rich:
            _award(ctx, pos, "robber_baron", params.millionaire_bonus, "millionaire")
        state.first_millionaires = rich


def rail_mogul(ctx: TurnContext, params: MogulParams) -> None:
    """1.2 Rail Mogul: VP to the president, chairman and other directors of each
    railroad as at the start of the turn; none for a railroad that owes its
    (start-of-turn) president money at the end of the turn; the president of a
    railroad reorganized this turn loses 5 [original].

    A seat needs weight [designed, issue 12: token 10% stakes in every railroad
    scored a point a turn each, without limit]: a chairman's or director's
    seat scores only on a railroad that made a profit this turn (Pft/sh above
    zero). Offices are weighed by holdings, not counted [designed, issue 24:
    two presidencies and three chairmanships of the smallest railroads scored
    as much as those of the largest]: an office scores in full only on a
    railroad whose market value at the start of the turn is at least
    `full_weight_percent` of the average railroad's, below that in proportion
    (rounded down); and a tycoon's seats besides his presidencies score
    together at most `max_seat_points` VP a turn, his largest holdings (market
    value at the start of the turn) first."""
    end = ctx.state.railroads
    seats: dict[int, list[tuple[int, int, str, str]]] = {}
    worth = {code: rr.price * rr.issued for code, rr in ctx.start.railroads.items()}
    full = sum(worth.values()) * params.full_weight_percent // (100 * max(1, len(worth)))

    def weighed(points: int, code: str) -> int:
        if worth[code] >= full:
            return points
        return points * worth[code] // max(1, full)

    for code, rr in sorted(ctx.start.railroads.items()):
        now = end.get(code)
        if (
            now is not None
            and rr.president is not None
            and now.owed_to_president > 0
            and now.lender == rr.president
        ):
            continue
        profitable = now is not None and now.earnings > 0
        for pos in sorted(set(rr.directors) | {p for p in (rr.president, rr.chairman) if p}):
            if pos == rr.president:
                _award(ctx, pos, "rail_mogul", weighed(params.president, code), "president", code)
            elif not profitable:
                continue
            else:
                role = "chairman" if pos == rr.chairman else "director"
                points = weighed(params.chairman if role == "chairman" else params.director, code)
                held = ctx.start.tycoon(pos).holdings.get(code, 0) * rr.price
                seats.setdefault(pos, []).append((points, held, role, code))
    for pos, held_seats in sorted(seats.items()):
        left = params.max_seat_points
        for points, _, role, code in sorted(held_seats, key=lambda s: (-s[1], -s[0], s[3])):
            scored = min(points, left)
            _award(ctx, pos, "rail_mogul", scored, role, code)
            left -= scored
    for event in _events(ctx, "railroad_reorganized"):
        if event.president is not None:
            _award(
                ctx,
                event.president,
                "rail_mogul",
                params.reorganized,
                "reorganized",
                event.railroad,
            )


def start_regions(ctx: TurnContext) -> dict[str, set[str]]:
    """1.2 Regions each railroad linked at the start of the turn. A railroad
    founded this turn starts with its PC's regions (incorporating scores no
    Builder points); a merger's survivor starts with the regions of both
    railroads (the rules: regions "not connected to either railroad")."""
    scenario = ctx.scenario
    regions: dict[str, set[str]] = {
        code: regions_linked(scenario, rr.lines) for code, rr in ctx.start.railroads.items()
    }

    def of(code: str) -> set[str]:
        if code not in regions:
            regions[code] = regions_linked(scenario, [code]) if code in scenario.routes else set()
        return regions[code]

    for event in _events(ctx, "railroads_merged"):
        absorbed = event.absorbed if isinstance(event.absorbed, list) else [event.absorbed]
        merged = of(event.railroad)
        for code in absorbed:
            merged |= of(code)
    for code in ctx.state.railroads:
        of(code)
    return regions


def _record_links(
    state: GameState, linked: Iterable[tuple[str, set[str]]], params: BuilderParams
) -> None:
    """Regions and bonus links already made (by the starting railroads, or by
    incorporation) are recorded as first links without scoring."""
    # The bonuses no railroad has linked yet, in the parameters' order: once
    # all are linked (mid-game) no railroad is tested against them again.
    recorded = state.first_bonus_pairs
    first_links = state.first_region_links
    pending = [bonus for bonus in _bonus_table(params.bonuses) if bonus.id not in recorded]
    for code, regions in linked:
        for region in sorted(regions):
            first_links.setdefault(region, code)
        if not pending:
            continue
        for bonus in pending:
            if bonus.id not in recorded and bonus.linked(regions):
                recorded.append(bonus.id)
        pending = [bonus for bonus in pending if bonus.id not in recorded]


def rail_builder(
    ctx: TurnContext, params: BuilderParams, presidents: dict[str, int | None]
) -> dict[str, set[str]]:
    """1.2 Rail Builder: 2 VP per region a railroad links that it did not at the
    start of the turn, doubled if it is the first railroad ever to link it;
    region-pair bonuses newly linked, doubled for the first railroad to link
    the pair, each bonus at most once per tycoon [original]. Railroads linking
    the same region (or pair) first in the same turn are all first [designed:
    the turn is simultaneous]. Returns the regions each railroad links at the
    end of the turn."""
    state = ctx.state
    scenario = ctx.scenario
    before = start_regions(ctx)
    _record_links(state, sorted(before.items()), params)
    after = {code: regions_linked(scenario, rr.lines) for code, rr in state.railroads.items()}
    known_regions = set(state.first_region_links)
    known_bonuses = set(state.first_bonus_pairs)
    newly: dict[str, set[str]] = {code: after[code] - before[code] for code in after}
    for code in sorted(after):
        pos = presidents.get(code)
        if pos is None:
            continue
        tycoon = state.tycoon(pos)
        for region in sorted(newly[code]):
            first = region not in known_regions
            points = params.per_region * (params.first_multiplier if first else 1)
            _award(ctx, pos, "rail_builder", points, "new_region", code, region, first)
        if after[code] <= before[code]:
            continue  # no new region, so no bonus newly linked
        for bonus in _bonus_table(params.bonuses):
            if not bonus.linked(after[code]) or bonus.linked(before[code]):
                continue
            if bonus.id in tycoon.builder_bonuses:
                continue
            first = bonus.id not in known_bonuses
            points = bonus.points * (params.first_multiplier if first else 1)
            tycoon.builder_bonuses.append(bonus.id)
            _award(ctx, pos, "rail_builder", points, "region_bonus", code, bonus.id, first)
    _record_links(state, sorted(after.items()), params)
    return after


def system_score(params: MagnateParams, regions: set[str]) -> int:
    """1.2 Rail Magnate VP for a railroad system linking `regions`."""
    bonus = sum(b.points for b in _bonus_table(params.bonuses) if b.linked(regions))
    return params.per_region * len(regions) + bonus


def rail_magnate(
    ctx: TurnContext, params: MagnateParams, presidents: dict[str, int | None]
) -> None:
    """1.2 Rail Magnate: each turn, VP for the regions of the president's
    system — one railroad, or two connected railroads he presides — plus the
    bonuses that system links [original; bonuses designed]. Of two
    unconnected railroads "the one with the most Regions is evaluated"
    [original], whatever bonuses the other links; on equal regions the one
    scoring more counts [designed]. Two connected railroads link at least the
    regions of either, so the system of both is evaluated."""
    state = ctx.state
    scenario = ctx.scenario
    by_president: dict[int, list[str]] = {}
    for code in sorted(state.railroads):
        pos = presidents.get(code)
        if pos is not None:
            by_president.setdefault(pos, []).append(code)
    for pos, codes in sorted(by_president.items()):
        systems = [[code] for code in codes]
        towns = {code: towns_of(scenario, state.railroads[code].lines) for code in codes}
        for i, first in enumerate(codes):
            for second in codes[i + 1 :]:
                if not towns[first].isdisjoint(towns[second]):
                    systems.append([first, second])
        _, best_score, best = max(
            (len(regions), system_score(params, regions), "+".join(system))
            for system in systems
            for regions in [_system_regions(ctx, system)]
        )
        _award(ctx, pos, "rail_magnate", best_score, "system", detail=best)


def _system_regions(ctx: TurnContext, system: list[str]) -> set[str]:
    lines = [line for code in system for line in ctx.state.railroads[code].lines]
    return regions_linked(ctx.scenario, lines)


def prodigal_allocation(params: ProdigalParams, spent: dict[int, int]) -> dict[int, int]:
    """1.2 Rail Prodigal [original]: of the points available, `even_points` are
    divided evenly among everyone spending at least the minimum (rounded
    down); the leftover plus the rest go in proportion to each prodigal's share
    of the spending (rounded down); points still left go one each from the
    biggest spender down (equal spenders: lower position first [designed])."""
    prodigals = sorted(
        (pos for pos, amount in spent.items() if amount >= params.minimum),
        key=lambda pos: (-spent[pos], pos),
    )
    if not prodigals:
        return {}
    even = params.even_points // len(prodigals)
    points = dict.fromkeys(prodigals, even)
    pool = params.points - even * len(prodigals)
    total = sum(spent[pos] for pos in prodigals)
    for pos in prodigals:
        points[pos] += pool * spent[pos] // total
    left = params.points - sum(points.values())
    for i in range(left):
        points[prodigals[i % len(prodigals)]] += 1
    return points


def rail_prodigal(ctx: TurnContext, params: ProdigalParams) -> None:
    """1.2 Rail Prodigal: the turn's points shared among the big spenders."""
    spent: dict[int, int] = {}
    bankrupt = bankrupt_this_turn(ctx)
    for event in _events(ctx, "prodigal_spent"):
        if event.position in bankrupt:
            continue  # [designed, issue 24] his spending is his creditors' loss: no points
        spent[event.position] = spent.get(event.position, 0) + event.amount
    for pos, points in sorted(prodigal_allocation(params, spent).items()):
        _award(ctx, pos, "rail_prodigal", points, "prodigal")


def rail_baron_scores(params: BaronParams, state: GameState) -> dict[int, int]:
    """1.2 Rail Baron: for each of the other five categories, 100 x the
    tycoon's score / the best score, each term rounded down [designed: the
    rules' fractions round down]; a category where nobody has more than zero
    gives nothing, and a negative score counts as zero."""
    scores = dict.fromkeys((t.position for t in state.tycoons), 0)
    for category in VP_CATEGORIES:
        if category == "rail_baron":
            continue
        best = max(t.vp[category] for t in state.tycoons)
        if best <= 0:
            continue
        for t in state.tycoons:
            scores[t.position] += params.per_category * max(0, t.vp[category]) // best
    return scores


def rail_baron(ctx: TurnContext, params: BaronParams) -> None:
    """1.2 Rail Baron: recomputed each turn, never cumulative (at most 500)."""
    for pos, score in sorted(rail_baron_scores(params, ctx.state).items()):
        tycoon = ctx.state.tycoon(pos)
        tycoon.vp["rail_baron"] = score
        if score:
            ctx.emit(
                _vp_awarded(
                    {"position": pos, "category": "rail_baron", "points": score, "reason": "baron"}
                )
            )


def victory_points(ctx: TurnContext) -> None:
    """1.2 Victory points for the turn, then each railroad's regions are
    recorded for the next turn's report."""
    params = victory_params(ctx.scenario)
    presidents = turn_presidents(ctx)
    robber_baron(ctx, params.robber_baron)
    rail_mogul(ctx, params.rail_mogul)
    linked = rail_builder(ctx, params.rail_builder, presidents)
    rail_magnate(ctx, params.rail_magnate, presidents)
    rail_prodigal(ctx, params.rail_prodigal)
    bankruptcy_penalty(ctx, params.bankruptcy)
    rail_baron(ctx, params.rail_baron)
    # The categories after Rail Builder change no railroad's lines, so the
    # regions it found at the end of the turn are the ones to record.
    for code, rr in ctx.state.railroads.items():
        rr.regions = sorted(linked[code])


# --- 1.3 game end, 11.3 records ------------------------------------------------------


def game_ends(state: GameState, params: GameEndParams) -> bool:
    """1.3 Whether the game ends after this turn: never up to turn 20, then with
    a 25% chance after each turn [original]."""
    if state.turn <= params.last_certain_turn:
        return False
    return rng.stream(state.seed, state.turn, "game-end").randrange(100) < params.end_percent


def game_end(ctx: TurnContext) -> None:
    """1.3 The random game end after turn 20; category winners; records (11.3).

    At the end open short sales are covered at the final price (6.2)."""
    params = victory_params(ctx.scenario).game_end
    state = ctx.state
    if state.ended or not game_ends(state, params):
        return
    cover_all_shorts(ctx)
    state.ended = True
    ctx.emit(GameEnded(turn=state.turn))
    for category in VP_CATEGORIES:
        best = max(t.vp[category] for t in state.tycoons)
        winners = [t.position for t in state.tycoons if t.vp[category] == best]
        ctx.emit(GameWon(category=category, positions=winners, score=best))
        if _beats_record(state, category, best, params):
            state.records = [r for r in state.records if r.category != category] + [
                RecordHolder(
                    category=category,
                    score=best,
                    character=state.tycoon(pos).character,
                    game=state.game,
                )
                for pos in winners
            ]
            ctx.emit(RecordSet(category=category, positions=winners, score=best))


def _beats_record(state: GameState, category: str, score: int, params: GameEndParams) -> bool:
    """11.3 A higher score sets a record; a perfect Rail Baron score (500)
    replaces any record holder, even an earlier 500 [original]."""
    return _beats(state.records, category, score, params)


def _beats(records: list[RecordHolder], category: str, score: int, params: GameEndParams) -> bool:
    if score <= 0:
        return False
    old = [r.score for r in records if r.category == category]
    if not old:
        return True
    if category == "rail_baron" and score >= params.perfect_baron:
        return True
    return score > max(old)


def merge_records(
    records: list[RecordHolder], later: list[RecordHolder], params: GameEndParams
) -> list[RecordHolder]:
    """11.3 The records over all games: `later` (the records a game ended with)
    folded into `records` (those of games that ended before it) by the same
    rule a game's end applies."""
    merged = list(records)
    for category in VP_CATEGORIES:
        holders = [r for r in later if r.category == category]
        if holders and _beats(merged, category, holders[0].score, params):
            merged = [r for r in merged if r.category != category] + holders
    return merged
