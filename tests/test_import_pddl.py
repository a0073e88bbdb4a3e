"""``chronoplan import pddl DOMAIN PROBLEM -o OUT.chrono`` (compiler/importers/pddl.py, docs/pddl.md).

Domains written here (no external data): two classical ones (typing, negative preconditions on static facts,
equality, a type hierarchy) and two temporal ones (durative actions, a lock, a fractional duration; two locks,
one action holding both, quarter-unit durations).  Each is
imported, checked, re-exported with ``chronoplan pddl``; a planner's plan on the original PDDL is accepted by
VAL on the original and (as a schedule) on the re-export and graded valid by ``chronoplan validate``; a wrong
plan is rejected by all three.  Failure modes: missing file, malformed PDDL, unsupported requirements,
problems that are not procedures (blocksworld), each exit 2 with a located message and no traceback.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler.importers.pddl import import_pddl
from chronoplan.compiler.pddl.plan import PlanAction, TimedEntry, plan_text, to_pddl_plan
from chronoplan.runtime.planners.external import missing, run_val, run_worker, validate_binary
from chronoplan.validators.families import export_scenario

JOBS_DOMAIN = """
; jobs with prerequisites given by static facts
(define (domain jobs)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types job)
  (:predicates (todo ?j - job) (done ?j - job) (first ?j - job)
               (after1 ?j - job ?p - job) (after2 ?j - job ?p - job ?q - job))
  (:action begin
    :parameters (?j - job)
    :precondition (and (todo ?j) (first ?j))
    :effect (and (not (todo ?j)) (done ?j)))
  (:action follow
    :parameters (?j - job ?p - job)
    :precondition (and (todo ?j) (not (first ?j)) (after1 ?j ?p) (done ?p))
    :effect (and (not (todo ?j)) (done ?j)))
  (:action join
    :parameters (?j - job ?p - job ?q - job)
    :precondition (and (todo ?j) (after2 ?j ?p ?q) (not (= ?p ?q)) (done ?p) (done ?q))
    :effect (and (not (todo ?j)) (done ?j))))
"""
JOBS_PROBLEM = """
(define (problem jobs4) (:domain jobs)
  (:objects dig pour frame roof - job)
  (:init (todo dig) (todo pour) (todo frame) (todo roof) (first dig) (first frame)
         (after1 pour dig) (after2 roof pour frame) (after2 roof pour pour))
  (:goal (and (done roof))))
"""
HOUSE_DOMAIN = """
(define (domain house)
  (:requirements :strips :typing)
  (:types site - object house - site)
  (:predicates (planned-f ?h - house) (planned-w ?h - house) (planned-r ?h - house)
               (foundation ?h - house) (walls ?h - house) (roofed ?h - house))
  (:action lay-foundation :parameters (?h - house)
    :precondition (planned-f ?h) :effect (and (not (planned-f ?h)) (foundation ?h)))
  (:action build-walls :parameters (?h - house)
    :precondition (and (planned-w ?h) (foundation ?h)) :effect (and (not (planned-w ?h)) (walls ?h)))
  (:action put-roof :parameters (?h - house)
    :precondition (and (planned-r ?h) (walls ?h)) :effect (and (not (planned-r ?h)) (roofed ?h))))
"""
HOUSE_PROBLEM = """
(define (problem two-houses) (:domain house)
  (:objects h1 h2 - house)
  (:init (planned-f h1) (planned-w h1) (planned-r h1) (planned-f h2) (planned-w h2) (planned-r h2))
  (:goal (and (roofed h1) (roofed h2))))
"""
BAKE_DOMAIN = """
(define (domain bake)
  (:requirements :strips :typing :durative-actions :negative-preconditions :equality)
  (:types task oven)
  (:predicates (todo ?t - task) (done ?t - task) (before ?a - task ?b - task) (free ?o - oven)
               (uses ?t - task ?o - oven) (needs-oven ?t - task))
  (:durative-action prepare
    :parameters (?t - task)
    :duration (= ?duration 3)
    :condition (and (at start (todo ?t)) (at start (not (needs-oven ?t))))
    :effect (and (at start (not (todo ?t))) (at end (done ?t))))
  (:durative-action bake
    :parameters (?t - task ?p - task ?o - oven)
    :duration (= ?duration 2.5)
    :condition (and (at start (todo ?t)) (at start (before ?p ?t)) (at start (done ?p))
                    (at start (free ?o)) (at start (uses ?t ?o)) (at start (not (= ?t ?p))))
    :effect (and (at start (not (todo ?t))) (at start (not (free ?o))) (at end (free ?o)) (at end (done ?t)))))
"""
BAKE_PROBLEM = """
(define (problem cakes) (:domain bake)
  (:objects dough - task sponge tart - task o1 - oven)
  (:init (todo dough) (todo sponge) (todo tart) (before dough sponge) (before dough tart) (free o1)
         (uses sponge o1) (uses tart o1) (needs-oven sponge) (needs-oven tart))
  (:goal (and (done sponge) (done tart))))
"""
LAB_DOMAIN = """
; two samples: spin (the centrifuge), mix (the fume hood), then extract (both at once)
(define (domain lab)
  (:requirements :strips :typing :durative-actions)
  (:types sample centrifuge hood)
  (:predicates (to-spin ?s - sample) (to-mix ?s - sample) (to-extract ?s - sample)
               (spun ?s - sample) (mixed ?s - sample) (extracted ?s - sample)
               (cfree ?c - centrifuge) (hfree ?h - hood))
  (:durative-action spin
    :parameters (?s - sample ?c - centrifuge)
    :duration (= ?duration 1.25)
    :condition (and (at start (to-spin ?s)) (at start (cfree ?c)))
    :effect (and (at start (not (to-spin ?s))) (at start (not (cfree ?c))) (at end (cfree ?c))
                 (at end (spun ?s))))
  (:durative-action mix
    :parameters (?s - sample ?h - hood)
    :duration (= ?duration 0.75)
    :condition (and (at start (to-mix ?s)) (at start (hfree ?h)))
    :effect (and (at start (not (to-mix ?s))) (at start (not (hfree ?h))) (at end (hfree ?h))
                 (at end (mixed ?s))))
  (:durative-action extract
    :parameters (?s - sample ?c - centrifuge ?h - hood)
    :duration (= ?duration 2.5)
    :condition (and (at start (to-extract ?s)) (at start (spun ?s)) (at start (mixed ?s))
                    (at start (cfree ?c)) (at start (hfree ?h)))
    :effect (and (at start (not (to-extract ?s))) (at start (not (cfree ?c))) (at start (not (hfree ?h)))
                 (at end (cfree ?c)) (at end (hfree ?h)) (at end (extracted ?s)))))
"""
LAB_PROBLEM = """
(define (problem two-samples) (:domain lab)
  (:objects s1 s2 - sample c1 - centrifuge h1 - hood)
  (:init (to-spin s1) (to-spin s2) (to-mix s1) (to-mix s2) (to-extract s1) (to-extract s2)
         (cfree c1) (hfree h1))
  (:goal (and (extracted s1) (extracted s2))))
"""
BLOCKS_DOMAIN = """
(define (domain blocksworld)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block) (handempty)
               (holding ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action stack :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action put-down :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action unstack :parameters (?x - block ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""
BLOCKS_PROBLEM = """
(define (problem tower) (:domain blocksworld)
  (:objects a b - block)
  (:init (clear a) (clear b) (ontable a) (ontable b) (handempty))
  (:goal (on a b)))
"""
CASES = {"jobs": (JOBS_DOMAIN, JOBS_PROBLEM, "jobs4", False),
         "house": (HOUSE_DOMAIN, HOUSE_PROBLEM, "two-houses", False),
         "bake": (BAKE_DOMAIN, BAKE_PROBLEM, "cakes", True),
         "lab": (LAB_DOMAIN, LAB_PROBLEM, "two-samples", True)}
needs_val = pytest.mark.skipif(validate_binary() is None,
                               reason="VAL is not installed: pip install 'chronoplan[planners]'")


def write(tmp_path: Path, domain: str, problem: str) -> tuple[Path, Path]:
    d, p = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    d.write_text(domain, encoding="utf-8")
    p.write_text(problem, encoding="utf-8")
    return d, p


def imported(tmp_path: Path, case: str, capsys) -> tuple[Path, Path, Path, str]:
    domain, problem, scen, _ = CASES[case]
    d, p = write(tmp_path, domain, problem)
    out = tmp_path / "out.chrono"
    assert main(["import", "pddl", str(d), str(p), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    return d, p, out, scen


@pytest.mark.parametrize("case", sorted(CASES))
def test_import_checks_clean_and_exports(case, tmp_path, capsys):
    _, _, out, scen = imported(tmp_path, case, capsys)
    assert main(["check", str(out)]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    assert main(["pddl", str(out), "-o", str(tmp_path / "re")]) == 0
    assert (tmp_path / "re" / "domain.pddl").exists()
    assert main(["pddl", str(out), "--classical", "-o", str(tmp_path / "rec")]) == 0


def test_imported_text_shape(tmp_path, capsys):
    d, p = write(tmp_path, BAKE_DOMAIN, BAKE_PROBLEM)
    imp = import_pddl(d, p)
    assert imp.durative and imp.name == "cakes"
    assert imp.steps == {("prepare", "dough"): 0, ("bake", "sponge", "dough", "o1"): 1,
                         ("bake", "tart", "dough", "o1"): 2}
    assert "resource free_o1 capacity 1" in imp.text
    assert 'step 1 "(bake sponge dough o1)" 2.5 autonomous after 0 uses free_o1' in imp.text
    d, p = write(tmp_path, JOBS_DOMAIN, JOBS_PROBLEM)
    imp = import_pddl(d, p)
    # (join roof pour pour) is ruled out by the equality, (follow dig ...) by (not (first dig))
    assert imp.steps == {("begin", "dig"): 0, ("begin", "frame"): 1, ("follow", "pour", "dig"): 2,
                         ("join", "roof", "pour", "frame"): 3}
    assert 'step 3 "(join roof pour frame)" 1 autonomous after 1, 2' in imp.text


def test_imported_two_locks_and_quarter_durations(tmp_path):
    d, p = write(tmp_path, LAB_DOMAIN, LAB_PROBLEM)
    imp = import_pddl(d, p)
    assert imp.durative and imp.name == "two-samples"
    assert imp.steps == {("spin", "s1", "c1"): 0, ("spin", "s2", "c1"): 1, ("mix", "s1", "h1"): 2,
                         ("mix", "s2", "h1"): 3, ("extract", "s1", "c1", "h1"): 4, ("extract", "s2", "c1", "h1"): 5}
    assert "resource cfree_c1 capacity 1" in imp.text and "resource hfree_h1 capacity 1" in imp.text
    assert 'step 1 "(spin s2 c1)" 1.25 autonomous uses cfree_c1' in imp.text
    assert 'step 3 "(mix s2 h1)" 0.75 autonomous uses hfree_h1' in imp.text
    assert 'step 5 "(extract s2 c1 h1)" 2.5 autonomous after 1, 3 uses cfree_c1, hfree_h1' in imp.text


def _schedule(imp, actions) -> list:
    """The original PDDL plan as chronoplan schedule entries (classical: one tick per position)."""
    proj_task = f"{imp.name}-steps"
    out = []
    for k, a in enumerate(sorted(actions, key=lambda a: a.start)):
        step = imp.steps[(a.name.lower(),) + tuple(x.lower() for x in a.args)]
        start = a.start if imp.durative else Fraction(k)
        dur = a.duration if imp.durative else Fraction(1)
        out.append(TimedEntry(proj_task, step, start, dur, "agent1"))
    return out


def _validate(out: Path, scen: str, entries, tmp_path: Path, capsys) -> int:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"schedule": [e.to_json() for e in entries]}), encoding="utf-8")
    capsys.readouterr()
    return main(["validate", str(out), str(plan), "--scenario", scen, "--plan-format", "schedule",
                 "--no-progress"])


def _both_val(d: Path, p: Path, out: Path, scen: str, imp, actions, classical: bool):
    """VAL's verdicts on the original PDDL (the plan as given) and on the re-export (the same schedule)."""
    original = run_val(d.read_text(), p.read_text(), plan_text(actions))
    proj = chronoplan.load(out)
    e = export_scenario(proj, scen, classical=classical)
    entries = _schedule(imp, actions)
    if classical:
        seq = [PlanAction(Fraction(i), e.names.get(("step", (x.task, x.step))), (), None)
               for i, x in enumerate(entries)]
        text, tol = plan_text(seq), Fraction(1, 1000)
    else:
        text, tol = to_pddl_plan(e, entries)
    again = run_val(e.domain_text(), e.problem_text(), text, tol)
    return original, again


@pytest.mark.planners
@needs_val
@pytest.mark.parametrize("case", sorted(CASES))
def test_round_trip_planner_val_and_validate_agree(case, tmp_path, capsys):
    d, p, out, scen = imported(tmp_path, case, capsys)
    temporal = CASES[case][3]
    planner = "kairos" if temporal else "fast-downward"   # aries reads integer durations only
    if missing(planner):
        pytest.skip(missing(planner))
    work = tmp_path / "work"
    work.mkdir()
    r = run_worker(planner, d, p, 60, work)
    assert r.status == "solved", r
    actions = list(r.actions)
    imp = import_pddl(d, p)
    original, again = _both_val(d, p, out, scen, imp, actions, classical=not temporal)
    assert original.valid, original.output[-800:]
    assert again.valid, again.output[-800:]
    assert _validate(out, scen, _schedule(imp, actions), tmp_path, capsys) == 0, capsys.readouterr().out
    # a wrong plan: the last action moved to the front (it needs what the others add)
    order = sorted(actions, key=lambda a: a.start)
    last = order[-1]
    wrong = [PlanAction(Fraction(0), last.name, last.args, last.duration)] + [
        PlanAction(a.start + (last.duration or 1) + 1, a.name, a.args, a.duration) for a in order[:-1]]
    original, again = _both_val(d, p, out, scen, imp, wrong, classical=not temporal)
    assert not original.valid and not again.valid
    assert _validate(out, scen, _schedule(imp, wrong), tmp_path, capsys) == 1
    # and a plan that leaves an action out
    original, again = _both_val(d, p, out, scen, imp, order[1:], classical=not temporal)
    assert not original.valid and not again.valid
    assert _validate(out, scen, _schedule(imp, order[1:]), tmp_path, capsys) == 1


@pytest.mark.planners
@needs_val
def test_temporal_lock_overlap_rejected_by_all(tmp_path, capsys):
    d, p, out, scen = imported(tmp_path, "bake", capsys)
    imp = import_pddl(d, p)
    plan = [PlanAction(Fraction(0), "prepare", ("dough",), Fraction(3)),
            PlanAction(Fraction("3.01"), "bake", ("sponge", "dough", "o1"), Fraction("2.5")),
            PlanAction(Fraction("4"), "bake", ("tart", "dough", "o1"), Fraction("2.5"))]
    original, again = _both_val(d, p, out, scen, imp, plan, classical=False)
    assert not original.valid and not again.valid
    assert _validate(out, scen, _schedule(imp, plan), tmp_path, capsys) == 1
    ok = plan[:2] + [PlanAction(Fraction("5.52"), "bake", ("tart", "dough", "o1"), Fraction("2.5"))]
    original, again = _both_val(d, p, out, scen, imp, ok, classical=False)
    assert original.valid and again.valid, (original.output[-600:], again.output[-600:])
    assert _validate(out, scen, _schedule(imp, ok), tmp_path, capsys) == 0


LAB_OK = [("spin", ("s1", "c1"), "0", "1.25"), ("mix", ("s1", "h1"), "0", "0.75"),
          ("mix", ("s2", "h1"), "0.76", "0.75"), ("spin", ("s2", "c1"), "1.26", "1.25"),
          ("extract", ("s1", "c1", "h1"), "2.52", "2.5"), ("extract", ("s2", "c1", "h1"), "5.03", "2.5")]


@pytest.mark.planners
@needs_val
@pytest.mark.parametrize("moved, start, lock", [
    (None, None, None),
    (4, "1.52", "cfree_c1"),     # extract s1 while spin s2 holds the centrifuge (the hood is free)
    (3, "2.6", "cfree_c1"),      # spin s2 while extract s1 holds the centrifuge (the hood is not involved)
    (2, "2.6", "hfree_h1"),      # mix s2 while extract s1 holds the hood (the centrifuge is not involved)
    (1, "2.6", "hfree_h1"),      # mix s1 while extract s1 holds the hood, which also needed mix s1 first
])
def test_temporal_two_locks_agree(tmp_path, capsys, moved, start, lock):
    """The second temporal domain: each lock on its own, and an action holding both; VAL on the original and
    on the re-export and chronoplan validate give the same verdict."""
    d, p, out, scen = imported(tmp_path, "lab", capsys)
    imp = import_pddl(d, p)
    plan = [PlanAction(Fraction(t if k != moved else start), name, args, Fraction(dur))   # k: position in LAB_OK
            for k, (name, args, t, dur) in enumerate(LAB_OK)]
    original, again = _both_val(d, p, out, scen, imp, plan, classical=False)
    valid = moved is None
    assert original.valid is valid and again.valid is valid, (original.output[-600:], again.output[-600:])
    assert _validate(out, scen, _schedule(imp, plan), tmp_path, capsys) == (0 if valid else 1)
    report = capsys.readouterr().out
    busy = [line for line in report.splitlines() if "E411" in line]
    assert (not busy) if valid else (len(busy) == 1 and lock in busy[0]), report


COND_DOMAIN = """(define (domain c)
  (:requirements :strips :conditional-effects)
  (:predicates (p) (q))
  (:action a :parameters () :precondition (p) :effect (when (q) (not (p)))))
"""
NUM_DOMAIN = """(define (domain n)
  (:requirements :strips :numeric-fluents)
  (:predicates (p))
  (:functions (fuel))
  (:action a :parameters () :precondition (and (p) (> (fuel) 1)) :effect (and (not (p)) (decrease (fuel) 1))))
"""
SMALL_PROBLEM = "(define (problem s) (:domain {d}) (:init (p)) (:goal (not (p))))"
COST_DOMAIN = HOUSE_DOMAIN.replace(":typing)", ":typing :action-costs)").replace(
    "(roofed ?h - house))\n", "(roofed ?h - house))\n  (:functions (total-cost) - number)\n").replace(
    "(foundation ?h)))", "(foundation ?h) (increase (total-cost) 2)))")
TIL_DOMAIN = """(define (domain t)
  (:requirements :strips :durative-actions)
  (:predicates (p) (q) (open))
  (:durative-action a :parameters () :duration (= ?duration 2)
    :condition (and (at start (p)) (at start (open))) :effect (and (at start (not (p))) (at end (q)))))
"""
TIL_PROBLEM = """(define (problem s) (:domain t)
  (:init (p)
    (at 5 (open)))
  (:goal (q)))
"""
OPTIONAL_PROBLEM = """
(define (problem extra) (:domain house)
  (:objects h1 h2 - house)
  (:init (planned-f h1) (planned-w h1) (planned-r h1) (planned-f h2))
  (:goal (roofed h1)))
"""


@pytest.mark.parametrize("domain, problem, message", [
    (BLOCKS_DOMAIN, BLOCKS_PROBLEM, "domain.pddl:7:3: (pick-up a) can run more than once"),
    (COND_DOMAIN, SMALL_PROBLEM.format(d="c"), "domain.pddl:2:26: unsupported PDDL requirement "
                                               ":conditional-effects"),
    (NUM_DOMAIN, SMALL_PROBLEM.format(d="n"), "unsupported PDDL requirement :numeric-fluents"),
    (HOUSE_DOMAIN, OPTIONAL_PROBLEM, "(lay-foundation h2) is optional"),
    (COST_DOMAIN, HOUSE_PROBLEM, "domain.pddl:3:34: unsupported PDDL requirement :action-costs"),
    (TIL_DOMAIN, TIL_PROBLEM, "problem.pddl:3:5: unsupported PDDL requirement :timed-initial-literals"),
    (HOUSE_DOMAIN.replace("(:action", "(:actio", 1), HOUSE_PROBLEM, "domain.pddl:"),
    (HOUSE_DOMAIN, HOUSE_PROBLEM.replace("(:goal", "(:goal (", 1), "problem.pddl:"),
])
def test_unsupported_or_bad_pddl_exits_2(domain, problem, message, tmp_path, capsys):
    d, p = write(tmp_path, domain, problem)
    out = tmp_path / "out.chrono"
    assert main(["import", "pddl", str(d), str(p), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("chronoplan import: error: ")
    assert not out.exists()


def test_malformed_pddl_is_located(tmp_path, capsys):
    d, p = write(tmp_path, HOUSE_DOMAIN.replace("(:action build-walls", "(:action build-walls (", 1),
                 HOUSE_PROBLEM)
    assert main(["import", "pddl", str(d), str(p), "-o", str(tmp_path / "o.chrono")]) == 2
    err = capsys.readouterr().err
    assert f"{d}:" in err and "malformed PDDL" in err, err


def test_missing_files_and_wrong_arguments(tmp_path, capsys):
    d, p = write(tmp_path, HOUSE_DOMAIN, HOUSE_PROBLEM)
    out = str(tmp_path / "o.chrono")
    assert main(["import", "pddl", str(tmp_path / "nope.pddl"), str(p), "-o", out]) == 2
    assert "nope.pddl: no such file" in capsys.readouterr().err
    assert main(["import", "pddl", str(d), str(tmp_path / "nope.pddl"), "-o", out]) == 2
    assert "nope.pddl: no such file" in capsys.readouterr().err
    assert main(["import", "pddl", str(d), "-o", out]) == 2
    assert "pddl takes two files" in capsys.readouterr().err
    assert main(["import", "pddl", str(d), str(tmp_path), "-o", out]) == 2
    assert "is a directory" in capsys.readouterr().err
    (tmp_path / "bin.pddl").write_bytes(b"(define \xff)")
    assert main(["import", "pddl", str(d), str(tmp_path / "bin.pddl"), "-o", out]) == 2
    assert "not UTF-8" in capsys.readouterr().err


# ------------------------------------------------------------------ issue 28 items 7 and 8
DURATION_DOMAIN = """(define (domain d) (:requirements :durative-actions)
 (:predicates (todo) (done))
 (:durative-action a :parameters () :duration (= ?duration {d})
   :condition (at start (todo)) :effect (and (at start (not (todo))) (at end (done)))))
"""
DURATION_PROBLEM = "(define (problem p) (:domain d) (:init (todo)) (:goal (done)))"


@pytest.mark.parametrize("duration", ["1e400", "1" + "0" * 99])
def test_a_duration_beyond_the_language_is_a_located_error(duration, tmp_path, capsys):
    """The old importer wrote a 401-digit (or 100-digit) duration that `check` then refused (C111)."""
    d, p = write(tmp_path, DURATION_DOMAIN.format(d=duration), DURATION_PROBLEM)
    out = tmp_path / "o.chrono"
    assert main(["import", "pddl", str(d), str(p), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{d}:3:2: action a: duration: the number 1000" in err and "more than 40 digits" in err, err
    assert not out.exists()


class CountingPattern:
    """A compiled pattern whose finditer adds up the characters its matches span."""

    def __init__(self, pattern):
        self.pattern, self.scanned = pattern, 0

    def finditer(self, text):
        for m in self.pattern.finditer(text):
            self.scanned += m.end() - m.start()
            yield m


def test_requirement_lists_are_scanned_once(monkeypatch):
    """A domain of 4,000 unclosed ``(:requirements`` lists (92 KB): the old lazy regular expression rescanned
    the rest of the text from every list (30 s); now no character is in two lists' scans, so the work is
    linear, and the requirement is still found where it is declared."""
    import chronoplan.compiler.importers.pddl as pddl
    counting = CountingPattern(pddl._REQUIREMENTS)
    monkeypatch.setattr(pddl, "_REQUIREMENTS", counting)
    text = "(define (domain d) " + "(:requirements :strips " * 4000 + "(:requirements :derived-predicates)"
    source = pddl.Source(Path("d.pddl"), text)
    assert source.declared(":derived-predicates") == text.rindex(":derived-predicates")
    assert counting.scanned <= len(text)
    assert pddl._unreadable(source).startswith("d.pddl:1:92035: unsupported PDDL requirement :derived-predicates")
    assert source.declared(":typing") is None and source.declared(":strips") == text.index(":strips", 20)
