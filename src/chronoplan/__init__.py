"""chronoplan: a compiler for time-aware planning benchmarks.

Input: paths of ``*.chrono`` files or directories.  Output: ``load(path) -> Project`` (the checked IR);
raises ``CompileError`` holding all diagnostics when the text has errors.

Importing the package is cheap: ``Project`` (whose module imports sympy) is loaded on first use, so that
``chronoplan --version`` and the commands that do not compile never pay for sympy (tests/test_startup.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chronoplan.compiler.diagnostics import CompileError, Diagnostic, Severity, Span

if TYPE_CHECKING:
    from chronoplan.compiler.ir import Project

__all__ = ["load", "compile_paths", "CompileError", "Diagnostic", "Severity", "Span", "Project"]
__version__ = "0.1.0"


def __getattr__(name: str):
    """``chronoplan.Project``, imported when first asked for (PEP 562)."""
    if name == "Project":
        from chronoplan.compiler.ir import Project
        return Project
    raise AttributeError(f"module 'chronoplan' has no attribute {name!r}")


def compile_paths(*paths):
    """Compile files/directories; return ``(project_or_None, diagnostics, sources)`` without raising."""
    from chronoplan.compiler.driver import compile_paths as _compile
    return _compile(*paths)


def load(*paths) -> Project:
    """Compile files/directories into a Project; raise CompileError if there is any error."""
    from chronoplan.compiler.driver import load as _load
    return _load(*paths)
