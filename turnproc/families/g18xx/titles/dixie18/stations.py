"""Station tokens of majors and minors: where one may go and what it costs
(4.3)."""

from turnproc.families.g18xx.titles.dixie18.data import DixieTitle
from turnproc.families.g18xx.titles.dixie18.refusals import Refused


def station_cost(title: DixieTitle, stations_bought_before: int) -> int:
    """4.3: $40 for a major's first station beyond its home, $100 after;
    stations inherited from minors are free and do not count (ambiguity 12)."""
    costs = title.station_costs
    return costs.first if stations_bought_before == 0 else costs.later


def check_station(slots: int, stations_there: int, own_there: bool, homes_kept: int) -> None:
    """4.3b-c: one station of a company in a hex; a circle stays free for
    each company, major or minor, whose home this is and who has not placed
    its home station (not for minors removed from play)."""
    if own_there:
        raise Refused("SAME_HEX", "4.3b", "the company already has a station here")
    free = slots - stations_there
    if free <= 0:
        raise Refused("CITY_FULL", "4.3", "every circle of the city is taken")
    if free <= homes_kept:
        raise Refused("HOME_RESERVED", "4.3c", "the last circle is kept for a home station")
