"""PDDL plans <-> timed schedules of a step-level scenario.

Input: a ``PddlExport`` (``compiler.pddl.common``) and either a planner's plan (text in the usual
``time: (action args) [duration]`` form, or a list of ``PlanAction``) or a timed schedule (chunks with
task, step, start, duration, agent).  Output:
- ``parse_plan(text)``: ``PlanAction`` values (tolerant of LPG's ``[d])`` lines, comments, sequential
  plans without times);
- ``to_schedule(export, actions)``: ``Mapped`` (one ``TimedEntry`` per step, in scenario time units, or the
  reasons it could not be mapped); a classical plan's order is rescheduled by ``schedule_sequence``;
- ``retime(problem, entries, grid)``: the earliest schedule that keeps the plan's decisions (agent and
  resource order, prerequisites, lags, property supports): removes PDDL's epsilon separations;
- ``to_pddl_plan(export, chunks)``: the PDDL plan text of a schedule (with the helper actions: running
  parts, lag timers and envelopes, and epsilon separations), for checking schedules with VAL.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.compiler.pddl.common import PddlExport
from chronoplan.compiler.pddl.temporal import is_split
from chronoplan.compiler.pddl.write import num


@dataclass(frozen=True)
class PlanAction:
    start: Fraction
    name: str
    args: tuple[str, ...]
    duration: Optional[Fraction]


@dataclass(frozen=True)
class TimedEntry:
    task: str
    step: int
    start: Fraction
    duration: Fraction
    agent: str

    def to_json(self) -> dict:
        def j(x: Fraction):
            return x.numerator if x.denominator == 1 else float(x)
        return {"task": self.task, "step": self.step, "start": j(self.start), "duration": j(self.duration),
                "agent": self.agent}


@dataclass(frozen=True)
class Mapped:
    entries: tuple[TimedEntry, ...]
    problems: tuple[str, ...]              # why some actions could not be mapped (empty when all fine)
    pddl_makespan: Optional[Fraction]      # end of the last action of the PDDL plan, in scenario units


_NUM = r"[-+]?\d{1,18}(?:\.\d{0,18})?(?:[eE][-+]?\d{1,2})?"
_LINE = re.compile(r"^\s*(?:(?P<t>" + _NUM + r")\s*:)?\s*\((?P<body>[^()]*)\)"
                   r"\s*(?:\[\s*(?P<d>" + _NUM + r")\s*\])?")


def _frac(text: str) -> Fraction:
    return Fraction(text)            # bounded by _NUM: at most 18 digits and a two-digit exponent


def parse_plan(text: str) -> list[PlanAction]:
    """Plan lines ``t: (name args) [d]`` (temporal) or ``(name args)`` (sequential; start = position)."""
    out: list[PlanAction] = []
    for raw in text.splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        m = _LINE.match(line)
        if not m:
            continue
        words = m.group("body").split()
        if not words:
            continue
        start = _frac(m.group("t")) if m.group("t") else Fraction(len(out))
        dur = _frac(m.group("d")) if m.group("d") else None
        out.append(PlanAction(start, words[0].lower(), tuple(w.lower() for w in words[1:]), dur))
    return out


def plan_text(actions: Iterable[PlanAction]) -> str:
    """VAL's plan format: ``t: (name args) [d]`` per line; a plan without any duration is sequential and
    written as ``(name args)`` lines in order of start."""
    acts = sorted(actions, key=lambda a: (a.start, a.name, a.args))
    timed = any(a.duration is not None for a in acts)
    lines = []
    for a in acts:
        call = "(" + " ".join((a.name,) + tuple(a.args)) + ")"
        if not timed:
            lines.append(call)
        elif a.duration is None:
            lines.append(f"{_dec(a.start)}: {call}")
        else:
            lines.append(f"{_dec(a.start)}: {call} [{_dec(a.duration)}]")
    return "".join(x + "\n" for x in lines)


def _dec(x: Fraction) -> str:
    try:
        return num(x)
    except ValueError:
        return f"{float(x):.9f}".rstrip("0").rstrip(".")


# ------------------------------------------------------------------------------------------ back
def _source(export: PddlExport) -> ProcedureProblem:
    """The procedure problem a procedure export was made from (kitchen exports have none)."""
    if export.source is None:
        raise ValueError(f"the export of {export.scenario} has no procedure problem to map plans onto")
    return export.source


def to_schedule(export: PddlExport, actions: Iterable[PlanAction]) -> Mapped:
    problem = _source(export)
    actions = sorted(actions, key=lambda a: (a.start, a.name, a.args))
    problems: list = []
    firsts: dict = {}
    last_end = None
    for a in actions:
        info = export.actions.get(a.name.lower())
        if info is None:
            problems.append(f"the plan uses an action the export does not have: {a.name}")
            continue
        if a.duration is not None:
            end = a.start + a.duration
            last_end = end if last_end is None or end > last_end else last_end
        if info.kind != "step":
            continue
        if info.key in firsts:
            problems.append(f"step {info.key[1]} of {info.key[0]} runs twice")
            continue
        agent = None
        if info.agent_param is not None and info.agent_param < len(a.args):
            agent = export.agent_of(a.args[info.agent_param])
            if agent is None:
                problems.append(f"unknown agent {a.args[info.agent_param]} in {a.name}")
        firsts[info.key] = (a, agent)
    scale = export.scale
    if export.classical:
        order = [k for k, _ in sorted(firsts.items(), key=lambda kv: (kv[1][0].start, kv[1][0].name))]
        entries = schedule_sequence(problem, order)
        return Mapped(tuple(entries), tuple(problems), None)
    entries = []
    for key, (a, agent) in firsts.items():
        s = problem.step(*key)
        if s is None:                                   # the export's actions name only the problem's steps
            continue
        dur = s.duration
        if not is_split(s) and a.duration is not None:
            dur = scale.from_pddl(a.duration)
        entries.append(TimedEntry(key[0], key[1], scale.from_pddl(a.start), dur, agent or problem.agents[0]))
    entries.sort(key=lambda e: (e.start, e.task, e.step))
    return Mapped(tuple(entries), tuple(problems), None if last_end is None else scale.from_pddl(last_end))


def schedule_sequence(problem: ProcedureProblem, order: list) -> list[TimedEntry]:  # noqa: C901
    """Serial schedule generation with backfilling: each step of ``order`` starts at the earliest time at
    which its prerequisites (and minimum lags, release) are over, one agent is free for its occupation and
    its resources have room.  Steps that touch one property keep the order's meaning: a step that needs a
    value starts after the last setter before it in the order has completed; a setter starts no earlier
    than the steps before it that need or set that property (so it completes after them)."""
    placed: dict = {}                                   # key -> TimedEntry
    exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE   # no start while the agent is busy
    busy: dict = {a: [] for a in problem.agents}        # agent -> [(start, end)]
    points: dict = {a: [] for a in problem.agents}      # agent -> autonomous starts (occupancy exclusive)
    held: dict = {}                                     # resource -> [(start, end)]
    cap = {r.name: r.capacity for r in problem.resources}
    last_setter: dict = {}                              # (resource, prop) -> key
    touched: dict = {}                                  # (resource, prop) -> latest start of a user so far
    out = []
    for key in order:
        s = problem.step(*key)
        if s is None or key in placed:
            continue
        t = s.release or Fraction(0)
        for q in s.prerequisites:
            e = placed.get((s.task, q))
            if e is not None:
                t = max(t, e.start + e.duration)
        for lag in s.lags:
            e = placed.get((s.task, lag.other))
            if e is not None and lag.min is not None:
                t = max(t, e.start + e.duration + lag.min)
        for u in s.uses:
            for k, _ in u.needs:
                sk = last_setter.get((u.resource, k))
                if sk is not None:
                    e = placed[sk]
                    t = max(t, e.start + e.duration)
            for k, _ in u.sets:
                t = max(t, touched.get((u.resource, k), t))
                sk = last_setter.get((u.resource, k))
                if sk is not None:
                    t = max(t, placed[sk].start + placed[sk].duration)
        occ = s.occupation()
        cands = sorted({t} | {x for iv in busy.values() for _, x in iv if x > t}
                       | {x for iv in held.values() for _, x in iv if x > t}
                       | {x for ps in points.values() for x in ps if x > t})
        chosen: Optional[tuple] = None
        for c in cands:
            if any(sum(1 for a, b in held.get(u.resource, ()) if a < c + s.duration and c < b) >= cap.get(u.resource, 1)
                   for u in s.uses):
                continue
            if occ == 0:
                idle = [ag for ag in problem.agents if not exclusive or not any(a < c < b for a, b in busy[ag])]
                if idle:
                    chosen = (c, idle[0])
                    break
                continue
            free = [ag for ag in problem.agents if not any(a < c + occ and c < b for a, b in busy[ag])
                    and not any(c < x < c + occ for x in points[ag])]
            if free:
                chosen = (c, free[0])
                break
        assert chosen is not None, "the latest candidate instant always fits"
        c, agent = chosen
        if occ > 0:
            busy[agent].append((c, c + occ))
        elif exclusive:
            points[agent].append(c)
        for u in s.uses:
            held.setdefault(u.resource, []).append((c, c + s.duration))
            for k, _ in tuple(u.needs) + tuple(u.sets):
                touched[(u.resource, k)] = max(c, touched.get((u.resource, k), c))
            for k, _ in u.sets:
                last_setter[(u.resource, k)] = key
        e = TimedEntry(s.task, s.index, c, s.duration, agent)
        placed[key] = e
        out.append(e)
    return out


def retime(problem: ProcedureProblem, entries: Iterable[TimedEntry], grid: Fraction) -> Optional[list]:  # noqa: C901
    """The earliest start times that keep every ordering decision of ``entries`` (one chunk per step):
    agent occupations and resource holdings that do not overlap stay in order, prerequisites, minimum and
    maximum lags, releases, and which setter supports each property need.  None when the decisions are
    inconsistent without the plan's epsilon gaps (a positive cycle)."""
    es = list(entries)
    n = len(es)
    exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
    found = [problem.step(e.task, e.step) for e in es]
    steps = [s for s in found if s is not None]
    if len(steps) < len(found):
        return None
    idx = {(e.task, e.step): i for i, e in enumerate(es)}
    occ = [s.occupation() if s.occupancy is not None else e.duration for s, e in zip(steps, es)]
    dur = [e.duration for e in es]
    edges: list = []                                    # (i, j, w): t_j >= t_i + w
    for j, s in enumerate(steps):
        for q in s.prerequisites:
            i = idx.get((s.task, q))
            if i is not None:
                edges.append((i, j, dur[i]))
        for lag in s.lags:
            i = idx.get((s.task, lag.other))
            if i is None:
                continue
            if lag.min is not None:
                edges.append((i, j, dur[i] + lag.min))
            if lag.max is not None:
                edges.append((j, i, -(dur[i] + lag.max)))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            ei, ej = es[i], es[j]
            if ei.agent == ej.agent and occ[i] > 0 and occ[j] > 0 and ei.start + occ[i] <= ej.start:
                edges.append((i, j, occ[i]))
            elif ei.agent == ej.agent and occ[i] > 0 and occ[j] == 0 and exclusive:   # j starts outside i
                if ei.start + occ[i] <= ej.start:
                    edges.append((i, j, occ[i]))
                elif ej.start <= ei.start:
                    edges.append((j, i, 0))
            ri = {u.resource for u in steps[i].uses}
            if ri & {u.resource for u in steps[j].uses} and ei.start + dur[i] <= ej.start:
                edges.append((i, j, dur[i]))
            for u in steps[j].uses:                     # j needs a value; i sets that property
                for k, v in u.needs:
                    for ui in steps[i].uses:
                        if ui.resource != u.resource:
                            continue
                        for k2, v2 in ui.sets:
                            if k2 != k:
                                continue
                            if ei.start + dur[i] <= ej.start:
                                edges.append((i, j, dur[i]))
                            elif v2 != v:               # i completes after j starts: keep it so
                                edges.append((j, i, grid - dur[i]))
    t = [max(Fraction(0), s.release or Fraction(0)) for s in steps]
    for _ in range(n + 1):
        changed = False
        for i, j, w in edges:
            if t[i] + w > t[j]:
                t[j] = t[i] + w
                changed = True
        if not changed:
            break
    else:
        return None
    return sorted((TimedEntry(e.task, e.step, t[i], e.duration, e.agent) for i, e in enumerate(es)),
                  key=lambda e: (e.start, e.task, e.step))


# ------------------------------------------------------------------------------------------ forth
@dataclass(frozen=True)
class _Act:
    name: str
    args: tuple
    real: Fraction          # start in scenario time
    dur: Fraction           # PDDL duration
    kind: str
    key: tuple
    other: Optional[tuple] = None


def to_pddl_plan(export: PddlExport, chunks: Iterable) -> tuple[str, Fraction]:  # noqa: C901
    """PDDL plan text for a schedule (objects with task, step, start, duration, agent; one chunk per
    step) and the VAL tolerance to use with it.  Events at one instant are separated by epsilons (ends
    before starts; envelopes open just before their anchor); the epsilons add up to less than a quarter
    of the slack, so schedules that meet deadlines and maximum lags exactly stay valid.  Names that are
    not in the export (unknown tasks, steps or agents) are written as given so that VAL rejects them."""
    if export.classical:
        raise ValueError("to_pddl_plan writes temporal plans")
    p, sc, n = _source(export), export.scale, export.names
    exclusive = p.occupancy is ir.OccupancyRule.EXCLUSIVE      # autonomous starts take (free ?a) too
    acts: list = []
    slot_free: dict = {}                                 # resource -> [free-from time per slot]
    for c in sorted(chunks, key=lambda c: (Fraction(c.start), str(c.task), c.step)):
        s = p.step(c.task, c.step)
        start = Fraction(c.start)
        if s is None:
            acts.append(_Act(f"step-{c.task}-{c.step}".lower(), (), start, Fraction(sc.to_pddl(
                Fraction(c.duration or 0))), "step", (c.task, c.step)))
            continue
        d = Fraction(c.duration) if c.duration is not None else s.duration
        agent = c.agent or p.agents[0]
        aname = n.get(("agent", agent)) or str(agent).lower()
        slots = []
        for u in s.uses:
            if u.resource in _slot_types(export):
                res = p.resource(u.resource)
                frees = slot_free.setdefault(u.resource, [Fraction(-1)] * (res.capacity if res else 1))
                pick = min(range(len(frees)), key=lambda i: (frees[i] > start, frees[i] if frees[i] > start
                                                                else 0, i))
                frees[pick] = start + d
                slots.append(n.get(("slot", u.resource, pick + 1)) or f"slot-{u.resource}-{pick + 1}".lower())
        first = n.get(("step", s.key)) or f"step-{c.task}-{c.step}".lower()
        occ = s.occupation()
        args = ((aname,) if occ > 0 or exclusive else ()) + tuple(slots)
        if is_split(s):
            acts.append(_Act(first, args, start, sc.to_pddl(occ), "step", s.key))
            run = n.get(("run", s.key)) or f"run-{c.task}-{c.step}".lower()
            acts.append(_Act(run, tuple(slots), start + occ, sc.to_pddl(d - occ), "run", s.key))
        else:
            acts.append(_Act(first, args, start, sc.to_pddl(d), "step", s.key))
    starts = {a.key: a for a in acts if a.kind == "step"}
    for name, info in export.actions.items():
        if info.kind in ("wait", "clip") and info.other in starts:
            x = starts[info.other]
            dur = next(a.duration for a in export.domain.actions if a.name == name)
            acts.append(_Act(name, (), x.real, dur, info.kind, info.key, info.other))
    # epsilon offsets: ends before starts at one instant; timers after their anchor; envelopes before
    off: dict = {}
    ends_at: dict = {}
    rank = {"run": 0, "step": 1, "wait": 2}
    known = {a.key: p.step(*a.key) for a in acts if a.kind == "step"}
    watches = {k for k, st in known.items() if st is not None and st.occupation() == 0} if exclusive else set()
    order = sorted((a for a in acts if a.kind in rank),
                   key=lambda a: (a.real, rank[a.kind], a.kind == "step" and a.key not in watches))
    by_first: dict = {}
    watch_at: dict = {}                                  # instant -> last offset of an autonomous start
    for a in order:
        o = 1 + max((off[id(b)] for b in ends_at.get(a.real, ())), default=0)
        if a.kind == "step" and a.key in watches:
            watch_at[a.real] = max(o, watch_at.get(a.real, 0))
        elif a.kind == "step" and a.real in watch_at:      # occupying starts after the (free ?a) checks
            o = max(o, watch_at[a.real] + 1)
        if a.kind == "run":
            o = max(o, off[id(by_first[a.key])] + 1)
        elif a.kind == "wait":
            o = max(o, off[id(starts[a.other])] + 1)
        off[id(a)] = o
        if a.kind == "step":
            by_first[a.key] = a
        end = a.real + sc.from_pddl(a.dur)
        ends_at.setdefault(end, []).append(a)
    for a in acts:
        if a.kind == "clip":
            off[id(a)] = off[id(starts[a.other])] - 1
    top = max(off.values(), default=0) + 2
    eps = Fraction(1)
    while eps * 4 * top > sc.slack:
        eps /= 10
    lines = []
    for a in acts:
        t = sc.to_pddl(a.real) + off[id(a)] * eps
        lines.append((t, a.name, a.args, a.dur))
    lines.sort(key=lambda x: (x[0], x[1], x[2]))
    text = "".join(f"{num(t)}: ({' '.join((name,) + args)}) [{num(d)}]\n" for t, name, args, d in lines)
    return text, eps / 2


def _slot_types(export: PddlExport) -> set:
    out = set()
    for key, _ in export.names.items():
        if isinstance(key, tuple) and key and key[0] == "slot-type":
            out.add(key[1])
    return out
