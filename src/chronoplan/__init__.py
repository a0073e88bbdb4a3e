"""chronoplan: a compiler for time-aware planning benchmarks.

Input: paths of ``*.chrono`` files or directories.  Output: ``load(path) -> Project`` (the checked IR);
raises ``CompileError`` holding all diagnostics when the text has errors.
"""
from chronoplan.compiler.diagnostics import CompileError, Diagnostic, Severity, Span
from chronoplan.compiler.ir import Project

__all__ = ["load", "compile_paths", "CompileError", "Diagnostic", "Severity", "Span", "Project"]
__version__ = "0.1.0"


def compile_paths(*paths):
    """Compile files/directories; return ``(project_or_None, diagnostics, sources)`` without raising."""
    from chronoplan.compiler.driver import compile_paths as _compile
    return _compile(*paths)


def load(*paths) -> Project:
    """Compile files/directories into a Project; raise CompileError if there is any error."""
    from chronoplan.compiler.driver import load as _load
    return _load(*paths)
