"""Compilation driver: paths -> (Project | None, diagnostics, sources).

Input: files and directories (a directory means every ``*.chrono`` file under it, sorted).  Output: the
checked IR project, every diagnostic (syntax, imports, semantics) sorted by position, and the source texts
(for rendering carets).

Namespaces: every file given (and not imported by another given file) is a root; a root and the files it
imports, transitively, are compiled together.  Roots that declare the same ``domain NAME`` share one
namespace; different domains are checked separately, so unrelated bundled domains may reuse names.  The
returned Project is the union of the domains (first declaration wins); ``Project.part(scenario)`` gives the
domain project that declares a scenario, and scenario names must be unique across domains.
"""
from __future__ import annotations

import dataclasses
import functools
import gc
from pathlib import Path

from chronoplan.compiler import ast as A
from chronoplan.compiler import ir
from chronoplan.compiler.check.checker import check
from chronoplan.compiler.diagnostics import CompileError, Diagnostic, Severity, hidden_count, hidden_note, sort_key
from chronoplan.compiler.parse import parse
from chronoplan.compiler.sources import read_source, resolve_import

TABLES = ("constants", "types", "objects", "attributes", "relations", "resources", "actions", "processes",
          "recipes", "procedures", "maps", "tools", "apps", "scenarios", "households",
          "verbs")


def expand(paths) -> tuple[list, list]:
    """Expand files/directories into a list of files; return (files, diagnostics for missing paths)."""
    files, diags = [], []
    for p in paths:
        path = Path(p)
        try:
            if path.is_dir():
                found = sorted(path.rglob("*.chrono"))
                if not found:
                    diags.append(Diagnostic("C004", Severity.ERROR, f"no *.chrono files in directory {p}"))
                files.extend(found)
            elif path.is_file():
                files.append(path)
            else:
                diags.append(Diagnostic("C004", Severity.ERROR, f"no such file or directory: {p}"))
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            diags.append(Diagnostic("C004", Severity.ERROR, f"cannot read {str(p)[:200]}: {why}"))
    return files, diags


def display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError, RuntimeError):
        return str(path)


def _load_all(files, diags, sources):
    """Parse every file and its imports once; return {resolved path: (module | None, [import paths])}."""
    loaded: dict = {}
    queue = [(p, None) for p in files]
    while queue:
        path, span = queue.pop(0)
        try:
            key = path.resolve()
        except (OSError, ValueError, RuntimeError):
            key = path
        if key in loaded:
            continue
        name = display_name(path)
        text, diag, shown = read_source(path, name, span)
        if diag is not None:
            diags.append(diag)
            if shown is not None:
                sources[name] = shown
            loaded[key] = (None, [])
            continue
        sources[name] = text
        module, errs = parse(name, text)
        diags.extend(errs)
        imports = []
        for d in (module.decls if module else ()):
            if isinstance(d, A.Import):
                target = resolve_import(path, d.path, d.span)
                if isinstance(target, Diagnostic):
                    diags.append(target)
                else:
                    imports.append(target)
                    queue.append((target, d.span))
        loaded[key] = (module, imports)
    return loaded


def _closure(root, loaded) -> list:
    order, stack, seen = [], [root], set()
    while stack:
        k = stack.pop(0)
        if k in seen:
            continue
        seen.add(k)
        module, imports = loaded.get(k, (None, []))
        if module is not None:
            order.append(module)
        stack.extend(imports)
    return order


def _domain_of(module) -> str | None:
    for d in module.decls if module else ():
        if isinstance(d, A.DomainDecl):
            return d.name.name
    return None


def gc_paused(fn):
    """``fn`` with Python's cyclic garbage collector paused while it runs (and restored after).  Compiling
    allocates millions of long-lived objects (parse trees, IR, sympy expressions) and few cycles; each
    collection of the older generations walks all of them, which made a 10,000-step procedure take 14.7x
    the 1,000-step one (9.6x without), at the same peak memory."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return paused


@gc_paused
def compile_paths(*paths):
    """Compile; return (project | None, diagnostics, sources).  Never raises on bad input."""
    files, diags = expand(paths)
    sources: dict = {}
    loaded = _load_all(files, diags, sources)
    imported = {i for _, imps in loaded.values() for i in imps}
    roots = [f.resolve() for f in files if f.resolve() not in imported]
    if not roots and files:            # everything imports everything: compile as one group
        roots = [files[0].resolve()]
    groups: dict = {}
    for r in dict.fromkeys(roots):
        module = loaded.get(r, (None, []))[0]
        key = _domain_of(module) or str(r)
        mods = groups.setdefault(key, [])
        for m in _closure(r, loaded):
            if all(m is not x for x in mods):
                mods.append(m)
    projects = []
    seen_diags = set()
    for _key, mods in groups.items():
        if not mods:
            continue
        project, errs = check(mods)
        projects.append(dataclasses.replace(project, domain=_domain_of(mods[0])))
        errs = _hide_cascade(errs, diags, {m.file for m in mods})
        for d in errs:
            if d not in seen_diags:
                seen_diags.add(d)
                diags.append(d)
    if not projects:
        return None, sorted(diags, key=sort_key), sources
    return _union(projects, diags), sorted(diags, key=sort_key), sources


CASCADE_CODES = frozenset({"C101", "C401"})     # undefined names: what a missing import makes up


def _hide_cascade(errs: list, diags: list, files: set) -> list:
    """When an import of this group failed (C108 in one of ``files``), its undefined-name errors (C101, C401)
    are follow-ons: drop them and say how many on the import's diagnostic, so the first error is the cause."""
    failed = [i for i, d in enumerate(diags) if d.code == "C108" and d.span is not None and d.span.file in files]
    if not failed:
        return errs
    kept = [d for d in errs if d.code not in CASCADE_CODES]
    hidden = sum(1 + hidden_count(d) for d in errs if d.code in CASCADE_CODES)   # with those they hid
    if hidden:
        i = failed[0]
        diags[i] = hidden_note(diags[i], hidden, "about undefined names", "this import is fixed")
    return kept


def load(*paths) -> ir.Project:
    """Compile files/directories into a Project; raise ``CompileError`` (all diagnostics) if there is any error.
    ``chronoplan.load`` is this function."""
    project, diags, sources = compile_paths(*paths)
    if project is None or any(d.is_error for d in diags):
        raise CompileError(diags, sources)
    return project


def _union(projects, diags) -> ir.Project:
    if len(projects) == 1:
        return projects[0]
    tables: dict[str, dict] = {t: {} for t in TABLES}
    parts: dict = {}
    for p in projects:
        for t in TABLES:
            for name, v in getattr(p, t).items():
                if t == "scenarios" and name in tables[t]:
                    diags.append(Diagnostic("C102", Severity.ERROR,
                                            f"scenario '{name}' is declared in two domains", v.span))
                    continue
                tables[t].setdefault(name, v)
        for name in p.scenarios:
            parts.setdefault(name, p)
    files = tuple(f for p in projects for f in p.files)
    return ir.Project(files=files, domain=None, parts=parts, **tables)


@gc_paused
def compile_text(text: str, name: str = "<text>"):
    """Compile a single source text (imports are not allowed); for tests and tools."""
    module, diags = parse(name, text)
    sources = {name: text}
    if module is None:
        return None, diags, sources
    for d in module.decls:
        if isinstance(d, A.Import):
            diags.append(Diagnostic("C108", Severity.ERROR, "imports need a file on disk", d.span))
    project, errs = check([module])
    return dataclasses.replace(project, domain=_domain_of(module)), sorted(diags + errs, key=sort_key), sources
