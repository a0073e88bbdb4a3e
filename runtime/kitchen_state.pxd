# C types for kitchen_state.py when it is compiled with Cython (setup.py); the .py file stays plain Python.

cdef class Rel:
    cdef public str name
    cdef public Py_ssize_t arity
    cdef public dict facts
    cdef public list idx


cdef class State:
    cdef public dict ancestors, otype, members, rels, attrs, defaults, pos, counters
    cdef public list touched
    cdef public object logged
