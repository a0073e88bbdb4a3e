"""A drop-in for the released TimeArena environment class: the runner of the TimeArena repository
(``LLM_test.py``) runs unchanged with only its ``TimeArena`` class replaced by this one (issue 28 item 3b).

Input: ``TimeArena(path=None, compat=None)`` (``path``: a chronoplan project holding the TimeArena scenarios,
default the bundled ``domains/timearena``; ``compat``: None, the paper's rules, or ``"timearena"``, the released
code's rules, as ``TimeArenaEnv(compat=...)``; the sentences are the released code's either way), then
``load(args)`` with the runner's arguments (``args.taskName``: a list of task names, e.g.
``["cooking1", "cooking2"]``, or one comma-separated string; ``args.constraint``: the resource constraint).
Output, as the released environment's methods return them (facts: the released ``TimeArena/environment.py``,
restated, no code copied):

- ``step(action) -> (observation, increment, isCompleted, agent_occupy, wrong_message)``: the observation's
  sentences each end with a newline (``You are doing ``cook rice in pot``, it will take 4 minutes.``; the
  minutes always as a number, "1 minutes" included; ``You wait for one minute.``; ``rice is cooked.``);
  ``None`` for a minute of an occupying action that is not its last (the runner re-sends the action).  The
  completions of background actions are told at the next call that is not such a minute, after the call's own
  sentence (the sentence of an occupying action that ends comes first), in the original's order (a Python
  ``set`` of the sentences built in the order the actions started, as the original builds it).  ``increment``:
  the change of the progress score since the last accepted call (``None`` for a refusal of an occupied object
  or a verb that does not fit, as the original); ``isCompleted``: the score reached 100; ``agent_occupy``: an
  occupying action goes on; ``wrong_message``: a refusal.
- ``getInstruction()`` (``chronoplan prompt``'s text), ``getActionList()`` (the verbs), ``getObjectList()``
  (the objects' names, lowercased), ``getInvalidActionMessage()`` and ``getInvalidObjectMessage()`` (the
  runner's own refusals), ``getTotalActionTime()``.

The rules are those of ``runtime.procedure.env.Env`` (``Rules.TIMEARENA`` under the compat mode,
``Stepping.MINUTE``; no time limit and no refusal limit of its own: the runner keeps both).  A ``load`` of tasks
the project has no scenario for is a ``ValueError`` naming the scenario looked for.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Optional, Union

import chronoplan
from chronoplan.compiler import ir
from chronoplan.compiler.instantiate import ProcedureProblem, procedure_problem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure.arena_rules import CONTAINERS, ArenaRules, Role
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.feedback import CONTINUED, Stepping
from chronoplan.runtime.procedure.instruction import instruction

NO_LIMIT = Fraction(10 ** 9)          # minutes: the runner's --total_time bounds the episode, not the environment


def bundled_timearena() -> Path:
    """The bundled ``domains/timearena`` directory."""
    import chronoplan.domains as domains

    return Path(list(domains.__path__)[0]) / "timearena"


def scenario_name(tasks: list[str], constraint: bool) -> str:
    """The scenario of a task combination: ``cooking1,cooking2`` -> ``cooking1_2``, with ``_constrained`` under
    the resource constraint."""
    first = tasks[0]
    prefix = first.rstrip("0123456789")
    rest = [t[len(prefix):] if t.startswith(prefix) and t[len(prefix):].isdigit() else t for t in tasks[1:]]
    name = "_".join([first, *rest])
    return name + "_constrained" if constraint else name


def _constraint_changes_nothing(problem: ProcedureProblem) -> bool:
    """The resource constraint keeps one pot, fryer and oven: it changes nothing when the original names each of
    them once (no ``pot_1``, ``fryer_2``, ...)."""
    names = ArenaRules.for_problem(problem).names
    return not any(n.rpartition("_")[0] in CONTAINERS and n.rpartition("_")[2].isdigit() for n in names)


class TimeArena:
    """The released environment's interface over chronoplan's (see the module docstring)."""

    def __init__(self, path: Union[str, Path, ir.Project, None] = None, compat: Any = None) -> None:
        from chronoplan.envs import _arena_rules  # the same reading of compat= as TimeArenaEnv

        self.rules = _arena_rules(compat)
        self.project = path if isinstance(path, ir.Project) else chronoplan.load(str(path or bundled_timearena()))
        self.problem: Optional[ProcedureProblem] = None

    # ------------------------------------------------------------------ the released methods
    def load(self, args: Any) -> None:
        tasks = args.taskName
        if isinstance(tasks, str):
            tasks = tasks.split(",")
        tasks = [t.strip() for t in tasks]
        constraint = bool(getattr(args, "constraint", False))
        name = scenario_name(tasks, constraint)
        plain = scenario_name(tasks, False)
        if constraint and name not in self.project.scenarios and plain in self.project.scenarios and \
                _constraint_changes_nothing(procedure_problem(self.project, self.project.scenarios[plain])):
            name = plain                     # no pot, fryer or oven twice: the constraint changes nothing
        if name not in self.project.scenarios:
            raise ValueError(f"TimeArena.load: no scenario {name!r} for tasks {','.join(tasks)}"
                             + (" under the resource constraint (the domain constrains the cooking pairs; here it "
                                "would merge containers)" if constraint else ""))
        self.args = args
        self.taskName = tasks
        self.problem = procedure_problem(self.project, self.project.scenarios[name])
        self.arena = ArenaRules.for_problem(self.problem)
        self.env = Env(self.problem, rules=self.rules, stepping=Stepping.MINUTE, limit=NO_LIMIT, max_refusals=None)
        self.verbs = {v.key: v for v in self.problem.verbs}
        self.background: list = []         # [(step key, first object)] started, completion not told yet
        self.last_score = 0
        self.isCompleted = False

    def getInstruction(self) -> str:
        return instruction(self._loaded())

    def getActionList(self) -> list[str]:
        self._loaded()
        return [v for v in self.verbs if v in self.arena.verbs]

    def getObjectList(self) -> list[str]:
        self._loaded()
        return [n.lower() for n in self.arena.names]

    def getTotalActionTime(self) -> int:
        return int(sum(s.duration for s in self._loaded().steps))

    def getInvalidActionMessage(self) -> str:
        self._loaded()
        lines = "".join(f"{v.usage}: {v.description}\n" for k, v in self.verbs.items() if k in self.arena.verbs)
        return ("Invalid action! You can only choose action from valid actions.\nValid actions are: \n" + lines
                + "wait: pass the current time point without doing anything.\n")

    def getInvalidObjectMessage(self) -> str:
        self._loaded()
        return ("Visit non-existent object! You can only choose an object from all available objects (OBJ).\n"
                "Available objects are: \n" + "\n".join(self.arena.names))

    def step(self, action: str) -> tuple[Optional[str], Optional[int], bool, bool, bool]:
        env = self._env()
        action = action.strip()
        busy_before = self._busy()
        refusal = None if busy_before or action.lower() == "wait" else self._refusal(action)
        runs = len(env.state.runs)
        _, fb = env.step(action)
        score = M.progress_score(self._loaded(), [k for k, s in env.state.steps.items() if s.done_at is not None])
        self.isCompleted = self.isCompleted or score == 100
        increment = score - self.last_score
        if not fb.ok:
            kind, text = refusal if refusal is not None else ("object", f"``{action}`` is refused.\n")
            return (text + self._told(), None if kind == "object" else increment, self.isCompleted, False, True)
        self.last_score = score
        if fb.hint == CONTINUED:
            if self._busy():
                return None, increment, self.isCompleted, True, False
            key = env.state.runs[-1].key if env.state.runs else None
            own = self._state(key) if key is not None else ""
            return own + self._told(), increment, self.isCompleted, False, False
        if action.lower() == "wait":
            return "You wait for one minute.\n" + self._told(), increment, self.isCompleted, False, False
        new = env.state.runs[runs:]
        if not new:                          # "V X P X": the second role's zero minutes
            return (f"You are doing ``{action}``, it will take 0 minutes.\n" + self._told(), increment,
                    self.isCompleted, False, False)
        run = new[0]
        text = f"You are doing ``{action}``, it will take {_minutes(run.duration)} minutes.\n"
        if run.busy >= run.duration:         # occupying
            text += self._told()
            occupied = self._busy()
            if not occupied:
                text += self._state(run.key)
            return text, increment, self.isCompleted, occupied, False
        self.background.append((run.key, self.arena.by_key[run.key].first))
        return text + self._told(), increment, self.isCompleted, False, False

    # ------------------------------------------------------------------ helpers
    def _loaded(self) -> ProcedureProblem:
        if self.problem is None:
            raise RuntimeError("TimeArena: call load(args) first")
        return self.problem

    def _env(self) -> Env:
        self._loaded()
        return self.env

    def _busy(self) -> bool:
        env = self.env
        agent = self.problem.agents[0] if self.problem is not None else ""
        return bool(env.state.agent_free_at(agent, env._now) > env._now)

    def _state(self, key: tuple) -> str:
        """The sentence of a completed step: its first object's new state."""
        role = self.arena.by_key[key]
        return f"{role.first} is {self.verbs[role.verb].after}.\n"

    def _told(self) -> str:
        """The completions of background actions not told yet, as the original tells them (a set of sentences
        filled in the order the actions started)."""
        steps = self.env.state.steps
        told = set()
        keep = []
        for key, obj in self.background:
            if steps[key].done_at is not None:
                told.add(f"{obj} is {self.verbs[self.arena.by_key[key].verb].after}.")
            else:
                keep.append((key, obj))
        self.background = keep
        return "".join(f"{s}\n" for s in told)

    def _refusal(self, action: str) -> Optional[tuple[str, str]]:
        """The original's sentence for refusing ``action`` now (checked before the step: occupied objects, a verb
        that does not fit, the ownership table, then unmet prerequisites, then "already completed"): (kind, text)
        with kind "object", "dependency" or "done", or None when the step will take it."""
        words = action.lower().split(" ")
        if len(words) not in (2, 4):
            return None
        a = self.arena
        verb = words[0] if len(words) == 2 else f"{words[0]} {words[2]}"
        first, second = words[1], (words[3] if len(words) == 4 else None)
        entries: list[tuple[str, Optional[Role], bool]] = []
        if second is None:
            entries.append((first, a.firsts.get((first, verb, 0)), False))
        else:
            if first != second:
                entries.append((first, a.firsts.get((first, verb, 1)), False))
            entries.append((second, a.seconds.get((second, verb), [None])[0], True))
        t = self.env._now
        text = None
        for obj, role, _ in entries:
            if a.occupied(self.env, obj, t) is not None:
                text = f"Object ``{obj}`` is being occupied by another action.\n"
            if role is None:
                text = f"You cannot perform action ``{verb}`` on object ``{obj}``.\n"
            elif second is not None and second in a.owners and first not in a.owners[second]:
                text = f"You cannot perform action ``{verb}`` on object ``{first}`` and ``{second}``.\n"
        if text is not None:
            return "object", text
        done = self.env.state.steps
        for obj, role, is_second in entries:
            assert role is not None
            need = a.second_prerequisites(obj, verb) if is_second else [
                k for k in a.prerequisites(role, second) if second is None or second == role.second
                or k not in a.second_prerequisites(second, verb)]
            missing = [k for k in need if done[k].done_at is None]
            if missing:
                dep = a.by_key[missing[0]]
                text = (f"You cannot perform action ``{verb}`` on object ``{obj}``.\n"
                        f"Because {dep.first} is {self.verbs[dep.verb].before}.")
        if text is not None:
            return "dependency", text
        own = entries[0][1]
        if own is not None and not entries[0][2] and done[own.key].done_at is not None:
            return "done", f"``{action}`` has already been completed.\n"
        return None


def _minutes(d: Any) -> str:
    return str(int(d)) if int(d) == d else str(d)
