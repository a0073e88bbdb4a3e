"""Helpers shared by the subcommands: compile paths and report errors the same way everywhere.

Input: paths from the command line.  Output: the compiled Project (or None after printing the error
diagnostics with carets on stderr), and ``pick_scenario`` resolving ``--scenario`` with a clear message.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

from chronoplan.compiler.diagnostics import render_lines


def load_project(paths, stream=None):
    """Compile ``paths``; print error diagnostics to ``stream`` (stderr); return the Project or None."""
    from chronoplan.compiler.driver import compile_paths
    stream = stream or sys.stderr
    project, diags, sources = compile_paths(*paths)
    errors = [d for d in diags if d.is_error]
    for text in render_lines(errors, sources):
        print(text, file=stream)
    if project is None or errors:
        return None
    return project


def pick_scenario(project, name, prog: str):
    """The scenario ``name`` (or the only one); print ``prog: error: ...`` and return None if there is none."""
    try:
        return project.scenario(name)
    except KeyError as exc:
        print(f"{prog}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return None


MAX_COMMAND = 65_536            # characters in one line of ``play`` (a command is a few dozen)


def command_lines(lines, out, done: Callable[[], bool], err=None) -> Iterator[str]:
    """The player's lines for ``chronoplan play``: a "> " prompt when both ends are a terminal, blank lines and
    ``#`` comments skipped, stripped; stops at the end of input, at "quit"/"exit", or once ``done()``.  Each
    line is read bounded (``validators.lines.read_line``): one longer than ``MAX_COMMAND`` (or the
    ``CHRONOPLAN_MAX_LINE_BYTES`` cap) is skipped unread into memory, with a message on ``err`` (stderr)."""
    from chronoplan.validators.lines import max_line_bytes, read_line
    cap = min(MAX_COMMAND, max_line_bytes())
    tty = hasattr(lines, "isatty") and lines.isatty() and hasattr(out, "isatty") and out.isatty()
    no = 0
    while not done():
        if tty:
            print("> ", end="", file=out, flush=True)
        line, length = read_line(lines, cap)
        no += 1
        if line is None:
            print(f"chronoplan play: line {no} is {length} characters long; at most {cap}: skipped",
                  file=err or sys.stderr)
            continue
        if not line:
            return
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.lower() in ("quit", "exit"):
            return
        yield line
