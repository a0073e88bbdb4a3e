"""The README's commands are the ones CI and newcomers run."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands():
    return re.findall(r"```\n(python3 -m venv[^\n]*)\n```", (ROOT / "README.md").read_text())


def test_readme_has_exactly_two_setup_commands():
    cmds = readme_commands()
    assert len(cmds) == 2
    assert "chronoplan validate" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci.splitlines()


def test_readme_example_files_exist():
    for token in readme_commands()[0].split():
        if token.startswith("domains/"):
            assert (ROOT / token).exists(), token


def test_readme_lists_every_extra():
    """Issue 28 item 20: the extras list named neither `gym` nor `pettingzoo`."""
    import tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    text = (ROOT / "README.md").read_text()
    listed = text[text.index("Optional extras:"):].split("\n\n")[0]
    assert set(re.findall(r"`([a-z]+)` \(", listed)) | {"test"} == set(extras)
