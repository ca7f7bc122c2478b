"""MotionSolve .xml decks in the Python package, and Ctrl-C during a run."""

import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import mbsolve
from conftest import EXAMPLES

PENDULUM = EXAMPLES / "pendulum.xml"


@pytest.mark.parametrize("name", ["pendulum", "four_bar"])
def test_xml_examples_match_the_cli_csv(cli, tmp_path, name):
    deck = EXAMPLES / f"{name}.xml"
    subprocess.run([str(cli), "run", str(deck), "--out", str(tmp_path), "-q"], check=True)
    csv = tmp_path / f"{name}.csv"
    header = csv.read_text().splitlines()[0].split(",")
    expected = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    m = mbsolve.load(deck)
    assert m.dof == (-2 if name == "four_bar" else 1)  # before redundancy removal
    r = m.run()
    assert r.ok, r.error
    assert r.columns == header
    np.testing.assert_array_equal(r.data, expected)
    assert any("DSTIFF" in line for line in r.log)


def test_xml_changes_by_element_and_attribute():
    m = mbsolve.load(PENDULUM)
    assert [p["element"] for p in m.parts] == ["PART/1", "PART/2"]
    base = m.run()
    heavy = m.copy()
    heavy.set("Body_Rigid/2", "mass", 2.0)
    for axis in ("xx", "yy", "zz"):
        heavy.set("Body_Rigid/2", f"inertia_{axis}", 2e-3)
    r = heavy.run()
    assert r.ok, r.error
    # The same motion (period unchanged), twice the pivot reaction.
    np.testing.assert_allclose(r["request_1.y"], base["request_1.y"], atol=1e-6)
    big = np.abs(base["request_3.fy"]) > 1.0
    np.testing.assert_allclose(r["request_3.fy"][big], 2 * base["request_3.fy"][big], rtol=1e-5)
    # The deck's integrator settings are changed through Param_Transient:
    # h_max = 1e-3 over 2.5 s means at least 2500 steps (the deck's 0.01
    # took 269).
    fine = m.copy().set("Param_Transient", "h_max", 1e-3).run()
    assert fine.ok and base.stats[0]["steps"] < 300 <= 2500 <= fine.stats[0]["steps"]


def test_invalid_xml_changes_raise_before_running():
    m = mbsolve.load(PENDULUM)
    with pytest.raises(mbsolve.ModelError) as e:
        m.set("Body_Rigid/2", "mass", -1.0)
    assert e.value.file == str(PENDULUM) and e.value.line == 11
    with pytest.raises(mbsolve.ModelError, match="there is no BODY_RIGID id=9"):
        m.set("Body_Rigid/9", "mass", 1.0)
    with pytest.raises(mbsolve.ModelError, match="NOT_A_JOINT") as e:
        m.set("Constraint_Joint/1", "type", "NOT_A_JOINT")
    assert e.value.line == 15 and e.value.element == "Constraint_Joint/1"
    assert m.changes == []
    with pytest.raises(mbsolve.ModelError, match="no .acf is used"):
        mbsolve.load(PENDULUM, acf=EXAMPLES / "pendulum.acf")


def test_ctrl_c_interrupts_a_run_and_keeps_its_frames(tmp_path):
    # 500 s of pendulum: long enough that the interrupt comes mid-run.
    deck = tmp_path / "long.xml"
    deck.write_text(PENDULUM.read_text().replace('end_time="2.5" num_steps="250"',
                                                 'end_time="500." num_steps="50000"'))
    m = mbsolve.load(deck)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            m.run()
    finally:
        timer.cancel()
    partial = e.value.result
    assert not partial.ok and "interrupted" in partial.error
    assert partial.data.shape[0] > 1
    assert 0.0 < partial.time[-1] < 500.0
    # The frames kept are the run's own: strictly increasing output times.
    assert np.all(np.diff(partial.time) > 0)
