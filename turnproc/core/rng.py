"""Seeded random streams.

Every random draw in a game comes from a stream named by the game's seed, the
turn number and a stream name, so replaying a turn's orders reproduces it
exactly and adding a draw in one step never shifts the draws of another.
"""

import _random
import hashlib
import random

# `random.Random(n)` seeds its generator twice (its C constructor, then its
# Python `__init__` through `seed`); a stream is seeded once, by the C seed
# `Random.seed` itself calls for an integer, and is the same generator.
_new = random.Random.__new__
_seed = _random.Random.seed


def stream(seed: int, turn: int, name: str) -> random.Random:
    """A private generator for one purpose in one turn of one game."""
    digest = hashlib.sha256(f"{seed}/{turn}/{name}".encode()).digest()
    generator = _new(random.Random)
    _seed(generator, int.from_bytes(digest[:8], "big"))
    generator.__dict__["gauss_next"] = None  # as `Random.seed` leaves it
    return generator
