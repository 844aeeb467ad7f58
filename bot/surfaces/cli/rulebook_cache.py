"""The bundled rulebooks' index for the command line, kept between runs (like ``.pyc`` files).

Building the index takes ~0.3 s, most of ``pokerfloor rule``'s start-up; unpickling the index
built by an earlier run takes ~25 ms. The cache file is named after a fingerprint of everything
the index is built from (the ``rulings`` package's code and data files, by path, size and
modification time, and the Python and rapidfuzz versions), so any change builds it anew. Extra
books (``RULEBOOK_DIR``, ``--dir``) are never cached. A cache that cannot be read or written is
ignored: the index is built as always.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/pokerfloor``, else ``~/.cache/pokerfloor``."""
    from bot.environment import peek

    base = peek("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "pokerfloor"


def fingerprint() -> str:
    """A digest of what the bundled index is built from (one ``stat`` per file)."""
    import rapidfuzz

    import rulings

    root = Path(rulings.__file__).parent
    digest = hashlib.sha256(f"{sys.version}|{rapidfuzz.__version__}".encode())
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            info = path.stat()
            digest.update(f"{path.relative_to(root)}|{info.st_size}|{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def load_rulebooks(folder: Path | None, *, directory: Path | None = None) -> Any:
    """``rulings.rulebook.load_rulebooks(folder)``, cached when only the bundled books are asked.

    Args:
        folder: extra books (``RULEBOOK_DIR`` or ``--dir``); never cached.
        directory: where the cache lives (default ``cache_dir()``; tests pass their own).
    """
    import rulings
    import rulings.rulebook

    if folder is not None:
        return rulings.rulebook.load_rulebooks(folder)
    path = (directory or cache_dir()) / f"rulebooks-{fingerprint()}.pickle"
    try:
        index = pickle.loads(path.read_bytes())
        if isinstance(index, rulings.rulebook.RuleIndex):
            return index
    except FileNotFoundError:
        pass
    except Exception as exc:  # a damaged or foreign file: build anew
        log.debug("rulebook cache %s unreadable: %r", path, exc)
    index = rulings.rulebook.load_rulebooks(None)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as out:
            out.write(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(out.name, path)  # another run reads either the old file or the whole new one
    except OSError as exc:
        log.debug("rulebook cache %s not written: %r", path, exc)
    return index
