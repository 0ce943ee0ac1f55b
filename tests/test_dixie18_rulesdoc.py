"""docs/rules-18dixie.md covers the seed's 18Dixie chapter section by
section, marks every rule, decides every ambiguity, names real functions and
agrees with the title data in its tables."""

import importlib
import re
from pathlib import Path

import pytest

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle, load_dixie

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "rules-18dixie.md").read_text(encoding="utf-8")
SEED_CANDIDATES = [
    ROOT.parent / "shared" / "rules" / "18dixie-18ga-18ms.txt",
    ROOT.parent.parent / "shared" / "rules" / "18dixie-18ga-18ms.txt",
]
AMBIGUITY_CANDIDATES = [
    ROOT.parent / "shared" / "design" / "18xx-ambiguities.md",
    ROOT.parent.parent / "shared" / "design" / "18xx-ambiguities.md",
]

# The numbered sections of the seed's 18Dixie chapter (10 is not used there).
SECTIONS = [
    *("1", "1.1", "1.2", "1.3", "1.3.1", "1.3.2", "1.3.3", "1.4", "1.5", "2"),
    *("3", "3.1", "3.2", "3.3", "3.3.1", "3.3.2", "3.3.3", "3.4", "3.4.1", "3.5", "3.6", "3.7"),
    *("4", "4.1", "4.2", "4.3", "4.4", "4.4.1", "4.5", "4.6", "4.7", "4.7.1"),
    *("5", "5.1", "5.2", "5.2.1", "5.2.2", "5.3", "5.4", "6", "6.1", "7", "8", "8.1", "8.2"),
    *("9", "11", "12", "13"),
]
MARKS = ("[seed", "[map/charts", "[designed")
NOT_RULES = {"8", "8.1", "8.2", "11"}  # designer notes; the FAQ is answered by the rules above


def _sections() -> dict[str, str]:
    """Body of each numbered heading, up to the next heading."""
    parts = re.split(r"^#{2,4} ", DOC, flags=re.M)
    out: dict[str, str] = {}
    for part in parts[1:]:
        head, _, body = part.partition("\n")
        number = head.split()[0]
        if re.fullmatch(r"\d+(\.\d+)*", number):
            out[number] = body
    return out


def test_every_seed_section_has_a_heading() -> None:
    assert [s for s in SECTIONS if s not in _sections()] == []


def test_sections_list_matches_the_seed_when_present() -> None:
    seed = next((p for p in SEED_CANDIDATES if p.is_file()), None)
    if seed is None:
        pytest.skip("the rules text is not beside the repository")
    text = seed.read_text(encoding="utf-8")
    start = text.index("\n18Dixie: The Railways")
    chapter = text[start : text.index("\n18GA: The Railroads", start)]
    found = re.findall(r"^(\d+(?:\.\d+)*) [A-Z]", chapter, flags=re.M)
    headings = [n for n in dict.fromkeys(found) if n != "10"]
    assert set(SECTIONS) <= set(headings)
    assert [n for n in headings if n not in SECTIONS] == []


def test_every_rule_section_is_marked() -> None:
    sections = _sections()
    unmarked = []
    for number, body in sections.items():
        if number in NOT_RULES or not body.strip():
            continue
        sub = any(s.startswith(number + ".") for s in sections)
        if not any(mark in body for mark in MARKS) and not (sub and len(body.strip()) < 200):
            unmarked.append(number)
    assert unmarked == []


def test_every_ambiguity_is_decided() -> None:
    part = DOC[DOC.index("## Ambiguities decided") :]
    part = part[: part.index("\n## ", 5)]
    items = re.findall(r"^(\d+)\. \*\*(.+?)\*\* \*\*\[designed\]\*\*", part, flags=re.M)
    assert [int(n) for n, _ in items] == list(range(1, 21))


def test_ambiguity_count_matches_the_design_list_when_present() -> None:
    path = next((p for p in AMBIGUITY_CANDIDATES if p.is_file()), None)
    if path is None:
        pytest.skip("the design notes are not beside the repository")
    text = path.read_text(encoding="utf-8")
    dixie = text[text.index("18Dixie seed") : text.index("1832 seed")]
    assert len(re.findall(r"^\d+\. \*\*", dixie, flags=re.M)) == 20


def test_named_functions_exist() -> None:
    modules = "supply|shares|minors|merger|trains|stock_chart|stations|endgame"
    names = set(re.findall(rf"`({modules})\.(\w+)`", DOC))
    names -= {(module, "py") for module, _ in names}  # file names such as `supply.py`
    assert len(names) >= 20
    for module, function in names:
        mod = importlib.import_module(f"turnproc.families.g18xx.titles.dixie18.{module}")
        assert callable(getattr(mod, function, None)), f"{module}.{function}"


def _table(marker: str) -> list[list[str]]:
    after = DOC[DOC.index(f"<!-- data: {marker} -->") :]
    rows = [line for line in after.splitlines()[1:] if line.startswith("|")]
    lines = []
    for line in after.splitlines()[2:]:
        if not line.startswith("|"):
            break
        lines.append(line)
    assert rows
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def _money(value: int) -> str:
    return f"${value:,}"


@pytest.fixture(scope="module")
def title() -> DixieTitle:
    return load_dixie()


def test_trains_table(title: DixieTitle) -> None:
    rows = [
        [
            t.name,
            str(t.count),
            _money(t.price),
            _money(t.salvage) if t.salvage else "—",
            t.phase or "",
            t.rusted_by or "—",
        ]
        for t in title.trains
    ]
    assert _table("trains") == rows


def test_phases_table(title: DixieTitle) -> None:
    rows = [[p.name, str(p.train_limit), ", ".join(p.tiles)] for p in title.phases]
    assert [r[:3] for r in _table("phases")] == rows


def test_players_table(title: DixieTitle) -> None:
    rows = [
        [n, _money(s.cash), str(s.certificates), str(s.certificates_after_merger)]
        for n, s in title.players.items()
    ]
    assert _table("players") == rows


def test_privates_table(title: DixieTitle) -> None:
    rows = [
        [p.id, p.name, _money(p.value), _money(p.revenue), f"SR{p.stock_round}"]
        for p in title.privates
    ]
    assert _table("privates") == rows


def test_minors_table(title: DixieTitle) -> None:
    rows = [
        [
            m.id,
            m.name,
            _money(m.price),
            " or ".join(m.homes),
            str(len(m.tokens)),
            m.successors if isinstance(m.successors, str) else ", ".join(m.successors),
            f"OR{m.closes_after_or}",
        ]
        for m in title.minors
    ]
    assert _table("minors") == rows


def test_companies_table(title: DixieTitle) -> None:
    rows = [
        [c.id, c.name, c.home, ", ".join(map(str, c.tokens)), str(c.preferred_shares)]
        for c in title.companies
    ]
    assert _table("companies") == rows
