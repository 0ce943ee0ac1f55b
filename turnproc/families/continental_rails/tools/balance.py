"""Balance measurement: simulate many games and draw docs/balance.md's figures.

    python -m turnproc.families.continental_rails.tools.balance --games 200 --out docs/balance

plays the games (computer players through the engine, seeded), writes
`summary.json`, one PNG per figure and `results.md` (the tables) into the
folder, and replaces the generated part of docs/balance.md (between the
`<!-- results:start -->` and `<!-- results:end -->` markers) with them.
Same seed and games, same figures and tables.
"""

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from turnproc.families.continental_rails.engine.state import VP_CATEGORIES
from turnproc.families.continental_rails.tools.simulate import (
    GameStats,
    aggregate,
    simulate,
    western_regions,
)
from turnproc.scenario.loader import load_scenario

START = "<!-- results:start -->"
END = "<!-- results:end -->"

# Targets from the published games (docs/balance.md explains each).
PC_BAND = (1400, 11000)
PRICE_BAND = (10, 100)
PERSONALITIES = ("builder", "speculator", "prodigal", "cautious", "mogul", "magnate")


def _turns(results: list[GameStats]) -> list[int]:
    return sorted({r.turn for g in results for r in g.history})


def _by_turn(results: list[GameStats], field: str) -> dict[int, list[float]]:
    values: dict[int, list[float]] = {}
    for g in results:
        for r in g.history:
            values.setdefault(r.turn, []).append(float(getattr(r, field)))
    return values


def draw_figures(results: list[GameStats], out: Path) -> list[str]:
    """Every figure as a PNG in `out`; returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names: list[str] = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        names.append(name)

    # 1. PC auction prices, turns 7-8 and every turn.
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    mid = [p for g in results for r in g.history if r.turn in (7, 8) for p in r.pc_prices]
    if mid:
        left.hist(mid, bins=30, color="#4a7ab0")
    left.axvspan(*PC_BAND, color="#f0c040", alpha=0.25, label="most real prices")
    left.set_title("PC auction prices, turns 7-8")
    left.set_xlabel("price ($)")
    left.legend()
    turns = _turns(results)
    data = [
        [p for g in results for r in g.history if r.turn == t for p in r.pc_prices] for t in turns
    ]
    shown = [(t, d) for t, d in zip(turns, data, strict=True) if d]
    if shown:
        right.boxplot([d for _, d in shown], positions=[t for t, _ in shown], showfliers=False)
    right.axhspan(*PC_BAND, color="#f0c040", alpha=0.25)
    right.set_xticks([t for t in turns if t % 5 == 0], [str(t) for t in turns if t % 5 == 0])
    right.set_title("PC auction prices by turn")
    right.set_xlabel("turn")
    right.set_ylabel("price ($)")
    save(fig, "pc_prices.png")

    # 2. Stock prices: distribution and percentiles by turn.
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    prices = [p for g in results for r in g.history for p in r.stock_prices]
    left.hist(prices, bins=range(0, 110, 2), color="#4a7ab0")
    left.axvspan(*PRICE_BAND, color="#f0c040", alpha=0.25, label="target $10-$100")
    left.set_title("End-of-turn stock prices (all railroads, all turns)")
    left.set_xlabel("price ($)")
    left.legend()
    for q, style in ((0.1, ":"), (0.5, "-"), (0.9, "--")):
        line = []
        for t in turns:
            at = sorted(
                p for g in results for r in g.history if r.turn == t for p in r.stock_prices
            )
            line.append(at[min(len(at) - 1, int(q * len(at)))] if at else 0)
        right.plot(turns, line, style, color="#4a7ab0", label=f"{int(q * 100)}th percentile")
    splits = _by_turn(results, "splits")
    ax2 = right.twinx()
    ax2.bar(
        turns, [sum(splits.get(t, [])) / len(results) for t in turns], color="#c05050", alpha=0.3
    )
    ax2.set_ylabel("splits per game", color="#c05050")
    right.set_title("Stock prices by turn (bars: splits)")
    right.set_xlabel("turn")
    right.legend(loc="upper left")
    save(fig, "stock_prices.png")

    # 3. Climate: mean by turn, moves, a few paths.
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for g in results[:6]:
        left.plot([r.turn for r in g.history], [r.climate for r in g.history], alpha=0.6)
    climate = _by_turn(results, "climate")
    left.plot(
        turns, [statistics.mean(climate[t]) for t in turns], color="black", lw=2, label="mean"
    )
    left.invert_yaxis()
    left.set_yticks(range(9))
    left.set_yticklabels(
        ["Boom", "Great", "Good", "Improved", "Normal", "Recession", "Mild Dep.", "Depr.", "Panic"]
    )
    left.set_title("Climate at the end of each turn (six games; black: mean of all)")
    left.set_xlabel("turn")
    left.legend()
    moves = Counter(
        b.climate - a.climate
        for g in results
        for a, b in zip(g.history, g.history[1:], strict=False)
    )
    keys = sorted(moves)
    right.bar(keys, [moves[k] for k in keys], color="#4a7ab0")
    right.set_title("Climate change in one turn (+ = worse)")
    right.set_xlabel("levels")
    save(fig, "climate.png")

    # 4. Loan recalls and bankruptcies by turn.
    fig, ax = plt.subplots(figsize=(8, 3.5))
    recalls = _by_turn(results, "loan_recalls")
    broke = _by_turn(results, "bankruptcies")
    ax.bar(
        turns,
        [sum(recalls[t]) / len(results) for t in turns],
        label="loan recalls",
        color="#c08040",
    )
    ax.plot(turns, [sum(broke[t]) / len(results) for t in turns], "k.-", label="bankruptcies")
    ax.set_title("Loan recalls and bankruptcies per game, by turn")
    ax.set_xlabel("turn")
    ax.legend()
    save(fig, "recalls.png")

    # 5. Building east and west; regions first linked.
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    east = _by_turn(results, "rows_built_east")
    west = _by_turn(results, "rows_built_west")
    left.bar(turns, [sum(east[t]) / len(results) for t in turns], label="east", color="#4a7ab0")
    left.bar(
        turns,
        [sum(west[t]) / len(results) for t in turns],
        bottom=[sum(east[t]) / len(results) for t in turns],
        label="west",
        color="#c05050",
    )
    left.axvspan(10.5, 12.5, color="grey", alpha=0.2, label="Civil War")
    left.set_title("RoWs built per game, by turn")
    left.set_xlabel("turn")
    left.legend()
    reg_e = _by_turn(results, "regions_east")
    reg_w = _by_turn(results, "regions_west")
    left_cum = right_cum = 0.0
    cum_e, cum_w = [], []
    for t in turns:
        left_cum += sum(reg_e[t]) / len(results)
        right_cum += sum(reg_w[t]) / len(results)
        cum_e.append(left_cum)
        cum_w.append(right_cum)
    n_west = len(western_regions(load_scenario("continental-rails")))
    right.plot(turns, cum_e, label=f"eastern regions (of {13 - n_west})")
    right.plot(turns, cum_w, label=f"western regions (of {n_west})")
    right.axvspan(10.5, 12.5, color="grey", alpha=0.2)
    right.set_title("Regions linked by some railroad (mean per game)")
    right.set_xlabel("turn")
    right.legend()
    save(fig, "building.png")

    # 6. Game length.
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ends = Counter(g.history[-1].turn for g in results if g.ended and g.history)
    keys = sorted(ends)
    ax.bar(keys, [ends[k] for k in keys], color="#4a7ab0")
    ax.set_title("Last turn played (random end after turn 20)")
    ax.set_xlabel("turn")
    save(fig, "game_length.png")

    # 7. Category winners by personality.
    fig, ax = plt.subplots(figsize=(9, 4))
    wins = {
        c: Counter(w.personality for g in results for w in g.winners.get(c, []))
        for c in VP_CATEGORIES
    }
    bottom = [0] * len(VP_CATEGORIES)
    for personality in PERSONALITIES:
        heights = [wins[c][personality] for c in VP_CATEGORIES]
        ax.bar(VP_CATEGORIES, heights, bottom=bottom, label=personality)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_title("Category winners by personality")
    ax.legend(ncol=3, fontsize=8)
    ax.tick_params(axis="x", labelrotation=20)
    save(fig, "winners.png")

    # 8. Final net worth by personality.
    fig, ax = plt.subplots(figsize=(8, 3.5))
    worth: dict[str, list[int]] = {p: [] for p in PERSONALITIES}
    for g in results:
        for position, value in g.net_worth.items():
            worth[g.personalities[position]].append(value)
    ax.boxplot([worth[p] for p in PERSONALITIES], showfliers=False)
    ax.set_xticks(range(1, len(PERSONALITIES) + 1), PERSONALITIES)
    ax.set_title("Net worth at the game's end, by personality")
    ax.set_ylabel("$")
    save(fig, "net_worth.png")
    return names


def _recalls_per_fall(s: dict[str, Any], low: int, high: int) -> str:
    """Loan recalls per turn in turns whose climate fell `low`..`high` levels."""
    rows = [v for k, v in s["loan_recalls_by_climate_fall"].items() if low <= int(k) <= high]
    turns = sum(v["turns"] for v in rows)
    if not turns:
        return "-"
    recalls = sum(v["recalls"] for v in rows)
    return f"{recalls / turns:.2f} ({turns} turns)"


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def results_markdown(summary: dict[str, Any], figures: list[str], folder: str, out: str) -> str:
    """The generated tables and figure links for docs/balance.md."""
    s = summary
    pc = s["pc_price_turns_7_8"]
    price = s["stock_price"]
    lines = [
        "Generated by `python -m turnproc.families.continental_rails.tools.balance "
        f"--games {s['games']} --out {out}` "
        f"(seed {s['seed']}).",
        "",
        "| Measure | Target (real games) | Simulated |",
        "|---|---|---|",
        f"| Games played / crashed | - | {s['games']} / {s['crashed']} |",
        f"| Conservation failures (money, shares; every step of every turn) | 0 | "
        f"{s['conservation_failures']} |",
        f"| PC auction prices, turns 7-8: p10 / median / p90 | mostly $1,400-$11,000 | "
        f"${_fmt(pc['p10'])} / ${_fmt(pc['median'])} / ${_fmt(pc['p90'])} |",
        "| ... share within $1,400-$11,000 | most | "
        f"{_fmt(s['pc_price_turns_7_8_in_1400_11000'])} |",
        f"| Stock prices: p10 / median / p90 | mostly $10-$100 | ${_fmt(price['p10'])} / "
        f"${_fmt(price['median'])} / ${_fmt(price['p90'])} |",
        f"| ... share within $10-$100 | most | {_fmt(s['stock_price_in_10_100'])} |",
        f"| Splits per game | some | {_fmt(s['splits_per_game'])} |",
        f"| Mean climate move per turn (levels) | about 1 | {_fmt(s['climate_mean_move'])} |",
        f"| Moves of at most one level | most | {_fmt(s['climate_moves_of_one_or_less'])} |",
        f"| Panics straight after Good or better | some | {s['panics_after_good']} |",
        f"| Loan recalls per game / most in one turn | 3-4 in a bad turn | "
        f"{_fmt(s['loan_recalls_per_game'])} / {s['loan_recalls_max_in_a_turn']} |",
        "| ... per turn the climate fell 4+ levels (panic) / 1-3 levels / did not fall | "
        f"3-4 in a bad turn | {_recalls_per_fall(s, 4, 8)} / {_recalls_per_fall(s, 1, 3)} / "
        f"{_recalls_per_fall(s, 0, 0)} |",
        "| ... per turn the climate fell 2-3 levels (not a panic) | some (issue 12) | "
        f"{_recalls_per_fall(s, 2, 3)} |",
        "| ... share of recalls in turns the climate fell | most | "
        f"{_fmt(s['loan_recalls_share_in_falls'])} |",
        "| Railroad reorganizations per game / games with one | in a third of games or more "
        f"(issue 12) | {_fmt(s.get('reorganizations_per_game'))} / "
        f"{_fmt(s.get('games_with_reorganization'))} |",
        f"| Bankruptcies per game / games with one | no spiral | "
        f"{_fmt(s['bankruptcies_per_game'])} / {s['games_with_bankruptcy']} |",
        f"| Games ended by the rules / mean last turn / earliest | 21+, mean about 24 | "
        f"{s['ended_by_rules']} / {_fmt(s['end_turn_mean'])} / {_fmt(s['end_turn_min'])} |",
        f"| RoWs built per game, turns 1-10 east / west | east first | "
        f"{_fmt(s['rows_built_1_10']['east'])} / {_fmt(s['rows_built_1_10']['west'])} |",
        f"| RoWs built per game, turns 13+ east / west | west after the war | "
        f"{_fmt(s['rows_built_13_on']['east'])} / {_fmt(s['rows_built_13_on']['west'])} |",
        "",
        "Category winners by personality (ties count for each leader):",
        "",
        "| Category | " + " | ".join(PERSONALITIES) + " |",
        "|---|" + "---|" * len(PERSONALITIES),
    ]
    for category, counts in s["winners_by_personality"].items():
        cells = " | ".join(str(counts.get(p, 0)) for p in PERSONALITIES)
        lines.append(f"| {category} | {cells} |")
    lines += [
        "",
        "Mean victory points at the end, by personality:",
        "",
        "| Personality | " + " | ".join(VP_CATEGORIES) + " | median net worth |",
        "|---|" + "---|" * (len(VP_CATEGORIES) + 1),
    ]
    for personality in PERSONALITIES:
        vp = s["vp_mean_by_personality"].get(personality, {})
        worth = s["net_worth_median_by_personality"].get(personality)
        cells = " | ".join(_fmt(vp.get(c)) for c in VP_CATEGORIES)
        dollars = "-" if worth is None else f"${worth:,.0f}"  # a median may end in .5
        lines.append(f"| {personality} | {cells} | {dollars} |")
    lines += ["", "Orders refused or cut (all games):", ""]
    lines.append(
        ", ".join(f"{code} {count:,}" for code, count in sorted(s["rejections"].items())) or "none"
    )
    lines.append("")
    for name in figures:
        lines.append(f"![{name[:-4].replace('_', ' ')}]({folder}/{name})")
        lines.append("")
    return "\n".join(lines)


def extend_summary(summary: dict[str, Any], results: list[GameStats], seed: int) -> None:
    """Figures the balance document needs beyond the simulate command's summary."""
    played = [g for g in results if g.history] or results
    n = max(1, len(played))

    def rows(turns: range) -> dict[str, float]:
        east = sum(r.rows_built_east for g in played for r in g.history if r.turn in turns)
        west = sum(r.rows_built_west for g in played for r in g.history if r.turn in turns)
        return {"east": round(east / n, 2), "west": round(west / n, 2)}

    summary["seed"] = seed
    summary["rows_built_1_10"] = rows(range(1, 11))
    summary["rows_built_13_on"] = rows(range(13, 100))


def update_document(doc: Path, generated: str) -> None:
    text = doc.read_text(encoding="utf-8") if doc.is_file() else f"# Balance\n\n{START}\n{END}\n"
    if START not in text or END not in text:
        text = text.rstrip() + f"\n\n{START}\n{END}\n"
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    doc.write_text(f"{head}{START}\n{generated}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m turnproc.families.continental_rails.tools.balance", description=__doc__
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenario", default="continental-rails")
    parser.add_argument("--out", type=Path, default=Path("docs/balance"))
    parser.add_argument("--doc", type=Path, default=Path("docs/balance.md"))
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    done = 0

    def progress(_stats: GameStats) -> None:
        nonlocal done
        done += 1
        print(f"\rgames played: {done}/{args.games}", end="", file=sys.stderr, flush=True)

    results = simulate(
        args.scenario, args.games, args.turns, args.seed, workers=args.workers, on_game=progress
    )
    print(file=sys.stderr)
    summary = aggregate(results)
    extend_summary(summary, results, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    figures = draw_figures(results, args.out)
    try:
        folder = str(args.out.resolve().relative_to(args.doc.resolve().parent))
    except ValueError:
        folder = str(args.out)
    generated = results_markdown(summary, figures, folder, str(args.out))
    (args.out / "results.md").write_text(generated + "\n", encoding="utf-8")
    update_document(args.doc, generated)
    failed = summary["crashed"] or summary["conservation_failures"]
    if failed:
        print(
            f"balance: {summary['crashed']} game(s) crashed, "
            f"{summary['conservation_failures']} conservation failure(s)",
            file=sys.stderr,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
