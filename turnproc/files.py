"""Writing output files whole: under its final name a file is either the old
one or the complete new one, never a truncated one (a full disk, a kill).

The text goes to a temporary name in the same folder, is flushed to the disk
(fsync), and is renamed over the final name; the rename is atomic within one
file system, and the folder is synced so the new name survives a crash.
"""

import os
import tempfile
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` completely or not at all (the temporary file of
    a failed write is removed, and the error raised)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
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
