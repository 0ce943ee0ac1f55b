"""Seeded random streams.

Every random draw in a game comes from a stream named by the game's seed, the
turn number and a stream name, so replaying a turn's orders reproduces it
exactly and adding a draw in one step never shifts the draws of another.
"""

import hashlib
import random


def stream(seed: int, turn: int, name: str) -> random.Random:
    """A private generator for one purpose in one turn of one game."""
    digest = hashlib.sha256(f"{seed}/{turn}/{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
