"""The released TimeArena runner's loop and its environment's sentences, re-stated for tests (issue 28 item 3b;
no code of the original is copied: our own statement of what ``LLM_test.py`` and ``TimeArena/environment.py`` do,
as read in the public repository).

``run_agent(env, args, model, total_time) -> (messages, records)`` is the runner's loop (``Agent`` of
``LLM_test.py``) with the model replaced by ``model(messages) -> str``: it calls ``env.load(args)``, sends the
instruction, then each minute (unless the agent is occupied, when it re-sends the last action without asking)
asks "\\nIn t=N, your action is:"; it checks the action itself (``wait``; 2 or 4 words; the verb among
``getActionList()``; the objects among ``getObjectList()``), lowercases it and calls ``env.step``, which returns
``(observation, increment, isCompleted, agent_occupy, wrong_message)``.  A refusal of the environment counts
towards five in a row (then the episode ends), the runner's own refusals too; an accepted step adds its
increment to the score only when it has an observation; every call costs a minute.  ``messages`` is the
conversation ([role, text]), ``records`` the trajectory the runner saves (its dicts, then the summary).

``ReleasedArena(problem)`` re-states the environment's sentences and bookkeeping from ``ArenaRules``' static
tables (as ``tests/timearena_original.py``): per object a countdown per role, background actions counted down on
every call, their completions gathered into a ``set`` of sentences when the environment reports them (every call
but a minute of an occupying action that is not its last), each sentence ending in a newline.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime import metrics as M
from chronoplan.runtime.procedure.arena_rules import ArenaRules


@dataclass
class Args:
    taskName: list
    constraint: bool = False


def _valid(action: str, env: Any) -> tuple[bool, bool]:
    """The runner's own check: (action valid, objects valid)."""
    a = action.strip().lower()
    words = a.split(" ")
    if a == "wait":
        return True, True
    if len(words) in (1, 3) or len(words) > 4:
        return False, True
    verb = f"{words[0]} {words[2]}" if len(words) == 4 else words[0]
    if verb not in env.getActionList():
        return False, True
    names = env.getObjectList()
    objs = [words[1], words[3]] if len(words) == 4 else [words[1]]
    return (True, False) if any(o not in names for o in objs) else (True, True)


def run_agent(env: Any, args: Args, model: Callable[[list], str], total_time: int) -> tuple[list, list]:
    env.load(args)
    messages: list = [["user", env.getInstruction()]]
    records: list = [messages[0][1]]
    now, score, completed, occupied, invalid = 0, 0, False, False, 0
    action = ""
    while total_time:
        if invalid >= 5:
            records.append({"time": now, "observation": "Exceed the invalid action limit!", "increment": 0,
                            "progress score": score, "isCompleted": completed, "action": action})
            break
        if not occupied:
            messages.append(["user", f"\nIn t={now}, your action is:"])
            action = model(messages).strip()
            messages.append(["assistant", action])
        if action.lower().strip() in ("quit", "exit"):
            break
        ok_action, ok_objects = _valid(action, env)
        action = action.lower().strip()
        if ok_action and ok_objects:
            obs, increment, completed, occupied, wrong = env.step(action)
            if wrong:
                invalid += 1
                messages.append(["user", obs])
                total_time -= 1
                now += 1
                records.append({"time": now, "observation": obs, "increment": increment, "progress score": score,
                                "isCompleted": completed, "action": action})
                continue
            if obs is None and increment is not None:
                total_time -= 1
                now += 1
            if obs is not None:
                invalid = 0
                score += increment
                messages.append(["user", obs])
                total_time -= 1
                now += 1
                if completed:
                    records.append({"time": now, "observation": obs, "increment": increment,
                                    "progress score": score, "isCompleted": completed, "action": action})
                    break
        else:
            invalid += 1
            obs = ""
            if not ok_action:
                obs += env.getInvalidActionMessage()
                messages.append(["user", env.getInvalidActionMessage()])
                total_time -= 1
                now += 1
                increment = 0
            if not ok_objects:
                obs += env.getInvalidObjectMessage()
                messages.append(["user", env.getInvalidObjectMessage()])
                total_time -= 1
                now += 1
                increment = 0
        records.append({"time": now, "observation": obs, "increment": increment, "progress score": score,
                        "isCompleted": completed, "action": action})
    records.append({"total_time": now, "total_score": score, "isCompleted": completed})
    return messages, records


class ReleasedArena:
    """The released environment's ``step`` and sentences, re-stated (see the module docstring).  ``load``
    takes the runner's arguments but builds from the ``problem`` given at construction."""

    def __init__(self, problem: ProcedureProblem, instruction: str = "") -> None:
        self.problem, self.instruction = problem, instruction
        self.rules = rules = ArenaRules.for_problem(problem)
        self.verbs = {v.key: v for v in problem.verbs}
        self.todo: dict = {}                 # object -> {(verb, role 0 | 1 | 2): minutes left}
        self.deps: dict = {}                 # (object, (verb, role)) -> [(object, (verb, role))] needed first
        self.step_attr: dict = {}            # step key -> (object, (verb, role)) of its first object
        first_of = {}
        for r in rules.roles:
            role = 1 if r.second is not None else 0
            first_of[r.key] = (r.first, (r.verb, role))
        for r in rules.roles:
            s = problem.step(*r.key)
            attr = first_of[r.key]
            self.todo.setdefault(r.first, {})[attr[1]] = int(s.duration)
            self.step_attr[r.key] = attr
            second = set(rules._second_prerequisites(r)) if r.second is not None else set()
            self.deps[attr] = [first_of[(r.key[0], p)] for p in s.prerequisites if (r.key[0], p) not in second]
            if r.second is not None:
                self.todo.setdefault(r.second, {}).setdefault((r.verb, 2), 0)
                self.deps.setdefault((r.second, (r.verb, 2)), [first_of[k] for k in sorted(second)])
        self.total = sum(v for roles in self.todo.values() for v in roles.values())
        self.non_occupy: dict = {}           # object -> [roles] of background actions, in the order they started
        self.said: dict = {}                 # object -> {role: the action}
        self.occupied: set = set()
        self.last_action, self.last_score, self.completed = "", 0, False

    # the runner's view
    def load(self, args: Any) -> None:
        pass

    def getInstruction(self) -> str:
        return self.instruction

    def getActionList(self) -> list:
        return sorted(self.rules.verbs)

    def getObjectList(self) -> list:
        return [n.lower() for n in self.rules.names]

    def getInvalidActionMessage(self) -> str:
        return "invalid action\n"

    def getInvalidObjectMessage(self) -> str:
        return "invalid object\n"

    # the environment
    def _score(self) -> int:
        done = [k for k, (o, a) in self.step_attr.items() if self.todo[o][a] == 0]
        got = M.progress_score(self.problem, done)
        self.completed = self.completed or got == 100
        return got

    def _tick(self) -> None:
        for obj, roles in self.non_occupy.items():
            for a in roles:
                if self.todo[obj][a] > 0:
                    self.todo[obj][a] -= 1

    def _report(self) -> str:
        sentences = set()
        keep: dict = {}
        keep_said: dict = {}
        for obj, roles in self.non_occupy.items():
            for a in roles:
                if self.todo[obj][a] > 0:
                    keep.setdefault(obj, []).append(a)
                    keep_said.setdefault(obj, {})[a] = self.said[obj][a]
                elif a[1] != 2:
                    sentences.add(f"{obj} is {self.verbs[a[0]].after}.")
                elif self.said[obj][a].split(" ")[1] in keep_said:
                    keep.setdefault(obj, []).append(a)
                    keep_said.setdefault(obj, {})[a] = self.said[obj][a]
        self.non_occupy, self.said = keep, keep_said
        self.occupied = set(keep_said)
        return "".join(f"{s}\n" for s in sentences)

    def _parse(self, words: list) -> tuple[str, dict]:
        if len(words) == 4:
            verb = f"{words[0]} {words[2]}"
            return verb, {words[1]: (verb, 1), words[3]: (verb, 2)}
        return words[0], {words[1]: (words[0], 0)}

    def _refused(self, obs: str, increment: Optional[int]) -> tuple:
        self._tick()
        obs += self._report()
        score = self._score()
        return obs, (score - self.last_score if increment is not None else None), self.completed, False, True

    def step(self, action: str) -> tuple:
        action = action.strip()
        if action == "wait":
            self._tick()
            obs = "You wait for one minute.\n" + self._report()
            score = self._score()
            inc, self.last_score, self.last_action = score - self.last_score, score, action
            return obs, inc, self.completed, False, False
        words = action.split(" ")
        verb, attrs = self._parse(words)
        refused = self._check(words, verb, attrs, action)
        if refused is not None:
            return refused
        first_obj, first_attr = next(iter(attrs.items()))
        key = next((k for k, v in self.step_attr.items() if v == (first_obj, first_attr)), None)
        step = self.problem.step(*key) if key is not None else None
        if step.occupy_for >= step.duration if step is not None else verb in self._occupying_verbs():
            return self._occupying(action, attrs, first_obj, first_attr)
        for o, a in attrs.items():
            self.said.setdefault(o, {})[a] = action
            roles = self.non_occupy.setdefault(o, [])
            if a not in roles:
                roles.append(a)
        obs = f"You are doing ``{action}``, it will take {self.todo[first_obj][first_attr]} minutes.\n"
        self._tick()
        obs += self._report()
        score = self._score()
        inc, self.last_score, self.last_action = score - self.last_score, score, action
        return obs, inc, self.completed, False, False

    def _check(self, words: list, verb: str, attrs: dict, action: str) -> Optional[tuple]:
        """The refusals, in the original's order: the objects (occupied, a verb that does not fit, the ownership
        table; the last object's reason wins), then a missing prerequisite, then "already completed"."""
        obs = None
        for obj, a in attrs.items():
            if obj in self.occupied:
                obs = f"Object ``{obj}`` is being occupied by another action.\n"
            if a not in self.todo.get(obj, {}):
                obs = f"You cannot perform action ``{verb}`` on object ``{obj}``.\n"
            elif len(words) == 4 and words[3] in self.rules.owners and words[1] not in self.rules.owners[words[3]]:
                obs = f"You cannot perform action ``{verb}`` on object ``{words[1]}`` and ``{words[3]}``.\n"
        if obs is not None:
            return self._refused(obs, None)
        for obj, a in attrs.items():
            missing = [d for d in self.deps[(obj, a)] if self.todo[d[0]][d[1]] != 0]
            if missing:
                d_obj, d_attr = missing[0]
                obs = (f"You cannot perform action ``{verb}`` on object ``{obj}``.\n"
                       f"Because {d_obj} is {self.verbs[d_attr[0]].before}.")
        if obs is not None:
            return self._refused(obs, 0)
        if any(a[1] != 2 and self.todo[o][a] == 0 for o, a in attrs.items()):
            return self._refused(f"``{action}`` has already been completed.\n", 0)
        return None

    def _occupying(self, action: str, attrs: dict, first_obj: str, first_attr: tuple) -> tuple:
        """An occupying action: its first minute, or (the runner re-sends it) one more minute."""
        own = [(o, a) for o, a in attrs.items() if a[1] != 2]
        if action == self.last_action:
            obs = None
            for o, a in own:
                self.todo[o][a] -= 1
            self._tick()
            occupy = True
            if self.todo[first_obj][first_attr] == 0:
                if not own:                                # "V X P X" again: the original adds to None and fails
                    raise TypeError("the released step extends no sentence (an object as both objects, twice)")
                obs = "".join(f"{o} is {self.verbs[a[0]].after}.\n" for o, a in own) + self._report()
                occupy = False
        else:
            need = self.todo[first_obj][first_attr]
            for o, a in own:
                self.todo[o][a] -= 1
            self._tick()
            obs = f"You are doing ``{action}``, it will take {need} minutes.\n" + self._report()
            occupy = self.todo[first_obj][first_attr] != 0
            if not occupy:
                obs += "".join(f"{o} is {self.verbs[a[0]].after}.\n" for o, a in own)
        score = self._score()
        inc, self.last_action, self.last_score = score - self.last_score, action, score
        return obs, inc, self.completed, occupy, False

    def _occupying_verbs(self) -> set:
        out = set()
        for r in self.rules.roles:
            s = self.problem.step(*r.key)
            if s.occupy_for >= s.duration:
                out.add(r.verb)
        return out
