"""The language constructs for grid kitchens: IR shape and diagnostics."""
import pytest
from kitchen_util import KITCHEN

import chronoplan
from chronoplan.compiler import ir
from chronoplan.compiler.driver import compile_text

BASE = """
type ingredient < item, container < item, plate < container, meat < ingredient
type counter < station, table < counter, dispenser < counter, stove < station
attr state(ingredient): raw | chopped | cooked = raw
relation holding(agent, item) as holding capacity 1 per agent
relation on(item, station) as placement capacity 1 per station
relation inside(ingredient, container) as containment
container plate capacity 3 accepts meat@cooked, ingredient
action take(a: agent, d: dispenser, new i: ingredient from d) {
  when start: adjacent(a, d) and not exists(x: item where on(x, d))
  at end: holding(a, i)
}
action move(a: agent, c: cell) { duration dist(a, c) busy a when start: walkable(c) and reachable(a, c) \
at end: at(a, c) }
action tidy(a: agent, s: counter, p: plate) {
  duration count(i: ingredient where inside(i, p))
  when start: adjacent(a, s) and on(p, s) and accepts(p, p)
  at end: forall(i: ingredient where inside(i, p)): (not inside(i, p), destroy(i)), deliver(p)
}
process cook(p: plate) {
  when exists(i: ingredient where inside(i, p) and i.state == chopped)
  while exists(s: stove where on(p, s))
  duration 5 * count(i: ingredient where inside(i, p) and i.state == chopped)
  at end: forall(i: ingredient where inside(i, p)): i.state = cooked
}
surface MoveTo(a: agent, target: cell) = move
surface Interact(a: agent, target: station) = take | tidy
surface Finish(a: agent) final
recipe r = plate[meat@cooked]
map m \"\"\"
  D.T
  ...
\"\"\" where D = dispenser(meat), T = table with plate as the_table
scenario s { map m agents agent1 at (1, 1) orders r }
"""


def check(text):
    project, diags, _ = compile_text(text, "k.chrono")
    return project, [d for d in diags if d.is_error]


def test_constructs_compile_to_ir():
    p, errors = check(BASE)
    assert errors == []
    assert (p.relations["holding"].role, p.relations["holding"].capacity, p.relations["holding"].capacity_per) == (
        "holding", 1, 0)
    assert (p.relations["on"].role, p.relations["on"].capacity_per) == ("placement", 1)
    assert p.containers["plate"] == ir.Container("plate", 3, (("meat", "cooked"), ("ingredient", None)))
    take = p.actions["take"]
    assert take.params[2] == ir.Param("i", "ingredient", True, "d")
    assert isinstance(take.conditions[0].formula.args[1].arg, ir.Exists)
    tidy = p.actions["tidy"]
    assert tidy.aggregates[0].symbol == "count_1" and [c.symbol for c in tidy.duration.atoms(ir.Count)] == ["count_1"]
    effects = [e.effect for e in tidy.effects]
    assert isinstance(effects[0], ir.Forall) and effects[0].effects[1] == ir.BuiltinEffect("destroy", ("i",))
    assert effects[1] == ir.BuiltinEffect("deliver", ("p",))
    cook = p.processes["cook"]
    assert isinstance(cook.scope, ir.Exists) and isinstance(cook.condition, ir.And)
    assert cook.condition.args[0] == cook.scope
    assert p.surfaces["Interact"] == ir.Surface("Interact", (ir.Param("a", "agent"), ir.Param("target", "station")),
                                                ("take", "tidy"), False)
    assert p.surfaces["Finish"].final
    st = {s.name: s for s in p.maps["m"].stations}
    assert st["the_table"].item == "plate" and st["dispenser1"].arg == "meat"


@pytest.mark.parametrize("old,new,code,text", [
    ("as holding capacity 1 per agent", "as grip", "C107", "unknown relation role 'grip'"),
    ("as holding capacity 1 per agent", "capacity 1 per station", "C105", "'per station' must name"),
    ("as holding capacity 1 per agent", "capacity 0 per agent", "C109", "at least 1"),
    ("as placement capacity 1 per station", "as holding", "C102", "two relations have the role"),
    ("container plate capacity 3", "container platter capacity 3", "C101", "undefined type 'platter'"),
    ("accepts meat@cooked", "accepts meat@burnt", "C107", "'burnt' is not a state"),
    ("= take | tidy", "= take | cook", "C103", "'cook' is a process"),
    ("= take | tidy", "= take | bake", "C101", "undefined action 'bake'"),
    ("surface MoveTo(a: agent, target: cell)", "surface MoveTo(a: agent, target: number)", "C105",
     "binds its 'target: number'"),
    ("new i: ingredient from d", "new i: ingredient from a", "C105", "needs a station parameter"),
    ("new i: ingredient from d", "new i: ingredient from zz", "C101", "not an earlier parameter"),
    ("D = dispenser(meat)", "D = dispenser", "C105", "must name a ingredient type"),
    ("T = table with plate as the_table", "T = table with plate as dispenser1", "C102", "two stations named"),
    ("  D.T\n", "  D.T\n  T..\n", "C102", "occurs more than once"),
    ("T = table with plate", "T = table with platter", "C101", "after 'with'"),
    ("agents agent1 at (1, 1)", "agents agent1", "C402", "needs a start cell"),
    ("orders r", "orders r\n} recipe q = bowl[meat] scenario t { map m agents agent1 at (1, 1) orders q", "C101",
     "undefined container 'bowl'"),
])
def test_diagnostics(old, new, code, text):
    assert old in BASE
    _, errors = check(BASE.replace(old, new, 1))
    assert any(d.code == code and text in d.message for d in errors), [f"{d.code} {d.message}" for d in errors]


def test_count_outside_durations_is_an_error():
    _, errors = check(BASE + "const N = count(i: item where on(i, i))\n")
    assert any(d.code == "C105" and "count(...)" in d.message for d in errors)


def test_bundled_kitchen_declares_paracook_physics():
    p = chronoplan.load(KITCHEN)
    assert sorted(p.surfaces) == ["Finish", "Interact", "MoveTo", "Process", "Wait"]
    assert len(p.recipes) == 20 and {r.category for r in p.recipes.values()} == {
        "burger", "burrito", "pasta", "salad", "sashimi", "sushi"}
    assert {c: v for c, v in ((n, str(p.constants[n].expr)) for n in ("MOVE", "INTERACT", "CUT", "POT", "PAN",
                                                                        "WASH", "RETURN"))} == {
        "MOVE": "1", "INTERACT": "0", "CUT": "4", "POT": "16", "PAN": "24", "WASH": "6", "RETURN": "10"}
    assert p.containers["pan"].accepts[0] == ("meat", "chopped") and p.containers["pot"].accepts == (
        ("rice", "raw"), ("pasta", "raw"))
