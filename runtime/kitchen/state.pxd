# C types for kitchen/state.py when it is compiled with Cython (setup.py); the .py file stays plain Python.
# Final classes with cpdef methods: typed callers (the simulator, the compiled closures) call them in C.
cimport cython


@cython.final
cdef class Rel:
    cdef public str name
    cdef public Py_ssize_t arity
    cdef public dict facts
    cdef public list idx

    cpdef bint add(self, tuple tup)
    cpdef bint remove(self, tuple tup)
    cpdef dict by(self, Py_ssize_t pos, value)


@cython.final
cdef class State:
    cdef public dict ancestors, otype, members, rels, attrs, defaults, pos, counters
    cdef public list touched
    cdef public object logged

    cpdef add_object(self, name, typ)
    cpdef str new_object(self, str typ)
    cpdef str tentative(self, str typ)
    cpdef forget(self, name)
    cpdef confirm(self, str name)
    cpdef destroy(self, obj)
    cpdef bint isa(self, obj, typ)
    cpdef add(self, str rel, tuple tup)
    cpdef remove(self, str rel, tuple tup)
    cpdef bint holds(self, str rel, tuple tup)
    cpdef get(self, str attr, obj)
    cpdef set(self, str attr, obj, value)
