"""The rules of TimeArena's released code for the interactive environment (``Env(..., rules=Rules.TIMEARENA)``).

Input: a one-agent ``ProcedureProblem`` whose steps are written as TimeArena commands ("VERB OBJ" or "VERB OBJ1
PREP OBJ2", naming the objects the step uses, in that order: the shape of ``domains/timearena``), and then, per
command, the environment it acts on.  Output: ``Rules`` (the enum ``Env`` takes), ``ArenaRules`` (the objects,
verbs and roles of the original's view of the problem; ``texts`` the commands under the original's object
names; ``command(env, agent, text, t) -> Feedback``) and ``ArenaShapeError`` (a problem the original could
not hold, with the step that shows it).

What it reproduces (github.com/ykzhang721/TimeArena, runner ``LLM_test.py`` and ``TimeArena/environment.py``;
docs/benchmarks/timearena.md, "--compat timearena", lists each with the line of behaviour):

1. Reading: the runner lowercases and strips a command and splits it at single spaces; "wait" alone waits a
   minute.  A command of 1, 3 or more than 4 words (so trailing punctuation, quotes, "wait 3", doubled spaces),
   an unknown verb or an unknown object is refused by the runner before the environment sees it: the minute is
   charged but background actions do not advance (``pause``: every running step ends one minute later).
2. Objects are named as the original names them: a name several objects share (pools of capacity 2 count
   twice) gets ``_1``, ``_2``, ... in task order, then object order; ``pot``, ``fryer`` and ``oven`` stay
   shared.  Each instance is occupied on its own.
3. Loose second object: "V A P X" runs A's "V ... P" step with any object X that is the second object of a
   "V ... P" step of the combination (X's own prerequisites for that role replace those of the step's
   object; X is the object occupied), unless the original's ownership table refuses the pair: a task's
   second objects (not named like pot, fryer or oven) take only that task's suffixed first objects.  "V X P
   X" is accepted and does nothing (zero minutes).
4. Refusal order: occupied object, a verb that does not fit, the ownership table (the last object's reason
   wins), then an unmet prerequisite, then "already done".  These refusals charge the minute and running
   steps go on.
5. No run-on: when every step left is running, the agent still has to send a command each minute
   (``Env`` asks ``runs_on``).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem, SchedStep
from chronoplan.runtime.events import END
from chronoplan.runtime.procedure.records import Chunk, Run, step_name
from chronoplan.runtime.violations import Violation

if TYPE_CHECKING:                      # the environment is only handed in
    from chronoplan.runtime.procedure.env import Env, Feedback

CONTAINERS = ("pot", "fryer", "oven")            # shared when suffixed; the ownership table skips names with them
MALFORMED, UNKNOWN_VERB, UNKNOWN_OBJECT = "malformed", "unknown verb", "unknown object"
SIM_OWNED = frozenset({"E301", "E411"})          # checked here under the original's names, not by the simulator


class Rules(Enum):
    """The interactive environment's rules: the paper's (chronoplan's default) or TimeArena's released code."""

    PAPER = "paper"
    TIMEARENA = "timearena"


class ArenaShapeError(ValueError):
    """A scenario the original's rules cannot be applied to (several agents, a step not written as a command)."""


@dataclass(frozen=True)
class Role:
    """One step as the original sees it: verb ("wash", "cook in"), first object, second object (or None),
    all under the original's object names."""

    key: tuple[str, int]
    verb: str
    first: str
    second: Optional[str]

    def text(self) -> str:
        if self.second is None:
            return f"{self.verb} {self.first}"
        v, p = self.verb.split(" ")
        return f"{v} {self.first} {p} {self.second}"


def _words(step: SchedStep) -> list[str]:
    return step.text.strip().lower().split(" ")


def _names(problem: ProcedureProblem) -> tuple[dict, dict, list, frozenset]:
    """(resource -> its objects' original names, original name -> task, all names in order, the names the
    original labels "Only for Task k": suffixed, and not a pot, fryer or oven)."""
    owner: dict = {}
    for s in problem.steps:
        for u in s.uses:
            owner.setdefault(u.resource, s.task)
    count: dict = {}
    for r in problem.resources:
        count[r.declared] = count.get(r.declared, 0) + r.capacity
    seen: dict = {}
    objects: dict = {}
    task_of: dict = {}
    order: list = []
    labelled = set()
    for r in problem.resources:
        names = []
        for _ in range(r.capacity):
            if count[r.declared] > 1:
                seen[r.declared] = seen.get(r.declared, 0) + 1
                names.append(f"{r.declared}_{seen[r.declared]}")
                if r.declared not in CONTAINERS:
                    labelled.add(names[-1])
            else:
                names.append(r.declared)
        objects[r.name] = names
        for n in names:
            task_of[n] = owner.get(r.name)
            order.append(n)
    return objects, task_of, order, frozenset(labelled)


def _object(problem: ProcedureProblem, objects: dict, s: SchedStep, word: str, resource: str) -> str:
    """The original name of the object ``word`` of step ``s`` names (its ``resource``; a pool's k-th
    instance when written ``name_k``)."""
    res = problem.resource(resource)
    names = objects.get(resource, [])
    if res is None or not names:
        raise ArenaShapeError(f"--compat timearena: {step_name(s.key)} uses {resource}, which is not declared")
    if word == res.declared:
        return names[0]
    base, _, k = word.rpartition("_")
    if base == res.declared and k.isdigit() and 1 <= int(k) <= max(len(names), 2):
        return names[min(int(k), len(names)) - 1]   # a pool's instance as the task alone names it (one when shared)
    if word == res.name:
        return names[0]
    raise ArenaShapeError(f"--compat timearena: {step_name(s.key)} \"{s.text}\" names {word!r} where it uses "
                          f"{res.declared}: TimeArena commands name the objects the step uses, in order")


def _roles(problem: ProcedureProblem, objects: dict) -> list[Role]:
    out = []
    for s in problem.steps:
        w = _words(s)
        uses = [u.resource for u in s.uses]
        if len(w) == 2 and len(uses) == 1:
            out.append(Role(s.key, w[0], _object(problem, objects, s, w[1], uses[0]), None))
        elif len(w) == 4 and len(uses) == 2:
            out.append(Role(s.key, f"{w[0]} {w[2]}", _object(problem, objects, s, w[1], uses[0]),
                            _object(problem, objects, s, w[3], uses[1])))
        else:
            raise ArenaShapeError(
                f"--compat timearena: {step_name(s.key)} \"{s.text}\" is not a TimeArena command naming the "
                f"objects it uses (\"VERB OBJ\" using one object, or \"VERB OBJ1 PREP OBJ2\" using two)")
    return out


class ArenaRules:
    """The original's view of one problem (built once per problem: ``for_problem``; read only); per-episode data
    (the objects each run occupies) is kept on the episode's simulator state."""

    def __init__(self, problem: ProcedureProblem) -> None:
        if len(problem.agents) != 1:
            raise ArenaShapeError(f"--compat timearena: scenario {problem.scenario} has {len(problem.agents)} "
                                  "agents; TimeArena has one")
        self.problem = problem
        self.objects, self.task_of, self.names, self.labelled = _names(problem)
        self.name_set = frozenset(self.names)
        self.roles = _roles(problem, self.objects)
        self.by_key = {r.key: r for r in self.roles}
        self.verbs = frozenset(r.verb for r in self.roles)
        self.texts = {r.key: r.text() for r in self.roles}
        # attributes, as the original's objects hold them: (object, verb, 1 | 2) -> the step(s)
        self.firsts: dict = {}
        self.seconds: dict = {}
        for r in self.roles:
            self.firsts.setdefault((r.first, r.verb, 1 if r.second is not None else 0), r)
            if r.second is not None:
                self.seconds.setdefault((r.second, r.verb), []).append(r)
        self.owners = self._ownership()

    @staticmethod
    def for_problem(problem: ProcedureProblem) -> ArenaRules:
        return problem.memo("_arena_rules", ArenaRules)

    # ------------------------------------------------------------------ the original's tables
    def _ownership(self) -> dict:
        """The original's "Only for Task k" table: a second object (not named like a container) -> the suffixed
        first objects of its own task that it takes (ownership is keyed by the second object only)."""
        table: dict = {}
        for r in self.roles:
            if r.second is None or r.first not in self.labelled:
                continue
            task = self.task_of.get(r.first)
            for (obj, verb), _ in self.seconds.items():
                if verb == r.verb and self.task_of.get(obj) == task and not any(c in obj for c in CONTAINERS):
                    table.setdefault(obj, set()).add(r.first)
        return table

    def _second_prerequisites(self, role: Role) -> set:
        """The prerequisites of ``role``'s step that belong to its second object's role: those naming the second
        object and not the first (tasks.json folds both into ``requires``)."""
        s = self.problem.step(*role.key)
        out = set()
        for p in s.prerequisites if s is not None else ():
            other = self.by_key.get((role.key[0], p))
            if other is None:
                continue
            named = {other.first, other.second}
            if role.second in named and role.first not in named:
                out.add((role.key[0], p))
        return out

    def prerequisites(self, role: Role, second: Optional[str]) -> list:
        """The step keys that must be done before ``role`` runs with ``second`` as its second object."""
        s = self.problem.step(*role.key)
        own = [(role.key[0], p) for p in (s.prerequisites if s is not None else ())]
        if second is None or second == role.second:
            return own
        dropped = self._second_prerequisites(role)
        out = [k for k in own if k not in dropped]
        for k in self.second_prerequisites(second, role.verb):
            if k not in out:
                out.append(k)
        return out

    def second_prerequisites(self, obj: str, verb: str) -> list:
        """What object ``obj`` needs before it takes the second role of ``verb`` (from its own step)."""
        out: list = []
        for r in self.seconds.get((obj, verb), ()):
            for k in sorted(self._second_prerequisites(r)):
                if k not in out:
                    out.append(k)
        return out

    # ------------------------------------------------------------------ per episode
    @staticmethod
    def _held(env: Env) -> list:
        """[(run, the objects it occupies under the original's names)] of the episode (kept on its state)."""
        held = env.state.__dict__.get("_arena_held")
        if held is None:
            held = env.state.__dict__["_arena_held"] = []
        return held

    def occupied(self, env: Env, obj: str, t: Any) -> Optional[Run]:
        for run, objs in self._held(env):
            if obj in objs and run.end > t:
                return run
        return None

    @staticmethod
    def pause(env: Env, t: Any) -> None:
        """The runner's refusal: the minute passes but no running step advances (each ends one tick later)."""
        env.freeze()                          # observations not read yet show the ends before the pause
        st = env.state
        shifted = set()
        for s in st.steps.values():
            run = s.running
            if run is not None and run.end > t:
                object.__setattr__(run, "duration", run.duration + env._tick)
                shifted.add(id(run))
        if shifted:
            heap = st.queue._heap
            heap[:] = [(e[-1].end, *e[1:]) if e[1] == END and id(e[-1]) in shifted else e for e in heap]
            heapq.heapify(heap)

    def executable(self, env: Env, agent: str) -> list[str]:
        """The steps' commands the original would accept now (``Env.executable``; each with the step's own
        second object): not done, not running, no object occupied, prerequisites done, the agent free."""
        t = env._now
        if env.state.agent_free_at(agent, t) > t:
            return []
        out = []
        for r in self.roles:
            st = env.state.steps[r.key]
            if st.done_at is not None or st.running is not None:
                continue
            if any(self.occupied(env, o, t) for o in (r.first, r.second) if o is not None):
                continue
            if all(env.state.steps[k].done_at is not None for k in self.prerequisites(r, r.second)):
                out.append(self.texts[r.key])
        return out

    # ------------------------------------------------------------------ one command
    def read(self, text: str) -> tuple[Optional[str], list[str]]:
        """The runner's check: (None, words) for a command it passes on, else (why, words)."""
        words = text.strip().lower().split(" ")
        if words == ["wait"]:
            return None, words
        if len(words) not in (2, 4):
            return MALFORMED, words
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        if verb not in self.verbs:
            return UNKNOWN_VERB, words
        objs = words[1:2] if len(words) == 2 else [words[1], words[3]]
        if any(o not in self.name_set for o in objs):
            return UNKNOWN_OBJECT, words
        return None, words

    def command(self, env: Env, agent: str, text: str, t: Any) -> Feedback:
        """One command under the original's rules (the environment's ``_command`` hands it over)."""
        from chronoplan.runtime.procedure import env as E  # lazy: env.py imports this module

        why, words = self.read(text)
        if why is None and words == ["wait"]:
            env.refusals_in_row = 0
            env._wait_until = t + env._tick
            return E._feedback(True, "You wait.", env._fr(t))
        env.n += 1
        shown = text.strip()[:80]
        if why is not None:
            self.pause(env, t)
            return env._refuse(self._runner_refusal(why, words, shown, env.n - 1, agent, t))
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        first = words[1]
        second = words[3] if len(words) == 4 else None
        # the original's dict {first: role 1, second: role 2}; "V X P X" leaves one entry, X's second role
        entries: list = []
        if second is None:
            entries.append((first, self.firsts.get((first, verb, 0))))
        else:
            if first != second:
                entries.append((first, self.firsts.get((first, verb, 1))))
            entries.append((second, self.seconds.get((second, verb), [None])[0]))
        refusal = None
        for obj, role in entries:
            run = self.occupied(env, obj, t)
            if run is not None:
                refusal = Violation("E411", f"{obj} is occupied by \"{self.texts[run.key]}\" until "
                                    f"{env._t(env._fr(run.end))}", f"send it at or after "
                                    f"{env._t(env._fr(run.end))}, when {obj} is free", env.n - 1, agent, t)
            if role is None:
                refusal = Violation("E104", f"cannot {verb.split(' ')[0]} {obj} here: no step of the scenario "
                                    f"takes {obj} as its {'first' if obj == first and first != second else 'second'}"
                                    f" object of \"{verb}\"", self._fits(verb), env.n - 1, agent, t)
            elif second is not None and second in self.owners and first not in self.owners[second]:
                refusal = Violation("E104", f"{second} does not take {first} (the original's \"Only for Task\" "
                                    f"table: {second} takes {', '.join(sorted(self.owners[second]))})",
                                    f"put {first} into its own task's object", env.n - 1, agent, t)
        if refusal is not None:
            return env._refuse(refusal)
        role = entries[0][1]
        assert role is not None, "a fitting verb has its step"
        if second is not None and first == second:
            return self._no_op(env, role, second, agent, text, t)
        missing = [k for k in self.prerequisites(role, second) if env.state.steps[k].done_at is None]
        if missing:
            return env._refuse(Violation(
                "E301", f"\"{text.strip()[:80]}\" needs \"{self.texts[missing[0]]}\" ({step_name(missing[0])}) "
                "done first", f"finish \"{self.texts[missing[0]]}\" first", env.n - 1, agent, t))
        st = env.state.steps[role.key]
        if st.done_at is not None:
            return env._refuse(Violation("E801", f"\"{self.texts[role.key]}\" is already done (finished at "
                                         f"{env._t(env._fr(st.done_at))})", "do another step", env.n - 1, agent, t))
        return self._start(env, role, second, agent, t)

    def _runner_refusal(self, why: str, words: list, shown: str, index: int, agent: str, t: Any) -> Violation:
        paused = " (--compat timearena: the runner refuses it before the environment, so running steps stop " \
                 "for this minute)"
        if why == MALFORMED:
            return Violation("E104", f"cannot read \"{shown}\": a command is \"wait\", \"VERB OBJ\" or "
                             f"\"VERB OBJ1 PREP OBJ2\", one space apart{paused}",
                             "write the command without punctuation, quotes or extra words", index, agent, t)
        if why == UNKNOWN_VERB:
            verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
            return Violation("E104", f"unknown verb \"{verb[:40]}\"{paused}",
                             "valid verbs: " + ", ".join(sorted(self.verbs)), index, agent, t)
        bad = next(o for o in (words[1:2] if len(words) == 2 else [words[1], words[3]]) if o not in self.name_set)
        return Violation("E104", f"unknown object \"{bad[:40]}\"{paused}",
                         "valid objects: " + ", ".join(self.names), index, agent, t)

    def _fits(self, verb: str) -> str:
        cmds = [self.texts[r.key] for r in self.roles if r.verb == verb]
        return "commands with this verb: " + "; ".join(f"\"{c}\"" for c in cmds[:6])

    def _no_op(self, env: Env, role: Role, obj: str, agent: str, text: str, t: Any) -> Feedback:
        """The original's "V X P X": X's second role, which has no minutes: accepted, nothing happens."""
        from chronoplan.runtime.procedure import env as E  # lazy: env.py imports this module

        missing = [k for k in self.second_prerequisites(obj, role.verb) if env.state.steps[k].done_at is None]
        if missing:
            return env._refuse(Violation(
                "E301", f"\"{text.strip()[:80]}\" needs \"{self.texts[missing[0]]}\" ({step_name(missing[0])}) "
                "done first", f"finish \"{self.texts[missing[0]]}\" first", env.n - 1, agent, t))
        env.refusals_in_row = 0
        return E._feedback(True, f"You do \"{text.strip().lower()}\": it takes 0 minutes and changes nothing "
                           "(--compat timearena: the original accepts an object as both objects).", env._fr(t))

    def _start(self, env: Env, role: Role, second: Optional[str], agent: str, t: Any) -> Feedback:
        from chronoplan.runtime.procedure import env as E  # lazy: env.py imports this module

        chunk = Chunk(env.n - 1, role.key[0], role.key[1], t, None, agent)
        args = env._clear_start(role.key, agent, t)            # None: check_start decides
        if args is None:
            out, args = env.state.check_start(chunk)
            rest = [v for v in out if v.code not in SIM_OWNED]
            if args is None or rest:
                return env._refuse((rest or out)[0])
        run = env.state.apply_start(chunk, *args)
        self._held(env).append((run, (role.first,) if second is None else (role.first, second)))
        env.refusals_in_row = 0
        shown = self.texts[role.key] if second in (None, role.second) else \
            f"{role.verb.split(' ')[0]} {role.first} {role.verb.split(' ')[1]} {second}"
        if run.busy >= run.duration:
            msg = f"You do \"{shown}\" until {env._t(env._fr(run.end))}."
        else:
            msg = f"\"{shown}\" runs on its own until {env._t(env._fr(run.end))}."
        return E._feedback(True, msg, env._fr(t))
