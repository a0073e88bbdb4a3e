"""The typed intermediate representation (IR) of a chronoplan project.

Input: built by ``compiler.check.checker`` from the AST.  Output: frozen dataclasses consumed by the runtime,
validators and backends.  Durations and other quantities are sympy expressions over constant and
parameter symbols (built from the parse tree, never from text), with the built-ins that are not arithmetic as
typed nodes (``Dist``, ``AttrRef``, ``Count``); ``compiler.instantiate`` turns a scenario
into concrete numbers (``fractions.Fraction`` in the scenario's time unit).
Spans are excluded from equality and hashing.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Union

import sympy
from sympy.core.symbol import Str

from chronoplan.compiler.diagnostics import Span


class TimeUnit(enum.Enum):
    """A time unit; ``TICK`` is the unitless scenario clock."""

    TICK = ("tick", None)
    S = ("s", 1)
    MIN = ("min", 60)
    H = ("h", 3600)

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def seconds(self) -> Optional[int]:
        return self.value[1]


UNIT_ALIASES = {
    "tick": TimeUnit.TICK, "ticks": TimeUnit.TICK,
    "s": TimeUnit.S, "sec": TimeUnit.S, "secs": TimeUnit.S, "second": TimeUnit.S, "seconds": TimeUnit.S,
    "min": TimeUnit.MIN, "mins": TimeUnit.MIN, "minute": TimeUnit.MIN, "minutes": TimeUnit.MIN,
    "h": TimeUnit.H, "hour": TimeUnit.H, "hours": TimeUnit.H,
}

# A literal with a unit is held as ``value * seconds * SECOND``; instantiation substitutes SECOND.
SECOND = sympy.Symbol("__second__", positive=True)


class Dim(enum.Enum):
    """Dimension of an expression: a plain number (or unitless ticks) or a time."""

    NUMBER = "number"
    TIME = "time"


class Occupancy(enum.Enum):
    """How long an action or step occupies its agent."""

    CONTINUOUS = "continuous"   # the whole duration
    START = "start"             # only the start instant (autonomous, 0 units)
    PARTIAL = "partial"         # the first k units (autonomous for k)


class ScenarioKind(enum.Enum):
    """The family of a scenario, decided once when the scenario is built (``Scenario.kind``); every command
    asks the family registry (``validators.families``) what it can do with it."""

    PROCEDURES = "procedures"   # step-level procedures (Recipe2Plan, TimeArena): timed schedules
    TOOLS = "tools"             # tool calls against apps (PlanningArena-style tool plans)
    GRID = "grid"               # grid kitchens (ParaCook): per-agent action lists
    HOUSEHOLD = "household"     # partially observable households (C-WAH, TDW-MAT): decentralised episodes
    WORLD = "world"             # objects, initial facts, a goal formula, the domain's actions (PDDL-style)

    @classmethod
    def decide(cls, procedures: tuple, apps: tuple, tools: tuple, reference: tuple,
               household: Optional[str] = None, world: bool = False) -> ScenarioKind:
        if household is not None:
            return cls.HOUSEHOLD
        if world:
            return cls.WORLD
        if procedures:
            return cls.PROCEDURES
        if apps or tools or reference:
            return cls.TOOLS
        return cls.GRID


class OccupancyRule(enum.Enum):
    """A scenario's rule for starting steps while an agent is busy (``occupancy NAME`` in a scenario).

    OVERLAP: an autonomous step occupies its agent for 0 time at its start, so it may start while the agent
    runs a continuous step (chronoplan's original relaxation).  EXCLUSIVE: no step may start while its agent
    is inside a continuous step (Recipe2Plan's paper rule: "you can not start another action while executing
    a continuous action"); starting at the instant a continuous step begins or ends is allowed.
    """

    OVERLAP = "overlap"
    EXCLUSIVE = "exclusive"


class When(enum.Enum):
    START = "start"
    ALL = "all"
    END = "end"


# ----------------------------------------------------------------------------- formulas and effects
class TermKind(str, enum.Enum):
    """What a ``Term`` names.  A ``str`` enum (``TermKind.VAR == "var"``, same hash), printed as its value."""

    VAR = "var"                    # a parameter, a quantified variable or an object
    ATTR = "attr"                  # an attribute reference ``obj.attr``
    VALUE = "value"                # a literal or an attribute value (an enum value, true, a number)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Term:
    """A term: a parameter/object ``name``, an attribute reference ``obj.attr`` or a literal value."""

    kind: TermKind
    name: str                      # variable/object name, attribute name or literal text
    arg: Optional[str] = None      # for "attr": the object/variable the attribute is read from
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Atom:
    relation: str
    args: tuple[str, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Compare:
    op: str                        # == != < <= > >=
    left: Term
    right: Term


@dataclass(frozen=True)
class Not:
    arg: Formula


@dataclass(frozen=True)
class And:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Const_:
    value: bool


@dataclass(frozen=True)
class Exists:
    """exists(var: type where formula)."""

    var: str
    type: str
    formula: Formula


# a condition: what ``check_actions`` builds and the runtime, the exports and the metrics read
Formula = Union[Atom, Compare, Not, And, Or, Const_, Exists]


@dataclass(frozen=True)
class Assign:
    target: Term                   # an "attr" term
    value: Term


@dataclass(frozen=True)
class AddFact:
    atom: Atom


@dataclass(frozen=True)
class DelFact:
    atom: Atom


@dataclass(frozen=True)
class Delayed:
    """Effects that fire ``delay`` after the enclosing effect time (a delayed event)."""

    delay: sympy.Expr
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Forall:
    """Effects applied for every object ``var`` of ``type`` satisfying ``formula`` (evaluated before any)."""

    var: str
    type: str
    formula: Formula
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class BuiltinEffect:
    """A built-in effect: ``deliver(c)`` (serve container c against the current order) or ``destroy(x)``."""

    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Aggregate:
    """``count(var: type where formula)``: held in expressions as ``Count.of(symbol, params)``."""

    symbol: str
    var: str
    type: str
    formula: Formula


# an effect of an action or process (``Delayed`` and ``Forall`` nest effects)
Effect = Union[Assign, AddFact, DelFact, Delayed, Forall, BuiltinEffect]


# ----------------------------------------------------------------------------- built-ins in expressions
# Expressions stay sympy (the arithmetic); the built-ins that are not arithmetic are typed nodes inside them,
# which consumers find by type (``expr.atoms(ir.Dist)``, ``isinstance(e, ir.AttrRef)``), never by name.
class Dist(sympy.Function):
    """``dist(a, b)`` (``builtins.DIST``): the grid walking distance between parameters ``a`` (an agent) and
    ``b`` (a station or a cell), evaluated by the kitchen runtime; held as ``Dist(Symbol(a), Symbol(b))``."""

    nargs = 2
    is_commutative = True

    @property
    def names(self) -> tuple[str, str]:
        """The names of the two parameters."""
        return str(self.args[0]), str(self.args[1])

    def _sympystr(self, printer) -> str:
        return f"dist({', '.join(self.names)})"


class AttrRef(sympy.Function):
    """``x.attr`` in an expression: numeric attribute ``attr`` of parameter or object ``x``; held as
    ``AttrRef(Str(attr), Symbol(x))`` (the attribute name is not a free symbol, so substituting constants never
    touches it).  Build it with ``AttrRef.of(attr, x)``."""

    nargs = 2
    is_commutative = True

    @classmethod
    def of(cls, attr: str, obj: str) -> AttrRef:
        return cls(Str(attr), sympy.Symbol(obj))

    @property
    def attr(self) -> str:
        return str(self.args[0])

    @property
    def obj(self) -> str:
        return str(self.args[1])

    def _sympystr(self, printer) -> str:
        return f"{self.obj}.{self.attr}"


class Count(sympy.Function):
    """``count(v: T where F)`` in an expression: the ``Aggregate`` called ``symbol`` (``count_1``, ...) of the
    enclosing action or process; held as ``Count(Str(symbol), *parameters)`` (the parameters it depends on).
    Build it with ``Count.of(symbol, parameter names)``."""

    is_commutative = True

    @classmethod
    def of(cls, symbol: str, params: tuple[str, ...]) -> Count:
        return cls(Str(symbol), *[sympy.Symbol(p) for p in params])

    @property
    def symbol(self) -> str:
        return str(self.args[0])

    def _sympystr(self, printer) -> str:
        return f"{self.symbol}({', '.join(str(a) for a in self.args[1:])})"


# ----------------------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Constant:
    name: str
    expr: sympy.Expr
    dim: Dim
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class TypeDef:
    name: str
    parent: Optional[str]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class ObjectDef:
    name: str
    type: str
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Attribute:
    """A finite-domain (``values``), numeric or boolean attribute of objects of ``params`` types."""

    name: str
    params: tuple[str, ...]
    kind: str                      # "enum" | "number" | "bool"
    values: tuple[str, ...]
    default: Optional[str]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


RELATION_ROLES = ("holding", "placement", "containment")


@dataclass(frozen=True)
class Relation:
    """A relation; ``role`` gives it a built-in meaning (holding, placement, containment) and ``capacity``
    bounds how many facts may share the argument at position ``capacity_per`` (hand size, one item per
    station).  Capacity bounds are preconditions of actions; events (delayed effects, processes) ignore them."""

    name: str
    params: tuple[str, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    role: Optional[str] = None
    capacity: Optional[int] = None
    capacity_per: Optional[int] = None


@dataclass(frozen=True)
class Property:
    name: str
    default: Any                   # Fraction | str | bool


@dataclass(frozen=True)
class Resource:
    """A resource type with a per-instance capacity; also a single instance of the same name."""

    name: str
    capacity: int
    properties: tuple[Property, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    parent: Optional[str] = None   # ``resource chopping_board < station``: the resource is also a subtype


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    new: bool = False              # created by the action (``new i: T``)
    source: Optional[str] = None   # ``from s``: the type is the legend argument of station parameter s


@dataclass(frozen=True)
class Condition:
    when: When
    formula: Formula


@dataclass(frozen=True)
class TimedEffect:
    when: When                     # START or END
    effect: Effect


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[Param, ...]
    duration: sympy.Expr
    occupancy: Occupancy
    occupy_for: Optional[sympy.Expr]
    agents: tuple[str, ...]        # parameters naming agents occupied by the action
    holds: tuple[str, ...]         # parameters naming resources held for the whole duration
    interruptible: bool
    conditions: tuple[Condition, ...]
    effects: tuple[TimedEffect, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    aggregates: tuple[Aggregate, ...] = ()


@dataclass(frozen=True)
class Process:
    """Progress accumulates while ``condition`` holds; after ``duration`` units the effects fire.

    ``scope`` (``when F``; part of ``condition``) is what keeps an instance alive: while the scope holds but
    the rest of the condition does not, progress pauses; when the scope stops holding, progress is lost.
    Without a scope, progress is only reset when the process completes."""

    name: str
    params: tuple[Param, ...]
    condition: Formula
    duration: sympy.Expr
    effects: tuple[Effect, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    scope: Optional[Formula] = None
    aggregates: tuple[Aggregate, ...] = ()


@dataclass(frozen=True)
class Container:
    """``container T [capacity N] accepts K@state, ...``: what objects of type T may contain."""

    name: str
    capacity: Optional[int]
    accepts: tuple[tuple[str, Optional[str]], ...]     # (kind, required state or None)
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Surface:
    """A plan-level action (MoveTo, Interact ...) implemented by the first applicable operator.

    Its parameters bind the first parameters of each operator, in order; the operators' other parameters
    are found by matching their start conditions.  A ``final`` surface ends the agent's plan."""

    name: str
    params: tuple[Param, ...]
    operators: tuple[str, ...]
    final: bool = False
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Ingredient:
    name: str
    state: Optional[str]
    count: int


@dataclass(frozen=True)
class Recipe:
    """A goal composition: ``container`` holding a multiset of ingredient states."""

    name: str
    category: Optional[str]
    container: str
    items: tuple[Ingredient, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class ResourceUse:
    resource: str
    needs: tuple[tuple[str, Any], ...] = ()
    sets: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Lag:
    """Time constraint ``start(this) - end(other)`` in ``[min, max]`` (None = unbounded)."""

    other: int
    min: Optional[sympy.Expr]
    max: Optional[sympy.Expr]


@dataclass(frozen=True)
class Step:
    index: int
    text: str
    duration: sympy.Expr
    occupancy: Occupancy
    occupy_for: Optional[sympy.Expr]
    interruptible: bool
    prerequisites: tuple[int, ...]
    lags: tuple[Lag, ...]
    uses: tuple[ResourceUse, ...]
    release: Optional[sympy.Expr] = None
    deadline: Optional[sympy.Expr] = None
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    verb: Optional[str] = None            # the key of the domain's verb whose usage the text fits


PLACEHOLDERS = ("OBJ", "OBJ1", "OBJ2")


@dataclass(frozen=True)
class Verb:
    """``verb "cook OBJ1 in OBJ2" "description" raw -> cooked``: a command form of a domain's steps.

    ``key`` is the usage without its placeholders ("cook in"); ``before``/``after`` the first object's state
    change (None when not given)."""

    key: str
    usage: str
    description: str
    before: Optional[str] = None
    after: Optional[str] = None
    span: Optional[Span] = field(default=None, compare=False, hash=False)

    @property
    def pattern(self) -> re.Pattern:
        """The usage as a regular expression: each placeholder one object name (a group)."""
        return verb_pattern(self.usage)


def verb_key(usage: str) -> str:
    """"cook OBJ1 in OBJ2" -> "cook in"."""
    return " ".join(w for w in usage.split() if w not in PLACEHOLDERS)


def verb_pattern(usage: str) -> re.Pattern:
    return re.compile(" ".join(r"(\S+)" if w in PLACEHOLDERS else re.escape(w) for w in usage.split()))


@dataclass(frozen=True)
class Procedure:
    name: str
    title: Optional[str]
    steps: tuple[Step, ...]
    local_resources: tuple[Resource, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    initial: tuple[tuple[str, str], ...] = ()   # ``initial rice = unpicked``: (local object, state), declared order
    private: tuple[str, ...] = ()               # ``private rice``: labelled "(Only for Task k)" when suffixed

    def step(self, index: int) -> Optional[Step]:
        for s in self.steps:
            if s.index == index:
                return s
        return None


@dataclass(frozen=True)
class Station:
    name: str
    kind: str
    arg: Optional[str]
    x: int
    y: int
    item: Optional[str] = None     # ``with T``: an object of type T starts on the station


@dataclass(frozen=True)
class GridMap:
    """An ASCII grid; x = column, y = row (grows downward)."""

    name: str
    width: int
    height: int
    rows: tuple[str, ...]
    walls: frozenset[tuple[int, int]]
    stations: tuple[Station, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    station_cells: frozenset[tuple[int, int]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # the stations' cells, indexed once: walkable() is a set lookup, not a scan of every station
        object.__setattr__(self, "station_cells", frozenset((s.x, s.y) for s in self.stations))

    def walkable(self, x: int, y: int) -> bool:
        return (0 <= x < self.width and 0 <= y < self.height and (x, y) not in self.walls
                and (x, y) not in self.station_cells)


@dataclass(frozen=True)
class ParamType:
    """A tool parameter type: str, int, number, bool, date, time, datetime, iata, email, enum or list."""

    kind: str
    values: tuple[str, ...] = ()
    item: Optional[ParamType] = None

    def __str__(self) -> str:
        if self.kind == "enum":
            return "enum(" + ", ".join(self.values) + ")"
        if self.kind == "list":
            return f"list[{self.item}]"
        return self.kind


@dataclass(frozen=True)
class ToolParam:
    name: str
    type: ParamType
    required: bool
    default: Any = None


@dataclass(frozen=True)
class Tool:
    name: str
    app: Optional[str]
    params: tuple[ToolParam, ...]
    returns: tuple[tuple[str, ParamType], ...]
    doc: Optional[str]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


class AppOp(enum.Enum):
    """The operating space of APP plans (PlanningArena: tap, text input, swipe, return, home)."""

    TAP = "Tap"
    TEXT = "Text"
    SWIPE = "Swipe"
    BACK = "Back"
    HOME = "Home"


ELEMENT_OPS = (AppOp.TAP, AppOp.TEXT, AppOp.SWIPE)     # the operations an element may accept


@dataclass(frozen=True)
class AppElement:
    """A UI element of an APP screen: ``label`` is how plans may name it too ("Book Now")."""

    name: str
    label: Optional[str]
    screen: str
    ops: tuple[AppOp, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Screen:
    name: str
    doc: Optional[str]
    elements: tuple[str, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class App:
    """An app: API ``tools`` and/or, for an APP operated by taps, ``screens`` and their ``elements``."""

    name: str
    doc: Optional[str]
    tools: tuple[str, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    screens: tuple[Screen, ...] = ()
    elements: tuple[AppElement, ...] = ()

    @property
    def has_ui(self) -> bool:
        return bool(self.screens)


@dataclass(frozen=True)
class Value:
    """A literal value in a tool call or profile: kind in str|int|number|bool|date|time|enum|ref|relative|list."""

    kind: str
    value: Any                     # str | int | Fraction | bool | tuple[Value, ...] | (step, field)


@dataclass(frozen=True)
class RefCall:
    """One step of a reference tool plan."""

    id: int
    tool: str
    args: tuple[tuple[str, Value], ...]
    after: tuple[int, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


# ----------------------------------------------------------------------------- households (partial observability)
class PlaceKind(enum.Enum):
    """What a household place is: a container (may be closed), a surface, or a carriable basket."""

    CONTAINER = "container"
    SURFACE = "surface"
    BASKET = "basket"


class ActionSyntax(enum.Enum):
    """The high-level action syntax shown to agents: C-WAH (``[goexplore] <kitchen> (2)``) or TDW-MAT
    (``go to <kitchen>``, ``explore current room <kitchen>``)."""

    CWAH = "cwah"
    TDW = "tdw"


@dataclass(frozen=True)
class Door:
    """Rooms ``a`` and ``b`` are connected; walking between their entry points is ``metres`` long."""

    a: str
    b: str
    metres: Fraction
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Place:
    """A container, surface or carriable basket in ``room``, ``metres`` from the room's entry point."""

    name: str
    kind: PlaceKind
    room: str
    metres: Fraction
    closed: bool = False           # containers: closed at the start
    capacity: Optional[int] = None  # things it can hold (None = unbounded)
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Thing:
    """A movable thing of ``type``; ``options`` are rooms or place names: one option is a fixed placement,
    several a hidden one, drawn with the scenario's seed."""

    name: str
    type: str
    options: tuple[str, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class ObserveRule:
    """``see var: type when formula``: an agent (``self`` in the formula) perceives every object ``var`` of
    ``type`` (``thing``, ``container``, ``surface``, ``basket``, ``place``, ``agent``, ``room`` or a thing type)
    for which ``when`` holds."""

    var: str
    type: str
    when: Formula
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Household:
    """A home: rooms joined by doors, places in rooms, things (fixed or hidden) and the observation model."""

    name: str
    rooms: tuple[str, ...]
    doors: tuple[Door, ...]
    places: tuple[Place, ...]
    things: tuple[Thing, ...]
    observe: tuple[ObserveRule, ...]
    hands: int = 2                 # things an agent may hold at once
    speed: Fraction = Fraction(1)  # metres walked per step
    span: Optional[Span] = field(default=None, compare=False, hash=False)

    def place(self, name: str) -> Optional[Place]:
        return next((p for p in self.places if p.name == name), None)

    def thing(self, name: str) -> Optional[Thing]:
        return next((t for t in self.things if t.name == name), None)


@dataclass(frozen=True)
class GoalCount:
    """``count relation(what, where)``: at least ``count`` things (of type ``what``, or the thing ``what``)
    are ``on`` the surface / ``inside`` the container or basket ``where``."""

    count: int
    relation: str                  # "on" | "inside"
    what: str                      # a thing type or a thing
    where: str                     # a place
    span: Optional[Span] = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class AgentDecl:
    name: str
    pos: Optional[tuple[int, int]]


@dataclass(frozen=True)
class Scenario:
    name: str
    time_unit: TimeUnit
    map: Optional[str]
    agents: tuple[AgentDecl, ...]
    orders: tuple[str, ...]
    procedures: tuple[str, ...]
    shared: tuple[str, ...]
    overrides: tuple[tuple[str, sympy.Expr], ...]
    limit: Optional[sympy.Expr]
    apps: tuple[str, ...]
    tools: tuple[str, ...]
    query: Optional[str]
    profile: tuple[tuple[str, Value], ...]
    structure: Optional[str]
    reference: tuple[RefCall, ...]
    span: Optional[Span] = field(default=None, compare=False, hash=False)
    occupancy: OccupancyRule = OccupancyRule.OVERLAP
    # households (``ScenarioKind.HOUSEHOLD``); the defaults leave every other family unchanged
    household: Optional[str] = None                  # the ``Household`` the episode plays in
    starts: tuple[tuple[str, str], ...] = ()         # (agent, room) in declaration order
    goals: tuple[GoalCount, ...] = ()
    horizon: Optional[int] = None                    # steps; the episode fails when not done by then
    seed: int = 0                                    # draws the hidden placements (``random.Random(seed)``)
    message_limit: int = 500                         # characters per message
    message_cost: int = 1                            # steps a message costs its sender
    syntax: ActionSyntax = ActionSyntax.CWAH         # the high-level action syntax shown to agents
    # worlds (``ScenarioKind.WORLD``, docs/language.md "Worlds"); the defaults leave every other family unchanged
    objects: tuple[ObjectDef, ...] = ()              # the scenario's own objects (the domain's are Project.objects)
    init: tuple[Atom, ...] = ()                      # ground facts true at the start (every other fact is false)
    goal: Optional[Formula] = None                   # the goal formula; a scenario with one is a world
    kind: ScenarioKind = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ScenarioKind.decide(self.procedures, self.apps, self.tools,
                                                             self.reference, self.household,
                                                             self.goal is not None))


@dataclass(frozen=True)
class Project:
    """Everything compiled from a set of files, keyed by name (insertion order = declaration order)."""

    files: tuple[str, ...]
    constants: dict
    types: dict
    objects: dict
    attributes: dict
    relations: dict
    resources: dict
    actions: dict
    processes: dict
    recipes: dict
    procedures: dict
    maps: dict
    tools: dict
    apps: dict
    scenarios: dict
    domain: Optional[str] = None
    containers: dict = field(default_factory=dict)
    surfaces: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict, compare=False, repr=False)  # scenario -> its domain's Project
    households: dict = field(default_factory=dict)   # name -> Household
    verbs: dict = field(default_factory=dict)        # key -> Verb (``verb`` declarations)

    def part(self, scenario: str) -> Project:
        """The project of the domain that declares ``scenario`` (self for a single-domain project)."""
        return self.parts.get(scenario, self)

    def ancestry(self) -> dict[str, tuple[str, ...]]:
        """type -> (type, parent, ..., "object") for the built-in types and the declared types and resources
        (a resource may refine a type of the same name); computed once per project."""
        cached = self.__dict__.get("_ancestry")
        if cached is None:
            from chronoplan.compiler.builtins import TYPES as BUILTIN_TYPES  # lazy: cycle, builtins imports ir
            first = ("object", "agent", "item", "station", "cell", "number", "bool")   # the exports' order
            parent: dict[str, Optional[str]] = {t: (None if t == "object" else "object")
                                                for t in first + tuple(t for t in BUILTIN_TYPES if t not in first)}
            for n, t in self.types.items():
                parent[n] = t.parent or "object"
            for n, r in self.resources.items():
                parent[n] = r.parent or parent.get(n) or "object"
            cached = {}
            for t in parent:
                chain: list[str] = []
                cur: Optional[str] = t
                while cur is not None and cur not in chain:
                    chain.append(cur)
                    cur = parent.get(cur)
                cached[t] = tuple(chain) if "object" in chain else (*chain, "object")
            self.__dict__["_ancestry"] = cached
        return cached

    def scenario(self, name: Optional[str] = None) -> Scenario:
        """The scenario called ``name``; with ``None``, the only scenario (KeyError otherwise)."""
        if name is None:
            if len(self.scenarios) != 1:
                raise KeyError(f"{len(self.scenarios)} scenarios; name one of: {', '.join(self.scenarios)}")
            return next(iter(self.scenarios.values()))
        if name not in self.scenarios:
            raise KeyError(f"no scenario named {name!r}")
        return self.scenarios[name]


def to_fraction(x: Any) -> Fraction:
    """Convert a sympy Rational/Integer (or int) to a Fraction; raise ValueError otherwise."""
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    x = sympy.nsimplify(x) if isinstance(x, sympy.Float) else x
    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    raise ValueError(f"not a number: {x}")
