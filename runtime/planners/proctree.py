"""Process-tree bookkeeping for planner runs: every process group a worker's descendants ever used.

Input: the pid of a worker process (started in its own session).  Output: ``Tracker`` -- ``snapshot()``
records the process groups of the worker's living descendants (read from ``/proc``, so it also sees
engines that unified-planning starts in sessions of their own, e.g. Fast Downward's driver and LPG);
``kill_all()`` freezes every group recorded (SIGSTOP), re-reads the tree until no new group appears (a
stopped process cannot start another, so nothing escapes between the last look and the kill), then sends
SIGKILL to every group.  Killing only the worker's own group is not enough:
such engines survive it, reparented to init, and keep a core busy for as long as they search.  A process
group id cannot be reused while the group still has a member, so killing a recorded group never hits an
unrelated process.  On systems without ``/proc`` the tracker knows only the worker's own group.
"""
from __future__ import annotations

import os
import signal


def _table() -> dict:
    """pid -> (ppid, pgid) of every process (empty without /proc)."""
    out: dict = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for p in names:
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[int(p)] = (int(fields[1]), int(fields[2]))
        except (OSError, IndexError, ValueError):
            continue
    return out


def descendants(root: int, table: dict) -> dict:
    """pid -> pgid of every descendant of ``root`` in ``table``."""
    kids: dict = {}
    for pid, (ppid, _) in table.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        for k in kids.get(todo.pop(), ()):
            if k not in out:
                out[k] = table[k][1]
                todo.append(k)
    return out


class Tracker:
    def __init__(self, root: int) -> None:
        self.root = root
        self.groups = {root}                 # the worker leads its own session and group

    def snapshot(self) -> None:
        """Record the groups of the worker's descendants, and of the descendants of every process in a
        recorded group (an engine whose parent died was reparented, out of the worker's tree)."""
        table = _table()
        roots = {self.root} | {pid for pid, (_, pgid) in table.items() if pgid in self.groups}
        for r in roots:
            self.groups.update(descendants(r, table).values())

    def _signal(self, sig) -> None:
        for g in sorted(self.groups):
            try:
                os.killpg(g, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def kill_all(self, rounds: int = 20) -> None:
        """SIGSTOP every recorded group and look again until the set of groups is stable (a process that
        was starting a session of its own when its group stopped is found then), then SIGKILL them all.
        SIGKILL rather than SIGTERM: engines may ignore or be slow on SIGTERM, and the caller removes their
        temporary files itself (they live under its own directory, ``runtime.planners.external``)."""
        for _ in range(rounds):
            before = set(self.groups)
            self._signal(signal.SIGSTOP)
            self.snapshot()
            if self.groups == before:
                break
        self._signal(signal.SIGKILL)
