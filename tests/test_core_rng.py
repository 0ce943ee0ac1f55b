"""A stream is `random.Random` seeded from the game's seed, turn and name: the
generator made without the constructor's double seeding draws the same
numbers, gaussian draws included, and is a `random.Random`."""

import hashlib
import random

from turnproc.core import rng


def _reference(seed: int, turn: int, name: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}/{turn}/{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def test_a_stream_draws_what_random_seeded_from_its_digest_draws() -> None:
    for seed, turn, name in [(1, 0, "climate"), (7, 21, "game-end"), (2**40, 13, "ops/ALT")]:
        ours, theirs = rng.stream(seed, turn, name), _reference(seed, turn, name)
        assert isinstance(ours, random.Random)
        for _ in range(50):
            assert ours.random() == theirs.random()
            assert ours.randrange(1000) == theirs.randrange(1000)
            assert ours.uniform(-3, 9) == theirs.uniform(-3, 9)
            assert ours.gauss(0, 1) == theirs.gauss(0, 1)
        assert ours.getstate() == theirs.getstate()


def test_streams_of_other_names_or_turns_differ() -> None:
    draws = {rng.stream(1, turn, name).random() for turn in (1, 2) for name in ("a", "b")}
    assert len(draws) == 4
