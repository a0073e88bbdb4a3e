"""Abstract syntax tree of the chronoplan language.

Input: built by ``compiler.parse`` from the lark tree (syntax only: no lookups, no errors).
Output: frozen dataclasses read by ``compiler.check.checker``.  Every name is an ``Ident`` carrying its span;
spans never take part in equality.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from chronoplan.compiler.diagnostics import Span


def _span():
    return field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class Ident:
    name: str
    span: Optional[Span] = _span()


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Num:
    value: Fraction
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Quantity:
    value: Fraction
    unit: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Name:
    ident: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class AttrAccess:
    """``x.attr`` as written; the checker turns it into ``ir.AttrRef``."""

    obj: Ident
    attr: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Call:
    func: Ident
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Any
    right: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Neg:
    arg: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Literal:
    """A literal in attribute defaults, properties and terms: number (with optional unit), name, string, bool."""

    kind: str
    value: Any
    unit: Optional[str] = None
    span: Optional[Span] = _span()


# ------------------------------------------------------------------ formulas / effects
@dataclass(frozen=True)
class FAtom:
    rel: Ident
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class FCmp:
    op: str
    left: Any
    right: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class FBool:
    op: str            # "and" | "or" | "not" | "true" | "false"
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class FExists:
    """exists(v: T where F)"""

    var: Ident
    type: Ident
    formula: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class CountExpr:
    """count(v: T where F): the number of objects v of type T satisfying F (an expression)."""

    var: Ident
    type: Ident
    formula: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TName:
    ident: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TAttr:
    obj: Ident
    attr: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EAssign:
    obj: Ident
    attr: Ident
    value: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EFact:
    positive: bool
    rel: Ident
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EDelayed:
    delay: Any
    effects: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EForall:
    """forall(v: T where F): effects -- the effects for every object v satisfying F."""

    var: Ident
    type: Ident
    formula: Any
    effects: tuple
    span: Optional[Span] = _span()


# ------------------------------------------------------------------ declarations
@dataclass(frozen=True)
class Import:
    path: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class DomainDecl:
    name: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ConstItem:
    name: Ident
    expr: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ConstDecl:
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TypeItem:
    name: Ident
    parent: Optional[Ident]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TypeDecl:
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ObjectDecl:
    names: tuple
    type: Ident
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class AttrDecl:
    name: Ident
    params: tuple
    kind: Ident                # type name for simple types ("number", "bool"), first value for enums
    values: tuple              # enum values (Idents); empty for simple types
    default: Optional[Literal]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class RelationDecl:
    name: Ident
    params: tuple
    span: Optional[Span] = _span()
    role: Optional[Ident] = None           # as holding | placement | containment
    capacity: Optional[int] = None         # capacity N per T
    per: Optional[Ident] = None


@dataclass(frozen=True)
class PropItem:
    name: Ident
    value: Literal
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ResourceDecl:
    name: Ident
    capacity: Optional[int]
    props: tuple
    span: Optional[Span] = _span()
    parent: Optional[Ident] = None


@dataclass(frozen=True)
class ParamDecl:
    name: Ident
    type: Ident
    span: Optional[Span] = _span()
    new: bool = False                      # new x: T [from s]: an object created by the action
    source: Optional[Ident] = None         # the station parameter whose legend argument is the type


@dataclass(frozen=True)
class ActionItem:
    """One clause of an action body: kind in duration|busy|holds|interruptible|condition|effect."""

    kind: str
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: Ident
    params: tuple
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ProcessDecl:
    name: Ident
    params: tuple
    condition: Any
    duration: Any
    effects: tuple
    span: Optional[Span] = _span()
    scope: Any = None                      # 'when F': the instance lives (keeps its progress) while F holds


@dataclass(frozen=True)
class IngredientRef:
    count: int
    name: Ident
    state: Optional[Ident]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class RecipeDecl:
    name: Ident
    category: Optional[Ident]
    container: Ident
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class UseDecl:
    resource: Ident
    needs: tuple               # (Ident, Literal)
    sets: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class StepOpt:
    """kind in autonomous|continuous|interruptible|after|within|gap|release|deadline|uses."""

    kind: str
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class StepDecl:
    index: int
    text: str
    duration: Any
    opts: tuple
    span: Optional[Span] = _span()
    index_span: Optional[Span] = _span()


@dataclass(frozen=True)
class LocalResource:
    names: tuple
    capacity: Optional[int]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class InitialStates:
    """``initial rice = unpicked, herbicide = "not added"``: (object, state) pairs of a procedure."""

    items: tuple               # (Ident object, Ident state)
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PrivateNames:
    """``private rice, dish``: a procedure's objects labelled "(Only for Task k)" when a combination suffixes them."""

    names: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class VerbDecl:
    """``verb "cook OBJ1 in OBJ2" "description" raw -> cooked`` (domain level)."""

    usage: str
    description: str
    before: Optional[Ident]
    after: Optional[Ident]
    span: Optional[Span] = _span()
    usage_span: Optional[Span] = _span()


@dataclass(frozen=True)
class ProcedureDecl:
    name: Ident
    title: Optional[str]
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class LegendEntry:
    symbol: str
    kind: Ident
    arg: Optional[Ident]
    span: Optional[Span] = _span()
    item: Optional[Ident] = None           # 'with T': an object of type T starts on the station
    station_name: Optional[Ident] = None   # 'as NAME': the name of the (single) station


@dataclass(frozen=True)
class MapDecl:
    name: Ident
    art: str
    art_span: Optional[Span]
    legend: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class AcceptItem:
    kind: Ident
    state: Optional[Ident]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ContainerDecl:
    """container T [capacity N] accepts K[@state], ..."""

    name: Ident
    capacity: Optional[int]
    accepts: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SurfaceDecl:
    """surface Name(params) = op | op ...  or  surface Name(params) final"""

    name: Ident
    params: tuple
    operators: tuple
    final: bool
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TypeExpr:
    kind: str                  # simple | enum | list
    name: Optional[Ident] = None
    values: tuple = ()
    item: Optional[TypeExpr] = None
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ValueExpr:
    kind: str                  # string number bool date time name ref list
    value: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ToolParamDecl:
    name: Ident
    optional: bool
    type: TypeExpr
    default: Optional[ValueExpr]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ToolDecl:
    name: Ident
    params: tuple
    returns: tuple             # (Ident, TypeExpr)
    doc: Optional[str]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ElementDecl:
    """``element search_bar "search bar": tap, text``: a UI element of an app screen and its operations."""

    name: Ident
    label: Optional[str]
    ops: tuple                 # Idents (tap, text, swipe)
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ScreenDecl:
    """``screen results "Search results" { element ... }``: a screen of an APP (an app operated by taps)."""

    name: Ident
    doc: Optional[str]
    elements: tuple            # ElementDecl
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class AppDecl:
    name: Ident
    doc: Optional[str]
    tools: tuple
    span: Optional[Span] = _span()
    screens: tuple = ()        # ScreenDecl: an APP's screens (PlanningArena's Tap/Text/Swipe plans)


@dataclass(frozen=True)
class AgentItem:
    name: Ident
    pos: Optional[tuple]
    span: Optional[Span] = _span()
    room: Optional[Ident] = None       # ``alice at kitchen``: the start room in a household


@dataclass(frozen=True)
class GoalCountItem:
    """``2 inside(plate, dishwasher)`` in a household scenario's ``goal`` list."""

    count: Num
    relation: Ident
    args: tuple                        # Idents (two when well formed: what, where)
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class RefCallDecl:
    id: int
    tool: Ident
    args: tuple                # (Ident, ValueExpr)
    after: tuple               # ints
    span: Optional[Span] = _span()


# ------------------------------------------------------------------ households
@dataclass(frozen=True)
class Length:
    """A length in metres (``4.5 m``)."""

    value: Fraction
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HRooms:
    names: tuple                       # Idents
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HDoor:
    a: Ident
    b: Ident
    length: Length
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HPlace:
    """``container fridge in kitchen closed 2 m`` / ``basket b1 capacity 3 in livingroom 1 m``."""

    kind: Ident                        # container | surface | basket
    name: Ident
    capacity: Optional[Num]
    room: Ident
    state: Optional[Ident]             # closed | open
    length: Length
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HThing:
    """``thing cupcake1, cupcake2: cupcake in one of (fridge, kitchen)``; ``hidden`` for ``one of``."""

    names: tuple                       # Idents
    type: Ident
    options: tuple                     # Idents
    hidden: bool
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HSetting:
    """``hands 2`` (value a Num) or ``speed 1 m`` (value a Length)."""

    kind: str                          # hands | speed
    value: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SeeRule:
    """``see x: thing when F`` (``formula`` None: always)."""

    var: Ident
    type: Ident
    formula: Any
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HObserve:
    rules: tuple                       # SeeRules
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class HouseholdDecl:
    name: Ident
    items: tuple                       # HRooms | HDoor | HPlace | HThing | HSetting | HObserve
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ScenarioItem:
    """kind in map|agents|orders|procedures|share|unit|const|limit|occupancy|apps|tools|query|profile|structure|
    reference|household|goal|horizon|seed|messages|syntax|object|init|world_goal."""

    kind: str
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ScenarioDecl:
    name: Ident
    items: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Module:
    file: str
    decls: tuple
