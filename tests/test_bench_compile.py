"""pytest-benchmark: compiling every bundled domain (run ``pytest tests/test_bench_compile.py
--benchmark-enable`` for timings; by default it runs once as a correctness test)."""
from pathlib import Path

from chronoplan import compile_paths

DOMAINS = Path(__file__).resolve().parent.parent / "domains"


def test_compile_all_bundled_domains(benchmark):
    project, diags, _ = benchmark(compile_paths, DOMAINS)
    assert project is not None
    assert not [d for d in diags if d.is_error]
