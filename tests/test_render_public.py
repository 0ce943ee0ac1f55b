"""9 The public part of a turn's report (the web's game page): what every
reader's report shows alike, and nothing private."""

from turnproc.families.continental_rails.report.model import build_public_report, build_report
from turnproc.families.continental_rails.report.sample import sample_turn
from turnproc.scenario.model import Scenario


def test_public_report_holds_only_what_every_reader_sees(scenario: Scenario) -> None:
    start, result, meta = sample_turn(scenario)
    public = build_public_report(scenario, start, result, meta)
    private_kinds = {e.kind for e in result.events if e.visibility == "private"}
    assert private_kinds, "the sample turn must have private events for this test to mean much"
    shown = [(item.kind, item.text) for group in public.news for item in group.items]
    assert shown
    for tycoon in result.state.tycoons:
        report = build_report(scenario, start, result, meta, tycoon.position)
        theirs = {(item.kind, item.text) for group in report.news for item in group.items}
        assert set(shown) <= theirs, f"a public news item is not in player {tycoon.position}'s"
    for line in public.players:
        assert line.cash is None and line.net_worth is None and not line.holdings
        assert not line.spied
    assert all(rr.reader_role == "" for rr in public.railroads)
    for stock in public.stocks:
        assert (stock.holding, stock.short, stock.max_bid, stock.bought, stock.sold) == (0,) * 5
        assert not stock.spied
    assert all(table.reader_points == 0 for table in public.vp)
