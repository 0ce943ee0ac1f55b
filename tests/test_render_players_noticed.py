"""Defects players noticed in a game by mail (issue 23), each read back from the
rendered report: text body and PDF."""

import io
import re

from pypdf import PdfReader

from turnproc.families.continental_rails.engine.steps.improvements import (
    LocomotiveUpgraded,
    TechnologyBought,
)
from turnproc.families.continental_rails.engine.steps.mergers import MergerShortConverted
from turnproc.families.continental_rails.engine.steps.rights_of_way import RoWBuilt
from turnproc.families.continental_rails.report.meta import Replacement
from turnproc.families.continental_rails.report.model import build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.families.continental_rails.report.text import render_text
from turnproc.scenario.model import Scenario


def _amount(text: str) -> int:
    return int(text.replace("$", "").replace(",", ""))


def _balance(text: str) -> tuple[dict[str, int], int]:
    """The balance sheet's lines above "Assets", and the assets, read from `text`
    (a label and its amount on one line, or, as a PDF's text comes out, on two)."""
    block = text.split("Balance at end of turn", 1)[1]
    lines: dict[str, int] = {}
    label = ""
    for line in block.splitlines():
        found = re.match(r"\s*(.*?)\s*(-?\$[\d,]+)\s*$", line)
        if not found:
            label = line.strip()
            continue
        label = found.group(1).strip() or label
        if label == "Assets":
            return lines, _amount(found.group(2))
        lines[label] = _amount(found.group(2))
    raise AssertionError(block[:400])


def test_balance_sheet_adds_up_with_a_short_open(scenario: Scenario) -> None:
    """6.2, 9.6 Short-sale collateral is an asset: the balance sheet shows it, so
    its lines add up to the assets."""
    start, result, meta = sample_turn(scenario)
    reader = result.state.tycoon(1)
    code = next(iter(result.state.railroads))
    reader.shorts[code] = 50
    reader.short_proceeds[code] = 50 * result.state.railroads[code].price * 3 // 2
    report = build_report(scenario, start, result, meta, 1)
    sheet = report.private.balance
    assert sheet.short_collateral > 0 and sheet.shorts > 0

    text_lines, text_total = _balance(render_text(report))
    assert text_total == sheet.assets
    assert sum(text_lines.values()) == text_total, text_lines
    assert text_lines["Short-sale collateral"] == sheet.short_collateral

    pdf = render_pdf(report)
    pdf_text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    pdf_lines, pdf_total = _balance(pdf_text)
    assert pdf_total == sheet.assets
    assert sum(pdf_lines.values()) == pdf_total, pdf_lines


def test_a_report_of_a_turn_run_again_says_it_replaces_the_earlier_one(
    scenario: Scenario,
) -> None:
    """After a rollback or a re-run the report says, at the top, that it
    replaces the earlier report of the turn, and gives the moderator's reason."""
    start, result, meta = sample_turn(scenario)
    first = build_report(scenario, start, result, meta, 1)
    assert "replaces" not in render_text(first).split("9.1 HEADLINES")[0]
    meta.replaces = Replacement(reason="wrong railroad numbers")
    report = build_report(scenario, start, result, meta, 1)
    said = (
        f"This report replaces any report of turn {report.turn} you had before: the moderator "
        "ran the turn again. Reason: wrong railroad numbers."
    )
    head = render_text(report).split("9.1 HEADLINES")[0]
    assert said in " ".join(head.split()), head
    pdf = render_pdf(report)
    first_page = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert said in " ".join(first_page.split())
    meta.replaces = Replacement()
    head = render_text(build_report(scenario, start, result, meta, 1)).split("9.1 HEADLINES")[0]
    assert "the moderator ran the turn again." in " ".join(head.split())
    assert "Reason:" not in head


def test_a_short_converted_in_a_merger_is_told_with_the_numbers(scenario: Scenario) -> None:
    """4.13, 6.2 The short seller reads that his short of the absorbed railroad
    is now a short of the survivor, with the shares, prices and collateral."""
    start, result, meta = sample_turn(scenario)
    survivor, absorbed = list(result.state.railroads)[:2]
    result.events.append(
        MergerShortConverted(
            position=1,
            railroad=survivor,
            absorbed=absorbed,
            shares=100,
            new_shares=50,
            absorbed_price=10,
            survivor_price=20,
            collateral=1500,
        )
    )
    said = (
        f"Your short sale of 100 {absorbed} became a short sale of 50 {survivor} when "
        f"{absorbed} merged into {survivor}: 100 shares at $10 are worth 50 at $20 (rounded "
        "down); its collateral of $1,500 stays with the broker."
    )
    report = build_report(scenario, start, result, meta, 1)
    assert said in " ".join(render_text(report).split())
    pdf = render_pdf(report)
    pdf_text = " ".join(
        " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages).split()
    )
    assert said in pdf_text
    other = build_report(scenario, start, result, meta, 2)
    assert "Your short sale of 100" not in render_text(other)


def test_news_of_a_per_mile_cost_says_what_it_was_made_of(scenario: Scenario) -> None:
    """4.17, 4.18 The report words a locomotive's or technology's cost as the
    sheet and the receipt do: the rate a mile and the miles of track."""
    start, result, meta = sample_turn(scenario)
    code = next(iter(result.state.railroads))
    result.events += [
        LocomotiveUpgraded(
            railroad=code, locomotive=3, previous=1, cost=7160, per_mile=10, miles=358
        ),
        TechnologyBought(railroad=code, technology="B", cost=3580, per_mile=10, miles=358),
    ]
    result.events.append(
        RoWBuilt(
            railroad=code,
            row="PA1",
            cost=6510,
            miles=95,
            per_mile=60,
            terrain_percent=110,
            climate_percent=100,
            towns_cost=240,
        )
    )
    text = " ".join(render_text(build_report(scenario, start, result, meta, 1)).split())
    assert "for $7,160 ($10 a mile × 2 types × 358 miles of track)." in text
    assert "for $3,580 ($10 a mile × 358 miles of track)." in text
    assert "for $6,510 (95 miles × $60 × 110% terrain × 100% climate + $240 for the towns)." in text
