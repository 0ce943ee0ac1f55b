"""Collecting garbage rarely while a batch of short-lived objects is made.

A turn resolved, a game simulated, a turn's reports rendered: each makes tens
of thousands of short-lived containers (events, ledger entries, the working
state, flowables, table rows), nearly all freed by reference counting. With
Python's default threshold (700 allocations) the cyclic collector runs many
times over objects that are about to go anyway: measured, some 170 times in a
simulated 25-turn game (about 4% of its instructions, cachegrind) and 43 times
while one process rendered the bench turn's 15 reports (0.18 of its 2.7 CPU
seconds, one of them over every object of the game). With 50,000, once or twice.
"""

import contextlib
import gc
from collections.abc import Iterator

YOUNG = 50_000


@contextlib.contextmanager
def few_collections(young: int = YOUNG) -> Iterator[None]:
    """Collect the youngest generation only every `young` allocations while
    the block runs (processes forked meanwhile keep the setting); the
    thresholds are put back afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], young), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
