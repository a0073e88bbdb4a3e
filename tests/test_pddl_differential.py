"""Differential tests: chronoplan's simulator and VAL (on the exported PDDL) agree on valid and broken plans.

Corpus, per bundled domain (and the golden cake scenario): the CP-SAT optimal schedule (valid), and broken
variants made from it: overlap on an agent, a resource double-booked, a prerequisite violated, a wrong
duration, a maximum lag violated, a release, a deadline and a property need violated.  For each kind the
first variant for which chronoplan reports exactly the intended violation is used; VAL (``-v``) must then
reject it for the corresponding PDDL fact.  The one intended disagreement (docs/pddl.md): violations
smaller than the slack (half a grid unit) of maximum lags and deadlines, which only the simulator sees.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F
from pathlib import Path

import pytest

import chronoplan
from chronoplan.compiler.pddl.plan import TimedEntry, to_pddl_plan
from chronoplan.runtime.planners.external import run_val, validate_binary
from chronoplan.runtime.procedure.sim import Chunk, simulate
from chronoplan.validators.families import export_scenario

pytest.importorskip("ortools", reason="the corpus starts from CP-SAT schedules: pip install 'chronoplan[optimal]'")
pytestmark = [pytest.mark.planners,
              pytest.mark.skipif(validate_binary() is None,
                                 reason="VAL is not installed: pip install 'chronoplan[planners]'")]

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "pddl"
CASES = [(ROOT / "domains" / "recipes", "Roast-Chicken_Garlic-Potatoes"),
         (ROOT / "domains" / "recipes", "Roast-Chicken_two_cooks"),
         (ROOT / "domains" / "timearena" / "cooking.chrono", "cooking4_5"),
         (ROOT / "domains" / "timearena" / "cooking.chrono", "cooking3_4_constrained"),
         (ROOT / "domains" / "timearena" / "household.chrono", "household2_3"),
         (ROOT / "domains" / "timearena" / "lab.chrono", "lab1"),
         (GOLDEN / "cake.chrono", "cake"),
         (None, "oven")]
# a scenario where a property need, a shared resource and a deadline can be violated on their own
OVEN = """
domain diff_oven
resource oven capacity 2 { temperature = 0 }
resource rack capacity 1
procedure Bread {
  step 0 "Preheat." 4 autonomous uses oven sets temperature = 200
  step 1 "Knead." 3
  step 2 "Bake." 6 autonomous after 1 uses rack, oven needs temperature = 200 deadline 14
  step 3 "Dry the herbs." 2 autonomous uses rack
}
scenario oven { agents baker  procedures Bread  limit 30 }
"""
# kind -> (the only code chronoplan may report, what VAL's verbose output must mention)
KINDS = {"agent": ("E401", "(free "), "resource": ("E411", "free"), "prerequisite": ("E301", "(done-"),
         "duration": ("E511", "Failed duration constraint"), "lag": ("E601", "(window-"),
         "release": ("E611", "(released-"), "deadline": ("E612", "(before-deadline-"),
         "property": ("E201", "(prop-")}
PER_KIND = 8


def _codes(problem, entries) -> list:
    res = simulate(problem, [Chunk(i, e.task, e.step, e.start, e.duration, e.agent) for i, e in enumerate(entries)])
    return sorted({v.code for v in res.violations})


def _optimal(problem):
    from chronoplan.runtime.planners.cpsat import solve_cpsat
    r = solve_cpsat(problem, 20, 1, max_pieces=1)         # one piece per step: PDDL runs steps whole
    assert r.status in ("optimal", "feasible")
    keys = [(e.task, e.step) for e in r.schedule]
    assert len(keys) == len(set(keys)), "the corpus needs schedules with one chunk per step"
    return [TimedEntry(e.task, e.step, e.start, e.duration, e.agent) for e in r.schedule]


def _candidates(problem, sched, g):  # noqa: C901
    """(kind, mutated schedule) in a deterministic order."""
    by = {(e.task, e.step): i for i, e in enumerate(sched)}
    steps = {s.key: s for s in problem.steps}

    def moved(i, **kw):
        out = list(sched)
        out[i] = replace(out[i], **kw)
        return out

    def shifted(i, delta):
        """Step i and everything starting at or after it, later by delta (relative order kept)."""
        t0 = sched[i].start
        return [replace(x, start=x.start + delta) if (x.start > t0 or k == i) else x
                for k, x in enumerate(sched)]
    for i, a in enumerate(sched):
        sa = steps[(a.task, a.step)]
        for j, b in enumerate(sched):
            if i == j:
                continue
            sb = steps[(b.task, b.step)]
            occ_a, occ_b = sa.occupation(), sb.occupation()
            if occ_a > 0 and occ_b > 0:
                if a.agent == b.agent and a.start < b.start:
                    for t in (a.start, a.start + g, a.start + occ_a - g):
                        yield "agent", moved(j, start=t)
                elif a.agent != b.agent and a.start <= b.start < a.start + occ_a:
                    yield "agent", moved(j, agent=a.agent)          # same times, the busy agent
            ra = {u.resource for u in sa.uses}
            if ra & {u.resource for u in sb.uses}:
                t = a.start
                while t < a.start + a.duration:
                    yield "resource", moved(j, start=t)
                    t += g
        if sa.duration > g and not sa.interruptible:
            yield "duration", moved(i, duration=a.duration - g)
        for q in sa.prerequisites:
            x = sched[by[(a.task, q)]]
            yield "prerequisite", moved(i, start=x.start + x.duration - g)
        for lag in sa.lags:
            x = sched[by[(a.task, lag.other)]]
            if lag.max is not None:
                yield "lag", moved(i, start=x.start + x.duration + lag.max + g)
                yield "lag", shifted(i, x.start + x.duration + lag.max + g - a.start)
        if sa.release:
            yield "release", moved(i, start=sa.release - g)
        if sa.deadline is not None:
            yield "deadline", moved(i, start=sa.deadline - a.duration + g)
            yield "deadline", shifted(i, sa.deadline - a.duration + g - a.start)
        if any(u.needs for u in sa.uses):
            yield "property", moved(i, start=F(0))
            t = F(0)
            while t < a.start:
                yield "property", moved(i, start=t)
                t += g


def _load(path, tmp_dir):
    if path is None:
        path = tmp_dir / "oven.chrono"
        path.write_text(OVEN)
    return chronoplan.load(path)


@pytest.fixture(scope="module", params=CASES, ids=[c[1] for c in CASES])
def case(request, tmp_path_factory):
    path, scen = request.param
    proj = _load(path, tmp_path_factory.mktemp("oven"))
    e = export_scenario(proj, scen)
    return e, _optimal(e.source)


def _val(e, sched, verbose=False):
    text, tol = to_pddl_plan(e, sched)
    return run_val(e.domain_text(), e.problem_text(), text, tol, verbose=verbose)


def test_valid_plan_agrees(case):
    e, sched = case
    assert _codes(e.source, sched) == []
    assert _val(e, sched).valid


def test_broken_plans_agree(case):
    """Every mutation (at most PER_KIND of each kind): same verdict.  Clean mutations (chronoplan reports
    exactly the intended code): VAL names the corresponding fact."""
    e, sched = case
    g = F(e.scale.grid, e.scale.factor)
    seen: dict = {}
    clean = set()
    for kind, mutated in _candidates(e.source, sched, g):
        codes = _codes(e.source, mutated)
        is_clean = codes == [KINDS[kind][0]] and kind not in clean
        if seen.get(kind, 0) >= PER_KIND and not is_clean:
            continue
        seen[kind] = seen.get(kind, 0) + 1
        v = _val(e, mutated, verbose=is_clean)
        assert v.valid == (not codes), (kind, codes, mutated)
        if is_clean:
            details = v.output.split("Plan Validation details", 1)[-1]
            assert KINDS[kind][1] in details, (kind, details[-1500:])
            clean.add(kind)
    assert sum(seen.values()) >= 10 and clean, (seen, sorted(clean))


def test_corpus_covers_every_kind(tmp_path):
    covered = set()
    for path, scen in CASES:
        e = export_scenario(_load(path, tmp_path), scen)
        sched = _optimal(e.source)
        g = F(e.scale.grid, e.scale.factor)
        for kind, mutated in _candidates(e.source, sched, g):
            if kind not in covered and _codes(e.source, mutated) == [KINDS[kind][0]]:
                covered.add(kind)
    assert covered == set(KINDS)


def test_intended_disagreement_below_the_slack():
    """A lag or deadline missed by less than half a grid unit: the simulator rejects, VAL accepts."""
    e = export_scenario(chronoplan.load(GOLDEN / "cake.chrono"), "cake")
    sched = _optimal(e.source)
    i = next(k for k, x in enumerate(sched) if x.step == 2)            # bake: within 5 min of mix
    mix = next(x for x in sched if x.step == 1)
    late = list(sched)
    late[i] = replace(sched[i], start=mix.start + mix.duration + 5 + F(1, 4))
    late = [replace(x, start=x.start + F(1, 4)) if x.step in (4, 5) else x for x in late]
    assert "E601" in _codes(e.source, late)
    assert _val(e, late).valid
    late[i] = replace(sched[i], start=mix.start + mix.duration + 5 + F(3, 4))   # beyond the slack
    late = [replace(x, start=x.start + F(1, 2)) if x.step in (4, 5) else x for x in late]
    assert "E601" in _codes(e.source, late) and not _val(e, late).valid
