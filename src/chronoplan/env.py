"""Multi-agent environments over household scenarios (issue #13): PettingZoo and Gymnasium.

Input: a .chrono file or directory (or a loaded ``Project``), a household scenario's name, a seed (default:
the scenario's) and optionally the action syntax shown (``"cwah"`` or ``"tdw"``; default: the scenario's).
Output:

- ``parallel_env(path, scenario, seed=None, syntax=None, log=False, render_mode=None)`` -> ``HouseholdParallelEnv``,
  a PettingZoo ``ParallelEnv``.  Per agent: observation space ``Dict(observation=Text, action_mask=MultiBinary(n))``,
  action space ``Discrete(n)`` over ``engine.catalogue`` (every explore/goto/check/grab/put/transport of the
  episode, one ``send`` whose text is a summary of the agent's knowledge, and ``wait``).  ``step`` also
  takes a str action in either syntax (``[goexplore] <kitchen> (2)``, ``go grasp target object <apple1> (7)``,
  ``[send_message] <text>``) -- what an LLM loop sends --, an ``Action`` or None (wait).  A refused action is a
  step like any other (its reason is in the info and the next observation), never an exception.
  ``reset(seed=N)`` draws the hidden placements with seed N (``reset()`` keeps the current draw).
- ``HouseholdGymEnv(path, scenario, agent=None, ...)``: a Gymnasium ``Env`` for one agent (default: the
  first), the other agents playing the scripted baseline (``runtime.household.baseline``); registered as
  ``chronoplan/Household-v0`` (here and by ``chronoplan.envs``).

Reward (shared by all agents): the fraction of the goal things delivered gained by the step, plus 1.0 on the
step that ends the episode in success.  Termination: every goal holds (all agents terminated); truncation: the
horizon is reached first (all agents truncated).  Info per agent: ``status`` (of its action; ``truncated`` or
``success`` for an action the episode's end cut off), ``message``, ``reason``, ``step``, ``success``, ``episode``
(``running``, ``success`` or ``truncated``), and ``metrics`` (``engine.metrics()``) once the episode is over.
"""
from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:          # pragma: no cover - exercised only without the extra
    raise ImportError("chronoplan.env needs gymnasium (>= 1.0): pip install 'chronoplan[pettingzoo]'") from exc
try:
    from pettingzoo import ParallelEnv
except ImportError as exc:          # pragma: no cover
    raise ImportError("chronoplan.env needs pettingzoo: pip install 'chronoplan[pettingzoo]'") from exc

import chronoplan
from chronoplan.compiler.household.problem import HouseholdProblem
from chronoplan.compiler.ir import ActionSyntax, Project
from chronoplan.envs import HOUSEHOLD_PROTOCOL, environments
from chronoplan.runtime.household.baseline import Baseline
from chronoplan.runtime.household.engine import HouseholdEngine, Result, Status
from chronoplan.validators.families import family_of

__all__ = ["parallel_env", "HouseholdParallelEnv", "HouseholdGymEnv", "HOUSEHOLD_ID", "MAX_OBSERVATION"]

HOUSEHOLD_ID = "chronoplan/Household-v0"
MAX_OBSERVATION = 100_000          # characters; a longer observation is cut and ends with "\n[...]"


def _project(path: Union[str, Path, Project]) -> Project:
    return path if isinstance(path, Project) else chronoplan.load(path)


def _problem(project: Project, scenario: Optional[str], seed: Optional[int],
             syntax: Optional[Union[str, ActionSyntax]]) -> HouseholdProblem:
    scen = project.scenario(scenario)
    family = family_of(scen)
    if HOUSEHOLD_PROTOCOL not in family.protocols:
        raise ValueError(f"scenario {scen.name} ({family.name}) has no household protocol; its environment: "
                         f"{environments(family)}")
    if syntax is not None:
        import dataclasses

        scen = dataclasses.replace(scen, syntax=ActionSyntax(syntax) if isinstance(syntax, str) else syntax)
    return HouseholdProblem(project, scen, seed)


class _Common:
    """What both environments share: the episode, its spaces and the per-step bookkeeping."""

    protocol = HOUSEHOLD_PROTOCOL   # the protocol of the family registry's entry that it plays
    project: Project
    problem: HouseholdProblem
    engine: HouseholdEngine

    def _build(self, path: Union[str, Path, Project], scenario: Optional[str], seed: Optional[int],
               syntax: Optional[Union[str, ActionSyntax]], log: bool) -> None:
        self.project = _project(path)
        self.scenario_name = scenario
        self.syntax = syntax
        self.log_enabled = log
        self.problem = _problem(self.project, scenario, seed, syntax)
        self.engine = HouseholdEngine(self.problem, log=log)
        names = [*self.problem.rooms, *self.problem.places, *self.problem.things, *self.problem.agents]
        self.charset = frozenset(string.printable) | frozenset("".join(names))
        self._foreign = re.compile("[^" + "".join(re.escape(c) for c in sorted(self.charset)) + "]")
        n = len(self.engine.catalogue)
        self._obs_space = spaces.Dict({"observation": spaces.Text(MAX_OBSERVATION, min_length=0, charset=self.charset),
                                       "action_mask": spaces.MultiBinary(n)})
        self._act_space = spaces.Discrete(n)
        self._delivered = 0
        self._goal_total = sum(g.count for g in self.problem.goals) or 1
        self._masks: dict[str, tuple[list, np.ndarray, Optional[str]]] = {}   # (availability, mask, body)
        self._clean: dict[str, tuple[str, bool]] = {}   # per agent: (body, it has only characters of the charset)

    def _redraw(self, seed: Optional[int]) -> None:
        if seed is not None and seed != self.problem.seed:
            self.problem = _problem(self.project, self.scenario_name, seed, self.syntax)
            self.engine = HouseholdEngine(self.problem, log=self.log_enabled)
        else:
            self.engine.reset()
        self._delivered = sum(self.engine.delivered())
        self._goal_total = sum(g.count for g in self.problem.goals) or 1

    def _text(self, agent: str) -> str:
        head, body = self.engine.observation_parts(agent)
        text = head + "\n" + body
        clean = self._clean.get(agent)            # the body is searched once per body object
        if clean is None or clean[0] is not body:
            clean = self._clean[agent] = (body, self._foreign.search(body) is None)
        # a head of printable ASCII (0x20-0x7e) has no foreign character; else search it
        if not clean[1] or not (head.isascii() and head.isprintable()) and self._foreign.search(head):
            text = "".join(c if c in self.charset else "?" for c in text)
        if len(text) > MAX_OBSERVATION:
            text = text[:MAX_OBSERVATION - 6] + "\n[...]"
        return text

    def _mask(self, agent: str, body: Optional[str] = None) -> np.ndarray:
        # the engine returns the same list object while the agent's availability inputs are unchanged: the
        # mask is built once per list and each observation gets its own copy (callers may write to it).  The
        # engine's observation body is the same object only while its key, which holds the availability key,
        # is unchanged: with the body the mask was last checked with, the engine is not asked again
        cached = self._masks.get(agent)
        if cached is None or body is None or cached[2] is not body:
            avail = self.engine.available(agent)
            if cached is None or cached[0] is not avail:
                mask = np.zeros(len(self.engine.catalogue), dtype=np.int8)
                mask[avail] = 1
            else:
                mask = cached[1]
            cached = self._masks[agent] = (avail, mask, body)
        return cached[1].copy()

    def _obs(self, agent: str) -> dict:
        text = self._text(agent)
        return {"observation": text, "action_mask": self._mask(agent, self._clean[agent][0])}

    def _reward(self) -> float:
        now = sum(self.engine.delivered())
        total = self._goal_total
        gained, self._delivered = (now - self._delivered) / total, now
        return float(gained) + (1.0 if self.engine.success else 0.0)

    def _info(self, r: Optional[Result]) -> dict:
        e = self.engine
        episode = "success" if e.success else "truncated" if e.done else "running"
        info: dict[str, Any] = {"step": e.t, "success": e.success, "episode": episode}
        if r is not None:
            status, message = r.status.value, r.message
            if e.done and (r.status is Status.RUNNING or (r.status is Status.STARTED and r.steps > 1)):
                status = episode             # the episode ended while the action ran: it never completes
                message = (message + " " if message else "") + (
                    f"The episode is over: the horizon ({self.problem.horizon} steps) was reached before the "
                    "action completed." if episode == "truncated" else "The episode is over: the goal holds.")
            info.update({"status": status, "message": message,
                         "reason": r.reason.value if r.reason is not None else None})
        if e.done:
            info["metrics"] = e.metrics()
        return info

    @staticmethod
    def _action(action: Any) -> Any:
        if isinstance(action, (np.integer, np.ndarray)):
            return int(action)
        return action

    def _render_text(self) -> str:
        e = self.engine
        lines = [f"{self.problem.scenario} step {e.t}/{self.problem.horizon}"
                 + (" (success)" if e.success else " (over)" if e.done else "")]
        for a in self.problem.agents:
            run = e.running.get(a)
            lines.append(f"{a} at {e.pos[a]} holding {', '.join(e.held[a]) or 'nothing'}"
                         + (f", busy: {run.text} ({run.remaining} left)" if run else ""))
        lines.append("things: " + ", ".join(f"{x} {e.loc[x]}" for x in self.problem.things))
        return "\n".join(lines)


class HouseholdParallelEnv(_Common, ParallelEnv):
    """A household episode as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    metadata: dict[str, Any] = {"name": "chronoplan_household_v0", "render_modes": ["ansi"],
                                "is_parallelizable": True}

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *, seed: Optional[int] = None,
                 syntax: Optional[Union[str, ActionSyntax]] = None, log: bool = False,
                 render_mode: Optional[str] = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: use 'ansi' or None")
        self.render_mode = render_mode
        self._build(path, scenario, seed, syntax, log)
        self.possible_agents = list(self.problem.agents)
        self.agents = list(self.possible_agents)

    def observation_space(self, agent: str) -> spaces.Space:
        """The same space object for every agent and call (the API test requires one object per agent)."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        """A new episode (``seed``: redraw the hidden placements with it; ``options`` is not used)."""
        self._redraw(seed)
        self.agents = list(self.possible_agents)
        if seed is not None:
            self._act_space.seed(seed)
        return {a: self._obs(a) for a in self.agents}, {a: self._info(None) for a in self.agents}

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        e = self.engine
        results = e.step({a: self._action(act) for a, act in actions.items()})
        reward = self._reward()
        live = list(self.agents)
        obs = {a: self._obs(a) for a in live}
        rewards = {a: reward for a in live}
        terminated = {a: e.done and e.success for a in live}
        truncated = {a: e.done and not e.success for a in live}
        infos = {a: self._info(results.get(a)) for a in live}
        if e.done:
            self.agents = []
        return obs, rewards, terminated, truncated, infos

    def render(self) -> Optional[str]:
        return self._render_text() if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release."""

    @property
    def log(self):
        """The episode log (``runtime.household.log.EpisodeLog``) when built with ``log=True``, else None."""
        return self.engine.log


def parallel_env(path: Union[str, Path, Project], scenario: Optional[str] = None, seed: Optional[int] = None,
                 syntax: Optional[Union[str, ActionSyntax]] = None, **kwargs: Any) -> HouseholdParallelEnv:
    """The PettingZoo ``ParallelEnv`` of a household scenario (``kwargs``: ``log``, ``render_mode``)."""
    return HouseholdParallelEnv(path, scenario, seed=seed, syntax=syntax, **kwargs)


class HouseholdGymEnv(_Common, gymnasium.Env):
    """One agent of a household episode as a Gymnasium ``Env``; the others play the scripted baseline."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, path: Union[str, Path, Project], scenario: Optional[str] = None, *, agent: Optional[str] = None,
                 seed: Optional[int] = None, syntax: Optional[Union[str, ActionSyntax]] = None, log: bool = False,
                 render_mode: Optional[str] = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: use 'ansi' or None")
        self.render_mode = render_mode
        self._build(path, scenario, seed, syntax, log)
        self.agent = agent if agent is not None else self.problem.agents[0]
        if self.agent not in self.problem.agents:
            raise ValueError(f"no agent {self.agent} in scenario {self.problem.scenario}: "
                             f"{', '.join(self.problem.agents)}")
        self.observation_space = self._obs_space
        self.action_space = self._act_space
        self.policy = Baseline(self.engine)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        """A new episode (``seed``: redraw the hidden placements with it and seed ``np_random``)."""
        super().reset(seed=seed)
        self._redraw(seed)
        self.policy = Baseline(self.engine)
        return self._obs(self.agent), self._info(None)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        e = self.engine
        if e.done:
            return self._obs(self.agent), 0.0, e.success, not e.success, self._info(None)
        acts: dict = dict(self.policy.actions())
        acts[self.agent] = self._action(action)
        results = e.step(acts)
        reward = self._reward()
        return self._obs(self.agent), reward, e.done and e.success, e.done and not e.success, \
            self._info(results.get(self.agent))

    def render(self) -> Optional[str]:
        return self._render_text() if self.render_mode == "ansi" else None


def register() -> None:
    """Register ``chronoplan/Household-v0`` with gymnasium (again: nothing changes)."""
    if HOUSEHOLD_ID not in gymnasium.registry:
        gymnasium.register(HOUSEHOLD_ID, entry_point="chronoplan.env:HouseholdGymEnv")


register()
