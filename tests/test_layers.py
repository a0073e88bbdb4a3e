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
