"""A TimeArena agent loop, written the way the original runner drives its environment, runs against chronoplan
with only the environment's constructor changed (#15 item 1).

The runner (facts: /work/shared/data/timearena/README.md and the TimeArena paper, Table 8): the first observation
is the instruction; then, minute by minute, it prints "In t=N, your action is:" (after the observations since
the last question), asks the model for one action and sends it; while the agent is occupied by an occupying
action it re-sends that action every minute without asking; it stops when the task is done.  ``run_loop`` below
is that loop; it only needs ``reset() -> (text, info)``, ``step(action) -> (text, reward, terminated,
truncated, info)`` and ``info["occupied"]``.

The loop runs against two constructors: ``OriginalStyleArena``, a re-statement of the original environment
built from tasks.json alone (its rules and sentences from the README and the paper; no chronoplan code but the
paper's fixed protocol paragraph), and chronoplan's ``TimeArenaEnv(..., feedback=FeedbackStyle.TIMEARENA,
stepping=Stepping.MINUTE)`` over domains/timearena.  The scripted model (the original's LLM replaced by an
action script, as in the issue's comparison) reads the minute from the runner's question.  Both transcripts must
be identical, and chronoplan's episode must end with progress score 100 at the oracle's completion time.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from shared_data import shared_data

import chronoplan
from chronoplan.compiler.instantiate import procedure_problem
from chronoplan.envs import TimeArenaEnv
from chronoplan.runtime.procedure.env import Env
from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping
from chronoplan.runtime.procedure.instruction import PREAMBLE, instruction

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timearena_exact import solve  # noqa: E402

DATA = shared_data("timearena", "tasks.json")
needs_data = pytest.mark.skipif(not DATA.is_file(), reason="TimeArena facts not available")
SINGLES = [f"{c}{i}" for c in ("cooking", "household", "lab") for i in range(1, 11)]


# ---------------------------------------------------------------------------------------------- the runner
def run_loop(make_env, model, max_minutes: int = 200) -> tuple[list, dict]:
    """The original runner's loop; returns the conversation [(role, text)] and the last info."""
    env = make_env()
    obs, info = env.reset()
    history = [("env", obs)]
    pending: list = []
    action = "wait"
    for t in range(1, max_minutes + 1):
        if info.get("occupied"):
            obs, _, terminated, truncated, info = env.step(action)       # re-sent, the model is not asked
        else:
            history.append(("env", "\n".join(pending + [f"In t={t}, your action is:"])))
            pending = []
            action = model(history)
            history.append(("agent", action))
            obs, _, terminated, truncated, info = env.step(action)
        if obs:
            pending.append(obs)
        if terminated or truncated:
            break
    if pending:
        history.append(("env", "\n".join(pending)))
    return history, info


class ScriptedModel:
    """An action script in place of the LLM: the action planned for the minute the runner asks about, else wait."""

    def __init__(self, plan: dict) -> None:
        self.plan = plan                       # minute (1-based, as the runner counts) -> action

    def __call__(self, history: list) -> str:
        m = re.search(r"In t=(\d+), your action is:$", history[-1][1])
        assert m, history[-1]
        return self.plan.get(int(m.group(1)), "wait")


# ---------------------------------------------------------------------------------------------- the original, re-stated
class OriginalStyleArena:
    """One TimeArena task as the original environment and runner treat it (README "Time semantics"), from
    tasks.json: one call per minute; an occupying action keeps the agent for its minutes; a background action
    occupies its objects; a refused command costs its minute."""

    def __init__(self, task: dict, verbs: dict) -> None:
        self.task, self.verbs = task, verbs

    def instruction(self) -> str:
        t = self.task
        keys = list(dict.fromkeys(a["verb"] for a in t["actions"]))
        lines = [PREAMBLE, "**Task 1**", "<Description>", f"- {t['description']}", "<Valid Actions and Usages>"]
        for k in keys:
            effect = self.verbs[k]["effect"].strip()
            lines.append(f"- {self.verbs[k]['usage']}: {(effect[:1].upper() + effect[1:]).rstrip('.')}.")
        lines.append("- wait: pass the current time without doing anything.")
        lines += ["**All Available Objects(OBJ)**", "; ".join(o["name"] for o in t["objects"]),
                  "**The Initial States of Objects**",
                  "; ".join(f"{o['name']}: {o['initial_state']}" for o in t["objects"])]
        return "\n".join(lines)

    def reset(self):
        self.time, self.busy_until = 0, 0
        self.running: dict = {}                # action id -> end minute
        self.complete: list = []
        self.states = {o["name"]: o["initial_state"] for o in self.task["objects"]}
        return self.instruction(), self._info()

    def _info(self) -> dict:
        return {"occupied": self.time < self.busy_until, "time": self.time}

    def _action(self, text: str):
        return next((a for a in self.task["actions"] if a["id"] == text), None)

    def step(self, command: str):
        text = " ".join(command.split()).lower()
        lines = []
        if self.time < self.busy_until:
            pass                                               # the re-sent occupying action
        elif text == "wait":
            lines.append("You wait for one minute.")
        else:
            a = self._action(text)
            assert a is not None, f"the scripts here name actions only: {text}"
            occupied = {o for r in self.running for o in self._action(r)["objects"]}
            first = a["objects"][0]
            if a["id"] in self.complete:
                lines.append(f"{a['id']} has been completed.")
            elif a["id"] in self.running:
                lines.append(f"Object {first} is being occupied by another action.")
            elif any(r not in self.complete for r in a["requires"]):
                verb = a["verb"]
                lines.append(f"Cannot perform action {verb} on object {first}. Because {first} is "
                             f"{self.states[first]}.")
            elif any(o in occupied for o in a["objects"]):
                busy = next(o for o in a["objects"] if o in occupied)
                lines.append(f"Object {busy} is being occupied by another action.")
            else:
                n = a["minutes"]
                lines.append(f"You are doing ``{a['id']}``, it will take {'one minute' if n == 1 else f'{n} minutes'}.")
                self.running[a["id"]] = self.time + n
                if a["occupies_agent"]:
                    self.busy_until = self.time + n
        self.time += 1
        for a in self.task["actions"]:                         # completions, in the task's action order
            if self.running.get(a["id"]) == self.time:
                del self.running[a["id"]]
                self.complete.append(a["id"])
                obj = a["objects"][0]
                self.states[obj] = a["result_states"][obj]
                lines.append(f"{obj} is {self.states[obj]}.")
        done = len(self.complete) == len(self.task["actions"])
        return "\n".join(lines), 0.0, done, False, self._info()


# ---------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def project():
    return chronoplan.load(str(ROOT / "domains" / "timearena"))


@pytest.fixture(scope="module")
def facts() -> dict:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return {"tasks": {t["id"]: t for c in data["scenarios"].values() for t in c}, "verbs": data["verbs"]}


def optimal_script(project, name: str) -> tuple[dict, int]:
    """The oracle schedule (tests/timearena_exact.py) as minute -> action (1-based minutes), and its makespan."""
    problem = procedure_problem(project, project.scenarios[name])
    sol = solve(problem)
    texts = Env(problem).texts
    return {start + 1: texts[key] for key, start in sol.starts.items()}, sol.makespan


def chronoplan_env(project, name):
    return lambda: TimeArenaEnv(project, name, feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE)


# ---------------------------------------------------------------------------------------------- tests
@needs_data
@pytest.mark.parametrize("name", SINGLES)
def test_the_runner_loop_runs_unchanged_on_chronoplan(project, facts, name):
    plan, makespan = optimal_script(project, name)
    original, _ = run_loop(lambda: OriginalStyleArena(facts["tasks"][name], facts["verbs"]), ScriptedModel(plan))
    ours, info = run_loop(chronoplan_env(project, name), ScriptedModel(plan))
    assert ours == original
    assert info["success"] and info["metrics"]["progress_score"] == 100
    assert info["metrics"]["completion_time"] == makespan
    assert info["time"] == makespan                  # one call per minute: the clock stops at the last completion


@needs_data
def test_refusals_read_the_same(project, facts):
    """household1 with a refused repeat, an unmet prerequisite and an occupied object: the same sentences, and the
    task still completes, three minutes after the oracle's 13 (the schedule is shifted by the three minutes up
    front; the refusal while the kettle runs takes a minute that was a wait)."""
    plan, makespan = optimal_script(project, "household1")
    shifted = {m + 3: a for m, a in plan.items()}
    shifted.update({1: "wash teapot", 2: "wash teapot", 3: "brew tea with teapot"})
    del shifted[min(m for m, a in shifted.items() if a == "wash teapot" and m > 3)]
    kettle = next(m for m, a in shifted.items() if a == "activate kettle")
    assert kettle + 1 not in shifted                   # a minute the oracle waits
    shifted[kettle + 1] = "activate kettle"
    original, _ = run_loop(lambda: OriginalStyleArena(facts["tasks"]["household1"], facts["verbs"]),
                           ScriptedModel(shifted))
    ours, info = run_loop(chronoplan_env(project, "household1"), ScriptedModel(shifted))
    assert ours == original
    text = "\n".join(t for _, t in ours)
    assert "wash teapot has been completed." in text
    assert "Cannot perform action brew with on object tea. Because tea is dry." in text
    assert "Object kettle is being occupied by another action." in text
    assert info["success"] and info["metrics"]["progress_score"] == 100
    assert info["metrics"]["completion_time"] == makespan + 3


def test_transcript_shape(project):
    """What the model reads, in the original's sentences (checked without the facts file)."""
    plan, _ = optimal_script(project, "cooking1")
    history, info = run_loop(chronoplan_env(project, "cooking1"), ScriptedModel(plan))
    assert history[0] == ("env", instruction(procedure_problem(project, project.scenarios["cooking1"])))
    assert history[0][1].endswith("rice: unpicked; beef: unpicked; pot: empty; fryer: empty; dish: dirty")
    text = "\n".join(t for _, t in history)
    assert "You are doing ``cook rice in pot``, it will take 4 minutes." in text
    assert "rice is cooked." in text and "In t=1, your action is:" in text
    asked = [t for r, t in history if r == "env" and "your action is:" in t]
    assert len(asked) < info["metrics"]["completion_time"]       # occupied minutes are re-sent, not asked


def test_default_stepping_takes_a_whole_occupation_per_call(project):
    """Without the options the environment keeps its own protocol: a command covers the whole occupation and the
    observation is the status block."""
    env = TimeArenaEnv(project, "cooking1")
    obs, _ = env.reset()
    assert obs.startswith("Commands:")
    obs, *_, info = env.step("wash dish")
    assert info["time"] == 3 and obs.startswith("OK: ") and "Time" in obs


def test_minute_stepping_in_the_plain_env(project):
    problem = procedure_problem(project, project.scenarios["cooking1"])
    env = Env(problem, feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE)
    env.reset()
    _, fb = env.step("wash dish")
    assert (fb.ok, fb.message, env.time) == (True, "You are doing ``wash dish``, it will take 3 minutes.", 1)
    _, fb = env.step("pick rice")                  # occupied: whatever is sent, the minute continues the wash
    assert (fb.ok, fb.message, env.time) == (True, "", 2)
    _, fb = env.step("wash dish")
    assert (fb.message, env.time) == ("dish is clean.", 3)
    _, fb = env.step("stir rice")
    assert (fb.ok, fb.code, fb.message) == (False, "E104", "stir rice is invalid.")
    _, fb = env.step("fry pan in fryer")
    assert fb.message == "pan is non-existent."
    _, fb = env.step("chop rice")
    assert fb.message == "You cannot perform chop on rice."
    _, fb = env.step("wait")
    assert fb.message == "You wait for one minute."


def test_check_env_with_the_arena_options(project):
    from gymnasium.utils.env_checker import check_env

    env = TimeArenaEnv(project, "household4", feedback=FeedbackStyle.TIMEARENA, stepping=Stepping.MINUTE)
    check_env(env, skip_render_check=True)


def test_combined_instruction_labels_task_only_objects(project):
    """cooking10_1: the README's names, grouped at the first position of their name as in the paper's example;
    suffixed ingredients and dishes labelled, suffixed pots and fryers not."""
    from chronoplan.runtime.procedure.instruction import objects

    listed = objects(procedure_problem(project, project.scenarios["cooking10_1"]))
    assert [o.label() for o in listed] == [
        "beef_1 (Only for Task 1)", "beef_2 (Only for Task 2)", "tomato", "pot_1", "pot_2", "fryer_1", "fryer_2",
        "dish_1 (Only for Task 1)", "dish_2 (Only for Task 2)", "rice"]
    assert [o.state for o in listed] == ["unpicked", "unpicked", "unpicked", "empty", "empty", "empty", "empty",
                                         "dirty", "dirty", "unpicked"]
    text = instruction(procedure_problem(project, project.scenarios["cooking10_1"]))
    assert text.count("<Valid Actions and Usages>") == 2 and "**Task 2**" in text


def test_prompt_command(capsys):
    from chronoplan.cli import main

    assert main(["prompt", str(ROOT / "domains" / "timearena"), "--scenario", "household1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("As an AI agent") and "- Make a cup of tea." in out
    assert out.rstrip().endswith("tea: dry; kettle: inactive; teapot: dirty; cup: dirty")
    assert main(["prompt", str(ROOT / "domains" / "timearena"), "--scenario", "cooking1_2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"name": "dish_2", "state": "dirty", "only_for": 2} in data["objects"]
    assert data["instruction"].startswith("As an AI agent")
    assert main(["prompt", str(ROOT / "domains" / "tools"), "--scenario", "shop_search_parallel"]) == 2
    assert "not a step-level scenario" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["cooking1_2", "household4_5_6", "lab10_1", "cooking5_6_constrained"])
def test_the_runner_loop_finishes_combinations(project, name):
    """Combined scenarios through the same loop (no re-statement: its suffixing rules are the README's, tested
    in tests/test_timearena_domain.py): the oracle script finishes with score 100 at the oracle's time."""
    plan, makespan = optimal_script(project, name)
    history, info = run_loop(chronoplan_env(project, name), ScriptedModel(plan))
    assert info["success"] and info["metrics"]["progress_score"] == 100
    assert info["metrics"]["completion_time"] == makespan
    assert history[0] == ("env", instruction(procedure_problem(project, project.scenarios[name])))


def test_play_takes_the_original_feedback_and_minute_stepping():
    import subprocess
    import sys
    run = subprocess.run([sys.executable, "-m", "chronoplan.cli", "play", "domains/timearena", "--scenario",
                          "cooking1", "--feedback", "timearena", "--stepping", "minute"],
                         input="pick rice\nwait\nwait\n", capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1, run.stderr                       # not finished
    out = run.stdout
    assert "OK: You are doing ``pick rice``, it will take 2 minutes." in out
    assert "OK: rice is picked." in out and "OK: You wait for one minute." in out
    assert "time 00:03:00" in out                                 # three lines, three minutes
    bad = subprocess.run([sys.executable, "-m", "chronoplan.cli", "play", "domains/recipes", "--scenario",
                          "Roast-Chicken_Garlic-Potatoes", "--protocol", "recipe2plan", "--feedback", "timearena"],
                         input="", capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "--feedback and --stepping are for the timearena protocol" in bad.stderr
