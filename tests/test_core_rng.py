"""A stream is `random.Random` seeded from the digest of the game's seed, turn
and name. Every stored game replays through these draws, so they are pinned:
the same numbers as ever, gaussian draws included."""

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


def test_a_stream_draws_what_it_always_drew() -> None:
    for (seed, turn, name), first, second in [
        ((1, 0, "climate"), 0.8884797178305821, 772),
        ((7, 21, "game-end"), 0.6010657004952725, 910),
        ((2**40, 13, "ops/ALT"), 0.5262322556986703, 902),
    ]:
        generator = rng.stream(seed, turn, name)
        assert (generator.random(), generator.randrange(1000)) == (first, second)


def test_streams_of_other_names_or_turns_differ() -> None:
    draws = {rng.stream(1, turn, name).random() for turn in (1, 2) for name in ("a", "b")}
    assert len(draws) == 4
