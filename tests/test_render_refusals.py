"""Refused and cut orders in the report, in plain English, once per cause; the
top five of the victory points ranks nobody for no points."""

from turnproc.families.continental_rails.engine import reasons
from turnproc.families.continental_rails.engine.events import Rejection
from turnproc.families.continental_rails.engine.orders import BidForPC, BuyStock, IncorporatePC
from turnproc.families.continental_rails.engine.resolve import TurnResult
from turnproc.families.continental_rails.engine.setup import PlayerSetup, new_game
from turnproc.families.continental_rails.report.meta import GameMeta
from turnproc.families.continental_rails.report.model import build_report, order_notes
from turnproc.families.continental_rails.report.text import render_text
from turnproc.scenario.model import Scenario


def rejection(index: int, order: object, code: str, hint: str, cut: object = None) -> Rejection:
    return Rejection(
        position=3,
        order_index=index,
        order=order.model_dump(),  # type: ignore[attr-defined]
        code=code,
        hint=hint,
        cut_to=cut.model_dump() if cut is not None else None,  # type: ignore[attr-defined]
    )


def test_a_lost_draw_then_the_incorporation_it_needed() -> None:
    notes = order_notes(
        [
            rejection(1, IncorporatePC(pc="B&H"), reasons.NOT_OWNER, "you do not own B&H"),
            rejection(
                0, BidForPC(pc="B&H", amount=950), reasons.OUTBID, "B&H went to a bid of $950"
            ),
            rejection(
                2,
                BuyStock(railroad="NYC", shares=100),
                reasons.CUT_TO_AFFORDABLE,
                "only 50 shares were affordable",
                BuyStock(railroad="NYC", shares=50),
            ),
        ],
        3,
    )
    assert [f"{n.text} {n.hint}" for n in notes] == [
        "BID B&H 950: refused. B&H went to a bid of $950, as yours: a draw between the equal "
        "bids chose the other.",
        "INCORPORATE B&H: not carried out, as BID B&H 950 failed.",
        "BUY 100 NYC: cut to BUY 50 NYC. Only 50 shares were affordable.",
    ]


def test_amounts_get_thousands_separators_and_other_players_are_left_out() -> None:
    notes = order_notes(
        [
            rejection(
                0, BidForPC(pc="ERIE", amount=1200), reasons.OUTBID, "ERIE went to a bid of $12500"
            ),
            Rejection(position=4, order_index=0, order={}, code=reasons.OUTBID, hint="not yours"),
        ],
        3,
    )
    assert [f"{n.text} {n.hint}" for n in notes] == [
        "BID ERIE 1200: refused. ERIE went to a bid of $12,500."
    ]


def test_nobody_is_ranked_for_no_points(scenario: Scenario) -> None:
    state = new_game(scenario, 3, [PlayerSetup(position=1, human=True)])
    result = TurnResult(state=state, events=[], rejections=[], ledger=[])
    report = build_report(scenario, state, result, GameMeta(name="g"), 1, opening=True)
    assert all(table.top == [] for table in report.vp)
    assert "nobody has points yet" in render_text(report)
    state.tycoons[4].vp["robber_baron"] = 2
    state.tycoons[6].vp["robber_baron"] = 2
    state.tycoons[8].vp["robber_baron"] = 1
    report = build_report(scenario, state, result, GameMeta(name="g"), 1, opening=True)
    [robber] = [t for t in report.vp if t.category == "robber_baron"]
    assert [(e.position, e.rank) for e in robber.top] == [(5, 1), (7, 1), (9, 3)]
