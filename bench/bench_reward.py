"""Cost of one reward call: 1,024 completions (valid, faulty, prose-wrapped, chat-shaped) on the bundled recipes.

Input: none (bundled domains).  Output: seconds per call (best and median of the repetitions), completions/s.
Run: python bench/bench_reward.py [--reps N]
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from chronoplan.reward import reward_function

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "domains" / "recipes"
SCEN = "Roast-Chicken_Garlic-Potatoes"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    valid = (RECIPES / "plans" / "valid.json").read_text()
    faulty = (RECIPES / "plans" / "faulty.json").read_text()
    kinds = [valid, faulty, f"Sure! Here is the plan:\n```json\n{valid}\n```",
             [{"role": "assistant", "content": f"<think>plan it</think>{faulty}"}]]
    completions = [kinds[i % len(kinds)] for i in range(1024)]
    for shaping in ("valid", "progress", "makespan"):
        fn = reward_function(str(RECIPES), shaping=shaping)
        fn(completions[:8], scenario=[SCEN] * 8)                       # warm the scenario cache
        times = []
        for _ in range(args.reps):
            t = time.perf_counter()
            fn(completions, scenario=[SCEN] * len(completions))
            times.append(time.perf_counter() - t)
        print(f"{shaping:9s} 1,024 completions: best {min(times):.3f} s, median {statistics.median(times):.3f} s "
              f"({len(completions) / min(times):,.0f} completions/s)")


if __name__ == "__main__":
    main()
