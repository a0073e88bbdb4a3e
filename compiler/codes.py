"""The one registry of every stable code chronoplan reports: C/W compile diagnostics, P PDDL-export
diagnostics, E plan errors, W reading notes and T tool-plan errors.

Input: nothing (a table).  Output: ``REGISTRY`` (code -> ``Code``: severity, category, title, scope and the
docs page that documents it), ``category_of(code)`` / ``severity_of(code)``, and ``codes_in(*scopes)``,
from which every per-family view is derived (``diagnostics.CODES``, ``pddl.common.CODES``,
``runtime.violations.CODES``, ``runtime.kitchen.codes.KCODES``).  A plan problem's category is always
derived from its code here, never typed at the place that reports it.

Categories are the plan-report contract's closed list (docs/errors.md); compile and PDDL diagnostics are not
plan problems and have none.  Numbering of E codes: the hundreds digit names the category block (E0xx
syntax/schema, E1xx unknown-name, E2xx precondition, E3xx dependency, E4xx agent-busy/resource-busy, E5xx
duration/interrupt, E6xx time-window, E7xx goal, E8xx repeat); timed plans use x01-x29 (x01-x49 where no
household code is), household episode logs x30-x49 (W030-W049 their warnings), world plans x10-x19, grid
kitchens x50-x99; E090 (internal error) is shared by every plan kind.  docs/errors.md ("Every code") is
generated from this table (``python tools/gen_codes_doc.py``) and the family pages are tested against it
(tests/test_validate_errors_doc.py).
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Optional


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


class Category(str, enum.Enum):
    """The contract's error categories; equal (and hashed equal) to their names as strings."""

    SYNTAX = "syntax"
    SCHEMA = "schema"
    UNKNOWN_NAME = "unknown-name"
    PRECONDITION = "precondition"
    DEPENDENCY = "dependency"
    AGENT_BUSY = "agent-busy"
    RESOURCE_BUSY = "resource-busy"
    DURATION = "duration"
    INTERRUPT = "interrupt"
    TIME_WINDOW = "time-window"
    GOAL = "goal"
    REPEAT = "repeat"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Scope(enum.Enum):
    """Who reports a code, and so which page documents it."""

    COMPILE = "compile diagnostics"
    PDDL = "PDDL export diagnostics"
    READING = "every plan reader"
    NOTES = "reading notes (warnings)"
    GRADING = "every plan kind"
    STEPS = "timed plans"
    KITCHEN = "grid-kitchen plans"
    TOOLS = "tool-call plans"
    HOUSEHOLD = "household episode logs"
    WORLD = "world plans"

    @property
    def doc(self) -> str:
        """The page (relative to docs/) and section anchor documenting this scope's codes."""
        return _DOCS[self]


_DOCS = {
    Scope.COMPILE: "language.md#diagnostics",
    Scope.PDDL: "pddl.md#diagnostics",
    Scope.READING: "errors.md#plan-validation-errors",
    Scope.NOTES: "errors.md#reading-plans",
    Scope.GRADING: "errors.md#plan-validation-errors",
    Scope.STEPS: "errors.md#plan-validation-errors",
    Scope.KITCHEN: "benchmarks/paracook.md#errors",
    Scope.TOOLS: "tools.md#checks-and-codes",
    Scope.HOUSEHOLD: "benchmarks/pce.md#errors",
    Scope.WORLD: "language.md#world-plan-errors",
}


@dataclass(frozen=True)
class Code:
    """One stable code: ``category`` is None for compile and PDDL diagnostics (not plan problems)."""

    code: str
    severity: Severity
    category: Optional[Category]
    title: str
    scope: Scope

    @property
    def doc(self) -> str:
        return self.scope.doc


E, W = Severity.ERROR, Severity.WARNING
C = Category

# (scope, severity, category, ((code, title), ...)); the category None only for C/W/P diagnostics
_TABLE = (
    (Scope.COMPILE, E, None, (
        ("C001", "syntax error: unexpected token"),
        ("C002", "syntax error: unexpected character"),
        ("C003", "syntax error: unexpected end of input"),
        ("C004", "cannot read file"),
        ("C101", "undefined name"),
        ("C102", "duplicate name"),
        ("C103", "wrong kind of name (e.g. a type used as an object)"),
        ("C104", "wrong number of arguments"),
        ("C105", "type mismatch"),
        ("C106", "unit mismatch"),
        ("C107", "value not in the attribute's domain"),
        ("C108", "import not found or cyclic"),
        ("C109", "invalid number (division by zero, non-integer where an integer is needed, negative duration)"),
        ("C110", "cyclic constant definition"),
        ("C111", "beyond a limit of the language (number digits, map size; docs/language.md, Limits)"),
        ("C201", "cyclic prerequisites"),
        ("C202", "lag can never be satisfied"),
        ("C203", "step refers to an unknown step"),
        ("C204", "duplicate step index"),
        ("C205", "invalid occupancy (autonomous for longer than the step, or interruptible autonomous step)"),
        ("C206", "malformed verb usage (not starting with the verb, placeholders other than OBJ or OBJ1 then OBJ2)"),
        ("C207", "step text fits no verb usage of its domain, or several"),
        ("C301", "map is not rectangular or empty"),
        ("C302", "unknown map symbol"),
        ("C303", "cell outside the grid"),
        ("C304", "station not reachable from any walkable tile"),
        ("C305", "agent starts on a non-walkable tile"),
        ("C401", "scenario refers to an unknown recipe, procedure, map, app, tool or household"),
        ("C402", "scenario is missing something it needs"),
        ("C403", "invalid tool call in a reference plan"),
        ("C404", "reference plan dependency is invalid"),
        ("C405", "app screen element names an operation outside the operating space (tap, text, swipe) or one twice"),
        ("C601", "household names an unknown room, place, thing or thing type (or one of the wrong kind)"),
        ("C602", "door joins a room to itself"),
        ("C603", "household rooms missing or not connected (a room no door path reaches)"),
        ("C604", "household number out of range (capacity, hands, speed, horizon, message limit or goal count "
                 "below its minimum)"),
        ("C605", "goal relation is not on/inside or does not fit its place (inside a surface, on a container)"),
        ("C606", "goal asks for more things than the household has"),
        ("C607", "observe rule: unknown relation, type or name, wrong number or type of arguments"),
        ("C608", "unknown action syntax (cwah or tdw)"),
        ("C609", "household item where it does not belong (closed surface, map in a household scenario, goal "
                 "in another scenario)"),
        ("C701", "world item where it does not belong (another family's item in a world, a world item elsewhere)"),
        ("C702", "init entry that is not a ground fact of a declared relation"),
        ("C703", "action construct a world cannot run yet (duration, busy, new objects, delayed or built-in "
                 "effects, map built-ins, processes)"),
    )),
    (Scope.COMPILE, W, None, (
        ("W501", "unused declaration"),
    )),
    (Scope.PDDL, W, None, (
        ("P001", "interruptible step exported as one uninterrupted action"),
        ("P002", "minimum lag that the export cannot anchor (it would let a step start before its anchor starts)"),
        ("P003", "maximum lag that can never be met (negative envelope)"),
        ("P004", "step of zero duration (PDDL planners may reject it)"),
        ("P005", "maximum lag left out of an export without envelopes (for planners without required concurrency)"),
    )),
    (Scope.PDDL, E, None, (
        ("P010", "scenario kind the PDDL export does not support"),
    )),
    (Scope.PDDL, W, None, (
        ("P011", "kitchen export: process lowered to a cook action that keeps the cookware on the stove (no pause)"),
        ("P012", "kitchen export: objects created by dispensers come from pools sized by the orders"),
        ("P013", "kitchen export: put_down not offered on dispensers"),
        ("P014", "kitchen export: cookware holds one ingredient at a time"),
        ("P015", "kitchen export: served plates come back to the first plate return"),
        ("P016", "kitchen export: operator not exported (never needed to serve the orders)"),
        ("P017", "kitchen export: agents stop on a subset of the cells next to stations"),
        ("P018", "kitchen export: planning for a subset of the agents (the others stay idle)"),
    )),
    (Scope.PDDL, E, None, (
        ("P020", "scenario beyond a size limit of the PDDL export (a count unrolled into more than MAX_UNROLLED "
                 "objects)"),
    )),
    (Scope.PDDL, W, None, (
        ("P021", "household export: omniscient sequential relaxation (observation, messages, horizon and "
                 "simultaneity dropped)"),
        ("P022", "household export: goal count below the things that can satisfy it, lowered to a counting action"),
        ("P023", "tool-use export: the reference's calls are the goal; values are opaque objects (no date "
                 "arithmetic, formats or text matching); optional parameters a reference step does not give are left "
                 "out"),
        ("P024", "tool-use export: a returned field passed to a parameter of another type takes that parameter's "
                 "type"),
    )),

    (Scope.PDDL, W, None, (
        ("P101", "classical export: agents, concurrency and resource capacities are not modelled"),
        ("P102", "classical export: maximum lag dropped"),
        ("P103", "classical export: minimum lag dropped"),
        ("P104", "classical export: release time dropped"),
        ("P105", "classical export: deadline dropped"),
        ("P106", "classical export: time limit dropped"),
    )),
    # plan reading, shared by every plan kind (tool plans read through the Python API report T001/T007)
    (Scope.READING, E, C.SYNTAX, (
        ("E001", "the plan cannot be parsed (not JSON, no Step(...) entries)"),
        ("E002", "the plan file cannot be read or is empty"),
    )),
    (Scope.READING, E, C.SCHEMA, (
        ("E010", "the plan does not match the plan schema (wrong shape or type)"),
        ("E011", "a number is not finite or out of range (NaN, Infinity, above 10^12)"),
        ("E012", "the plan format cannot be detected or is not supported for this scenario"),
        ("E013", "the plan is too large to grade"),
    )),
    (Scope.STEPS, E, C.SCHEMA, (
        ("E014", "an agent must be named (the scenario has several agents)"),
    )),
    (Scope.GRADING, E, C.SCHEMA, (
        ("E015", "no scenario matches the plan"),
        ("E090", "internal error: grading this plan failed inside chronoplan (a bug; the plan is not graded)"),
    )),
    (Scope.NOTES, W, C.SYNTAX, (
        ("W001", "the plan was read from inside the text: prose before or after it was skipped"),
        ("W002", "a `<think>` reasoning draft was ignored"),
        ("W003", "`--compat recipe2plan`: `Step(`-like entries that the original evaluator's pattern does not read "
                 "were skipped"),
        ("W004", "Step text names no agent on a scenario with several agents: each entry was given the first agent "
                 "free at its start"),
    )),
    # timed plans (x01-x49 of each block)
    (Scope.STEPS, E, C.UNKNOWN_NAME, (
        ("E101", "unknown task (recipe or procedure)"),
        ("E102", "unknown step of a task"),
        ("E103", "unknown agent"),
        ("E104", "unknown command (interactive play)"),
    )),
    (Scope.STEPS, E, C.PRECONDITION, (("E201", "a resource property does not have the value the step needs"),)),
    (Scope.STEPS, E, C.DEPENDENCY, (("E301", "a prerequisite step has not finished when the step starts"),)),
    (Scope.STEPS, E, C.AGENT_BUSY, (("E401", "the agent is already occupied by another step"),)),
    (Scope.STEPS, E, C.RESOURCE_BUSY, (("E411", "the resource is held by as many steps as its capacity"),)),
    (Scope.STEPS, E, C.DURATION, (
        ("E501", "the duration is longer than the step (or what remains of it)"),
        ("E502", "the duration is zero or negative"),
        ("E503", "an interruptible step's chunks add up to less than its duration"),
    )),
    (Scope.STEPS, E, C.INTERRUPT, (("E511", "a non-interruptible step is split or cut short"),)),
    (Scope.STEPS, E, C.TIME_WINDOW, (
        ("E601", "the step starts later after its partner ended than the maximum lag allows"),
        ("E602", "the step starts sooner after its partner ended than the minimum lag allows"),
        ("E603", "the partner ended but the step never started within the maximum lag"),
        ("E604", "the step has a lag relative to a step that never finished"),
        ("E611", "the step starts before its release time"),
        ("E612", "the step finishes after its deadline"),
        ("E613", "the step starts in the past (before the plan begins or, interactively, before the current "
                 "time)"),
        ("E614", "the plan runs past the scenario's time limit"),
    )),
    (Scope.STEPS, E, C.GOAL, (
        ("E701", "a step of a task is never executed"),
        ("E702", "the episode ended before every step was done (interactive play)"),
    )),
    (Scope.STEPS, E, C.REPEAT, (
        ("E801", "the step is already done"),
        ("E802", "the step is already running"),
    )),
    # grid kitchens (x50-x99 of each block)
    (Scope.KITCHEN, E, C.UNKNOWN_NAME, (
        ("E150", "unknown action type (not one of the scenario's surface actions)"),
        ("E151", "unknown agent"),
        ("E152", "unknown station or object"),
    )),
    (Scope.KITCHEN, E, C.PRECONDITION, (
        ("E250", "infeasible location: the MoveTo target is not a reachable floor tile"),
        ("E251", "not adjacent: the agent is not next to the station it acts on"),
        ("E252", "holding: the agent's hands are full (or it holds the wrong thing)"),
        ("E253", "wrong station kind: no operator of this action works on this kind of station"),
        ("E254", "no operator applies: an object is missing or in the wrong state"),
        ("E255", "capacity: the station or container is full"),
        ("E256", "the agent already declared Finish"),
        ("E257", "not accepted: the container does not take this item in this state"),
        ("E258", "a condition required during the action stopped holding"),
    )),
    (Scope.KITCHEN, E, C.RESOURCE_BUSY, (("E450", "the station is in use by another agent's Process"),)),
    (Scope.KITCHEN, E, C.DURATION, (("E550", "a duration is negative"),)),
    (Scope.KITCHEN, E, C.TIME_WINDOW, (("E650", "the plan runs past the scenario's time limit"),)),
    (Scope.KITCHEN, E, C.GOAL, (
        ("E750", "wrong dish: the served plate does not match the current order"),
        ("E751", "orders left unserved at the end of the plan"),
        ("E752", "a dish was served when every order had already been served"),
    )),
    # household episode logs (docs/benchmarks/pce.md; x30-x49 of each block)
    (Scope.HOUSEHOLD, E, C.SYNTAX, (
        ("E030", "a line of the episode log is not a JSON object (invalid JSON, NaN/Infinity, nesting too deep)"),
        ("E031", "an action text names no action (neither C-WAH nor TDW-MAT syntax)"),
    )),
    (Scope.HOUSEHOLD, E, C.SCHEMA, (
        ("E032", "an episode log record lacks a field or has one of the wrong type (the header, step, actions, "
                 "messages, observations)"),
        ("E033", "an episode log record's step is not after the previous record's (repeated or going back)"),
    )),
    (Scope.HOUSEHOLD, E, C.UNKNOWN_NAME, (
        ("E130", "the log is of another episode: its header names another scenario, seed, household, horizon or "
                 "agents"),
        ("E131", "a record names an agent the episode does not have"),
        ("E132", "an action names an object the episode does not have (a hallucinated object)"),
        ("E133", "knowledge hallucination: an action on an object the agent has neither seen nor been told about "
                 "(the message gives the step it first became known to the agent, if ever)"),
    )),
    (Scope.HOUSEHOLD, E, C.PRECONDITION, (
        ("E230", "an action the rules forbid (hands full, closed container, not held, no room left...)"),
        ("E231", "a message longer than the scenario's limit (500 characters in C-WAH)"),
    )),
    (Scope.HOUSEHOLD, E, C.AGENT_BUSY, (
        ("E430", "an action given while the agent's previous action still runs"),
    )),
    (Scope.HOUSEHOLD, E, C.TIME_WINDOW, (
        ("E630", "a record at or after the horizon"),
        ("E631", "a record after the episode ended in success"),
    )),
    (Scope.HOUSEHOLD, E, C.GOAL, (
        ("E730", "the horizon is reached with goals unmet (the episode failed)"),
        ("E731", "the log stops before the episode ends (goals unmet, horizon not reached)"),
    )),
    (Scope.HOUSEHOLD, W, C.SCHEMA, (
        ("W030", "an observation digest differs from the replay's (the log was edited or written by another "
                 "engine version)"),
        ("W031", "a record's messages differ from what its send actions sent"),
    )),
    # world plans (docs/language.md, Worlds): x10-x19
    (Scope.WORLD, E, C.UNKNOWN_NAME, (
        ("E110", "unknown action (not one of the domain's actions): a hallucinated action"),
        ("E111", "unknown object (not one of the world's objects): a hallucinated object"),
        ("E112", "wrong number of arguments for the action"),
    )),
    (Scope.WORLD, E, C.PRECONDITION, (
        ("E210", "a precondition of the action does not hold (the conjunct, and the step that made it false)"),
        ("E211", "an argument is not of the parameter's type"),
    )),
    (Scope.WORLD, E, C.GOAL, (("E710", "a goal conjunct does not hold at the end of the executable prefix"),)),
    # tool-call plans (docs/tools.md)
    (Scope.TOOLS, E, C.SYNTAX, (
        ("T001", "the plan is not JSON (or not UTF-8)"),
        ("T002", "an `Action` string is not a literal tool call (garbled; `__import__('os')...` lands here)"),
    )),
    (Scope.TOOLS, E, C.SCHEMA, (
        ("T003", "wrong plan shape (no `steps` list / `OrderSteps`, unknown format name)"),
        ("T004", "a step is not an object, names no tool, has non-object `args` or unknown keys, or has no "
                 "`Action`"),
        ("T005", "a step id is not a non-negative integer, or is used twice"),
        ("T006", "`after` is not a list of step ids"),
        ("T007", "more than 5,000 steps or 20,000,000 characters (the plan is not graded further)"),
        ("T008", "`TotalSteps` differs from the number of steps (or per-step elements disagree on it)"),
        ("T009", "an argument value is NaN/infinite, huge, nested too deeply or of an unsupported type"),
    )),
    (Scope.TOOLS, E, C.UNKNOWN_NAME, (
        ("T010", "the scenario does not exist"),
        ("T101", "no tool of that name (fictitious tool); the hint suggests the closest name"),
        ("T102", "no app of that name (`meteo.queryWeather`)"),
        ("T103", "the tool exists but the scenario does not offer it"),
        ("T104", "the tool belongs to another app (`flights.queryWeather`)"),
        ("T105", "a reference names a step that does not exist"),
        ("T106", "a reference names a field the producing tool does not return"),
        ("T107", "an APP operation names no app of that name (fictitious app); the hint suggests the closest name"),
        ("T108", "the app exists but the scenario does not offer it, or it has no screens (an API app)"),
        ("T109", "the app has no element of that name, or the plan names no element where one is needed "
                 "(fictitious element)"),
    )),
    (Scope.TOOLS, E, C.SCHEMA, (
        ("T201", "unknown parameter (fictitious parameter)"),
        ("T202", "a required parameter is missing (JSON `null` counts as missing)"),
        ("T203", "wrong type (string for an int, list expected...)"),
        ("T204", "value outside the parameter's enum (the hint gives the right spelling when only the case "
                 "differs)"),
        ("T205", "value not in the parameter's format (date, time, datetime, iata, email)"),
        ("T206", "too many positional arguments, or a parameter given twice"),
        ("T207", "the element does not accept the operation (Text on a button), or the operation takes no element"),
        ("T208", "an APP operation's arguments are wrong: unknown argument, no app named, Text without the text, "
                 "a direction other than up/down/left/right"),
    )),
    (Scope.TOOLS, E, C.DEPENDENCY, (
        ("T301", "a step uses the output of itself or of a later step"),
        ("T302", "(tools format) a step uses a step's output without waiting for it through `after`"),
        ("T303", "`after` names a missing step, the step itself or a later step"),
        ("T304", "a dependency of the reference plan is missing (B must wait for A)"),
        ("T305", "a hallucinated dependency: the plan makes B wait for A where the task does not"),
    )),
    (Scope.TOOLS, E, C.GOAL, (
        ("T401", "a reference step has no matching plan step (missing step); index None"),
        ("T402", "a matched step has a wrong argument value (not a date), or uses the wrong step's output"),
    )),
    (Scope.TOOLS, E, C.REPEAT, (
        ("T501", "a step repeats a matched step (same tool, same arguments)"),
        ("T502", "a step is not needed for the task (redundant)"),
    )),
    (Scope.TOOLS, E, C.TIME_WINDOW, (
        ("T601", "a date/time argument differs from the reference (a time-inference error); the hint names the "
                 "query's phrase, today's date and the resolved date"),
        ("T602", "a relative phrase (\"next Friday\") was passed where a date is required"),
    )),
    (Scope.TOOLS, W, C.DEPENDENCY, (
        ("W060", "an argument repeats a literal value of an earlier step's simulated `Results`: read as a reference "
                 "to that step's output"),
    )),
)


def _build() -> dict[str, Code]:
    out: dict[str, Code] = {}
    for scope, severity, category, rows in _TABLE:
        for code, title in rows:
            if code in out or not re.fullmatch(r"[CWPET]\d{3}", code):
                raise ValueError(f"code {code!r} is malformed or listed twice")
            out[code] = Code(code, severity, category, title, scope)
    return dict(sorted(out.items(), key=lambda kv: ("CWPET".index(kv[0][0]), kv[0])))


REGISTRY: dict[str, Code] = _build()
del E, W, C

# the hot lookup of a plan problem's category (PlanError.category); compile and PDDL codes are absent
CATEGORY: dict[str, Category] = {c: v.category for c, v in REGISTRY.items() if v.category is not None}


def category_of(code: str) -> Category:
    """The contract category of a plan code (KeyError for an unknown or compile/PDDL code)."""
    return CATEGORY[code]


def severity_of(code: str) -> Severity:
    return REGISTRY[code].severity


def codes_in(*scopes: Scope) -> dict[str, Code]:
    """The registry's entries of ``scopes``, in registry order."""
    return {c: v for c, v in REGISTRY.items() if v.scope in scopes}


def category_table(*scopes: Scope) -> dict[str, tuple[str, str]]:
    """code -> (category, title) for the plan-problem codes of ``scopes`` (the engines' views of the registry)."""
    return {c: (v.category.value, v.title) for c, v in codes_in(*scopes).items() if v.category is not None}


# ---------------------------------------------------------------- docs/errors.md, "Every code"
BEGIN = "<!-- codes:begin (generated by python tools/gen_codes_doc.py) -->"
END = "<!-- codes:end -->"


def index_markdown() -> str:
    """The generated table of docs/errors.md: one row per code with its severity, category and page."""
    lines = [BEGIN, "", "| code | severity | category | reported by | documented in |", "|---|---|---|---|---|"]
    for c in REGISTRY.values():
        page = c.doc.split("#")[0]
        lines.append(f"| {c.code} | {c.severity.value} | {c.category.value if c.category else '-'} | "
                     f"{c.scope.value} | [{page}]({c.doc}) |")
    return "\n".join(lines + ["", END])


def with_index(text: str) -> str:
    """``text`` (docs/errors.md) with its generated block replaced by ``index_markdown()``."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + index_markdown() + text[end:]
