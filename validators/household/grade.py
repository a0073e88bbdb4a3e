"""Grading a household episode log: replay it through the engine and report (issue #13).

Input: a compiled project, a household scenario and an episode log (``runtime.household.log``'s JSON Lines:
a header ``{"scenario", "seed", "agents", ...}``, then one record per step ``{"step", "actions",
"messages", "observations"}``) as a path, text, bytes, decoded records or a ``read.EpisodeSource``.  Output:
``grade_log(project, scenario, log, ...)`` -> ``validators.report.Report`` (the report contract of every
family), and ``grade_episode``, the family's grader (``validators.families``).  Never raises on a log.

Rules (docs/benchmarks/pce.md, "Grading an episode log"):
- The header must name the scenario, its seed (or the ``seed`` asked for), its agents and, when given, its
  household and horizon; otherwise ``E130`` and the rest is not graded.  ``syntax`` (cwah/tdw), when given,
  is the syntax the episode was played in (TDW-MAT's explore costs its 24 turning steps).
- Records are replayed in order through ``HouseholdEngine``; a record's ``step`` must come after the
  previous one's (``E033``); a gap is replayed as steps in which no agent gave an action.
- Every action the engine would refuse is an error at its step and agent: unreadable (``E031``), an object
  the episode lacks (``E132``), an object the agent has neither seen nor been told about (``E133``, with the
  step at which it first became known to the agent later in the episode, if ever), busy (``E430``), a message
  over the limit (``E231``), any other refusal (``E230``).  A refused action costs its step, as in play.
  Failures at completion (the conflict rule: the second grab of one thing) are outcomes, not errors; the
  metrics count them.
- A record at or after the horizon is ``E630``, after success ``E631`` (the first is reported, the number
  of the others in its message; they are counted, not read).  A log that stops before the episode ends is
  ``E731``; an episode that reaches the horizon with goals unmet ``E730``.
- ``messages`` (optional) must be what the step's send actions sent (``W031``) and within the limit
  (``E231``); ``observations`` (optional) are compared with the replay's digests (``W030``, the first per
  agent).
- ``index`` of an error is the log's line number (1-based), ``time`` the step, ``agent`` the acting agent.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Optional

from chronoplan.compiler import ir
from chronoplan.compiler.household.problem import HouseholdError, HouseholdProblem
from chronoplan.runtime.household.actions import Action, ActKind, ParseFailure
from chronoplan.runtime.household.engine import HouseholdEngine, Reason
from chronoplan.runtime.household.log import digest
from chronoplan.validators.household.read import EpisodeSource, Line, decode, is_header, raw_lines
from chronoplan.validators.report import PlanError, Report, error_report

MAX_ERRORS = 1000                # listed per log; metrics.errors_omitted counts the rest
MAX_ACTION_TEXT = 10_000         # characters of an action other than a message read at all
MAX_STEP = 10 ** 12
FORMAT = "episode"

_PHRASES = {
    Reason.WHERE_UNKNOWN: "it does not know where {t} is now",
    Reason.BAD_TARGET: "the action does not apply to {t}",
    Reason.HANDS_FULL: "its hands are full",
    Reason.HELD: "{t} is held by an agent",
    Reason.NOT_HELD: "it does not hold {t}",
    Reason.NOTHING_HELD: "it holds nothing",
    Reason.CLOSED: "the container is closed",
    Reason.FULL: "there is no room left there",
    Reason.NO_GOAL_PLACE: "the episode has no goal place to transport to",
}


@dataclass
class _Hallucination:
    slot: int
    no: int
    step: int
    agent: str
    obj: str
    text: str


@dataclass
class _State:
    errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    omitted: int = 0
    first: bool = False
    hallucinations: list = field(default_factory=list)
    obs_mismatch: dict = field(default_factory=dict)
    msg_mismatch: int = 0

    def add(self, err: PlanError) -> None:
        if len(self.errors) >= MAX_ERRORS:
            self.omitted += 1
        else:
            self.errors.append(err)

    @property
    def stop(self) -> bool:
        return self.first and bool(self.errors)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."


def empty_metrics() -> dict:
    """The metrics of a log that replayed no episode (the family's ``metrics`` keys, ``validators.families``)."""
    return {"makespan": None, "success": False, "steps": None, "transport_rate": {"total": 0.0}, "progress": 0.0,
            "messages": 0, "characters": 0}


def grade_episode(grader, scen: ir.Scenario, plan: Any, fmt: Optional[str], first: bool, name: str,
                  reference: Any) -> Report:
    """The household family's grader (``validators.families``): ``plan`` is an episode log."""
    if fmt not in (None, FORMAT):
        return error_report(name, scen.name, "E012", f"a {fmt} plan cannot be graded against the household "
                            f"scenario {scen.name}: its plans are episode logs (--plan-format {FORMAT})",
                            "grade an episode log", empty_metrics())
    return grade_log(grader.project, scen, plan, name=name, first=first, seed=grader.seed)


def grade_log(project: ir.Project, scenario: Any, log: Any, *, name: str = "<episode>", first: bool = False,
              seed: Optional[int] = None) -> Report:
    """Replay an episode log (see the module docstring) and report.  ``seed``: grade an episode played with
    that seed (``reset(seed=N)``) instead of the scenario's."""
    scen = project.scenario(scenario) if isinstance(scenario, str) else scenario
    if isinstance(log, dict) or not isinstance(log, (EpisodeSource, str, bytes, bytearray, list, tuple)) \
            and not hasattr(log, "__fspath__"):
        return error_report(name, scen.name, "E012", f"scenario {scen.name} is graded from an episode log (JSON "
                            "Lines: a header, then one record per step), not from "
                            f"{'one JSON object' if isinstance(log, dict) else type(log).__name__}",
                            "write the log with runtime.household.log or chronoplan.env (log=True)",
                            empty_metrics())
    if hasattr(log, "__fspath__") and not isinstance(log, EpisodeSource):
        from pathlib import Path
        log = Path(log)
    return _Grading(project, scen, name, first, seed).run(log)


class _Grading:
    def __init__(self, project: ir.Project, scen: ir.Scenario, name: str, first: bool, seed: Optional[int]) -> None:
        self.project, self.scen, self.name, self.seed = project, scen, name, seed
        self.st = _State(first=first)
        self.engine: Optional[HouseholdEngine] = None
        self.records = 0
        self.after_end: Optional[tuple[int, int, str]] = None     # (line, step, code) of the first
        self.extra = 0

    # ------------------------------------------------------------------ set-up
    def _problem(self, syntax: Optional[ir.ActionSyntax], seed: Optional[int]) -> HouseholdProblem:
        scen = self.scen if syntax is None else replace(self.scen, syntax=syntax)
        return HouseholdProblem(self.project, scen, seed)

    def _header(self, line: Line) -> tuple[Optional[HouseholdProblem], bool]:
        """(the episode to replay, whether ``line`` was the header); None when the log is of another episode."""
        v = line.value
        expected_seed = self.scen.seed if self.seed is None else self.seed
        if not is_header(v):
            self.st.add(PlanError("E032", "the log has no header (its first record should be {\"scenario\", "
                                  "\"seed\", \"agents\"}); replayed as an episode of the scenario",
                                  "write the header first (runtime.household.log.EpisodeLog does)", index=line.no))
            return self._problem(None, self.seed), False
        syntax = None
        if "syntax" in v:
            try:
                syntax = ir.ActionSyntax(v["syntax"]) if isinstance(v["syntax"], str) else None
            except ValueError:
                syntax = None
            if syntax is None:
                self.st.add(PlanError("E032", f"the header's syntax is {_short(repr(v['syntax']))}, not \"cwah\" or "
                                      "\"tdw\"", "leave it out or write cwah or tdw", index=line.no))
        problem = self._problem(syntax, expected_seed)
        wrong = []
        if v["scenario"] != self.scen.name:
            wrong.append(f"scenario {_short(repr(v['scenario']))} (graded against {self.scen.name})")
        if not _is_int(v["seed"]) or v["seed"] != expected_seed:
            wrong.append(f"seed {_short(repr(v['seed']))} (" + ("the scenario's" if self.seed is None else
                                                                  "the one asked for") + f" is {expected_seed})")
        agents = v["agents"]
        if not isinstance(agents, list) or sorted(map(str, agents)) != sorted(problem.agents) \
                or not all(isinstance(a, str) for a in agents):
            wrong.append(f"agents {_short(repr(agents))} (the scenario's are {', '.join(problem.agents)})")
        if "household" in v and v["household"] != problem.household:
            wrong.append(f"household {_short(repr(v['household']))} (the scenario's is {problem.household})")
        if "horizon" in v and v["horizon"] != problem.horizon:
            wrong.append(f"horizon {_short(repr(v['horizon']))} (the scenario's is {problem.horizon})")
        if wrong:
            self.st.add(PlanError("E130", "the log is of another episode: its header names " + "; ".join(wrong)
                                  + "; the records are not graded",
                                  "grade it against the scenario it was played in (--scenario), or with the seed it "
                                  "was played with (--seed N; validators.household.grade_log(..., seed=N))",
                                  index=line.no))
            return None, True
        return problem, True

    # ------------------------------------------------------------------ the replay
    def run(self, log: Any) -> Report:
        header_seen = False
        try:
            for item in raw_lines(log):
                if self.st.stop:
                    break
                if self.after_end is not None:
                    self.extra += 1
                    continue
                line = item if isinstance(item, Line) else decode(item[1], item[0])
                if line.error is not None:
                    self.st.add(line.error)
                    if line.error.code == "E002":
                        return self._report()
                    if not header_seen and line.no <= 1:
                        header_seen = True
                        self.engine = HouseholdEngine(self._problem(None, self.seed))
                    continue
                if not header_seen:
                    header_seen = True
                    problem, was_header = self._header(line)
                    if problem is None:
                        return self._report()
                    self.engine = HouseholdEngine(problem)
                    if was_header:
                        continue
                self._record(line)
        except HouseholdError as exc:
            return error_report(self.name, self.scen.name, "E012", f"scenario {self.scen.name} cannot be "
                                f"instantiated: {exc}", "fix the scenario", empty_metrics())
        if not header_seen:
            return error_report(self.name, self.scen.name, "E002", "the episode log is empty",
                                "write the header and one record per step", empty_metrics())
        self._end()
        return self._report()

    def _record(self, line: Line) -> None:
        e = self.engine
        assert e is not None, "the engine is built from the header"
        v, no = line.value, line.no
        if not isinstance(v, dict):
            self.st.add(PlanError("E032", f"line {no} is a JSON {type(v).__name__}, not a step record "
                                  "{\"step\", \"actions\", ...}", "one object per step", index=no))
            return
        raw_step = v.get("step")
        if not isinstance(raw_step, int) or isinstance(raw_step, bool) or not 0 <= raw_step <= MAX_STEP:
            self.st.add(PlanError("E032", f"line {no}: \"step\" is {_short(repr(raw_step))}, not a whole number from 0",
                                  "number the steps 0, 1, 2, ...", index=no))
            return
        step: int = raw_step
        self.records += 1
        if step < e.t:
            self.st.add(PlanError("E033", f"line {no}: step {step} does not come after the previous record's "
                                  f"(the next step is {e.t}); the record is skipped", "one record per step, in order",
                                  index=no, time=step))
            return
        while e.t < step and not e.done:          # a gap: steps in which no agent gave an action
            e.step({})
        if e.done:
            code = "E631" if e.success else "E630"
            self.after_end = (no, step, code)
            return
        actions = self._actions(v, no, step)
        checked = self._precheck(actions, no, step)
        e.step({a: t for a, t in actions.items()})
        self._messages(v, no, step, checked)
        self._observations(v, no, step)

    def _agent_map(self, v: dict, key: str, no: int, step: int) -> dict[str, str]:
        got = v.get(key)
        if got is None:                            # absent, or null in the strict form
            return {}
        if not isinstance(got, dict):
            self.st.add(PlanError("E032", f"line {no}: \"{key}\" is a JSON {type(got).__name__}, not an object "
                                  "agent -> text", f"write \"{key}\": {{\"alice\": \"...\"}}", index=no, time=step))
            return {}
        out = {}
        agents = self.engine.problem.agents if self.engine else ()
        for a, text in got.items():
            if text is None and a in agents:       # null: no action / no message (the strict form)
                continue
            if a not in agents:
                self.st.add(PlanError("E131", f"line {no}: \"{key}\" names agent {_short(repr(a))}, which the "
                                      "episode does not have", "agents: " + ", ".join(agents), index=no, time=step))
            elif not isinstance(text, str):
                self.st.add(PlanError("E032", f"line {no}: {a}'s entry in \"{key}\" is a JSON "
                                      f"{type(text).__name__}, not a string", "write the text as a string",
                                      index=no, agent=a, time=step))
            else:
                out[a] = text
        return out

    def _actions(self, v: dict, no: int, step: int) -> dict[str, str]:
        if "actions" not in v:
            self.st.add(PlanError("E032", f"line {no}: the record has no \"actions\" (replayed as a step in which "
                                  "no agent gave an action)", "write \"actions\": {} for such a step",
                                  index=no, time=step))
            return {}
        return self._agent_map(v, "actions", no, step)

    def _precheck(self, actions: dict[str, str], no: int, step: int) -> dict[str, Optional[Action]]:
        """The errors of the actions the engine will refuse (checked before the step: a completion in the same
        step would hide a refusal).  Returns agent -> the action it starts (None when refused)."""
        e = self.engine
        assert e is not None, "the engine is built from the header"
        out: dict[str, Optional[Action]] = {}
        for agent, text in actions.items():
            out[agent] = None
            message = text.lstrip().lower().startswith(("[send_message]", "send a message"))
            if len(text) > MAX_ACTION_TEXT and not message:
                self._err("E031", no, step, agent, f"{agent}'s action is {len(text)} characters long and names no "
                          "action", "one high-level action per agent, as listed in its available actions")
                continue
            act, _ = e.resolve(agent, text)
            if isinstance(act, ParseFailure):
                code = "E132" if act.unknown_name else "E031"
                what = "names an object the episode does not have (a hallucinated object)" if act.unknown_name \
                    else "names no action"
                self._err(code, no, step, agent, f"{agent}'s action {_short(repr(text))} {what}: {act.message}",
                          "choose one of the agent's available actions")
                continue
            if agent in e.running:
                if act.kind != ActKind.WAIT:
                    run = e.running[agent]
                    self._err("E430", no, step, agent, f"{agent}'s action {_short(repr(text))} is given while its "
                              f"action {_short(repr(run.text))} still runs ({run.remaining} steps left)",
                              "give wait (or no action) until the running action completes")
                continue
            got = e.check(agent, act)
            if not isinstance(got, Reason):
                out[agent] = act
                continue
            self._refused(got, act, agent, text, no, step)
        return out

    def _refused(self, reason: Reason, act: Action, agent: str, text: str, no: int, step: int) -> None:
        e = self.engine
        assert e is not None, "the engine is built from the header"
        obj = act.place if reason == Reason.NOT_KNOWN and act.kind == ActKind.PUT and act.place in e.movable \
            else act.target
        unknown = reason == Reason.NOT_KNOWN or (reason == Reason.NOT_HELD and obj is not None
                                                 and not e.knowledge[agent].knows(obj))
        if unknown and obj is not None:
            self.st.hallucinations.append(_Hallucination(len(self.st.errors), no, step, agent, obj, text))
            self._err("E133", no, step, agent, "", "")            # the message is written once the replay is over
            return
        if reason == Reason.MESSAGE_TOO_LONG:
            self._err("E231", no, step, agent, f"{agent}'s message is {len(act.text)} characters long; the scenario "
                      f"allows {e.problem.message_limit}", f"cut it to {e.problem.message_limit} characters")
            return
        phrase = _PHRASES.get(reason, reason.value).format(t=act.target or act.place or "it")
        self._err("E230", no, step, agent, f"{agent}'s action {_short(repr(text))} is refused: {phrase}",
                  "choose one of the agent's available actions (they list only what the rules allow)")

    def _err(self, code: str, no: int, step: int, agent: Optional[str], message: str, hint: str) -> None:
        self.st.add(PlanError(code, message or code, hint, index=no, agent=agent, time=step))

    def _messages(self, v: dict, no: int, step: int, started: dict[str, Optional[Action]]) -> None:
        if v.get("messages") is None:
            return
        e = self.engine
        assert e is not None, "the engine is built from the header"
        logged = self._agent_map(v, "messages", no, step)
        sent = {a: act.text for a, act in started.items() if act is not None and act.kind == ActKind.SEND}
        already = {err.agent for err in self.st.errors if err.code == "E231" and err.index == no}
        for a, text in logged.items():
            if len(text) > e.problem.message_limit and a not in already:
                self._err("E231", no, step, a, f"{a}'s message in \"messages\" is {len(text)} characters long; the "
                          f"scenario allows {e.problem.message_limit}",
                          f"cut it to {e.problem.message_limit} characters")
        differ = sorted(a for a in set(logged) | set(sent) if logged.get(a) != sent.get(a) and not
                        (a not in sent and a in already))
        if differ and self.st.msg_mismatch < 3:
            self.st.warnings.append(PlanError("W031", f"line {no}: the messages of {', '.join(differ)} differ from "
                                              "what the step's send actions sent", "log what was sent",
                                              index=no, time=step))
        self.st.msg_mismatch += bool(differ)

    def _observations(self, v: dict, no: int, step: int) -> None:
        got = v.get("observations")
        if got is None:
            return
        e = self.engine
        assert e is not None, "the engine is built from the header"
        if not isinstance(got, dict):
            self.st.add(PlanError("E032", f"line {no}: \"observations\" is a JSON {type(got).__name__}, not an "
                                  "object agent -> sha256 digest", "leave it out or log the digests",
                                  index=no, time=step))
            return
        for a in e.problem.agents:
            d = got.get(a)
            if d is None:
                continue
            if not isinstance(d, str) or d != digest(e.observation(a)):
                n = self.st.obs_mismatch.get(a, 0)
                if n == 0:
                    self.st.warnings.append(PlanError(
                        "W030", f"line {no}: {a}'s observation digest differs from the replay's (first of the "
                        "log's mismatches for this agent)", "the log was edited or written by another version of "
                        "chronoplan; the grade uses the replay", index=no, agent=a, time=step))
                self.st.obs_mismatch[a] = n + 1

    # ------------------------------------------------------------------ the end
    def _end(self) -> None:
        e = self.engine
        if e is None:
            return
        if self.after_end is not None:
            no, step, code = self.after_end
            more = f"; {self.extra} more record{'s' * (self.extra != 1)} follow it" if self.extra else ""
            why = (f"the horizon ({e.problem.horizon} steps)" if code == "E630"
                   else f"the end of the episode (every goal met at step {e.t})")
            self.st.add(PlanError(code, f"line {no}: the record of step {step} comes after {why}{more}",
                                  "stop logging when the episode ends", index=no, time=step))
        elif not e.done and not self.st.stop:
            self.st.add(PlanError("E731", f"the log stops at step {e.t}, before the episode ends (goals unmet, "
                                  f"horizon {e.problem.horizon})", "play the episode to success or to the horizon",
                                  time=e.t))
        if e.done and not e.success and not self.st.stop:
            unmet = [f"{g.count} {g.what} {g.relation} {g.where} ({n} delivered)"
                     for g, n in zip(e.problem.goals, e.delivered()) if n < g.count]
            self.st.add(PlanError("E730", f"the horizon ({e.problem.horizon} steps) is reached with goals unmet: "
                                  + "; ".join(unmet), "deliver every goal thing before the horizon", time=e.t))
        self._resolve_hallucinations()

    def _resolve_hallucinations(self) -> None:
        e = self.engine
        assert e is not None, "the engine is built from the header"
        for h in self.st.hallucinations:
            known = e.knowledge[h.agent].known_at(h.obj)
            when = (f"it first became known to {h.agent} at step {known}" if known is not None
                    else f"{h.agent} never learned of it in this episode")
            err = PlanError("E133", f"{h.agent}'s action {_short(repr(h.text))} acts on {h.obj}, which {h.agent} has "
                            f"neither seen nor been told about at step {h.step} (knowledge hallucination; {when})",
                            "act only on objects in the agent's observation or named in a message"
                            + (f" (known from step {known})" if known is not None else ""),
                            index=h.no, agent=h.agent, time=h.step)
            if h.slot < len(self.st.errors):
                self.st.errors[h.slot] = err

    def _report(self) -> Report:
        e = self.engine
        metrics = empty_metrics()
        if e is not None:
            m = e.metrics()
            metrics = {"makespan": m["steps"], "success": bool(m["success"]),
                       "steps": m["steps"], "horizon": m["horizon"], "transport_rate": m["transport_rate"],
                       "progress": m["transport_rate"].get("total", 0.0), "delivered": m["delivered"],
                       "messages": m["messages"], "characters": m["characters"], "refusals": m["refusals"],
                       "failures": m["failures"], "actions": m["actions"], "records": self.records,
                       "hallucinations": len(self.st.hallucinations)}
            if sum(self.st.obs_mismatch.values()):
                metrics["observation_mismatches"] = sum(self.st.obs_mismatch.values())
        if self.st.omitted:
            metrics["errors_omitted"] = self.st.omitted
        return Report(not self.st.errors, self.name, self.scen.name, tuple(self.st.errors), metrics,
                      tuple(self.st.warnings))
