"""The one diagnostics model for syntax and semantic errors.

Input: spans and messages produced by the parser and checker.  Output: ``Diagnostic`` values and their
rendering ``FILE:LINE:COL: error[CODE]: message`` followed by the source line and a caret.
Codes are stable; they and their severities live in the registry ``compiler.codes`` (``CODES`` is its view of
the C/W codes; ``Severity`` is re-exported) and in docs/language.md.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

from chronoplan.compiler.codes import Scope, Severity, codes_in


@dataclass(frozen=True, order=True)
class Span:
    """A source position: 1-based line and column of the start, and of the end (exclusive)."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Optional[Span] = None
    notes: tuple[str, ...] = field(default=())

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_json(self) -> dict:
        """The diagnostic as ``--format json`` prints it: code, severity, file, line, column (1-based; None
        without a location), end_line, end_column, message, notes."""
        sp = self.span
        return {"code": self.code, "severity": self.severity.value, "file": sp.file if sp else None,
                "line": sp.line if sp else None, "column": sp.col if sp else None,
                "end_line": (sp.end_line or None) if sp else None,
                "end_column": (sp.end_col or None) if sp else None, "message": self.message,
                "notes": list(self.notes)}


# code -> title of the compile diagnostics: a view of the registry (chronoplan.compiler.codes)
CODES: dict[str, str] = {c: v.title for c, v in codes_in(Scope.COMPILE).items()}


MAX_SHOWN = 1000          # diagnostics printed per run; the rest are counted in one line
SNIPPET_WIDTH = 120       # characters of the source line shown around the column
MAX_MESSAGE = 300         # characters of a message (names quoted from hostile input are clipped)


@lru_cache(maxsize=8)
def source_lines(text: str) -> tuple:
    r"""Split like lark counts lines: on "\n" only (``\f``, ``\v``, ``\x85``, ``\u2028`` are not line breaks),
    dropping the "\r" of "\r\n".  Cached, so that rendering many diagnostics splits a file once."""
    return tuple(ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n"))


def _source_line(sources: dict, span: Span) -> Optional[str]:
    text = sources.get(span.file)
    if text is None:
        return None
    lines = source_lines(text)
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1]
    return None


def _window(line: str, col: int, width: int) -> tuple:
    """At most SNIPPET_WIDTH characters of ``line`` around ``col`` (1-based): (the text shown, with "..."
    marks where it was cut, the column of ``col`` in it, the caret width clipped to the window)."""
    if len(line) <= SNIPPET_WIDTH:
        return line, col, width
    start = max(0, min(col - 1 - SNIPPET_WIDTH // 3, len(line) - SNIPPET_WIDTH))
    end = start + SNIPPET_WIDTH
    width = max(1, min(width, end - (col - 1)))
    head = "..." if start else ""
    return head + line[start:end] + ("..." if end < len(line) else ""), col - start + len(head), width


def _clip(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE} more characters)"


def render(diag: Diagnostic, sources: dict) -> str:
    """Render one diagnostic with its source line and a caret (``sources``: file -> text).

    The output is bounded whatever the input: messages are clipped, and a long source line is shown as a
    window of SNIPPET_WIDTH characters around the column with "..." marks."""
    sev = diag.severity.value
    if diag.span is None:
        head = f"{sev}[{diag.code}]: {_clip(diag.message)}"
        out = [head]
    else:
        sp = diag.span
        out = [f"{sp.file}:{sp.line}:{sp.col}: {sev}[{diag.code}]: {_clip(diag.message)}"]
        line = _source_line(sources, sp)
        if line is not None:
            width = 1
            if sp.end_line == sp.line and sp.end_col > sp.col:
                width = sp.end_col - sp.col
            width = max(1, min(width, len(line) - sp.col + 1 or 1))
            line, col, width = _window(line, sp.col, width)
            prefix = "".join(ch if ch == "\t" else " " for ch in line[: col - 1])
            out.append(f"  {line}")
            out.append(f"  {prefix}{'^' * width}")
    for note in diag.notes[:20]:
        out.append(f"  note: {_clip(note)}")
    return "\n".join(out)


def render_all(diags: Iterable[Diagnostic], sources: dict, limit: int = MAX_SHOWN) -> str:
    """Render at most ``limit`` diagnostics, then one line counting the others."""
    return "\n".join(render_lines(diags, sources, limit))


def plural(n: int, word: str) -> str:
    """``1 scenario``, ``2 scenarios``, ``1 process``, ``3 processes``."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{n} {word}s"


LISTED_CHARS = 200        # characters of names listed in a "known ..." note (notes are clipped at MAX_MESSAGE)


def nearest(name: str, names: Iterable[str], fold: bool = False) -> str:
    """A short hint for an unknown ``name`` (worlds' checker and grader): the declared name closest to it ("did you
    mean 'x'?", difflib; ``fold``: matched case-insensitively, as PDDL names are), else the first dozen names."""
    names = list(names)
    folded = {(n.lower() if fold else n): n for n in names}
    close = difflib.get_close_matches((name.lower() if fold else name)[:100], list(folded), n=1, cutoff=0.6)
    if close:
        return f"did you mean '{folded[close[0]]}'?"
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f"known: {shown}" if names else "none declared"


def name_hint(name: str, choices: Iterable[str], what: str) -> str:
    """A note for an unknown ``name``: the closest of ``choices`` ("did you mean 'x'?", difflib) and the known
    names (sorted; as many as fit in ``LISTED_CHARS``, then their count), e.g. "did you mean 'burger_cheese'?
    known recipes: ..."."""
    names = sorted(set(choices))
    if not names:
        return f"no {what} are declared"
    close = difflib.get_close_matches(name[:100], names, n=1, cutoff=0.6)
    shown: list = []
    used = 0
    for n in names:
        if used + len(n) + 2 > LISTED_CHARS:
            break
        shown.append(n)
        used += len(n) + 2
    rest = f", ... ({len(names)} in all)" if len(shown) < len(names) else ""
    return (f"did you mean '{close[0]}'? " if close else "") + f"known {what}: {', '.join(shown)}{rest}"


def hidden_note(root: Diagnostic, hidden: int, about: str, until: str) -> Diagnostic:
    """``root`` (the cause) with the note that ``hidden`` follow-on errors ``about`` something were dropped
    ``until`` the cause is fixed: "2 follow-on errors about undefined names are hidden until this import is
    fixed".  Used for failed imports (``driver``) and broken maps (``check.scenarios``)."""
    verb = "are" if hidden != 1 else "is"
    return replace(root, notes=root.notes + (f"{plural(hidden, 'follow-on error')} {about} {verb} hidden until "
                                             f"{until}",))


_HIDDEN = re.compile(r"(\d+) follow-on errors? .* hidden until ")


def hidden_count(d: Diagnostic) -> int:
    """How many follow-on errors ``hidden_note`` notes on ``d`` say are hidden (0 without such a note): when
    ``d`` is itself hidden as a follow-on, they count as hidden too."""
    return sum(int(m.group(1)) for note in d.notes for m in [_HIDDEN.match(note)] if m)


def render_lines(diags: Iterable[Diagnostic], sources: dict, limit: int = MAX_SHOWN):
    """Yield the rendering of each of the first ``limit`` diagnostics, then "N more ... not shown"."""
    diags = list(diags)
    for d in diags[:limit]:
        yield render(d, sources)
    rest = diags[limit:]
    if rest:
        errors = sum(d.is_error for d in rest)
        parts = [f"{n} more {kind}{'s' * (n != 1)}" for n, kind in ((errors, "error"), (len(rest) - errors, "warning"))
                 if n]
        yield f"{' and '.join(parts)} not shown (at most {limit} diagnostics are printed per run)"


def sort_key(d: Diagnostic):
    sp = d.span or Span("", 0, 0)
    return (sp.file, sp.line, sp.col, d.code)


class CompileError(Exception):
    """Raised by the Python API (``chronoplan.load``) when a project has errors; holds the diagnostics."""

    def __init__(self, diagnostics: list, sources: dict):
        self.diagnostics = list(diagnostics)
        self.sources = sources
        super().__init__(render_all([d for d in diagnostics if d.is_error], sources))


_PENDING: list = []     # the interrupt a signal handler raised in this process, kept by ``note_interrupt``


def note_interrupt(exc: BaseException) -> BaseException:
    """Remember ``exc`` (a ``KeyboardInterrupt`` raised by a signal handler) and return it for raising.  C code
    can swallow an exception raised inside it (``__del__``, weakref callbacks: "Exception ignored in ...") or
    wrap it (a ``SystemError``); the noted interrupt still stops the batch (``interrupt_in``,
    ``raise_pending_interrupt``)."""
    _PENDING[:] = [exc]
    return exc


def raise_pending_interrupt() -> None:
    """Raise the interrupt a signal handler noted, if any (a batch calls it between plans)."""
    if _PENDING:
        raise _PENDING[0]


def clear_interrupt() -> None:
    """Forget a noted interrupt (a command that handled it, or a test)."""
    _PENDING.clear()


def interrupt_in(exc: BaseException) -> Optional[BaseException]:
    """The ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM raised as ``chronoplan.cli.Terminated``) in ``exc``'s chain
    of causes, else the interrupt a signal handler noted (``note_interrupt``), or None.  A signal handler that
    raises while C code runs a Python callback - ``isinstance`` against an ABC from a Cython-compiled module -
    surfaces as a ``SystemError`` caused by the interrupt, or as some other error with the interrupt lost; a
    catch-all that turns crashes into reports must let it go on instead (docs/errors.md, "Internal errors")."""
    seen: set = set()
    cur: Optional[BaseException] = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return _PENDING[0] if _PENDING else None
