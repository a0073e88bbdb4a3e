"""A minute-by-minute re-statement of TimeArena's released runner and environment (a test oracle for
``--compat timearena``; no code of the original is copied: this is our own statement of its behaviour).

Input: a ``ProcedureProblem`` of ``domains/timearena`` and a list of commands (what the agent answers each time
the runner asks it).  Output: ``play(problem, commands) -> Trace``: per command, the runner's verdict
("ok", "runner" for its own refusals, "occupied", "cannot", "deps", "done") and the minute after it; each step's
completion minute; whether and when everything was completed.

The state is the original's: every object holds a countdown of minutes per role ((verb, 1) for the first object
of a step, (verb, 2) with 0 minutes for the second); background actions count down once per call of the
environment (a wait, an accepted or a refused command, a re-sent occupying action), and their objects are
occupied while the first object's countdown runs; an occupying action counts down once per minute, the runner
re-sending it.  The runner's own refusals (malformed, unknown verb, unknown object) cost a minute without
calling the environment.  The static tables (object names, roles, which prerequisites belong to a step's
second object, the ownership table) are ``ArenaRules``'s, tested on their own against the README.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.procedure.arena_rules import ArenaRules


@dataclass
class Trace:
    verdicts: list = field(default_factory=list)      # (verdict, minute after the command)
    done_at: dict = field(default_factory=dict)       # step key -> minute it completed
    completed: bool = False
    minute: int = 0


class Original:
    def __init__(self, problem: ProcedureProblem) -> None:
        self.rules = rules = ArenaRules.for_problem(problem)
        self.todo: dict = {}                           # (object, verb, role) -> minutes left
        self.step_of: dict = {}                        # (object, verb, role 1 or 0) -> step key
        self.deps: dict = {}                           # (object, verb, role) -> [step keys]
        for r in rules.roles:
            s = problem.step(*r.key)
            role = 1 if r.second is not None else 0
            self.todo[(r.first, r.verb, role)] = int(s.duration)
            self.step_of[(r.first, r.verb, role)] = r.key
            second = set(rules._second_prerequisites(r)) if r.second is not None else set()
            self.deps[(r.first, r.verb, role)] = [(r.key[0], p) for p in s.prerequisites
                                                 if (r.key[0], p) not in second]
            if r.second is not None:
                self.todo.setdefault((r.second, r.verb, 2), 0)
                self.deps.setdefault((r.second, r.verb, 2), sorted(second))
        self.background: list = []                     # [(first attribute, objects)]
        self.minute = 0
        self.busy = None                               # (attribute, command) of the occupying action

    def done(self, key) -> bool:
        return self.todo[next(a for a, k in self.step_of.items() if k == key)] == 0

    def occupied(self, obj: str) -> bool:
        return any(obj in objs for _, objs in self.background)

    def tick(self, trace: Trace) -> None:
        """``update_non_occupy`` and the completions it brings, at the end of the current minute."""
        for attr, _ in self.background:
            if self.todo[attr] > 0:
                self.todo[attr] -= 1
        self.background = [(a, o) for a, o in self.background if self.todo[a] > 0]

    def note(self, trace: Trace) -> None:
        for attr, key in self.step_of.items():
            if self.todo[attr] == 0 and key not in trace.done_at:
                trace.done_at[key] = self.minute

    def env_step(self, words: list, trace: Trace) -> str:
        """One call of the environment with a command the runner passed on."""
        if words == ["wait"]:
            self.tick(trace)
            return "ok"
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        entries = {words[1]: (words[1], verb, 0)} if len(words) == 2 else {}
        if len(words) == 4:
            entries[words[1]] = (words[1], verb, 1)
            entries[words[3]] = (words[3], verb, 2)        # the same name: its second role only
        verdict = None
        for obj, attr in entries.items():
            if self.occupied(obj):
                verdict = "occupied"
            if attr not in self.todo:
                verdict = "cannot"
            elif len(words) == 4 and words[3] in self.rules.owners and words[1] not in self.rules.owners[words[3]]:
                verdict = "cannot"
        if verdict is None:
            for attr in entries.values():
                if any(not self.done(k) for k in self.deps[attr]):
                    verdict = "deps"
                    break
        if verdict is None and any(a[2] != 2 and self.todo[a] == 0 for a in entries.values()):
            verdict = "done"
        if verdict is not None:
            self.tick(trace)
            return verdict
        first = next(iter(entries.values()))
        if first[2] == 2:                              # "V X P X": zero minutes
            self.tick(trace)
            return "ok"
        key = self.step_of[first]
        step = self.rules.problem.step(*key)
        if step.occupy_for >= step.duration:           # occupying: this minute, then re-sent each minute
            self.todo[first] -= 1
            self.tick(trace)
            self.busy = first if self.todo[first] > 0 else None
        else:
            self.background.append((first, tuple(entries)))
            self.tick(trace)
        return "ok"

    def read(self, command: str):
        """The runner's check: the words, or None when it refuses the command itself."""
        words = command.strip().lower().split(" ")
        if words == ["wait"]:
            return words
        if len(words) not in (2, 4):
            return None
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        if verb not in self.rules.verbs:
            return None
        objs = words[1:2] if len(words) == 2 else [words[1], words[3]]
        return words if all(o in self.rules.name_set for o in objs) else None


def play(problem: ProcedureProblem, commands: list, *, limit: int = 400, refusals: int = 5) -> Trace:
    env = Original(problem)
    trace = Trace()
    invalid = 0
    todo = iter(commands)
    pending = None                                     # the verdict waiting for its occupying action to end
    while env.minute < limit and invalid < refusals:
        if env.busy is not None:                       # the runner re-sends the occupying action
            env.todo[env.busy] -= 1
            env.tick(trace)
            if env.todo[env.busy] == 0:
                env.busy = None
        else:
            command = next(todo, None)
            if command is None:
                break
            words = env.read(command)
            verdict = "runner" if words is None else env.env_step(words, trace)
            invalid = 0 if verdict == "ok" else invalid + 1
            trace.verdicts.append((verdict, None))
            pending = len(trace.verdicts) - 1
        env.minute += 1
        env.note(trace)
        if env.busy is None and pending is not None:
            trace.verdicts[pending] = (trace.verdicts[pending][0], env.minute)
            pending = None
        if all(v == 0 for a, v in env.todo.items() if a[2] != 2):
            trace.completed = True
            break
    if pending is not None:
        trace.verdicts[pending] = (trace.verdicts[pending][0], env.minute)
    trace.minute = env.minute
    return trace
