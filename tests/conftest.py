"""Shared pytest configuration.

On CI (environment variable CI set) a skipped test fails the run: every optional tool is installed there,
so a skip means something is missing.
"""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "domains"
SHARED = ROOT.parent / "shared"


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
