"""Shared pytest configuration.

On CI (environment variable CI set) a skipped test fails the run: every optional tool is installed there,
so a skip means something is missing.

The ``slow`` marker (#28 item 12; registered in pyproject.toml): ``pytest -m "not slow"`` is the fast subset
for a quick check while working (CONTRIBUTING.md); CI runs everything.  A test is slow when it carries
``planners``, ``optimal`` or ``ray`` (it starts planner engines, CP-SAT searches or a Ray instance), or when it
is listed in ``SLOW`` below (the heaviest of the rest: whole-project mypy, fuzzing and property runs, the
differential runs against pure Python and the original evaluators, million-entry plans).
``tests/test_startup.py`` checks that every ``SLOW`` entry names a test that exists.
"""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "domains"
SHARED = ROOT.parent / "shared"


SLOW_WHEN_MARKED = ("planners", "optimal", "ray")
# "file" (every test of the file) or "file::test_function" (every parametrisation of it)
SLOW = (
    "test_types.py",                          # mypy over the whole project, twice
    "test_fuzz.py",                           # hypothesis over every plan family, the CLI soak
    "test_fuzz_importers.py",                 # hypothesis over every importer, each input a subprocess
    "test_fuzz_planningarena_import.py",      # hypothesis over PlanningArena files
    "test_import_hostile_files.py",           # every importer on FIFOs, /dev/zero, oversize files (subprocesses)
    "test_timearena_dropin.py::test_random_episodes_are_byte_identical",   # 200 episodes against the re-statement
    "test_property_compiler.py::test_token_soup",
    "test_property_compiler.py::test_arbitrary_unicode",
    "test_property_compiler.py::test_mutated_domains",
    "test_compiled.py::test_compiled_and_pure_give_identical_results",      # a pure-Python subprocess
    "test_compiled.py::test_build_hook_survives_a_module_cython_cannot_compile",   # runs Cython and gcc
    "test_compat_paracook.py::test_scripted_plans_stay_valid_and_end_at_their_last_action",
    "test_compat_recipe2plan.py::test_compat_agrees_with_the_original_on_references_and_mutants",
    "test_compat_recipe2plan.py::test_reference_plans_are_valid_and_score_one_in_compat_mode",
    "test_compat_recipe2plan.py::test_substitutions_find_the_same_matches_as_the_originals",
    "test_compat_recipe2plan.py::test_a_million_actions",
    "test_procsim_whole.py::test_random_scenarios",
    "test_procsim_whole.py::test_recipe2plan_mutants",
    "test_r2p_paper_rule.py",
    "test_kitchen_bench.py::test_big_map_ten_agents_thousand_actions",
    "test_bench_env.py",
    "test_parallel.py::test_signals_kill_every_worker",
    "test_household_env_digest.py::test_env_outputs_are_byte_identical_to_the_golden_digests",
    "test_docs_examples.py::test_shell_examples_run",       # every documented command, twice: 53 CPU-s of 75
)


def slow_entry(nodeid: str) -> bool:
    """Whether a test's node id (``tests/test_x.py::test_y[param]``) is covered by ``SLOW``."""
    path, _, name = nodeid.partition("::")
    file = path.rsplit("/", 1)[-1]
    return file in SLOW or f"{file}::{name.split('[', 1)[0]}" in SLOW


def pytest_collection_modifyitems(config, items):
    for item in items:
        if slow_entry(item.nodeid) or any(item.get_closest_marker(m) for m in SLOW_WHEN_MARKED):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def root():
    return ROOT


def pytest_sessionfinish(session, exitstatus):
    if not os.environ.get("CI"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and exitstatus == 0:
        reporter.write_line(f"CI: {skipped} test(s) skipped; every optional tool must be installed on CI",
                            red=True)
        session.exitstatus = 1
