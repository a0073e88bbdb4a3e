"""Strict plan schemas for LLM structured output (OpenAI-style strict mode, grammar engines).

Input: an ``ir.Project`` and a scenario name (``strict_schema_for``), or any JSON Schema (``violations``).
Output: ``StrictSchema`` -- the schema of the scenario's plans inside the strict subset, plus the constraints
of the plain schema (``schema.schema_for``) that the subset cannot express and that ``chronoplan validate``
checks instead (also listed in the schema's top-level description) -- and, for any schema, the list of its
departures from the subset.

The strict subset (docs/schemas.md): the root is an object schema (no ``anyOf`` at the root); every object
schema lists its properties, all of them in ``required``, with ``additionalProperties: false`` (an optional
field is nullable: ``"type": ["T", "null"]`` or ``anyOf`` with ``{"type": "null"}``); keywords come from
``ALLOWED`` only (no ``oneOf``, ``allOf``, ``not``, ``if``/``then``/``else``, ``uniqueItems``,
``minProperties``/``maxProperties``, ``prefixItems``, ``patternProperties``, ``default``; no ``const``, which
OpenAI does not document: a one-value ``enum`` says the same); no empty or boolean schemas; ``$ref`` only to
``#/$defs/...``; ``format`` one of ``FORMATS``; OpenAI's size limits (``MAX_DEPTH`` levels of object nesting,
``MAX_PROPERTIES`` properties, ``MAX_ENUM_VALUES`` enum values).  ``strict_form`` writes a plain plan in the
strict form.

Plans written under a strict schema grade as the plain plans they stand for: a null optional field reads
as the absent field, the kitchen plan is the ``{"plan": {...}}`` form that the reader always accepted, and an
idle kitchen agent's empty list is the absent list.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.validators.families import family_of

ALLOWED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "$ref", "$defs",
    "description", "title", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems",
})
ANNOTATIONS = frozenset({"description", "title", "$defs"})
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
MAX_DEPTH = 10                # levels of object nesting
MAX_PROPERTIES = 5000         # object properties in the whole schema
MAX_ENUM_VALUES = 1000        # enum values in the whole schema
NULL = {"type": "null"}


@dataclass(frozen=True)
class StrictSchema:
    """A scenario's strict plan schema and the plain schema's constraints that only the validator checks."""

    schema: dict
    moved: tuple[str, ...]


def nullable(schema: dict) -> dict:
    """``schema`` or null: a single ``type`` becomes ``[type, "null"]``; anything else an ``anyOf`` with null."""
    t = schema.get("type")
    if isinstance(t, str) and t != "null" and not {"enum", "anyOf", "$ref"} & set(schema):
        return {**schema, "type": [t, "null"]}
    if set(schema) == {"anyOf"}:
        return {"anyOf": schema["anyOf"] + ([NULL] if NULL not in schema["anyOf"] else [])}
    note = {k: schema[k] for k in ("description", "title") if k in schema}
    inner = {k: v for k, v in schema.items() if k not in note}
    return {"anyOf": [inner, NULL], **note}


def one_of_values(values: list, description: Optional[str] = None) -> dict:
    """A typed ``enum`` of ``values`` (strings, integers, numbers, booleans); mixed types become an ``anyOf``
    of one typed enum per type, as the strict subset wants each enum to have a type."""
    by_type: dict = {}
    for v in values:
        by_type.setdefault(_json_type(v), []).append(v)
    parts = [{"type": t, "enum": vs} for t, vs in by_type.items()]
    out = parts[0] if len(parts) == 1 else {"anyOf": parts}
    return {**out, "description": description} if description else out


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    return "string"


def obj(properties: dict, **extra: Any) -> dict:
    """A strict object schema: every property required, no others."""
    return {"type": "object", **extra, "properties": properties, "required": list(properties),
            "additionalProperties": False}


def with_description(schema: dict, title: str, summary: str, moved: tuple[str, ...]) -> dict:
    """``schema`` with a title and a top-level description: ``summary``, then the plain schema's constraints
    left to the validator (``moved``) or the statement that none is."""
    text = summary.rstrip()
    if moved:
        text += (" Where this strict form differs from the plain schema (`chronoplan validate` checks what it "
                 "cannot state): " + "; ".join(moved) + ".")
    else:
        text += " This strict form states every constraint of the plain schema."
    return {"title": title, "description": text, **schema}


# ------------------------------------------------------------------------------------ plain plan -> strict form
class NotInForm(ValueError):
    """The plan does not fit the strict schema (even after filling its absent fields)."""


def strict_form(schema: dict, plan: Any) -> Any:
    """A plain plan value -> the same plan as a strict schema's output: keys in the schema's order, an absent
    nullable field null, an absent list empty, an absent one-value enum field its value (the scenario key).
    Raises ``NotInForm`` when the plan does not fit.  The kitchen's bare agents object is wrapped by the caller
    (``{"plan": agents}``)."""
    from jsonschema import Draft202012Validator

    defs = schema.get("$defs", {})
    out = _fill(schema, plan, defs)
    root = {**schema, "$defs": defs}
    errors = list(Draft202012Validator(root).iter_errors(out))
    if errors:
        raise NotInForm(f"{'/'.join(map(str, errors[0].absolute_path)) or '$'}: {errors[0].message[:200]}")
    return out


def _fill(node: dict, value: Any, defs: dict) -> Any:
    from jsonschema import Draft202012Validator

    while "$ref" in node:
        node = defs[node["$ref"][len("#/$defs/"):]]
    if "anyOf" in node:
        for branch in node["anyOf"]:
            try:
                got = _fill(branch, value, defs)
            except (NotInForm, KeyError, TypeError, AttributeError):
                continue
            if Draft202012Validator({**branch, "$defs": defs}).is_valid(got):
                return got
        raise NotInForm(f"no branch fits {str(value)[:80]}")
    if isinstance(value, dict) and isinstance(node.get("properties"), dict):
        props = node["properties"]
        if set(value) - set(props):
            raise NotInForm(f"unknown keys {sorted(set(value) - set(props))}")
        return {k: _fill(sub, value[k], defs) if k in value else _absent(sub, defs) for k, sub in props.items()}
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_fill(node["items"], x, defs) for x in value]
    return value


def _absent(node: dict, defs: dict) -> Any:
    """The strict value of an absent field: null, [] or the one allowed value."""
    while "$ref" in node:
        node = defs[node["$ref"][len("#/$defs/"):]]
    if _has_type(node, "null") or NULL in node.get("anyOf", ()):
        return None
    if node.get("type") == "array":
        return []
    if isinstance(node.get("enum"), list) and len(node["enum"]) == 1:
        return node["enum"][0]
    raise NotInForm("a required field is absent")


# ------------------------------------------------------------------------------------ the subset rules
def violations(schema: Any) -> list[str]:
    """Every departure of ``schema`` from the strict subset, as ``"<JSON pointer>: <what>"`` (empty: strict)."""
    out: list[str] = []
    if not isinstance(schema, dict):
        return ["#: the root is not an object schema"]
    if schema.get("type") != "object":
        out.append("#: the root's type is not \"object\"")
    if "anyOf" in schema:
        out.append("#: anyOf at the root")
    defs = schema.get("$defs", {})
    counts = {"properties": 0, "enum": 0}
    seen: set = set()
    walks = [_nodes(schema, "#", 1, defs, seen)]
    walks += [_nodes({"$ref": f"#/$defs/{name}"}, f"#/$defs/{name}", 1, defs, seen) for name in defs]
    for walk in walks:                      # unreferenced $defs entries are checked too
        for path, node, depth in walk:
            if isinstance(node, dict) and node.keys() == {"$ref"} and path == node["$ref"]:
                continue                    # the walk's own entry point
            out.extend(_node_violations(path, node, depth, defs, counts))
    if counts["properties"] > MAX_PROPERTIES:
        out.append(f"#: {counts['properties']} object properties (at most {MAX_PROPERTIES})")
    if counts["enum"] > MAX_ENUM_VALUES:
        out.append(f"#: {counts['enum']} enum values (at most {MAX_ENUM_VALUES})")
    return out


def _nodes(node: Any, path: str, depth: int, defs: dict, seen: set) -> Iterator[tuple[str, Any, int]]:
    """Every subschema with its path and object-nesting depth (a ``$ref`` is followed once per target)."""
    yield path, node, depth
    if not isinstance(node, dict):
        return
    inner = depth + (1 if node.get("type") == "object" or _has_type(node, "object") else 0)
    for key, sub in (node.get("properties") or {}).items() if isinstance(node.get("properties"), dict) else ():
        yield from _nodes(sub, f"{path}/properties/{key}", inner, defs, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict) or (key == "items" and key in node):
            yield from _nodes(node[key], f"{path}/{key}", depth, defs, seen)
    for i, sub in enumerate(node.get("anyOf") or ()) if isinstance(node.get("anyOf"), list) else ():
        yield from _nodes(sub, f"{path}/anyOf/{i}", depth, defs, seen)
    for key in sorted(set(node) & _SUBSCHEMA_LISTS):          # forbidden, but their contents are walked too
        for i, sub in enumerate(node[key]) if isinstance(node[key], list) else ():
            yield from _nodes(sub, f"{path}/{key}/{i}", depth, defs, seen)
    for key in sorted(set(node) & _SUBSCHEMA_ONES):
        if isinstance(node[key], (dict, bool)):
            yield from _nodes(node[key], f"{path}/{key}", depth, defs, seen)
    for key in sorted(set(node) & _SUBSCHEMA_MAPS):
        for name, sub in node[key].items() if isinstance(node[key], dict) else ():
            yield from _nodes(sub, f"{path}/{key}/{name}", depth, defs, seen)
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in seen:
        target = defs.get(ref[len("#/$defs/"):])
        if target is not None:
            seen.add(ref)
            yield from _nodes(target, ref, depth, defs, seen)


_SUBSCHEMA_LISTS = frozenset({"oneOf", "allOf", "prefixItems"})
_SUBSCHEMA_ONES = frozenset({"not", "if", "then", "else", "contains", "additionalItems", "unevaluatedItems",
                             "unevaluatedProperties", "propertyNames"})
_SUBSCHEMA_MAPS = frozenset({"patternProperties", "dependentSchemas", "definitions"})


def _has_type(node: dict, t: str) -> bool:
    ty = node.get("type")
    return ty == t or (isinstance(ty, list) and t in ty)


def _node_violations(path: str, node: Any, depth: int, defs: dict, counts: dict) -> list[str]:  # noqa: C901
    if isinstance(node, bool):
        return [f"{path}: a boolean schema ({str(node).lower()})"]
    if not isinstance(node, dict):
        return [f"{path}: not a schema"]
    out = [f"{path}: keyword {k!r} is outside the strict subset" for k in node if k not in ALLOWED]
    if path != "#" and "$defs" in node:
        out.append(f"{path}: $defs below the root")
    if not set(node) - ANNOTATIONS - {"default", "examples", "$comment", "$schema", "$id"}:
        out.append(f"{path}: an empty schema (it accepts anything)")
    elif not out and not {"type", "enum", "anyOf", "$ref"} & set(node):
        out.append(f"{path}: a schema without type, enum, anyOf or $ref")
    ty = node.get("type")
    if ty is not None:
        out.extend(_type_violations(path, ty))
    if "$ref" in node:
        ref = node["$ref"]
        if not (isinstance(ref, str) and ref.startswith("#/$defs/") and ref[len("#/$defs/"):] in defs):
            out.append(f"{path}: $ref {ref!r} does not name an entry of the root's $defs")
    if "anyOf" in node:
        if not isinstance(node["anyOf"], list) or not node["anyOf"]:
            out.append(f"{path}: anyOf is not a non-empty list")
    if "format" in node and node["format"] not in FORMATS:
        out.append(f"{path}: format {node['format']!r} is not supported")
    if "enum" in node:
        if not isinstance(node["enum"], list) or not node["enum"]:
            out.append(f"{path}: enum is not a non-empty list")
        else:
            counts["enum"] += len(node["enum"])
    if _has_type(node, "object") or "properties" in node:
        out.extend(_object_violations(path, node, depth))
    if _has_type(node, "array") and not isinstance(node.get("items"), dict):
        out.append(f"{path}: an array without an items schema")
    if "properties" in node and isinstance(node["properties"], dict):
        counts["properties"] += len(node["properties"])
    return out


def _type_violations(path: str, ty: Any) -> list[str]:
    if isinstance(ty, str):
        return [] if ty in TYPES else [f"{path}: unknown type {ty!r}"]
    if isinstance(ty, list) and len(ty) == 2 and "null" in ty and all(t in TYPES for t in ty) and ty[0] != ty[1]:
        return []
    return [f"{path}: type {ty!r} (only a type or [type, \"null\"])"]


def _object_violations(path: str, node: dict, depth: int) -> list[str]:
    out = []
    props = node.get("properties")
    if not isinstance(props, dict):
        return [f"{path}: an object without properties"]
    if node.get("additionalProperties") is not False:
        out.append(f"{path}: additionalProperties is not false")
    required = node.get("required")
    missing = [k for k in props if not isinstance(required, list) or k not in required]
    if missing:
        out.append(f"{path}: properties not in required: {', '.join(missing)}")
    extra = [k for k in (required or []) if k not in props]
    if extra:
        out.append(f"{path}: required names no property: {', '.join(map(str, extra))}")
    if depth > MAX_DEPTH:
        out.append(f"{path}: objects nested {depth} deep (at most {MAX_DEPTH})")
    return out


# ------------------------------------------------------------------------------------ dispatch
def strict_schema_for(project: ir.Project, scenario: Optional[str] = None) -> StrictSchema:
    """The strict plan schema of a scenario (its family's strict builder, ``validators.families``); raises
    ``KeyError`` for an unknown scenario, as ``schema.schema_for`` does."""
    scen = project.scenario(scenario)
    return family_of(scen).strict_schema(project, scen.name)
