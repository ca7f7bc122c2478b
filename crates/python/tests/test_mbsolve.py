"""The Python package against the CLI, the physics and its error paths."""

import math
import os
import sys
import subprocess

import numpy as np
import pytest

import mbsolve
from conftest import DATA, EXAMPLES

OSC = DATA / "oscillator.adm"
OSC_ACF = DATA / "oscillator.acf"


def oscillator():
    return mbsolve.load(OSC, acf=OSC_ACF)


def spring(k):
    return f"-{k}*(DM(20, 10) - 1)"


@pytest.mark.parametrize("name", ["pendulum", "slider_crank"])
def test_examples_match_the_cli_csv(cli, tmp_path, name):
    adm, acf = EXAMPLES / f"{name}.adm", EXAMPLES / f"{name}.acf"
    subprocess.run([str(cli), "run", str(adm), "--acf", str(acf), "--out", str(tmp_path), "-q"], check=True)
    csv = tmp_path / f"{name}.csv"
    header = csv.read_text().splitlines()[0].split(",")
    expected = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    r = mbsolve.load(adm, acf=acf).run()
    assert r.ok, r.error
    assert r.columns == header
    assert r.data.shape == expected.shape
    # The CSV holds each value in Rust's shortest round-trip form ({:e}):
    # the same computation must read back to the same doubles.
    np.testing.assert_array_equal(r.data, expected)
    df = r.to_pandas()
    assert list(df.columns) == header and len(df) == expected.shape[0]


def crossing_times(t, x):
    """Times where x changes sign, by linear interpolation."""
    k = np.nonzero(np.sign(x[:-1]) * np.sign(x[1:]) < 0)[0]
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


def pendulum_period(r):
    c = crossing_times(r.time, r["request_1.x"])
    assert len(c) >= 2, c
    return 2.0 * (c[1] - c[0])


def test_mass_change_keeps_the_pendulum_period_and_scales_the_reaction():
    base = mbsolve.load(EXAMPLES / "pendulum.adm", acf=EXAMPLES / "pendulum.acf")
    heavy = base.copy().set("PART/2", "MASS", 2.0).set("PART/2", "IP", [2e-3, 2e-3, 2e-3])
    assert heavy.parts[1]["mass"] == "2e0" and base.parts[1]["mass"] == "1e0"
    r1, r2 = base.run(), heavy.run()
    assert r1.ok and r2.ok
    # Compound pendulum released horizontally (amplitude 90°): I about the
    # pivot m L² + Izz = 1.001 m, so L_eq = 1.001 m, and
    # T = 4 sqrt(L_eq / g) K(sin 45°), K by the arithmetic-geometric mean.
    a, b = 1.0, math.sqrt(1.0 - 0.5)
    for _ in range(30):
        a, b = (a + b) / 2.0, math.sqrt(a * b)
    period = 4.0 * math.sqrt(1.001 / 9.81) * math.pi / (2.0 * a)
    t1, t2 = pendulum_period(r1), pendulum_period(r2)
    # Crossings interpolated on the 0.01 s output grid: 1e-3 relative.
    assert abs(t1 - period) / period < 1e-3, (t1, period)
    # Mass and inertia scaled together: the same motion, to the error tolerance.
    assert abs(t2 - t1) / t1 < 1e-5, (t1, t2)
    np.testing.assert_allclose(r2["request_1.x"], r1["request_1.x"], atol=1e-5)
    # ... and twice the pivot reaction at every frame (ERROR = 1e-6).
    f1 = np.hypot(r1["request_3.fx"], r1["request_3.fy"])
    f2 = np.hypot(r2["request_3.fx"], r2["request_3.fy"])
    np.testing.assert_allclose(f2, 2.0 * f1, rtol=1e-4, atol=1e-6 * f1.max())


def test_function_change_is_recompiled_and_honoured():
    m = oscillator()
    assert m.forces == [{"element": "SFORCE/1", "kind": "SFORCE/TRANSLATIONAL", "i": "20", "j": "10"}]
    assert m.joints == [{"element": "JOINT/1", "kind": "TRANSLATIONAL", "i": "20", "j": "10"}]
    assert [(r["element"], r["kind"]) for r in m.requests] == [("REQUEST/1", "DISPLACEMENT"), ("REQUEST/2", "FORCE")]
    assert [p["element"] for p in m.parts] == ["PART/1", "PART/2"]
    assert m.dof == 1
    for k in (100.0, 400.0):
        r = m.copy().set_function("SFORCE/1", spring(k)).run()
        assert r.ok, r.error
        # x(t) = 1 + 0.1 cos(sqrt(k) t): the spring force on the slider is
        # -0.1 k cos(sqrt(k) t) along x; ERROR = 1e-6 on a 0.1 amplitude.
        expect = -0.1 * k * np.cos(math.sqrt(k) * r.time)
        np.testing.assert_allclose(r["request_2.fx"], expect, atol=2e-3 * 0.1 * k)


def test_integrator_change_is_honoured():
    def error(r):
        return np.abs(r["request_1.x"] - 1 - 0.1 * np.cos(10 * r.time)).max()

    loose = oscillator().set("INTEGRATOR", "ERROR", 1e-2).run()
    tight = oscillator().run()
    assert loose.ok and tight.ok
    # The change follows the command file's INTEGRATOR/GSTIFF, ERROR = 1E-6.
    assert [l for l in loose.log if l.startswith("INTEGRATOR command")][-1] == "INTEGRATOR command: GSTIFF, ERROR = 1e-2"
    # Steps are bounded by the 5 ms outputs either way; the looser
    # tolerance shows in the error against x = 1 + 0.1 cos(10 t).
    assert error(tight) < 2e-6 < error(loose)


@pytest.mark.parametrize(
    "element, argument, value, line, message",
    [
        ("PART/2", "MASS", -1.0, 10, "part has no positive mass"),
        ("PART/2", "MASS", "heavy", 10, "bad number 'heavy' for MASS"),
        ("SFORCE/1", "FUNCTION", "-100*(DM(20, 10) - 1", 13, ""),
        ("PART/2", "COLOUR", 3, 10, "unknown keyword COLOUR"),
    ],
)
def test_invalid_change_raises_model_error_before_running(element, argument, value, line, message):
    m = oscillator()
    with pytest.raises(mbsolve.ModelError) as e:
        m.set(element, argument, value)
    assert e.value.file == str(OSC)
    assert e.value.line == line
    assert e.value.element in (element, None)
    assert message in str(e.value)
    # The model is unchanged and still runs.
    assert m.changes == []
    assert m.run().ok


def test_malformed_keys_and_files_raise_clean_errors(tmp_path):
    m = oscillator()
    with pytest.raises(ValueError, match="the element is NAME/id"):
        m.set("PART2", "MASS", 1.0)
    with pytest.raises(mbsolve.ModelError, match="there is no PART/9 in the dataset"):
        m.set("PART/9", "MASS", 1.0)
    with pytest.raises(ValueError, match="ends a value in a dataset"):
        m.set("PART/2", "MASS", "1 ! comment")
    with pytest.raises(TypeError):
        m.set("PART/2", "MASS", object())
    xml = tmp_path / "model.xml"
    xml.write_text("<MultiBodySystem/>")
    with pytest.raises(mbsolve.ModelError, match="no <Model> section"):
        mbsolve.load(xml)
    bad = tmp_path / "bad.adm"
    bad.write_text("title\nPART/1, GROUND\nPART/2, MASS = 1, CM = 99\nEND\n")
    with pytest.raises(mbsolve.ModelError) as e:
        mbsolve.load(bad)
    assert e.value.file == str(bad) and e.value.line == 3


def test_a_failing_run_returns_its_partial_results():
    m = oscillator().set_function("SFORCE/1", spring(100) + " + SQRT(0.5 - TIME)")
    r = m.run()
    assert not r.ok
    assert "SQRT of a negative number" in r.error
    # Frames every 5 ms up to the last one before the failure at 0.505 s.
    assert r.data.shape[0] == 101 and r.time[-1] == pytest.approx(0.5)
    with pytest.raises(mbsolve.model.RunError) as e:
        r.raise_for_error()
    assert e.value.result is r


def test_the_readme_study_runs_and_finds_peak_force_proportional_to_stiffness(tmp_path):
    from conftest import REPO

    text = (REPO / "README.md").read_text()
    code = text.split("A study — peak spring force against stiffness:\n\n```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) == 10
    # Run where the README's relative paths resolve, without writing into
    # the repository (peak_force.png when matplotlib is installed).
    (tmp_path / "crates").symlink_to(REPO / "crates")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(" ok ") == 5, out.stdout
    ns = {}
    exec(code.split("print(")[0].replace("crates/", str(REPO / "crates") + "/"), ns)
    for k, peak in zip(ns["stiffness"], ns["peak"]):
        assert peak == pytest.approx(0.1 * k, rel=1e-3)
