"""The process table for the signal tests: /proc -> {pid: Proc}, and the descendants of a process.

Input: nothing (reads /proc).  Output: ``table()`` maps every pid to ``Proc(ppid, pgid, sid, start, state, cmd)``
(``start`` is the start time in clock ticks, so a reused pid is told apart; ``state`` "Z" is a zombie).
"""
from __future__ import annotations

import os
from typing import NamedTuple


class Proc(NamedTuple):
    ppid: int
    pgid: int
    sid: int
    start: int
    state: str
    cmd: str


def table() -> dict:
    """pid -> Proc for every process that can be read."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat", encoding="utf-8", errors="replace") as f:
                rest = f.read().rsplit(")", 1)[1]
            fields = rest.split()
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError, IndexError):
            continue
        out[int(p)] = Proc(int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0], cmd)
    return out


def descendants(root: int, procs: dict) -> dict:
    """pid -> Proc of every descendant of ``root`` in ``procs`` (children, their children, ...)."""
    kids: dict = {}
    for pid, row in procs.items():
        kids.setdefault(row.ppid, []).append(pid)
    out: dict = {}
    todo = [root]
    while todo:
        for k in kids.get(todo.pop(), ()):
            if k not in out:
                out[k] = procs[k]
                todo.append(k)
    return out


def alive(pids) -> list:
    """The pids of ``pids`` still running (zombies are dead, only unreaped)."""
    now = table()
    return [p for p in pids if p in now and now[p].state != "Z"]
