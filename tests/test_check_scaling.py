"""`check` grows linearly with its input (issue 28 items 8 and 11b): structural measures, no clocks.

Input: sources generated like bench/bench_check_scaling.py's, at two sizes.  Output: assertions on the
number of Python function calls (``sys.setprofile`` call events: deterministic, unlike wall time) that
compiling them takes - 4x the input must take about 4x the calls, not 16x.
"""
import sys

import pytest

from chronoplan.compiler.driver import compile_text


def calls(text: str) -> int:
    """The Python call events (generator resumptions included) of compiling ``text``."""
    n = 0

    def prof(frame, event, arg):
        nonlocal n
        if event == "call":
            n += 1

    compile_text(text)                        # warm caches (grammar, sympy) outside the count
    sys.setprofile(prof)
    try:
        _project, diags, _ = compile_text(text)
    finally:
        sys.setprofile(None)
    assert not [d for d in diags if d.is_error], diags[:3]
    return n


def procedure(n: int, lag: str) -> str:
    lines = ["procedure P {"]
    for i in range(n):
        opts = f" after {i - 1}" if i else ""
        if i and lag == "local":
            opts += f" within 50 min of {i - 1}"
        elif i and lag == "from_start":
            opts += f" within {10 * n} min of 0"
        lines.append(f'  step {i} "Do thing {i}." {1 + i % 7} min{opts}')
    return "\n".join(lines + ["}", "scenario s { unit min procedures P }"]) + "\n"


def grid(size: int) -> str:
    """A size x size map, a table on every other cell of every other row (size^2 / 4 stations), one agent."""
    rows = ["  " + ("t." * (size // 2) if y % 2 == 0 else "." * size) for y in range(size)]
    return ("type table < station\nmap big \"\"\"\n" + "\n".join(rows) + '\n""" where t = table\n'
            'procedure P { step 0 "x" 1 }\nscenario big_s { map big  agents a1 at (1, 1)  procedures P }\n')


@pytest.mark.parametrize("lag", ["none", "local", "from_start"])
def test_a_procedure_of_4x_the_steps_takes_about_4x_the_work(lag):
    """The C202 lag check walked every step of the procedure for every lag (a 10,000-step procedure took 13x
    to 80x the 1,000-step one): now each lag source is walked once, over the steps between its ends."""
    small, big = calls(procedure(150, lag)), calls(procedure(600, lag))
    assert big / small < 5.0, (small, big)


def test_a_map_of_4x_the_cells_and_stations_takes_about_4x_the_work():
    """walkable() scanned every station for each cell it was asked about (a 200 x 200 map with 10,000
    stations did not finish in 10 minutes); stations are indexed by cell."""
    small, big = calls(grid(20)), calls(grid(40))
    assert big / small < 5.0, (small, big)


def test_walkable_knows_stations_walls_and_the_border():
    from chronoplan.compiler import ir
    m = ir.GridMap("m", 3, 2, ("t.#", "..."), frozenset({(2, 0)}),
                   (ir.Station("t1", "table", None, 0, 0),))
    assert [m.walkable(x, y) for y in range(-1, 3) for x in range(-1, 4)] == [
        False] * 5 + [False, False, True, False, False] + [False, True, True, True, False] + [False] * 5
    assert m.station_cells == {(0, 0)}


def scenarios_source(scenarios: int, procedures: int = 3, steps: int = 20, overrides: bool = False) -> str:
    text = ["const SLOW = 2 min"]
    for p in range(procedures):
        text.append(f"procedure P{p} {{")
        text += [f'  step {i} "Do thing {i}." SLOW{f" after {i - 1}" if i else ""}' for i in range(steps)]
        text.append("}")
    names = ", ".join(f"P{p}" for p in range(procedures))
    text += [f"scenario s{k} {{ unit min procedures {names}{f'  const SLOW = {k + 1} min' if overrides else ''} }}"
             for k in range(scenarios)]
    return "\n".join(text) + "\n"


def test_scenarios_naming_the_same_procedures_evaluate_them_once(monkeypatch):
    """issue 28 item 11b: every scenario instantiated all its procedures again (200 scenarios x 50 procedures
    x 1,000 steps: check still running at 300 s); each procedure is now evaluated once per unit and constant
    overrides, so 10x the scenarios evaluate the same number of durations."""
    from chronoplan.compiler import instantiate
    counted = {"n": 0}
    real = instantiate.evaluate

    def evaluate(*args, **kwargs):
        counted["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(instantiate, "evaluate", evaluate)
    counts = []
    for n in (1, 10):
        counted["n"] = 0
        _project, diags, _ = compile_text(scenarios_source(n))
        assert not [d for d in diags if d.is_error]
        counts.append(counted["n"])
    assert counts[0] >= 60 and counts[1] == counts[0], counts
    counted["n"] = 0
    compile_text(scenarios_source(10, overrides=True))       # other overrides: evaluated again, per scenario
    assert counted["n"] == 10 * counts[0]


def test_scenario_evaluation_is_bounded_with_a_located_error(monkeypatch):
    """Past the documented limit of evaluated steps, one C111 on the scenario that crosses it, once."""
    from chronoplan.compiler.check import scenarios
    monkeypatch.setattr(scenarios, "MAX_INSTANTIATED_STEPS", 150)
    _project, diags, _ = compile_text(scenarios_source(10, overrides=True))
    errors = [d for d in diags if d.is_error]
    assert [(d.code, d.span.line) for d in errors] == [("C111", 70)], errors   # s2's P1: 7 x 20 = 160 > 150
    assert "scenario 's2' brings the procedure steps this check evaluates to 160, over the limit of 150" in \
        errors[0].message
    _project, diags, _ = compile_text(scenarios_source(10))                 # the same overrides: 60 steps
    assert not [d for d in diags if d.is_error]


def test_a_scenario_evaluation_error_is_still_reported_for_each_scenario():
    text = ('procedure P { step 0 "x" 2 min }\nprocedure Q { step 0 "y" 3 min }\n'
            "scenario a { unit tick procedures P }\nscenario b { unit tick procedures Q, P }\n"
            "scenario c { unit min procedures P, Q }\nscenario d { unit tick procedures R limit 5 min }\n"
            'procedure R { step 0 "z" 4 }\n')
    _project, diags, _ = compile_text(text)
    errors = [d for d in diags if d.is_error]
    assert [(d.code, d.span.line) for d in errors] == [("C106", 3), ("C106", 4), ("C106", 6)]
    assert errors[1].message == ("scenario 'b' cannot be evaluated: a time with a unit is used in a scenario "
                                 "measured in unitless ticks")


def test_compiling_does_not_run_the_cyclic_garbage_collector():
    """A 10,000-step procedure compiled in 14.7x the time of a 1,000-step one, 9.6x with the collector off:
    its collections walk every object the compiler keeps.  It is paused while compiling, and restored."""
    import gc

    from chronoplan.compiler.driver import compile_paths
    runs = []

    def seen(phase, info):
        if phase == "start":
            runs.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(seen)
    try:
        compile_text(procedure(2000, "local"))
        compile_paths()
    finally:
        gc.callbacks.remove(seen)
    assert runs == [] and gc.isenabled()
    gc.disable()
    try:
        compile_paths()
        assert not gc.isenabled()                 # a caller's choice is kept
    finally:
        gc.enable()
