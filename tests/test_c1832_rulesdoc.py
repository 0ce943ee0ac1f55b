"""docs/rules-1832.md covers the rules: its numbered sections match the rules
text's own references, every section is marked [seed], [map/charts] or
[designed], every case cites a section it has, every 1832 ambiguity is
decided, and each `<!-- data: NAME -->` table says what the title data says
(every column but the last, which names the source)."""

import re
from pathlib import Path

import pytest

from turnproc.families.g18xx import c1832_cases
from turnproc.families.g18xx.titles.c1832 import market as mk
from turnproc.families.g18xx.titles.c1832.data import Data1832, load

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "rules-1832.md").read_text(encoding="utf-8")
SHARED = ROOT.parent / "shared"
SEED = SHARED / "rules" / "1832-the-south.txt"
AMBIGUITIES = SHARED / "design" / "18xx-ambiguities.md"
MARKERS = ("**[seed", "**[map/charts", "**[designed")
DATA = load()

Row = tuple[str, ...]


def sections() -> dict[str, str]:
    """Numbered headings and the text under each up to the next heading."""
    found: dict[str, str] = {}
    parts = re.split(r"^(#{2,4} .*)$", DOC, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        match = re.match(r"#{2,4} (\d+(?:\.\d+)*) ", heading)
        if match:
            found[match.group(1)] = body
    return found


SECTIONS = sections()


def doc_tables() -> dict[str, list[Row]]:
    tables: dict[str, list[Row]] = {}
    for match in re.finditer(r"<!-- data: (\S+) -->\n\n?((?:\|.*\n)+)", DOC):
        lines = match.group(2).splitlines()[2:]
        rows = [tuple(c.strip() for c in line.strip().strip("|").split("|")) for line in lines]
        tables[match.group(1)] = [row[:-1] for row in rows]
    return tables


def money(amount: int) -> str:
    return f"${amount:,}"


def expected_tables(data: Data1832) -> dict[str, list[Row]]:
    t = data.title
    scraps = {tr.name: tr.rusts or "–" for tr in t.trains}
    columns = {"2": "first", "5": "second", "8": "last"}
    market = mk.Market(t.market)
    marks = {"yellow": "y", "green": "g", "brown": "b", "closed": "x", "white": ""}

    def box(b: mk.Box) -> str:
        return f"{b.price}{marks[b.zone]}{'p' if b.par else ''}{'l' if b.lower else ''}"

    offboard = []
    for hx in t.hexes:
        for node in hx.nodes:
            if isinstance(node.revenue, dict):
                values = [money(node.revenue[k]) for k in ("2", "5", "8")]
                offboard.append((hx.hex, hx.name or "", *values))
    return {
        "trains": [
            (
                tr.name,
                money(tr.price),
                "unlimited" if tr.count is None else str(tr.count),
                scraps[tr.name],
            )
            for tr in t.trains
        ],
        "phases": [
            (
                p.name,
                ", ".join(p.tiles),
                str(p.train_limit),
                str(p.operating_rounds),
                columns[p.offboard],
                p.mergers,
                p.privates,
            )
            for p in t.phases
        ],
        "starting-cash": [
            (n, money(s.cash), money(s.cash_southern_bank)) for n, s in t.players.items()
        ],
        "certificate-limits": [
            (n, *(str(v) for v in t.certificate_limits.row(int(n)))) for n in t.players
        ],
        "privates": [(p.id, p.name, money(p.value), money(p.revenue)) for p in t.privates],
        "companies": [
            (
                c.id,
                c.name,
                f"{c.home} {data.hex(c.home).name}",
                ", ".join(money(v) for v in c.tokens),
            )
            for c in t.companies
        ],
        "brown-tiles": [
            (tid, str(tile.count)) for tid, tile in data.tiles.items() if tile.colour == "brown"
        ],
        "offboard": sorted(offboard, key=lambda r: (r[0][0], int(r[0][1:]))),
        "market": [
            (str(r + 1), " ".join(box(b) for b in row)) for r, row in enumerate(market.grid)
        ],
    }


@pytest.mark.parametrize("name", sorted(expected_tables(DATA)))
def test_data_table(name: str) -> None:
    tables = doc_tables()
    assert name in tables, f"docs/rules-1832.md has no <!-- data: {name} --> table"
    assert tables[name] == expected_tables(DATA)[name]


def test_every_section_with_text_is_marked() -> None:
    for number, body in SECTIONS.items():
        if body.strip():
            assert any(m in body for m in MARKERS), f"section {number} has no marker"


def test_every_case_cites_a_section_of_the_reference() -> None:
    for path in sorted((ROOT / "cases" / "1832").glob("*.toml")):
        case = c1832_cases.load_case(path)
        for ref in case.rules.split(","):
            number = ref.strip().split()[0]
            assert number in SECTIONS, f"{path.name} cites {number}, not in the reference"


def _referenced(number: str) -> bool:
    if number in SECTIONS:
        return True
    parent, _, item = number.rpartition(".")
    return parent in SECTIONS and re.search(rf"^{item}\. ", SECTIONS[parent], re.M) is not None


@pytest.mark.skipif(not SEED.exists(), reason="the rules text is in ../shared")
def test_the_texts_cross_references_exist() -> None:
    """Every [n.n] the rules text cites is a section (or a numbered point) here,
    except [2.2], the Stock Display (B4)."""
    refs = set(re.findall(r"\[(\d+(?:\.\d+)*)\]", SEED.read_text(encoding="utf-8")))
    missing = sorted(r for r in refs - {"2.2"} if not _referenced(r))
    assert not missing


def test_every_ambiguity_is_decided() -> None:
    decided = re.findall(r"^- \*\*A(\d+) ", DOC, re.M)
    assert decided == [str(n) for n in range(1, len(decided) + 1)]
    assert len(decided) >= 16
    if AMBIGUITIES.exists():
        text = AMBIGUITIES.read_text(encoding="utf-8")
        part = text.split("## Contradictions and ambiguities found in the 1832 seed")[1]
        assert len(re.findall(r"^\d+\. ", part, re.M)) == len(decided)


def test_the_order_language_section_covers_mergers() -> None:
    orders = DOC.split("## Order language")[1]
    for word in (
        "PROTECT",
        "REDEEM",
        "REISSUE",
        "HALF",
        "PROPOSE SYSTEM",
        "PROPOSE TAKEOVER",
        "ACCEPT",
        "DECLINE",
        "CONSENT",
    ):
        assert word in orders, word
