"""Compilation driver: paths -> (Project | None, diagnostics, sources).

Input: files and directories (a directory means every ``*.chrono`` file under it, sorted).  Output: the
checked IR project, every diagnostic (syntax, imports, semantics) sorted by position, and the source texts
(for rendering carets).  Imports (``import "x.chrono"``) resolve relative to the importing file; a file is
compiled once however often it is imported; cycles are fine (each file is loaded once).
"""
from __future__ import annotations

from pathlib import Path

from chronoplan.compiler import ast as A
from chronoplan.compiler.check import check
from chronoplan.compiler.diagnostics import Diagnostic, Severity, Span, sort_key
from chronoplan.compiler.parse import parse


def expand(paths) -> tuple[list, list]:
    """Expand files/directories into a list of files; return (files, diagnostics for missing paths)."""
    files, diags = [], []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob("*.chrono"))
            if not found:
                diags.append(Diagnostic("E004", Severity.ERROR, f"no *.chrono files in directory {p}"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            diags.append(Diagnostic("E004", Severity.ERROR, f"no such file or directory: {p}"))
    return files, diags


def display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def compile_paths(*paths):
    """Compile; return (project | None, diagnostics, sources).  Never raises on bad input."""
    files, diags = expand(paths)
    sources: dict = {}
    modules = []
    loaded: set = set()
    queue = list(files)
    while queue:
        path = queue.pop(0)
        key = path.resolve()
        if key in loaded:
            continue
        loaded.add(key)
        name = display_name(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            diags.append(Diagnostic("E004", Severity.ERROR, f"cannot read {name}: {exc}"))
            continue
        sources[name] = text
        module, errs = parse(name, text)
        diags.extend(errs)
        if module is None:
            continue
        modules.append(module)
        for d in module.decls:
            if isinstance(d, A.Import):
                target = (path.parent / d.path)
                if not target.is_file():
                    diags.append(Diagnostic("E108", Severity.ERROR, f"import not found: {d.path}", d.span))
                else:
                    queue.append(target)
    if not modules:
        return None, sorted(diags, key=sort_key), sources
    project, errs = check(modules)
    diags.extend(errs)
    return project, sorted(diags, key=sort_key), sources


def compile_text(text: str, name: str = "<text>"):
    """Compile a single source text (imports are not allowed); for tests and tools."""
    module, diags = parse(name, text)
    sources = {name: text}
    if module is None:
        return None, diags, sources
    for d in module.decls:
        if isinstance(d, A.Import):
            diags.append(Diagnostic("E108", Severity.ERROR, "imports need a file on disk", d.span))
    project, errs = check([module])
    return project, sorted(diags + errs, key=sort_key), sources


__all__ = ["compile_paths", "compile_text", "expand", "Span"]
