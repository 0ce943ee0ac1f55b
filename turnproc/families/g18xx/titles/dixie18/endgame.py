"""The end of the game and the winner's total (4.5, 6, 6.1)."""

from dataclasses import dataclass

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused


def game_end(title: DixieTitle, event: str, during: str) -> str:
    """6: what is still played after an end event. `event` is "bank_broken",
    "price" or "bankruptcy"; `during` is "stock" or "operating". The game
    never ends during a stock round (11, FAQ)."""
    end = title.end
    if event == "bankruptcy":
        return end.bankruptcy
    if during not in ("stock", "operating"):
        raise Refused("ROUND", "6", "a round is a stock or an operating round")
    if event == "bank_broken":
        return end.bank_broken_in_stock_round if during == "stock" else end.bank_broken
    if event == "price":
        return end.price_reached
    raise Refused("NO_END_EVENT", "6", f"not an end event: {event!r}")


def price_ends_game(title: DixieTitle, price: int) -> bool:
    """4.5, 6b: a market value of $300 ends the game after this operating
    round (the $300 cell is the upper-right corner, ambiguity 11)."""
    return price >= title.end.price


@dataclass(frozen=True)
class Holding:
    """A player's holding of one major for 6.1."""

    percent: int
    price: int  # market value per share; 0 while the president's certificate is unsold (3.1a1)


def net_worth(
    cash: int, holdings: list[Holding], printed_values: list[int], bankrupt: bool = False
) -> int:
    """6.1: cash, stock at market value, privates and minors at printed
    value; a bankrupt player forfeits his cash."""
    stock = sum(h.percent // 10 * h.price for h in holdings)
    return (0 if bankrupt else cash) + stock + sum(printed_values)
