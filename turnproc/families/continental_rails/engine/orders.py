"""Typed orders: the single definition of what a tycoon may order (rules 10.1, 10.2).

The turnsheet parser and the computer players both produce these objects; the
engine checks and resolves them. Amounts are whole game dollars, shares whole
shares (1 share = 100 historical shares). Railroad and PC fields hold codes
(the parser turns railroad numbers into codes).
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Amount = Annotated[int, Field(ge=0)]
Shares = Annotated[int, Field(gt=0)]


class _Order(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- 10.1 personal actions -------------------------------------------------


class SetCharacterName(_Order):
    """3.2 Choose a character name (first turn, or after bankruptcy)."""

    kind: Literal["character_name"] = "character_name"
    name: Annotated[str, Field(min_length=1, max_length=40)]


class Borrow(_Order):
    """3.4 Borrow from the bank within the credit limit."""

    kind: Literal["borrow"] = "borrow"
    amount: Amount


class RepayLoan(_Order):
    """3.4 Repay part or all of the bank loan."""

    kind: Literal["repay_loan"] = "repay_loan"
    amount: Amount


class BidForPC(_Order):
    """10.1 Bid for an available PC (only while owning fewer than two)."""

    kind: Literal["bid_pc"] = "bid_pc"
    pc: str
    amount: Amount


class OfferPC(_Order):
    """10.1 Offer an owned PC for sale at an asking price (at most +20% a turn)."""

    kind: Literal["offer_pc"] = "offer_pc"
    pc: str
    price: Amount


class IncorporatePC(_Order):
    """4.1 Incorporate an owned PC as a new railroad; the incorporator gets 20%."""

    kind: Literal["incorporate_pc"] = "incorporate_pc"
    pc: str


class MergePC(_Order):
    """4.x Merge an owned PC into a railroad for a stock bonus."""

    kind: Literal["merge_pc"] = "merge_pc"
    pc: str
    railroad: str


class BuyTreasuryStock(_Order):
    """4.2 The president buys treasury stock from his railroad at market price."""

    kind: Literal["buy_treasury"] = "buy_treasury"
    railroad: str
    shares: Shares


class LendToRailroad(_Order):
    """4.5 The president lends his own cash to a railroad he presides."""

    kind: Literal["lend_to_railroad"] = "lend_to_railroad"
    railroad: str
    amount: Amount


class CollectFromRailroad(_Order):
    """4.5 Take repayment of a loan made to a railroad."""

    kind: Literal["collect_from_railroad"] = "collect_from_railroad"
    railroad: str
    amount: Amount


class ProdigalSpending(_Order):
    """1.2 Rail Prodigal: ostentatious spending (at least $1,000 to score)."""

    kind: Literal["prodigal"] = "prodigal"
    amount: Amount


class SpyOnPlayer(_Order):
    """3.1 Spy on a player: his contacts and holdings appear in your report."""

    kind: Literal["spy_player"] = "spy_player"
    target: Annotated[int, Field(ge=1, le=15)]


class SpyOnRailroad(_Order):
    """9.6 Spy on a railroad: its shareholders and cash flow appear in your report."""

    kind: Literal["spy_railroad"] = "spy_railroad"
    railroad: str


class RequestPresidency(_Order):
    """4.14 Name a railroad you want to preside next turn (at most two)."""

    kind: Literal["request_presidency"] = "request_presidency"
    railroad: str


# --- 6 stock orders, resolved in the tycoon's own sequence ----------------


class BuyStock(_Order):
    """6.1 Buy shares on the market (bid limit: 20% of issued shares not owned)."""

    kind: Literal["buy"] = "buy"
    railroad: str
    shares: Shares


class SellStock(_Order):
    """6.1 Sell owned shares on the market."""

    kind: Literal["sell"] = "sell"
    railroad: str
    shares: Shares


class ShortSell(_Order):
    """6.2 Sell shares short."""

    kind: Literal["short"] = "short"
    railroad: str
    shares: Shares


class CoverShort(_Order):
    """6.2 Buy back shares to cover a short sale."""

    kind: Literal["cover"] = "cover"
    railroad: str
    shares: Shares


# --- 10.2 railroad actions (by its president) ---------------------------


class _RailroadOrder(_Order):
    railroad: str


class SetDividend(_RailroadOrder):
    """4.12 Dividend per share for this turn ($0-$99)."""

    kind: Literal["dividend"] = "dividend"
    per_share: Annotated[int, Field(ge=0, le=99)]


class IssueStock(_RailroadOrder):
    """4.3 Issue new stock (raises authorized stock; sold to the market)."""

    kind: Literal["issue_stock"] = "issue_stock"
    shares: Shares


class IssueBonds(_RailroadOrder):
    """4.4 Issue bonds at the fixed bond rate."""

    kind: Literal["issue_bonds"] = "issue_bonds"
    amount: Amount


class RedeemBonds(_RailroadOrder):
    """4.4 Redeem bonds from cash."""

    kind: Literal["redeem_bonds"] = "redeem_bonds"
    amount: Amount


class TakeShortLoan(_RailroadOrder):
    """4.4 Borrow short-term from the bank."""

    kind: Literal["short_loan"] = "short_loan"
    amount: Amount


class RepayShortLoan(_RailroadOrder):
    """4.4 Repay the short-term loan."""

    kind: Literal["repay_short_loan"] = "repay_short_loan"
    amount: Amount


class BidForRoW(_RailroadOrder):
    """4.7 Bid for an unowned RoW."""

    kind: Literal["bid_row"] = "bid_row"
    row: str
    amount: Amount


class BuildRoW(_RailroadOrder):
    """4.6 Build track on an owned RoW, turning it into a line."""

    kind: Literal["build_row"] = "build_row"
    row: str


class SellLand(_RailroadOrder):
    """7 Sell land-grant land."""

    kind: Literal["sell_land"] = "sell_land"
    acres: Shares


class DoubleTrack(_RailroadOrder):
    """4.15 Double-track a line."""

    kind: Literal["double_track"] = "double_track"
    line: str


class UpgradeLocomotive(_RailroadOrder):
    """4.17 Upgrade to a better locomotive (one a turn, cash only)."""

    kind: Literal["upgrade_locomotive"] = "upgrade_locomotive"
    locomotive: Annotated[int, Field(ge=2, le=9)]


class BuyTechnology(_RailroadOrder):
    """4.18 Buy one technology (A-J) this turn, cash only."""

    kind: Literal["buy_technology"] = "buy_technology"
    technology: Annotated[str, Field(pattern=r"^[A-J]$")]
    town: str | None = None  # for a Grand Station: the size 4/5 town it stands in


class PoliticalDonation(_RailroadOrder):
    """4.9 Political donations: influence for contested RoWs, fewer disasters."""

    kind: Literal["political_donation"] = "political_donation"
    amount: Amount


class DeclareRateWar(_RailroadOrder):
    """4.16 Cut rates on parallel routes against a rival."""

    kind: Literal["rate_war"] = "rate_war"
    rival: str
    percent: Annotated[int, Field(ge=0, le=90)]


class CapitalImprovement(_RailroadOrder):
    """4.6 Spend on capital improvements to raise efficiency."""

    kind: Literal["capital_improvement"] = "capital_improvement"
    amount: Amount


class MergeRailroads(_RailroadOrder):
    """4.13 Merge `other` into `railroad` (same president, connected, nothing prohibited)."""

    kind: Literal["merge_railroads"] = "merge_railroads"
    other: str


PersonalOrder = (
    SetCharacterName
    | Borrow
    | RepayLoan
    | BidForPC
    | OfferPC
    | IncorporatePC
    | MergePC
    | BuyTreasuryStock
    | LendToRailroad
    | CollectFromRailroad
    | ProdigalSpending
    | SpyOnPlayer
    | SpyOnRailroad
    | RequestPresidency
)
StockOrder = BuyStock | SellStock | ShortSell | CoverShort
RailroadOrder = (
    SetDividend
    | IssueStock
    | IssueBonds
    | RedeemBonds
    | TakeShortLoan
    | RepayShortLoan
    | BidForRoW
    | BuildRoW
    | SellLand
    | DoubleTrack
    | UpgradeLocomotive
    | BuyTechnology
    | PoliticalDonation
    | DeclareRateWar
    | CapitalImprovement
    | MergeRailroads
)
Order = Annotated[PersonalOrder | StockOrder | RailroadOrder, Field(discriminator="kind")]

STOCK_KINDS = frozenset({"buy", "sell", "short", "cover"})


class PlayerOrders(BaseModel):
    """Everything one position orders for one turn, in the order written.

    The sequence matters for stock orders (6.1 order checking) and is kept for
    every other order too, so receipts and reports can echo it.
    """

    model_config = ConfigDict(extra="forbid")

    position: int
    orders: list[Order] = Field(default_factory=list)
    source: Literal["player", "computer", "standing"] = "player"

    def of_kind(self, *kinds: str) -> list[Order]:
        return [order for order in self.orders if order.kind in kinds]
