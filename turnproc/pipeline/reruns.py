"""Turns run again after a rollback or a re-run: their reports say they replace
the earlier ones, and why (docs/moderator.md, Corrections).

Read from the moderator's log, which a rollback never shortens: a turn that
was run before and rolled back since is run again; the reason is the
rollback's (or the re-run's). A turn run records it in its own log entry, so
a report rendered again from the store says what the mailed one said.
"""

import json
from collections.abc import Sequence

from turnproc.store.models import ModeratorLog

# The log actions that undo turn runs.
UNDOING = frozenset({"rollback", "rerun"})
# What `rerun_reason` and `stored_rerun_reason` read of the log.
RERUN_LOG = UNDOING | {"turn_run"}


def rerun_reason(entries: Sequence[ModeratorLog], turn: int) -> str | None:
    """As `turn` is run: None if it was never run before, else the reason of the
    last rollback or re-run that undid its earlier run ("" if none was given).
    `entries`: the game's log of `RERUN_LOG`, in order."""
    last_run = None
    reason = ""
    for entry in entries:
        if entry.action == "turn_run" and entry.turn == turn:
            last_run, reason = entry, ""
        elif (
            last_run is not None
            and entry.action in UNDOING
            and entry.turn is not None
            and entry.turn <= turn
        ):
            reason = entry.reason
    return None if last_run is None else reason


def stored_rerun_reason(entries: Sequence[ModeratorLog], turn: int) -> str | None:
    """What the stored run of `turn` recorded (`rerun_reason` when it ran)."""
    runs = [e for e in entries if e.action == "turn_run" and e.turn == turn]
    if not runs:
        return None
    replaces = json.loads(runs[-1].details).get("replaces")
    return replaces if isinstance(replaces, str) else None
