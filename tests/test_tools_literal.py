"""The safe Python-literal call parser (validators/tools/literal.py) and reference forms (validators/tools/refs.py)."""
import ast
import builtins
import inspect
from fractions import Fraction

import pytest

from chronoplan.validators.tools import literal as tools_literal
from chronoplan.validators.tools import read as tools_read
from chronoplan.validators.tools import refs as tools_refs
from chronoplan.validators.tools.literal import LiteralError, ToolCall, parse_call, parse_literal
from chronoplan.validators.tools.refs import StepRef, as_ref, find_refs, refs_in


@pytest.fixture(autouse=True)
def no_eval(monkeypatch):
    """The parser must never evaluate text."""
    def boom(*a, **k):
        raise AssertionError("eval-like function called")
    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    monkeypatch.setattr(ast, "literal_eval", boom)


def test_source_has_no_eval():
    for mod in (tools_literal, tools_read, tools_refs):
        src = inspect.getsource(mod)
        assert "eval(" not in src.replace("never evaluated", "") and "import ast" not in src and "exec(" not in src


@pytest.mark.parametrize("text, value", [
    ("{'a': 1, 'b': [1, 2, (3, 4)], 'c': None, 'd': True, 'e': false}",
     {"a": 1, "b": [1, 2, [3, 4]], "c": None, "d": True, "e": False}),
    ("-2.50", Fraction(-5, 2)), ("1e3", Fraction(1000)), ("0.1", Fraction(1, 10)), ("007", 7), ("+4", 4),
    ("'it\\'s'", "it's"), ('"tab\\there"', "tab\there"), ("'caf\\u00e9'", "café"), ("'\\x41'", "A"),
    ("u'old'", "old"), ("r'a\\nb'", "a\\nb"), ("'a' \"b\" 'c'", "abc"), ("'''multi\nline'''", "multi\nline"),
    ("[]", []), ("{}", {}), ("[1, 2,]", [1, 2]), ("{1: 'x'}", {1: "x"}), ("'unknown \\q escape'", "unknown \\q escape"),
])
def test_literals(text, value):
    assert parse_literal(text) == value


@pytest.mark.parametrize("text, call", [
    ("searchFlights({'origin': 'PEK', 'date': '2025-03-21'})",
     ToolCall("searchFlights", ({"origin": "PEK", "date": "2025-03-21"},), ())),
    ("queryWeather(city='Paris', unit=\"C\")", ToolCall("queryWeather", (), (("city", "Paris"), ("unit", "C")))),
    ("weather.queryWeather('Paris', '2025-03-21')", ToolCall("weather.queryWeather", ("Paris", "2025-03-21"), ())),
    ("ping", ToolCall("ping", (), ())), ("  ping( )  ", ToolCall("ping", (), ())),
    ("f(x == 1)", None),
])
def test_calls(text, call):
    if call is None:
        with pytest.raises(LiteralError):
            parse_call(text)
    else:
        assert parse_call(text) == call


@pytest.mark.parametrize("text", [
    "__import__('os').system('x')",
    "Tool({'a': __import__('os').system('rm -rf /')})",
    "Tool({'a': eval('1+1')})",
    "Tool({'a': 1 + 1})",
    "Tool({'a': [x for x in range(10)]})",
    "Tool({'a': lambda: 0})",
    "Tool({'a': open('/etc/passwd').read()})",
    "Tool(**{'a': 1})",
    "Tool({'a': f'{1}'})",
    "Tool({'a': b'bytes'})",
    "Tool({'a': 1})); import os",
    "Tool({'a': 1}) or os.system('x')",
    "Tool({'a': 'unterminated})",
    "Tool({'a': 'line\nbreak'})",
    "Tool({'a': 1e999999999})",
    "Tool({'a': 1" + "0" * 500 + "})",
    "Tool({'a': nan})", "Tool({'a': inf})", "Tool({[1]: 2})", "Tool(a=1, a=2)", "Tool(a=1, 2)",
    "Tool({'a': '\\u12'})", "Tool({'a': '\\UFFFFFFFF'})", "Tool({'a': 1.2.3})", "", "(1)", "123", "Tool(",
])
def test_hostile_or_bad_text_is_rejected(text):
    with pytest.raises(LiteralError) as info:
        parse_call(text)
    assert 0 <= info.value.pos <= len(text) + 1 and info.value.message


def test_limits():
    deep = "T(" + "[" * (tools_literal.MAX_DEPTH + 5) + "]" * (tools_literal.MAX_DEPTH + 5) + ")"
    with pytest.raises(LiteralError, match="nesting"):
        parse_call(deep)
    ok = "T(" + "[" * 10 + "]" * 10 + ")"
    assert parse_call(ok).name == "T"
    wide = "T([" + ", ".join(["1"] * (tools_literal.MAX_ITEMS + 1)) + "])"
    with pytest.raises(LiteralError, match="values"):
        parse_call(wide)
    with pytest.raises(LiteralError, match="longer"):
        parse_call("T('" + "x" * tools_literal.MAX_TEXT + "')")
    with pytest.raises(LiteralError):
        parse_call(None)
    very_deep = "T(" + "{'a': " * 100_000 + "1" + "}" * 100_000 + ")"
    with pytest.raises(LiteralError):
        parse_call(very_deep)


@pytest.mark.parametrize("text, ref", [
    ("$1.flight_id", StepRef(1, "flight_id")), ("${2.hotel_id}", StepRef(2, "hotel_id")), ("${3}", StepRef(3)),
    ("$step4", StepRef(4)), ("$step_4.price", StepRef(4, "price")), ("{step1.flight_id}", StepRef(1, "flight_id")),
    ("{step_2.x}", StepRef(2, "x")), ("{{step3.address}}", StepRef(3, "address")), ("{5.code}", StepRef(5, "code")),
    ("{step6}", StepRef(6)), ("<output of step 1>", StepRef(1)), ("<the result of step 2: price>", StepRef(2, "price")),
    ("<flight_id from step 7>", StepRef(7, "flight_id")), ("<step 8 output>", StepRef(8)),
    ("<step 9.total>", StepRef(9, "total")), ("<Output of Step 10>", StepRef(10)),
    ("  $1.flight_id  ", StepRef(1, "flight_id")),
])
def test_reference_forms(text, ref):
    assert as_ref(text) == ref


@pytest.mark.parametrize("text", ["costs $100", "$100", "a {b} c", "<b>bold</b>", "step 1", "$.x", "{}", "1.5"])
def test_not_references(text):
    assert as_ref(text) is None and find_refs(text) == []


def test_embedded_references():
    text = "Hotels near {{step_3.address}} for ${2} guests, see <output of step 1>"
    assert [r for _, _, r in find_refs(text)] == [StepRef(3, "address"), StepRef(2), StepRef(1)]
    assert as_ref(text) is None
    assert refs_in({"a": [text, StepRef(4)], "b": ("$5.x",)}) == [StepRef(3, "address"), StepRef(2), StepRef(1),
                                                                   StepRef(4), StepRef(5, "x")]
    assert str(StepRef(1, "f")) == "$1.f" and str(StepRef(2)) == "$2"
