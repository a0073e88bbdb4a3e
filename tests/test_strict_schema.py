"""Strict plan schemas for LLM structured output (validators/strict_schema.py, ``chronoplan schema --strict``).

For every bundled scenario: the strict schema passes the strict-subset walker, compiles with real grammar
engines (outlines-core: JSON Schema -> regex; llguidance: JSON Schema -> token-level matcher over a byte
vocabulary, which refuses keywords it does not implement), a valid plan written in the strict form (nulls for
absent optional fields, the kitchen plan wrapped in {"scenario", "plan"}) is accepted by the grammar and
grades exactly as the plain plan it stands for, and malformed plans (a missing field, an extra field, a wrong
type, an unknown enum value) are rejected by the grammar.  The walker is checked on each forbidden construct.
The engine tests skip when the optional ``strict`` extra is not installed.
"""
from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.runtime.kitchen import scripted
from chronoplan.runtime.kitchen.world import World
from chronoplan.validators.grade import grade
from chronoplan.validators.schema import schema_for
from chronoplan.validators.strict_schema import (
    MAX_DEPTH,
    MAX_ENUM_VALUES,
    NotInForm,
    StrictSchema,
    strict_form,
    strict_schema_for,
    violations,
)
from chronoplan.validators.tools.export import reference_plan

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "domains"
DOCS = ROOT / "docs" / "schemas.md"


@lru_cache(maxsize=1)
def project():
    return chronoplan.load(DOMAINS)


# every family has a plan schema (households: the schema of an episode log's lines, #13)
PLAN_KINDS = ("procedures", "tools", "grid", "household")


def names(kind=None):
    p = project()
    return [n for n in p.scenarios if p.scenario(n).kind.value in PLAN_KINDS
            and (kind is None or p.scenario(n).kind.value == kind)]


@cache
def strict(name) -> StrictSchema:
    return strict_schema_for(project(), name)


# ---------------------------------------------------------------- valid plain plans of every bundled scenario
def serial_schedule(problem) -> dict:
    """Every step once, one after the other in an order that respects the prerequisites, by the first agent;
    no duration (the whole step) and no agent key when there is one agent."""
    done, t, out, left = {}, Fraction(0), [], list(problem.steps)
    while left:
        s = next(s for s in left if all((s.task, p) in done for p in s.prerequisites))
        left.remove(s)
        start = max([t] + [done[(s.task, p)] for p in s.prerequisites] + ([s.release] if s.release else []))
        entry = {"task": s.task, "step": s.index, "start": int(start) if start.denominator == 1 else float(start)}
        if len(problem.agents) > 1:
            entry["agent"] = problem.agents[0]
        out.append(entry)
        t = done[s.key] = start + s.duration
    return {"schedule": out}


@cache
def plain_plan(name) -> dict:
    """A valid plan of the scenario in the plain form."""
    p = project()
    scen = p.scenario(name)
    kind = scen.kind.value
    if kind == "procedures":
        return serial_schedule(procedure_problem(p.part(name), scen))
    if kind == "tools":
        return reference_plan(scen, p)
    return {"plan": scripted.plan(World(p, name))}


def strict_text(name, plan=None) -> str:
    return json.dumps(strict_form(strict(name).schema, plain_plan(name) if plan is None else plan))


def same_grade(a, b) -> bool:
    return (a.valid, a.metrics, [(e.code, e.message) for e in a.errors]) == \
        (b.valid, b.metrics, [(e.code, e.message) for e in b.errors])


# ---------------------------------------------------------------- grammar engines (optional extra "strict")
class OutlinesCore:
    name = "outlines-core"

    def __init__(self):
        self.js = pytest.importorskip("outlines_core.json_schema")
        self._cache = {}

    def compile(self, schema):
        key = json.dumps(schema, sort_keys=True)
        if key not in self._cache:
            self._cache[key] = re.compile(self.js.build_regex_from_schema(json.dumps(schema)))
        return self._cache[key]

    def accepts(self, schema, text) -> bool:
        return self.compile(schema).fullmatch(text) is not None


class _ByteVocabulary:
    """A tokenizer whose tokens are the 256 bytes (plus an end token): the matcher sees the text byte by byte."""
    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [256]

    def __call__(self, s):
        return list(s if isinstance(s, bytes) else s.encode())


class LLGuidance:
    name = "llguidance"

    def __init__(self):
        self.llg = pytest.importorskip("llguidance")
        self.tok = self.llg.LLTokenizer(self.llg.TokenizerWrapper(_ByteVocabulary()))

    def compile(self, schema):
        grammar = self.llg.LLMatcher.grammar_from_json_schema(schema)
        is_error, messages = self.llg.LLMatcher.validate_grammar_with_warnings(grammar, self.tok)
        assert not is_error and not messages, messages
        return grammar

    def accepts(self, schema, text) -> bool:
        m = self.llg.LLMatcher(self.tok, self.compile(schema), log_level=0)
        return m.consume_tokens(list(text.encode())) and m.is_accepting()


@pytest.fixture(scope="module", params=[OutlinesCore, LLGuidance], ids=lambda c: c.name)
def engine(request):
    return request.param()


# ---------------------------------------------------------------- every bundled scenario
def test_every_family_is_bundled():
    assert {project().scenario(n).kind.value for n in names()} == set(PLAN_KINDS)
    assert len(names()) == sum(s.kind.value in PLAN_KINDS for s in project().scenarios.values()) > 150


def test_every_strict_schema_is_in_the_subset_and_lists_what_moved():
    for name in names():
        got = strict(name)
        assert violations(got.schema) == [], name
        Draft202012Validator.check_schema(got.schema)
        assert schema_for(project(), name, strict=True) == got.schema
        text = got.schema["description"]
        assert all(m in text for m in got.moved), name
        assert got.moved or "states every constraint of the plain schema" in text


def test_the_plain_schemas_are_outside_the_subset():
    """What the issue reported: the walker sees it in every family's plain schema."""
    found = {}
    for kind in ("procedures", "tools", "grid"):
        first = "Roast-Chicken_Garlic-Potatoes" if kind == "procedures" else names(kind)[0]   # one agent
        found[kind] = " ".join(violations(schema_for(project(), first)))
    assert "'oneOf'" in found["procedures"] and "properties not in required: duration, agent" in found["procedures"]
    assert "'oneOf'" in found["tools"] and "'uniqueItems'" in found["tools"]
    assert "anyOf at the root" in found["grid"] and "'prefixItems'" in found["grid"]
    assert "'minProperties'" in found["grid"] and "an empty schema" in found["grid"]


@pytest.mark.parametrize("kind", ["procedures", "tools", "grid"])
def test_strict_plans_grade_as_the_plain_plan(kind):
    p = project()
    for name in names(kind):
        plain = grade(p, name, plain_plan(name))
        assert plain.valid, (name, plain.to_text())
        assert same_grade(grade(p, name, strict_text(name)), plain), name


@pytest.mark.parametrize("kind", ["procedures", "tools", "grid"])
def test_strict_plans_are_accepted_by_the_grammar(engine, kind):
    for name in names(kind):
        text = strict_text(name)
        assert engine.accepts(strict(name).schema, text), (engine.name, name, text[:300])


def test_the_bundled_recipe_plans_in_the_strict_form():
    """Split steps with durations and agents (valid.json) and a faulty plan (faulty.json less its hallucinated
    steps, which the strict schema cannot express): same verdict, metrics and errors."""
    p = project()
    for f in ("valid", "faulty"):
        plan = json.loads((DOMAINS / "recipes" / "plans" / f"{f}.json").read_text())
        problem = procedure_problem(p.part(plan["scenario"]), p.scenario(plan["scenario"]))
        plan["schedule"] = [e for e in plan["schedule"] if problem.step(e["task"], e["step"]) is not None]
        assert grade(p, plan["scenario"], plan).valid is (f == "valid")
        text = strict_text(plan["scenario"], plan)
        entries = json.loads(text)["schedule"]
        assert all(list(e) == ["task", "step", "start", "duration", "agent"] for e in entries)
        assert len(entries) == len(plan["schedule"])
        assert same_grade(grade(p, plan["scenario"], text), grade(p, plan["scenario"], plan)), f


def _mutants(value: dict, schema: dict) -> dict:
    """One malformed copy of a strict plan per kind of defect (each checked to break the schema)."""
    out = {}
    m = copy.deepcopy(value)
    del m["scenario"]
    out["missing root field"] = m
    m = copy.deepcopy(value)
    item = _first_item(m)
    del item[list(item)[-1]]
    out["missing item field"] = m
    m = copy.deepcopy(value)
    _first_item(m)["note"] = "x"
    out["extra item field"] = m
    m = copy.deepcopy(value)
    m["reasoning"] = "x"
    out["extra root field"] = m
    m = copy.deepcopy(value)
    item = _first_item(m)
    key = next((k for k, v in item.items() if isinstance(v, (int, float, list)) and not isinstance(v, bool)), None)
    if key is not None:
        item[key] = "12"
    else:
        key = next(k for k, v in item.items() if isinstance(v, str))
        item[key] = 12
    out[f"wrong type ({key})"] = m
    m = copy.deepcopy(value)
    item = _first_item(m)
    key = next(k for k in ("task", "tool", "action") if k in item)
    item[key] += "_unknown"
    out[f"unknown enum value ({key})"] = m
    m = copy.deepcopy(value)
    m["scenario"] = "no_such_scenario"
    out["unknown scenario"] = m
    validator = Draft202012Validator(schema)
    for what, bad in out.items():
        assert not validator.is_valid(bad), what
    return out


def _first_item(value: dict) -> dict:
    """The first step / action / tool call of a strict plan (the first non-empty agent list for kitchens)."""
    if "schedule" in value:
        return value["schedule"][0]
    if "steps" in value:
        return value["steps"][0]
    return next(v for v in value["plan"].values() if v)[0]


@pytest.mark.parametrize("kind", ["procedures", "tools", "grid"])
def test_malformed_plans_are_rejected_by_the_grammar(engine, kind):
    for name in names(kind)[::3]:
        schema = strict(name).schema
        for what, bad in _mutants(json.loads(strict_text(name)), schema).items():
            assert not engine.accepts(schema, json.dumps(bad)), (engine.name, name, what)


def test_llguidance_refuses_the_plain_tool_schema():
    """The engine really checks keywords: the plain tool schema's uniqueItems is refused, its strict form is not."""
    eng = LLGuidance()
    name = names("tools")[0]
    grammar = eng.llg.LLMatcher.grammar_from_json_schema(schema_for(project(), name))
    is_error, messages = eng.llg.LLMatcher.validate_grammar_with_warnings(grammar, eng.tok)
    assert is_error and "uniqueItems" in " ".join(messages)
    eng.compile(strict(name).schema)


def test_llguidance_checks_bounds_outlines_core_leaves_to_the_validator():
    """A negative start breaks the schema's minimum: llguidance refuses it; outlines-core's regex does not
    encode numeric bounds (the grader reports the start, as for any plan)."""
    eng = LLGuidance()
    name = "Roast-Chicken_Garlic-Potatoes"
    bad = json.loads(strict_text(name))
    bad["schedule"][0]["start"] = -5
    assert not eng.accepts(strict(name).schema, json.dumps(bad))
    assert not grade(project(), name, bad).valid


def test_agent_is_nullable_only_with_one_agent():
    for name in ("Roast-Chicken_Garlic-Potatoes", "Roast-Chicken_two_cooks"):
        agents = procedure_problem(project().part(name), project().scenario(name)).agents
        for branch in strict(name).schema["properties"]["schedule"]["items"]["anyOf"]:
            agent = branch["properties"]["agent"]
            if len(agents) == 1:
                assert agent["anyOf"] == [{"type": "string", "enum": list(agents)}, {"type": "null"}]
            else:
                assert agent == {"type": "string", "enum": list(agents), "description": "the agent doing the action"}


# ---------------------------------------------------------------- null and absent fields read alike
def test_null_optional_fields_read_as_absent():
    p = project()
    name = "Roast-Chicken_Garlic-Potatoes"
    plan = plain_plan(name)
    nulls = {"schedule": [{**e, "duration": None, "agent": None} for e in plan["schedule"]]}
    assert same_grade(grade(p, name, nulls), grade(p, name, plan))
    wrong = {"schedule": [{**e, "duration": "long"} for e in plan["schedule"]]}
    assert {e.code for e in grade(p, name, wrong).errors} >= {"E010"}


def test_tool_nulls_read_as_absent():
    p = project()
    null_args = 0
    for name in names("tools"):
        plan = plain_plan(name)
        nulls = json.loads(strict_text(name))
        null_args += sum(v is None for st in nulls["steps"] for v in st["args"].values())
        assert all(st["after"] is not None and st["description"] is None for st in nulls["steps"])
        assert same_grade(grade(p, name, nulls), grade(p, name, plan)), name
        no_ids = {"steps": [{**st, "id": None} for st in nulls["steps"]]}
        without = {"steps": [{k: v for k, v in st.items() if k != "id"} for st in plan["steps"]]}
        assert same_grade(grade(p, name, no_ids), grade(p, name, without)), name
    assert null_args > 0          # optional parameters left out of the reference plans are null


def test_an_idle_kitchen_agent_reads_as_an_absent_one():
    p = project()
    for name in [n for n in names("grid") if len(p.scenario(n).agents) > 1][:6]:
        plan = plain_plan(name)["plan"]
        idle = next(iter(plan))
        plain = {"plan": {a: v for a, v in plan.items() if a != idle}}
        text = json.dumps(strict_form(strict(name).schema, plain))
        assert json.loads(text)["plan"][idle] == []
        assert same_grade(grade(p, name, text), grade(p, name, plain)), name


def test_strict_form_refuses_a_plan_that_does_not_fit():
    name = names("tools")[0]
    with pytest.raises(NotInForm):
        strict_form(strict(name).schema, {"steps": [{"tool": "noSuchTool", "args": {}}]})
    with pytest.raises(NotInForm):
        strict_form(strict("burger_s1_a2").schema, {"plan": {"agent1": [{"action": "Fly"}]}})


# ---------------------------------------------------------------- the walker catches each forbidden construct
def _root(**props) -> dict:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


OK = _root(a={"type": "string"}, b={"type": ["integer", "null"], "minimum": 0},
           c={"anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]},
           d={"type": "array", "minItems": 1, "maxItems": 3, "items": {"$ref": "#/$defs/e"}})
OK["$defs"] = {"e": _root(f={"type": "string", "pattern": "^[a-z]+$", "format": "email"})}


def _with(prop: dict) -> dict:
    return _root(a={"type": "string"}, x=prop)


FORBIDDEN = {
    "oneOf": (_with({"oneOf": [{"type": "string"}, {"type": "integer"}]}), "'oneOf'"),
    "allOf": (_with({"allOf": [{"type": "string"}]}), "'allOf'"),
    "not": (_with({"type": "string", "not": {"enum": ["a"]}}), "'not'"),
    "if/then/else": (_with({"type": "string", "if": {"enum": ["a"]}, "then": {"enum": ["a"]},
                            "else": {"enum": ["b"]}}), "'if'"),
    "uniqueItems": (_with({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}), "'uniqueItems'"),
    "minProperties": (_with({**_root(y={"type": "string"}), "minProperties": 1}), "'minProperties'"),
    "maxProperties": (_with({**_root(y={"type": "string"}), "maxProperties": 1}), "'maxProperties'"),
    "prefixItems": (_with({"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "integer"}}),
                    "'prefixItems'"),
    "patternProperties": (_with({**_root(y={"type": "string"}), "patternProperties": {"^z": {"type": "string"}}}),
                          "'patternProperties'"),
    "const": (_with({"const": "a"}), "'const'"),
    "default": (_with({"type": "string", "default": "a"}), "'default'"),
    "minLength": (_with({"type": "string", "minLength": 1}), "'minLength'"),
    "empty schema": (_with({}), "an empty schema"),
    "description-only schema": (_with({"description": "anything"}), "an empty schema"),
    "untyped schema": (_with({"minimum": 0}), "without type"),
    "boolean items": (_with({"type": "array", "items": False}), "a boolean schema"),
    "array without items": (_with({"type": "array"}), "without an items schema"),
    "non-object root": ({"type": "array", "items": {"type": "string"}}, "the root's type"),
    "anyOf root": ({"anyOf": [_root(a={"type": "string"}), _root(b={"type": "string"})]}, "anyOf at the root"),
    "no additionalProperties": ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                "additionalProperties is not false"),
    "additionalProperties true": ({**_root(a={"type": "string"}), "additionalProperties": True},
                                  "additionalProperties is not false"),
    "additionalProperties schema": ({**_root(a={"type": "string"}), "additionalProperties": {"type": "string"}},
                                    "additionalProperties is not false"),
    "optional property": ({**_root(a={"type": "string"}, b={"type": "string"}), "required": ["a"]},
                          "properties not in required: b"),
    "nested optional property": (_with({**_root(y={"type": "string"}), "required": []}),
                                 "properties not in required: y"),
    "object without properties": (_with({"type": "object", "additionalProperties": False}),
                                  "an object without properties"),
    "two types": (_with({"type": ["string", "integer"]}), "only a type or"),
    "dangling $ref": (_with({"$ref": "#/$defs/missing"}), "does not name an entry"),
    "remote $ref": (_with({"$ref": "https://example.org/s.json"}), "does not name an entry"),
    "unsupported format": (_with({"type": "string", "format": "iata"}), "format 'iata'"),
    "forbidden keyword inside $defs": ({**_with({"$ref": "#/$defs/d"}),
                                        "$defs": {"d": {"oneOf": [{"type": "string"}]}}},
                                       "#/$defs/d: keyword 'oneOf'"),
    "forbidden keyword in an unused $defs entry": ({**_with({"type": "string"}),
                                                    "$defs": {"u": {"type": "string", "minLength": 2}}},
                                                   "#/$defs/u: keyword 'minLength'"),
    "forbidden keyword inside anyOf": (_with({"anyOf": [{"type": "string", "uniqueItems": True}, {"type": "null"}]}),
                                       "anyOf/0: keyword 'uniqueItems'"),
}


def test_the_walker_accepts_a_strict_schema():
    assert violations(OK) == []


@pytest.mark.parametrize("what", sorted(FORBIDDEN))
def test_the_walker_catches(what):
    schema, expected = FORBIDDEN[what]
    found = violations(schema)
    assert any(expected in v for v in found), (what, found)


def test_the_walker_enforces_the_size_limits():
    deep: dict = {"type": "string"}
    for _ in range(MAX_DEPTH + 1):
        deep = _root(x=deep)
    assert any("nested" in v for v in violations(deep))
    assert violations(deep["properties"]["x"]) == []           # MAX_DEPTH levels are allowed
    many = _root(x={"type": "integer", "enum": list(range(MAX_ENUM_VALUES + 1))})
    assert any("enum values" in v for v in violations(many))


# ---------------------------------------------------------------- CLI and docs
def test_cli_strict_flag(capsys):
    name = names("tools")[0]
    assert main(["schema", str(DOMAINS / "tools"), "--scenario", name, "--strict", "--compact"]) == 0
    assert json.loads(capsys.readouterr().out) == strict(name).schema
    assert main(["schema", str(DOMAINS / "tools"), "--scenario", "nope", "--strict"]) == 2
    capsys.readouterr()


def test_several_scenarios_name_the_option(capsys):
    """Issue 28 item 20: with several scenarios the error listed them but not the option that picks one."""
    for strict_flag in (["--strict"], []):
        assert main(["schema", str(DOMAINS / "tools"), *strict_flag]) == 2
        err = capsys.readouterr().err
        assert "name one of" in err and "--scenario" in err and err.count("\n") == 1


def test_docs_list_the_moved_constraints():
    from chronoplan.validators.kitchen import schema as paracook_schema
    from chronoplan.validators.tools import schema as tools_schema
    text = " ".join(DOCS.read_text().split())
    for moved in tools_schema.STRICT_MOVED + paracook_schema.STRICT_MOVED:
        assert moved.split(" (")[0] in text, moved
    assert "--strict" in (ROOT / "README.md").read_text() and "docs/schemas.md" in (ROOT / "README.md").read_text()
