"""Sweeps: the same table on every engine, failures kept, bad input refused."""

import math

import numpy as np
import pandas as pd
import pytest

import mbsolve
from test_mbsolve import oscillator, spring

STIFFNESS = [100, 200, 400, 800]
PARAMS = {"SFORCE/1.FUNCTION": [spring(k) for k in STIFFNESS], "PART/2.MASS": [1.0, 2.0]}


@pytest.fixture(scope="module")
def local():
    return mbsolve.sweep(oscillator(), PARAMS, engine="local", workers=2)


def assert_same(a, b):
    pd.testing.assert_frame_equal(a.table, b.table)
    for ra, rb in zip(a.results, b.results):
        assert ra.columns == rb.columns
        np.testing.assert_array_equal(ra.data, rb.data)


def test_local_sweep_runs_eight_variants_with_the_right_physics(local):
    t = local.table
    assert len(t) == 8 and list(t["status"]) == ["ok"] * 8
    assert list(t["PART/2.MASS"]) == ["1.0", "2.0"] * 4
    for row, res in zip(local.rows, local.results):
        k = STIFFNESS[row["variant"] // 2]
        mass = float(row["PART/2.MASS"])
        # Released 0.1 m from the free length: peak spring force 0.1 k, and
        # x(t) = 1 + 0.1 cos(sqrt(k/m) t).
        assert np.abs(res["request_2.fx"]).max() == pytest.approx(0.1 * k, rel=1e-3)
        np.testing.assert_allclose(res["request_1.x"], 1 + 0.1 * np.cos(math.sqrt(k / mass) * res.time), atol=2e-4)


def test_dask_local_cluster_gives_the_identical_table(local):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            dask = mbsolve.sweep(oscillator(), PARAMS, engine="dask", client=client)
    assert_same(local, dask)


def test_ray_gives_the_identical_table(local):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        r = mbsolve.sweep(oscillator(), PARAMS, engine="ray")
    finally:
        ray.shutdown()
    assert_same(local, r)


def test_one_failing_variant_is_reported_while_the_others_complete():
    funcs = [spring(100), spring(100) + " + SQRT(0.5 - TIME)", spring(400)]
    s = mbsolve.sweep(oscillator(), {"SFORCE/1.FUNCTION": funcs}, workers=2)
    t = s.table
    assert list(t["status"]) == ["ok", "failed", "ok"]
    assert list(t["frames"]) == [201, 101, 201]
    # The failed variant keeps its frames up to the last output before the
    # SQRT argument turns negative (0.5 s), and its error.
    assert t.loc[1, "t_end"] == pytest.approx(0.5)
    assert "SQRT of a negative number" in t.loc[1, "error"]
    assert s.results[1].data.shape == (101, len(s.results[0].columns))
    assert s.failed() == [s.rows[1]]
    assert list(t["error"])[0::2] == ["", ""]


def test_invalid_variant_and_bad_sweeps():
    s = mbsolve.sweep(oscillator(), {"PART/2.MASS": [1.0, -1.0]}, workers=1)
    assert [r["status"] for r in s.rows] == ["ok", "invalid"]
    assert "part has no positive mass" in s.rows[1]["error"]
    with pytest.raises(ValueError, match="zip needs lists of one length"):
        mbsolve.sweep(oscillator(), {"PART/2.MASS": [1, 2], "PART/2.IP": [[1e-3] * 3]}, mode="zip")
    with pytest.raises(ValueError, match="engine 'spark'"):
        mbsolve.sweep(oscillator(), {"PART/2.MASS": [1]}, engine="spark")
    with pytest.raises(ValueError, match="a change is ELEMENT.ARGUMENT"):
        mbsolve.sweep(oscillator(), {"MASS": [1]})
