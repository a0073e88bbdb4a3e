"""``chronoplan play FILE [--scenario S] [--protocol timearena|recipe2plan|kitchen|household] [--baseline]
[--log OUT] [--syntax cwah|tdw] [--seed N] [--compat timearena] [--feedback status|timearena] [--stepping
command|minute]``: an interactive environment.

Input: .chrono files/directories, a scenario, then commands read line by line from stdin (a terminal or a
pipe).  The protocols a scenario can be played with are its family's (``validators.families.Family.
protocols``; the first is the default; another is a usage error naming them).  Protocol ``timearena``
(step-level scenarios, ``runtime.procedure.env``): "cook rice in pot", "wait",
"wait 5"; with several agents a line is ``agent: command`` or several such pairs separated by ``;``.
Protocol ``recipe2plan`` (``validators.react_env``): timed actions ``Step(3, Cobbler, 00:01:00, 00:02:00)``
(several comma-separated), "wait until HH:MM:SS", "finish", and "critique <plan>" (critic mode: the whole
plan judged at once, nothing executed).  Both: "look" reprints the observation, "help" lists the
commands, "quit" ends.  Output: observations and feedback on stdout; a final summary line.  Exit status:
0 when every step was done, 1 when the episode ended otherwise, 2 on usage or compile errors.
Protocol ``kitchen``: grid kitchens (orders on a map), played by ``commands.play_kitchen`` (ParaCook action
batches).  Protocol ``household``: partially observable households, played by ``commands.play_household``
(``agent: action`` lines); its options ``--baseline``, ``--log``, ``--syntax`` and ``--seed`` are refused for
other families (exit 2).  ``--compat timearena`` (protocol timearena only): TimeArena's released code instead of
the paper's rules (``runtime.procedure.arena_rules``; docs/benchmarks/timearena.md, "--compat timearena").
``--feedback timearena`` and ``--stepping minute`` (protocol timearena only): TimeArena's feedback sentences and
its runner's one-minute calls (``runtime.procedure.feedback``).
"""
from __future__ import annotations

import sys
from typing import Any, Optional

from chronoplan.commands.common import command_lines

PROTOCOLS = {                    # every name a family's registry entry may list in ``protocols``
    "timearena": "step texts at the current minute (step-level scenarios)",
    "recipe2plan": "timed Step(step, recipe, duration, start) actions (step-level scenarios)",
    "kitchen": "ParaCook action batches (grid kitchens, commands.play_kitchen)",
    "household": "`agent: action` lines (households, commands.play_household)",
}


def configure(p) -> None:
    p.add_argument("paths", nargs="+", metavar="FILE", help=".chrono file or directory")
    p.add_argument("--scenario", "-s", help="scenario name (optional when there is only one)")
    p.add_argument("--protocol", choices=tuple(PROTOCOLS), default=None,
                   help="; ".join(f"{k}: {v}" for k, v in PROTOCOLS.items())
                   + " (default: the first of the scenario's family)")
    p.add_argument("--syntax", choices=("cwah", "tdw"), default=None,
                   help="households: the action syntax shown (default: the scenario's)")
    p.add_argument("--seed", type=int, default=None, help="households: the seed of the hidden placements "
                   "(default: the scenario's)")
    p.add_argument("--baseline", action="store_true", help="households: play the scripted baseline to the end and "
                   "print its steps next to the omniscient optimum")
    p.add_argument("--log", metavar="OUT.jsonl", default=None, help="households: write the episode log (JSON Lines)")
    p.add_argument("--show-executable", action="store_true", help="list the commands that would be accepted")
    p.add_argument("--max-refusals", type=int, default=None, help="refusals in a row that end the episode "
                   "(0: never; default 5 for timearena, 3 for recipe2plan)")
    p.add_argument("--json", action="store_true", help="print the final metrics as JSON")
    p.add_argument("--compat", default=None, metavar="NAME",
                   help="timearena: play by TimeArena's released code (its runner's literal reading, paused "
                        "background actions, loose second objects...; docs/benchmarks/timearena.md)")
    p.add_argument("--feedback", choices=("status", "timearena"), default=None,
                   help="protocol timearena: chronoplan's messages and status block (status, the default) or "
                        "TimeArena's sentences (\"You are doing X, it will take N minutes.\")")
    p.add_argument("--stepping", choices=("command", "minute"), default=None,
                   help="protocol timearena: one line is one command (the default: an occupying step runs to its "
                        "end) or one minute, as TimeArena's runner re-sends the running action")


def parse_line(line: str, agents) -> object:
    """A command line -> a command string (one agent) or a dict agent -> command."""
    if len(agents) == 1:
        return line
    orders = {}
    for part in line.split(";"):
        if ":" in part:
            a, cmd = part.split(":", 1)
            orders[a.strip()] = cmd.strip()
        elif part.strip():
            orders[agents[0]] = part.strip()
    return orders


def _rules(compat, protocol: str) -> tuple[Any, Optional[str]]:
    """``--compat`` -> (the environment's ``Rules``, None) or (None, why it cannot be played)."""
    from chronoplan.runtime.procedure.arena_rules import Rules
    from chronoplan.validators.compat import Compat, CompatError, parse_compat
    if compat is None:
        return Rules.PAPER, None
    try:
        mode = parse_compat(compat)
    except CompatError as exc:
        return None, str(exc)
    if mode is not Compat.TIMEARENA:
        return None, (f"--compat {mode.cli_name if mode else compat} grades whole plans (chronoplan validate "
                      "--compat); play takes --compat timearena")
    if protocol != "timearena":
        return None, f"--compat timearena plays the timearena protocol, not {protocol}"
    return Rules.TIMEARENA, None


def play(env, lines, out) -> int:
    from chronoplan.runtime.procedure.arena_rules import Rules
    agents = env.problem.agents
    print(env.reset(), file=out)
    for line in command_lines(lines, out, lambda: env.done):
        low = line.lower()
        if low == "look":
            print(env.observation(), file=out)
            continue
        if low == "help" and hasattr(env, "help_text"):
            print(env.help_text(), file=out)
            continue
        if low.startswith("critique") and hasattr(env, "critique"):
            print(env.critique(line[len("critique"):].strip()).to_text(), file=out)
            continue
        if low == "help":
            waits = "\"wait\", " if getattr(env, "rules", None) is Rules.TIMEARENA else "\"wait\", \"wait N\", "
            print("Commands: " + "; ".join(f"\"{t}\"" for t in env.texts.values()) + "; " + waits
                  + "\"look\", \"quit\"" + ("; several agents: \"agent: command; agent: command\""
                                          if len(agents) > 1 else ""), file=out)
            continue
        obs, fb = env.step(parse_line(line, agents))
        print(("OK: " if fb.ok else "Refused: ") + str(fb), file=out)
        print(obs, file=out)
    return 0 if env.success else 1


def run(args) -> int:
    import json

    from chronoplan.commands.common import load_project
    from chronoplan.compiler.instantiate import InstantiationError, procedure_problem
    from chronoplan.runtime.procedure.env import Env
    from chronoplan.runtime.timefmt import clock
    from chronoplan.validators.report import json_number

    project = load_project(args.paths)
    if project is None:
        return 2
    try:
        scen = project.scenario(args.scenario)
        from chronoplan.validators.families import family_of
        fam = family_of(scen)
        if not fam.protocols:
            print(f"chronoplan play: error: scenario {scen.name}: {fam.lacks('interactive protocol')}",
                  file=sys.stderr)
            return 2
        protocol = args.protocol or fam.protocols[0]
        if protocol not in fam.protocols:
            print(f"chronoplan play: error: scenario {scen.name}: {fam.lacks(f'{protocol} protocol')} "
                  f"(protocols of {fam.label} scenarios: {', '.join(fam.protocols)})", file=sys.stderr)
            return 2
        if protocol != "household" and (args.baseline or args.log or args.syntax or args.seed is not None):
            print("chronoplan play: error: --baseline, --log, --syntax and --seed are for household scenarios "
                  f"(--protocol household); scenario {scen.name} is a {fam.label} scenario", file=sys.stderr)
            return 2
        problem = None if protocol in ("kitchen", "household") else procedure_problem(project, scen)
    except (KeyError, InstantiationError) as exc:
        print(f"chronoplan play: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    if protocol == "household":
        from chronoplan.commands.play_household import run_household
        return run_household(project, scen, args)
    if protocol == "kitchen":
        from chronoplan.commands.play_kitchen import run_kitchen
        return run_kitchen(project, scen.name, args)
    assert problem is not None, "a step-level scenario has its procedure problem"
    rules, why = _rules(args.compat, protocol)
    if why is None and protocol != "timearena" and (args.feedback or args.stepping):
        why = f"--feedback and --stepping are for the timearena protocol, not {protocol}"
    if why is not None:
        print(f"chronoplan play: error: {why}", file=sys.stderr)
        return 2
    env: Any
    refusals = args.max_refusals if args.max_refusals is not None else (
        3 if protocol == "recipe2plan" else 5)
    if protocol == "recipe2plan":
        from chronoplan.validators.react_env import ReactEnv
        try:
            env = ReactEnv(problem, show_executable=args.show_executable,
                           max_refusals=refusals if refusals > 0 else None)
        except ValueError as exc:
            print(f"chronoplan play: error: {exc}", file=sys.stderr)
            return 2
    else:
        from chronoplan.runtime.procedure.arena_rules import ArenaShapeError
        try:
            from chronoplan.runtime.procedure.feedback import FeedbackStyle, Stepping
            env = Env(problem, show_executable=args.show_executable, max_refusals=refusals if refusals > 0 else None,
                      rules=rules, feedback=FeedbackStyle(args.feedback or "status"),
                      stepping=Stepping(args.stepping or "command"))
        except ArenaShapeError as exc:
            print(f"chronoplan play: error: {exc}", file=sys.stderr)
            return 2
    status = play(env, sys.stdin, sys.stdout)
    m = env.metrics()
    if args.json:
        print(json.dumps({k: json_number(v) if not isinstance(v, bool) else v for k, v in m.items()}))
    else:
        ct = m["completion_time"]
        print(f"{'success' if env.success else 'not finished'}: {m['steps_done']}/{m['steps_total']} steps, "
              f"progress score {m['progress_score']}, "
              + (f"completed at {clock(ct, problem.time_unit)}" if ct is not None else
                 f"time {clock(m['time'], problem.time_unit)}")
              + f", {m['refusals']} refused of {m['commands']} commands")
    return status
