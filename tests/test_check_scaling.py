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
