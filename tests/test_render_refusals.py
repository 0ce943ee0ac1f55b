"""Refused and cut orders in the report, in plain English, once per cause."""

from turnproc.cr import reasons
from turnproc.cr.events import Rejection
from turnproc.cr.orders import BidForPC, BuyStock, IncorporatePC
from turnproc.render.report import order_notes


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
