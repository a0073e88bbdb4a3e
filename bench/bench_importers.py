"""Benchmark: the importers' work on hostile sizes (issue 28 item 8) and the cost of compiling before writing.

Input: generated files (and ../shared/data/recipe2plan/cooking.json when present).  Output: a table, printed;
run ``python bench/bench_importers.py [--repeat N]``:

- the PDDL importer's scan of ``(:requirements`` lists in a domain of N unclosed lists (92 KB at N = 4,000),
  beside the lazy regular expression it used before (quadratic: rescans the rest of the text from each list);
- ``import tdw-mat`` of an episode with R rooms: the doors written and the file's size (at most 50 rooms, so
  at most 1,225 doors; more is an error where 1,000 rooms used to give 499,500 doors, 12.6 MB);
- ``import recipe2plan`` of the real data: converting, and compiling the converted files (the guard that
  nothing written fails to compile).
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COOKING = ROOT.parent / "shared" / "data" / "recipe2plan" / "cooking.json"
if not COOKING.exists():
    COOKING = Path("/work/shared/data/recipe2plan/cooking.json")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def pddl_rows(repeat: int) -> list:
    from chronoplan.compiler.importers.pddl import Source
    old = r"\(\s*:requirements[^)]*?(:derived-predicates)(?![\w-])"
    rows = []
    for n in (1000, 2000, 4000):
        text = "(define (domain d) " + "(:requirements :strips " * n
        src = Source(Path("d.pddl"), text)
        new_t = best(lambda src=src: src.declared(":derived-predicates"), repeat)
        old_t = best(lambda text=text: re.search(old, text, re.IGNORECASE), 1)
        rows.append((f"pddl requirements, {n} unclosed lists ({len(text) // 1000} KB)", f"{new_t * 1000:.1f} ms",
                     f"before: {old_t * 1000:.0f} ms"))
    return rows


def tdw_rows(repeat: int) -> list:
    from chronoplan.compiler.importers import ImportFormatError
    from chronoplan.compiler.importers.tdw_mat import convert
    rows = []
    for rooms in (8, 50, 51, 1000):
        objs = [("apple", f"Room{i}", float(i), 0.0) for i in range(rooms - 1)] + [("sofa", "Bedroom", 0.0, 9.0)]
        cmds = [{"$type": "add_object", "name": n, "position": {"x": x, "z": z}, "category": n}
                for n, _r, x, z in objs]
        meta = {"object_room_list": [[n, r] for n, r, _, _ in objs], "0": {"x": 0, "z": 0}}
        with tempfile.TemporaryDirectory() as tmp:
            ep, md = Path(tmp) / "e.json", Path(tmp) / "m.json"
            ep.write_text(json.dumps(cmds))
            md.write_text(json.dumps(meta))
            try:
                text = next(iter(convert([ep], metadata=str(md), task="food").values()))
                t = best(lambda ep=ep, md=md: convert([ep], metadata=str(md), task="food"), repeat)
                rows.append((f"tdw-mat, {rooms} rooms", f"{t * 1000:.1f} ms",
                             f"{text.count(chr(10) + '  door ')} doors, {len(text.encode()) / 1000:.1f} KB"))
            except ImportFormatError as exc:
                rows.append((f"tdw-mat, {rooms} rooms", "error", str(exc).split(": ", 1)[1][:60]))
    return rows


def r2p_rows(repeat: int) -> list:
    if not COOKING.exists():
        return [("recipe2plan (real data)", "-", f"{COOKING} not found")]
    from chronoplan.commands.importer import compiles
    from chronoplan.compiler.importers.recipe2plan import convert
    files = convert([COOKING])
    conv = best(lambda: convert([COOKING]), repeat)
    check = best(lambda: compiles(files, Path("out"), "dir"), repeat)
    return [("recipe2plan cooking.json: convert", f"{conv * 1000:.0f} ms", ""),
            ("recipe2plan cooking.json: compile before writing", f"{check * 1000:.0f} ms",
             f"{sum(len(t) for t in files.values()) // 1000} KB in {len(files)} files")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = pddl_rows(args.repeat) + tdw_rows(args.repeat) + r2p_rows(args.repeat)
    width = max(len(r[0]) for r in rows)
    for what, t, note in rows:
        print(f"{what:{width}}  {t:>10}  {note}")


if __name__ == "__main__":
    main()
