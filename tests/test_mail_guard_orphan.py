"""A killed `mail ingest` takes the child processing its message along, so no
orphan stores a message the killed run left "received" (mail/guard.py)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = """
import os, sys, time
from turnproc.mail.guard import within_budget

def work() -> int:
    with open(sys.argv[1], "w") as out:
        out.write(str(os.getpid()))
    time.sleep(600)
    return 0

within_budget(work)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie waiting for its reaper is dead


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_message_child_dies_with_a_killed_ingest(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", CHILD, str(pid_file)])
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.1)
    child = int(pid_file.read_text())
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=60)
    for _ in range(200):  # the child would sleep 600 s
        if not _alive(child):
            break
        time.sleep(0.1)
    still = _alive(child)
    if still:
        os.kill(child, signal.SIGKILL)
    assert not still, "the child went on after its parent was killed"
