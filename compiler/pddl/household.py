"""Classical PDDL export of a household episode's omniscient relaxation (issue #13 item 5).

Input: a checked ``ir.Project`` and a household scenario (``classical`` is accepted and ignored: the export is
always classical).  The episode is drawn with the scenario's seed (``compiler.household.HouseholdProblem``)
and every placement is written into the initial state: the planner knows where everything is.  Output:
``PddlExport`` (STRIPS + ``:action-costs``) whose ``actions`` map each PDDL action name to a ``HouseholdAction``
(the household action it stands for); ``ExportError`` (P010) for a scenario that is not a household episode.

Model (docs/pddl.md, "Households"): objects are the agents, the points (rooms' entry points and places:
containers and surfaces), the things, one ``hand`` object per hand and counters ``n0..nK``.  ``walk ?a ?from
?to`` costs ``(steps ?from ?to)`` = ceil(metres / speed) (a static function, the engine's walking cost);
``open`` (a closed container, at it), ``grab`` (a thing lying at the agent's point where it can be reached,
into a free hand) and ``put`` (a held thing on a surface or into an open container, at it) cost 1 each.
Goals: a goal whose count equals the things that can satisfy it becomes one ``(lies x place)`` per thing;
otherwise a zero-cost ``count-gI`` action moves a counter from ``nK`` to ``nK+1`` for a candidate lying on the
goal place and freezes that thing (it cannot be grabbed again), and the goal asks for the counter at the
count (P022).  Baskets (TDW-MAT's containers) are things of type ``basket`` lying at their own point (``NAME-spot``);
``put-in`` puts a held thing into a basket held in the other hand (1 step) while the basket's fill counter is
below its capacity, and ``settle`` (0 steps) makes a thing inside a basket that lies on a goal place lie
there itself, as the engine counts it.  With the TDW syntax, ``transport`` (1 step, on a goal place) starts an
unloading in which ``drop`` (0) puts held things there and ``finish-transport`` (0) ends it; every other action
of the agent needs ``(idle ?a)``.  A partial unloading costs what a ``put`` of one thing costs in the engine,
so costs stay the engine's.  What the relaxation drops is reported (P021): partial observability (exploring, beliefs),
simultaneity (the plan is one sequence; its total cost is the sum of all agents' steps, not the episode's
steps), messages and the horizon.  Only positive preconditions are used.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdError, HouseholdProblem
from chronoplan.compiler.pddl.common import ExportError, PddlExport, TimeScale, error, warning
from chronoplan.compiler.pddl.names import NameMap, slug
from chronoplan.compiler.pddl.write import Domain, Lit, PddlAction, Predicate, Problem

# The export's own names (reserved first so that no room, place, thing or agent takes them).
RESERVED_NAMES = ("agent", "point", "room", "place", "container", "surface", "thing", "hand", "counter",
                  "at", "lies", "reachable", "closed", "hand-free", "holding", "movable", "next", "steps",
                  "walk", "open", "grab", "put", "basket", "spot", "in", "fill", "item", "goal-place", "idle",
                  "unloading", "put-in", "settle", "transport", "drop", "finish-transport")


@dataclass(frozen=True)
class HouseholdAction:
    """What a PDDL action of the household export stands for: ``kind`` walk | open | grab | put | transport | count
    (count: bookkeeping of 0 steps and no household action: goal counters, ``settle``, ``drop`` and
    ``finish-transport``); ``agent``, ``target`` and ``place`` are parameter indexes."""

    kind: str
    agent: Optional[int] = None
    target: Optional[int] = None
    place: Optional[int] = None


def _lit(pred: str, *args: str) -> Lit:
    return Lit(pred, tuple(args))


def _neg(pred: str, *args: str) -> Lit:
    return Lit(pred, tuple(args), False)


def _count_preds(n: NameMap, gi: int) -> tuple[str, str, str]:
    """The predicates of goal ``gi``'s counter: candidate things, the count so far, its place."""
    return (n.name(("pred", "candidate", gi), None, f"candidate-g{gi}"),
            n.name(("pred", "counted", gi), None, f"counted-g{gi}"),
            n.name(("pred", "where", gi), None, f"goal-place-g{gi}"))


def export_household(project: ir.Project, scenario: str, *, classical: bool = True) -> PddlExport:  # noqa: C901
    """The omniscient relaxation of household scenario ``scenario`` as classical PDDL with action costs."""
    scen = project.scenario(scenario)
    try:
        p = HouseholdProblem(project, scen)
    except HouseholdError as exc:
        raise ExportError([error("P010", f"scenario {scen.name} cannot be instantiated: {exc}", scen.span)]) from exc
    n = NameMap()
    for r in RESERVED_NAMES:
        n.name(("reserved", r), None, r)
    agent = {a: n.name(("agent", a), None, a) for a in p.agents}
    baskets = set(p.baskets)
    tdw = p.syntax == ir.ActionSyntax.TDW and p.goal_place is not None
    point = {x: n.name(("point", x), None, f"{x}-spot" if x in baskets else x) for x in p.points}
    thing = {x: n.name(("thing", x), None, x) for x in (*p.things, *p.baskets)}
    hands = [n.name(("hand", i), None, f"h{i}") for i in range(1, p.hands + 1)]
    diags = [warning("P021", f"the PDDL export of {p.scenario} is its omniscient sequential relaxation (seed "
                     f"{p.seed}: every placement known): exploring, observation, messages, the horizon "
                     f"{p.horizon} and simultaneity are dropped; the plan's total cost is the sum of all agents' "
                     "steps", scen.span,
                     ("the episode's optimum with simultaneous agents is `chronoplan solve --planner astar`",))]

    # goals: specific things when the count takes every candidate, counters otherwise
    goal_lits: list = []
    counted: list = []                      # (goal index, goal, candidates)
    for gi, (g, cands) in enumerate(zip(p.goals, p.goal_things), start=1):
        if g.count >= len(cands):
            goal_lits += [_lit("lies", thing[x], point[g.where]) for x in cands]
        else:
            counted.append((gi, g, cands))
            diags.append(warning("P022", f"goal {g.count} {g.relation}({g.what}, {g.where}): {len(cands)} things "
                                 f"can count ({', '.join(cands)}); lowered to the counting action count-g{gi} "
                                 "(a counted thing stays on the place)", g.span))
    caps = {b: p.places[b].capacity or 0 for b in p.baskets}
    top = max([g.count for _, g, _ in counted] + list(caps.values()), default=0)
    counters = [n.name(("counter", k), None, f"n{k}") for k in range(top + 1)]

    preds = [
        Predicate("at", (("?a", "agent"), ("?p", "point")), "the agent stands at the point"),
        Predicate("lies", (("?x", "thing"), ("?p", "point")), "the thing lies loose in a room, on a surface or in a "
                  "container"),
        Predicate("reachable", (("?p", "point"),), "things at the point can be reached (rooms, surfaces, open "
                  "containers)"),
        Predicate("closed", (("?c", "container"),), "the container is closed"),
        Predicate("hand-free", (("?a", "agent"), ("?h", "hand")), "the agent's hand holds nothing"),
        Predicate("holding", (("?a", "agent"), ("?h", "hand"), ("?x", "thing")), "the agent holds the thing"),
        Predicate("movable", (("?x", "thing"),), "the thing may be grabbed (not counted for a goal yet)"),
    ]
    if counted or baskets:
        preds.append(Predicate("next", (("?k", "counter"), ("?m", "counter")), "m = k + 1"))
    if baskets:
        preds += [Predicate("in", (("?x", "thing"), ("?b", "basket")), "the thing is inside the basket"),
                  Predicate("fill", (("?b", "basket"), ("?k", "counter")), "the basket takes things while k is "
                            "below the top counter (it starts at top - capacity)"),
                  Predicate("item", (("?x", "thing"),), "the thing is not a basket"),
                  Predicate("goal-place", (("?p", "place"),), "a goal's place")]
    if tdw:
        preds += [Predicate("idle", (("?a", "agent"),), "the agent is not unloading"),
                  Predicate("unloading", (("?a", "agent"),), "the agent is between transport and finish-transport")]
        if not baskets:
            preds.append(Predicate("goal-place", (("?p", "place"),), "a goal's place"))
    acts = [
        PddlAction("walk", (("?a", "agent"), ("?from", "point"), ("?to", "point")),
                   (_lit("at", "?a", "?from"),), (_neg("at", "?a", "?from"), _lit("at", "?a", "?to")),
                   "(steps ?from ?to)", "walk between two points: ceil(metres / speed) steps"),
        PddlAction("open", (("?a", "agent"), ("?c", "container")),
                   (_lit("at", "?a", "?c"), _lit("closed", "?c")),
                   (_neg("closed", "?c"), _lit("reachable", "?c")), Fraction(1), "open a closed container (1 step)"),
        PddlAction("grab", (("?a", "agent"), ("?h", "hand"), ("?x", "thing"), ("?p", "point")),
                   (_lit("at", "?a", "?p"), _lit("lies", "?x", "?p"), _lit("reachable", "?p"),
                    _lit("hand-free", "?a", "?h"), _lit("movable", "?x")),
                   (_neg("lies", "?x", "?p"), _neg("hand-free", "?a", "?h"), _lit("holding", "?a", "?h", "?x")),
                   Fraction(1), "grab a thing into a free hand (1 step)"),
        PddlAction("put", (("?a", "agent"), ("?h", "hand"), ("?x", "thing"), ("?p", "place")),
                   (_lit("at", "?a", "?p"), _lit("holding", "?a", "?h", "?x"), _lit("reachable", "?p")),
                   (_neg("holding", "?a", "?h", "?x"), _lit("hand-free", "?a", "?h"), _lit("lies", "?x", "?p")),
                   Fraction(1), "put a held thing on a surface or into an open container (1 step)"),
    ]
    info: dict = {"walk": HouseholdAction("walk", 0, None, 2), "open": HouseholdAction("open", 0, 1, 1),
                  "grab": HouseholdAction("grab", 0, 2, 3), "put": HouseholdAction("put", 0, 2, 3)}
    if baskets:
        acts += [
            PddlAction("put-in", (("?a", "agent"), ("?hb", "hand"), ("?b", "basket"), ("?h", "hand"), ("?x", "thing"),
                                  ("?k", "counter"), ("?m", "counter")),
                       (_lit("holding", "?a", "?hb", "?b"), _lit("holding", "?a", "?h", "?x"), _lit("item", "?x"),
                        _lit("fill", "?b", "?k"), _lit("next", "?k", "?m")),
                       (_neg("holding", "?a", "?h", "?x"), _lit("hand-free", "?a", "?h"), _lit("in", "?x", "?b"),
                        _neg("fill", "?b", "?k"), _lit("fill", "?b", "?m")),
                       Fraction(1), "put a held thing into a basket held in the other hand (1 step)"),
            PddlAction("settle", (("?x", "thing"), ("?b", "basket"), ("?p", "place")),
                       (_lit("in", "?x", "?b"), _lit("lies", "?b", "?p"), _lit("goal-place", "?p")),
                       (_neg("in", "?x", "?b"), _lit("lies", "?x", "?p")), Fraction(0),
                       "a thing in a basket on a goal place lies there (bookkeeping, 0 steps)")]
        info["put-in"] = HouseholdAction("put", 0, 4, 2)
        info["settle"] = HouseholdAction("count", None, 0, 2)
    if tdw:
        acts = [replace(a, pre=(*a.pre, _lit("idle", "?a"))) if a.params[:1] == (("?a", "agent"),) else a
                for a in acts]
        acts += [
            PddlAction("transport", (("?a", "agent"), ("?p", "place")),
                       (_lit("idle", "?a"), _lit("at", "?a", "?p"), _lit("goal-place", "?p")),
                       (_neg("idle", "?a"), _lit("unloading", "?a")), Fraction(1),
                       "start putting what the agent holds on the goal place it stands at (1 step)"),
            PddlAction("drop", (("?a", "agent"), ("?h", "hand"), ("?x", "thing"), ("?p", "place")),
                       (_lit("unloading", "?a"), _lit("at", "?a", "?p"), _lit("holding", "?a", "?h", "?x")),
                       (_neg("holding", "?a", "?h", "?x"), _lit("hand-free", "?a", "?h"), _lit("lies", "?x", "?p")),
                       Fraction(0), "a held thing put down by the transport (bookkeeping, 0 steps)"),
            PddlAction("finish-transport", (("?a", "agent"),), (_lit("unloading", "?a"),),
                       (_neg("unloading", "?a"), _lit("idle", "?a")), Fraction(0),
                       "end the transport (bookkeeping, 0 steps)")]
        info["transport"] = HouseholdAction("transport", 0, None, 1)
        info["drop"] = HouseholdAction("count", 0, 2, 3)
        info["finish-transport"] = HouseholdAction("count", 0)
    for gi, g, _cands in counted:
        cand, cnt, where = _count_preds(n, gi)
        preds.append(Predicate(cand, (("?x", "thing"),), f"the thing can count for goal {gi} ({g.what})"))
        preds.append(Predicate(where, (("?p", "place"),), f"the place of goal {gi} ({g.where})"))
        preds.append(Predicate(cnt, (("?k", "counter"),), f"k things counted for goal {gi} "
                               f"({g.count} {g.relation}({g.what}, {g.where}))"))
        name = n.name(("action", "count", gi), None, f"count-g{gi}")
        acts.append(PddlAction(name, (("?x", "thing"), ("?p", "place"), ("?k", "counter"), ("?m", "counter")),
                               (_lit(cand, "?x"), _lit(where, "?p"), _lit("lies", "?x", "?p"), _lit("movable", "?x"),
                                _lit(cnt, "?k"), _lit("next", "?k", "?m")),
                               (_neg("movable", "?x"), _neg(cnt, "?k"), _lit(cnt, "?m")), Fraction(0),
                               f"count a thing on {g.where} for goal {gi} (bookkeeping, 0 steps)"))
        info[name] = HouseholdAction("count", None, 0, 1)
        goal_lits.append(_lit(cnt, counters[g.count]))

    objects = [(agent[a], "agent") for a in p.agents] + [(point[r], "room") for r in p.rooms]
    objects += [(point[c], "container") for c in p.containers] + [(point[s], "surface") for s in p.surfaces]
    objects += [(point[b], "spot") for b in p.baskets]
    objects += [(thing[x], "thing") for x in p.things] + [(thing[b], "basket") for b in p.baskets]
    objects += [(h, "hand") for h in hands] + [(c, "counter") for c in (counters if counted or baskets else ())]
    init = [_lit("at", agent[a], point[p.starts[a]]) for a in p.agents]
    init += [_lit("hand-free", agent[a], h) for a in p.agents for h in hands]
    init += [_lit("reachable", point[r]) for r in p.rooms]
    init += [_lit("reachable", point[s]) for s in p.surfaces]
    for c in p.containers:
        init.append(_lit("closed", point[c]) if p.places[c].closed else _lit("reachable", point[c]))
    init += [_lit("lies", thing[x], point[p.placement[x]]) for x in p.things]
    init += [_lit("movable", thing[x]) for x in p.things]
    if baskets:
        init += [_lit("reachable", point[b]) for b in p.baskets]
        init += [_lit("lies", thing[b], point[p.placement[b]]) for b in p.baskets]
        init += [_lit("movable", thing[b]) for b in p.baskets]
        init += [_lit("item", thing[x]) for x in p.things]
        init += [_lit("fill", thing[b], counters[top - caps[b]]) for b in p.baskets]
    if baskets or tdw:
        init += [_lit("goal-place", point[w]) for w in sorted({g.where for g in p.goals})]
    if tdw:
        init += [_lit("idle", agent[a]) for a in p.agents]
    for gi, g, cands in counted:
        cand, cnt, where = _count_preds(n, gi)
        init += [_lit(cnt, counters[0]), _lit(where, point[g.where])]
        init += [_lit(cand, thing[x]) for x in cands]
    if counted or baskets:
        init += [_lit("next", counters[k], counters[k + 1]) for k in range(top)]
    numeric = [("(total-cost)", Fraction(0))]
    numeric += [(f"(steps {point[a]} {point[b]})", Fraction(p.steps(a, b))) for a in p.points for b in p.points]
    head = (f"Generated by chronoplan from household scenario {p.scenario} (omniscient sequential relaxation, "
            f"seed {p.seed}).",
            f"Action costs are steps: walking ceil(metres / {p.speed} m), open, grab and put 1 each; the total "
            "is the sum over all agents.")
    dname = "chronoplan-" + slug(p.scenario) + "-household"
    domain = Domain(dname, (":strips", ":typing", ":action-costs"),
                    (("point", "object"), ("agent", "object"), ("thing", "object"), ("hand", "object"),
                     ("counter", "object"), ("room", "point"), ("place", "point"), ("container", "place"),
                     ("surface", "place")) + ((("spot", "point"), ("basket", "thing")) if baskets else ()),
                    tuple(preds), tuple(acts), ("(total-cost) - number", "(steps ?from ?to - point) - number"),
                    head)
    prob = Problem(dname + "-problem", dname, tuple(objects), tuple(init), (), tuple(numeric), tuple(goal_lits),
                   "minimize (total-cost)", head[:1])
    return PddlExport(p.scenario, True, domain, prob, tuple(diags), n, TimeScale(1, 1), info, None)
