"""A step-level scenario's instruction in TimeArena's layout (``chronoplan prompt``).

Input: a ``ProcedureProblem`` (its tasks' titles and steps, the domain's ``verb`` declarations, the objects'
``initial`` states and ``private`` labels; docs/language.md).  Output: ``instruction(problem) -> str``, the text
an agent reads before its first action, laid out as the TimeArena paper shows it (Zhang et al., ACL 2024,
Table 8: the protocol paragraph, then per task ``**Task k**`` with ``<Description>`` and ``<Valid Actions and
Usages>``, then ``**All Available Objects(OBJ)**`` and ``**The Initial States of Objects**``), and
``objects(problem)``, the listed objects with their states and labels.

Facts of the layout (the paper and /work/shared/data/timearena/README.md): a task's actions are its verbs'
usages with their descriptions, in the order of the steps that first use them, then ``wait``; the objects of
all tasks form one list, a name that several tasks declare appears as ``name_1``, ``name_2``, ... together at
its first position (the paper's ``dish_1; dish_2; dough; ...``), and a suffixed object of one task (``private``)
is labelled ``(Only for Task k)``.  A pool of interchangeable containers (``resource fryer capacity 2``) is listed
by the names its steps' commands use (``fryer_1``, ``fryer_2``).  A domain without ``verb`` declarations lists
each step's text as an action.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from chronoplan.compiler.instantiate import ProcedureProblem
from chronoplan.runtime.procedure.env import display_text

PREAMBLE = """\
As an AI agent, your objective is to efficiently complete a series of tasks as
described. You must adhere to the specific requirements and constraints of each task
, including dependencies and timing. Efficiency is key; complete all tasks in the
shortest possible time. I will provide instructions regarding actions and objects.
**Action Protocol**:
- You can perform only one action at a time.
- After each observation from the environment, output an action based on that
observation and the instructions.
 Actions fall into two categories:
- Continuous Actions: Perform these actions until completion (e.g., "wash OBJ").
- Autonomous Actions: These progress over time, allowing simultaneous tasks (e.g., "
heat OBJ").
- Follow the "Valid Actions" format for your output (e.g., "wash cup").
If no action is required, use "wait" to skip the current time.Output the action explicitly (e.g., "wash cup").
- Select object names (OBJ) from the list of Available Objects (e.g., use "rice"
instead of "cooked rice")."""
WAIT = "- wait: pass the current time without doing anything."


@dataclass(frozen=True)
class Listed:
    """One object of the instruction's list: its name, initial state (None: not declared) and label task number."""

    name: str
    state: Optional[str]
    only_for: Optional[int]

    def label(self) -> str:
        return self.name + (f" (Only for Task {self.only_for})" if self.only_for is not None else "")


def _pool_names(problem: ProcedureProblem, inst) -> list[str]:
    """A pool's names as its steps' commands write them (``fryer_1``, ``fryer_2``), else its instance name."""
    if inst.capacity < 2:
        return [inst.name]
    rx = re.compile(rf"(?<![\w-]){re.escape(inst.declared)}_\d+(?![\w-])")
    found: dict = {}
    for s in problem.steps:
        if any(u.resource == inst.name for u in s.uses):
            for m in rx.findall(display_text(s, problem)):
                found[m] = True
    return sorted(found, key=lambda n: int(n.rsplit("_", 1)[1])) or [inst.name]


def objects(problem: ProcedureProblem) -> list[Listed]:
    """The objects an instruction lists, in its order (see the module docstring)."""
    position = {t: k for k, t in enumerate(problem.tasks, start=1)}
    by_declared: dict = {}
    for inst in problem.resources:
        by_declared.setdefault(inst.declared, []).append(inst)
    out: list[Listed] = []
    seen: set = set()
    for group in by_declared.values():
        for inst in group:
            only = position.get(inst.task_only) if inst.task_only is not None else None
            for name in _pool_names(problem, inst):
                if name not in seen:
                    seen.add(name)
                    out.append(Listed(name, inst.initial, only))
    return out


def task_actions(problem: ProcedureProblem, task: str) -> list[str]:
    """A task's ``<Valid Actions and Usages>`` lines."""
    verbs = {v.key: v for v in problem.verbs}
    lines: list[str] = []
    keys: dict = {}
    for s in problem.task_steps(task):
        if s.verb is not None and s.verb in verbs:
            keys.setdefault(s.verb, True)
        else:
            lines.append(f"- {display_text(s, problem)}")
    lines[:0] = [f"- {verbs[k].usage}: {verbs[k].description}" for k in keys]
    return lines + [WAIT]


def instruction(problem: ProcedureProblem) -> str:
    """The instruction text (see the module docstring)."""
    titles = dict(problem.titles)
    lines = [PREAMBLE]
    for k, task in enumerate(problem.tasks, start=1):
        lines += [f"**Task {k}**", "<Description>", f"- {titles.get(task) or task}", "<Valid Actions and Usages>"]
        lines += task_actions(problem, task)
    listed = objects(problem)
    lines += ["**All Available Objects(OBJ)**", "; ".join(o.label() for o in listed)]
    states = [f"{o.name}: {o.state}" for o in listed if o.state is not None]
    if states:
        lines += ["**The Initial States of Objects**", "; ".join(states)]
    return "\n".join(lines)
