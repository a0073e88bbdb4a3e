"""The layer rule as an import contract (#12 item 4): grammar <- compiler <- runtime <- validators <- commands.

Every ``import`` of a chronoplan module in the package's sources - at module level and inside functions - is
read from the syntax tree, and so is every string that is a module path (``"chronoplan.validators.x"`` or
``"chronoplan.validators.x:function"``, as ``importlib.import_module`` and the family registry's ``Ref`` take
it: an import the import statements do not show); a module may import or name only its own layer or a lower
one.  Commands are the package
``chronoplan.commands`` (src/chronoplan/commands/, one module per subcommand) and the top package (``chronoplan``,
``chronoplan.cli``, ``chronoplan.reward``).  The imports that
break the rule today are listed in ``KNOWN`` with the reason; the list may only shrink: a new upward import
fails the test, and so does an entry that no longer exists (remove it).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"grammar": "grammar", "compiler": "compiler", "runtime": "runtime", "validators": "validators",
            "domains": "domains"}
RANK = {"grammar": 0, "compiler": 1, "runtime": 2, "validators": 3, "commands": 4}

# (importer, imported) -> why it is still there; empty since issue #12 (the compiled-module table moved to the
# top package, chronoplan.build) and may only stay so
KNOWN: dict = {}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    if rel.parts[0] == "src":
        parts = rel.parts[1:]
    else:
        parts = ("chronoplan",) + rel.parts
    name = ".".join(parts)[: -len(".py")]
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in PACKAGES:
        return "commands"
    return "compiler" if parts[1] == "domains" else parts[1]


def sources() -> list:
    out = [p for d in PACKAGES.values() for p in (ROOT / d).rglob("*.py")]
    return sorted(out + list((ROOT / "src" / "chronoplan").rglob("*.py")))


def imports(path: Path) -> set:
    """Every chronoplan module named by an import statement anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("chronoplan")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = me.split(".")[: -node.level]
                base = ".".join(pkg + ([base] if base else []))
            if not base.startswith("chronoplan"):
                continue
            for a in node.names:          # "from chronoplan.runtime import kitchen" imports a module
                sub = f"{base}.{a.name}"
                out.add(sub if (ROOT / "/".join(sub.split(".")[1:])).with_suffix(".py").exists() else base)
    return out


MODULE_PATH = re.compile(r"chronoplan(\.\w+)+\.?(:\w+)?")      # the constant part of f"chronoplan.x.{name}" too


def named_modules(path: Path) -> set:
    """Every chronoplan module named by a string that is a module path (``module`` or ``module:function``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value.partition(":")[0].rstrip(".") for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.fullmatch(node.value)}


def violations() -> set:
    found = set()
    for path in sources():
        me = module_name(path)
        for other in imports(path) | named_modules(path):
            if RANK[layer(other)] > RANK[layer(me)]:
                found.add((me, other))
    return found


def test_no_layer_imports_a_higher_one():
    found = violations()
    new = found - set(KNOWN)
    assert not new, "upward imports or module paths (see the layer rule in docs/architecture.md):\n" + "\n".join(
        f"  {a} -> {b}" for a, b in sorted(new))
    gone = set(KNOWN) - found
    assert not gone, f"these KNOWN entries no longer exist; remove them: {sorted(gone)}"


def test_the_contract_fails_on_a_deliberate_upward_import(tmp_path, monkeypatch):
    """A compiler module that imports the validators (even inside a function) is caught."""
    fake = ROOT / "compiler" / "_layer_probe.py"
    assert not fake.exists()
    try:
        fake.write_text("def f():\n    from chronoplan.validators.report import Report\n    return Report\n")
        assert ("chronoplan.compiler._layer_probe", "chronoplan.validators.report") in violations()
        with pytest.raises(AssertionError, match="upward imports"):
            test_no_layer_imports_a_higher_one()
    finally:
        fake.unlink()


def test_the_contract_fails_on_a_module_named_by_a_string():
    """A runtime module that names a validators module for importlib (or a ``module:function`` target) is caught."""
    fake = ROOT / "runtime" / "_layer_probe.py"
    assert not fake.exists()
    try:
        fake.write_text("import importlib\n\n\ndef f(name):\n"
                        "    importlib.import_module('chronoplan.validators.report')\n"
                        "    return ('chronoplan.commands.solve:run', f'chronoplan.validators.{name}')\n")
        found = violations()
        for target in ("chronoplan.validators.report", "chronoplan.commands.solve", "chronoplan.validators"):
            assert ("chronoplan.runtime._layer_probe", target) in found
        with pytest.raises(AssertionError, match="upward imports"):
            test_no_layer_imports_a_higher_one()
    finally:
        fake.unlink()


@pytest.mark.parametrize("module, expected", [
    ("chronoplan.compiler.check.checker", "compiler"), ("chronoplan.commands.check", "commands"),
    ("chronoplan.runtime.procedure.sim", "runtime"), ("chronoplan.commands.validate", "commands"),
    ("chronoplan.cli", "commands"), ("chronoplan", "commands"), ("chronoplan.grammar", "grammar"),
])
def test_layers_of_modules(module, expected):
    assert layer(module) == expected


def test_commands_live_in_the_commands_package():
    """No command module inside a layer (they were ``<layer>/cli_*.py`` and imported upward from there)."""
    stray = [p.relative_to(ROOT).as_posix() for d in PACKAGES.values() for p in (ROOT / d).rglob("cli_*.py")]
    assert not stray


LAZY_DIRS = ("compiler", "runtime", "validators")       # not src/chronoplan: the commands stay lazy (check is fast)
LAZY_REASON = re.compile(r"#\s*lazy:\s*\S")


def unexplained_lazy_imports(path: Path) -> list:
    """The function-level imports of chronoplan modules in a file without a ``# lazy: <reason>`` comment on their
    line(s): (line, statement).  Only a real cycle or a heavy/optional module keeps an import in a function
    (#12 item 4); optional third-party dependencies (ortools, unified_planning, ...) are not chronoplan modules."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                names = ([a.name for a in child.names] if isinstance(child, ast.Import)
                         else ["." if child.level else (child.module or "")])
                own = any(n == "chronoplan" or n.startswith(("chronoplan.", ".")) for n in names)
                span = lines[child.lineno - 1: (child.end_lineno or child.lineno)]
                if own and not any(LAZY_REASON.search(line) for line in span):
                    found.append((child.lineno, lines[child.lineno - 1].strip()))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(text), False)
    return found


def test_function_level_imports_of_chronoplan_modules_say_why():
    """In the layers a chronoplan module is imported at module level unless a ``# lazy: <reason>`` says why not."""
    files = [p for d in LAZY_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    bad = [f"  {p.relative_to(ROOT).as_posix()}:{line}: {stmt}" for p in files
           for line, stmt in unexplained_lazy_imports(p)]
    assert not bad, ("function-level imports of chronoplan modules without a '# lazy: <reason>' comment "
                     "(move them to module level, or say why they cannot be):\n" + "\n".join(bad))


def test_the_lazy_import_check_fails_on_an_unexplained_import(tmp_path):
    """A function-level import of a chronoplan module (absolute, relative, nested, multi-line) is caught unless its
    line says ``# lazy: <reason>``; module-level imports and third-party imports are not."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import json\n"
        "from chronoplan.compiler import ir\n"
        "\n\n"
        "def f():\n"
        "    import ortools\n"
        "    from chronoplan.compiler.builtins import TYPES\n"
        "    from chronoplan.runtime.kitchen.engine import KitchenSim  # lazy: the kitchen simulator\n"
        "    from chronoplan.validators.plans import (\n"
        "        read_plan,\n"
        "    )\n"
        "    from . import sibling\n"
        "    from chronoplan.compiler.parse import parse  # lazy:\n"
        "\n"
        "    class C:\n"
        "        def g(self):\n"
        "            import chronoplan.validators.report\n"
        "    return TYPES, KitchenSim, read_plan, sibling, parse, C\n", encoding="utf-8")
    assert [line for line, _ in unexplained_lazy_imports(probe)] == [7, 9, 12, 13, 17]
