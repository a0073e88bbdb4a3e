"""Where the parser tables are cached: a private per-user file, or nowhere.

Input: the grammar text.  Output: ``cache_file(grammar)``, the path string to pass as ``Lark(cache=...)``,
or ``False`` (build the parser without a cache).

lark's own ``cache=True`` unpickles a predictable file in the shared temporary directory, so anyone who can
write there could run code in our process.  The cache lives instead in ``$XDG_CACHE_HOME/chronoplan`` (an
absolute path) or ``~/.cache/chronoplan``, created with mode 0700, and is used only when that directory is a
real directory (not a symlink) owned by the current user with no group or other permission bits, and the
cache file, if it exists, is a regular file owned by the user that neither group nor others can write.
The file name carries a hash of the grammar text, lark's version and Python's version.  Any failed check,
or a directory that cannot be created, means no cache (about 0.2 s more start-up; docs/language.md, Limits).
"""
from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Optional, Union


def cache_dir() -> Optional[Path]:
    """The private cache directory (created if missing), or None if it is missing, shared or not ours."""
    if not hasattr(os, "getuid"):
        return None
    try:
        base = os.environ.get("XDG_CACHE_HOME", "")
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        path = root / "chronoplan"
        if not os.path.lexists(path):
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.mkdir(mode=0o700)
        st = os.lstat(path)
    except (OSError, RuntimeError, KeyError, ValueError):
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return path


def _file_ok(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True                      # lark writes it (inside our private directory)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def cache_file(grammar: str) -> Union[str, bool]:
    """The cache path for ``grammar`` in the private directory, or False when it must not be used."""
    import lark
    directory = cache_dir()
    if directory is None:
        return False
    key = f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}"
    path = directory / f"grammar-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}.lark-cache"
    return str(path) if _file_ok(path) else False
