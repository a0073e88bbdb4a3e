"""Differential test of the fast sweep (runtime.procedure.fast) against the exact engine (procedure.sim over ProcState).

Input: every bundled step-level scenario (domains/recipes with its plans, domains/timearena), the 130
Recipe2Plan scenarios (with and without time constraints, tests/r2pdata) with their reference plans as
Step(...) text and as JSON schedules, and a few hundred random scenarios built here (several agents, both
occupancy rules, interruptible steps, partial occupancy, minimum and maximum lags, resources of capacity 1
and 2, properties set and needed, releases, deadlines, limits, fractional durations), with schedules built
by a greedy scheduler and mutants of them.  Output: for every plan, ``validate_plan`` (fast path on) gives
the same report -- valid, every error with its message and hint, every metric, metric types and the JSON
form -- as ``validate_plan(..., exact=True)``; the sweep accepts a plan exactly when the exact engine finds
it valid and its times are whole multiples of the compiled scale, and never otherwise.
"""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
import r2pdata

import chronoplan
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import (
    ConcreteLag,
    ConcreteUse,
    ProcedureProblem,
    ResourceInstance,
    SchedStep,
    procedure_problem,
)
from chronoplan.runtime.procedure import fast as procfast
from chronoplan.runtime.procedure.records import Chunk
from chronoplan.validators.grade import Grader
from chronoplan.validators.plans import ReadPlan
from chronoplan.validators.replay import validate_plan

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def spy(monkeypatch):
    """Records what the sweep said about each plan: [True (accepted) / False (left to the exact engine)]."""
    calls: list = []
    real = procfast.Compiled.sweep

    def sweep(self, *args, **kw):
        out = real(self, *args, **kw)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(procfast.Compiled, "sweep", sweep)
    return calls


def same(problem, plan, *, reference=None, first=False, spy=None) -> bool:
    """Both engines' reports on one plan are identical; returns whether the plan is valid."""
    before = len(spy) if spy is not None else 0
    fast = validate_plan(problem, plan, reference=reference, first=first, name="p")
    accepted = spy is not None and len(spy) > before and spy[-1]
    exact = validate_plan(problem, plan, reference=reference, first=first, name="p", exact=True)
    assert fast == exact, (problem.scenario, plan, fast.errors[:3], exact.errors[:3], fast.metrics, exact.metrics)
    assert fast.to_json() == exact.to_json()
    assert {k: type(v) for k, v in fast.metrics.items()} == {k: type(v) for k, v in exact.metrics.items()}
    if spy is not None:
        assert accepted == exact.valid or (not accepted and not _integral(problem, plan)), \
            (problem.scenario, plan, exact.valid, accepted)
    return exact.valid


def _integral(problem, plan) -> bool:
    """Every time of a schedule is a whole multiple of the compiled scale (else the sweep must decline)."""
    scale = procfast.compiled(problem).scale
    entries = plan.actions if isinstance(plan, ReadPlan) else plan.get("schedule", []) if isinstance(plan, dict) \
        else None
    if entries is None:
        return True
    for e in entries:
        for key in ("start", "duration"):
            x = getattr(e, key) if isinstance(e, Chunk) else e.get(key)
            if x is not None and (Fraction(x) * scale).denominator != 1:
                return False
    return True


# ------------------------------------------------------------------------------------------ schedules
def greedy(problem: ProcedureProblem, rng: random.Random, *, split: float = 0.3, slack: float = 0.2) -> list:
    """A schedule (list of entries task/step/start/duration/agent) built step by step at the earliest start
    that keeps the agent, resource, prerequisite and minimum-lag rules; maximum lags, deadlines, properties and
    the limit are not planned for, so some schedules are invalid."""
    exclusive = problem.occupancy is ir.OccupancyRule.EXCLUSIVE
    cap = {r.name: r.capacity for r in problem.resources}
    busy: dict = {a: [] for a in problem.agents}       # agent -> [(start, occupation)]
    held: dict = {}                                     # resource -> [(start, end)]
    done: dict = {}
    out = []
    pending = list(problem.steps)
    rng.shuffle(pending)
    while pending:
        ready = [s for s in pending if all((s.task, p) in done or problem.step(s.task, p) is None
                                           for p in s.prerequisites)]
        s = (ready or pending)[0]
        pending.remove(s)
        earliest = max([s.release or Fraction(0), Fraction(0)]
                       + [done[(s.task, p)] for p in s.prerequisites if (s.task, p) in done]
                       + [done[(s.task, lag.other)] + (lag.min or 0) for lag in s.lags
                          if (s.task, lag.other) in done])
        parts = [s.duration]
        if s.interruptible and s.duration > 1 and rng.random() < split:
            cut = Fraction(rng.randint(1, int(s.duration * 4) - 1), 4) if s.duration * 4 > 1 else s.duration / 2
            parts = [cut, s.duration - cut] if 0 < cut < s.duration else parts
        needs_agent = len(problem.agents) > 1 and not (s.occupancy is ir.Occupancy.START and not exclusive)
        agent = rng.choice(problem.agents)
        if not needs_agent and len(problem.agents) > 1 and rng.random() < 0.5:
            agent = problem.agents[0]
        t = earliest
        for d in parts:
            t = _place(s, d, agent, t, busy, held, cap, exclusive, rng, slack)
            o = s.occupation(d)
            busy[agent].append((t, o))
            for u in s.uses:
                held.setdefault(u.resource, []).append((t, t + d))
            entry = {"task": s.task, "step": s.index, "start": t, "duration": d}
            if needs_agent or len(problem.agents) > 1 and agent != problem.agents[0] or rng.random() < 0.3:
                entry["agent"] = agent
            out.append(entry)
            t = t + d
        done[s.key] = t
    rng.shuffle(out)
    return out


def _fits(s, d, agent, t, busy, held, cap, exclusive) -> bool:
    o = s.occupation(d)
    for t0, o0 in busy[agent]:
        if o > 0 and o0 > 0 and t0 < t + o and t < t0 + o0:
            return False
        if exclusive and ((o == 0 and t0 < t < t0 + o0) or (o0 == 0 and t < t0 < t + o)):
            return False
    uses: dict = {}
    for u in s.uses:
        uses[u.resource] = uses.get(u.resource, 0) + 1
    for r, m in uses.items():
        ivs = held.get(r, [])
        points = [t] + [a for a, _ in ivs if t < a < t + d]
        for p in points:
            if sum(1 for a, b in ivs if a <= p < b) + (m if p == t else 1) > cap.get(r, 1):
                return False
        if m > 1 and cap.get(r, 1) < 2:
            return False
    return True


def _place(s, d, agent, t, busy, held, cap, exclusive, rng, slack) -> Fraction:
    ends = sorted({t} | {a + o for a, o in busy[agent] if a + o > t} | {a for a, _ in busy[agent] if a > t}
                  | {b for ivs in held.values() for _, b in ivs if b > t})
    for c in ends:
        if _fits(s, d, agent, c, busy, held, cap, exclusive):
            if rng.random() < slack and _fits(s, d, agent, c + 1, busy, held, cap, exclusive):
                return c + 1
            return c
    last = max([t] + [a + o for a, o in busy[agent]] + [b for ivs in held.values() for _, b in ivs])
    return last


def mutants(entries: list, rng: random.Random, problem: ProcedureProblem, k: int = 4) -> list:
    """``k`` faulty (or sometimes still valid) variants of a schedule."""
    out = []
    for _ in range(k):
        es = [dict(e) for e in entries]
        kind = rng.randrange(12)
        e = rng.choice(es) if es else None
        if e is None:
            break
        if kind == 0:
            e["start"] = max(Fraction(0), Fraction(e["start"]) + rng.choice([-2, -1, 1, 2]))
        elif kind == 1:
            es.remove(e)
        elif kind == 2:
            es.append(dict(e))
        elif kind == 3:
            e["duration"] = Fraction(e["duration"]) + rng.choice([-1, 1])
        elif kind == 4:
            del e["duration"]
        elif kind == 5:
            e["agent"] = rng.choice(list(problem.agents) + ["nobody"])
        elif kind == 6:
            e["start"] = Fraction(e["start"]) + Fraction(1, 7)           # finer than any scale here
        elif kind == 7:
            f = rng.choice(es)
            e["start"], f["start"] = f["start"], e["start"]
        elif kind == 8:
            e["step"] = e["step"] + 100
        elif kind == 10:                         # start together with another chunk (agents, resources)
            f = rng.choice(es)
            e["start"] = f["start"]
        elif kind == 11:                         # a chunk of a step starts inside another chunk of it
            f = next((f for f in es if f is not e and (f["task"], f["step"]) == (e["task"], e["step"])), e)
            e["start"] = Fraction(f["start"]) + min(Fraction(f["duration"]), Fraction(1)) / 2
        else:
            shift = rng.choice([1, 5, 60])
            for x in es:
                x["start"] = Fraction(x["start"]) + shift               # the whole plan later: often valid
        out.append(es)
    return out


def schedule(entries: list) -> dict:
    return {"schedule": entries}


# ------------------------------------------------------------------------------------------ random scenarios
def random_problem(rng: random.Random, n: int, free: bool = False) -> ProcedureProblem:
    """A random scenario; ``free``: autonomous steps without prerequisites or lags, so that releases, resources
    and repeated chunks are the only constraints a mutant can break."""
    unit = rng.choice([ir.TimeUnit.TICK, ir.TimeUnit.S, ir.TimeUnit.MIN])
    agents = tuple(f"cook{k}" for k in range(rng.choice([1, 1, 2, 3])))
    rule = ir.OccupancyRule.OVERLAP if free else rng.choice([ir.OccupancyRule.OVERLAP, ir.OccupancyRule.EXCLUSIVE])
    den = rng.choice([1, 1, 1, 2, 3])
    resources = (ResourceInstance("oven", 1, (("temperature", 0),), "oven"),
                 ResourceInstance("pan", 2, (), "pan"), ResourceInstance("board", 1, (("clean", True),), "board"))
    tasks = tuple(f"T{k}" for k in range(rng.randint(1, 3)))
    steps = []
    for task in tasks:
        count = rng.randint(1, 5)
        for i in range(count):
            dur = Fraction(rng.randint(1, 6), den)
            kind = rng.choices([ir.Occupancy.CONTINUOUS, ir.Occupancy.START, ir.Occupancy.PARTIAL],
                               [0, 1, 0] if free else [5, 3, 2])[0]
            occ = dur if kind is ir.Occupancy.CONTINUOUS else Fraction(0) if kind is ir.Occupancy.START else \
                min(dur, Fraction(rng.randint(1, 3), den))
            prereq = tuple(p for p in range(i) if rng.random() < 0.4 and not free)
            lags = ()
            if i and rng.random() < 0.3 and not free:
                lo = rng.choice([None, Fraction(0), Fraction(1)])
                hi = rng.choice([None, Fraction(2), Fraction(6)]) if lo is not None else Fraction(rng.randint(2, 8))
                lags = (ConcreteLag(rng.randrange(i), lo, hi),)
            uses = []
            r = rng.random() * (0.6 if free else 1)
            if r < 0.15:
                uses.append(ConcreteUse("oven", (), (("temperature", 200),)))
            elif r < 0.3:
                uses.append(ConcreteUse("oven", (("temperature", 200),), (("temperature", 0),)
                                        if rng.random() < 0.3 else ()))
            elif r < 0.45:
                uses.append(ConcreteUse("pan", (), ()))
            elif r < 0.5:
                uses += [ConcreteUse("pan", (), ()), ConcreteUse("pan", (), ())]
            elif r < 0.6:
                uses.append(ConcreteUse("board", (("clean", True),), ()))
            release = Fraction(rng.randint(0, 4)) if rng.random() < (0.5 if free else 0.1) else None
            deadline = Fraction(rng.randint(10, 60)) if rng.random() < 0.1 else None
            steps.append(SchedStep(task, i, f"step {i}", dur, kind, occ, rng.random() < 0.3, prereq, lags,
                                   tuple(uses), release, deadline))
    limit = Fraction(rng.randint(15, 80)) if rng.random() < 0.2 else None
    return ProcedureProblem(f"random{n}", unit, agents, tasks, tuple(steps), resources, limit, rule)


def test_random_scenarios(spy):
    rng = random.Random(20240914)
    valid = accepted = total = 0
    for n in range(320):
        problem = random_problem(rng, n, free=n % 4 == 3)
        base = greedy(problem, rng, split=0.6)
        plans = [base] + mutants(base, rng, problem)
        for k, entries in enumerate(plans):
            total += 1
            valid += same(problem, schedule(entries), spy=spy, first=k == 1)
            if k == 0:        # the same chunks handed over as a ReadPlan (no reading step)
                read = ReadPlan("schedule", tuple(Chunk(i, e["task"], e["step"], Fraction(e["start"]),
                                                        Fraction(e["duration"]), e.get("agent"))
                                                  for i, e in enumerate(entries)))
                same(problem, read, spy=spy)
    accepted = sum(spy)
    assert total > 1200 and valid > 200 and accepted > 200, (total, valid, accepted)


def test_random_scenarios_exercise_every_feature():
    rng = random.Random(20240914)
    seen = set()
    for n in range(260):
        p = random_problem(rng, n)
        seen.add(("agents", len(p.agents) > 1))
        seen.add(("rule", p.occupancy))
        for s in p.steps:
            seen |= {("interruptible", s.interruptible), ("occupancy", s.occupancy), ("lag", bool(s.lags)),
                     ("needs", any(u.needs for u in s.uses)), ("sets", any(u.sets for u in s.uses)),
                     ("pan", any(u.resource == "pan" for u in s.uses)),
                     ("fraction", s.duration.denominator > 1)}
        greedy(p, rng)
        mutants([], rng, p)
    assert {("agents", True), ("rule", ir.OccupancyRule.EXCLUSIVE), ("interruptible", True),
            ("occupancy", ir.Occupancy.PARTIAL), ("lag", True), ("needs", True), ("sets", True), ("pan", True),
            ("fraction", True)} <= seen


# ------------------------------------------------------------------------------------------ Recipe2Plan
def _hms(secs) -> str:
    secs = int(secs)
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def _text(entries, three: bool = False) -> str:
    if three:
        return ", ".join(f"Step({s}, {r}, {_hms(st)})" for s, r, d, st in entries)
    return ", ".join(f"Step({s}, {r}, {_hms(d)}, {_hms(st)})" for s, r, d, st in entries)


def test_recipe2plan_reference_plans(spy):
    """All 130 scenarios: the reference plans as text (4 and 3 fields), as JSON and as plan.json lists, shifted
    and mutated, graded against the constrained and the unconstrained reference."""
    rng = random.Random(7)
    valid = 0
    for key in r2pdata.keys():
        for constrained in (True, False):
            problem = r2pdata.problem(key, constrained)
            entries = r2pdata.plans()[key]["plan_w_restriction" if constrained else "plan_wo_restriction"]
            if entries is None:
                continue
            ref_text = _text(entries)
            valid += same(problem, ref_text, reference=ref_text, spy=spy)
            same(problem, _text(entries, three=True), reference=r2pdata.reference(key, constrained), spy=spy)
            same(problem, [list(e) for e in entries], spy=spy)
            sched = r2pdata.reference(key, constrained)["schedule"]
            for es in mutants(sched, rng, problem, 3):
                same(problem, schedule(es), reference=ref_text, spy=spy)
            later = [[s, r, d, st + 60] for s, r, d, st in entries]
            valid += same(problem, "Plan:\n" + _text(later) + "\nDone.", reference=ref_text, spy=spy)
            moved = [list(e) for e in entries]
            e = rng.choice(moved)
            e[3] = max(0, e[3] + rng.choice([-300, -60, 60, 300]))
            same(problem, _text(moved), reference=ref_text, spy=spy)
    assert valid >= 2 * 128 - 5 and sum(spy) >= 2 * 128


def test_recipe2plan_through_the_grader(spy):
    """Grader.grade on text and on {"scenario", "plan"} records: the same reports with either engine."""
    project = r2pdata.project(True)
    grader = Grader(project)
    for key in r2pdata.keys()[:20]:
        entries = r2pdata.plans()[key]["plan_w_restriction"]
        if entries is None:
            continue
        text = _text(entries)
        problem = grader.problem(key)
        for plan in (text, {"scenario": key, "plan": text}, "```\n" + text + "\n```", text.replace(", S", ",\nS")):
            got = grader.grade(key, plan, reference=text)
            assert got == validate_plan(problem, plan, reference=text, exact=True)
            assert got.valid
    assert all(spy)


# ------------------------------------------------------------------------------------------ bundled domains
def _bundled():
    for folder in ("recipes", "timearena"):
        project = chronoplan.load(ROOT / "domains" / folder)
        for scen in project.scenarios.values():
            if scen.procedures:
                yield procedure_problem(project, scen)


def test_bundled_scenarios(spy):
    rng = random.Random(11)
    valid = 0
    for problem in _bundled():
        for _ in range(6):
            base = greedy(problem, rng, split=0.5)
            valid += same(problem, schedule(base), spy=spy)
            for es in mutants(base, rng, problem, 2):
                same(problem, schedule(es), spy=spy)
    plans = ROOT / "domains" / "recipes" / "plans"
    project = chronoplan.load(ROOT / "domains" / "recipes")
    for path in sorted(plans.glob("*.json")):
        value = json.loads(path.read_text())
        problem = procedure_problem(project, project.scenario(value["scenario"]))
        valid += same(problem, value, spy=spy)
        same(problem, path.read_text(), reference=value, spy=spy)
    assert valid > 100


# ------------------------------------------------------------------------------------------ edge cases
def _tiny(**kw) -> ProcedureProblem:
    steps = (SchedStep("T", 0, "a", Fraction(2), ir.Occupancy.CONTINUOUS, Fraction(2), False, (), (), (), None,
                       None),
             SchedStep("T", 1, "b", Fraction(3), ir.Occupancy.START, Fraction(0), True, (0,), (), (), None, None))
    base = dict(scenario="tiny", time_unit=ir.TimeUnit.TICK, agents=("x",), tasks=("T",), steps=steps,
                resources=(), limit=None)
    base.update(kw)
    return ProcedureProblem(**base)


def test_hand_made_chunks_with_repeated_indexes_go_to_the_exact_engine(spy):
    problem = _tiny()
    read = ReadPlan("schedule", (Chunk(0, "T", 0, Fraction(0)), Chunk(0, "T", 1, Fraction(2))))
    assert same(problem, read)
    assert validate_plan(problem, read).valid and spy[-1:] != [True]


def test_exclusive_rule_is_kept():
    """An autonomous start strictly inside a continuous step: accepted under overlap, E401 under exclusive."""
    plan = schedule([{"task": "T", "step": 0, "start": 0}, {"task": "T", "step": 1, "start": 1, "duration": 3}])
    late = schedule([{"task": "T", "step": 0, "start": 0}, {"task": "T", "step": 1, "start": 2}])
    assert not same(_tiny(), plan)                        # prerequisite 0 not done at 1
    assert same(_tiny(), late)
    assert same(_tiny(occupancy=ir.OccupancyRule.EXCLUSIVE), late)
    steps = _tiny().steps
    free = _tiny(steps=(steps[0], SchedStep("T", 1, "b", Fraction(3), ir.Occupancy.START, Fraction(0), True, (),
                                             (), (), None, None)))
    assert same(free, plan)
    excl = _tiny(steps=free.steps, occupancy=ir.OccupancyRule.EXCLUSIVE)
    assert not same(excl, plan)
    assert [e.code for e in validate_plan(excl, plan).errors] == ["E401"]


def test_zero_steps_and_empty_plans():
    empty = _tiny(steps=())
    assert same(empty, schedule([]))
    assert same(empty, schedule([]), reference=schedule([]))
    assert not same(_tiny(), schedule([]))


def test_reference_is_read_once_per_problem_and_object(monkeypatch):
    from chronoplan.validators import replay
    problem = r2pdata.problem("Cobbler_Pancakes", True)
    ref = r2pdata.reference("Cobbler_Pancakes", True)
    text = _text(r2pdata.plans()["Cobbler_Pancakes"]["plan_w_restriction"])
    reads = []
    real = replay._read_reference
    monkeypatch.setattr(replay, "_read_reference", lambda p, r: reads.append(r) or real(p, r))
    for _ in range(3):
        assert validate_plan(problem, text, reference=ref).valid
        assert validate_plan(problem, ref, reference=ref, exact=True).valid
        assert validate_plan(problem, text, reference=text).metrics["relative_efficiency"] == 1
    assert len(reads) == 2                     # the dict once, the text once


# ------------------------------------------------------------------------------------------ Step text reader
def _random_step_text(rng: random.Random) -> str:
    spaces = [" ", "", "  ", "\t", "\n", "\u2003", " " * 9, "\x1c"]
    names = ["Cobbler", "Daikon-Radish", "a b"] * 8 + ["x:y", "'q'", '"r"', "ſtep", "K", "n(", "é", "x" * 70, "",
                                                      "\u2003", " "]

    def pad() -> str:
        return rng.choice(spaces) if rng.random() < 0.05 else " " if rng.random() < 0.5 else ""

    def clock() -> str:
        if rng.random() < 0.95:
            return f"{rng.randrange(100):02d}:{rng.randrange(100):02d}:{rng.randrange(100):02d}"
        return rng.choice(["10 min", "1:30", "1.5:00:00", "0000001:00:00", "123456:00:00", "1234567:0:0", "5",
                           "00:00:00", "\u0663:00:00"])

    def entry() -> str:
        step = rng.choice(["3", "03", "12"] * 10 + ["1234567890", "+3", "x", "\u0661", "999999999", "0"])
        parts = [pad() + step + pad(), pad() + rng.choice(names) + pad()]
        if rng.random() < 0.8:
            parts.append(pad() + clock() + pad())
        parts.append(pad() + clock() + pad())
        if rng.random() < 0.04:        # a fifth field: the agent (issue 28 item 13), or a stray field
            parts.append(pad() + rng.choice(["x", "cook1", "'cook2'", "", "a b"]) + pad())
        head = rng.choice(["Step"] * 10 + ["step", "STEP", "Step ", "ſtep", "Step\n"])
        return head + "(" + ",".join(parts) + (")" if rng.random() < 0.97 else "")

    seps = [", "] * 20 + ["\n", " Step(", "", "; then "]
    return "".join(entry() + rng.choice(seps) for _ in range(rng.randrange(1, 6)))


def test_one_pass_step_reader_reads_what_the_general_reader_reads():
    from chronoplan.validators import plans as P
    rng = random.Random(5)
    common = 0
    for _ in range(4000):
        text = _random_step_text(rng)
        common += P.step_fields(text) is not None
        for unit in (ir.TimeUnit.S, ir.TimeUnit.MIN, ir.TimeUnit.TICK):
            assert P._read_r2p_text(text, unit) == P.read_r2p_general(text, unit), text
    assert 800 < common < 3800


def _near_canonical_text(rng: random.Random, entries: list) -> str:
    """A reference plan as canonical Step text, with 0 to 2 characters changed, added or removed where they
    matter (the scanner's boundaries: digits, spaces, commas, colons, parentheses, non-ASCII digits)."""
    rows = [list(e) for e in entries[:rng.randrange(1, len(entries) + 1)]]
    for row in rows:
        if rng.random() < 0.1:
            row[1] = rng.choice(["x" * 63, "y" * 64, "z" * 65, "a b", "é", "K", " Cobbler ", "\n"])
        if rng.random() < 0.05:
            row[0] = rng.choice([123456789, 1234567890, 0, 7])
    text = _text(rows)
    for _ in range(rng.choice([0, 1, 1, 2])):
        i = rng.randrange(len(text) + 1)
        c = rng.choice("()', \"\n:09Sspx\u0663\u2003")
        text = rng.choice([text[:i] + c + text[i + 1:], text[:i] + c + text[i:], text[:i] + text[i + 1:]])
    return text


def test_canonical_step_text_scanner_reads_what_the_regular_expression_reads():
    """``replay._canonical_columns`` (compiled: the scanner of canonical Step text) gives exactly
    ``_text_columns(fast, step_fields(text))`` on the texts ``plans._CANONICAL`` matches entirely, and None on
    every other text (then the regular expressions read it)."""
    from chronoplan.validators import plans as P
    from chronoplan.validators import replay as R
    rng = random.Random(11)
    scanned = declined = 0
    for key in r2pdata.keys()[:40]:
        fast = procfast.compiled(r2pdata.problem(key, True))
        entries = r2pdata.plans()[key]["plan_w_restriction"] or r2pdata.plans()[key]["plan_wo_restriction"]
        for _ in range(60):
            text = _near_canonical_text(rng, entries)
            opened = text.count("(")
            canonical = 0 < opened == len(P._CANONICAL.findall(text))
            got = R._canonical_columns(fast, text)
            if canonical:
                assert got == R._text_columns(fast, P.step_fields(text)), text
                scanned += 1
            else:
                assert got is None, text
                declined += 1
    assert scanned > 500 and declined > 500
    text = "Step(0, T, 00:02:00, 00:00:00), Step(1, T, 00:03:00, 00:02:00), Step(2, T, 00:00:30, 00:05:00)"
    fast = procfast.compiled(_tiny(time_unit=ir.TimeUnit.MIN))
    assert R._canonical_columns(fast, text) == R._text_columns(fast, P.step_fields(text)) == (
        [0, 2 * fast.per_second * 60, 5 * fast.per_second * 60], [0, 1, -1],
        [2 * fast.per_second * 60, 3 * fast.per_second * 60, fast.per_second * 30])
    assert R._canonical_columns(procfast.compiled(_tiny()), text) is None          # unitless: no clock times
    entry = "Step(0, T, 00:02:00, 00:00:00), "
    most = (entry * P.MAX_ACTIONS)[:-2]                   # the general reader's bound on entries, kept by both
    assert R._canonical_columns(fast, most) == R._text_columns(fast, P.step_fields(most))
    assert R._canonical_columns(fast, entry + most) is None and P.step_fields(entry + most) is None
    named = "Step(0, T, 00:02:00, 00:00:00, cook1), Step(1, T, 00:03:00, 00:02:00)"   # an agent: the general reader
    assert R._canonical_columns(fast, named) is None and P.step_fields(named) is None
    assert [c.agent for c in P._read_r2p_text(named, ir.TimeUnit.MIN).actions] == ["cook1", None]


def test_scenarios_listing_a_step_twice_or_outside_their_tasks_use_the_exact_engine(spy):
    base = _tiny()
    twice = _tiny(steps=base.steps + base.steps[:1])
    stray = _tiny(steps=base.steps + (SchedStep("U", 0, "c", Fraction(1), ir.Occupancy.CONTINUOUS, Fraction(1),
                                                False, (), (ConcreteLag(5, None, Fraction(1)),), (), None,
                                                Fraction(9)),))
    plan = schedule([{"task": "T", "step": 0, "start": 0}, {"task": "T", "step": 1, "start": 2}])
    for problem in (twice, stray):
        same(problem, plan)
        assert not procfast.compiled(problem).ok
    assert not any(spy)
