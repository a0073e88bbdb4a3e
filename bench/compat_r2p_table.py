"""Where chronoplan's default grading and ``--compat recipe2plan`` disagree, per kind of mutant.

Input: the Recipe2Plan data (../shared/data/recipe2plan, through tests/r2pdata.py) and the seeded mutants of
tests/r2p_mutants.py (the corpus of tests/test_compat_recipe2plan.py: every reference plan and one mutant
per kind of each, graded against its own instance, with and without time constraints).  Output: a Markdown
table on stdout: per kind, the number of plans, how many get a different verdict (valid or not), split by
direction, and how many get a different progress.  Run ``python bench/compat_r2p_table.py``
(about a minute); docs/benchmarks/recipe2plan.md quotes its output.
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import r2p_mutants as M  # noqa: E402
import r2pdata  # noqa: E402

from chronoplan.validators.compat.recipe2plan import grade_plan, model_for  # noqa: E402
from chronoplan.validators.replay import validate_plan  # noqa: E402


def main() -> None:
    instances = {"_".join(r["recipe"] for r in inst): inst for inst in r2pdata.cooking()}
    rows: dict = collections.defaultdict(collections.Counter)
    for key in r2pdata.keys():
        for constrained in (True, False):
            ent = r2pdata.plans()[key]["plan_w_restriction" if constrained else "plan_wo_restriction"]
            if ent is None:
                continue
            problem = r2pdata.problem(key, constrained)
            model = model_for(problem)
            corpus = [("reference", M.render(ent))] + M.mutants(ent, instances[key], f"{key}:{constrained}")
            for kind, text in corpus:
                ours = validate_plan(problem, text)
                orig = grade_plan(problem, text, model=model)
                row = rows[kind]
                row["plans"] += 1
                row["default valid, compat invalid"] += ours.valid and not orig.valid
                row["default invalid, compat valid"] += orig.valid and not ours.valid
                row["progress differs"] += float(ours.metrics["progress"]) != orig.metrics["progress"]
    cols = ["plans", "default valid, compat invalid", "default invalid, compat valid", "progress differs"]
    print("| kind | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    total: collections.Counter = collections.Counter()
    for kind in ["reference"] + list(M.KINDS):
        total.update(rows[kind])
        print(f"| {kind} | " + " | ".join(str(rows[kind][c]) for c in cols) + " |")
    print("| all | " + " | ".join(str(total[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
