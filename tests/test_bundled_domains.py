"""The bundled domains compile cleanly and contain what the project promises."""
from pathlib import Path

import chronoplan
from chronoplan.cli import main
from chronoplan.compiler import ir

DOMAINS = Path(__file__).resolve().parent.parent / "domains"


def test_check_domains_exits_zero(capsys):
    assert main(["check", str(DOMAINS), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "0 errors" in out


def test_bundled_domains_cover_the_four_benchmark_families():
    p = chronoplan.load(DOMAINS)
    # a grid kitchen in ParaCook's style
    kitchens = [s for s in p.scenarios.values() if s.orders and s.map]
    assert kitchens and any(len(s.agents) >= 2 for s in kitchens)
    assert p.processes and any(isinstance(e.effect, ir.Delayed) for a in p.actions.values() for e in a.effects)
    # two Recipe2Plan-style procedures, one with time constraints and an oven preheat
    roast = p.part("Roast-Chicken_Garlic-Potatoes").procedures["Roast-Chicken"]
    assert any(st.lags for st in roast.steps)
    assert any(u.sets for st in roast.steps for u in st.uses) and any(u.needs for st in roast.steps for u in st.uses)
    assert len(p.part("Roast-Chicken_Garlic-Potatoes").procedures) >= 2
    # a TimeArena-style task and a tool API
    assert "cooking1" in p.scenarios
    assert any(s.apps or s.tools for s in p.scenarios.values()) and len(p.tools) >= 30


def test_list_prints_scenarios(capsys):
    assert main(["list", str(DOMAINS / "recipes")]) == 0
    assert capsys.readouterr().out.split() == ["Roast-Chicken_Garlic-Potatoes", "Roast-Chicken_two_cooks"]


def test_list_with_errors_exits_2(tmp_path, capsys):
    (tmp_path / "x.chrono").write_text("procedure {")
    assert main(["list", str(tmp_path)]) == 2
    assert "error[C001]" in capsys.readouterr().err


def test_cli_usage_errors():
    assert main(["nonsense"]) == 2
    assert main([]) == 2
    assert main(["check"]) == 2
