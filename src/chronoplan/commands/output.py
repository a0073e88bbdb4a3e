"""Output files of the commands (``solve -o``, ``render -o``, ``pddl -o``, ``import -o``, ``play --log``): checked
first, written atomically.

Input: the output path(s) a command will write and its input paths.  Output: ``output_problem`` -- why a
path cannot be an output (an input file or a ``.chrono`` file under an input directory, which would be
overwritten; a directory where a file is meant; an existing device, FIFO, socket or symbolic link, which
would be replaced or written through; a missing parent directory; a name longer than the system allows; a
NUL character), or None -- checked before any work so that a run never ends by destroying its
input or failing to save an hour of planning; ``write_output`` (text: ``write_atomic``) writes a temporary
file in the target's directory (created when missing) and renames it over the target (``os.replace``), so
an interrupted or failed run leaves either the old file or the complete new one, never half of it, and no
stray temporary file; it refuses a target that is not a regular file.  ``failure`` is the
JSON summary (``--format json``) of a command that wrote nothing: exit status 2, ``{"ok": false, ...,
"error"}``, the message on stderr (``pddl``, ``render``).
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO, Optional, TypeVar

from chronoplan.compiler.sources import exists

NAME_MAX = 255                  # bytes per path component (Linux, macOS); os.pathconf refines it
PATH_MAX = 4096
T = TypeVar("T")


def _limit(path: Path, name: str, default: int) -> int:
    try:
        return int(os.pathconf(str(path), name))
    except (OSError, ValueError, AttributeError):
        return default


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def input_files(paths: Iterable) -> list:
    """The files a command reads: each path, and the ``.chrono`` files under each directory."""
    out = []
    for p in paths:
        p = Path(p)
        try:
            if p.is_dir():
                out += sorted(p.rglob("*.chrono"))
            else:
                out.append(p)
        except OSError:
            out.append(p)
    return out


def output_problem(path, inputs: Iterable, *, directory: bool = False, create_parents: bool = False
                   ) -> Optional[str]:
    """Why ``path`` cannot be written as an output file (``directory``: an output directory) given the
    command's input files (``input_files``), or None."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if not text:
        return "the output path is empty"
    if "\0" in text:
        return "the output path contains a NUL character"
    p = Path(text)
    shown = text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)"
    parent = p.parent
    probe = next((a for a in [parent, *parent.parents] if exists(a)), Path("."))
    name_max = _limit(probe, "PC_NAME_MAX", NAME_MAX)
    for part in p.parts:
        if len(os.fsencode(part)) > name_max:
            return (f"the output name {shown} is too long: a file or directory name has at most {name_max} "
                    f"bytes here, this one has {len(os.fsencode(part))}")
    if len(os.fsencode(text)) >= _limit(probe, "PC_PATH_MAX", PATH_MAX):
        return f"the output path {shown} is too long"
    try:
        if directory:
            if p.exists() and not p.is_dir():
                return f"{shown} exists and is not a directory (-o names the directory to write into)"
        else:
            if p.is_dir():
                return f"{shown} is a directory; give the name of the file to write"
            why = target_problem(p)
            if why is not None:
                return why
            if not create_parents and not parent.is_dir():
                return f"cannot write {shown}: the directory {parent} does not exist"
            if create_parents and not probe.is_dir():     # the folders to create would go under a file
                return f"cannot write {shown}: {probe} is not a directory"
        for inp in inputs:
            if _same(p, Path(inp)):
                return (f"refusing to write {shown}: it is an input of this command and would be "
                        "overwritten; choose another output path")
    except OSError as exc:
        return f"cannot write {shown}: {exc.strerror or exc}"
    return None


class OutputRefused(OSError):
    """The output path names something that is not a regular file (a device, FIFO, socket, symbolic link or
    directory): replacing it or writing through it is refused."""


def target_problem(path) -> Optional[str]:
    """Why the existing ``path`` must not be replaced by an output file (None when it is absent or a regular
    file): ``solve -o /dev/null`` as root would replace the device, a link would be written through, a FIFO
    would block the command."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    if stat.S_ISREG(st.st_mode):
        return None
    kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode)
            else "a named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
            else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
    return (f"{path} is {kind}: an output is written only as a regular file (written to a temporary file "
            "and renamed), so it would not be replaced or written through; give a file name")


def write_output(path, write: Callable[[BinaryIO], T]) -> T:
    """The one output writer of every command (``-o``, ``--log``): ``write(f)`` fills a temporary binary file
    in the target's directory (created with its parents when missing), which is flushed, synced and renamed
    over ``path`` (``os.replace``): an interrupted or failed run (an exception in ``write``, a full disk)
    leaves the old file or none, never half of one, and no stray temporary file.  The new file gets the usual
    permissions (0666 minus the umask, or the old file's mode).  An existing ``path`` that is not a regular
    file is refused (``OutputRefused``, ``target_problem``).  Returns what ``write`` returns; raises OSError."""
    path = Path(path)
    why = target_problem(path)
    if why is not None:
        raise OutputRefused(why)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name[:40]}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        why = target_problem(path)               # replaced by something else while we wrote
        if why is not None:
            raise OutputRefused(why)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return result


def write_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` with ``write_output``."""
    write_output(path, lambda f: f.write(text.encode("utf-8")))
    return Path(path)


def failure(prog: str, message: Optional[str], *, error: Optional[str] = None, **fields) -> tuple[int, dict]:
    """Exit status 2 and the JSON summary of a command that failed before writing its output:
    ``{"ok": False, **fields, "error": message or error}``.  ``message`` (when not None) is printed on stderr
    as ``PROG: error: message``; ``error`` is the summary's text of a failure already reported otherwise
    (diagnostics printed by the command)."""
    if message is not None:
        print(f"{prog}: error: {message}", file=sys.stderr)
    return 2, {"ok": False, **fields, "error": message or error}
