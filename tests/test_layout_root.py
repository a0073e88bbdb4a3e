"""From the repository root, ``import chronoplan`` finds the installed package (issue #16 item 4): the package
root lives in src/chronoplan, so no folder of the root shadows it (Python puts the current directory first on
``sys.path`` for ``python -c`` and ``python -m``; Ray workers started from the root do too)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_from_the_repository_root():
    code = "import chronoplan.compiler, chronoplan.validators.grade, chronoplan.reward; print('ok')"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    assert not (ROOT / "chronoplan").exists()


def test_cli_module_from_the_repository_root():
    proc = subprocess.run([sys.executable, "-m", "chronoplan.cli", "list", "domains/recipes"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Roast-Chicken_Garlic-Potatoes" in proc.stdout, proc.stderr


def test_every_domains_folder_is_packaged():
    """#16 finding 12: folders under domains/ missing from ``packages`` made setuptools warn (and a folder
    added later would silently leave its files out of the wheel)."""
    import tomllib
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {d for d in (ROOT / "domains").rglob("*") if d.is_dir() and d.name != "__pycache__"
               and any(f.suffix in (".chrono", ".json") for f in d.iterdir())}
    for d in folders:
        dotted = "chronoplan." + ".".join(d.relative_to(ROOT).parts)
        assert dotted in conf["packages"], dotted
        assert "*.chrono" in conf["package-data"][dotted], dotted
