"""Models (text plus changes), changes by element and argument, and runs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._core import ModelError

Change = Tuple[str, str, str]


def _model_error(message: str, file: str, line: Optional[int] = None, element: Optional[str] = None) -> ModelError:
    err = ModelError(message)
    err.file, err.line, err.element, err.reason = file, line, element, message
    return err


def format_value(value: Any) -> str:
    """A Python value as dataset text: numbers in full precision
    (repr round-trips a float), sequences comma-separated, strings as given."""
    if isinstance(value, bool):
        raise TypeError("a dataset value cannot be a bool")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not np.isfinite(v):
            raise ValueError(f"{v!r} is not a finite number")
        return repr(v)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(format_value(v) for v in value)
    raise TypeError(f"cannot write a {type(value).__name__} as a dataset value")


def _read(path: str) -> str:
    # Latin-1 comments are common in old decks: decode lossily, as the reader does.
    with open(path, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def load(path: "str | os.PathLike[str]", acf: "str | os.PathLike[str] | None" = None) -> "Model":
    """Read an Adams dataset (.adm) and, optionally, its command file (.acf),
    or a MotionSolve deck (.xml, which carries its own <Command> section).

    Raises ModelError (with .file, .line, .element) when the model cannot be
    read or assembled, OSError when a file cannot be opened."""
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".adm", ".xml"):
        raise _model_error(f"{path}: expected an Adams dataset (.adm) or a MotionSolve deck (.xml)", path)
    if ext == ".xml" and acf is not None:
        raise _model_error(f"{path}: a MotionSolve deck carries its own <Command> section; no .acf is used with it",
                           path)
    acf_path = os.fspath(acf) if acf is not None else None
    return Model(
        adm=_read(path),
        adm_name=path,
        acf=_read(acf_path) if acf_path is not None else None,
        acf_name=acf_path or "",
    )


class Model:
    """A dataset, an optional command file, and changes to them.

    Changes are by element and argument, as written in a dataset:
    ``set("PART/2", "MASS", 2.0)``, ``set("SFORCE/1", "FUNCTION", "-k*DM(2,1)")``,
    ``set("INTEGRATOR", "ERROR", 1e-5)``; in a MotionSolve deck by element
    type/id and attribute: ``set("Body_Rigid/2", "mass", 2.0)``,
    ``set("Force_Scalar_TwoBody/1", "val_expression", "-k*DM(2,1)")``,
    ``set("Param_Transient", "integr_tol", 1e-5)`` (the attribute is
    replaced or added in place, so line numbers in messages stay those of
    the file). Each change is applied to the text,
    which is read again: a new FUNCTION is recompiled and every value checked
    here, so an invalid value raises ModelError (or ValueError for a
    malformed key) before anything runs."""

    def __init__(self, adm: str, adm_name: str = "model.adm", acf: Optional[str] = None,
                 acf_name: str = "", changes: Sequence[Change] = ()):
        self.adm = adm
        self.adm_name = adm_name
        self.acf = acf
        self.acf_name = acf_name
        self.changes: List[Change] = list(changes)
        self._info = _core.inspect(self.spec())

    # -- the text a worker needs (plain strings: picklable anywhere) -------
    def spec(self, extra: Sequence[Change] = ()) -> Dict[str, Any]:
        return {"adm": self.adm, "adm_name": self.adm_name, "acf": self.acf,
                "acf_name": self.acf_name, "changes": [tuple(c) for c in list(self.changes) + list(extra)]}

    def __getstate__(self):
        return self.spec()

    def __setstate__(self, state):
        self.__init__(**state)

    def copy(self) -> "Model":
        return Model(**self.spec())

    # -- changes ----------------------------------------------------------
    def set(self, element: str, argument: str, value: Any) -> "Model":
        """Set ARGUMENT of ELEMENT (``PART/2``, ``SFORCE/1``, ``INTEGRATOR``).
        Validated now; the model is unchanged when this raises."""
        change = _core.parse_change(f"{element}.{argument}", format_value(value))
        self._info = _core.inspect(self.spec([change]))
        self.changes = self.changes + [change]
        return self

    def set_function(self, element: str, text: str) -> "Model":
        """Replace an SFORCE, MOTION or VARIABLE FUNCTION expression."""
        return self.set(element, "FUNCTION", text)

    # -- inspection ---------------------------------------------------------
    @property
    def title(self) -> str:
        return self._info["title"]

    @property
    def parts(self) -> List[Dict[str, str]]:
        return self._info["parts"]

    @property
    def joints(self) -> List[Dict[str, str]]:
        return self._info["joints"]

    @property
    def forces(self) -> List[Dict[str, str]]:
        return self._info["forces"]

    @property
    def requests(self) -> List[Dict[str, str]]:
        return self._info["requests"]

    @property
    def dof(self) -> int:
        """Degrees of freedom before redundant constraints are removed."""
        return self._info["dof"]

    @property
    def columns(self) -> List[str]:
        return ["time"] + list(self._info["columns"])

    def __repr__(self) -> str:
        return (f"<mbsolve.Model {self.title!r} from {self.adm_name}: {len(self.parts)} parts, "
                f"{len(self.joints)} joints, {len(self.forces)} forces, DOF {self.dof}, "
                f"{len(self.changes)} changes>")

    # -- running ------------------------------------------------------------
    def run(self) -> "Result":
        """Execute the command file (or initial conditions and
        SIMULATE/DYNAMIC, END=1, STEPS=100) with the GIL released.

        A failing analysis does not raise: the Result keeps the frames
        computed before it and `.error` says why (`.raise_for_error()`).
        Ctrl-C (KeyboardInterrupt) stops the solver at its next output frame
        and re-raises with `.result`, the Result of the frames computed."""
        try:
            return Result.from_core(_core.run(self.spec()))
        except KeyboardInterrupt as e:
            partial = getattr(e, "partial", None)
            if partial is not None:
                e.result = Result.from_core(partial)
            raise


@dataclass
class Result:
    """One run: `data` (frames × columns, float64), `columns` ("time", then
    request components), `log`, `stats` (one dict per analysis), `dof`, and
    `error` (None when the run finished; else the frames before it are kept)."""

    columns: List[str]
    data: np.ndarray
    log: List[str] = field(default_factory=list)
    stats: List[Dict[str, Any]] = field(default_factory=list)
    reports: List[str] = field(default_factory=list)
    dof: int = 0
    error: Optional[str] = None

    @classmethod
    def from_core(cls, d: Dict[str, Any]) -> "Result":
        data = np.frombuffer(d["data"], dtype=np.float64).reshape(d["rows"], len(d["columns"])).copy()
        return cls(columns=list(d["columns"]), data=data, log=list(d["log"]), stats=list(d["stats"]),
                   reports=list(d["reports"]), dof=d["dof"], error=d["error"])

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def time(self) -> np.ndarray:
        return self.data[:, 0]

    def __getitem__(self, column: str) -> np.ndarray:
        try:
            return self.data[:, self.columns.index(column)]
        except ValueError:
            raise KeyError(f"no column {column!r}; the columns are {', '.join(self.columns)}") from None

    def raise_for_error(self) -> "Result":
        if self.error is not None:
            raise RunError(self.error, self)
        return self

    def to_pandas(self):
        """The frames as a pandas DataFrame (requires pandas)."""
        import pandas as pd

        return pd.DataFrame(self.data, columns=self.columns)


class RunError(RuntimeError):
    """An analysis stopped early; `.result` holds the frames computed before it."""

    def __init__(self, message: str, result: Result):
        super().__init__(message)
        self.result = result
