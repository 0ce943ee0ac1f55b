"""Writing output files whole: under its final name a file is either the old
one or the complete new one, never a truncated one (a full disk, a kill).

The text goes to a temporary name in the same folder, is flushed to the disk
(fsync), and is renamed over the final name; the rename is atomic within one
file system, and the folder is synced so the new name survives a crash.
"""

import os
import secrets
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` completely or not at all (the temporary file of
    a failed write is removed, and the error raised)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    # Created like any new file (mode 0666 less the umask), unlike mkstemp's 0600.
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
