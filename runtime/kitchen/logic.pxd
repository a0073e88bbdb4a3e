# C types for kitchen/logic.py when it is compiled with Cython (setup.py); the .py file stays plain Python.
cimport cython
from chronoplan.runtime.kitchen.state cimport Rel, State


@cython.locals(bucket=dict, members=dict, tup=tuple, out=list)
cpdef list bucket_values(State st, str relation, Py_ssize_t key_pos, key, Py_ssize_t pos, typ)
