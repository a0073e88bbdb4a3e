"""Build hook: compile the kitchen simulator's hot modules with Cython (same source, optional).

Input: the environment of ``pip install``.  Output: setuptools' ``setup()`` with ``ext_modules`` for the
modules listed in runtime/compiled.py (everything else -- metadata, packages, data -- is in pyproject.toml).

The modules stay plain Python: the extensions are the same ``.py`` files compiled by Cython, the ``.pxd``
files beside them only add C types, and the package runs unchanged without them.  Compilation is skipped,
and the pure-Python modules are installed alone, when:
- ``CHRONOPLAN_PURE_PYTHON=1`` is set;
- the install is editable (``pip install -e``), unless ``CHRONOPLAN_COMPILE=1`` is set: an in-place ``.so``
  would shadow later edits of the ``.py`` file;
- Cython is missing or the C compiler fails (a warning says so; the install still succeeds).
``chronoplan.runtime.compiled.compiled()`` tells which modules were loaded compiled.
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
    """runtime/compiled.py's MODULES, read without importing the package (its dependencies may be absent)."""
    spec = importlib.util.spec_from_file_location("_chronoplan_compiled", HERE / "runtime" / "compiled.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MODULES


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
        if getattr(self, "editable_mode", False) and not _flag("CHRONOPLAN_COMPILE"):
            print("chronoplan: editable install, the kitchen modules stay pure Python "
                  "(set CHRONOPLAN_COMPILE=1 to compile them)", file=sys.stderr)
            return
        try:
            from Cython.Build import cythonize
        except ImportError:
            self._warn("Cython is not installed")
            return
        try:
            self.extensions = cythonize(self.extensions, build_dir=str(Path(self.build_temp) / "cython"),
                                        compiler_directives={"language_level": "3"}, quiet=True,
                                        nthreads=os.cpu_count() or 1)
            super().run()
        except Exception as exc:  # noqa: BLE001 - Cython and distutils raise several unrelated types here
            self._warn(exc)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._warn(exc, ext.name)

    @staticmethod
    def _warn(why, name: str = "") -> None:
        print(f"WARNING: chronoplan: not compiling {name or 'the kitchen modules'} ({why}); the pure-Python "
              "module is used (slower, same results)", file=sys.stderr)


EXTENSIONS = [] if _flag("CHRONOPLAN_PURE_PYTHON") else [Extension(n, [p], extra_compile_args=["-g0"])
                                                               for n, p in _modules().items()]
setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": OptionalBuildExt})
