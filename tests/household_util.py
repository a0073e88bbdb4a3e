"""A small C-WAH-style home built as IR objects (no parser), for the household engine tests and the bench.

Input: options (seed, syntax, goals, message limit, baskets).  Output: ``project(...)`` -> an ``ir.Project``
with one household ``home`` and one scenario ``tea``; ``problem(...)`` -> its ``HouseholdProblem``.
"""
from __future__ import annotations

from fractions import Fraction

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdProblem

F = Fraction


def _atom(rel, *args):
    return ir.Atom(rel, tuple(args))


# see x: thing when same_room(self, x) and not exists(c: container where inside(x, c) and closed(c))
# see c: place when same_room(self, c);  see a: agent when same_room(self, a)
RULES = (
    ir.ObserveRule("x", "thing", ir.And((_atom("same_room", "self", "x"), ir.Not(ir.Exists(
        "c", "container", ir.And((_atom("inside", "x", "c"), _atom("closed", "c")))))))),
    ir.ObserveRule("b", "basket", _atom("same_room", "self", "b")),
    ir.ObserveRule("c", "place", _atom("same_room", "self", "c")),
    ir.ObserveRule("a", "agent", _atom("same_room", "self", "a")),
)


def home(baskets: bool = False, rules=RULES) -> ir.Household:
    P, K = ir.Place, ir.PlaceKind
    places = [P("fridge", K.CONTAINER, "kitchen", F(2), closed=True),
              P("dishwasher", K.CONTAINER, "kitchen", F(3), closed=True),
              P("kitchencabinet", K.CONTAINER, "kitchen", F(3, 2), closed=True),
              P("bathroomcabinet", K.CONTAINER, "bathroom", F(1), closed=True),
              P("coffeetable", K.SURFACE, "livingroom", F(2)),
              P("dinnertable", K.SURFACE, "kitchen", F(3)),
              P("sofa", K.SURFACE, "livingroom", F(4)),
              P("bed", K.SURFACE, "bedroom", F(2))]
    if baskets:
        places.append(P("basket1", K.BASKET, "livingroom", F(1), capacity=3))
    T = ir.Thing
    things = [T("cupcake1", "cupcake", ("fridge", "kitchencabinet", "coffeetable", "bathroomcabinet")),
              T("cupcake2", "cupcake", ("fridge", "kitchencabinet", "sofa", "bedroom")),
              T("apple1", "apple", ("kitchen", "livingroom", "bedroom", "dinnertable")),
              T("pudding1", "pudding", ("fridge", "dishwasher", "bed", "bathroom")),
              T("juice1", "juice", ("fridge", "kitchencabinet", "dinnertable")),
              T("wine1", "wine", ("kitchencabinet", "bathroomcabinet", "bedroom")),
              T("plate1", "plate", ("dishwasher",)),
              T("fork1", "fork", ("dishwasher", "kitchencabinet"))]
    doors = (ir.Door("livingroom", "kitchen", F(9, 2)), ir.Door("livingroom", "bedroom", F(6)),
             ir.Door("bedroom", "bathroom", F(3)))
    return ir.Household("home", ("livingroom", "kitchen", "bedroom", "bathroom"), doors, tuple(places),
                        tuple(things), rules, hands=2, speed=F(1))


TEA = (ir.GoalCount(1, "on", "cupcake", "coffeetable"), ir.GoalCount(1, "on", "apple", "coffeetable"),
       ir.GoalCount(1, "on", "pudding", "coffeetable"), ir.GoalCount(1, "on", "juice", "coffeetable"),
       ir.GoalCount(1, "on", "wine", "coffeetable"))


def scenario(name="tea", seed=1, goals=TEA, syntax=ir.ActionSyntax.CWAH, starts=(("alice", "livingroom"),
             ("bob", "kitchen")), message_limit=500, horizon=250) -> ir.Scenario:
    return ir.Scenario(name, ir.TimeUnit.TICK, None, tuple(ir.AgentDecl(a, None) for a, _ in starts), (), (), (),
                       (), None, (), (), None, (), None, (), household="home", starts=tuple(starts),
                       goals=tuple(goals), horizon=horizon, seed=seed, message_limit=message_limit,
                       message_cost=1, syntax=syntax)


def project(*scenarios: ir.Scenario, baskets: bool = False, rules=RULES) -> ir.Project:
    scens = scenarios or (scenario(),)
    return ir.Project(("<test>",), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {s.name: s for s in scens},
                      households={"home": home(baskets, rules)})


def problem(seed=None, **kw) -> HouseholdProblem:
    baskets = kw.pop("baskets", False)
    scen = scenario(**kw)
    return HouseholdProblem(project(scen, baskets=baskets), scen.name, seed)
