"""10 Reading one order line: its action word (forgiving abbreviations and
misspellings) and its arguments, into a typed order."""

import difflib
import re
from collections.abc import Callable
from functools import lru_cache

from pydantic import ValidationError

from turnproc.core.sheet_errors import (
    AmbiguousAction,
    BadAmount,
    SheetSyntaxError,
    UnknownAction,
    UnknownName,
)
from turnproc.core.sheet_header import BLANK_RE
from turnproc.families.continental_rails.engine import orders as o
from turnproc.families.continental_rails.turnsheet.language.grammar import (
    _ALL_WORDS,
    _AMOUNT_RE,
    _CANONICAL,
    _EXAMPLES,
    _FILLER,
    _PERSONAL_WORDS,
    _RAILROAD_WORDS,
    _SECOND_WORDS,
    MAX_AMOUNT,
    PERSONAL,
    RAILROAD,
)
from turnproc.families.continental_rails.turnsheet.language.parsed import _Line
from turnproc.families.continental_rails.turnsheet.vocabulary import Vocabulary

# --- reading one order ----------------------------------------------------------


def _tokens(text: str) -> list[str]:
    for mark in ("#", "(", "@"):
        text = text.split(mark, 1)[0]
    return [t for t in (raw.strip(",;.") for raw in text.split()) if t]


def _match_word(line: _Line, word: str, scope: str) -> tuple[str, str] | None:
    """The action meant by `word` as (canonical word, action), noting any guess made."""
    if word in _PERSONAL_WORDS or word in _RAILROAD_WORDS or word in _SECOND_WORDS:
        return word, _meaning(word, scope)
    if len(word) < 3 or not word.isalpha():
        return None
    candidates = _candidates(word)
    if not candidates:
        return None
    meanings = {_meaning(w, scope) for w in candidates}
    if len(meanings) > 1:
        raise line.fail(
            AmbiguousAction,
            f"{word!r} could mean {' or '.join(sorted(candidates))}",
            "write the action word in full",
        )
    chosen = min(candidates, key=len)
    line.note(f"assuming you meant {chosen}")
    return chosen, _meaning(chosen, scope)


@lru_cache(maxsize=4096)
def _candidates(word: str) -> list[str]:
    """Action words `word` may abbreviate, else the ones it may misspell."""
    candidates = [w for w in _ALL_WORDS if w.startswith(word)]
    if candidates or len(word) > 20:
        return candidates
    # Misspellings keep the first letter or swap the first two; comparing only
    # with those words keeps a page of noise cheap to read.
    near = [
        w
        for w in _ALL_WORDS
        if abs(len(w) - len(word)) <= 3 and (w[0] == word[0] or w[1:2] == word[0])
    ]
    candidates = difflib.get_close_matches(word, near, n=3, cutoff=0.75)
    if len(candidates) > 1:
        best = difflib.SequenceMatcher(None, word, candidates[0]).ratio()
        runner = difflib.SequenceMatcher(None, word, candidates[1]).ratio()
        if best - runner >= 0.1:
            candidates = candidates[:1]
    return candidates


def _meaning(word: str, scope: str) -> str:
    if word in _SECOND_WORDS:
        return "?" + word
    if scope == RAILROAD and word in _RAILROAD_WORDS:
        return _RAILROAD_WORDS[word]
    return _PERSONAL_WORDS.get(word) or _RAILROAD_WORDS[word]


def _parse_order(line: _Line) -> o.Order | None:
    tokens = _tokens(line.text)
    if not tokens:
        return None
    railroad = line.railroad
    if tokens[0].endswith(":") and len(tokens) > 1:
        written = tokens[0].rstrip(":")
        prefix = line.vocab.code(written)
        if prefix is None or line.vocab.kinds.get(prefix) != "PC":
            raise line.fail(
                UnknownName,
                f"no railroad {written!r}",
                _suggest(written, line.vocab, "PC", "railroad"),
            )
        railroad = prefix
        tokens = tokens[1:]
    scope = RAILROAD if railroad else PERSONAL
    word = re.sub(r"[^A-Z]", "", tokens[0].upper())
    matched = _match_word(line, word, scope) if word else None
    if matched is None:
        raise line.fail(
            UnknownAction,
            f"{tokens[0]!r} is not an action of the turnsheet",
            "start each line with an action word such as BUY, SELL, BORROW, BID or "
            "DIVIDEND (see the list in the turnsheet guide)",
        )
    canonical, action = matched
    rest = tokens[1:]
    following = rest[0].upper() if rest else ""
    if action.startswith("?"):
        choices = _SECOND_WORDS[canonical]
        if following not in choices:
            raise line.fail(
                AmbiguousAction,
                f"{canonical} needs one of {', '.join(sorted(choices))} after it",
                f"write e.g. {canonical} {next(iter(choices))} ...",
            )
        action = choices[following]
        rest = rest[1:]
    elif canonical == "SELL" and following == "LAND":
        action, rest = "sell_land", rest[1:]
    elif canonical == "BUY" and following == "TREASURY":
        action, rest = "buy_treasury", rest[1:]
    elif canonical == "SPY" and following in ("RAILROAD", "RR"):
        action, rest = "spy_railroad", rest[1:]
    elif canonical == "SPY" and following == "PLAYER":
        action, rest = "spy_player", rest[1:]
    args = [t for t in rest if t.upper() not in _FILLER or line.vocab.code(t) is not None]
    if args and all(BLANK_RE.match(a) for a in args):
        return None  # an unfilled line of the form
    if not args and action != "character_name":
        raise line.fail(
            SheetSyntaxError, f"{canonical} needs more words", _EXAMPLES.get(action, "")
        )
    blank = next((a for a in args if BLANK_RE.match(a)), None)
    if blank is not None:
        raise line.fail(
            SheetSyntaxError,
            f"a blank {blank!r} is left on the line",
            "fill it in or delete the line",
        )
    try:
        if action in _RAILROAD_ONLY:
            return _railroad_order(line, action, args, railroad)
        return _BUILDERS[action](line, args, railroad, _rest_of_line(line.text, tokens[0]))
    except ValidationError as exc:
        raise line.fail(BadAmount, exc.errors()[0]["msg"], _EXAMPLES.get(action, "")) from None


def _rest_of_line(text: str, written: str) -> str:
    """The text after the action word, in the player's own case (for a name or a town)."""
    text = text.split("#", 1)[0].strip()
    found = re.search(rf"(?<!\S){re.escape(written)}(?!\S)", text, re.IGNORECASE)
    return text[found.end() :].strip() if found else ""


# --- argument readers -----------------------------------------------------------


def _amount(
    line: _Line, token: str, what: str = "amount", low: int = 0, high: int = MAX_AMOUNT
) -> int:
    cleaned = token.rstrip("%")
    match = _AMOUNT_RE.match(cleaned)
    if not match:
        raise line.fail(
            BadAmount,
            f"the {what} {token!r} is not a whole number",
            f"write the {what} as digits, e.g. 1500 or $1,500",
        )
    value = int(match.group(1).replace(",", ""))
    if not low <= value <= high:
        raise line.fail(
            BadAmount,
            f"the {what} {value} is outside {low}-{high}",
            f"write a {what} from {low} to {high}",
        )
    return value


def _is_number(token: str) -> bool:
    return bool(_AMOUNT_RE.match(token.rstrip("%")))


def _route(line: _Line, token: str, kind: str | None, what: str) -> str:
    code = line.vocab.code(token)
    if code is None:
        raise line.fail(
            UnknownName, f"no {what} {token!r}", _suggest(token, line.vocab, kind, what)
        )
    actual = line.vocab.kinds.get(code)
    if kind is not None and actual != kind:
        shown = "a PC (or railroad)" if actual == "PC" else "a RoW"
        raise line.fail(
            SheetSyntaxError, f"{code} is {shown}, not a {what}", _EXAMPLES.get(what, "")
        )
    return code


def _suggest(token: str, vocab: Vocabulary, kind: str | None, what: str) -> str:
    if token.isdigit():
        return f"no route has the number {token}; use the {what}'s abbreviation or number"
    named = vocab.by_name(token) if kind in (None, "PC") else []
    if named:
        return "did you mean " + " or ".join(f"{c} ({vocab.names[c]})" for c in named) + "?"
    close = difflib.get_close_matches(token.upper(), vocab.codes_of_kind(kind), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(close) + "?"
    return f"use the {what}'s abbreviation or number as printed in your report"


def _order_code_amount(
    line: _Line, args: list[str], what: str, amount_what: str, amount_first: bool
) -> tuple[str, str]:
    """Which of two words is the code and which the number (code, number).

    Either order is read; when both look like numbers the canonical order
    decides (the number first for stock orders, the code first otherwise).
    """
    if len(args) != 2:
        raise line.fail(
            SheetSyntaxError,
            f"expected {_a(what)} and {_a(amount_what)}, found {len(args)} word(s)",
            _EXAMPLES.get(what, ""),
        )
    first, second = args
    if _is_number(first) and _is_number(second):
        return (second, first) if amount_first else (first, second)
    if _is_number(first):
        return second, first
    if _is_number(second):
        return first, second
    raise line.fail(BadAmount, f"no {amount_what} given", _EXAMPLES.get(what, ""))


def _code_and_amount(
    line: _Line,
    args: list[str],
    kind: str | None,
    what: str,
    amount_what: str,
    amount_first: bool = False,
) -> tuple[str, int]:
    code_token, amount_token = _order_code_amount(line, args, what, amount_what, amount_first)
    return _route(line, code_token, kind, what), _amount(line, amount_token, amount_what)


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _locomotive(line: _Line, args: list[str]) -> int:
    """4.17 A locomotive type by number or by name, as reports write it: 3,
    AMERICAN, "American (3)"."""
    words = " ".join(args).replace("(", " ").replace(")", " ").split()
    if len(words) == 1 and _is_number(words[0]):
        return _amount(line, words[0], "locomotive number", 2, 9)
    names = line.vocab.locomotives
    name = " ".join(w for w in words if not w.isdigit()).casefold()
    if name in names:
        number = names[name]
        written = [int(w) for w in words if w.isdigit()]
        if written and written != [number]:
            raise line.fail(
                BadAmount,
                f"the {name.title()} is locomotive {number}, not {written[0]}",
                f"write LOCOMOTIVE {number}",
            )
        if number < 2:
            raise line.fail(
                BadAmount,
                f"the {name.title()} ({number}) is where every railroad starts",
                "upgrade to locomotive 2 or better",
            )
        return number
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.7)
    if close:
        raise line.fail(
            UnknownName,
            f"no locomotive called {' '.join(words)!r}",
            f"did you mean LOCOMOTIVE {close[0].upper()} ({names[close[0]]})?",
        )
    known = ", ".join(f"{n.title()} ({t})" for n, t in sorted(names.items(), key=lambda x: x[1]))
    raise line.fail(
        SheetSyntaxError,
        f"expected a locomotive number or name, found {' '.join(args)!r}",
        f"e.g. LOCOMOTIVE 3; the types: {known}" if known else _EXAMPLES["locomotive"],
    )


def _one(line: _Line, args: list[str], what: str) -> str:
    if len(args) != 1:
        raise line.fail(
            SheetSyntaxError,
            f"expected one {what}, found {len(args)} word(s)",
            _EXAMPLES.get(what, ""),
        )
    return args[0]


def _need_railroad(line: _Line, railroad: str | None, action: str) -> str:
    if railroad is None:
        raise line.fail(
            SheetSyntaxError,
            f"{_CANONICAL[action]} is a railroad action",
            f"write it under the RAILROAD section of the railroad, or as "
            f"'NYC: {_CANONICAL[action]} ...' with the railroad's abbreviation",
        )
    return railroad


_Builder = Callable[[_Line, list[str], str | None, str], o.Order]


def _b_name(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    rest = " ".join(rest.split())
    if not rest:
        raise line.fail(SheetSyntaxError, "NAME needs the character name", "e.g. NAME Jay Gould")
    if len(rest) > 40:
        raise line.fail(
            SheetSyntaxError, "the name is longer than 40 characters", "choose a shorter name"
        )
    return o.SetCharacterName(name=rest)


def _amount_order(cls: Callable[..., o.Order], what: str = "amount") -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        return cls(amount=_amount(line, _one(line, args, what), what))

    return build


def _b_bid(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    """10.1 BID for a PC, or 10.2 a railroad's BID for a RoW: the route's kind decides."""
    code_token, amount_token = _order_code_amount(line, args, "PC or RoW", "amount", False)
    code = _route(line, code_token, None, "PC or RoW")
    amount = _amount(line, amount_token)
    if line.vocab.kinds.get(code) == "RoW":
        return o.BidForRoW(
            railroad=_need_railroad(line, railroad, "bid_row"), row=code, amount=amount
        )
    return o.BidForPC(pc=code, amount=amount)


def _b_offer(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    pc, price = _code_and_amount(line, args, "PC", "PC", "asking price")
    return o.OfferPC(pc=pc, price=price)


def _b_incorporate(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.IncorporatePC(pc=_route(line, _one(line, args, "PC"), "PC", "PC"))


def _b_merge(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    if len(args) == 2:
        pc = _route(line, args[0], "PC", "PC")
        rr = _route(line, args[1], "PC", "railroad")
        return o.MergePC(pc=pc, railroad=rr)
    if len(args) == 1 and railroad is not None:
        other = _route(line, args[0], "PC", "railroad")
        return o.MergeRailroads(railroad=railroad, other=other)
    raise line.fail(
        SheetSyntaxError,
        "MERGE needs a PC and the railroad it merges into",
        "e.g. MERGE B&M INTO NYC (a PC), or MERGE ERIE under a railroad's section",
    )


def _b_treasury(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    if len(args) == 1 and railroad is not None:
        args = [railroad, *args]
    rr, shares = _code_and_amount(
        line, args, "PC", "railroad", "number of shares", amount_first=True
    )
    return o.BuyTreasuryStock(railroad=rr, shares=_positive(line, shares))


def _positive(line: _Line, value: int) -> int:
    if value <= 0:
        raise line.fail(BadAmount, "the number must be at least 1", "write a number of 1 or more")
    return value


def _rr_amount(cls: Callable[..., o.Order]) -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        if len(args) == 1 and railroad is not None:
            args = [railroad, *args]
        rr, amount = _code_and_amount(line, args, "PC", "railroad", "amount")
        return cls(railroad=rr, amount=amount)

    return build


def _b_spy(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    token = _one(line, args, "player number or railroad")
    if token.isascii() and token.isdigit():
        return o.SpyOnPlayer(target=_amount(line, token, "player number", 1, line.vocab.positions))
    return o.SpyOnRailroad(railroad=_route(line, token, "PC", "railroad"))


def _b_spy_player(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    token = _one(line, args, "player number")
    return o.SpyOnPlayer(target=_amount(line, token, "player number", 1, line.vocab.positions))


def _b_spy_railroad(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.SpyOnRailroad(railroad=_route(line, _one(line, args, "railroad"), "PC", "railroad"))


def _b_president(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
    return o.RequestPresidency(
        railroad=_route(line, _one(line, args, "railroad"), "PC", "railroad")
    )


def _stock(cls: Callable[..., o.Order]) -> _Builder:
    def build(line: _Line, args: list[str], railroad: str | None, rest: str) -> o.Order:
        rr, shares = _code_and_amount(
            line, args, "PC", "railroad", "number of shares", amount_first=True
        )
        return cls(railroad=rr, shares=_positive(line, shares))

    return build


_BUILDERS: dict[str, _Builder] = {
    "character_name": _b_name,
    "borrow": _amount_order(o.Borrow),
    "repay_loan": _amount_order(o.RepayLoan),
    "bid_pc": _b_bid,
    "bid_row": _b_bid,
    "offer_pc": _b_offer,
    "incorporate_pc": _b_incorporate,
    "merge_pc": _b_merge,
    "merge_railroads": _b_merge,
    "buy_treasury": _b_treasury,
    "lend_to_railroad": _rr_amount(o.LendToRailroad),
    "collect_from_railroad": _rr_amount(o.CollectFromRailroad),
    "prodigal": _amount_order(o.ProdigalSpending),
    "spy": _b_spy,
    "spy_player": _b_spy_player,
    "spy_railroad": _b_spy_railroad,
    "request_presidency": _b_president,
    "buy": _stock(o.BuyStock),
    "sell": _stock(o.SellStock),
    "short": _stock(o.ShortSell),
    "cover": _stock(o.CoverShort),
}

_RAILROAD_ONLY = frozenset(
    {
        "dividend",
        "issue_stock",
        "issue_bonds",
        "redeem_bonds",
        "short_loan",
        "repay_short_loan",
        "build_row",
        "sell_land",
        "double_track",
        "upgrade_locomotive",
        "buy_technology",
        "political_donation",
        "rate_war",
        "capital_improvement",
    }
)


def _railroad_order(line: _Line, action: str, args: list[str], railroad: str | None) -> o.Order:
    """10.2 Railroad actions; outside a railroad section the railroad may come first."""
    expected = 2 if action == "rate_war" else 1
    if len(args) > expected:
        code = line.vocab.code(args[0])
        if code is not None and line.vocab.kinds.get(code) == "PC" and railroad in (None, code):
            railroad, args = code, args[1:]
    rr = _need_railroad(line, railroad, action)
    if action == "dividend":
        value = _amount(line, _one(line, args, "dividend"), "dividend", 0, 99)
        return o.SetDividend(railroad=rr, per_share=value)
    if action in ("issue_stock", "sell_land"):
        what = "number of shares" if action == "issue_stock" else "number of acres"
        value = _positive(line, _amount(line, _one(line, args, what), what))
        if action == "issue_stock":
            return o.IssueStock(railroad=rr, shares=value)
        return o.SellLand(railroad=rr, acres=value)
    amount_orders: dict[str, Callable[..., o.Order]] = {
        "issue_bonds": o.IssueBonds,
        "redeem_bonds": o.RedeemBonds,
        "short_loan": o.TakeShortLoan,
        "repay_short_loan": o.RepayShortLoan,
        "political_donation": o.PoliticalDonation,
        "capital_improvement": o.CapitalImprovement,
    }
    if action in amount_orders:
        value = _amount(line, _one(line, args, "amount"))
        return amount_orders[action](railroad=rr, amount=value)
    if action == "build_row":
        return o.BuildRoW(railroad=rr, row=_route(line, _one(line, args, "RoW"), "RoW", "RoW"))
    if action == "double_track":
        return o.DoubleTrack(railroad=rr, line=_route(line, _one(line, args, "line"), None, "line"))
    if action == "upgrade_locomotive":
        return o.UpgradeLocomotive(railroad=rr, locomotive=_locomotive(line, args))
    if action == "buy_technology":
        return _technology(line, args, rr)
    rival, percent = _code_and_amount(line, args, "PC", "railroad", "percent")
    if percent > 90:
        raise line.fail(BadAmount, f"a rate war of {percent}% is over 90%", "write 1 to 90")
    return o.DeclareRateWar(railroad=rr, rival=rival, percent=percent)


def _technology(line: _Line, args: list[str], rr: str) -> o.Order:
    letter = args[0].upper()
    if not re.fullmatch(r"[A-J]", letter):
        raise line.fail(
            UnknownName, f"no technology {args[0]!r}", "technologies are the letters A to J"
        )
    town: str | None = None
    if len(args) > 1:
        after = _rest_of_line(line.text, args[0])
        written = after.split("(", 1)[0].strip() or " ".join(args[1:])
        town = line.vocab.town(written)
        if town is None:
            raise line.fail(
                UnknownName, f"no town {written!r}", "write the town as named on the map"
            )
    return o.BuyTechnology(railroad=rr, technology=letter, town=town)
