"""Bounds on what one inbound message may cost: header sizes, CPU time, memory.

Two layers, because Python's `email` package parses some headers in time
and memory that grow with the square of their length (a Subject of 30,000
RFC 2047 words takes gigabytes):

- `bound_headers` cuts every over-long header field out of the message's
  header block *before* anything parses it, so the parser only ever sees
  fields of at most MAX_FIELD_BYTES and a block of at most MAX_HEADER_BYTES:
  by construction, a cost that grows with the square of a few kilobytes.
- `within_budget` runs the processing of one message in a forked child with
  resource limits (CPU seconds, address space) and a wall-clock limit, for
  whatever the first layer does not foresee (a MIME part's own headers, a
  library's slow path). A child that exceeds them is killed; the caller
  counts the attempt, and a message cut short twice is quarantined.
"""

import ctypes
import os
import pickle
import resource
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

MAX_HEADER_BYTES = 64 * 1024  # the whole header block; real mail has a few KB
MAX_FIELD_BYTES = 4 * 1024  # one header field, folded lines included
MAX_FIELDS = 400  # header fields kept; Received lines of a long relay chain fit
CPU_SECONDS = 20  # per message: a turnsheet is checked in well under a second
MEMORY_BYTES = 512 * 1024 * 1024  # per message, above what the process has mapped
WALL_SECONDS = 300  # per message, waiting for a game a turn run holds included

T = TypeVar("T")


@dataclass(frozen=True)
class Bounded:
    """A message whose header block is within the limits, and what was cut."""

    raw: bytes
    dropped: tuple[str, ...]  # names of the fields left out (over MAX_FIELD_BYTES)
    truncated: bool  # the header block was longer than MAX_HEADER_BYTES


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent dies


def bound_headers(raw: bytes) -> Bounded:
    """`raw` with every header field longer than MAX_FIELD_BYTES left out, at
    most MAX_FIELDS fields and MAX_HEADER_BYTES of header block kept; the
    body is untouched. Linear in the size of the message."""
    end, separator = _header_end(raw)
    head, body = raw[:end], raw[end:]
    fields: list[bytes] = []
    dropped: list[str] = []
    kept_bytes = 0
    truncated = len(head) > MAX_HEADER_BYTES
    for field in _fields(head):
        name = field.split(b":", 1)[0].strip()[:60].decode("ascii", "replace")
        if len(field) > MAX_FIELD_BYTES:
            dropped.append(name)
            continue
        if len(fields) >= MAX_FIELDS or kept_bytes + len(field) > MAX_HEADER_BYTES:
            truncated = True
            break
        fields.append(field)
        kept_bytes += len(field)
    if not dropped and not truncated:
        return Bounded(raw, (), False)
    if not body and separator:
        body = separator
    return Bounded(b"".join(fields) + body, tuple(dropped), truncated)


def header_fields(raw: bytes) -> list[bytes]:
    """The fields of `raw`'s header block in order, each with its continuation
    lines (an mbox "From " line at the top is a field without a colon)."""
    return _fields(raw[: _header_end(raw)[0]])


def _header_end(raw: bytes) -> tuple[int, bytes]:
    """Where the header block ends (the blank line stays with the body)."""
    if raw.startswith((b"\r\n", b"\n")):
        return 0, b""
    candidates = [(raw.find(sep), sep) for sep in (b"\r\n\r\n", b"\n\n")]
    found = [(index, sep) for index, sep in candidates if index >= 0]
    if not found:
        return len(raw), b"\n"
    index, sep = min(found)
    half = len(sep) // 2
    return index + half, sep[half:]


def _fields(head: bytes) -> list[bytes]:
    """The header block split into fields, each with its continuation lines."""
    fields: list[bytes] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += line
        else:
            fields.append(line)
    return fields


class BudgetExceeded(Exception):
    """The child processing one message was killed or died: `reason` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def within_budget(
    work: Callable[[], T],
    *,
    before: Callable[[], None] | None = None,
) -> T:
    """`work()` run in a forked child under the limits (CPU_SECONDS,
    MEMORY_BYTES, WALL_SECONDS); its (picklable) result.

    `before` runs first in the child (a database engine drops the parent's
    connections there). An exception `work` raises is raised here again;
    a child killed by a limit, or one that dies, raises `BudgetExceeded`."""
    if not hasattr(os, "fork"):
        return work()
    cpu_seconds, memory_bytes, wall_seconds = CPU_SECONDS, MEMORY_BYTES, WALL_SECONDS
    reader, writer = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reader)
        status = 0
        try:
            _die_with(parent)
            _limit(cpu_seconds, memory_bytes)
            if before is not None:
                before()
            payload = pickle.dumps(("ok", work()))
        except MemoryError:
            payload, status = pickle.dumps(("budget", "memory")), 3
        except BaseException as exc:  # handed to the parent, which raises it
            try:
                payload = pickle.dumps(("raise", exc))
            except Exception:
                payload = pickle.dumps(("raise", RuntimeError(f"{type(exc).__name__}: {exc}")))
        try:
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(status)
    os.close(writer)
    chunks: list[bytes] = []
    deadline = time.monotonic() + wall_seconds
    timed_out = False
    with os.fdopen(reader, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([pipe], [], [], left)
            if not ready:
                continue
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        raise BudgetExceeded(f"still running after {wall_seconds:.0f} s (killed)")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        what = {
            int(signal.SIGXCPU): f"more than {cpu_seconds} s of CPU",
            int(signal.SIGKILL): "killed (out of memory, or more CPU than allowed)",
        }.get(sig, f"killed by signal {sig}")
        raise BudgetExceeded(what)
    try:
        kind, value = pickle.loads(b"".join(chunks))
    except Exception:
        raise BudgetExceeded(f"died without an answer (exit {os.WEXITSTATUS(status)})") from None
    if kind == "budget":
        raise BudgetExceeded(f"more than {memory_bytes // (1024 * 1024)} MB of memory")
    if kind == "raise":
        raise value
    result: T = value
    return result


def _die_with(parent: int) -> None:
    """A killed `mail ingest` takes its child along (Linux: PR_SET_PDEATHSIG),
    so no orphan goes on to store a message the killed run left "received":
    the message is then processed whole by the next run, or not at all."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: an orphan may finish its message, as a whole run would
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(4)


def _limit(cpu_seconds: int, memory_bytes: int) -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime)
    resource.setrlimit(resource.RLIMIT_CPU, (spent + cpu_seconds, spent + cpu_seconds + 2))
    mapped = _address_space()
    if mapped:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        wanted = mapped + memory_bytes
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        if soft == resource.RLIM_INFINITY or wanted < soft:
            resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def _address_space() -> int:
    """Bytes of address space this process has mapped (Linux), 0 if unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")
