# C types for kitchen/engine.py when it is compiled with Cython (setup.py); the .py file stays plain Python.
cimport cython
from chronoplan.runtime.kitchen.state cimport State
from chronoplan.runtime.kitchen.world cimport Op


cdef class _Running:
    cdef public Op op
    cdef public object env, index, surface, start, end, distance, holds, objs
    cdef public bint broken


@cython.final
cdef class KitchenSim:
    cdef public object w, q, t, cur, containment, _due, world_rank, max_errors, errors_dropped
    cdef public State st
    cdef public bint first, stopped
    cdef public object compat
    cdef public list errors, served
    cdef public dict runs, plan, cursor, idle, idle_since, finished, running, holders, instances, watchers
    cdef public set after_finish_reported

    @cython.locals(heap=list, st=State, idle=dict, rank=dict, cursor=dict, entry=tuple, code_clock=bint)
    cpdef _loop(self, until, limit, agent)
    @cython.locals(st=State, op=Op)
    cpdef _start(self, str agent, t)
    @cython.locals(st=State, r=_Running)
    cpdef _execute(self, agent, i, surface, Op op, dict env, t)
    @cython.locals(st=State, r=_Running, op=Op)
    cpdef _end(self, str agent, t)
    @cython.locals(st=State, touched=list, watchers=dict, objs=set)
    cpdef _settle(self, t)
    @cython.locals(st=State, otype=dict, table=dict, tup=tuple, keys=list, seen=set)
    cpdef _update_fast(self, dict fast, list touched, t)
    @cython.locals(st=State, env=dict, otype=dict)
    cpdef _reeval(self, proc, tuple key, t)
    cpdef _next(self, str agent, t)
