"""10 The turnsheet's words: the action words of each section with their
aliases and canonical spellings, the filler a player may add, and the
patterns and limits of a sheet's lines."""

import re

MAX_ORDERS = 200
MAX_AMOUNT = 1_000_000_000

# The header, END and the limits of a sheet are every family's: core/sheet_header.py.
# Where a mail program starts the message replied to, or the writer signs off:
# the orders end there (Outlook, Gmail, Apple Mail and Thunderbird do not
# always quote the original with `>`, and their attribution line may wrap).
_REPLY_RE = re.compile(
    r"^(-{2,}\s*(original|forwarded) message\s*-{2,}"
    r"|_{10,}"
    r"|(from|sent|date|to|subject):\s.*"
    r"|begin forwarded message:"
    r"|.{0,300}\bwrote:"
    r"|sent from my \w+.*"
    r"|(thanks|thank you|many thanks|regards|kind regards|best regards|best wishes|best"
    r"|cheers|sincerely|yours|yours truly|yours sincerely|all the best|greetings)[\s,.!]*)\s*$",
    re.I,
)
# A sign-off with a name ("Thanks, Hetty", "Best regards, Hetty Green") or the
# line a mail program adds below the text ("Sent from Outlook", "Get Outlook
# for iOS", "Sent with Proton Mail"): the orders end there too, unless the
# line reads as an order (see `parse_turnsheet`).
_SIGN_OFF_RE = re.compile(
    r"^((sent from|get outlook for|sent (with|via|using))\s+\S.{0,200}"
    r"|(thanks|thank you|many thanks|thanks again|thx|ta|regards|kind regards|best regards"
    r"|warm regards|best wishes|best|cheers|sincerely|yours|yours truly|yours sincerely"
    r"|all the best|greetings|love|take care)[\s,.!-]+[^\W\d_][\w.'-]*"
    r"(\s+[^\W\d_][\w.'-]*){0,2}[\s.!]*)$",
    re.I,
)
_WROTE_END_RE = re.compile(r"\bwrote:\s*$", re.I)
_DECORATION_RE = re.compile(r"^[\s=*_~+.:|-]*$")
# ASCII digits only ("²" and "③" are digits to Python, not to a ledger), and
# few enough that int() stays cheap and within its limit on digits.
_AMOUNT_RE = re.compile(r"^\$?([0-9]{1,3}(?:,[0-9]{3}){1,4}|[0-9]{1,15})(?:\.0+)?\$?$")

PERSONAL = "personal"
RAILROAD = "railroad"

# Action words: the canonical spelling of each action first, then aliases.
# Words shared by both sections (BORROW, REPAY, BID, MERGE, SELL) mean the
# railroad's action inside a railroad section.
_PERSONAL_WORDS: dict[str, str] = {
    "NAME": "character_name",
    "CHARACTER": "character_name",
    "BORROW": "borrow",
    "LOAN": "borrow",
    "REPAY": "repay_loan",
    "BID": "bid_pc",
    "OFFER": "offer_pc",
    "INCORPORATE": "incorporate_pc",
    "INC": "incorporate_pc",
    "INCORP": "incorporate_pc",
    "MERGE": "merge_pc",
    "TREASURY": "buy_treasury",
    "LEND": "lend_to_railroad",
    "COLLECT": "collect_from_railroad",
    "PRODIGAL": "prodigal",
    "PROD": "prodigal",
    "SPEND": "prodigal",
    "SPY": "spy",
    "PRESIDENT": "request_presidency",
    "PRESIDENCY": "request_presidency",
    "PRES": "request_presidency",
    "CONTROL": "request_presidency",
    "BUY": "buy",
    "SELL": "sell",
    "SHORT": "short",
    "COVER": "cover",
}
_RAILROAD_WORDS: dict[str, str] = {
    "DIVIDEND": "dividend",
    "DIVIDENDS": "dividend",
    "DIV": "dividend",
    "BONDS": "issue_bonds",
    "REDEEM": "redeem_bonds",
    "LOAN": "short_loan",
    "BORROW": "short_loan",
    "REPAY": "repay_short_loan",
    "BID": "bid_row",
    "BUILD": "build_row",
    "LAND": "sell_land",
    "DOUBLE": "double_track",
    "LOCOMOTIVE": "upgrade_locomotive",
    "LOCO": "upgrade_locomotive",
    "ENGINE": "upgrade_locomotive",
    "UPGRADE": "upgrade_locomotive",
    "TECHNOLOGY": "buy_technology",
    "TECH": "buy_technology",
    "DONATE": "political_donation",
    "DONATION": "political_donation",
    "POLITICAL": "political_donation",
    "RATEWAR": "rate_war",
    "WAR": "rate_war",
    "IMPROVE": "capital_improvement",
    "IMPROVEMENT": "capital_improvement",
    "IMPROVEMENTS": "capital_improvement",
    "CAPITAL": "capital_improvement",
    "MERGE": "merge_railroads",
}
# Two-word spellings that name an action by their first word alone.
_SECOND_WORDS: dict[str, dict[str, str]] = {
    "ISSUE": {
        "STOCK": "issue_stock",
        "SHARES": "issue_stock",
        "BONDS": "issue_bonds",
        "BOND": "issue_bonds",
    },
    "RATE": {"WAR": "rate_war", "WARS": "rate_war"},
}
# Words a player may add that carry no meaning ("BUY 100 SHARES OF NYC").
_FILLER = frozenset(
    {
        "OF",
        "INTO",
        "WITH",
        "TO",
        "FOR",
        "ON",
        "AT",
        "IN",
        "SHARES",
        "SHARE",
        "SHS",
        "PER",
        "ACRES",
        "TRACK",
        "BONDS",
        "BOND",
        "LOAN",
        "PC",
        "ROW",
        "STOCK",
        "THE",
        "WAR",
        "LAND",
    }
)
_ALL_WORDS = sorted(set(_PERSONAL_WORDS) | set(_RAILROAD_WORDS) | set(_SECOND_WORDS))


# The canonical spelling of each order's action (what `format_order` writes
# and the errors name), and an example of each for the errors' hints.
_CANONICAL: dict[str, str] = {
    "character_name": "NAME",
    "borrow": "BORROW",
    "repay_loan": "REPAY",
    "bid_pc": "BID",
    "offer_pc": "OFFER",
    "incorporate_pc": "INCORPORATE",
    "merge_pc": "MERGE",
    "buy_treasury": "TREASURY",
    "lend_to_railroad": "LEND",
    "collect_from_railroad": "COLLECT",
    "prodigal": "PRODIGAL",
    "spy": "SPY",
    "spy_player": "SPY PLAYER",
    "spy_railroad": "SPY RAILROAD",
    "request_presidency": "PRESIDENT",
    "buy": "BUY",
    "sell": "SELL",
    "short": "SHORT",
    "cover": "COVER",
    "dividend": "DIVIDEND",
    "issue_stock": "ISSUE STOCK",
    "issue_bonds": "ISSUE BONDS",
    "redeem_bonds": "REDEEM BONDS",
    "short_loan": "LOAN",
    "repay_short_loan": "REPAY LOAN",
    "bid_row": "BID",
    "build_row": "BUILD",
    "sell_land": "SELL LAND",
    "double_track": "DOUBLE TRACK",
    "upgrade_locomotive": "LOCOMOTIVE",
    "buy_technology": "TECHNOLOGY",
    "political_donation": "DONATE",
    "rate_war": "RATE WAR",
    "capital_improvement": "IMPROVE",
    "merge_railroads": "MERGE",
}

_EXAMPLES: dict[str, str] = {
    "borrow": "e.g. BORROW 1000",
    "repay_loan": "e.g. REPAY 500",
    "bid_pc": "e.g. BID B&M 650",
    "PC": "e.g. BID B&M 650, INCORPORATE B&M, MERGE B&M INTO NYC",
    "RoW": "e.g. BID NY1 300 or BUILD NY1 under the railroad's section",
    "railroad": "e.g. BUY 100 NYC, PRESIDENT NYC, LEND NYC 500",
    "line": "e.g. DOUBLE TRACK NYC",
    "amount": "write the amount in dollars, e.g. 1500",
    "dividend": "e.g. DIVIDEND 3 (dollars per share, 0 to 99)",
    "buy_technology": "e.g. TECHNOLOGY B, or TECHNOLOGY A Boston for a Grand Station",
    "player number": "e.g. SPY 7",
    "player number or railroad": "e.g. SPY 7 (a player) or SPY NYC (a railroad)",
    "locomotive": "e.g. LOCOMOTIVE 3",
    "number of shares": "e.g. ISSUE STOCK 100",
    "number of acres": "e.g. SELL LAND 100",
}
