"""Build hook: compile the hot modules (kitchen simulator, procedure grading fast path) with Cython (same source,
optional).

Input: the environment of ``pip install``.  Output: setuptools' ``setup()`` with ``ext_modules`` for the
modules listed in src/chronoplan/build.py (everything else -- metadata, packages, data -- is in pyproject.toml).

The modules stay plain Python: the extensions are the same ``.py`` files compiled by Cython, the ``.pxd``
files beside them (and ``@cython.locals`` on a few closures) are the only C types -- the ``.py`` annotations
are ignored (``annotation_typing=False``) -- and the package runs unchanged without them.  Compilation is skipped,
and the pure-Python modules are installed alone, when:
- ``CHRONOPLAN_PURE_PYTHON=1`` is set;
- the install is editable (``pip install -e``), unless ``CHRONOPLAN_COMPILE=1`` is set: an in-place ``.so``
  would shadow later edits of the ``.py`` file;
- Cython is missing or the C compiler fails (a warning says so; the install still succeeds).
``chronoplan.build.compiled()`` tells which modules were loaded compiled.

Build cost (#28 item 12): the kitchen's C files are compiled at ``-O1`` (``OPT_LEVEL``), which halves gcc's
time against Python's default ``-O3`` with no measurable cost at run time; the Recipe2Plan grading fast path
(``FULL_OPT``), where ``-O1`` measured slower, stays at ``-O3``; ``CHRONOPLAN_OPT=0|1|2|3|s`` sets one level for
all (figures in README.md, "Compiled engines").  The extensions are built in parallel, one compiler per core
(Cython's ``nthreads`` and build_ext's ``parallel``).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def _modules() -> dict:
    """src/chronoplan/build.py's MODULES, read without importing the package (its dependencies may be absent)."""
    spec = importlib.util.spec_from_file_location("_chronoplan_build", HERE / "src" / "chronoplan" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MODULES


OPT_LEVEL = "1"                    # gcc -O level of the extensions (CHRONOPLAN_OPT overrides; see the docstring)
FULL_OPT = {                       # ... but these stay at -O3: the Recipe2Plan grading fast path
    "chronoplan.runtime.procedure.fast": "3", "chronoplan.runtime.procedure.critic": "3",
    "chronoplan.validators.plan_text": "3", "chronoplan.validators.replay": "3"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


class OptionalBuildExt(build_ext):
    """build_ext that cythonizes the modules when it runs and never fails the install: without Cython, or
    when the C compiler fails, the pure-Python module stays in place."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        Path(self.build_lib, "chronoplan", "runtime", "BUILD_FALLBACK").unlink(missing_ok=True)   # a stale one
        if getattr(self, "editable_mode", False) and not _flag("CHRONOPLAN_COMPILE"):
            print("chronoplan: editable install, the compiled modules stay pure Python "
                  "(set CHRONOPLAN_COMPILE=1 to compile them)", file=sys.stderr)
            return
        try:
            from Cython.Build import cythonize
        except ImportError:
            self._warn("Cython is not installed")
            return
        try:
            done = cythonize(self.extensions, build_dir=str(Path(self.build_temp) / "cython"),
                             include_path=[self._pxd_tree()],
                             compiler_directives={"language_level": "3", "annotation_typing": False},
                             quiet=True, nthreads=os.cpu_count() or 1)
            c_files = {e.name: e.sources for e in done}
            for ext in self.extensions:          # keep setuptools' Extension objects, now with the C sources
                ext.sources = c_files[ext.name]
            super().run()
        except Exception as exc:  # noqa: BLE001 - Cython and distutils raise several unrelated types here
            self._warn(exc)

    def _pxd_tree(self) -> str:
        """The .pxd files beside the modules, copied under their package names (chronoplan/runtime/...): Cython
        finds a module's .pxd by its full name, which the repository layout (runtime/, not
        chronoplan/runtime/) does not spell."""
        root = Path(self.build_temp) / "pxd"
        for name, source in _modules().items():
            pxd = (HERE / source).with_suffix(".pxd")
            target = root.joinpath(*name.split(".")).with_suffix(".pxd")
            target.parent.mkdir(parents=True, exist_ok=True)
            for parent in target.relative_to(root).parents:
                if parent != Path("."):
                    (root / parent / "__init__.pxd").touch()
            if pxd.exists():
                target.write_bytes(pxd.read_bytes())
            elif target.exists():
                target.unlink()
        return str(root)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._warn(exc, ext.name)

    def _warn(self, why, name: str = "") -> None:
        """Say so now (pip may hide it) and leave a marker in the package, so that the first use of the kitchen
        engine says so again (``chronoplan.runtime.compiled.note_fallback``)."""
        print(f"WARNING: chronoplan: not compiling {name or 'the hot modules'} ({why}); the pure-Python "
              "module is used (slower, same results)", file=sys.stderr)
        marker = Path(self.build_lib, "chronoplan", "runtime", "BUILD_FALLBACK")
        marker.parent.mkdir(parents=True, exist_ok=True)
        with marker.open("a", encoding="utf-8") as f:
            f.write(f"{name + ': ' if name else ''}{str(why)[:200]}\n")


def compile_args(module: str = "") -> list:
    """The extra compiler flags of ``module``'s extension: no debug information, and ``-O`` + CHRONOPLAN_OPT
    (default: ``FULL_OPT``'s level for the module, else ``OPT_LEVEL``).  They follow Python's own CFLAGS
    (``-O3``) on the command line, so they win."""
    level = os.environ.get("CHRONOPLAN_OPT", "").strip() or FULL_OPT.get(module, OPT_LEVEL)
    if level not in ("0", "1", "2", "3", "s"):
        raise SystemExit(f"chronoplan: CHRONOPLAN_OPT must be one of 0, 1, 2, 3, s (got {level!r})")
    return ["-g0", f"-O{level}"]


def main() -> None:
    exts = [] if _flag("CHRONOPLAN_PURE_PYTHON") else [Extension(n, [p], extra_compile_args=compile_args(n))
                                                       for n, p in _modules().items()]
    setup(ext_modules=exts, cmdclass={"build_ext": OptionalBuildExt})


if __name__ == "__main__":                     # setuptools' build backend runs this file as __main__
    main()
