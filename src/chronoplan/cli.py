"""The ``chronoplan`` command line.

Input: argv.  Output: an exit status (0 ok, 1 problems found, 2 usage or compile error, 3 internal error,
74 output error: stdout closed early (a broken pipe) or not writable (a full disk), 130 interrupted by SIGINT,
143 terminated by SIGTERM).
Each subcommand lives in its own module exposing ``configure(parser)`` and ``run(args) -> int``; modules
are imported only when their command runs, so ``chronoplan check`` never pays for ortools or planners.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import traceback
from pathlib import Path

from chronoplan.compiler.diagnostics import clear_interrupt, interrupt_in, note_interrupt

INTERNAL_ERROR_EXIT = 3
IO_ERROR_EXIT = 74              # sysexits.h EX_IOERR: the output could not be written (never "all valid")

COMMANDS = {
    "check": ("chronoplan.commands.check", "check files and print diagnostics"),
    "list": ("chronoplan.commands.listing", "list the scenarios of a file or directory"),
    "schema": ("chronoplan.commands.schema", "print the JSON Schema of valid plans for a scenario"),
    "validate": ("chronoplan.commands.validate", "validate plans against a scenario"),
    "render": ("chronoplan.commands.render", "draw a graded plan: Gantt chart, kitchen map (PNG, SVG, HTML)"),
    "solve": ("chronoplan.commands.solve", "compute a reference plan with a solver or planner"),
    "import": ("chronoplan.commands.importer", "convert benchmark data into chronoplan files"),
    "play": ("chronoplan.commands.play", "interactive text environment"),
    "prompt": ("chronoplan.commands.prompt", "print a scenario's instruction (TimeArena's layout)"),
    "pddl": ("chronoplan.commands.pddl", "write PDDL domain and problem files"),
}


def _load(name: str):
    """The module of command ``name``; it ships with chronoplan, so a failing import is a bug (``main``: exit 3)."""
    return importlib.import_module(COMMANDS[name][0])


def version() -> str:
    """The installed distribution's version (the package's ``__version__`` when run from a source tree)."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version
        return dist_version("chronoplan")
    except (ImportError, PackageNotFoundError):
        from chronoplan import __version__
        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chronoplan", description=__doc__.splitlines()[0])
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, helptext) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_command=name)
    return parser


def main(argv=None) -> int:
    entry = argv is None                 # the process's own entry point (console script, python -m)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # first pass: find the command, then let its module add its options
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"chronoplan {version()}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        parser.print_usage(sys.stderr)
        print(f"chronoplan: error: unknown command {name!r} (choose from {', '.join(COMMANDS)})",
              file=sys.stderr)
        return 2
    try:
        module = _load(name)
    except Exception as exc:   # noqa: BLE001 - a command module that does not import is a bug: exit 3
        return internal_error(name, exc)
    sub = argparse.ArgumentParser(prog=f"chronoplan {name}", description=COMMANDS[name][1])
    module.configure(sub)
    try:
        args = sub.parse_args(argv[1:])
    except SystemExit as exc:          # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    previous = _catch_signals()
    real_stdout = sys.stdout
    sys.stdout = guarded = GuardedOutput(real_stdout)
    try:
        status = int(module.run(args) or 0)
        guarded.flush()                 # a full disk shows here, not as an ignored error at exit
        return status
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM turned into Terminated: finally blocks have cleaned up
        status = interrupted(name, exc)
        if entry:
            _exit_watchdog(status)
        return status
    except OutputError as exc:
        return output_error(name, exc, real_stdout)
    except Exception as exc:   # noqa: BLE001 - the documented last resort: exit 3 and a short message
        hidden = interrupt_in(exc)      # a signal that fired inside a C callback comes wrapped in a SystemError
        if hidden is None and isinstance(exc.__context__, OutputError):
            return output_error(name, exc.__context__, real_stdout)
        return internal_error(name, exc) if hidden is None else interrupted(name, hidden)
    finally:
        sys.stdout = real_stdout
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        clear_interrupt()


class OutputError(Exception):
    """Writing to stdout failed (``GuardedOutput``): the reader went away (EPIPE) or the device is full or
    broken; ``main`` exits ``IO_ERROR_EXIT`` with one clear line on stderr, never 0."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.error = error


class GuardedOutput:
    """``sys.stdout`` while a command runs: every write or flush that fails with an OSError raises
    ``OutputError`` instead, so that a command's own ``except OSError`` (reading its inputs) cannot mistake
    it and ``main`` can tell an output failure from a bug.  Everything else is the wrapped stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(exc) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def output_error(command: str, exc: OutputError, stream) -> int:
    """The message and exit status (``IO_ERROR_EXIT``) of a command whose stdout failed; the unwritten rest of
    stdout is dropped (fd 1 pointed at /dev/null) so that Python's exit does not report it again."""
    closed = isinstance(exc.error, BrokenPipeError)
    what = ("the reader of its output closed the pipe before the end (the output is incomplete)" if closed
            else f"cannot write its output: {exc}")
    print(f"chronoplan {command}: error: {what}; exit status {IO_ERROR_EXIT} (I/O error), not a result",
          file=sys.stderr)
    _drop_output(stream)
    return IO_ERROR_EXIT


def _drop_output(stream) -> None:
    """Point the descriptor of the real stdout at /dev/null (its buffered bytes can never be written)."""
    if stream is not sys.__stdout__ or stream is None:
        return
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


EXIT_GRACE = 1.0                # seconds an interrupted process may take to exit before it is ended


def _exit_watchdog(status: int) -> None:
    """After an interrupted command, in the process's own entry only: a daemon timer that ends the process with
    ``status`` when its exit has not finished within ``EXIT_GRACE`` seconds.  Joining a worker pool's threads
    at interpreter exit can block once its workers were killed (a terminated ``validate --jobs 2`` hung about
    once in seven runs, tests/test_parallel.py::test_signals_kill_every_worker)."""
    import threading

    def stop() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    timer = threading.Timer(EXIT_GRACE, stop)
    timer.daemon = True
    timer.start()


def interrupted(command: str, exc: BaseException) -> int:
    """The message and exit status of a command stopped by Ctrl-C (130) or SIGTERM (143)."""
    terminated = isinstance(exc, Terminated)
    print(f"chronoplan {command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return 143 if terminated else 130


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every ``finally``/``with`` that cleans up on an interrupt (planner
    process groups, temporary directories) runs for it too."""


def _raise_terminated(signum, frame) -> None:
    raise note_interrupt(Terminated())


def _raise_interrupted(signum, frame) -> None:
    raise note_interrupt(KeyboardInterrupt())


def _catch_signals() -> dict:
    """Turn SIGTERM into ``Terminated`` and SIGINT into ``KeyboardInterrupt`` while a command runs (main thread
    only), both noted so that C code that swallows or wraps the exception cannot lose them
    (``compiler.diagnostics.note_interrupt``); returns the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_terminated)}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:    # not when SIGINT is ignored
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, _raise_interrupted)
    return previous


def internal_error(command: str, exc: BaseException) -> int:
    """Exit status 3 and a bug-report request instead of a bare traceback (CHRONOPLAN_DEBUG=1 shows it)."""
    if os.environ.get("CHRONOPLAN_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" (at {Path(where.filename).name}:{where.lineno})" if where else ""
    print(f"chronoplan {command}: internal error: {type(exc).__name__}: {str(exc)[:300]}{at}\n"
          "This is a bug in chronoplan. Please report it with the command and its input files; "
          "CHRONOPLAN_DEBUG=1 prints the traceback.", file=sys.stderr)
    return INTERNAL_ERROR_EXIT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
