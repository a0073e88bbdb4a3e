"""The code registry (chronoplan.compiler.codes) is the one home of every code, and the docs agree with it.

- docs/errors.md: the timed-plan table equals ``runtime.violations.CODES`` (code, category, title), the reading
  notes table the W001-W003 entries, and the generated "Every code" table equals the whole registry (code,
  severity, category, page) - so every registry code is documented there and every code listed there exists.
- Each family page lists exactly its codes: tools.md (T, with categories and titles), language.md (C/W501),
  pddl.md (P), benchmarks/paracook.md (tested in test_paracook_docs.py).
- Every code named anywhere in docs/ or as a string in the sources is in the registry, and every registry code is
  reported somewhere in the sources.
- No call site types a category: PlanError and its helpers take a code, never a category string.
- Compile and PDDL diagnostics are built with the registry's severity.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from chronoplan.compiler import codes as K
from chronoplan.compiler.codes import REGISTRY, Category, Scope, Severity, category_of, codes_in
from chronoplan.runtime.violations import CODES, PlanError
from chronoplan.validators.report import CATEGORIES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SOURCES = [p for d in ("grammar", "compiler", "runtime", "validators", "src/chronoplan")
           for p in (ROOT / d).rglob("*.py")]
CODE = re.compile(r"[CWPET]\d{3}")


def read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def test_errors_doc_matches_the_code_table():
    text = read("errors.md")
    rows = re.findall(r"^\| `(E\d{3})` \| `([a-z-]+)` \| (.+?) \|$", text, re.M)
    assert {c: (cat, title) for c, cat, title in rows} == CODES
    notes = re.findall(r"^\| `(W\d{3})` \| (.+?) \|$", text, re.M)
    assert dict(notes) == {c: v.title for c, v in codes_in(Scope.NOTES).items()}


def test_every_code_table_is_generated_from_the_registry():
    text = read("errors.md")
    assert K.with_index(text) == text, "regenerate it: python tools/gen_codes_doc.py"
    rows = re.findall(r"^\| ([CWPET]\d{3}) \| (error|warning) \| ([a-z-]+) \| [^|]+ \| \[[^]]+\]\(([^)]+)\) \|$",
                      text, re.M)
    assert {c: (sev, cat, doc) for c, sev, cat, doc in rows} == {
        c: (v.severity.value, v.category.value if v.category else "-", v.doc) for c, v in REGISTRY.items()}


def test_every_documentation_anchor_exists():
    for doc in {v.doc for v in REGISTRY.values()}:
        page, anchor = doc.split("#")
        headings = re.findall(r"^#+ (.+)$", read(page), re.M)
        slugs = {re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-") for h in headings}
        assert anchor in slugs, doc


def test_tools_doc_matches_the_registry():
    rows = re.findall(r"^\| ([TW]\d{3}) \| ([a-z-]+) \| (.+?) \|$", read("tools.md"), re.M)
    assert {c: (cat, title) for c, cat, title in rows} == {
        c: (v.category.value, v.title) for c, v in codes_in(Scope.TOOLS).items()}


def test_language_and_pddl_docs_list_exactly_their_codes():
    assert re.findall(r"^\| ([CW]\d{3}) \|", read("language.md"), re.M) == list(codes_in(Scope.COMPILE))
    assert re.findall(r"^\| (P\d{3}) \|", read("pddl.md"), re.M) == list(codes_in(Scope.PDDL))


def test_every_code_named_in_the_docs_exists():
    for page in DOCS.rglob("*.md"):
        if page.name == "complexity-baseline.md":          # ruff's C901, not a chronoplan code
            continue
        unknown = set(re.findall(r"\b([CWPET]\d{3})\b", page.read_text(encoding="utf-8"))) - set(REGISTRY)
        assert not unknown, (page, unknown)


def _literal_codes() -> dict:
    out: dict = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value):
                out.setdefault(node.value, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_sources_use_registered_codes_only_and_every_code_is_used():
    used = _literal_codes()
    assert {c: p for c, p in used.items() if c not in REGISTRY and p != {"compiler/codes.py"}} == {}
    unused = [c for c in REGISTRY if not used.get(c, set()) - {"compiler/codes.py"}]
    assert unused == [], "codes no source reports: remove them from compiler/codes.py (and the docs)"


def test_no_call_site_types_a_category():
    """The category is derived from the code: a category name given to PlanError or a helper is a mistake."""
    names = {c.value for c in Category}
    found = []
    for path in SOURCES:
        if path.name == "codes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value in names for a in node.args) \
                    and any(isinstance(a, ast.Constant) and isinstance(a.value, str) and CODE.fullmatch(a.value)
                            for a in node.args):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_diagnostics_use_the_registry_severity():
    """error(...)/warning(...)/Diagnostic(code, Severity.X, ...) with a literal code agree with the registry."""
    helper = {"error": Severity.ERROR, "err": Severity.ERROR, "warning": Severity.WARNING, "warn": Severity.WARNING}
    checked = 0
    for path in (ROOT / "compiler").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and re.fullmatch(r"[CWP]\d{3}", node.args[0].value)):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            sev = helper.get(name)
            if name == "Diagnostic" and len(node.args) > 1 and isinstance(node.args[1], ast.Attribute):
                sev = Severity[node.args[1].attr]
            if sev is not None:
                checked += 1
                assert REGISTRY[node.args[0].value].severity is sev, f"{path.relative_to(ROOT)}:{node.lineno}"
    assert checked > 50


def test_codes_are_well_formed():
    block = {"syntax": "0", "schema": "0", "unknown-name": "1", "precondition": "2", "dependency": "3",
             "agent-busy": "4", "resource-busy": "4", "duration": "5", "interrupt": "5",
             "time-window": "6", "goal": "7", "repeat": "8"}
    assert CATEGORIES == tuple(block)                      # the contract's list, in its order
    for code, v in REGISTRY.items():
        assert (v.category is None) == (v.scope in (Scope.COMPILE, Scope.PDDL))
        assert (v.severity is Severity.WARNING) == (code[0] == "W" or (code[0] == "P" and code not in ("P010", "P020")))
        if code[0] == "E":
            assert code[1] == block[v.category.value]
            # timed plans x01-x49, grid kitchens x50-x99; E090 (internal error) is shared by every plan kind
            assert (int(code[2:]) >= 50) == (v.scope is Scope.KITCHEN) or code == "E090"


def test_plan_error_derives_its_category():
    e = PlanError("E401", "busy", index=3, agent="cook")
    assert e.category is Category.AGENT_BUSY and e.category == "agent-busy" == category_of("E401")
    assert e.to_json() == {"code": "E401", "category": "agent-busy", "agent": "cook", "index": 3, "time": None,
                           "message": "busy", "hint": ""}
    with pytest.raises(ValueError):
        PlanError("E999", "no such code")
    with pytest.raises(ValueError):
        PlanError("C101", "a compile diagnostic is not a plan problem")
