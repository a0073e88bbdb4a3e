"""Speed of the TimeArena-protocol environment: ``env.step`` calls per second, chronoplan against a
re-statement of the original TimeArena stepping rules, on the same command sequences.

Input: the bundled TimeArena domain (domains/timearena): the 30 single tasks and a few combinations.  Each
scenario's sequence is the scripted play of an optimal schedule (tests/timearena_exact.py): the step's text at
its start minute, else "wait", until the episode ends; a second sequence per scenario adds refusals (an
unknown command and a repeated step before every start).  Output: a table on stdout: commands per second
for chronoplan's ``Env.step`` (observation not read, as the Gymnasium wrapper does, and read after every
step), and for ``OriginalArena`` below, with the ratios measured in the same run (CPU time, best of ``--rounds``
alternating rounds).  Usage: python bench/bench_env.py [--rounds N] [--quick]

``OriginalArena`` re-states what the original environment does per call (facts: the TimeArena README in
/work/shared/data/timearena; no code of the original is used): one call is one minute; a command is looked
up among the task's actions, checked (already complete, unmet prerequisite, an object occupied by a running
background action) and started; an occupying action is re-sent by the runner every minute until it
completes (so one command of an occupying action of d minutes is d calls); background actions complete when
their minutes have passed; every call recomputes the progress score (completed minutes over the total
minutes of all actions, the total summed again each call, floored) and builds its observation text (the
feedback, the time, the score and the objects' states).  Commands per second count the agent's commands (one
per line of the sequence), the same unit for both; the original's raw calls per second are shown too.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from fractions import Fraction
from pathlib import Path

import chronoplan
from chronoplan.compiler.instantiate import ProcedureProblem, procedure_problem
from chronoplan.runtime.procedure.env import Env

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from timearena_exact import solve  # noqa: E402

CATS = ("cooking", "household", "lab")
COMBOS = ("household1_2", "lab9_10_1", "cooking1_2", "household4_5_6")
JUNK = "juggle the pans"
LIMIT = Fraction(10_000)          # the scripted plays with refusals run past the scenarios' limits
DATA = Path("/work/shared/data/timearena/tasks.json")


def verb_patterns(path: Path = DATA) -> list:
    """The 44 verbs' usage templates (tasks.json ``verbs``) as (verb, regex): ``add OBJ1 to OBJ2`` ->
    ``add (\\S+) to (\\S+)``; [] when the facts are not available."""
    if not path.is_file():
        return []
    verbs = json.loads(path.read_text(encoding="utf-8"))["verbs"]
    return [(name, re.compile(re.sub(r"OBJ[12]?", r"(\\S+)", v["usage"]))) for name, v in verbs.items()]


class OriginalArena:
    """The original's stepping rules, re-stated (see the module docstring); one agent, whole minutes."""

    def __init__(self, problem: ProcedureProblem, texts: dict, verbs: list) -> None:
        scale = 1 if problem.time_unit.seconds is None else Fraction(60, problem.time_unit.seconds)
        self.verbs = verbs
        self.actions = []
        self.by_verb: dict = {}             # (verb, OBJ1) -> action; OBJ2 is matched loosely
        for s in problem.steps:
            text = texts[s.key].lower()
            named = [w for w in text.split(" ") if any(w == r.name for r in problem.resources)]
            a = {"text": text, "key": s.key, "minutes": int(s.duration / scale),
                 "occupies": s.occupy_for >= s.duration, "objects": named or [u.resource for u in s.uses],
                 "requires": [(s.task, p) for p in s.prerequisites]}
            self.actions.append(a)
            self.by_verb[self.parse(text) or (text, ())] = a
        self.objects = {r.name: "initial" for r in problem.resources}
        self.reset()

    def parse(self, text: str):
        """(verb, OBJ1) of a command by the verbs' usage templates, None when no template fits."""
        for verb, rx in self.verbs:
            m = rx.fullmatch(text)
            if m:
                return verb, m.group(1)
        return None

    def reset(self) -> str:
        self.time = 0
        self.complete: set = set()
        self.running: list = []          # [action, end minute]
        self.busy_until = 0
        self.refusals = 0
        self.states = dict(self.objects)
        return self.observation("Start.")

    def progress(self) -> int:
        total = sum(a["minutes"] for a in self.actions)
        done = sum(a["minutes"] for a in self.actions if a["key"] in self.complete)
        return math.floor(100 * done / total) if total else 100

    def observation(self, feedback: str) -> str:
        objs = ", ".join(f"{name} ({state})" for name, state in self.states.items())
        return f"{feedback}\nCurrent time: {self.time} min.\nObjects: {objs}.\nProgress score: {self.progress()}."

    def _tick(self) -> None:
        self.time += 1
        still = []
        for a, end in self.running:
            if end <= self.time:
                self.complete.add(a["key"])
                for o in a["objects"][:1]:
                    self.states[o] = a["text"].split(" ")[0] + "ed"
            else:
                still.append((a, end))
        self.running = still

    def _unreadable(self, feedback: str) -> str:
        self.refusals += 1
        self.time += 1                            # no background progress on these refusals (quirk)
        return self.observation(feedback)

    def step(self, command: str) -> str:
        text = command.strip().lower()
        if self.time < self.busy_until:           # the runner's re-sent command of an occupying action
            self._tick()
            return self.observation(f"You keep doing {text}.")
        if text == "wait":
            self._tick()
            return self.observation("You wait.")
        if self.verbs:
            parsed = self.parse(text)
            if parsed is None:
                return self._unreadable(f"Unknown action: {text}. Valid verbs: "
                                        + ", ".join(v for v, _ in self.verbs) + ".")
            objs = [o for o in text.split(" ")[1:] if o in self.states or "_" in o]
            if parsed[1] not in self.states:
                return self._unreadable(f"Unknown object {parsed[1]}. Valid objects: "
                                        + ", ".join(self.states) + ".")
            action = self.by_verb.get(parsed)
        else:
            objs = []
            action = self.by_verb.get((text, ()))
        if action is None:
            self.refusals += 1
            self._tick()
            return self.observation(f"You cannot {text}: the verb does not fit {', '.join(objs)}.")
        feedback = ""
        busy = {o for a, _ in self.running for o in a["objects"]}
        if action["key"] in self.complete or any(a is action for a, _ in self.running):
            feedback = f"{text} is already complete."
        elif any(r not in self.complete for r in action["requires"]):
            feedback = f"You cannot {text} yet."
        elif any(o in busy for o in action["objects"]):
            feedback = f"An object of {text} is occupied."
        if feedback:
            self.refusals += 1
            self._tick()
            return self.observation(feedback)
        self.refusals = 0
        end = self.time + action["minutes"]
        if action["occupies"]:
            self.busy_until = end
        self.running.append((action, end))
        self._tick()
        return self.observation(f"You start to {text}." if action["occupies"] else f"{text} runs on its own.")


def sequences(quick: bool) -> list:
    project = chronoplan.load(str(ROOT / "domains" / "timearena"))
    names = [f"{c}{i}" for c in CATS for i in range(1, 11)] + list(COMBOS)
    if quick:
        names = names[::5]
    out = []
    for name in names:
        p = procedure_problem(project, project.scenarios[name])
        if len(p.agents) != 1:
            continue
        sol = solve(p)
        by_start = {t: k for k, t in sol.starts.items()}
        for noisy in (False, True):
            env = Env(p, limit=LIMIT)
            cmds: list[str] = []
            shift = 0                                    # minutes spent on refused commands so far
            while not env.done:
                key = by_start.get(int(env.time) - shift)
                if key is None:
                    cmd = "wait"
                else:
                    cmd = env.texts[key]
                    if noisy and cmds[-1:] != [JUNK]:
                        cmd, shift = JUNK, shift + 1     # refused (unknown), one minute; then the step
                env.step(cmd)
                cmds.append(cmd)
            if not env.success:
                raise AssertionError(f"{name}: the scripted play did not complete ({env.end_reason})")
            out.append((name + (" +refusals" if noisy else ""), p, env.texts, cmds))
    return out


def run_chronoplan(seqs: list, read: bool) -> tuple[int, float]:
    n = 0
    t0 = time.process_time()
    for _, p, _, cmds in seqs:
        env = Env(p, limit=LIMIT)
        for c in cmds:
            obs, _ = env.step(c)
            if read:
                str(obs)
            n += 1
    return n, time.process_time() - t0


def run_original(seqs: list, verbs: list) -> tuple[int, int, float]:
    n = calls = 0
    t0 = time.process_time()
    for _, p, texts, cmds in seqs:
        env = OriginalArena(p, texts, verbs)
        for c in cmds:
            env.step(c)
            calls += 1
            n += 1
            while env.time < env.busy_until:        # the runner re-sends the command each minute
                env.step(c)
                calls += 1
    return n, calls, time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="every fifth scenario, 3 rounds")
    args = ap.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    seqs = sequences(args.quick)
    verbs = verb_patterns()
    best: dict = {}
    for _ in range(rounds):
        for case in ("original", "lazy", "read"):
            if case == "original":
                n, calls, dt = run_original(seqs, verbs)
                best["original_calls"] = calls
            else:
                n, dt = run_chronoplan(seqs, case == "read")
            best[case] = min(best.get(case, math.inf), dt)
            best["n"] = n
    n = best["n"]
    orig = n / best["original"]
    print(f"{len(seqs)} sequences, {n} commands ({best['original_calls']} calls of the original), "
          f"CPU time, best of {rounds} alternating rounds")
    print(f"{'case':58} {'commands/s':>11} {'x original':>10}")
    print(f"{'original (re-stated), observation built every call':58} {orig:11,.0f} {1.0:10.2f}")
    print(f"{'  its raw calls/s (re-sent occupying commands included)':58} "
          f"{best['original_calls'] / best['original']:11,.0f}")
    for case, label in (("lazy", "chronoplan Env.step, observation not read"),
                        ("read", "chronoplan Env.step, observation read every step")):
        v = n / best[case]
        print(f"{label:58} {v:11,.0f} {v / orig:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
