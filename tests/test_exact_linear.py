"""The exact engine's work is linear in the plan's length, faulty plans included (#14 item 5).

Input: chain scenarios of n steps (tasks of 10 steps; step 5 of each task keeps a time lag to step 3, which is
not its prerequisite) and plans of n and 4n steps: valid, a lag partner dropped in every task (its lag then waits
for a step that never comes), every step at time 0 on an agent without resources, a serial plan squeezed to
half its length, every entry repeated, and the entries listed backwards.  Output: the Python
lines the step engines (runtime/procedure/state.py, procedure/sim.py, metrics.py) execute for ``validate_plan(...,
exact=True)`` -- a count that the machine's load does not disturb -- grow about 4x, not 16x (the waiting lags
were scanned at every step completion, and an agent's runs at every start while they overlapped).  The same for
the fast path on the faulty plans (runtime/procedure/fast.py gives up, runtime/procedure/critic.py replays them,
with the same report as the exact engine).
"""
from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ConcreteLag, ConcreteUse, ProcedureProblem, ResourceInstance, SchedStep
from chronoplan.validators.replay import validate_plan

ENGINE = ("runtime/procedure/state.py", "runtime/procedure/sim.py", "runtime/metrics.py")


def chain(n: int, resources: bool = True) -> tuple[ProcedureProblem, list]:
    """A chain scenario of n steps and a valid serial plan for it, as (step, task, duration, start) entries."""
    tasks, steps, entries = [], [], []
    t = 0
    for k in range((n + 9) // 10):
        name = f"T{k}"
        tasks.append(name)
        for i in range(min(10, n - 10 * k)):
            auto = i % 2 == 1
            dur = Fraction(2 if auto else 1)
            uses = (ConcreteUse(f"oven{k % 4}", (), ()),) if auto and resources else ()
            prerequisites = (i - 1,) if i and i != 5 else ()
            lags = (ConcreteLag(3, Fraction(0), Fraction(1000)),) if i == 5 else ()
            steps.append(SchedStep(name, i, f"step {i}", dur, ir.Occupancy.START if auto else ir.Occupancy.CONTINUOUS,
                                   Fraction(0) if auto else dur, False, prerequisites, lags, uses, None, None))
            entries.append((i, name, int(dur), t))
            t += int(dur)
    ovens = tuple(ResourceInstance(f"oven{j}", 1, (), f"oven{j}") for j in range(4))
    return ProcedureProblem(f"chain{n}", ir.TimeUnit.S, ("agent1",), tuple(tasks), tuple(steps), ovens, None,
                            ir.OccupancyRule.EXCLUSIVE), entries


def _hms(s: int) -> str:
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _text(entries) -> str:
    return ", ".join(f"Step({s}, {r}, {_hms(d)}, {_hms(st)})" for s, r, d, st in entries)


PLANS = {
    "valid": (True, lambda es: es),
    "lag partner dropped": (True, lambda es: [e for e in es if e[0] != 3]),
    "all at 0, no resources": (False, lambda es: [(s, r, d, 0) for s, r, d, _ in es]),
    "squeezed": (True, lambda es: [(s, r, d, st // 2) for s, r, d, st in es]),
    "repeated": (True, lambda es: [e for e in es for _ in (0, 1)]),
    "backwards": (True, lambda es: es[::-1]),
}


def _lines(fn, engine: tuple = ENGINE) -> int:
    """Lines executed in the step engines' modules while ``fn()`` runs (each of them must run some)."""
    count: dict = {}

    def local(frame, event, arg):
        if event == "line":
            name = frame.f_code.co_filename
            count[name] = count.get(name, 0) + 1
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.replace("\\", "/").endswith(engine) else None

    old = sys.gettrace()
    sys.settrace(calls)
    try:
        fn()
    finally:
        sys.settrace(old)
    assert len(count) == len(engine), sorted(count)          # the engine's modules are where ENGINE says
    return sum(count.values())


@pytest.mark.parametrize("kind", list(PLANS))
def test_exact_engine_work_is_linear_in_the_plan_length(kind):
    resources, make = PLANS[kind]
    work = []
    for n in (200, 800):
        problem, entries = chain(n, resources)
        text = _text(make(entries))
        validate_plan(problem, text, exact=True)                  # tables built once per problem
        work.append(_lines(lambda p=problem, t=text: validate_plan(p, t, exact=True)))
    assert work[1] < 5 * work[0], (kind, work)


FAST = ("runtime/procedure/fast.py", "runtime/procedure/critic.py")


def _fast_path_compiled() -> bool:
    """Are the fast path's modules C extensions here (a compiled install: no line events to count)?"""
    from chronoplan.build import compiled
    state = compiled()
    return any(state.get("chronoplan." + f[:-3].replace("/", "."), False) for f in FAST)


def faulty_plans_linear(kind: str) -> None:
    """The same faulty plans on the fast path (the sweep gives up, ``runtime.procedure.critic`` replays them):
    the same report as the exact engine, and about 4x the lines for 4x the steps."""
    resources, make = PLANS[kind]
    work = []
    for n in (200, 800):
        problem, entries = chain(n, resources)
        text = _text(make(entries))
        assert validate_plan(problem, text) == validate_plan(problem, text, exact=True)
        work.append(_lines(lambda p=problem, t=text: validate_plan(p, t), FAST))
    assert work[1] < 5 * work[0], (kind, work)


@pytest.mark.parametrize("kind", [k for k in PLANS if k not in ("valid", "backwards")])
def test_fast_path_work_on_faulty_plans_is_linear_in_the_plan_length(kind):
    """Counted directly when the fast path is pure Python; a compiled install (CI) has no line events there, so
    the count runs in a subprocess on the repository's ``.py`` files (``runtime.compiled.run_pure``)."""
    if not _fast_path_compiled():
        faulty_plans_linear(kind)
        return
    from pathlib import Path

    from chronoplan.runtime.compiled import run_pure
    here = Path(__file__).resolve()
    code = (f"import sys; sys.path.insert(0, {str(here.parent)!r}); import {here.stem} as t; "
            f"assert not t._fast_path_compiled(); t.faulty_plans_linear({kind!r}); print('counted')")
    p = run_pure(here.parent.parent, ["-c", code], timeout=600)
    assert p.returncode == 0 and "counted" in p.stdout, p.stdout[-3000:] + p.stderr[-3000:]


def test_the_plans_are_what_their_names_say():
    problem, entries = chain(200)
    assert validate_plan(problem, _text(entries), exact=True).valid
    assert validate_plan(problem, _text(entries[::-1]), exact=True).valid
    codes = {kind: {e.code for e in validate_plan(chain(200, res)[0], _text(make(chain(200, res)[1])),
                                                  exact=True).errors} for kind, (res, make) in PLANS.items()}
    assert codes["valid"] == codes["backwards"] == set() and codes["repeated"] == {"E802"}
    assert codes["lag partner dropped"] == {"E301", "E604", "E701"}
    assert codes["all at 0, no resources"] == {"E301", "E401", "E602"}
    assert codes["squeezed"] == {"E301", "E411", "E602"}
