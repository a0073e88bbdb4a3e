# C types for kitchen_logic.py when it is compiled with Cython (setup.py); the .py file stays plain Python.
from chronoplan.runtime.kitchen_state cimport Rel, State
