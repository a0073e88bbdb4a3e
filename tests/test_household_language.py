"""The household language (issue #13): parse and check of the bundled households, their IR, a located
diagnostic for every new error, and hostile inputs that must give a diagnostic, never a traceback."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "domains"

HOME = """\
household home {
  room kitchen, hall
  door kitchen - hall 3 m
  container fridge in kitchen closed 2 m
  surface table in kitchen 1.5 m
  basket box capacity 2 in hall 1 m
  thing apple1, apple2: apple in one of (fridge, hall)
  thing plate1: plate in table
  observe {
    see x: thing when same_room(self, x) and not exists(c: container where inside(x, c) and closed(c))
  }
}
"""
SCEN = """\
scenario s {
  household home
  agents alice at kitchen
  goal 1 inside(apple, fridge)
  horizon 10
}
"""


HOME_RULE = ir.And((ir.Atom("same_room", ("self", "x")), ir.Not(ir.Exists(
    "c", "container", ir.And((ir.Atom("inside", ("x", "c")), ir.Atom("closed", ("c",))))))))


def errors(src: str) -> list:
    _, diags, _ = compile_text(src, "t.chrono")
    return [(d.code, d.span.line, d.span.col) for d in diags if d.is_error]


def messages(src: str) -> list:
    _, diags, _ = compile_text(src, "t.chrono")
    return [d.message for d in diags if d.is_error]


# ---------------------------------------------------------------- the bundled households
def test_bundled_household_domain_compiles_to_the_c_wah_home():
    p = chronoplan.load(DOMAINS / "household")
    home = p.households["home"]
    assert home.rooms == ("livingroom", "kitchen", "bedroom", "bathroom")
    assert ir.Door("livingroom", "kitchen", Fraction(9, 2)) in home.doors
    kinds = {pl.name: (pl.kind, pl.closed) for pl in home.places}
    for c in ("fridge", "dishwasher", "kitchencabinet", "microwave", "bathroomcabinet"):
        assert kinds[c] == (ir.PlaceKind.CONTAINER, True)
    for s in ("coffeetable", "dinnertable", "kitchencounter", "bed"):
        assert kinds[s] == (ir.PlaceKind.SURFACE, False)
    types = {t.type for t in home.things}
    assert {"cupcake", "pudding", "apple", "juice", "wine", "plate", "fork", "coffeepot", "pancake",
            "poundcake"} <= types
    assert any(len(t.options) > 1 for t in home.things) and any(len(t.options) == 1 for t in home.things)
    assert home.hands == 2 and home.speed == 1 and len(home.observe) == 3
    scens = [s for s in p.scenarios.values() if s.kind is ir.ScenarioKind.HOUSEHOLD]
    assert len(scens) == 10 and len({s.seed for s in scens}) == 10
    for s in scens:
        assert s.household == "home" and s.horizon == 250 and len(s.starts) == 2
        assert 3 <= sum(g.count for g in s.goals) <= 5
        assert s.message_limit == 500 and s.message_cost == 1 and s.syntax is ir.ActionSyntax.CWAH
        assert s.map is None and not s.procedures and not s.apps
    # the five goal types of the paper's Table 4
    wheres = {(g.relation, g.where) for s in scens for g in s.goals}
    assert {("on", "coffeetable"), ("inside", "dishwasher"), ("on", "dinnertable"), ("inside", "fridge")} <= wheres
    # no thing may start where a goal of its type asks for it (no episode starts partly done)
    for s in scens:
        for g in s.goals:
            assert all(g.where not in t.options for t in home.things if t.type == g.what)


def test_bundled_transport_domain_is_tdw_style():
    p = chronoplan.load(DOMAINS / "transport")
    home = p.households["apartment"]
    baskets = [pl for pl in home.places if pl.kind is ir.PlaceKind.BASKET]
    assert len(baskets) == 6 and all(b.capacity == 3 for b in baskets)
    assert home.place("bed").kind is ir.PlaceKind.SURFACE
    assert any("explored" in repr(r.when) for r in home.observe)
    for s in p.scenarios.values():
        assert s.syntax is ir.ActionSyntax.TDW and sum(g.count for g in s.goals) == 10
        assert all(g.where == "bed" and g.relation == "on" for g in s.goals)


def test_observe_rule_ir_reuses_the_formula_ir():
    p, diags, _ = compile_text(HOME + SCEN)
    assert not [d for d in diags if d.is_error], diags
    rule = p.households["home"].observe[0]
    assert (rule.var, rule.type) == ("x", "thing")
    assert rule.when == HOME_RULE
    s = p.scenarios["s"]
    assert s.kind is ir.ScenarioKind.HOUSEHOLD and s.starts == (("alice", "kitchen"),)
    assert s.goals == (ir.GoalCount(1, "inside", "apple", "fridge"),)
    assert (s.seed, s.message_limit, s.message_cost, s.syntax) == (0, 500, 1, ir.ActionSyntax.CWAH)
    assert p.households["home"].thing("apple1").options == ("fridge", "hall")


def test_other_families_are_unchanged():
    p = chronoplan.load(DOMAINS / "recipes")
    assert all(s.kind is ir.ScenarioKind.PROCEDURES and s.household is None and s.goals == ()
               for s in p.scenarios.values())


def test_observe_relations_are_declared_once_with_household_types():
    for r in builtins.OBSERVE_RELATIONS.values():
        assert all(t in builtins.HOUSEHOLD_TYPES for t in r.params)
    assert set(builtins.OBSERVE_RELATIONS) == {"same_room", "inside", "on", "closed", "holds", "near", "explored",
                                                "is"}


def test_the_documented_example_compiles():
    doc = (ROOT / "docs" / "language.md").read_text()
    block = doc.split("## Households (partial observability)")[1].split("```")[1]
    p, diags, _ = compile_text(block)
    assert not diags and p.scenarios["tea_1"].kind is ir.ScenarioKind.HOUSEHOLD


# ---------------------------------------------------------------- located diagnostics
def _home(extra: str) -> str:
    return HOME.replace("  observe {", extra + "  observe {")


CASES = [
    ("unknown room of a place", _home("  surface shelf in garage 1 m\n"), ("C601", 9, 20)),
    ("option naming a thing", _home("  thing pear1: pear in one of (kitchen, apple1)\n"), ("C601", 9, 41)),
    ("door to a container", _home("  door kitchen - fridge 2 m\n"), ("C601", 9, 18)),
    ("door to itself", _home("  door hall - hall 2 m\n"), ("C602", 9, 3)),
    ("disconnected room", HOME.replace("room kitchen, hall", "room kitchen, hall, attic"), ("C603", 2, 23)),
    ("capacity 0", HOME.replace("capacity 2", "capacity 0"), ("C604", 6, 23)),
    ("hands 0", _home("  hands 0\n"), ("C604", 9, 9)),
    ("speed 0", _home("  speed 0 m\n"), ("C604", 9, 9)),
    ("closed surface", HOME.replace("table in kitchen", "table in kitchen closed"), ("C609", 5, 28)),
    ("duplicate name", _home("  surface fridge in hall 1 m\n"), ("C102", 9, 11)),
    ("thing named like a type", _home("  thing plate: cup in hall\n"), ("C102", 9, 9)),
    ("built-in thing type", _home("  thing c1: container in hall\n"), ("C102", 9, 13)),
    ("observe: unknown relation", HOME.replace("same_room(self, x)", "visible(self, x)"), ("C607", 10, 23)),
    ("observe: arity", HOME.replace("closed(c)", "closed(c, x)"), ("C607", 10, 93)),
    ("observe: argument type", HOME.replace("inside(x, c)", "inside(c, x)"), ("C607", 10, 83)),
    ("observe: unknown name", HOME.replace("same_room(self, x)", "same_room(me, x)"), ("C607", 10, 33)),
    ("observe: unknown type", HOME.replace("see x: thing", "see x: gadget"), ("C607", 10, 12)),
    ("observe: comparison", HOME.replace("same_room(self, x)", "x == self"), ("C607", 10, 23)),
    ("observe: self as the variable", HOME.replace("see x: thing", "see self: thing"), ("C607", 10, 9)),
    ("unknown household", HOME + SCEN.replace("household home", "household house"), ("C401", 14, 13)),
    ("start in an unknown room", HOME + SCEN.replace("alice at kitchen", "alice at garage"), ("C601", 15, 19)),
    ("start in a place", HOME + SCEN.replace("alice at kitchen", "alice at fridge"), ("C601", 15, 19)),
    ("grid position", HOME + SCEN.replace("alice at kitchen", "alice at (1, 2)"), ("C609", 15, 10)),
    ("agent without a room", HOME + SCEN.replace("alice at kitchen", "alice"), ("C402", 15, 10)),
    ("agent named like a room", HOME + SCEN.replace("alice at kitchen", "hall at kitchen"), ("C102", 15, 10)),
    ("goal relation", HOME + SCEN.replace("inside(apple, fridge)", "near(apple, fridge)"), ("C605", 16, 10)),
    ("inside a surface", HOME + SCEN.replace("inside(apple, fridge)", "inside(apple, table)"), ("C605", 16, 24)),
    ("on a container", HOME + SCEN.replace("inside(apple, fridge)", "on(apple, fridge)"), ("C605", 16, 20)),
    ("goal on a room", HOME + SCEN.replace("inside(apple, fridge)", "on(apple, hall)"), ("C601", 16, 20)),
    ("goal of an unknown type", HOME + SCEN.replace("inside(apple, fridge)", "on(pear, table)"), ("C601", 16, 13)),
    ("goal count 0", HOME + SCEN.replace("goal 1", "goal 0"), ("C604", 16, 8)),
    ("too many things", HOME + SCEN.replace("goal 1", "goal 3"), ("C606", 16, 8)),
    ("over a basket's capacity", HOME + SCEN.replace("goal 1 inside(apple, fridge)", "goal 2 inside(apple, box), "
                                                     "1 inside(plate, box)"), ("C606", 16, 30)),
    ("horizon 0", HOME + SCEN.replace("horizon 10", "horizon 0"), ("C604", 17, 11)),
    ("no horizon", HOME + SCEN.replace("horizon 10", ""), ("C402", 13, 10)),
    ("message limit 0", HOME + SCEN.replace("horizon 10", "horizon 10 messages 0 chars"), ("C604", 17, 23)),
    ("unknown syntax", HOME + SCEN.replace("horizon 10", "horizon 10 syntax vh"), ("C608", 17, 21)),
    ("map in a household scenario", HOME + SCEN.replace("horizon 10", "horizon 10 orders x"), ("C609", 17, 14)),
    ("goal elsewhere", 'procedure p { step 0 "Wait." 1 }\nscenario s { procedures p goal 1 on(a, b) }',
     ("C609", 2, 27)),
    ("start room elsewhere", 'procedure p { step 0 "Wait." 1 }\nscenario s { procedures p agents a at kitchen }',
     ("C609", 2, 39)),
]


@pytest.mark.parametrize("src, expected", [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_each_diagnostic_is_located(src, expected):
    assert expected in errors(src), errors(src)


def test_a_broken_household_hides_its_scenarios_follow_on_errors():
    src = HOME.replace("room kitchen, hall", "room kitchen, hall, attic") + SCEN
    _, diags, _ = compile_text(src, "t.chrono")
    assert [d.code for d in diags if d.is_error] == ["C603"]
    assert "1 follow-on error about the scenarios of household 'home' is hidden" in diags[0].notes[-1]


def test_messages_name_what_exists():
    msgs = messages(HOME + SCEN.replace("alice at kitchen", "alice at garage"))
    assert msgs == ["agent 'alice' starts in 'garage', which is not a room of household 'home'"]
    _, diags, _ = compile_text(HOME.replace("same_room(self, x)", "visible(self, x)"))
    assert "built-ins: same_room, inside, on, closed, holds, near, explored, is" in diags[0].notes


def test_keywords_are_whole_words():
    """``rooms a, b`` is a syntax error, not the room ``s`` followed by rooms a and b."""
    _, diags, _ = compile_text("household h { rooms a, b }")
    assert [d.code for d in diags] == ["C001"] and "'rooms'" in diags[0].message
    _, diags, _ = compile_text("household h { room a basketball in a 1 m }")
    assert [d.code for d in diags] == ["C001"]


# ---------------------------------------------------------------- hostile inputs
@pytest.mark.parametrize("src, code", [
    (HOME + SCEN.replace("horizon 10", "horizon " + "9" * 41), "C111"),          # the parser's digit limit
    (HOME + SCEN.replace("horizon 10", "horizon " + "9" * 30), "C111"),          # the horizon's limit
    (HOME.replace("3 m", "1" + "0" * 30 + " m"), "C111"),                          # a door's length
    (HOME + SCEN.replace("horizon 10", "horizon 10 messages 99999999999 chars"), "C111"),
    (HOME + SCEN.replace("goal 1", "goal 99999999999999999999"), "C111"),
    (HOME.replace("same_room(self, x)", "not " * 5000 + "same_room(self, x)"), "C111"),   # deep nesting
])
def test_hostile_input_gives_a_diagnostic(src, code):
    _, diags, _ = compile_text(src, "t.chrono")
    assert diags and diags[0].is_error and diags[0].span is not None
    if code is not None:
        assert code in {d.code for d in diags}, diags


def test_deep_parentheses_compile():
    """Parentheses add no nesting to the formula IR: 3,000 of them compile (no recursion error)."""
    p, diags, _ = compile_text(HOME.replace("same_room(self, x)", "(" * 3000 + "same_room(self, x)" + ")" * 3000))
    assert not diags and p.households["home"].observe[0].when == HOME_RULE


def test_many_things_and_options_check_quickly():
    rooms = ", ".join(f"r{i}" for i in range(200))
    doors = "\n".join(f"  door r{i} - r{i + 1} 1 m" for i in range(199))
    things = "\n".join(f"  thing t{i}: t in one of ({', '.join(f'r{j}' for j in range(0, 200, 7))})"
                       for i in range(2000))
    src = f"household big {{\n  room {rooms}\n{doors}\n{things}\n}}\n"
    p, diags, _ = compile_text(src)
    assert not diags and len(p.households["big"].things) == 2000
