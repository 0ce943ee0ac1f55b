"""Error types shared by every layer.

A `TurnprocError` carries a message fit to show a moderator or player as one
line; the command line prints it without a traceback and exits with
`exit_code`.
"""


class TurnprocError(Exception):
    """A failure the user can act on, described in one line."""

    exit_code = 1


class UsageError(TurnprocError):
    """The command was called with arguments that make no sense."""

    exit_code = 2


class EngineError(Exception):
    """A broken invariant inside the rules engine: a bug, never bad input."""
