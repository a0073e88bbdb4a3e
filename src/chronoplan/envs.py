"""Gymnasium environments over chronoplan's three interactive protocols (issue #15).

Input: a .chrono file or directory (or a loaded ``Project``), a scenario name and the protocol's options;
then text actions.  Output: ``gymnasium.Env`` subclasses with text observation and action spaces,
``reset(seed=None, options=None) -> (obs, info)``, ``step(action) -> (obs, reward, terminated, truncated,
info)``, ``render()`` (``render_mode="ansi"``: the status text) and ``close()``, registered at import as

- ``chronoplan/TimeArena-v0``  -> ``TimeArenaEnv`` over ``runtime.procedure.env.Env`` (step texts at the current
minute);
- ``chronoplan/Recipe2Plan-v0`` -> ``Recipe2PlanEnv`` over ``validators.react_env.ReactEnv`` (timed
  ``Step(...)`` actions);
- ``chronoplan/Kitchen-v0``    -> ``KitchenGymEnv`` over ``runtime.kitchen.env.KitchenEnv`` (ParaCook batches
  as one line of ``chronoplan play``'s kitchen syntax, read by ``commands.play_kitchen.LineReader``).

Reward of a step: the fraction of the goal gained by it (steps done / steps of the scenario for
procedures, orders served / orders for kitchens; after minus before), plus 1.0 on the step that ends the
episode in success.  A successful episode therefore returns 2.0 in all.
Terminated: the protocol's own end (success, time limit, a lag or deadline that can no longer be met, a
fatal refusal, ``finish``, ``quit``).  Truncated: the refusal limit (``max_refusals`` in a row for
TimeArena; ``max_refusals`` in a row or ``max_revisions`` in all for Recipe2Plan; ``max_refusals``
simulator errors and unreadable lines in all for kitchens).  A refused or unreadable action never raises:
it is a step whose observation starts with ``Refused:`` and whose info holds the code, category and hint.
Informational actions (``look``, ``help``; Recipe2Plan ``critique <plan>``; kitchen ``state``, ``plan``)
let no time pass and give 0 reward.  The environments are deterministic: ``seed`` only seeds
``np_random`` (and the spaces' sampling).
"""
from __future__ import annotations

import json
import re
import string
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional, Union

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:          # pragma: no cover - exercised only without the extra
    raise ImportError("chronoplan.envs needs gymnasium (>= 1.0): pip install 'chronoplan[gym]'") from exc

import chronoplan
from chronoplan.compiler.codes import category_of
from chronoplan.compiler.ir import Project
from chronoplan.runtime.procedure.arena_rules import Rules
from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping
from chronoplan.validators.families import Family, family_of
from chronoplan.validators.report import json_number

__all__ = ["ChronoEnv", "TimeArenaEnv", "Recipe2PlanEnv", "KitchenGymEnv", "IDS", "MAX_OBSERVATION",
           "MAX_ACTION"]

MAX_OBSERVATION = 200_000      # characters; a longer observation is cut and ends with "\n[...]"
MAX_ACTION = 100_000           # characters (Recipe2Plan's longest command); the spaces' max_length
IDS = {"chronoplan/TimeArena-v0": "TimeArenaEnv", "chronoplan/Recipe2Plan-v0": "Recipe2PlanEnv",
       "chronoplan/Kitchen-v0": "KitchenGymEnv"}
_TIMEARENA_TRUNCATED = re.compile(r"refused commands in a row\.$")
_REACT_TRUNCATED = re.compile(r"refused actions (in a row|\(the revision budget\))\.$")


def jsonable(value: Any) -> Any:
    """Fractions -> int/float, tuples -> lists, keys -> str: info values that compare and serialise."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        return json_number(value)
    return value


def environments(family: Family) -> str:
    """The environment ids that play a family's protocols (``Family.protocols``), or why there are none."""
    ids = [env_id for env_id, cls in IDS.items() if globals()[cls].protocol in family.protocols]
    ids += [env_id for env_id in HOUSEHOLD_IDS if HOUSEHOLD_PROTOCOL in family.protocols]
    return " or ".join(ids) if ids else f"none ({family.lacks('interactive protocol')})"


def _project(path: Union[str, Path, Project]) -> Project:
    return path if isinstance(path, Project) else chronoplan.load(path)


class ChronoEnv(gymnasium.Env[str, str]):
    """The common part: loading, spaces, reward, termination, rendering.  Subclasses bind a protocol."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}
    protocol = ""

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *,
                 render_mode: Optional[str] = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: use one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.project = _project(path)
        self.scenario = self.project.scenario(scenario)
        family = family_of(self.scenario)
        if self.protocol not in family.protocols:
            raise ValueError(f"scenario {self.scenario.name} ({family.name}) has no {self.protocol} protocol; its "
                             f"environment: {environments(family)}")
        self._setup()
        self.charset = frozenset(string.printable) | frozenset("".join(self._names()))
        self._outside = re.compile("[^" + "".join(re.escape(c) for c in sorted(self.charset)) + "]")
        self.observation_space = spaces.Text(MAX_OBSERVATION, min_length=0, charset=self.charset)
        self.action_space = spaces.Text(MAX_ACTION, min_length=0, charset=self.charset)
        self._progress = Fraction(0)
        self._over = (False, False)
        self._quit = False

    # ------------------------------------------------------------------ protocol hooks
    def _setup(self) -> None:
        """Build the inner environment (the options are already attributes)."""
        raise NotImplementedError

    def _names(self) -> list[str]:
        """Texts the observations and actions may quote (their characters join the spaces' charset)."""
        return []

    def _reset_inner(self) -> str:
        raise NotImplementedError

    def _act(self, action: str) -> tuple[str, dict]:
        """Run one action on the inner environment: (feedback text, info)."""
        raise NotImplementedError

    def _info_text(self, action: str) -> Optional[str]:
        """The answer to an informational action (no time passes), or None."""
        low = action.strip().lower()
        if low == "look":
            return self.status()
        if low == "help":
            return self.help_text()
        return None

    def _fraction(self) -> Fraction:
        raise NotImplementedError

    def _ended(self) -> tuple[bool, bool, bool]:
        """(terminated, truncated, success) of the inner environment."""
        raise NotImplementedError

    def status(self) -> str:
        """The status text (what ``render()`` returns)."""
        raise NotImplementedError

    def help_text(self) -> str:
        raise NotImplementedError

    def metrics(self) -> dict:
        """The inner environment's metrics (those of ``chronoplan play --json``), JSON-safe: times and rates as
        int or float (``jsonable``), never ``Fraction``."""
        raise NotImplementedError

    def _counters(self) -> dict:
        return {}

    def _first(self, text: str) -> str:
        """The first observation: the help text and the inner environment's first text."""
        return self.help_text() + "\n" + text

    def _compose(self, feedback: str) -> str:
        """A step's observation: the action's feedback and the status."""
        return feedback + "\n" + self.status()

    # ------------------------------------------------------------------ gymnasium API
    def _obs(self, text: str) -> str:
        if self._outside.search(text) is not None:          # a character the observation space lacks
            text = "".join(c if c in self.charset else "?" for c in text)
        if len(text) > MAX_OBSERVATION:
            text = text[:MAX_OBSERVATION - 6] + "\n[...]"
        return text

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[str, dict]:
        """A new episode (``options`` is not used): the help text and the status, and the starting info."""
        super().reset(seed=seed)
        self._quit = False
        self._over = (False, False)
        text = self._reset_inner()
        self._progress = self._fraction()
        info = {"protocol": self.protocol, "scenario": self.scenario.name, "progress": float(self._progress),
                "success": False, **self._counters()}
        return self._obs(self._first(text)), info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        text = action if isinstance(action, str) else str(action)
        if any(self._over):
            info = {"ok": False, "message": "The episode is over.", "progress": float(self._progress),
                    "success": self._ended()[2], **self._counters()}
            return self._obs("Refused: The episode is over.\n" + self.status()), 0.0, self._over[0], \
                self._over[1], info
        answer = self._info_text(text)
        if answer is not None:
            info = {"ok": True, "message": "", "informational": True, "progress": float(self._progress),
                    "success": False, **self._counters()}
            return self._obs(answer), 0.0, False, False, info
        if text.strip().lower() in ("quit", "exit"):
            self._quit = True
            feedback, info = "OK: You quit.", {"ok": True, "message": "You quit."}
        else:
            feedback, info = self._act(text)
        before, self._progress = self._progress, self._fraction()
        terminated, truncated, success = self._ended()
        terminated = (terminated or self._quit) and not truncated
        gain = 0.0 if self._progress is before or self._progress == before else float(self._progress - before)
        reward = gain + (1.0 if success and terminated else 0.0)
        self._over = (terminated, truncated)
        info.update({"progress": float(self._progress), "success": success, **self._counters()})
        if terminated or truncated:
            info["metrics"] = jsonable(self.metrics())
        return self._obs(self._compose(feedback)), reward, terminated, truncated, info

    def render(self) -> Optional[str]:
        return self._obs(self.status()) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release (the environments hold no files or processes)."""


# ---------------------------------------------------------------------------------------------- procedures
class _ProcedureEnv(ChronoEnv):
    inner: Any

    def _problem(self) -> Any:
        from chronoplan.compiler.instantiate import procedure_problem

        self.problem = procedure_problem(self.project, self.scenario)
        return self.problem

    def _names(self) -> list[str]:
        p = self.problem
        return [p.scenario, *p.agents, *p.tasks, *(r.name for r in p.resources), *(s.text for s in p.steps),
                *getattr(self.inner, "texts", {}).values()]

    def _reset_inner(self) -> str:
        return self.inner.reset()

    def _fraction(self) -> Fraction:
        steps = self.inner.state.steps.values()
        done = sum(1 for s in steps if s.done_at is not None and s.done_at <= self.inner.time)
        return Fraction(done, len(steps)) if steps else Fraction(1)

    def status(self) -> str:
        return self.inner.observation()

    def metrics(self) -> dict:
        return jsonable(self.inner.metrics())

    def _counters(self) -> dict:
        return {"time": json_number(self.inner.time), "refusals": self.inner.refusals}

    def _feedback_info(self, fb) -> dict:
        return {"ok": fb.ok, "message": fb.message, "code": fb.code, "category": fb.category, "hint": fb.hint}


def _arena_rules(compat: Any) -> Rules:
    """``TimeArenaEnv(compat=...)``: None -> the paper's rules; ``timearena`` (a ``Compat`` or its name) -> the
    released code's; anything else is a ``ValueError`` (``CompatError``)."""
    from chronoplan.validators.compat import Compat, CompatError, parse_compat

    mode = parse_compat(compat)
    if mode is None:
        return Rules.PAPER
    if mode is not Compat.TIMEARENA:
        raise CompatError(f"compat={mode.cli_name!r}: the TimeArena environment takes compat='timearena' (other "
                          "modes grade whole plans: chronoplan validate --compat)")
    return Rules.TIMEARENA


class TimeArenaEnv(_ProcedureEnv):
    """TimeArena's protocol (``runtime.procedure.env.Env``): an action is a step's text, ``wait`` or ``wait N``; with
    several agents ``agent: command; agent: command`` (agents not named wait).  Options: ``show_executable``,
    ``max_refusals`` (refusals in a row that truncate the episode; default 5, None: never), ``limit``,
    ``feedback`` and ``stepping`` (``runtime.procedure.feedback``: ``FeedbackStyle.TIMEARENA`` makes the first
    observation the instruction (``chronoplan prompt``) and each step's observation TimeArena's sentences only;
    ``Stepping.MINUTE`` makes a step one minute, an occupying action re-sent each minute).  ``info["occupied"]``
    says whether the agent is still occupied (a TimeArena runner then re-sends the action).  ``compat``
    (``"timearena"`` or ``Compat.TIMEARENA``; default None, the paper's rules): the released TimeArena code's
    rules (``runtime.procedure.arena_rules``; a scenario they cannot hold is a ``ValueError``)."""

    protocol = "timearena"

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *,
                 render_mode: Optional[str] = None, show_executable: bool = False,
                 max_refusals: Optional[int] = 5, limit: Optional[Fraction] = None,
                 feedback: FeedbackStyle = FeedbackStyle.STATUS, stepping: Stepping = Stepping.COMMAND,
                 compat: Any = None) -> None:
        self.options: dict[str, Any] = {"show_executable": show_executable, "max_refusals": max_refusals,
                                        "limit": limit, "feedback": FeedbackStyle(feedback),
                                        "stepping": Stepping(stepping), "rules": _arena_rules(compat)}
        self._arena_text = self.options["feedback"] is FeedbackStyle.TIMEARENA
        self._shares: dict = {}                         # k -> Fraction(k, steps): the progress of k steps done
        self._times: dict = {}                          # the environment's time -> its JSON number
        super().__init__(path, scenario, render_mode=render_mode)

    def _setup(self) -> None:
        from chronoplan.runtime.procedure.env import Env

        self.inner = Env(self._problem(), **self.options)

    def help_text(self) -> str:
        several = len(self.problem.agents) > 1
        waits = "\"wait\"" if self.inner.rules is Rules.TIMEARENA else "\"wait\", \"wait N\""
        return ("Commands: " + "; ".join(f"\"{t}\"" for t in self.inner.texts.values()) + "; " + waits
                + ("; several agents: \"agent: command; agent: command\" (agents: "
                   + ", ".join(self.problem.agents) + ")" if several else "") + ".")

    def _act(self, action: str) -> tuple[str, dict]:
        if len(self.problem.agents) == 1:            # parse_line keeps one agent's line as it is
            _, fb = self.inner.step(action)
        else:
            from chronoplan.commands.play import parse_line

            _, fb = self.inner.step(parse_line(action, self.problem.agents))
        if self._arena_text:
            return fb.message, self._feedback_info(fb)
        return ("OK: " if fb.ok else "Refused: ") + str(fb), self._feedback_info(fb)

    def _first(self, text: str) -> str:
        if self._arena_text:
            from chronoplan.runtime.procedure.instruction import instruction  # lazy: as Env in _setup

            return instruction(self.problem)
        return super()._first(text)

    def _compose(self, feedback: str) -> str:
        return feedback if self._arena_text else super()._compose(feedback)

    def _fraction(self) -> Fraction:
        n = len(self.problem.steps)                 # the steps done by now, as the environment's clock counts them
        if not n:
            return Fraction(1)
        k = self.inner.steps_done_by_now()
        got = self._shares.get(k)
        if got is None:
            got = self._shares[k] = Fraction(k, n)
        return got

    def _counters(self) -> dict:
        env = self.inner
        now = env._now
        time = self._times.get(now)                  # json_number(env.time), kept per time
        if time is None:
            time = json_number(env.time)
            if len(self._times) < 4096:
                self._times[now] = time
        return {"time": time, "refusals": env.refusals,
                "occupied": env.state.agent_free_at(self.problem.agents[0], now) > now}

    def _ended(self) -> tuple[bool, bool, bool]:
        env = self.inner
        truncated = env.done and not env.success and bool(_TIMEARENA_TRUNCATED.search(env.end_reason))
        return env.done and not truncated, truncated, env.success


class Recipe2PlanEnv(_ProcedureEnv):
    """Recipe2Plan's ReAct protocol (``validators.react_env.ReactEnv``): an action is text holding timed
    actions ``Step(step, recipe, duration, start)``, ``wait [until] T`` or ``finish``; ``critique <plan>``
    validates a whole plan without executing it.  Options: ``show_executable``, ``max_refusals`` (in a row,
    default 3), ``max_revisions`` (in all, default 10) -- both truncate --, ``fatal`` (codes that end the
    episode, default E601-E604), ``limit``."""

    protocol = "recipe2plan"

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *,
                 render_mode: Optional[str] = None, show_executable: bool = False,
                 max_refusals: Optional[int] = 3, max_revisions: Optional[int] = 10,
                 fatal: Optional[Any] = None, limit: Optional[Fraction] = None) -> None:
        from chronoplan.validators.react_env import TIME_CONSTRAINT_CODES

        self.options: dict[str, Any] = {"show_executable": show_executable, "max_refusals": max_refusals,
                        "max_revisions": max_revisions, "fatal": TIME_CONSTRAINT_CODES if fatal is None else fatal,
                        "limit": limit}
        super().__init__(path, scenario, render_mode=render_mode)

    def _setup(self) -> None:
        from chronoplan.validators.react_env import ReactEnv

        self.inner = ReactEnv(self._problem(), **self.options)

    def help_text(self) -> str:
        return self.inner.help_text()

    def _info_text(self, action: str) -> Optional[str]:
        stripped = action.strip()
        if stripped[:8].lower() == "critique":
            return self.inner.critique(stripped[8:].strip()).to_text()
        return super()._info_text(action)

    def _act(self, action: str) -> tuple[str, dict]:
        _, fb = self.inner.step(action)
        info = self._feedback_info(fb)
        info.update({"label": fb.label, "fatal": fb.fatal, "results": [
            {"action": r.action, "ok": r.ok, "message": r.message, "label": r.label, "code": r.code,
             "hint": r.hint, "start": json_number(r.start) if r.start is not None else None,
             "end": json_number(r.end) if r.end is not None else None} for r in fb.results]})
        return ("OK: " if fb.ok else "Refused: ") + str(fb), info

    def _ended(self) -> tuple[bool, bool, bool]:
        env = self.inner
        truncated = env.done and not env.success and bool(_REACT_TRUNCATED.search(env.end_reason))
        return env.done and not truncated, truncated, env.success

    def _counters(self) -> dict:
        return {"time": json_number(self.inner.time), "refusals": self.inner.refusals}


# ---------------------------------------------------------------------------------------------- kitchens
class KitchenGymEnv(ChronoEnv):
    """ParaCook batches (``runtime.kitchen.env.KitchenEnv``): an action is one line of ``chronoplan play``'s
    kitchen syntax -- ``agent1: MoveTo 3 4; Interact stove1; agent2: Wait 5`` or JSON ``{agent: [actions]}``
    (one action or a list with one agent) --, ``wait N`` (the world runs N time units) or ``wait`` (to the
    next pending event).  Options: ``max_refusals`` (simulator errors plus unreadable lines, in all, that
    truncate the episode; default None: never), ``max_time`` (default: the scenario's limit)."""

    protocol = "kitchen"

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *,
                 render_mode: Optional[str] = None, max_refusals: Optional[int] = None,
                 max_time: Optional[Any] = None) -> None:
        self.max_refusals = max_refusals
        self.max_time = max_time
        self.refusals = 0
        super().__init__(path, scenario, render_mode=render_mode)

    def _setup(self) -> None:
        from chronoplan.commands.play_kitchen import LineReader
        from chronoplan.runtime.compiled import note_fallback
        from chronoplan.runtime.kitchen.env import KitchenEnv
        from chronoplan.runtime.kitchen.world import World

        note_fallback()                          # once, only after a failed compile at install
        self.world = World(self.project, self.scenario.name)
        self.inner = KitchenEnv(self.world, max_time=self.world.limit if self.max_time is None else self.max_time)
        self.reader = LineReader(self.world.agents, self.world.surfaces)

    def _names(self) -> list[str]:
        w = self.world
        return [self.scenario.name, *w.agents, *(s.name for s in w.map.stations), *(d.name for d in w.orders)]

    def _reset_inner(self) -> str:
        self.inner.reset()
        self.refusals = 0
        return self.status()

    def help_text(self) -> str:
        from chronoplan.commands.play_kitchen import help_text

        return (f"scenario {self.scenario.name}: orders {', '.join(d.name for d in self.world.orders)}\n"
                + help_text(self.world, self.reader))

    def _info_text(self, action: str) -> Optional[str]:
        low = action.strip().lower()
        if low == "state":
            return json.dumps(jsonable(self.inner.observation()))
        if low == "plan":
            return json.dumps(jsonable(self.inner.plan()))
        return super()._info_text(action)

    def _refused(self, message: str) -> tuple[str, dict]:
        self.refusals += 1
        info = {"ok": False, "message": message, "code": "E001", "category": category_of("E001").value,
                "hint": "send \"help\" for the syntax", "errors": []}
        return f"Refused: Unreadable: {message}", info

    def _act(self, action: str) -> tuple[str, dict]:
        from chronoplan.commands.play_kitchen import MAX_TIME
        from chronoplan.runtime.kitchen.env import error_json

        words = action.strip().lower().split()
        try:
            if words and words[0] == "wait" and len(words) <= 2 and ";" not in action and ":" not in action:
                if len(words) == 2:
                    d: Fraction
                    try:
                        d = Fraction(words[1])
                    except (ValueError, ZeroDivisionError):
                        return self._refused(f"wait needs a positive number, got {words[1][:20]!r}")
                    if d <= 0 or d + self.inner.sim.t > MAX_TIME:
                        return self._refused(f"wait {words[1][:20]}: the clock must stay in (now, {MAX_TIME}]")
                else:
                    events = self.inner.observation()["events"]
                    if not events:
                        return self._refused("nothing is pending: give the agents actions")
                    d = max(min(Fraction(str(e["time"])) for e in events) - Fraction(str(self.inner.sim.t)),
                            Fraction(0))
                fb = self.inner.wait(json_number(d))
            else:
                fb = self.inner.step(self.reader.batch(action))
        except Exception as exc:       # the line reader's LineError, or any text it cannot take apart
            return self._refused(str(exc) or type(exc).__name__)
        self.refusals += len(fb.errors)
        errors = [error_json(e) for e in fb.errors]
        first = errors[0] if errors else None
        text = ("OK (t = " + str(json_number(fb.time)) + ")" if not errors else
                f"Refused: {len(errors)} error(s): " + "; ".join(
                    f"{e['code']} {e['category']} ({e['agent'] or 'plan'} #{e['index']}): {e['message']}"
                    + (f" -- {e['hint']}" if e["hint"] else "") for e in errors))
        info = {"ok": not errors, "message": text, "code": first["code"] if first else None,
                "category": first["category"] if first else None, "hint": first["hint"] if first else "",
                "errors": jsonable(errors), "state": jsonable(fb.observation)}
        return text, info

    def _fraction(self) -> Fraction:
        orders = len(self.world.orders)
        return Fraction(len(self.inner.sim.served), orders) if orders else Fraction(1)

    def _ended(self) -> tuple[bool, bool, bool]:
        success = len(self.inner.sim.served) == len(self.world.orders)
        truncated = (not success and not self.inner.done and self.max_refusals is not None
                     and self.refusals >= self.max_refusals)
        return self.inner.done, truncated, success

    def status(self) -> str:
        return self.inner.text()

    def metrics(self) -> dict:
        return jsonable(self.inner.metrics())

    def _counters(self) -> dict:
        return {"time": json_number(self.inner.sim.t), "refusals": self.refusals}


# households (issue #13): the single-agent wrapper lives in chronoplan.env (with the PettingZoo ParallelEnv), which
# needs pettingzoo; it plays the ``household`` protocol (``HouseholdGymEnv.protocol``)
HOUSEHOLD_IDS = {"chronoplan/Household-v0": "chronoplan.env:HouseholdGymEnv"}
HOUSEHOLD_PROTOCOL = "household"


def register() -> None:
    """Register the ids with gymnasium (done at import; calling it again changes nothing)."""
    for env_id, cls in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"chronoplan.envs:{cls}")
    for env_id, entry in HOUSEHOLD_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry)


register()
