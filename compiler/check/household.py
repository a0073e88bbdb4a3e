"""Households (partial observability): AST -> ``ir.Household``; household scenarios -> ``ir.Scenario``.

Input: ``household`` declarations (``check_households``) and the scenarios that name a household
(``household_scenario``, called by ``check.scenarios`` with the scenario's items).  Output: ``ctx.out("households")``
and IR scenarios of kind ``HOUSEHOLD``; located diagnostics: duplicate names (C102), unknown rooms, places,
things or types and names of the wrong kind (C601), a door from a room to itself (C602), no rooms or a room no
door path reaches (C603), numbers below their minimum (C604), goal relations other than on/inside or not fitting
their place (C605), goals asking for more things than exist or fit (C606), observe rules with an unknown
relation, type or name or wrong arguments (C607), an unknown action syntax (C608), household items where they
do not belong (C609), missing agents, start rooms, goals or horizon (C402), numbers beyond the language's
limits (C111), observe rules whose cost per step with the scenario's agents (``observe_rules.rule_cost``) is
beyond ``observe_rules.MAX_OBSERVE_COST`` (C111, once per rule).  The observe formulas reuse the formula syntax
and IR (``ir.Atom``, ``And``, ``Or``, ``Not``, ``Exists``, ``Const_``) over the built-in relations of
``builtins.OBSERVE_RELATIONS``; ``self`` is the observing agent.  A household with errors is left out of the project.
"""
from __future__ import annotations

from collections import deque
from fractions import Fraction
from typing import Optional

from chronoplan.compiler import ast as A
from chronoplan.compiler import builtins, ir
from chronoplan.compiler.household import observe_rules

MAX_METRES = 10 ** 6          # a door, a place's distance, the speed
MAX_STEPS = 10 ** 6           # horizon and message cost
MAX_MESSAGE = 10 ** 6         # characters per message
MAX_HANDS = 1000
MAX_DEPTH = 100               # nesting of an observe formula
HOUSEHOLD_ITEMS = ("household", "goal", "horizon", "seed", "messages", "syntax")
OTHER_ITEMS = ("map", "orders", "procedures", "share", "unit", "const", "limit", "occupancy", "apps", "tools",
               "query", "profile", "structure", "reference")
PLACE_KINDS = {k.value: k for k in ir.PlaceKind}
SELF = "self"


def _errors(ctx) -> int:
    return sum(1 for d in ctx.diags if d.is_error)


def _where(ident) -> str:
    sp = ident.span
    return f"{sp.file}:{sp.line}:{sp.col}" if sp else "elsewhere"


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


# ------------------------------------------------------------------ declarations
def check_households(ctx) -> None:
    for name, d in ctx.table("household").items():
        before = _errors(ctx)
        h = _household(ctx, d)
        if h is not None and _errors(ctx) == before:
            ctx.out("households")[name] = h


class _Home:
    """The names of one household while it is checked: name -> (kind, Ident); kinds room, container,
    surface, basket, thing; ``types``: thing type -> its things."""

    def __init__(self, ctx, d):
        self.ctx, self.d = ctx, d
        self.names: dict = {}
        self.types: dict = {}

    def declare(self, ident, kind: str) -> bool:
        prev = self.names.get(ident.name)
        if prev is not None:
            self.ctx.error("C102", f"duplicate name '{ident.name}' in household '{self.d.name.name}'", ident.span,
                           f"first declared as {_a(prev[0])} at {_where(prev[1])}")
            return False
        self.names[ident.name] = (kind, ident)
        return True

    def kind(self, name: str) -> Optional[str]:
        entry = self.names.get(name)
        return entry[0] if entry else None

    def expect(self, ident, kinds: tuple, what: str, subject: str) -> bool:
        """``ident`` names one of ``kinds`` (C601 otherwise: "``subject`` 'x', which is not ``what`` of
        household 'h'", or which kind it is)."""
        kind = self.kind(ident.name)
        if kind in kinds:
            return True
        if kind is not None:
            self.ctx.error("C601", f"{subject} '{ident.name}', which is {_a(kind)}, not {what}", ident.span)
        else:
            known = [n for n, (k, _) in self.names.items() if k in kinds]
            self.ctx.error("C601", f"{subject} '{ident.name}', which is not {what} of household "
                                   f"'{self.d.name.name}'", ident.span, _known(known))
        return False


def _known(names) -> str:
    names = list(names)
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f"known: {shown}" if names else "none declared"


def _household(ctx, d: A.HouseholdDecl) -> Optional[ir.Household]:
    home = _Home(ctx, d)
    for item in d.items:
        if isinstance(item, A.HRooms):
            for ident in item.names:
                home.declare(ident, "room")
        elif isinstance(item, A.HPlace):
            home.declare(item.name, item.kind.name)
        elif isinstance(item, A.HThing):
            for ident in item.names:
                if home.declare(ident, "thing"):
                    home.types.setdefault(item.type.name, []).append(ident.name)
    _thing_types(ctx, d, home)
    rooms = tuple(n for n, (k, _) in home.names.items() if k == "room")
    doors = _doors(ctx, d, home)
    places = tuple(p for item in d.items if isinstance(item, A.HPlace) for p in [_place(ctx, home, item)] if p)
    things = tuple(t for item in d.items if isinstance(item, A.HThing) for t in _things(ctx, home, item))
    hands, speed = _settings(ctx, d)
    _connected(ctx, d, home, rooms, doors)
    observe = tuple(r for item in d.items if isinstance(item, A.HObserve) for rule in item.rules
                    for r in [_see(ctx, home, rule)] if r is not None)
    return ir.Household(d.name.name, rooms, doors, places, things, observe, hands, speed, d.span)


def _thing_types(ctx, d, home: _Home) -> None:
    for item in d.items:
        if not isinstance(item, A.HThing):
            continue
        t = item.type.name
        if t in builtins.HOUSEHOLD_TYPES:
            ctx.error("C102", f"thing type '{t}' is built in", item.type.span,
                      "the built-in types are " + ", ".join(builtins.HOUSEHOLD_TYPES))
        for ident in item.names:
            own = ident.name == t and home.types.get(t) == [t]       # ``thing apple: apple``, the only apple
            if ident.name in home.types and not own:
                ctx.error("C102", f"thing '{ident.name}' has the name of a thing type", ident.span,
                          "a goal's first argument names a thing or a type; give them different names")


def _length(ctx, length: A.Length, what: str, positive: bool = False) -> Fraction:
    if length.value > MAX_METRES:
        ctx.error("C111", f"{what} of {length.value} m is beyond the limit of {MAX_METRES} m", length.span)
    elif positive and length.value <= 0:
        ctx.error("C604", f"{what} must be more than 0 m", length.span)
    return length.value


def _doors(ctx, d, home: _Home) -> tuple:
    out: list = []
    seen: dict = {}
    for item in d.items:
        if not isinstance(item, A.HDoor):
            continue
        ok = all([home.expect(x, ("room",), "a room", "door joins") for x in (item.a, item.b)])
        metres = _length(ctx, item.length, "a door's length")
        if ok and item.a.name == item.b.name:
            ctx.error("C602", f"door joins room '{item.a.name}' to itself", item.span)
            continue
        key = frozenset((item.a.name, item.b.name))
        if ok and key in seen:
            ctx.error("C102", f"door between '{item.a.name}' and '{item.b.name}' declared twice", item.span,
                      f"first declared at {_where(seen[key])}")
            continue
        if ok:
            seen[key] = item
            out.append(ir.Door(item.a.name, item.b.name, metres, item.span))
    return tuple(out)


def _place(ctx, home: _Home, item: A.HPlace) -> Optional[ir.Place]:
    kind = PLACE_KINDS[item.kind.name]
    ok = home.expect(item.room, ("room",), "a room", f"{kind.value} '{item.name.name}' is in")
    metres = _length(ctx, item.length, f"the distance of '{item.name.name}'")
    closed = item.state is not None and item.state.name == "closed"
    if item.state is not None and kind is not ir.PlaceKind.CONTAINER:
        ctx.error("C609", f"only a container is open or closed; '{item.name.name}' is {_a(kind.value)}",
                  item.state.span)
        ok = False
    capacity = None
    if item.capacity is not None:
        capacity = int(item.capacity.value)
        if capacity < 1:
            ctx.error("C604", f"capacity of '{item.name.name}' must be at least 1", item.capacity.span)
            ok = False
    elif kind is ir.PlaceKind.BASKET:
        ctx.error("C402", f"basket '{item.name.name}' needs a capacity (basket {item.name.name} capacity 3 in ...)",
                  item.name.span)
        ok = False
    return ir.Place(item.name.name, kind, item.room.name, metres, closed, capacity, item.span) if ok else None


def _things(ctx, home: _Home, item: A.HThing) -> list:
    seen: set = set()
    ok = True
    for opt in item.options:
        if opt.name in seen:
            ctx.error("C102", f"option '{opt.name}' listed twice", opt.span)
            ok = False
        seen.add(opt.name)
        subject = f"thing '{item.names[0].name}'" + (" may be in" if item.hidden else " is in")
        ok &= home.expect(opt, ("room", "container", "surface", "basket"), "a room or place", subject)
    if not ok:
        return []
    options = tuple(o.name for o in item.options)
    return [ir.Thing(n.name, item.type.name, options, item.span) for n in item.names if home.kind(n.name) == "thing"]


def _settings(ctx, d) -> tuple:
    hands, speed = 2, Fraction(1)
    given: dict = {}
    for item in d.items:
        if not isinstance(item, A.HSetting):
            continue
        if item.kind in given:
            ctx.error("C102", f"'{item.kind}' given twice in household '{d.name.name}'", item.span,
                      f"first given at {_where(given[item.kind])}")
            continue
        given[item.kind] = item
        if item.kind == "hands":
            hands = int(item.value.value)
            if hands < 1:
                ctx.error("C604", "an agent needs at least 1 hand (hands 1)", item.value.span)
            elif hands > MAX_HANDS:
                ctx.error("C111", f"hands {hands} is beyond the limit of {MAX_HANDS}", item.value.span)
        else:
            speed = _length(ctx, item.value, "the speed", positive=True)
    return hands, speed


def _connected(ctx, d, home: _Home, rooms: tuple, doors: tuple) -> None:
    if not rooms:
        ctx.error("C603", f"household '{d.name.name}' has no rooms", d.name.span,
                  "declare them: room livingroom, kitchen")
        return
    links: dict = {r: [] for r in rooms}
    for door in doors:
        links[door.a].append(door.b)
        links[door.b].append(door.a)
    seen, todo = {rooms[0]}, deque([rooms[0]])
    while todo:
        for nxt in links[todo.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    for r in rooms:
        if r not in seen:
            ctx.error("C603", f"room '{r}' cannot be reached from '{rooms[0]}': no door path leads to it",
                      home.names[r][1].span, f"add a door, e.g. door {rooms[0]} - {r} 3 m")


# ------------------------------------------------------------------ observe rules
def _parents(home: _Home) -> dict:
    out = dict(builtins.HOUSEHOLD_TYPES)
    for t in home.types:
        out.setdefault(t, "thing")
    return out


def _chain(t: str, parents: dict) -> list:
    out: list = []
    cur: Optional[str] = t
    while cur is not None and cur not in out:
        out.append(cur)
        cur = parents.get(cur)
    return out


def _meet(a: str, b: str, parents: dict) -> bool:
    """Objects of type ``a`` can be of type ``b`` (one is a subtype of the other)."""
    return a in _chain(b, parents) or b in _chain(a, parents)


class _Observe:
    """Converts one observe formula; ``env``: variable -> type."""

    def __init__(self, ctx, home: _Home):
        self.ctx, self.home = ctx, home
        self.parents = _parents(home)
        self.consts = {n: (k if k != "thing" else self._thing_type(n)) for n, (k, _) in home.names.items()}

    def _thing_type(self, name: str) -> str:
        return next((t for t, names in self.home.types.items() if name in names), "thing")

    def type_ok(self, ident) -> bool:
        if ident.name in self.parents:
            return True
        self.ctx.error("C607", f"unknown type '{ident.name}' in an observe rule", ident.span,
                       "types: " + ", ".join(self.parents))
        return False

    def formula(self, f, env: dict, depth: int = 0) -> Optional[ir.Formula]:  # noqa: C901
        if depth > MAX_DEPTH:
            self.ctx.error("C111", f"observe formula nested more than {MAX_DEPTH} levels deep", f.span)
            return None
        if isinstance(f, A.FAtom):
            return self.atom(f, env)
        if isinstance(f, A.FExists):
            if f.var.name in env:
                self.ctx.error("C607", f"variable '{f.var.name}' is already bound here", f.var.span)
                return None
            if not self.type_ok(f.type):
                return None
            body = self.formula(f.formula, {**env, f.var.name: f.type.name}, depth + 1)
            return None if body is None else ir.Exists(f.var.name, f.type.name, body)
        if isinstance(f, A.FBool):
            if f.op in ("true", "false"):
                return ir.Const_(f.op == "true")
            args = [self.formula(a, env, depth + 1) for a in f.args]
            if any(a is None for a in args):
                return None
            done = tuple(a for a in args if a is not None)
            if f.op == "not":
                return ir.Not(done[0])
            return ir.And(done) if f.op == "and" else ir.Or(done)
        self.ctx.error("C607", "comparisons are not available in observe rules; use is(a, b)",
                       getattr(f, "span", None))
        return None

    def atom(self, f: A.FAtom, env: dict) -> Optional[ir.Atom]:
        rel = builtins.OBSERVE_RELATIONS.get(f.rel.name)
        if rel is None:
            self.ctx.error("C607", f"unknown relation '{f.rel.name}' in an observe rule", f.rel.span,
                           "built-ins: " + ", ".join(builtins.OBSERVE_RELATIONS))
            return None
        if len(f.args) != rel.arity:
            self.ctx.error("C607", f"relation '{rel.name}' takes {rel.arity} argument{'s' * (rel.arity != 1)}, "
                                   f"got {len(f.args)}", f.span)
            return None
        names, ok = [], True
        for i, (arg, want) in enumerate(zip(f.args, rel.params), 1):
            if not isinstance(arg, A.TName):
                self.ctx.error("C607", f"argument {i} of '{rel.name}' must be a name", getattr(arg, "span", f.span))
                ok = False
                continue
            name = arg.ident.name
            have = env.get(name, self.consts.get(name))
            if have is None:
                self.ctx.error("C607", f"unknown name '{name}' in an observe rule", arg.span,
                               f"variables here: {', '.join(env)}; or a room, place or thing of the household")
                ok = False
            elif not _meet(have, want, self.parents):
                self.ctx.error("C607", f"argument {i} of '{rel.name}' must be {_a(want)}, '{name}' is {_a(have)}",
                               arg.span)
                ok = False
            names.append(name)
        return ir.Atom(rel.name, tuple(names), f.span) if ok else None


def _see(ctx, home: _Home, rule: A.SeeRule) -> Optional[ir.ObserveRule]:
    conv = _Observe(ctx, home)
    if rule.var.name == SELF:
        ctx.error("C607", "'self' is the observing agent; name the rule's variable otherwise", rule.var.span)
        return None
    if not conv.type_ok(rule.type):
        return None
    if rule.formula is None:
        return ir.ObserveRule(rule.var.name, rule.type.name, ir.Const_(True), rule.span)
    when = conv.formula(rule.formula, {SELF: "agent", rule.var.name: rule.type.name})
    return None if when is None else ir.ObserveRule(rule.var.name, rule.type.name, when, rule.span)


# ------------------------------------------------------------------ scenarios
def misplaced_items(ctx, d, f: dict, spans: dict) -> bool:
    """C609 for household items in a scenario without ``household``; True when there were none."""
    bad = [k for k in HOUSEHOLD_ITEMS if f.get(k)]
    for k in bad:
        ctx.error("C609", f"'{k}' belongs in a household scenario; scenario '{d.name.name}' names no household",
                  spans[k], "add: household NAME")
    return not bad


def household_scenario(ctx, d, f: dict, spans: dict, hidden: dict) -> Optional[ir.Scenario]:
    """The IR of a scenario that names a household (``f``: its items as ``check.scenarios`` gathered them).
    Naming a household that has errors of its own is a follow-on error, counted in ``hidden``."""
    ident = f["household"]
    before = _errors(ctx)
    for k in OTHER_ITEMS:
        if f.get(k):
            ctx.error("C609", f"'{k}' does not belong in household scenario '{d.name.name}'", spans[k])
    h = ctx.out("households").get(ident.name)
    if h is None:
        if ident.name in hidden:
            hidden[ident.name] += 1
        elif ident.name in ctx.table("household"):
            pass                                    # its errors were reported where it is declared
        else:
            ctx.error("C401", f"scenario '{d.name.name}' names unknown household '{ident.name}'", ident.span,
                      _known(ctx.out("households")))
        return None
    ctx.used_names.add(h.name)
    starts = _starts(ctx, d, h, f["agents"])
    cheap = not starts or _observe_cost(ctx, d, h, len(starts))
    goals = _goals(ctx, d, h, f["goal"], spans)
    horizon = _count(ctx, f["horizon"], "horizon", 1, MAX_STEPS)
    if f["horizon"] is None:
        ctx.error("C402", f"household scenario '{d.name.name}' has no horizon (horizon 250)", d.name.span)
    seed = 0 if f["seed"] is None else int(f["seed"].value)
    limit, cost = f["messages"] or (None, None)
    message_limit = _count(ctx, limit, "message limit", 1, MAX_MESSAGE) or 500
    message_cost = 1 if cost is None else (_count(ctx, cost, "message cost", 0, MAX_STEPS) or 0)
    syntax = ir.ActionSyntax.CWAH
    if f["syntax"] is not None:
        syntaxes = {s.value: s for s in ir.ActionSyntax}
        syntax = syntaxes.get(f["syntax"].name, syntax)
        if f["syntax"].name not in syntaxes:
            ctx.error("C608", f"unknown action syntax '{f['syntax'].name}' (one of {', '.join(syntaxes)})",
                      f["syntax"].span)
    if _errors(ctx) != before or not cheap:
        return None
    agents = tuple(ir.AgentDecl(a, None) for a, _ in starts)
    return ir.Scenario(d.name.name, ir.TimeUnit.TICK, None, agents, (), (), (), (), None, (), (), None, (), None,
                       (), d.span, household=h.name, starts=starts, goals=goals, horizon=horizon, seed=seed,
                       message_limit=message_limit, message_cost=message_cost, syntax=syntax)


def _types_in(f: ir.Formula) -> list:
    if isinstance(f, ir.Exists):
        return [f.type, *_types_in(f.formula)]
    if isinstance(f, ir.Not):
        return _types_in(f.arg)
    if isinstance(f, (ir.And, ir.Or)):
        return [t for g in f.args for t in _types_in(g)]
    return []


def _observe_cost(ctx, d, h: ir.Household, agents: int) -> bool:
    """False after C111 (reported once per rule in a check, at the rule) when the observe rules of ``h`` may
    cost more than ``observe_rules.MAX_OBSERVE_COST`` relation calls per step with ``agents`` agents (a
    scenario that can take minutes per episode to run or grade is refused); True when they are within it."""
    sizes = observe_rules.type_sizes(h, agents)
    over = observe_rules.over_limit(h.observe, sizes)
    if over is None:
        return True
    rule, own, total = over
    key = ("observe cost", h.name, h.observe.index(rule))
    if key in ctx.said_once:
        return False
    ctx.said_once.add(key)
    types = dict.fromkeys([rule.type, *_types_in(rule.when)])
    rest = "" if own == total else f" ({total:,} with the rules before it)"
    ctx.error("C111", f"observe rule 'see {rule.var}: {rule.type}' of household '{h.name}' may cost {own:,} relation "
                      f"calls per step{rest} in scenario '{d.name.name}' ({agents} agent{'s' * (agents != 1)}), "
                      f"beyond the limit of {observe_rules.MAX_OBSERVE_COST:,}", rule.span,
              "each exists is computed once per binding of the variables its body reads, over every member of its "
              "type (" + ", ".join(f"{t}: {sizes.get(t, 0)}" for t in types) + "): relate fewer variables in one "
              "body, or give an exists a conjunct inside(y, v), holds(v, y) or on(y, v), which tries only what y is "
              "in, held by or on")
    return False


def _count(ctx, num: Optional[A.Num], what: str, least: int, most: int) -> Optional[int]:
    if num is None:
        return None
    n = int(num.value)
    if n < least:
        ctx.error("C604", f"{what} must be at least {least}", num.span)
    elif n > most:
        ctx.error("C111", f"{what} {n} is beyond the limit of {most}", num.span)
    return n


def _names_of(h: ir.Household) -> dict:
    out = {r: "room" for r in h.rooms}
    out.update({p.name: p.kind.value for p in h.places})
    out.update({t.name: "thing" for t in h.things})
    return out


def _starts(ctx, d, h: ir.Household, items) -> tuple:
    names = _names_of(h)
    out, seen = [], set()
    if not items:
        ctx.error("C402", f"household scenario '{d.name.name}' has no agents (agents alice at {h.rooms[0]})",
                  d.name.span)
    for a in items:
        name = a.name.name
        if name in seen or name in names:
            what = "agent" if name in seen else names[name]
            ctx.error("C102", f"agent '{name}' has the name of {_a(what)}" if name not in seen
                      else f"duplicate agent '{name}'", a.name.span)
            continue
        seen.add(name)
        if a.pos is not None:
            ctx.error("C609", f"agent '{name}' has a grid position; in a household an agent starts in a room",
                      a.span, f"write: {name} at {h.rooms[0]}")
        elif a.room is None:
            ctx.error("C402", f"agent '{name}' needs a start room ({name} at {h.rooms[0]})", a.span)
        elif names.get(a.room.name) != "room":
            kind = names.get(a.room.name)
            ctx.error("C601", f"agent '{name}' starts in '{a.room.name}', which is "
                      + (f"{_a(kind)}, not a room" if kind else f"not a room of household '{h.name}'"),
                      a.room.span, _known(h.rooms))
        else:
            out.append((name, a.room.name))
    return tuple(out)


def _goal_what(ctx, h: ir.Household, ident, types: dict, names: dict) -> Optional[str]:
    if ident.name in types or names.get(ident.name) == "thing":
        return ident.name
    kind = names.get(ident.name)
    ctx.error("C601", f"a goal counts things or thing types; '{ident.name}' is "
              + (_a(kind) if kind else f"neither in household '{h.name}'"), ident.span,
              "thing types: " + ", ".join(types))
    return None


def _goal_where(ctx, h: ir.Household, rel: str, ident) -> Optional[ir.Place]:
    place = h.place(ident.name)
    if place is None:
        kind = "room" if ident.name in h.rooms else ("thing" if h.thing(ident.name) else None)
        ctx.error("C601", f"goal place '{ident.name}' is " + (f"{_a(kind)}, not a place" if kind else
                  f"not a place of household '{h.name}'"), ident.span, _known(p.name for p in h.places))
        return None
    fits = place.kind is ir.PlaceKind.SURFACE if rel == "on" else place.kind is not ir.PlaceKind.SURFACE
    if not fits:
        other = "inside" if rel == "on" else "on"
        ctx.error("C605", f"'{rel}' does not fit {place.kind.value} '{place.name}' (use {other})", ident.span)
        return None
    return place


def _goals(ctx, d, h: ir.Household, items, spans) -> tuple:  # noqa: C901
    types: dict = {}
    for t in h.things:
        types.setdefault(t.type, []).append(t.name)
    names = _names_of(h)
    out: list = []
    if not items:
        ctx.error("C402", f"household scenario '{d.name.name}' has no goal (goal 1 on(apple, table))", d.name.span)
    for g in items:
        rel = g.relation.name
        if rel not in ("on", "inside"):
            ctx.error("C605", f"a goal relation is on or inside, not '{rel}'", g.relation.span)
            continue
        if len(g.args) != 2:
            ctx.error("C605", f"goal '{rel}' takes 2 arguments (what, where), got {len(g.args)}", g.span)
            continue
        what = _goal_what(ctx, h, g.args[0], types, names)
        place = _goal_where(ctx, h, rel, g.args[1])
        count = _count(ctx, g.count, "a goal's count", 1, 10 ** 9)
        if what is None or place is None or count is None or count < 1:
            continue
        goal = ir.GoalCount(count, rel, what, place.name, g.span)
        if any((o.relation, o.what, o.where) == (rel, what, place.name) for o in out):
            ctx.error("C102", f"goal {rel}({what}, {place.name}) given twice", g.span)
            continue
        _goal_fits(ctx, h, goal, out, types)
        out.append(goal)
    return tuple(out)


def _goal_fits(ctx, h: ir.Household, goal: ir.GoalCount, earlier: list, types: dict) -> None:
    """C606 when ``goal`` with the ``earlier`` goals asks for more things of its type than exist, or puts more
    things in a place than its capacity."""
    thing = h.thing(goal.what)
    ttype = thing.type if thing else goal.what
    type_of = {t.name: t.type for t in h.things}
    same = [g for g in (*earlier, goal) if type_of.get(g.what, g.what) == ttype]
    have = types.get(ttype, [])
    if thing is not None and sum(g.count for g in (*earlier, goal) if g.what == goal.what) > 1:
        ctx.error("C606", f"'{goal.what}' is one thing; the goals ask for it {goal.count} times", goal.span)
    elif sum(g.count for g in same) > len(have):
        ctx.error("C606", f"the goals ask for {sum(g.count for g in same)} things of type '{ttype}', household "
                          f"'{h.name}' has {len(have)}", goal.span,
                  "things of that type: " + (", ".join(have) or "none"))
    place = h.place(goal.where)
    if place is not None and place.capacity is not None:
        total = sum(g.count for g in (*earlier, goal) if g.where == goal.where)
        if total > place.capacity:
            ctx.error("C606", f"the goals put {total} things in '{place.name}', which holds {place.capacity}",
                      goal.span)
