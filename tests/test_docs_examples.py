"""Every Python and shell example in README.md, docs/*.md and docs/benchmarks/*.md runs (issue #16).

Extraction: fenced code blocks.  A ```python block is a Python example; any other fenced block is a shell
example when one of its lines starts with ``chronoplan ``, ``python `` or ``$ `` (the ``$ `` prompt is
removed).  In a shell block only the lines starting with ``chronoplan `` or ``python `` are commands; the
other lines (output shown, comments) are ignored, and a line ending with ``\\`` continues on the next one.

Python examples: the blocks of one page run in order in one namespace, as a reader pastes them, twice:
  * from the repository root, as written;
  * from a fresh temporary directory, with every string literal starting with ``domains/`` rewritten to the
    absolute path of the repository's ``domains/`` directory (the rule for running an example from
    elsewhere: repository-relative paths are made absolute, nothing else changes).
In both runs an output directory literal ``"out/"`` is rewritten to a temporary directory, so that the
examples never write into the repository.

Shell examples: each command line is split with ``shlex`` (``#`` comments dropped) and run, from the
repository root and from a temporary directory (``domains/...`` arguments made absolute there, as above).
The exit status must be 0 or 1 (1 = a plan found invalid, as documented), never 2 (usage) or 3, and stderr
never holds a traceback.  Outputs go to a temporary directory: the argument of ``-o``, and any argument
starting with ``out/`` or ``/tmp/``, is moved under it; ``> FILE`` captures stdout instead of writing FILE, and
``< FILE`` (a repository file) is given as stdin.
Command lines are not run (but still counted) when they
  * hold a placeholder: an all-capitals word (FILE, PLAN, DIR, S, N, F, SEC, OUT, MAP.json, ...), ``...``
    or ``cooking.json`` (Recipe2Plan's data, which a user downloads from that repository);
  * install or test (``pip install``, ``python3 -m venv``, ``pytest``) or benchmark (``python bench/...``):
    the README's setup commands are covered by tests/test_readme.py and CI, benchmarks are too slow;
  * are in SKIP_SHELL (below, each with its reason).
Python blocks listed in SKIP_PYTHON (each with its reason) are not run; every other block must run.
"""
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "docs" / "benchmarks").glob("*.md"))]

# (page, text of the block's first line) -> why the block cannot run in a test
SKIP_PYTHON = {
    ("docs/runtime.md", "from chronoplan.validators.ray_grade import ray_grade, ray_reports, grade_dataset"):
        "starts a Ray cluster (slow, several processes) and grades the reader's own ray.data.Dataset; "
        "tests/test_ray.py covers these functions",
}
# command line -> why it cannot run in a test
SKIP_SHELL = {
    "chronoplan play domains/paracook --scenario burger_s1_a2 < episode.txt":
        "interactive environment reading the reader's episode from stdin; tests/test_kitchen_play.py covers it",
}

PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z][A-Z_]*(?![\w-])|\.\.\.|\bcooking\.json\b")
NOT_RUN = ("pip install", "python3 -m venv", "pytest", "python bench/")
# files a user does not have: ../shared data and papers, and the design document (DESIGN.md, "the DESIGN format")
FORBIDDEN = re.compile(r"\.\./shared|/work/shared|shared/(?:data|papers|reference)|\bDESIGN\b|papers/")


def rel(page):
    return page.relative_to(ROOT).as_posix()


def fenced_blocks(page):
    """(line number, info string, body) of each fenced block of a page."""
    text = page.read_text()
    for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M):
        yield text[:m.start()].count("\n") + 1, m.group(1).strip(), m.group(2)


def python_pages():
    pages = {}
    for page in PAGES:
        for line, info, body in fenced_blocks(page):
            if info == "python":
                pages.setdefault(rel(page), []).append((line, body))
    return pages


def shell_lines():
    """(page, line, command) of every command line of every shell block."""
    found = []
    for page in PAGES:
        for line, info, body in fenced_blocks(page):
            if info == "python":
                continue
            lines = [raw.strip().removeprefix("$ ") for raw in body.splitlines()]
            if not any(text.startswith(("chronoplan ", "python ")) for text in lines):
                continue
            pending, start = "", 0
            for offset, text in enumerate(lines):
                if pending:
                    pending += " " + text
                elif text.startswith(("chronoplan ", "python ")):
                    pending, start = text, line + 1 + offset
                if pending.endswith("\\"):
                    pending = pending[:-1].rstrip()
                    continue
                if pending:
                    found.append((rel(page), start, pending))
                    pending = ""
    return found


def skip_reason(command):
    if command in SKIP_SHELL:
        return SKIP_SHELL[command]
    if command.startswith(NOT_RUN) or " pytest " in command:
        return "install, test or benchmark command (covered by tests/test_readme.py, CI or too slow)"
    if PLACEHOLDER.search(command.split("#", 1)[0]):
        return "holds a placeholder"
    return None


def test_examples_are_found():
    pages = python_pages()
    assert sum(len(blocks) for blocks in pages.values()) >= 9, pages
    assert {"README.md", "docs/language.md", "docs/pddl.md", "docs/runtime.md", "docs/schemas.md"} <= set(pages)
    # the Python equivalent of `chronoplan schema FILE --strict` is shown, and so run by test_python_examples_run
    assert any("strict=True" in body and "strict_schema_for(" in body for _, body in pages["docs/schemas.md"])
    commands = shell_lines()
    runnable = [c for c in commands if skip_reason(c[2]) is None]
    assert len(commands) >= 20 and len(runnable) >= 4, commands
    for page, first in SKIP_PYTHON:  # the skip-lists name blocks and lines that still exist
        assert any(body.splitlines()[0] == first for _, body in pages.get(page, [])), (page, first)
    for command in SKIP_SHELL:
        assert command in [c[2] for c in commands], command


def absolute_domains(code):
    return re.sub(r"""(["'])domains/""", lambda m: m.group(1) + (ROOT / "domains").as_posix() + "/", code)


@pytest.mark.parametrize("where", ["root", "elsewhere"])
@pytest.mark.parametrize("page", sorted(python_pages()))
def test_python_examples_run(page, where, tmp_path, monkeypatch):
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(ROOT if where == "root" else workdir)
    namespace = {"__name__": "__docs_example__"}
    ran = 0
    for line, body in python_pages()[page]:
        if (page, body.splitlines()[0]) in SKIP_PYTHON:
            continue
        code = body if where == "root" else absolute_domains(body)
        code = re.sub(r"""(["'])out/\1""", lambda m: repr((tmp_path / "out").as_posix() + "/"), code)
        try:
            exec(compile(code, f"{page}:{line}", "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"{page}:{line} ({where}) raised {type(exc).__name__}: {exc}\n{code}")
        ran += 1
    assert ran
    if where == "root":
        assert not (ROOT / "out").exists()


def shell_argv(command, tmp, where):
    """(argv, stdin file or None) of a documented command line."""
    tokens = shlex.split(command, comments=True)
    stdin = None
    if "<" in tokens:
        stdin = ROOT / tokens[tokens.index("<") + 1]
        tokens = tokens[:tokens.index("<")] + tokens[tokens.index("<") + 2:]
    stdout_to_file = ">" in tokens
    if stdout_to_file:
        tokens = tokens[:tokens.index(">")]
    argv = []
    for i, token in enumerate(tokens):
        if (i and tokens[i - 1] == "-o") or token.startswith(("out/", "/tmp/")):
            token = str(tmp / token.lstrip("/"))
        elif where == "elsewhere" and token.startswith("domains/"):
            token = str(ROOT / token)
        argv.append(token)
    if argv[0] == "chronoplan":
        argv[0] = shutil.which("chronoplan", path=str(Path(sys.executable).parent)) or "chronoplan"
    elif argv[0] == "python":
        argv[0] = sys.executable
    return argv, stdin


@pytest.mark.parametrize("where", ["root", "elsewhere"])
@pytest.mark.parametrize("page,line,command", [c for c in shell_lines() if skip_reason(c[2]) is None],
                         ids=lambda v: str(v)[:60])
def test_shell_examples_run(page, line, command, where, tmp_path, tmp_path_factory):
    """Lines with a ``skip_reason`` are not collected (CI fails on skipped tests); ``test_examples_are_found``
    keeps the count of runnable lines and the skip-list honest."""
    # one output directory per page, shared by that page's lines in document order (generate, then render)
    out = tmp_path_factory.getbasetemp() / f"docs-{where}-{Path(page).stem}"
    out.mkdir(exist_ok=True)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    argv, stdin = shell_argv(command, out, where)
    proc = subprocess.run(argv, cwd=ROOT if where == "root" else workdir, capture_output=True, text=True,
                          timeout=300, input=stdin.read_text(encoding="utf-8") if stdin else None)
    where_line = f"{page}:{line} ({where}): {command}\n{proc.stderr[-2000:]}"
    assert proc.returncode in (0, 1), where_line
    assert "Traceback" not in proc.stderr, where_line


def test_docs_name_no_files_a_user_does_not_have():
    """No ../shared data, design document or paper file names: say where the user gets the data instead."""
    bad = []
    for page in PAGES:
        for number, text in enumerate(page.read_text().splitlines(), 1):
            if FORBIDDEN.search(text):
                bad.append(f"{rel(page)}:{number}: {text.strip()}")
    assert not bad, "\n".join(bad)
