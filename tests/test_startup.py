"""Start-up cost is structural: the heavy libraries are imported only by the commands that use them.

``chronoplan --version``, ``--help`` and ``import chronoplan`` must not import sympy, networkx, jsonschema,
numpy, unified_planning, matplotlib, lark, ortools or Ray; ``check`` (which compiles: the checker's expressions
are sympy, its graphs networkx, its parser lark) must not import the others.  Each case runs in a fresh
interpreter and reads its ``sys.modules``; no timing is asserted here (bench/bench_startup.py measures it).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sympy", "networkx", "jsonschema", "numpy", "unified_planning", "matplotlib", "lark", "ortools", "ray",
         "gymnasium", "pettingzoo", "tqdm", "scipy")
COMPILER = ("sympy", "networkx", "lark")         # what compiling a file needs


def heavy_imported(code: str) -> set:
    """The top-level packages of HEAVY present in ``sys.modules`` after running ``code`` in a new interpreter."""
    probe = (f"import sys\n{code}\n"
             "print('\\n' + __import__('json').dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.splitlines()[-1])) & set(HEAVY)


@pytest.mark.parametrize("code", [
    "import chronoplan",
    "import chronoplan.cli",
    "from chronoplan.cli import main; rc = main(['--version']); assert rc == 0, rc",
    "from chronoplan.cli import main; rc = main(['--help']); assert rc == 0, rc",
])
def test_no_heavy_import_before_a_command_runs(code):
    assert heavy_imported(code) == set()


def test_check_imports_only_what_compiling_needs():
    lab = ROOT / "domains" / "quickstart" / "lab.chrono"
    code = f"from chronoplan.cli import main; rc = main(['check', {str(lab)!r}]); assert rc == 0, rc"
    assert heavy_imported(code) <= set(COMPILER)


def test_project_is_still_exported():
    """The lazy attribute behaves like the eager import did."""
    import chronoplan
    from chronoplan.compiler.ir import Project
    assert chronoplan.Project is Project
    with pytest.raises(AttributeError):
        chronoplan.NoSuchThing  # noqa: B018


def test_every_slow_entry_names_an_existing_test():
    """A renamed or deleted test must not leave a stale entry in conftest.SLOW (it would mark nothing)."""
    import re

    from conftest import SLOW
    assert len(set(SLOW)) == len(SLOW)
    for entry in SLOW:
        file, _, name = entry.partition("::")
        path = ROOT / "tests" / file
        assert path.is_file(), entry
        if name:
            assert re.search(rf"^def {re.escape(name)}\(", path.read_text(), re.M), entry


def test_slow_marker_is_registered_and_applied():
    from conftest import slow_entry
    assert '\n    "slow: ' in (ROOT / "pyproject.toml").read_text()             # in [tool.pytest.ini_options] markers
    assert slow_entry("tests/test_types.py::test_mypy_is_clean")
    assert slow_entry("tests/test_compat_recipe2plan.py::test_a_million_actions")
    assert slow_entry("tests/test_fuzz.py::test_step_text[x]")
    assert not slow_entry("tests/test_compat_recipe2plan.py::test_mode_registry")
    assert not slow_entry("tests/test_startup.py::test_slow_marker_is_registered_and_applied")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-m", "slow",
                          "tests/test_compat_recipe2plan.py", "tests/test_cpsat.py"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    assert any("test_a_million_actions" in i for i in ids), out.stdout[-2000:]
    assert any(i.startswith("tests/test_cpsat.py::") for i in ids)               # marked optimal: slow too
    assert not any("test_mode_registry" in i for i in ids)
