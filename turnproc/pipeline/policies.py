"""The words a moderator chooses a game's policies by. A module of its own,
importing nothing, so the command line offers them without loading the pipeline."""

# What a human's position does in a turn he sent no orders for (docs/moderator.md).
MISSED_TURN_POLICIES = ("computer", "idle", "standing")
