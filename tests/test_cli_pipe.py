"""The command line when its reader stops early (`turnproc ... | head`)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "turnproc.cli", "scenario", "show", "continental-rails", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10)  # the reader takes a little, then goes away
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
