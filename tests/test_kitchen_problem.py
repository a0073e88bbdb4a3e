"""The simulator's World is compiled from the compiler's KitchenProblem (#12 item 3): the instance facts
(orders, constants, agents and start cells, type hierarchy, roles, initial items, grid) are the problem's
own objects, not values computed again; the missing placement relation keeps its error and its moment."""
import pytest
from kitchen_util import generated, kitchen
from test_kitchen_language import BASE

from chronoplan.compiler.driver import compile_text
from chronoplan.compiler.kitchen.problem import NO_PLACEMENT, KitchenError, KitchenProblem
from chronoplan.compiler.pddl.common import ExportError
from chronoplan.compiler.pddl.kitchen import export_kitchen
from chronoplan.runtime.kitchen.world import CompileFailure, World


def _scenarios():
    for project in (kitchen(), generated()):
        for name in project.scenarios:
            yield project, name


def test_world_reads_the_problem_facts():
    seen = 0
    for project, name in _scenarios():
        w = World(project, name)
        kp = w.problem
        assert isinstance(kp, KitchenProblem)
        for attr in ("project", "scenario", "map", "unit", "consts", "agents", "start_pos", "ancestors", "roles",
                     "orders"):
            assert getattr(w, attr) is getattr(kp, attr), (name, attr)
        assert w.isa_type == kp.isa_type and w.state_attr == kp.state_attr
        # the fast grid shares the problem's geometry and its breadth-first search cache
        assert w.grid.floor is kp.grid.floor and w.grid.station_cell is kp.grid.station_cell
        assert w.grid.bfs_maps() in (None, kp.grid.bfs_cache)
        cells = sorted(kp.grid.floor)[:12]
        assert [w.grid.dist(a, b) for a in cells for b in cells] == [kp.grid.dist(a, b) for a in cells for b in cells]
        # the initial items are the problem's, with its names, on their stations
        st = w.initial_state()
        placement = st.rels[kp.roles["placement"]].facts if kp.initial_items else {}
        for item, typ, station in kp.initial_items:
            assert st.otype[item] == typ and (item, station) in placement
            seen += 1
    assert seen > 0


def test_a_new_object_after_the_initial_items_takes_the_next_number():
    project, name = next((p, n) for p, n in _scenarios() if any(t == "plate" for _, t, _ in World(p, n).problem.
                                                                initial_items))
    w = World(project, name)
    plates = [i for i, t, _ in w.problem.initial_items if t == "plate"]
    st = w.initial_state()
    assert plates[0] == "plate1" and st.new_object("plate") == f"plate{len(plates) + 1}"


def test_items_without_a_placement_relation():
    project, diags, _ = compile_text(BASE.replace(" as placement", "", 1), "k.chrono")
    assert not [d for d in diags if d.is_error]
    with pytest.raises(KitchenError, match="no relation is declared 'as placement'"):
        KitchenProblem(project, "s")
    w = World(project, "s")                      # the simulator reports it when it builds the initial state
    assert w.problem.initial_items == (("plate1", "plate", "the_table"),)
    with pytest.raises(CompileFailure) as exc:
        w.initial_state()
    assert str(exc.value) == NO_PLACEMENT
    with pytest.raises(ExportError) as exp:
        export_kitchen(project, "s")
    assert [d.code for d in exp.value.diagnostics] == ["P010"] and NO_PLACEMENT in exp.value.diagnostics[0].message


def test_grading_a_kitchen_without_a_placement_relation_is_a_report_not_a_traceback(tmp_path, capsys):
    """The missing placement relation passes the checker; grading used to raise CompileFailure from
    KitchenSim (exit 3 on the command line)."""
    from chronoplan.cli import main
    from chronoplan.validators.kitchen.grade import grade_grid_plan
    project, _, _ = compile_text(BASE.replace(" as placement", "", 1), "k.chrono")
    plan = {"plan": {"agent1": [{"action": "Wait", "duration": 1}]}}
    rep = grade_grid_plan(project, "s", plan)
    assert not rep.valid and [e.code for e in rep.errors] == ["E012"] and NO_PLACEMENT in rep.errors[0].message
    src, plan_file = tmp_path / "k.chrono", tmp_path / "p.json"
    src.write_text(BASE.replace(" as placement", "", 1))
    plan_file.write_text(__import__("json").dumps(plan))
    assert main(["validate", str(src), str(plan_file), "--scenario", "s"]) == 1
    assert "E012" in capsys.readouterr().out
