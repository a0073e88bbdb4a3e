"""PDDL importer: a PDDL domain and problem -> one chronoplan procedure scenario (``chronoplan import pddl``).

Input: ``[DOMAIN.pddl, PROBLEM.pddl]``, read with unified-planning's PDDLReader.  Output: ``{"<problem>.chrono":
text}``: one resource per lock fact, one procedure with one step per ground action, and one scenario (one
agent, ``unit tick``) that runs the procedure.  ``ImportFormatError`` (file, line and column where known,
what is unsupported and why) for a missing or unreadable file, malformed PDDL, and every problem outside the
supported fragment: nothing is dropped silently.

chronoplan has no scenario family with arbitrary actions, initial facts and goals (``ir.ScenarioKind``:
procedures, grid kitchens, tool use); the family that holds PDDL faithfully is the procedures family, so the
importer accepts the PDDL problems that *are* procedure scenarios (docs/pddl.md, "Importing PDDL"): after
grounding, every action runs exactly once in every valid plan (it consumes a fact of its own that nothing
restores, and the goal needs what it adds, directly or through later actions), its preconditions are the
completion facts of other actions (prerequisites), static facts (evaluated when grounding, negated or not,
and equalities) and, for durative actions, locks (a fact taken at start and given back at end: a resource of
capacity 1); durations are constants.  Classical actions become steps of 1 tick, durative ones keep their
duration; every step is autonomous (it does not occupy the agent), as PDDL actions without a lock may overlap.
"""
from __future__ import annotations

import itertools
import re
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

from chronoplan.compiler.importers import ImportFormatError
from chronoplan.compiler.importers.common import Names, language_number, number, quote, read_source

MAX_GROUND = 100_000          # parameter bindings enumerated per action schema
MAX_STEPS = 2_000             # ground actions kept (steps of the procedure)

# unified-planning problem features -> the PDDL requirement (or construct) that brings them
REQUIREMENT = {
    "CONDITIONAL_EFFECTS": ":conditional-effects",
    "FORALL_EFFECTS": ":conditional-effects (forall effects)",
    "DISJUNCTIVE_CONDITIONS": ":disjunctive-preconditions",
    "EXISTENTIAL_CONDITIONS": ":existential-preconditions",
    "UNIVERSAL_CONDITIONS": ":universal-preconditions",
    "NUMERIC_FLUENTS": ":numeric-fluents", "INT_FLUENTS": ":numeric-fluents",
    "REAL_FLUENTS": ":numeric-fluents", "INCREASE_EFFECTS": ":numeric-fluents",
    "DECREASE_EFFECTS": ":numeric-fluents", "FLUENTS_IN_DURATIONS": ":numeric-fluents (durations)",
    "STATIC_FLUENTS_IN_DURATIONS": ":numeric-fluents (durations)",
    "FINAL_VALUE": ":numeric-fluents (metric)", "ACTIONS_COST": ":action-costs",
    "STATIC_FLUENTS_IN_ACTIONS_COST": ":action-costs", "FLUENTS_IN_ACTIONS_COST": ":action-costs",
    "TIMED_EFFECTS": ":timed-initial-literals", "TIMED_GOALS": ":timed-initial-literals",
    "DURATION_INEQUALITIES": ":duration-inequalities",
    "INTERMEDIATE_CONDITIONS_AND_EFFECTS": ":durative-actions (conditions or effects at times other than "
                                           "start, over all and end)",
    "TRAJECTORY_CONSTRAINTS": ":constraints", "STATE_INVARIANTS": ":constraints",
    "PROCESSES": ":time (processes)", "EVENTS": ":time (events)", "CONTINUOUS_EFFECTS": ":continuous-effects",
    "OVERSUBSCRIPTION": ":preferences", "TEMPORAL_OVERSUBSCRIPTION": ":preferences",
    "SIMPLE_NUMERIC_PLANNING": ":numeric-fluents", "GENERAL_NUMERIC_PLANNING": ":numeric-fluents",
    "UNDEFINED_INITIAL_NUMERIC": ":numeric-fluents",
    "PLAN_LENGTH": "a :metric", "MAKESPAN": None,
}
SUPPORTED = {"ACTION_BASED", "FLAT_TYPING", "HIERARCHICAL_TYPING", "NEGATIVE_CONDITIONS", "EQUALITIES",
             "CONTINUOUS_TIME", "DISCRETE_TIME", "INT_TYPE_DURATIONS", "REAL_TYPE_DURATIONS", "MAKESPAN",
             "BOOL_FLUENTS"}
# where a requirement shows in the text when it is not declared: the construct's opening keyword
CONSTRUCT = {":conditional-effects": r"\(\s*when\b", ":conditional-effects (forall effects)": r"\(\s*forall\b",
             ":disjunctive-preconditions": r"\(\s*(or|imply)\b", ":existential-preconditions": r"\(\s*exists\b",
             ":universal-preconditions": r"\(\s*forall\b", ":numeric-fluents": r"\(\s*:functions\b",
             ":action-costs": r"\(\s*increase\b", ":timed-initial-literals": r"\(\s*at\s+[0-9.]",
             ":duration-inequalities": r"\(\s*[<>]=?\s+\?duration\b", ":constraints": r"\(\s*:constraints\b",
             ":preferences": r"\(\s*preference\b", "a :metric": r"\(\s*:metric\b"}


_REQUIREMENTS = re.compile(r"\(\s*:requirements(?![\w-])([^()]*)", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s()]+")


@dataclass(frozen=True)
class Source:
    path: Path
    text: str

    def where(self, pattern: Optional[str], what: str = "") -> str:
        """``path:line:col`` of the first match of ``pattern`` (case-insensitive), else ``path``."""
        m = re.search(pattern, self.text, re.IGNORECASE) if pattern else None
        return f"{self.path}" if m is None else self.at(m.start())

    def declared(self, requirement: str) -> Optional[int]:
        """The index of ``requirement`` (e.g. ":derived-predicates") where a ``(:requirements ...)`` list
        declares it, or None.  Linear in the text: a list ends at the next parenthesis, so no character is
        scanned by two lists (a lazy regular expression up to ")" rescanned the rest of the text from every
        unclosed list: 30 s for a 92 KB domain)."""
        want = requirement.lower()
        for m in _REQUIREMENTS.finditer(self.text):
            for t in _TOKEN.finditer(m.group(1)):
                if t.group(0).lower() == want:
                    return m.start(1) + t.start()
        return None

    def at(self, index: int) -> str:
        """``path:line:col`` of character ``index``."""
        line = self.text.count("\n", 0, index) + 1
        col = index - (self.text.rfind("\n", 0, index) + 1) + 1
        return f"{self.path}:{line}:{col}"


Fact = tuple   # (fluent name, object names...)


@dataclass
class Ground:
    """One ground action: its name and arguments, timed conditions and effects over dynamic facts."""

    schema: str
    args: tuple
    duration: Fraction
    pre: dict = field(default_factory=dict)      # timing ("start" | "all" | "end") -> set of facts
    add: dict = field(default_factory=dict)      # timing ("start" | "end") -> set of facts
    delete: dict = field(default_factory=dict)

    def text(self) -> str:
        return "(" + " ".join((self.schema,) + self.args) + ")"

    def touches(self) -> set:
        return set().union(*self.pre.values(), *self.add.values(), *self.delete.values())


@dataclass(frozen=True)
class Imported:
    """The result: the .chrono text, and the step number of every ground action ``(name, args...)``
    (lowercase, as PDDL plans name them)."""

    name: str
    text: str
    steps: dict
    durative: bool


# ------------------------------------------------------------------------------------------ reading
def _read(path: Path) -> Source:
    return Source(path, read_source(path, "a PDDL file"))


def _parse(domain: Source, problem: Source):
    """unified-planning's problem; reader errors become ``path:line:col: message``."""
    with warnings.catch_warnings():              # engines' import-time warnings (pkg_resources) are noise
        warnings.simplefilter("ignore")
        return _parse_quietly(domain, problem)


def _parse_quietly(domain: Source, problem: Source):
    from unified_planning.io import PDDLReader
    for part in (domain, problem):               # the domain alone first: an error is then the domain's
        try:
            reader = PDDLReader()
            if part is domain:
                reader.parse_problem_string(domain.text)
            else:
                return reader.parse_problem_string(domain.text, problem.text)
        except RecursionError:
            raise ImportFormatError(f"{part.path}: malformed PDDL: nested too deeply") from None
        except Exception as exc:                 # pyparsing, UPException, KeyError... : all are bad input
            raise ImportFormatError(_unreadable(part) or _reader_error(part, exc)) from None
    raise AssertionError("unreachable")


# requirements unified-planning's reader does not read (it reports a syntax error): said as such instead
UNREADABLE = {":derived-predicates": r"\(\s*:derived\b", ":preferences": r"\(\s*preference\b",
              ":constraints": r"\(\s*:constraints\b", ":object-fluents": None, ":continuous-effects": None}


def _unreadable(part: Source) -> Optional[str]:
    for req, construct in UNREADABLE.items():
        at = part.declared(req)
        where = part.at(at) if at is not None else part.where(construct) if construct and \
            re.search(construct, part.text, re.IGNORECASE) else None
        if where:
            return f"{where}: unsupported PDDL requirement {req} (unified-planning's PDDL reader does not read it)"
    return None


def _reader_error(part: Source, exc: Exception) -> str:
    line, col = getattr(exc, "lineno", None), getattr(exc, "col", None)
    msg = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    msg = " ".join(str(msg).split())[:300]
    where = f"{part.path}:{line}:{col}" if isinstance(line, int) and isinstance(col, int) else f"{part.path}"
    return f"{where}: malformed PDDL: {msg}"


# ------------------------------------------------------------------------------------------ checking
def _features(up, domain: Source, problem: Source) -> None:
    for feat in sorted(up.kind.features):
        if feat in SUPPORTED:
            continue
        req = REQUIREMENT.get(feat) or f"the unified-planning feature {feat}"
        if req.startswith(":numeric-fluents") and re.search(r"\btotal-cost\b", domain.text, re.IGNORECASE):
            req = ":action-costs"                # numeric only through (increase (total-cost) ...)
        name = req.split(" ")[0]
        declared = domain.declared(name) if name.startswith(":") else None
        if declared is not None:                 # the requirement as declared
            where = domain.at(declared)
        else:                                    # where the construct is used (the problem for TILs)
            construct = CONSTRUCT.get(req) or CONSTRUCT.get(name)
            in_problem = construct is not None and re.search(construct, problem.text, re.I) and \
                not re.search(construct, domain.text, re.I)
            where = (problem if in_problem else domain).where(construct)
        raise ImportFormatError(
            f"{where}: unsupported PDDL requirement {req}: chronoplan imports STRIPS problems with typing, "
            f"negative preconditions on static facts, equality and durative actions of constant duration "
            f"(docs/pddl.md, Importing PDDL)")


def _literals(node, what: str, where: str) -> list:
    """A conjunction -> [(positive, node)] of fluent atoms and equalities."""
    if node.is_and():
        return [lit for arg in node.args for lit in _literals(arg, what, where)]
    if node.is_bool_constant():
        return [] if node.bool_constant_value() else [(True, None)]
    if node.is_not():
        inner = node.args[0]
        if inner.is_fluent_exp() or inner.is_equals():
            return [(False, inner)]
    elif node.is_fluent_exp() or node.is_equals():
        return [(True, node)]
    raise ImportFormatError(f"{where}: {what} {node} is not a conjunction of (negated) facts: not supported")


def _term(node, binding: dict) -> str:
    if node.is_parameter_exp():
        return binding[node.parameter().name]
    if node.is_object_exp():
        return node.object().name
    raise ValueError(str(node))


def _fact(node, binding: dict) -> Fact:
    return (node.fluent().name,) + tuple(_term(a, binding) for a in node.args)


# ------------------------------------------------------------------------------------------ grounding
@dataclass
class _Schema:
    name: str
    params: list
    duration: Fraction
    conds: list          # (timing, positive, node)
    effects: list        # (timing, value, node)


def _timing(t) -> str:
    return "start" if t.is_from_start() else "end"


def _where_action(domain: Source, name: str) -> str:
    return domain.where(r"\(\s*:(durative-)?action\s+" + re.escape(name) + r"(?![\w-])")


def _schemas(up, domain: Source) -> list:
    from unified_planning.model import DurativeAction, InstantaneousAction
    out = []
    durative = any(isinstance(a, DurativeAction) for a in up.actions)
    for a in up.actions:
        where = _where_action(domain, a.name)
        if isinstance(a, InstantaneousAction):
            if durative:
                raise ImportFormatError(f"{where}: action {a.name}: instantaneous actions in a domain with "
                                        f"durative actions are not supported (give it a duration)")
            duration = Fraction(1)
            conds = [("start", pos, n) for p in a.preconditions for pos, n in _literals(p, "precondition", where)]
            timed = {"start": list(a.effects)}
        elif isinstance(a, DurativeAction):
            duration, conds, timed = _durative(a, where)
        else:
            raise ImportFormatError(f"{where}: action {a.name}: {type(a).__name__} is not supported")
        effects = []
        for timing, effs in timed.items():
            for e in effs:
                if e.is_conditional() or e.is_forall() or not e.is_assignment() or \
                        not e.value.is_bool_constant():
                    raise ImportFormatError(f"{where}: action {a.name}: effect {e} is not supported "
                                            f"(only adding and deleting facts)")
                effects.append((timing, e.value.bool_constant_value(), e.fluent))
        out.append(_Schema(a.name, list(a.parameters), duration, conds, effects))
    return out


def _durative(a, where: str) -> tuple:
    """A durative action's constant duration, [(timing, positive, node)] conditions, {timing: effects}."""
    d = a.duration
    if d.lower != d.upper or d.is_left_open() or d.is_right_open() or not d.lower.is_constant():
        raise ImportFormatError(f"{where}: action {a.name}: the duration must be one constant "
                                f"(= ?duration N); {d} is not supported")
    duration = Fraction(str(d.lower.constant_value()))
    if duration < 0:
        raise ImportFormatError(f"{where}: action {a.name}: negative duration {duration}")
    conds: list = []
    for interval, nodes in a.conditions.items():
        lo, hi = interval.lower, interval.upper
        if lo.delay != 0 or hi.delay != 0:
            raise ImportFormatError(f"{where}: action {a.name}: conditions at delayed times are not supported")
        if lo == hi:
            timing = _timing(lo)
        elif lo.is_from_start() and hi.is_from_end():
            timing = "all"
        else:
            raise ImportFormatError(f"{where}: action {a.name}: condition interval {interval} is not supported")
        conds += [(timing, pos, x) for n in nodes for pos, x in _literals(n, "condition", where)]
    timed: dict = {}
    for t, effs in a.effects.items():
        if t.delay != 0:
            raise ImportFormatError(f"{where}: action {a.name}: effects at delayed times are not supported")
        timed.setdefault(_timing(t), []).extend(effs)
    return duration, conds, timed


def _ground(up, schemas: list, domain: Source) -> tuple:
    """Ground actions whose static preconditions hold initially, and the dynamic fluent names."""
    dynamic = {node.fluent().name for s in schemas for _, _, node in s.effects}
    init = {_fact(f, {}) for f, v in up.explicit_initial_values.items() if v.is_bool_constant() and
            v.bool_constant_value()}
    out = []
    for s in schemas:
        where = _where_action(domain, s.name)
        domains = [[o.name for o in up.objects(p.type)] for p in s.params]
        total = 1
        for d in domains:
            total *= len(d)
        if total > MAX_GROUND:
            raise ImportFormatError(f"{where}: action {s.name} has {total} parameter bindings, more than "
                                    f"{MAX_GROUND}: too large to import")
        for combo in itertools.product(*domains):
            binding = {p.name: o for p, o in zip(s.params, combo)}
            g = _instance(s, binding, dynamic, init, where)
            if g is not None:
                out.append(g)
                if len(out) > MAX_STEPS:
                    raise ImportFormatError(f"{where}: more than {MAX_STEPS} ground actions: too large to "
                                            f"import")
    return out, dynamic, init


def _instance(s: _Schema, binding: dict, dynamic: set, init: set, where: str) -> Optional[Ground]:
    g = Ground(s.name, tuple(binding[p.name] for p in s.params), s.duration)
    for timing, pos, node in s.conds:
        if node is None:                           # a constant false condition
            return None
        if node.is_equals():
            same = _term(node.args[0], binding) == _term(node.args[1], binding)
            if same != pos:
                return None
            continue
        fact = _fact(node, binding)
        if fact[0] not in dynamic:
            if (fact in init) != pos:
                return None
            continue
        if not pos:
            raise ImportFormatError(f"{where}: action {s.name}: negative precondition (not {node}) on a fact "
                                    f"that actions change: not supported (procedures need positive "
                                    f"prerequisites)")
        g.pre.setdefault(timing, set()).add(fact)
    for timing, value, node in s.effects:
        (g.add if value else g.delete).setdefault(timing, set()).add(_fact(node, binding))
    return g


def _reachable(actions: list, init: set) -> list:
    """The ground actions whose dynamic preconditions can all become true (delete relaxation)."""
    facts, left, done = set(init), list(actions), []
    changed = True
    while changed:
        changed = False
        for g in list(left):
            if set().union(*g.pre.values()) <= facts:
                facts |= set().union(*g.add.values())
                done.append(g)
                left.remove(g)
                changed = True
    return [g for g in actions if g in done]


# ------------------------------------------------------------------------------------------ steps
@dataclass
class _Roles:
    """Who adds, deletes and mentions each ground fact, and which facts are locks and completion facts."""

    actions: list
    init: set
    durative: bool
    adders: dict = field(default_factory=dict)
    deleters: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    done_of: dict = field(default_factory=dict)      # completion fact -> the one action that adds it

    @property
    def end(self) -> str:
        return "end" if self.durative else "start"

    def index(self) -> None:
        for i, g in enumerate(self.actions):
            for f in set().union(*g.add.values()):
                self.adders.setdefault(f, set()).add(i)
            for f in set().union(*g.delete.values()):
                self.deleters.setdefault(f, set()).add(i)
            for f in g.touches():
                self.users.setdefault(f, set()).add(i)
        for i, g in enumerate(self.actions):
            for f in g.add.get(self.end, ()):
                if f not in self.init and self.adders[f] == {i} and f not in self.deleters and not self.is_lock(f):
                    self.done_of[f] = i

    def is_lock(self, f: Fact) -> bool:
        """Initially true; every action that mentions it requires and deletes it at start and adds it at end."""
        return self.durative and f in self.init and all(_locks(self.actions[j], f) for j in self.users[f])

    def todo(self, i: int) -> list:
        g = self.actions[i]
        return [f for f in g.pre.get("start", ()) if f in g.delete.get("start", ()) and f in self.init
                and f not in self.adders and self.users[f] == {i}]


def _locks(g: Ground, f: Fact) -> bool:
    return f in g.pre.get("start", ()) and f in g.delete.get("start", ()) and f in g.add.get("end", ()) and \
        f not in g.pre.get("all", ()) and f not in g.pre.get("end", ()) and f not in g.add.get("start", ()) \
        and f not in g.delete.get("end", ())


def _steps(actions: list, init: set, durative: bool, domain: Source) -> tuple:
    """Each action's prerequisites (step numbers) and locks, and the completion facts; ImportFormatError
    with the reason when an action is not a procedure step."""
    roles = _Roles(actions, init, durative)
    roles.index()
    where = {name: _where_action(domain, name) for name in dict.fromkeys(g.schema for g in actions)}
    return [_step(roles, i, where[g.schema]) for i, g in enumerate(actions)], roles.done_of


def _step(roles: _Roles, i: int, where: str) -> tuple:
    g = roles.actions[i]
    name, end = g.text(), roles.end
    todo = roles.todo(i)
    if not todo:
        raise ImportFormatError(
            f"{where}: {name} can run more than once (it has no precondition of its own that it deletes "
            f"and nothing restores): chronoplan's procedures run every step exactly once")
    locks, prereqs = set(), set()
    for f in g.pre.get("start", ()):
        if f in todo:
            continue
        if roles.is_lock(f):
            locks.add(f)
        elif roles.done_of.get(f, i) != i:
            prereqs.add(roles.done_of[f])
        else:
            raise ImportFormatError(
                f"{where}: {name}: precondition {_show(f)} is neither a fact it consumes, nor one that "
                f"exactly one other action adds (at its end) and nothing deletes, nor a lock"
                f"{' taken at start and given back at end' if roles.durative else ''}: not a procedure step")
    for timing in ("all", "end"):
        for f in g.pre.get(timing, ()):
            raise ImportFormatError(f"{where}: {name}: condition {_show(f)} "
                                    f"{'over all' if timing == 'all' else 'at end'} on a fact that "
                                    f"actions change: not supported")
    for timing, facts in g.delete.items():
        for f in facts:
            if timing != "start" or (f not in todo and f not in locks):
                raise ImportFormatError(f"{where}: {name}: deletes {_show(f)} at {timing}: only its own "
                                        f"precondition (at start) and locks may be deleted")
    for timing, facts in g.add.items():
        for f in facts:
            if not (f in locks and timing == end) and roles.done_of.get(f) != i:
                raise ImportFormatError(
                    f"{where}: {name}: adds {_show(f)}{' at ' + timing if roles.durative else ''}: only facts "
                    f"that it alone adds (at end) and nothing deletes, and locks it gave back, may be added")
    return sorted(prereqs), sorted(locks)


def _show(f: Fact) -> str:
    return "(" + " ".join(f) + ")"


def _goal(up, done_of: dict, init: set, dynamic: set, problem: Source) -> set:
    where = problem.where(r"\(\s*:goal\b")
    needed = set()
    for node in up.goals:
        for pos, n in _literals(node, "goal", where):
            if n is None or n.is_equals():
                raise ImportFormatError(f"{where}: goal {node} is not supported (facts only)")
            fact = _fact(n, {})
            if fact[0] not in dynamic:
                if (fact in init) != pos:
                    raise ImportFormatError(f"{where}: goal {_show(fact)} can never hold: the problem is "
                                            f"unsolvable")
                continue
            if not pos or fact not in done_of:
                raise ImportFormatError(f"{where}: goal {'' if pos else 'not '}{_show(fact)} is not a fact "
                                        f"that exactly one action adds and nothing deletes: not supported")
            needed.add(done_of[fact])
    return needed


# ------------------------------------------------------------------------------------------ writing
def import_pddl(domain_path: Path, problem_path: Path) -> Imported:
    domain, problem = _read(domain_path), _read(problem_path)
    up = _parse(domain, problem)
    _features(up, domain, problem)
    schemas = _schemas(up, domain)
    durative = _is_durative(up)
    actions, dynamic, init = _ground(up, schemas, domain)
    actions = _reachable(actions, init)
    steps, done_of = _steps(actions, init, durative, domain)
    needed = _goal(up, done_of, init, dynamic, problem)
    stack = list(needed)
    while stack:
        for j in steps[stack.pop()][0]:
            if j not in needed:
                needed.add(j)
                stack.append(j)
    for i, g in enumerate(actions):
        if i not in needed:
            where = _where_action(domain, g.schema)     # raises: searched once
            raise ImportFormatError(f"{where}: {g.text()} is optional (the goal does not need what it adds): "
                                    f"chronoplan's procedures run every step")
    if not actions:
        raise ImportFormatError(f"{problem.path}: no action is needed: nothing to import")
    return _write(up, domain, problem, actions, steps, durative)


def _is_durative(up) -> bool:
    from unified_planning.model import DurativeAction
    return any(isinstance(a, DurativeAction) for a in up.actions)


def _write(up, domain: Source, problem: Source, actions: list, steps: list, durative: bool) -> Imported:
    names = Names()
    dom = names.claim(_domain_name(domain), "pddl")
    scen = names.claim(up.name, "problem")
    proc = names.claim(f"{scen}-steps", "steps")
    agent = names.claim("agent1")
    res: dict = {}
    for _, locks in steps:
        for f in locks:
            if f not in res:
                res[f] = names.claim("_".join(f), "lock")
    lines = ["# Imported by `chronoplan import pddl` (docs/pddl.md, Importing PDDL) from",
             f"#   {_comment(str(domain.path))}", f"#   {_comment(str(problem.path))}",
             "# One step per ground action (its text is the PDDL action); every step runs once, autonomously.",
             f"# Time: 1 tick = 1 PDDL time unit{'' if durative else '; a classical action takes 1 tick'}.",
             f"domain {dom}", ""]
    for f, r in res.items():
        lines.append(f"resource {r} capacity 1          # the lock {_comment(_show(f))}")
    if res:
        lines.append("")
    lines.append(f"procedure {proc} {quote(up.name)} {{")
    index = {}
    for i, (g, (prereqs, locks)) in enumerate(zip(actions, steps)):
        opts = " autonomous"
        if prereqs:
            opts += " after " + ", ".join(str(j) for j in prereqs)
        if locks:
            opts += " uses " + ", ".join(res[f] for f in locks)
        lines.append(f"  step {i} {quote(g.text())} {_duration(g, domain)}{opts}")
        index[(g.schema.lower(),) + tuple(a.lower() for a in g.args)] = i
    lines += ["}", "", f"scenario {scen} {{", "  unit tick", f"  agents {agent}", f"  procedures {proc}", "}", ""]
    return Imported(scen, "\n".join(lines), index, durative)


def _duration(g: Ground, domain: Source) -> str:
    """The NUMBER literal of a ground action's duration; ImportFormatError at its action when the language
    cannot write it (no finite decimal form, more digits than its limit)."""
    where = f"{_where_action(domain, g.schema)}: action {g.schema}: duration"
    try:
        number(g.duration)
    except ValueError:
        raise ImportFormatError(f"{where} {g.duration} has no finite decimal form") from None
    return language_number(g.duration, where)


def _domain_name(domain: Source) -> str:
    m = re.search(r"\(\s*domain\s+([^\s()]+)", domain.text, re.IGNORECASE)
    return m.group(1) if m else "pddl"


def _comment(text: str) -> str:
    return " ".join(text.split())[:200]


def convert(sources: list, **options: Any) -> dict:
    """``[DOMAIN, PROBLEM]`` -> ``{"<problem>.chrono": text}`` (the output name is chosen by ``-o``)."""
    if len(sources) != 2:
        raise ImportFormatError(f"pddl takes two files, DOMAIN.pddl PROBLEM.pddl (got {len(sources)})")
    imp = import_pddl(Path(sources[0]), Path(sources[1]))
    return {f"{imp.name}.chrono": imp.text}
