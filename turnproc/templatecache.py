"""Compiled Jinja2 templates kept between processes.

Every `turnproc turn run` compiled the report's wording (some 65 templates)
and its text body again before rendering: about 0.08 CPU seconds of each
turn's process (README, Speed). A template's compiled code depends only on
its source, its name, the environment's syntax settings and filters, and the
versions of Jinja2 and Python; it is kept, marshalled, in the user's cache
folder under the digest of all of these, and read back when a later process
asks for the same. The folder is `TURNPROC_CACHE_DIR`, else
`$XDG_CACHE_HOME/turnproc/templates`, else `~/.cache/turnproc/templates`.

A file is written whole (a temporary file renamed over it), so two processes
compiling the same template at once leave one whole file. A folder that
cannot be made or written, one that others may write (its code would run
here), and a file that cannot be read back are all taken as no cache: the
template is compiled as before. The cache never changes what a template
renders, only whether its code is compiled again.
"""

import hashlib
import marshal
import os
import stat
import sys
import tempfile
from pathlib import Path
from types import CodeType

import jinja2
from jinja2 import Environment, Template

CACHE_ENV = "TURNPROC_CACHE_DIR"


def cache_folder() -> Path:
    """Where compiled templates are kept (see the module's docstring)."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "turnproc" / "templates"


def compiled(
    env: Environment, source: str, name: str | None = None, filename: str | None = None
) -> Template:
    """`env.from_string(source)` (or, with `name` and `filename`, the template
    `env`'s loader reads from that file), its code compiled once per cache."""
    code = None
    folder = _usable(cache_folder())
    key = _key(env, source, name, filename)
    if folder is not None and key is not None:
        code = _read(folder / f"{key}.code")
    if code is None:
        code = env.compile(source, name, filename)
        if folder is not None and key is not None:
            _write(folder, f"{key}.code", code)
    return env.template_class.from_code(env, code, env.make_globals(None), None)


def _key(env: Environment, source: str, name: str | None, filename: str | None) -> str | None:
    """The digest of everything the compiled code depends on; None when the
    environment's escaping is decided by a function (not a setting to digest)."""
    if not isinstance(env.autoescape, bool):
        return None
    settings = (
        jinja2.__version__,
        sys.version,
        sys.implementation.cache_tag,
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.autoescape,
        env.optimized,
        env.is_async,
        sorted(env.extensions),
        sorted(env.filters),
        sorted(env.tests),
        name,
        filename,
    )
    digest = hashlib.sha256(repr(settings).encode("utf-8"))
    digest.update(b"\0")
    digest.update(source.encode("utf-8"))
    return digest.hexdigest()


def _usable(folder: Path) -> Path | None:
    """`folder`, made if need be, when it is this user's and nobody else may
    write in it; else None."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


def _read(path: Path) -> CodeType | None:
    try:
        code = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _write(folder: Path, filename: str, code: CodeType) -> None:
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(marshal.dumps(code))
        os.replace(temporary, folder / filename)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
