"""Fuzzing `chronoplan import planningarena` (issue 28 item 7): hostile task records and profiles in the released
layout (a GroundTruth string holding a header and one element per step) never crash the importer: it either
refuses the input with ``ImportFormatError`` (exit 2, a located message) or writes files that compile without
errors.  Budget as tests/test_fuzz.py: derandomized examples in CI, ``CHRONOPLAN_FUZZ_EXAMPLES`` for a long run.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chronoplan
from chronoplan.compiler.importers import ImportFormatError
from chronoplan.validators.tools.importer import convert

LONG = int(os.environ.get("CHRONOPLAN_FUZZ_EXAMPLES", "0") or 0)
FUZZ = settings(max_examples=max(1, LONG // 20) if LONG else 40, derandomize=not LONG, deadline=None,
                database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CATALOGUE = {
    "dag_tools": {
        "queryFlights": {"requiredParams": {"departureDate ": {"type": "datetime"}, "origin": {"type": "str"}},
                         "optionalParams": {"cabinClass": {"type": "Enum", "enum": ["economy", "business"]},
                                            "seats": {"type": "int"}, "price": {"type": "float"},
                                            "day": {"type": "Date (yyyy-mm-dd)"}, "at": {"type": "time"},
                                            "tags": {"type": "list"}, "extra": {"type": "object"}}},
    },
    "health_tools": {"PositivityTips": {}, "1688DataHub": {"q": {"type": "String", "required": True}}},
}
TOOLS = ["queryFlights", "PositivityTips", "1688DataHub", "noSuchTool", "", "queryFlights.x"]
KEYS = ["departureDate", "departureDate ", "origin", "cabinClass", "seats", "price", "day", "at", "tags",
        "extra", "q", "colour"]
WEIRD_TEXT = st.sampled_from(["\u00b2", "\u0663", "1e400", "9" * 5000, "2024-02-30", "2024-12-13",
                              "2024-12-13T08:00", "25:99", "<output of step 1>", "$1.x", "{step2.y}",
                              "\x00\n\r\"\\", "\u2028", "economy", "x" * 3000, "-0", "NaN"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 30, max_value=10 ** 30),
                    st.floats(allow_nan=False, allow_infinity=False), WEIRD_TEXT, st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=12)


def _literal(v) -> str:
    """Python-literal text of a JSON value, as the released Actions write their arguments."""
    return repr(v) if not isinstance(v, (dict, list)) else json.dumps(v)


@st.composite
def actions(draw) -> str:
    tool = draw(st.sampled_from(TOOLS))
    args = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4))
    text = tool + "({" + ", ".join(f"{k!r}: {_literal(v)}" for k, v in args.items()) + "})"
    return draw(st.sampled_from([text, text[: max(1, len(text) // 2)], text + ")"])) if draw(st.booleans()) \
        else text


@st.composite
def elements(draw, total) -> dict:
    step = {"StepNumber": draw(st.one_of(st.integers(-2, 6), WEIRD_TEXT, VALUES)),
            "Description": "d", "Action": draw(st.one_of(actions(), VALUES)),
            "Results": draw(st.one_of(st.text(max_size=20), VALUES))}
    return {"GlobalThought": "g", "OrderSteps": {"TotalSteps": total, "StepDetail": step}}


@st.composite
def tasks(draw) -> list:
    out = []
    for i in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 4))
        total = draw(st.one_of(st.just(n), VALUES))
        gt = [{"MessageNumber": str(i), "Query": draw(st.one_of(st.just('"q"'), VALUES))}]
        gt += [draw(elements(total)) for _ in range(n)]
        if draw(st.booleans()):
            gt = draw(st.one_of(VALUES, st.just(gt[:1])))
        text = json.dumps(gt)
        out.append({"Operational Scenario": draw(st.sampled_from(["API", "API", "APP", None])),
                    "Task ID": draw(st.one_of(st.sampled_from([1, 1, "1", "a b", "9" * 400]), VALUES)),
                    "Query-en": draw(st.one_of(st.just("q"), VALUES)),
                    "User_ID": draw(st.one_of(st.sampled_from(["User1", "User2", "User" + "7" * 5000]), VALUES)),
                    "GroundTruth": draw(st.sampled_from([text, text[: len(text) // 2], text]))})
    return out


PROFILES = st.dictionaries(st.sampled_from(["name", "today", "home", "phone ", "1x", "a-b", "list"]), VALUES,
                           max_size=5)


def _deep(levels: int) -> str:
    return '{"k": ' * levels + '{"v": 1}' + "}" * levels


@FUZZ
@given(tasks(), PROFILES, st.sampled_from([0, 0, 5, 19, 25, 985]))
def test_import_never_crashes_and_its_output_compiles(records, profile, depth):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "tool_list.json").write_text(json.dumps(CATALOGUE))
        (root / "data.json").write_text(json.dumps(records))
        (root / "users").mkdir()
        (root / "users" / "user_1.json").write_text(json.dumps(profile))
        (root / "users" / "user_2.json").write_text(_deep(depth) if depth else json.dumps(profile))
        try:
            files = convert([root / "tool_list.json"], tasks=str(root / "data.json"), profiles=str(root / "users"))
        except ImportFormatError as exc:
            assert str(exc).startswith(str(root)), str(exc)          # located: it names the file
            return
        out = root / "out"
        out.mkdir()
        for name, text in files.items():
            (out / name).write_text(text, encoding="utf-8")
        project, diagnostics, _ = chronoplan.compile_paths(out)
        errors = [dg for dg in diagnostics if dg.severity == chronoplan.Severity.ERROR]
        assert project is not None and not errors, (errors[:3], files.get("tasks.chrono", "")[:2000])
