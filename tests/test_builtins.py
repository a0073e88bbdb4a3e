"""Built-ins are declared once (compiler/builtins.py, issue #12 item 5): the checker and the kitchen runtime
read that table, so a built-in cannot be known to one and unknown to the other."""
from __future__ import annotations

import pytest

from chronoplan.compiler import builtins
from chronoplan.compiler.driver import compile_text
from chronoplan.runtime.kitchen import logic


def test_runtime_implements_exactly_the_declared_relations():
    assert set(logic.BUILTIN_TESTS) == set(builtins.RELATIONS)
    assert logic.BUILTIN_ATOMS == tuple(builtins.RELATIONS)


def test_declarations_are_consistent():
    for f in builtins.FUNCTIONS.values():
        assert f.args and (f.arity is None or len(f.args) == f.arity)
    for r in builtins.RELATIONS.values():
        assert r.arity == len(r.params) and all(t in builtins.TYPES for t in r.params)
    for e in builtins.EFFECTS.values():
        assert all(t in builtins.TYPES for t in e.params)


HEAD = """
type ingredient < item
relation on(item, station)
"""


@pytest.mark.parametrize("name", list(builtins.RELATIONS))
def test_checker_knows_each_builtin_relation_arity(name):
    arity = builtins.RELATIONS[name].arity
    args = ", ".join(["a"] * (arity + 1))
    src = HEAD + f"action x(a: agent) {{ when start: {name}({args}) }}\n"
    _, diags, _ = compile_text(src)
    assert [d.code for d in diags if d.severity.value == "error"] == ["C104"]
    assert f"relation '{name}' takes {arity} argument" in diags[0].message


def test_builtin_relation_argument_types_are_checked():
    src = HEAD + "action x(a: agent, i: ingredient) { when start: walkable(i) }\n"
    _, diags, _ = compile_text(src)
    assert [(d.code, d.message) for d in diags if d.severity.value == "error"] == \
        [("C105", "argument 1 of 'walkable' must be a cell, 'i' is a ingredient")]


def test_unknown_function_lists_the_declared_builtins():
    src = "const X = foo(1)\n"
    _, diags, _ = compile_text(src)
    assert diags[0].code == "C101"
    assert "(built-ins: dist, ceil, floor, maximum, minimum)" in diags[0].message


def test_builtins_in_expressions_are_typed_nodes():
    """dist(a, b), x.attr and count(...) are ir.Dist, ir.AttrRef and ir.Count inside the sympy arithmetic,
    found by type; no consumer matches a sympy function by its name."""
    import sympy

    from chronoplan.compiler import ir
    src = HEAD + """
attr heat(item): number = 0
const heat = 7
action move(a: agent, c: cell) { duration 2 * dist(a, c) + 1 busy a }
action warm(a: agent, i: item, s: station) {
  duration i.heat + count(j: item where on(j, s)) busy a
}
"""
    p, diags, _ = compile_text(src)
    assert not [d for d in diags if d.severity.value == "error"], diags
    (dist,) = p.actions["move"].duration.atoms(ir.Dist)
    assert dist.names == ("a", "c") and str(dist) == "dist(a, c)"
    warm = p.actions["warm"].duration
    (ref,) = warm.atoms(ir.AttrRef)
    assert (ref.attr, ref.obj) == ("heat", "i")
    (count,) = warm.atoms(ir.Count)
    assert count.symbol == p.actions["warm"].aggregates[0].symbol
    assert not warm.atoms(sympy.core.function.AppliedUndef)
    # the attribute's name is not a free symbol: substituting the constant 'heat' leaves x.heat alone
    assert warm.xreplace({sympy.Symbol("heat"): 7}) == warm


def test_terms_say_what_they_name_with_an_enum():
    from chronoplan.compiler import ir
    src = HEAD + """
attr state(item): raw | cooked = raw
action cook(a: agent, i: ingredient, s: station) { when start: on(i, s) and i.state == raw }
"""
    p, diags, _ = compile_text(src)
    assert not [d for d in diags if d.severity.value == "error"], diags
    cmp = p.actions["cook"].conditions[0].formula.args[1]
    assert (cmp.left.kind, cmp.right.kind) == (ir.TermKind.ATTR, ir.TermKind.VALUE)
    assert cmp.left.kind == "attr" and str(cmp.right.kind) == "value"     # a str enum: old comparisons hold
