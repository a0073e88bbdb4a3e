"""Speed of the TimeArena-protocol environment: ``env.step`` calls per second, chronoplan against a
re-statement of the original TimeArena stepping rules, on the same command sequences.

Input: the bundled TimeArena domain (domains/timearena): the 30 single tasks and a few combinations.  Each
scenario's sequence is the scripted play of an optimal schedule (tests/timearena_exact.py): the step's text at
its start minute, else "wait", until the episode ends; a second sequence per scenario adds refusals (an
unknown command and a repeated step before every start).  Output: a table on stdout: commands per second
for chronoplan's ``Env.step`` (observation not read, as the Gymnasium wrapper does, and read after every
step), and for ``OriginalArena`` below, with the ratios measured in the same run (CPU time, best of ``--rounds``
alternating rounds).  Usage: python bench/bench_env.py [--rounds N] [--quick] [--original DIR]

``--original DIR`` also times the released TimeArena environment itself, imported from DIR, a checkout of
github.com/ykzhang721/TimeArena (the directory holding the ``TimeArena`` package; its ``__init__`` imports the
model clients, so when that import fails the package is loaded without it and only ``TimeArena.environment`` is
imported).  It plays the same command sequences as ``OriginalArena``, as the released runner sends them (each
sequence's environment built with ``load(args)`` inside the timing; an occupying action re-sent while
``step`` says the agent is occupied; a command the runner refuses itself never reaches the environment).  The
table then adds the released code's commands per second, the stand-in's speed relative to it (how far the
stand-in's ratios are from the ratios to the real thing) and every chronoplan row's ratio to the released code.
A DIR without the package is an error (exit 2).

``OriginalArena`` re-states what the original environment does per call (facts: the TimeArena README in
/work/shared/data/timearena; no code of the original is used): one call is one minute; a command is looked
up among the task's actions, checked (already complete, unmet prerequisite, an object occupied by a running
background action) and started; an occupying action is re-sent by the runner every minute until it
completes (so one command of an occupying action of d minutes is d calls); background actions complete when
their minutes have passed; every call recomputes the progress score (completed minutes over the total
minutes of all actions, the total summed again each call, floored) and builds its observation text (the
feedback, the time, the score and the objects' states).  Commands per second count the agent's commands (one
per line of the sequence), the same unit for both; the original's raw calls per second are shown too.

chronoplan's rows run ``Env``'s default engine (the fast engine of ``runtime.procedure.arena_fast`` for these
scenarios) and, in the rows marked "exact engine", ``Env(..., engine="exact")`` (``ProcState``), both in the same
run.  The TimeArena-compatible configuration (``Env(rules=Rules.TIMEARENA, feedback=FeedbackStyle.TIMEARENA,
stepping=Stepping.MINUTE)``: the original's rules and sentences, one call per minute, an occupying action
re-sent by the runner while the agent is occupied, no run-on to the last completion) plays the same schedules
minute by minute (``minute_calls``); it is compared call for call with the original's raw calls per second,
its feedback message (the sentences the agent reads) taken every call.  The Gymnasium wrapper
(``chronoplan.envs.TimeArenaEnv``) must return the observation text from ``step``: its rows time ``reset()``
and every ``step`` of an environment built beforehand, with the status block (default) or the sentences
(TimeArena configuration).  The first rows build each sequence's environment inside the timing (the original's
construction matches every action against the 44 verb templates, a large share of its time); the rows "env.step
alone" build them beforehand and time the calls only.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import re
import sys
import time
import types
from fractions import Fraction
from pathlib import Path

import chronoplan
from chronoplan.compiler.instantiate import ProcedureProblem, procedure_problem
from chronoplan.envs import TimeArenaEnv
from chronoplan.runtime.procedure.arena_rules import ArenaRules, Rules
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from shared_data import shared_data  # noqa: E402
from timearena_exact import solve  # noqa: E402

CATS = ("cooking", "household", "lab")
COMBOS = ("household1_2", "lab9_10_1", "cooking1_2", "household4_5_6")
JUNK = "juggle the pans"
LIMIT = Fraction(10_000)          # the scripted plays with refusals run past the scenarios' limits
DATA = shared_data("timearena", "tasks.json")


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


ARENA = {"rules": Rules.TIMEARENA, "feedback": FeedbackStyle.TIMEARENA, "stepping": Stepping.MINUTE}


def minute_calls(seqs: list) -> list:
    """Per sequence of ``sequences``: (name, problem, the calls a TimeArena runner sends to the TimeArena-compatible
    configuration) for the same schedule: the step's command (under the original's object names) at its start
    minute, the same command re-sent while the agent is occupied, else "wait", until the episode ends; with
    refusals, a malformed command before each start (the runner refuses it and the minute passes)."""
    out = []
    for name, p, _, _ in seqs[::2]:
        sol = solve(p)
        by_start = {t: k for k, t in sol.starts.items()}
        agent = p.agents[0]
        for noisy in (False, True):
            env = Env(p, limit=LIMIT, **ARENA)
            calls: list[str] = []
            shift = 0
            while not env.done:
                now = env._now
                if calls and env.state.agent_free_at(agent, now) > now:
                    cmd = calls[-1]                          # the runner re-sends the occupying action
                else:
                    key = by_start.get(int(env.time) - shift)
                    if key is None:
                        cmd = "wait"
                    else:
                        cmd = env.texts[key]
                        if noisy and calls[-1:] != [JUNK]:
                            cmd, shift = JUNK, shift + 1
                env.step(cmd)
                calls.append(cmd)
            if not env.success:
                raise AssertionError(f"{name} (TimeArena configuration): the scripted play did not complete "
                                     f"({env.end_reason})")
            out.append((name + (" +refusals" if noisy else ""), p, calls))
    return out


def run_arena(calls: list) -> tuple[int, float]:
    n = chars = 0
    t0 = time.process_time()
    for _, p, cmds in calls:
        env = Env(p, limit=LIMIT, **ARENA)
        for c in cmds:
            _, fb = env.step(c)
            chars += len(fb.message)                 # the sentences the agent reads
            n += 1
    return n, time.process_time() - t0


def gym_envs(seqs: list, calls: list) -> tuple[list, list]:
    """Gymnasium environments (built here, outside the timing) with their command lists: the status block
    (default options) on ``seqs``, the TimeArena configuration on ``calls``."""
    project = chronoplan.load(str(ROOT / "domains" / "timearena"))
    status = [(TimeArenaEnv(project, name.split(" ")[0], limit=LIMIT), cmds) for name, _, _, cmds in seqs]
    arena = [(TimeArenaEnv(project, name.split(" ")[0], limit=LIMIT, compat="timearena",
                           feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE), cmds)
             for name, _, cmds in calls]
    return status, arena


def run_gym(envs: list) -> tuple[int, float]:
    n = 0
    t0 = time.process_time()
    for env, cmds in envs:
        env.reset()
        for c in cmds:
            env.step(c)
            n += 1
    return n, time.process_time() - t0


def run_chronoplan(seqs: list, read: bool, built: bool = False, engine: str = "auto") -> tuple[int, float]:
    n = 0
    envs = [Env(p, limit=LIMIT, engine=engine) for _, p, _, _ in seqs] if built else None
    t0 = time.process_time()
    for i, (_, p, _, cmds) in enumerate(seqs):
        env = envs[i] if envs is not None else Env(p, limit=LIMIT, engine=engine)
        for c in cmds:
            obs, _ = env.step(c)
            if read:
                str(obs)
            n += 1
    return n, time.process_time() - t0


def run_original(seqs: list, verbs: list, built: bool = False) -> tuple[int, int, float]:
    n = calls = 0
    envs = [OriginalArena(p, texts, verbs) for _, p, texts, _ in seqs] if built else None
    t0 = time.process_time()
    for i, (_, p, texts, cmds) in enumerate(seqs):
        env = envs[i] if envs is not None else OriginalArena(p, texts, verbs)
        for c in cmds:
            env.step(c)
            calls += 1
            n += 1
            while env.time < env.busy_until:        # the runner re-sends the command each minute
                env.step(c)
                calls += 1
    return n, calls, time.process_time() - t0


class OriginalMissing(Exception):
    """``--original DIR``: DIR holds no importable released TimeArena environment."""


def released_class(directory: str) -> type:
    """The released ``TimeArena`` environment class, imported from ``directory`` (see the module docstring)."""
    root = Path(directory)
    pkg = root / "TimeArena"
    if not (pkg / "environment.py").is_file():
        raise OriginalMissing(f"--original {directory}: no TimeArena/environment.py there; give the directory of a "
                              "checkout of github.com/ykzhang721/TimeArena (the one holding the TimeArena package)")
    sys.path.insert(0, str(root.resolve()))
    for name in [m for m in sys.modules if m == "TimeArena" or m.startswith("TimeArena.")]:
        del sys.modules[name]                          # another DIR's package, imported before
    try:
        try:
            module = importlib.import_module("TimeArena")
        except ImportError as exc:
            if exc.name is not None and exc.name.split(".")[0] == "TimeArena":
                raise
            # the model clients are missing: skip the package's __init__
            for name in [m for m in sys.modules if m == "TimeArena" or m.startswith("TimeArena.")]:
                del sys.modules[name]
            shell = types.ModuleType("TimeArena")
            shell.__path__ = [str(pkg.resolve())]
            sys.modules["TimeArena"] = shell
            module = importlib.import_module("TimeArena.environment")
    except Exception as exc:  # noqa: BLE001 - any failure of foreign code is reported, not raised
        raise OriginalMissing(f"--original {directory}: importing its TimeArena package failed: "
                              f"{type(exc).__name__}: {exc}") from exc
    cls = getattr(module, "TimeArena", None)
    if not isinstance(cls, type) or not all(callable(getattr(cls, m, None)) for m in ("load", "step")):
        raise OriginalMissing(f"--original {directory}: its TimeArena package has no TimeArena class with "
                              "load() and step()")
    return cls


def released_sequences(seqs: list) -> list:
    """Per sequence of ``sequences``: (task names, constraint, the commands under the original's object names,
    None for a command the released runner refuses itself)."""
    out = []
    for name, p, texts, cmds in seqs:
        scenario = name.split(" ")[0]
        m = re.fullmatch(r"([a-z]+)(\d+(?:_\d+)*)(_constrained)?", scenario)
        if m is None:
            raise AssertionError(f"{scenario}: not a TimeArena task combination")
        tasks = [f"{m.group(1)}{n}" for n in m.group(2).split("_")]
        original = ArenaRules.for_problem(p).texts
        to_original = {texts[k]: original[k] for k in texts}
        out.append((tasks, m.group(3) is not None,
                    [None if c == JUNK else "wait" if c == "wait" else to_original[c] for c in cmds]))
    return out


def run_released(cls: type, seqs: list) -> tuple[int, int, float]:
    """The released environment on ``released_sequences``: (commands, calls, CPU seconds)."""
    n = calls = 0
    t0 = time.process_time()
    for tasks, constraint, cmds in seqs:
        env = cls()
        env.load(argparse.Namespace(taskName=list(tasks), constraint=constraint))
        for c in cmds:
            n += 1
            if c is None:
                continue
            busy = env.step(c)[3]
            calls += 1
            while busy:                                 # the runner re-sends the command each minute
                busy = env.step(c)[3]
                calls += 1
    return n, calls, time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="every fifth scenario, 3 rounds")
    ap.add_argument("--original", metavar="DIR",
                    help="also time the released TimeArena environment, imported from this checkout")
    args = ap.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    released = None
    if args.original is not None:
        try:
            released = released_class(args.original)
        except OriginalMissing as exc:
            print(f"bench_env.py: {exc}", file=sys.stderr)
            return 2
    seqs = sequences(args.quick)
    released_seqs = released_sequences(seqs) if released is not None else []
    verbs = verb_patterns()
    calls = minute_calls(seqs)
    gym_status, gym_arena = gym_envs(seqs, calls)
    best: dict = {}
    count: dict = {}
    for _ in range(rounds):
        for case in ("original", "lazy", "read", "lazy_exact", "read_exact", "arena", "gym", "gym_arena",
                     "original_built", "lazy_built", "read_built", "lazy_exact_built", "read_exact_built",
                     *(("released",) if released is not None else ())):
            if case == "released":
                n, raw, dt = run_released(released, released_seqs)
                count["released_calls"] = raw
            elif case == "original":
                n, raw, dt = run_original(seqs, verbs)
                count["original_calls"] = raw
            elif case == "original_built":
                n, _, dt = run_original(seqs, verbs, built=True)
            elif case.endswith("_built"):
                n, dt = run_chronoplan(seqs, case.startswith("read"), built=True,
                                       engine="exact" if "exact" in case else "auto")
            elif case == "arena":
                n, dt = run_arena(calls)
            elif case in ("gym", "gym_arena"):
                n, dt = run_gym(gym_status if case == "gym" else gym_arena)
            else:
                n, dt = run_chronoplan(seqs, case.startswith("read"), engine="exact" if "exact" in case else "auto")
            best[case] = min(best.get(case, math.inf), dt)
            count[case] = n
    n = count["original"]
    best["original_calls"] = count["original_calls"]
    orig = n / best["original"]
    orig_calls = best["original_calls"] / best["original"]
    print(f"{len(seqs)} sequences, {n} commands ({best['original_calls']} calls of the original), "
          f"CPU time, best of {rounds} alternating rounds")
    print(f"{'case':58} {'commands/s':>11} {'x original':>10}")
    print(f"{'original (re-stated), observation built every call':58} {orig:11,.0f} {1.0:10.2f}")
    print(f"{'  its raw calls/s (re-sent occupying commands included)':58} {orig_calls:11,.0f}")
    for case, label in (("lazy", "chronoplan Env.step, observation not read"),
                        ("read", "chronoplan Env.step, observation read every step"),
                       ("lazy_exact", "  the same, exact engine (engine=\"exact\"), not read"),
                       ("read_exact", "  the same, exact engine (engine=\"exact\"), read"),
                        ("gym", "Gymnasium TimeArenaEnv.step (obs: feedback + status)")):
        v = n / best[case]
        print(f"{label:58} {v:11,.0f} {v / orig:10.2f}")
    built = n / best["original_built"]
    print(f"{'env.step alone (environments built beforehand): original':58} {built:11,.0f} {1.0:10.2f}")
    print(f"{'  its raw calls/s':58} {count['original_calls'] / best['original_built']:11,.0f}")
    for case, label in (("lazy_built", "env.step alone: chronoplan, observation not read"),
                        ("read_built", "env.step alone: chronoplan, observation read every step"),
                       ("lazy_exact_built", "  the same, exact engine, not read"),
                       ("read_exact_built", "  the same, exact engine, read")):
        v = n / best[case]
        print(f"{label:58} {v:11,.0f} {v / built:10.2f}")
    print(f"TimeArena configuration (rules, sentences, one call per minute): {count['arena']} calls; "
          "x original's raw calls/s")
    for case, label in (("arena", "chronoplan Env.step, TimeArena configuration"),
                        ("gym_arena", "Gymnasium TimeArenaEnv.step, TimeArena configuration")):
        v = count[case] / best[case]
        print(f"{label:58} {v:11,.0f} {v / orig_calls:10.2f}")
    if released is not None:
        print_released(n, best, count, orig, orig_calls)
    return 0


def print_released(n: int, best: dict, count: dict, orig: float, orig_calls: float) -> None:
    """The rows measured against the released code (``--original``)."""
    real = n / best["released"]
    real_calls = count["released_calls"] / best["released"]
    print(f"Against the released TimeArena code (--original; environments built every sequence), "
          f"{count['released_calls']} calls")
    print(f"{'case':58} {'commands/s':>11} {'x released':>10}")
    print(f"{'released TimeArena environment':58} {real:11,.0f} {1.0:10.2f}")
    print(f"{'  its raw calls/s':58} {real_calls:11,.0f}")
    print(f"{'original (re-stated): the stand-in of the rows above':58} {orig:11,.0f} {orig / real:10.2f}")
    for case, label in (("lazy", "chronoplan Env.step, observation not read"),
                        ("read", "chronoplan Env.step, observation read every step"),
                        ("gym", "Gymnasium TimeArenaEnv.step (obs: feedback + status)")):
        v = n / best[case]
        print(f"{label:58} {v:11,.0f} {v / real:10.2f}")
    for case, label in (("arena", "chronoplan Env.step, TimeArena configuration (calls/s)"),
                        ("gym_arena", "Gymnasium, TimeArena configuration (calls/s)")):
        v = count[case] / best[case]
        print(f"{label:58} {v:11,.0f} {v / real_calls:10.2f}")


if __name__ == "__main__":
    sys.exit(main())
