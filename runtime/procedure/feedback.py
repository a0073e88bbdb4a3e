"""TimeArena's feedback sentences for the interactive environment (``Env(..., feedback=FeedbackStyle.TIMEARENA)``).

Input: a ``ProcedureProblem`` (its steps' verbs and the objects' initial states: docs/language.md, "Verbs,
initial states and private objects") and, per ``Env.step``, the command, chronoplan's ``Feedback`` of it and
the steps that completed during the step.  Output: ``ArenaSentences.message(...) -> str``, the observation
in the sentences the TimeArena paper shows (Zhang et al., ACL 2024, section 3.3 and Table 8), one per line:

- a start: ``You are doing ``cook rice in pot``, it will take 4 minutes.``; ``wait``: ``You wait for one
  minute.``; a minute of an occupying action re-sent under ``Stepping.MINUTE``: nothing of its own;
- each completion: the first object's new state, ``rice is cooked.`` (the verb's ``-> AFTER``; a step without
  a verb: ``"TEXT" is done.``);
- refusals: ``wash beaker has been completed.`` (already done); ``Object pot is being occupied by another
  action.`` (a running step holds one of its objects, or the step itself runs); ``Cannot perform action add
  to on object shrimp. Because shrimp is raw.`` (an unmet prerequisite; the object's current state);
  ``pan is non-existent.`` (an unknown object in a verb's usage); ``You cannot perform read on potato.`` (a
  verb that does not fit the object); ``clean teapot is invalid.`` (no usage fits); any other refusal keeps
  chronoplan's message.

The objects' states start at their ``initial`` states and change when a step completes.  ``FeedbackStyle``
and ``Stepping`` are the environment's options (``Stepping.MINUTE``: one call is one minute, and while the
agent is occupied the runner re-sends the action, as TimeArena's runner does).
"""
from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any, Optional

from chronoplan.compiler.instantiate import ProcedureProblem

CONTINUED = "continued"          # the hint of a call that continued an occupying step (Stepping.MINUTE)


class FeedbackStyle(enum.Enum):
    """What ``Env.step``'s feedback message says."""

    STATUS = "status"            # chronoplan's messages ("You do ... until 0:05."); observation(): the status block
    TIMEARENA = "timearena"      # TimeArena's sentences (this module)


class Stepping(enum.Enum):
    """What one ``Env.step`` call covers."""

    COMMAND = "command"          # one command: an occupying step's whole occupation, then the next free minute
    MINUTE = "minute"            # one minute; while the agent is occupied, a call continues the running step


def _tables(problem: ProcedureProblem) -> tuple[dict, list, frozenset, dict, dict]:
    """Per problem, once (``problem.memo``): verb key -> (its position, the verb) (the last of a repeated key),
    [(verb key, compiled usage)] in that order, the object names, the objects' initial states, and a cache of
    parsed commands (normalised command -> ``_parse``)."""
    verbs = {v.key: v for v in problem.verbs}
    return ({k: (i, v) for i, (k, v) in enumerate(verbs.items())}, [(k, v.pattern) for k, v in verbs.items()],
            frozenset(r.name for r in problem.resources),
            {r.name: r.initial for r in problem.resources if r.initial is not None}, {})


def _minutes(n: Any) -> str:
    return "one minute" if n == 1 else f"{n} minutes"


class ArenaSentences:
    """The sentences of one environment's episode (it tracks the objects' states)."""

    def __init__(self, problem: ProcedureProblem, texts: dict, scale: Any = 1, literal: bool = False) -> None:
        self.problem = problem
        self.literal = literal                     # Rules.TIMEARENA: a refusal names the command as the runner read it
        self.texts = texts                         # step key -> display text (Env.texts)
        self.scale = scale                         # ticks per minute of the scenario's unit
        verbs, patterns, self.names, self.initial, self.parsed = problem.memo("_arena_sentence_tables", _tables)
        self.patterns = patterns                   # [(verb key, compiled usage)], the verbs' order
        self.first: dict = {}                      # step key -> (first object, verb key, state after)
        for s in problem.steps:
            v = verbs.get(s.verb) if s.verb is not None else None
            m = patterns[v[0]][1].fullmatch(texts[s.key]) if v is not None else None
            obj = m.group(1) if m is not None and m.groups() else None
            self.first[s.key] = (obj, v[1].key if v is not None else None, v[1].after if v is not None else None)
        self.reset()

    def reset(self) -> None:
        self.states = dict(self.initial)
        self.reported: set = set()                 # steps whose completion has been told

    # ------------------------------------------------------------------ sentences
    def started(self, key: tuple, duration: Any) -> str:
        n = duration if self.scale == 1 else duration / self.scale   # the same text: str(4) == str(Fraction(4))
        return f"You are doing ``{self.texts[key]}``, it will take {_minutes(n)}."

    def completed(self, keys: list) -> list[str]:
        out = []
        for k in keys:
            self.reported.add(k)
            obj, _, after = self.first[k]
            if obj is not None and after is not None:
                self.states[obj] = after
                out.append(f"{obj} is {after}.")
            else:
                out.append(f"\"{self.texts[k]}\" is done.")
        return out

    def _parse(self, norm: str) -> Optional[tuple]:
        """(verb key, objects) of a command by the verbs' usages, or None (kept per command and problem)."""
        if norm in self.parsed:
            return self.parsed[norm]
        got = None
        for key, pattern in self.patterns:
            m = pattern.fullmatch(norm)
            if m is not None:
                got = key, m.groups()
                break
        if len(self.parsed) < 4096:
            self.parsed[norm] = got
        return got

    def said(self, cmd: str, norm: str) -> str:
        """The command a refusal's sentence reads: the normalized command, or under ``literal`` (the original's
        rules) the command lowercased and stripped, as the runner reads it (``wash cup.`` names ``cup.``)."""
        return cmd.strip().lower() if self.literal else norm

    def refused(self, norm: str, code: Optional[str], key: Optional[tuple], fallback: str,
                occupied: Optional[str]) -> str:
        """A refusal's sentence (see the module docstring); ``occupied`` is an object of the step that a running
        step holds, ``key`` the step the command named (None when it named none)."""
        if key is not None:
            obj, verb, _ = self.first[key]
            text = self.texts[key]
            if code == "E801":
                return f"{text} has been completed."
            if code in ("E802", "E411"):
                return f"Object {occupied or obj or text} is being occupied by another action."
            if code == "E301" and obj is not None and verb is not None:
                state = self.states.get(obj)
                return f"Cannot perform action {verb} on object {obj}." + (
                    f" Because {obj} is {state}." if state is not None else "")
            return fallback
        if code != "E104":
            return fallback
        parsed = self._parse(norm)
        if parsed is None:
            return f"{norm} is invalid."
        verb, objs = parsed
        missing = [o for o in objs if o not in self.names]
        if missing:
            return f"{missing[0]} is non-existent."
        return f"You cannot perform {verb} on {objs[0] if objs else norm}."

    @staticmethod
    def waited(ticks: Any) -> str:
        return f"You wait for {_minutes(ticks)}."

    def render(self, env: Any, fb: Any, cmd: str, left: list, new_runs: Iterator) -> Any:
        """One command's ``Feedback`` (``runtime.procedure.env``) in these sentences: ``left`` are the step states
        not done before the call (the completions are told once), ``new_runs`` the runs the call started, in
        order."""
        norm, wait = env._read(cmd)
        lines = []
        if fb.hint == CONTINUED:
            pass
        elif fb.ok and wait is not None:
            lines.append(self.waited(wait))
        elif fb.ok:
            run = next(new_runs, None)
            lines.append(self.started(run.key, run.duration) if run is not None else fb.message)
        else:
            key = env._match(norm) if fb.code != "E104" else None
            busy = None
            if key is not None and fb.code == "E411":
                step = env.state.steps[key].step
                busy = next((u.resource for u in step.uses if any(
                    r.start <= fb.time < r.end for r in env.state.holders.get(u.resource, ()))), None)
            lines.append(self.refused(self.said(cmd, norm), fb.code, key, fb.message, busy))
        if len(left) != len(env._left):            # steps completed during the call (Env keeps the steps left)
            lines += self.completed([k for s in left
                                     if s.done_at is not None and (k := s.step.key) not in self.reported])
        return type(fb)(fb.ok, "\n".join(lines), fb.time, fb.code, fb.category, "" if fb.ok else fb.hint)
