"""Grading on a pool of worker processes: an ordered, bounded-memory map (``chronoplan validate --jobs N``).

Input: a picklable function of one chunk, an iterable of chunks (consumed lazily), the number of worker
processes, a worker initializer.  Output: the function's results, one per chunk, in input order.
At most ``window`` chunks are in flight, so memory stays bounded whatever the input's length.  A worker that
dies (killed, out of memory) costs only the item that killed it: its chunk is rerun alone in a fresh pool,
then item by item if it kills a worker again, and ``on_crash(item, exc)`` gives the result of an item that
does; the chunks in flight are resubmitted to the fresh pool.  On Ctrl-C or SIGTERM (``KeyboardInterrupt`` in
the parent; workers ignore SIGINT and die quietly on SIGTERM) every worker is killed before the exception goes
on; a worker that outlives its parent (one being started when the signal came) says nothing more on stderr.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Optional


def default_jobs(jobs: int) -> int:
    """``--jobs`` value -> worker count: 0 means one per available core."""
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _OrphanQuiet:
    """A worker's stderr that says nothing once the parent process is gone: a parent stopped by SIGTERM or
    Ctrl-C while its pool starts has printed "terminated"; a worker it could not kill yet then fails on the
    closed queue, and its traceback must not follow that line (issue 28 item 10)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        parent = multiprocessing.parent_process()
        if parent is not None and not parent.is_alive():
            return len(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _quiet_worker(initializer: Callable[..., None], initargs: Sequence[Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the parent handles Ctrl-C and kills the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)       # SIGTERM ends a worker at once, without a traceback
    sys.stderr = _OrphanQuiet(sys.stderr)
    initializer(*initargs)


def _context() -> Any:
    """``fork`` where it is safe: available (POSIX) and no other Python thread runs in this process (a fork
    copies only the calling thread, and a lock another thread held would stay locked in the child).  A forked
    worker inherits the imported modules and the compiled project instead of importing and unpickling them
    (about a second of CPU per worker, issue 28 item 22).  Otherwise ``forkserver``, else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _kill(pool: ProcessPoolExecutor) -> None:
    processes = list(getattr(pool, "_processes", {}).values())
    for p in processes:
        if p.is_alive():
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        p.join(timeout=1)


def ordered_map(fn: Callable[[list], list], chunks: Iterable[list], *, jobs: int,
                initializer: Callable[..., None], initargs: Sequence[Any] = (),
                on_crash: Callable[[Any, BaseException], Any], window: int = 0,
                on_error: Optional[Callable[[Any, BaseException], Any]] = None) -> Iterator[list]:
    """``map(fn, chunks)`` on ``jobs`` worker processes, in input order, at most ``window`` chunks ahead.
    A chunk is a list and ``fn`` returns one result per item; ``on_crash(item, exc)`` is the result of an item
    whose grading kills its worker.  A chunk that fails otherwise (an item that cannot be pickled to a worker,
    a result that cannot be pickled back) is rerun item by item, and ``on_error(item, exc)`` (when given; else
    the exception goes on) is the result of each item that fails alone."""
    window = window or 4 * jobs
    source = iter(chunks)

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=_context(), initializer=_quiet_worker,
                                   initargs=(initializer, tuple(initargs)))

    pool = new_pool()
    pending: deque[tuple[Any, Future]] = deque()
    try:
        while True:
            while len(pending) < window:
                chunk = next(source, _END)
                if chunk is _END:
                    break
                pending.append((chunk, _submit(pool, fn, chunk)))
            if not pending:
                return
            chunk, future = pending.popleft()
            try:
                result = future.result()
            except BrokenProcessPool:
                # a worker died: which chunk killed it is unknown, so this one is rerun alone, item by item
                # if it fails again; every other chunk in flight is resubmitted to the fresh pool
                _kill(pool)
                pool = new_pool()
                result = _alone(pool, fn, chunk)
                if result is _END:
                    _kill(pool)
                    pool = new_pool()
                    result = [_one(new_pool, fn, item, on_crash) for item in chunk]
                pending = deque((c, _submit(pool, fn, c)) for c, _ in pending)
            except Exception:  # noqa: BLE001 - pickling failed: the items that fail alone are on_error's
                if on_error is None:
                    raise
                result = [_each(pool, fn, item, on_crash, on_error) for item in chunk]
            yield result
    finally:
        _kill(pool)


_END = object()


def _alone(pool: ProcessPoolExecutor, fn: Callable[[list], list], chunk: list) -> Any:
    try:
        return pool.submit(fn, chunk).result()
    except BrokenProcessPool:
        return _END


def _one(new_pool: Callable[[], ProcessPoolExecutor], fn: Callable[[list], list], item: Any,
         on_crash: Callable[[Any, BaseException], Any]) -> Any:
    """One item of a chunk that killed a worker twice, in a pool of its own: its result or ``on_crash``'s."""
    pool = new_pool()
    try:
        return pool.submit(fn, [item]).result()[0]
    except BrokenProcessPool as exc:
        return on_crash(item, exc)
    finally:
        _kill(pool)


def _each(pool: ProcessPoolExecutor, fn: Callable[[list], list], item: Any,
          on_crash: Callable[[Any, BaseException], Any], on_error: Callable[[Any, BaseException], Any]) -> Any:
    """One item of a chunk that failed without killing a worker: its result, or ``on_error``'s."""
    try:
        return pool.submit(fn, [item]).result()[0]
    except BrokenProcessPool as exc:
        return on_crash(item, exc)
    except Exception as exc:  # noqa: BLE001 - this item's own failure (pickling), reported for it alone
        return on_error(item, exc)


def _submit(pool: ProcessPoolExecutor, fn: Callable[[Any], Any], chunk: Any) -> Future:
    try:
        return pool.submit(fn, chunk)
    except BrokenProcessPool as exc:
        failed: Future = Future()
        failed.set_exception(exc)
        return failed
