"""Verbs, initial states and private objects (docs/language.md, "Verbs, initial states and private objects"):
parsed into ``Project.verbs``, ``Step.verb``, ``Procedure.initial`` and ``Procedure.private``; misuse reported
with located C101/C102/C206/C207; the generated TimeArena domain carries the facts of tasks.json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import shared_data

import chronoplan
from chronoplan.compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent
DATA = shared_data("timearena", "tasks.json")

SOURCE = '''
verb "cook OBJ1 in OBJ2" "Cook the raw item." raw -> cooked
verb "wash OBJ" "Wash the dirty item." dirty -> "not dirty"
procedure p "Rice." {
  resource rice, pot, dish
  initial rice = raw, pot = "quite empty", dish = dirty
  private rice, dish
  step 1 "cook rice in pot" 4 autonomous for 1 uses rice, pot
  step 2 "wash dish" 2 uses dish
}
scenario s { unit min  procedures p }
'''


def codes(text: str) -> list:
    _, diags, _ = compile_text(text)
    return [(d.code, d.span.line if d.span else None) for d in diags]


def test_constructs_reach_the_ir():
    project, diags, _ = compile_text(SOURCE)
    assert [d for d in diags if d.is_error] == []
    assert list(project.verbs) == ["cook in", "wash"]
    v = project.verbs["cook in"]
    assert (v.usage, v.description, v.before, v.after) == ("cook OBJ1 in OBJ2", "Cook the raw item.", "raw", "cooked")
    assert project.verbs["wash"].after == "not dirty"
    p = project.procedures["p"]
    assert [s.verb for s in p.steps] == ["cook in", "wash"]
    assert p.initial == (("rice", "raw"), ("pot", "quite empty"), ("dish", "dirty"))
    assert p.private == ("rice", "dish")


def test_without_verbs_step_texts_are_free():
    project, diags, _ = compile_text('procedure p { step 1 "Anything at all." 2 }\nscenario s { procedures p }')
    assert not [d for d in diags if d.is_error]
    assert project.procedures["p"].steps[0].verb is None


def test_misuse_is_located():
    bad = SOURCE.replace('step 2 "wash dish"', 'step 2 "rinse dish"')
    assert ("C207", 9) in codes(bad)
    assert ("C206", 2) in codes(SOURCE.replace('"cook OBJ1 in OBJ2"', '"cook OBJ in OBJ2"'))
    assert ("C206", 2) in codes(SOURCE.replace('"cook OBJ1 in OBJ2"', '"OBJ1 cook in OBJ2"'))
    assert ("C101", 6) in codes(SOURCE.replace("initial rice = raw", "initial spoon = raw"))
    assert ("C102", 7) in codes(SOURCE.replace("private rice, dish", "private rice, rice"))
    assert ("C101", 7) in codes(SOURCE.replace("private rice, dish", "private oven"))
    ambiguous = SOURCE.replace('verb "wash OBJ"', 'verb "cook OBJ in pot" "Cook in the pot."\nverb "wash OBJ"')
    found = codes(ambiguous)
    assert ("C207", 9) in found, found


def test_a_verb_declared_twice_identically_is_one_verb():
    again = 'verb "wash  OBJ" "Wash the dirty item." dirty -> "not dirty"\n'
    twice = SOURCE.replace('verb "wash OBJ"', again + 'verb "wash OBJ"')
    assert [c for c, _ in codes(twice) if c.startswith("C")] == []
    differs = SOURCE.replace('verb "wash OBJ"', 'verb "wash OBJ" "Wash it." dirty -> clean\nverb "wash OBJ"')
    assert ("C102", 4) in codes(differs)


def test_an_unused_verb_is_a_warning():
    found = codes(SOURCE.replace('verb "wash OBJ"', 'verb "fry OBJ1 in OBJ2" "Fry it."\nverb "wash OBJ"'))
    assert ("W501", 3) in found


@pytest.mark.skipif(not DATA.is_file(), reason="TimeArena facts not available")
def test_the_timearena_domain_carries_the_instruction_facts():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    project = chronoplan.load(str(ROOT / "domains" / "timearena"))
    for tasks in data["scenarios"].values():
        for task in tasks:
            p = project.procedures[task["id"]]
            for a, s in zip(task["actions"], p.steps):
                verb = data["verbs"][a["verb"]]
                v = project.verbs[s.verb]
                assert v.usage == verb["usage"] and [v.before, v.after] == verb["state_change"], a["id"]
                assert v.after == a["result_states"][a["objects"][0]]
            initial = dict(p.initial)
            for o in task["objects"]:
                pool = [n for n in initial if o["name"] == n or o["name"].rsplit("_", 1)[0] == n]
                assert pool and initial[pool[0]] == o["initial_state"], (task["id"], o)
            assert set(p.private) == {r.name for r in p.local_resources} - {"pot", "fryer", "oven"}
