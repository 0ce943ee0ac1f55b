"""Runs the command line in a child process for the crash and concurrency tests,
with the storage tests' stand-in turn: `python -m tests.store_driver ARGS...`.

Prints "ready" once imported, so a test can time its kill into the turn's work.
With TURNPROC_TEST_REAL_TURN=1 the real rules engine and report renderer run.
The stand-in is installed on import, not under `__main__`: the worker processes
of `turn run --due --workers N` are spawned, and a spawned process imports this
module again (as `__mp_main__`), so they use the stand-in too.
"""

import os
import sys

from turnproc.cli import main
from turnproc.pipeline import games, reports, turns

from .store_support import stand_in_family

if os.environ.get("TURNPROC_TEST_REAL_TURN") != "1":
    reports.family_of = stand_in_family
    games.family_of = stand_in_family
    turns.family_of = stand_in_family
    reports.start_reports = reports.start_summary_reports
    turns.start_reports = reports.start_summary_reports

if __name__ == "__main__":
    print("ready", flush=True)
    sys.exit(main(sys.argv[1:]))
