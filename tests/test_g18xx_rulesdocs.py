"""docs/rules-18ms.md and docs/rules-18ga.md quote the titles' numbers: each
table under a `<!-- data: NAME -->` line must say what the title data says
(every column but the last, which names the source), row for row, so the
references and turnproc/families/g18xx/titles/*/title.json cannot drift."""

import re
from pathlib import Path

import pytest

from turnproc.families.g18xx.engine.game import PrivateState
from turnproc.families.g18xx.engine.market import parse_market
from turnproc.families.g18xx.engine.title import Hex, Title
from turnproc.families.g18xx.titles.load import load_title, rules_for

DOCS = Path(__file__).resolve().parent.parent / "docs"
REFERENCES = {"18MS": DOCS / "rules-18ms.md", "18GA": DOCS / "rules-18ga.md"}
MARKERS = ("**[seed", "**[map/charts", "**[designed")

Row = tuple[str, ...]


def money(amount: int) -> str:
    return f"${amount:,}"


def doc_tables(text: str) -> dict[str, list[Row]]:
    """Each `<!-- data: NAME -->` table's body rows, without the last column."""
    tables: dict[str, list[Row]] = {}
    for match in re.finditer(r"<!-- data: (\S+) -->\n\n?((?:\|.*\n)+)", text):
        lines = match.group(2).splitlines()[2:]  # past the header and its rule
        rows = [tuple(c.strip() for c in line.strip().strip("|").split("|")) for line in lines]
        assert match.group(1) not in tables, f"two tables named {match.group(1)}"
        tables[match.group(1)] = [row[:-1] for row in rows]
    return tables


def seats(title: Title) -> list[Row]:
    return [
        (n, money(s.cash), str(s.certificates))
        for n, s in sorted(title.players.items(), key=lambda i: int(i[0]))
    ]


def numbers(title: Title) -> list[Row]:
    grid = parse_market(title.market)
    prices = [c.price for row in grid for c in row]
    rows: list[Row] = []
    if title.title == "18MS":
        for edition in ("1.0", "18xx.games"):
            bank = rules_for("18MS", {"edition": edition}).bank_cash()
            rows.append((f"Bank, edition {edition}", money(bank)))
    else:
        rows.append(("Bank", money(title.bank)))
    rows += [
        ("Shares of a company", f"{title.shares_per_company} of 10%"),
        ("Floats when sold from the initial offering", f"{title.float_percent}%"),
        ("Most a player may hold of one company", f"{title.holding_limit_percent}%"),
        ("Most the open market may hold of one company", f"{title.market_pool_limit_percent}%"),
        ("Par values", ", ".join(money(p) for p in title.par_prices)),
        ("Stock market rows", str(len(grid))),
        ("Longest stock market row", f"{max(len(r) for r in grid)} cells"),
        ("Lowest market price", money(min(prices))),
        ("Highest market price", money(max(prices))),
    ]
    ends = [c.price for row in grid for c in row if c.end]
    if ends:
        rows.append(("Market price that ends the game", money(min(ends))))
    if title.last_operating_round:
        rows.append(("Operating rounds in the game", str(title.last_operating_round)))
    return rows


def market(title: Title) -> list[Row]:
    def cell(text: str) -> str:
        price, *flags = text.split()
        return price + "".join(f[0] for f in flags)

    return [(str(n), " ".join(cell(c) for c in row)) for n, row in enumerate(title.market, 1)]


def runs_to(cities: int, multiplier: int, towns_free: bool) -> str:
    text = f"{cities} cities, towns free" if towns_free else f"{cities} stops"
    return text + (", doubled" if multiplier > 1 else "")


def trains(title: Title) -> list[Row]:
    obsolete = {o.train: o for o in title.obsolete_after_operating_round}
    rusted_by = {t.rusts: t.name for t in title.trains if t.rusts}
    rows: list[Row] = []
    for kind in title.trains:
        notes = []
        if kind.after_phase:
            notes.append(f"after phase {kind.after_phase} begins")
        if kind.phase:
            notes.append(f"the first starts phase {kind.phase}")
        if kind.closes_privates:
            notes.append("the first closes the private companies")
        if kind.name in obsolete:
            rule = obsolete[kind.name]
            leaves = f"after OR{rule.round}, salvage {money(rule.salvage)}"
        elif kind.name in rusted_by:
            leaves = f"when the first {rusted_by[kind.name]} is bought"
        else:
            leaves = "never"
        rows.append(
            (
                kind.name,
                str(kind.count),
                money(kind.price),
                runs_to(kind.cities, kind.multiplier, kind.towns_free),
                "; ".join(notes) or "-",
                leaves,
            )
        )
        for variant in kind.variants:
            rows.append(
                (
                    variant.name,
                    f"the {kind.name} cards' other side",
                    money(variant.price),
                    runs_to(variant.cities, variant.multiplier, False),
                    "; ".join(notes) or "-",
                    leaves,
                )
            )
    return rows


def phases(title: Title) -> list[Row]:
    return [
        (
            p.name,
            ", ".join(p.tiles),
            str(p.train_limit),
            str(p.operating_rounds or title.operating_rounds_per_set),
        )
        for p in title.phases
    ]


def privates(title: Title) -> list[Row]:
    return [(p.id, p.name, money(p.value), money(p.revenue)) for p in title.privates]


def companies(title: Title) -> list[Row]:
    def tokens(costs: tuple[int, ...]) -> str:
        return ", ".join("home" if i == 0 else money(c) for i, c in enumerate(costs))

    return [(c.id, c.name, c.home, tokens(c.tokens)) for c in title.companies]


def printed(hex_: Hex) -> str:
    def value(revenue: int | dict[str, int]) -> str:
        if isinstance(revenue, dict):
            return "/".join(money(v) for v in revenue.values())
        return money(revenue) if revenue else ""

    parts = []
    for node in hex_.nodes:
        text = "off-board" if node.kind == "offboard" else node.kind
        if node.slots > 1:
            text += f" ({node.slots} stations)"
        shown = value(node.revenue)
        parts.append(f"{text} {shown}".strip())
    if hex_.terrain:
        parts.append(hex_.terrain)
    if hex_.colour in ("red", "gray"):
        parts.insert(0, hex_.colour)
        if not hex_.nodes:
            parts.append("track")
    if hex_.neutral_token:
        parts.append("printed station")
    return ", ".join(parts)


def hexes(title: Title) -> list[Row]:
    def key(h: Hex) -> tuple[str, int]:
        return (h.hex[0], int(h.hex[1:]))

    shown = [h for h in title.hexes if h.name or h.cost or h.colour in ("red", "gray")]
    return [
        (h.hex, h.name or "-", printed(h), money(h.cost) if h.cost else "-")
        for h in sorted(shown, key=key)
    ]


def editions() -> list[Row]:
    """18MS: the numbers the game option `edition` changes."""
    title = load_title("18MS")
    by_id = {p.id: p for p in title.privates}
    old, new = (rules_for("18MS", {"edition": e}) for e in ("1.0", "18xx.games"))
    mo = PrivateState(by_id["M&O"])
    return [
        ("Bank", money(old.bank_cash()), money(new.bank_cash())),
        *(
            (
                f"{p} revenue",
                money(old.private_revenue(by_id[p])),
                money(new.private_revenue(by_id[p])),
            )
            for p in ("AGS", "M&M")
        ),
        ("M&O discount", money(old.train_discount(mo)), money(new.train_discount(mo))),
        ("Fee on a $300 loan", money(old.loan_fee(300)), money(new.loan_fee(300))),
    ]


EXPECTED = {
    "seats": seats,
    "numbers": numbers,
    "market": market,
    "trains": trains,
    "phases": phases,
    "privates": privates,
    "companies": companies,
    "hexes": hexes,
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_the_reference_quotes_the_title_data(name: str) -> None:
    title = load_title(name)
    tables = doc_tables(REFERENCES[name].read_text(encoding="utf-8"))
    expected = {table: make(title) for table, make in EXPECTED.items()}
    if name == "18MS":
        expected["editions"] = editions()
    assert sorted(tables) == sorted(expected), "the reference lacks or adds a data table"
    for table, rows in expected.items():
        assert tables[table] == rows, f"{REFERENCES[name].name}: table {table} differs"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_every_rule_is_marked(name: str) -> None:
    """Each numbered section says where its rules come from."""
    text = REFERENCES[name].read_text(encoding="utf-8")
    sections = re.split(r"^#{2,4} ", text, flags=re.M)[1:]
    numbered = [s for s in sections if re.match(r"\d", s)]
    assert len(numbered) > 20
    for section in numbered:
        heading, _, body = section.partition("\n")
        if not body.strip():
            continue  # a chapter heading; its sections say
        sourced_table = "<!-- data:" in body and all(
            row.rstrip().rstrip("|").rsplit("|", 1)[-1].strip()
            for row in body.splitlines()
            if row.startswith("| ") and not row.startswith("| Source")
        )
        assert sourced_table or any(m in body for m in MARKERS), f"{name} {heading}: no source"


def test_a_changed_number_is_caught() -> None:
    """The check reads the doc's numbers, not only its headings."""
    text = REFERENCES["18GA"].read_text(encoding="utf-8")
    wrong = text.replace("| 2 | 6 | $100 |", "| 2 | 6 | $110 |", 1)
    assert wrong != text
    assert doc_tables(wrong)["trains"] != trains(load_title("18GA"))
