"""Property tests: random and mutated domain text never crashes the compiler.

Input: hypothesis-generated text (random token soup, and bundled domains with characters or lines deleted,
duplicated, swapped or inserted).  Output: the compiler returns diagnostics (never an unhandled exception),
every diagnostic renders, and each compile finishes within the hypothesis deadline.
"""
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chronoplan.compiler.diagnostics import render
from chronoplan.compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [p.read_text() for p in sorted((ROOT / "domains").rglob("*.chrono"))[:12]]
CORPUS += [p.read_text() for p in sorted((ROOT / "tests" / "golden" / "diagnostics").glob("*.chrono"))]

TOKENS = ["procedure", "step", "after", "within", "of", "gap", "uses", "sets", "needs", "autonomous", "for",
          "interruptible", "resource", "capacity", "scenario", "procedures", "unit", "agents", "at", "map",
          "where", "const", "type", "attr", "relation", "action", "busy", "holds", "when", "start", "end",
          "all", "process", "while", "duration", "recipe", "in", "tool", "app", "apps", "reference", "query",
          "profile", "orders", "share", "limit", "import", "domain", "{", "}", "(", ")", "[", "]", ",", ":",
          "=", "==", "<", "<=", "+", "-", "*", "/", ".", "@", "$", "?", "->", "|", ";", "0", "1", "42", "3.5",
          "min", "s", "h", "tick", "a", "b", "oven", "P", '"x"', '"""\n..#\n"""', "2025-01-31", "09:30",
          "true", "false", "not", "and", "or", "\n", "#c\n", "1/0", "dist(a, b)"]

SETTINGS = dict(max_examples=150, deadline=timedelta(seconds=5),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def assert_compiles_to_diagnostics(text):
    project, diags, sources = compile_text(text, "fuzz.chrono")
    for d in diags:
        assert d.code and d.message
        render(d, sources)
    if project is None:
        assert any(d.is_error for d in diags)


@settings(**SETTINGS)
@given(st.lists(st.sampled_from(TOKENS), max_size=80).map(" ".join))
def test_token_soup(text):
    assert_compiles_to_diagnostics(text)


@settings(**SETTINGS)
@given(st.text(max_size=300))
def test_arbitrary_unicode(text):
    assert_compiles_to_diagnostics(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i, min(len(text), i + 40)))
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "swap_lines"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        else:
            lines = text.split("\n")
            a = draw(st.integers(0, len(lines) - 1))
            b = draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


@settings(**SETTINGS)
@given(mutated())
def test_mutated_domains(text):
    assert_compiles_to_diagnostics(text)


def test_deeply_nested_expression_is_a_diagnostic():
    text = "const A = " + "(1 + " * 3000 + "1" + ")" * 3000
    project, diags, _ = compile_text(text)
    assert {d.code for d in diags if d.is_error} in ({"C001"}, {"C109"})


def test_redundant_parentheses_are_fine():
    project, diags, _ = compile_text("const A = " + "(" * 3000 + "1" + ")" * 3000)
    assert project.constants["A"].expr == 1


def test_long_sum_is_handled():
    text = "const A = " + " + ".join(["1"] * 5000) + '\nprocedure P { step 0 "x" A }\nscenario s { procedures P }'
    project, diags, _ = compile_text(text)
    assert not [d for d in diags if d.is_error]
