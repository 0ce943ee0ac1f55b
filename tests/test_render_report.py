"""9 The report model: figures match the state, privacy holds, any event words."""

from pathlib import Path
from typing import ClassVar, Literal

import pytest

from turnproc.core.ledger import net_flows, railroad_account, tycoon_account
from turnproc.families.continental_rails.engine import valuation
from turnproc.families.continental_rails.engine.events import EVENT_TYPES, Event
from turnproc.families.continental_rails.engine.resolve import TurnResult, resolve_turn
from turnproc.families.continental_rails.engine.setup import new_game
from turnproc.families.continental_rails.report.export import render_json
from turnproc.families.continental_rails.report.meta import GameMeta
from turnproc.families.continental_rails.report.model import PlayerReport, build_report
from turnproc.families.continental_rails.report.pdf import render_pdf
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.families.continental_rails.report.text import render_text
from turnproc.families.continental_rails.report.wording import Wording
from turnproc.scenario.model import Scenario


class RenderTestNewsKind(Event):
    """An event kind no template words: reports must still print it."""

    kind: Literal["render_test_new_kind"] = "render_test_new_kind"
    amount: int
    news_order: ClassVar[int] = 150


@pytest.fixture(scope="module")
def turn(scenario: Scenario) -> tuple[Scenario, object, TurnResult, GameMeta]:
    start, result, meta = sample_turn(scenario)
    return scenario, start, result, meta


def _report(turn: tuple[Scenario, object, TurnResult, GameMeta], reader: int) -> PlayerReport:
    scenario, start, result, meta = turn
    return build_report(scenario, start, result, meta, reader)  # type: ignore[arg-type]


def test_cash_flow_adds_up_to_end_cash(turn: tuple) -> None:
    _, start, result, _ = turn
    for reader in range(1, 16):
        flow = _report(turn, reader).private.cash_flow
        assert flow.opening == start.tycoon(reader).cash
        assert flow.closing == result.state.tycoon(reader).cash
        assert flow.opening + sum(item.amount for item in flow.items) == flow.closing
        assert sum(i.amount for i in flow.items) == net_flows(result.ledger).get(
            tycoon_account(reader), 0
        )


def test_railroad_books_add_up_and_pool_players(turn: tuple) -> None:
    report = _report(turn, 1)
    assert report.private.railroads
    for flow in report.private.railroads:
        assert flow.opening + sum(item.amount for item in flow.items) == flow.closing
        dividends = [i for i in flow.items if i.reason == "dividend"]
        assert len(dividends) <= 1  # one pooled line, not one per shareholder


def test_summary_figures_match_the_state(turn: tuple) -> None:
    scenario, start, result, _ = turn
    end = result.state
    report = _report(turn, 1)
    assert report.turn == start.turn and report.next_turn == end.turn
    assert report.years == [1841 + 2 * (start.turn - 1), 1842 + 2 * (start.turn - 1)]
    assert all(report.headlines[year] for year in report.years)
    for line in report.railroads:
        rr = end.railroads[line.code]
        assert line.track == sum(scenario.routes[c].length for c in rr.lines)
        assert (line.bond_debt, line.loan_debt, line.president) == (rr.bonds, rr.loan, rr.president)
    for stock in report.stocks:
        rr = end.railroads[stock.code]
        assert (stock.issued, stock.treasury, stock.end_price) == (rr.issued, rr.treasury, rr.price)
        assert stock.holding == end.tycoon(1).holdings.get(stock.code, 0)
    available = {c for c, pc in end.pcs.items() if pc.status == "available" or pc.for_sale}
    assert {pc.code for pc in report.pcs} == available
    worths = [valuation.net_worth(end, scenario, p.position) for p in report.players]
    assert worths == sorted(worths, reverse=True)
    sheet = report.private.balance
    assert sheet == valuation.balance_sheet(end, scenario, 1, end.climate)
    bought = sum(
        e.model_dump()["shares"]
        for e in result.events
        if e.kind == "tycoon_trade" and e.position == 1
    )
    assert sum(s.bought for s in report.stocks) == bought


def test_news_follows_the_real_reports_order(turn: tuple) -> None:
    orders = [group.order for group in _report(turn, 1).news]
    assert orders == sorted(orders)
    titles = [group.title for group in _report(turn, 1).news]
    assert titles.index("PCs Purchased") < titles.index("New Presidents")


def test_spying_shows_the_target_only_to_the_spy(turn: tuple) -> None:
    scenario, start, result, meta = turn
    anonymous = meta.model_copy(update={"anonymous": True})
    spy = build_report(scenario, start, result, anonymous, 1)
    other = build_report(scenario, start, result, anonymous, 3)
    assert spy.spied_players == [2]
    target = next(p for p in spy.players if p.position == 2)
    assert target.cash is not None and target.holdings
    assert target.email and target.real_name  # 3.1 spying reveals contacts, even anonymous
    assert all(2 in line.spied for line in spy.stocks)
    assert other.spied_players == []
    seen = next(p for p in other.players if p.position == 2)
    assert seen.cash is None and seen.net_worth is None
    assert not seen.email and not seen.real_name and not seen.phone
    public = next(p for p in _report(turn, 3).players if p.position == 2)
    assert public.email and public.real_name  # not anonymous: everyone's contacts


def test_withheld_phone_stays_hidden(turn: tuple) -> None:
    withheld = next(p for p in _report(turn, 1).players if p.position == 4)
    assert withheld.real_name and not withheld.phone


def test_privacy_nothing_leaks_in_any_rendering(turn: tuple) -> None:
    """What the rules keep from a player never appears in his text, JSON or PDF."""
    scenario, start, result, meta = turn
    end = result.state.model_copy(deep=True)
    # Distinctive figures: another player's cash and holdings, a railroad's books.
    secret_cash = 987_651
    end.tycoon(9).cash = secret_cash
    start9 = start.model_copy(deep=True)
    start9.tycoon(9).cash = secret_cash
    quiet = next(
        code
        for code, rr in end.railroads.items()
        if 3 not in (rr.president, rr.chairman, *rr.directors)
        and 3 not in (start.railroads[code].president, *start.railroads[code].directors)
    )
    end.tycoon(9).holdings[quiet] = 4_321
    end.railroads[quiet].issued += 4_321
    end.railroads[quiet].authorized += 4_321
    patched = TurnResult(
        state=end, events=result.events, rejections=result.rejections, ledger=result.ledger
    )
    report = build_report(scenario, start9, patched, meta, 3)
    outputs = {
        "text": render_text(report),
        "json": render_json(report),
    }
    for name, text in outputs.items():
        assert "987,651" not in text and "987651" not in text, name
        assert "4,321" not in text and "4321" not in text, name
        assert railroad_account(quiet) not in text, name
    assert all(flow.account != railroad_account(quiet) for flow in report.private.railroads)
    # No private event of another position reaches the reader.
    assert all(n.data.get("position") in (None, 3) for n in report.private.notes)
    private = {e.kind for e in result.events if e.visibility == "private" and e.position != 3}
    assert private
    news_kinds = {item.kind for group in report.news for item in group.items}
    assert not (news_kinds & private - {e.kind for e in result.events if e.position == 3})


def test_unknown_event_kinds_get_a_generic_line(turn: tuple) -> None:
    scenario, start, result, meta = turn
    extra = TurnResult(
        state=result.state,
        events=[*result.events, RenderTestNewsKind(railroad="NYC", amount=1234)],
        rejections=result.rejections,
        ledger=result.ledger,
    )
    report = build_report(scenario, start, extra, meta, 1)
    lines = [i.text for g in report.news for i in g.items if i.kind == "render_test_new_kind"]
    assert lines == ["Render test new kind: railroad NYC, amount $1,234."]
    assert "Render test new kind" in render_text(report)


def test_a_template_that_does_not_fit_the_event_falls_back(turn: tuple, tmp_path: Path) -> None:
    scenario, _, result, _ = turn
    wording_file = tmp_path / "news.toml"
    wording_file.write_text(
        '[events]\nrender_test_new_kind = "{{ who(position) }} paid {{ money(missing) }}"\n'
        'prodigal_spent = "{{ who(position) }} <b>spent</b> {{ money(amount) }}"\n',
        encoding="utf-8",
    )
    wording = Wording(scenario, result.state, wording_file)
    event = RenderTestNewsKind(position=2, amount=5)
    assert wording.event(event) == (
        f"Render test new kind: position {result.state.tycoon(2).character} (#2), amount $5."
    )
    spent = EVENT_TYPES["prodigal_spent"].model_validate({"position": 2, "amount": 1500})
    assert wording.event(spent).endswith("<b>spent</b> $1,500")


def test_real_engine_turn_and_opening_report(scenario: Scenario) -> None:
    state = new_game(scenario, 11, [])
    opening = TurnResult(state=state, events=[], rejections=[], ledger=[])
    first = build_report(scenario, state, opening, GameMeta(name="g"), 4, opening=True)
    assert first.turn == 0 and first.years == [1841, 1842] and not first.news
    assert "The start of the game" in render_text(first)
    result = resolve_turn(scenario, state, {})
    for reader in (1, 15):
        report = build_report(scenario, state, result, GameMeta(name="g"), reader)
        flow = report.private.cash_flow
        assert flow.opening + sum(i.amount for i in flow.items) == flow.closing
        assert render_pdf(report).startswith(b"%PDF")


def test_every_reader_of_played_turns_gets_balanced_books(scenario: Scenario) -> None:
    """Computer players play a few turns; every report's books add up and render."""
    from turnproc.families.continental_rails import ai

    state = new_game(scenario, 23, [])
    for _ in range(4):
        orders = {
            t.position: ai.computer_orders(scenario, state, t.position) for t in state.tycoons
        }
        result = resolve_turn(scenario, state, orders)
        for reader in range(1, 16):
            report = build_report(scenario, state, result, GameMeta(name="g"), reader)
            for flow in [report.private.cash_flow, *report.private.railroads]:
                assert flow.opening + sum(i.amount for i in flow.items) == flow.closing
            assert render_text(report)
        state = result.state
    assert render_pdf(report).startswith(b"%PDF")


def test_headlines_cover_every_year_of_a_full_game(scenario: Scenario) -> None:
    years = scenario.params["headlines"]["years"]
    assert all(years.get(str(year)) for year in range(1841, 1891))
