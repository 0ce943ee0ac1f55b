"""Figures of games played between computer players: how each ended, what the
players scored, how many companies floated, trains bought and lost to rust,
bankruptcies; and their distribution over many games (`turnproc 18xx simulate`).
"""

import statistics
from dataclasses import dataclass

from turnproc.families.g18xx.ai import Outcome
from turnproc.families.g18xx.engine.game import Game


@dataclass(frozen=True)
class GameFigures:
    seed: int
    ended: bool
    end_reason: str | None
    operating_rounds: int
    scores: tuple[int, ...]  # highest first
    floated: int
    trains_bought: int
    trains_rusted: int  # trains bought that rusted later
    bankrupt: int
    money_conserved: bool
    seconds: float  # CPU time to play the game (not part of any test)


def game_figures(game: Game, outcome: Outcome, seed: int, seconds: float) -> GameFigures:
    """The figures of one finished game, read from the game and its actions."""
    bought = [a for a in outcome.actions if a.type == "buy_train"]
    bought_ids = {str(getattr(a, "train", "")) for a in bought}
    rusted = sum(1 for t in game.trains if t.rusted and t.id in bought_ids)
    return GameFigures(
        seed=seed,
        ended=outcome.ended,
        end_reason=outcome.end_reason,
        operating_rounds=game.operating_round,
        scores=tuple(sorted(outcome.scores.values(), reverse=True)),
        floated=sum(1 for s in game.companies.values() if s.floated),
        trains_bought=len(bought),
        trains_rusted=rusted,
        bankrupt=len(game.bankrupt),
        money_conserved=outcome.money_conserved and game.money_is_conserved(),
        seconds=seconds,
    )


def quartiles(values: list[int]) -> tuple[int, int, int, int, int]:
    """Least, lower quartile, median, upper quartile, most."""
    ordered = sorted(values)
    if len(ordered) == 1:
        only = ordered[0]
        return (only, only, only, only, only)
    low, mid, high = statistics.quantiles(ordered, n=4, method="inclusive")
    return (ordered[0], round(low), round(mid), round(high), ordered[-1])


def summary(title: str, players: int, games: list[GameFigures]) -> list[str]:
    """The distribution over the games, a few lines of text."""
    scores = [s for g in games for s in g.scores]
    winners = [g.scores[0] for g in games]
    ends: dict[str, int] = {}
    for g in games:
        reason = g.end_reason if g.ended else "not finished"
        ends[str(reason)] = ends.get(str(reason), 0) + 1
    n = len(games)

    def spread(values: list[int]) -> str:
        least, low, mid, high, most = quartiles(values)
        return f"${least:,} / ${low:,} / ${mid:,} / ${high:,} / ${most:,}"

    return [
        f"{title}, {players} players, {n} games (seeds {games[0].seed}-{games[-1].seed}):",
        f"  scores, least/quartile/median/quartile/most: {spread(scores)}",
        f"  winners' scores: {spread(winners)}",
        "  ends: " + ", ".join(f"{reason} {count}" for reason, count in sorted(ends.items())),
        f"  operating rounds {sum(g.operating_rounds for g in games) / n:.1f},"
        f" companies floated {sum(g.floated for g in games) / n:.1f},"
        f" trains bought {sum(g.trains_bought for g in games) / n:.1f},"
        f" trains lost to rust {sum(g.trains_rusted for g in games) / n:.1f} (a game on average)",
        f"  bankruptcies {sum(g.bankrupt for g in games)},"
        f" money not conserved {sum(not g.money_conserved for g in games)}",
        f"  CPU time a game {sum(g.seconds for g in games) / n:.1f}s"
        f" (most {max(g.seconds for g in games):.1f}s)",
    ]
