"""Runs the command line in a child process for the crash and concurrency tests,
with the storage tests' stand-in turn: `python -m tests.store_driver ARGS...`.

Prints "ready" once imported, so a test can time its kill into the turn's work.
"""

import sys

from turnproc import batch
from turnproc.cli import main

from .store_support import stand_in_family

if __name__ == "__main__":
    batch.family_of = stand_in_family
    batch.start_reports = batch.start_summary_reports
    print("ready", flush=True)
    sys.exit(main(sys.argv[1:]))
