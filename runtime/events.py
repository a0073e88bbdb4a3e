"""A deterministic event queue for the discrete-event simulator.

Input: events pushed with an exact time (``Fraction``).  Output: events popped in the order
(time, kind, agent rank, plan index, insertion number).  At one instant the kinds run in this order:
``END`` (chunks finish, agents and resources are released, properties set), ``START`` (chunks start),
``CHECK`` (deadlines, maximum lags and the time limit are checked).  So a step may start exactly when
its prerequisite ends, a resource freed at t can be taken at t, and a maximum lag of L allows a start at
exactly end + L.  Starts at one instant run by agent order (the scenario's agent list), then plan order.
"""
from __future__ import annotations

import heapq
import itertools
from fractions import Fraction
from typing import Any, Optional

END, START, CHECK = 0, 1, 2


class EventQueue:
    def __init__(self) -> None:
        self._heap: list = []
        self.counter = itertools.count()     # insertion numbers (shared by forks of a state)

    def push(self, time: Fraction, kind: int, event: Any, agent_rank: int = 0, index: int = -1) -> None:
        heapq.heappush(self._heap, (time, kind, agent_rank, index, next(self.counter), event))

    def peek_time(self) -> Optional[Fraction]:
        return self._heap[0][0] if self._heap else None

    def pop(self) -> tuple[Fraction, int, Any]:
        time, kind, _, _, _, event = heapq.heappop(self._heap)
        return time, kind, event

    def pending(self, kind: int) -> list:
        """The queued events of one kind (in no particular order)."""
        return [entry[-1] for entry in self._heap if entry[1] == kind]

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
