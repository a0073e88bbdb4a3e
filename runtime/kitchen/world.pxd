# C types for kitchen/world.py when it is compiled with Cython (setup.py); the .py file stays plain Python.
cimport cython
from chronoplan.runtime.kitchen.state cimport State


@cython.final
cdef class Op:
    cdef public str name
    cdef public object action, vars, start_parts, duration, distance, all_test, end_test, start_apply, end_apply
    cdef public object caps, holds, new, world, cap_check, res_holds
    cdef public dict _solvers, _names
    cdef public bint distance_is_duration, instant
