"""mbsolve: multibody dynamics for Adams datasets, from Python.

    import mbsolve
    m = mbsolve.load("pendulum.adm", acf="pendulum.acf")
    m.set("PART/2", "MASS", 2.0)
    r = m.run()                      # r.data (NumPy), r.columns, r.to_pandas()
    s = mbsolve.sweep(m, {"PART/2.MASS": [1, 2, 3]})   # s.table

A model is its text (dataset, command file) plus a list of changes; runs
and sweeps ship that text, never a Rust object, so sweep workers on other
machines only need the wheel.
"""

from ._core import ModelError, __version__
from .model import Model, Result, load
from .sweep import SweepResult, sweep

__all__ = ["ModelError", "Model", "Result", "SweepResult", "load", "sweep", "__version__"]
