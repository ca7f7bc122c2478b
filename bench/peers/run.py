#!/usr/bin/env python3
"""Peer benchmark: mbsolve against Exudyn on the same models (issue 13, item 4).

Models (exactly mbsolve's models::chain(N) and models::free_slider_crank):
  * chain N (N = 4, 16, 64, 256): N uniform rods, 1 m, 1 kg (Izz = Iyy =
    1/12, Ixx = 1e-4/12), revolute joints about z, released horizontally
    along +x from rest, gravity -9.81 y, 1 s. Probe: the tip (right end of
    the last rod).
  * free slider-crank: crank 0.5 m and rod 1.5 m (uniform 1 kg rods),
    1 kg slider (I = 0.01) on a translational joint along x, no gravity,
    crank given 2 pi rad/s about z, 2 s. Probe: the slider's centre.
    mbsolve's initial-condition solve takes the velocities nearest the given
    ones in its coordinates (min |u - u0| over CM velocities and Euler-
    parameter rates, subject to the velocity constraints), which slows the
    crank to CRANK_RATE_FACTOR x 2 pi rad/s; Exudyn and the scipy model start
    from that same state (see initial_crank_rate).

100 outputs per run (every 0.01 s on the chain, every 0.02 s on the
slider-crank). The error of a run is the largest Euclidean distance,
over the output times it shares with the reference, of its probe from the
reference probe.

Reference per model: mbsolve WSTIFF/SI2 at ERROR 1e-11, cross-checked
against a second tight solution -- scipy DOP853 (rtol 1e-13) on the reduced
(joint-angle / one-DOF energy) model (about 80 s for N = 256).

Sweeps: mbsolve ERROR with GSTIFF, WSTIFF and HHT (I3, the default
formulation); Exudyn's implicit generalized-alpha solver (RB3D bodies with
Euler parameters, its default index-3 form) over the step size, its only
accuracy knob for implicit integration (it varies the step only when Newton
fails). Each point is timed REPEATS times and the median kept. The wall time
at an error level is interpolated log-log between the two sweep points that
bracket it (or is the time of a point that already meets it).

It is a benchmark, never a test: nothing here runs in CI.

  python3 bench/peers/run.py [--quick] [--repeats 3] [--json FILE]
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LEVELS = [1e-2, 1e-4, 1e-6]
OUT_DT = 0.01


# ---------------------------------------------------------------- mbsolve


def peer_run_binary():
    """Build (if needed) and locate the peer_run example."""
    override = os.environ.get("MBSOLVE_PEER_RUN")
    if override:
        return override
    cargo = shutil.which("cargo")
    if cargo is None:
        sys.exit("cargo not found: build mbsolve's peer_run example first "
                 "or set MBSOLVE_PEER_RUN to its path")
    subprocess.run([cargo, "build", "--release", "-q", "-p", "mbsolve",
                    "--example", "peer_run"], cwd=REPO, check=True)
    return os.path.join(REPO, "target", "release", "examples", "peer_run")


def mbsolve_run(binary, model, spec, error, repeats):
    """Returns ((median wall [s], {output index: probe}, steps), None), or
    (None, the error message) when the run fails."""
    p = subprocess.run([binary, model, spec, repr(error), str(repeats)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    lines = p.stdout.splitlines()
    walls = [float(w) for w in lines[0].split()[1:]]
    steps = int(lines[1].split()[1])
    probes = {}
    for ln in lines[2:]:
        t, x, y, z = (float(v) for v in ln.split())
        probes[round(t / OUT_DT)] = (x, y, z)
    return (statistics.median(walls), probes, steps), None


# ---------------------------------------------------------------- initial state


def initial_crank_rate(r=0.5, l=1.5, w_given=2.0 * math.pi):
    """The crank rate mbsolve starts the free slider-crank with.

    models::free_slider_crank gives the crank w_given about z and its CM
    (0, r w_given / 2); every other velocity is zero. mbsolve's initial
    conditions take u = argmin |u - u0| subject to Phi_q u = 0
    (analysis.rs, solve_configuration), u being CM velocities and Euler-
    parameter rates (p' = (0, 0, 0, w / 2) for a turn w about z at p = (1,
    0, 0, 0)). With one DOF, u = J theta' where J is u per unit crank rate
    at the horizontal start -- crank: CM (0, r/2, 0), p' (0, 0, 0, 1/2);
    rod: CM (0, r/2, 0), p' (0, 0, 0, -r / (2 l)); slider: 0 -- so
    theta' = J.u0 / J.J."""
    j_dot_u0 = w_given * (r * r / 4 + 1 / 4)
    j_dot_j = r * r / 4 + 1 / 4 + r * r / 4 + r * r / (4 * l * l)
    return j_dot_u0 / j_dot_j


CRANK_RATE_FACTOR = initial_crank_rate() / (2.0 * math.pi)


# ---------------------------------------------------------------- Exudyn


def exudyn_build(exu, model):
    """The model in Exudyn (RB3D, Euler parameters); returns (mbs, SC,
    sensor, end time)."""
    import numpy as np
    import exudyn.utilities as eu
    from exudyn.itemInterface import SensorBody

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround(referencePosition=[0, 0, 0], show=False)

    def rod_inertia(mass, length):
        i = mass * length * length / 12.0
        return eu.RigidBodyInertia(
            mass=mass, inertiaTensor=np.diag([1e-4 * max(i, 1e-6), i, i]))

    if model.startswith("chain:"):
        n = int(model.split(":")[1])
        g = [0.0, -9.81, 0.0]
        prev = ground
        for k in range(n):
            body = mbs.CreateRigidBody(
                referencePosition=[k + 0.5, 0.0, 0.0],
                inertia=rod_inertia(1.0, 1.0), gravity=g, show=False)
            mbs.CreateRevoluteJoint(itemNumbers=[prev, body],
                                    position=[float(k), 0.0, 0.0],
                                    axis=[0, 0, 1], useGlobalFrame=True,
                                    show=False)
            prev = body
        sensor = mbs.AddSensor(SensorBody(
            bodyNumber=prev, localPosition=[0.5, 0.0, 0.0],
            storeInternal=True, writeToFile=False,
            outputVariableType=exu.OutputVariableType.Position))
        return mbs, SC, sensor, 1.0

    # Free slider-crank at mbsolve's initial state: the crank turning at w
    # (initial_crank_rate), CM at (0, r w / 2); then, as the constraints
    # fix them at the horizontal start, the rod's CM at (0, r w / 2)
    # turning at -r w / l, and the slider at rest.
    r, l = 0.5, 1.5
    w = initial_crank_rate()
    crank = mbs.CreateRigidBody(
        referencePosition=[r / 2, 0, 0], inertia=rod_inertia(1.0, r),
        initialVelocity=[0, r * w / 2, 0], initialAngularVelocity=[0, 0, w],
        show=False)
    rod = mbs.CreateRigidBody(
        referencePosition=[r + l / 2, 0, 0], inertia=rod_inertia(1.0, l),
        initialVelocity=[0, r * w / 2, 0],
        initialAngularVelocity=[0, 0, -r * w / l], show=False)
    slider = mbs.CreateRigidBody(
        referencePosition=[r + l, 0, 0],
        inertia=eu.RigidBodyInertia(mass=1.0,
                                    inertiaTensor=np.diag([0.01] * 3)),
        show=False)
    mbs.CreateRevoluteJoint(itemNumbers=[ground, crank], position=[0, 0, 0],
                            axis=[0, 0, 1], show=False)
    mbs.CreateRevoluteJoint(itemNumbers=[crank, rod], position=[r, 0, 0],
                            axis=[0, 0, 1], show=False)
    mbs.CreatePrismaticJoint(itemNumbers=[ground, slider],
                             position=[r + l, 0, 0], axis=[1, 0, 0],
                             show=False)
    # Rod-slider pin: only its in-plane translations. The full 3-D
    # revolute would close the planar loop with three redundant equations,
    # which Exudyn's solvers do not remove (mbsolve does); the motion is
    # the same, only the out-of-plane reactions are not computed.
    mbs.CreateGenericJoint(itemNumbers=[rod, slider], position=[r + l, 0, 0],
                           constrainedAxes=[1, 1, 0, 0, 0, 0], show=False)
    sensor = mbs.AddSensor(SensorBody(
        bodyNumber=slider, localPosition=[0, 0, 0], storeInternal=True,
        writeToFile=False, outputVariableType=exu.OutputVariableType.Position))
    return mbs, SC, sensor, 2.0


def exudyn_run(exu, model, steps_per_second, repeats, sparse):
    """Fixed-step generalized-alpha run; returns ((median wall of
    Assemble + SolveDynamic [s], {output index: probe}, steps), None), or
    (None, a message) when the solver fails."""
    walls = []
    probes = None
    for _ in range(repeats):
        mbs, SC, sensor, end = exudyn_build(exu, model)
        s = exu.SimulationSettings()
        steps = int(round(steps_per_second * end))
        h = end / steps
        s.timeIntegration.endTime = end
        s.timeIntegration.numberOfSteps = steps
        s.timeIntegration.verboseMode = 0
        # Setting names of Exudyn 1.13 (the older solutionSettings.* and
        # display* names are deprecated there).
        s.solution.file.write = False
        s.solution.sensors.writePeriod = max(h, OUT_DT) * (1 - 1e-9)
        s.show.statistics = False
        s.show.computationTime = False
        if sparse:
            s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
        start = time.perf_counter()
        mbs.Assemble()
        ok = exu.SolveDynamic(mbs, s, showHints=False)
        walls.append(time.perf_counter() - start)
        if not ok:
            return None, "SolveDynamic failed"
        data = mbs.GetSensorStoredData(sensor)
        probes = {}
        for row in data:
            k = row[0] / OUT_DT
            if abs(k - round(k)) < 1e-6:
                probes[round(k)] = tuple(row[1:4])
    return (statistics.median(walls), probes, steps), None


# ---------------------------------------------------------------- reduced models (scipy)


def reduced_chain(n):
    """Tip positions at the outputs from the N-link planar chain in
    absolute rod angles phi_k (Lagrange's equations, DOP853)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    idx = np.arange(n)
    # C_jk = sum over rods i >= max(j,k) of a_ij a_ik, a_ij = 1 (j < i),
    # 1/2 (j = i): the mass matrix is C_jk cos(phi_j - phi_k) + I delta_jk.
    m = np.maximum.outer(idx, idx)
    c = 0.5 + (n - 1 - m).astype(float)
    np.fill_diagonal(c, 0.25 + (n - 1 - idx) + 1.0 / 12.0)
    gen_grav = -9.81 * (n - idx - 0.5)   # times cos(phi_j)

    def rhs(t, y):
        phi, dphi = y[:n], y[n:]
        d = phi[:, None] - phi[None, :]
        mass = c * np.cos(d)
        f = gen_grav * np.cos(phi) - (c * np.sin(d)) @ (dphi * dphi)
        return np.concatenate([dphi, np.linalg.solve(mass, f)])

    times = np.arange(0, 101) * OUT_DT
    sol = solve_ivp(rhs, (0, 1.0), np.zeros(2 * n), method="DOP853",
                    rtol=1e-13, atol=1e-13, t_eval=times)
    phi = sol.y[:n]
    return {k: (float(np.cos(phi[:, k]).sum()),
                float(np.sin(phi[:, k]).sum()), 0.0)
            for k in range(len(times))}


def reduced_slider_crank():
    """Slider positions from the one-DOF free slider-crank: kinetic energy
    is conserved, so theta' = sqrt(2 E / m(theta)) with m the generalized
    mass in the crank angle (DOP853)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    r, l, w0 = 0.5, 1.5, initial_crank_rate()
    ic, il = r * r / 12.0, l * l / 12.0

    def gmass(th):
        s, c = math.sin(th), math.cos(th)
        w = math.sqrt(l * l - r * r * s * s)
        dw = -r * r * s * c / w
        crank = (r / 2) ** 2 + ic
        rod_v = (-r * s + dw / 2) ** 2 + (r * c / 2) ** 2
        rod_w = (r * c / w) ** 2          # rod angle rate per crank rate
        slider = (-r * s + dw) ** 2
        return crank + rod_v + il * rod_w + slider

    energy = 0.5 * gmass(0.0) * w0 * w0
    times = np.arange(0, 201) * OUT_DT
    sol = solve_ivp(lambda t, y: [math.sqrt(2 * energy / gmass(y[0]))],
                    (0, 2.0), [0.0], method="DOP853", rtol=1e-13, atol=1e-14,
                    t_eval=times)
    th = sol.y[0]
    return {k: (float(r * math.cos(a) + math.sqrt(l * l - (r * math.sin(a)) ** 2)),
                0.0, 0.0) for k, a in enumerate(th)}


# ---------------------------------------------------------------- scoring


def max_error(probes, ref):
    common = [k for k in probes if k in ref]
    if not common:
        return float("nan")
    return max(math.dist(probes[k], ref[k]) for k in common)


def sweep(knobs, run_one, label, ref, floor):
    """Runs `run_one(knob)` for each knob in order, printing each point,
    until a run's error is below `floor` or a run takes over a minute;
    returns [(error, median wall)] in sweep order."""
    points = []
    for knob in knobs:
        r, msg = run_one(knob)
        if r is None:
            print(f"  {label(knob)}: {msg}")
            continue
        err = max_error(r[1], ref)
        points.append((err, r[0]))
        print(f"  {label(knob)}: {r[2]:6} steps {r[0]:9.4f} s  error {err:.2e}",
              flush=True)
        if err < floor or r[0] > 60:
            break
    return points


def time_at(points, level):
    """Wall time to reach `level`: the cheapest of (a) sweep points that
    meet it and (b) log-log interpolation between consecutive points
    (in sweep order) that bracket it. None when no point reaches it."""
    best = None
    for i, (err, wall) in enumerate(points):
        cand = []
        if err <= level:
            cand.append(wall)
        if i > 0:
            e0, w0 = points[i - 1]
            if e0 > level >= err and e0 > 0 and err > 0:
                f = (math.log(level) - math.log(e0)) / (math.log(err) - math.log(e0))
                cand.append(math.exp(math.log(w0) + f * (math.log(wall) - math.log(w0))))
        for c in cand:
            best = c if best is None else min(best, c)
    return best


def fmt_t(t):
    return "—" if t is None else f"{t:.4f}"


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="chain N = 4, 16 and the slider-crank only")
    ap.add_argument("--models", nargs="+",
                    help="a subset of chain:4 chain:16 chain:64 chain:256 slider")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write every sweep point to this file")
    args = ap.parse_args()
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")

    # Exudyn's fast module (no range checks, AVX2), its best case; it falls
    # back to the checked module on a CPU without AVX2.
    sys.exudynFast = True
    try:
        import exudyn as exu
    except ImportError:
        print("Exudyn is not installed (pip install exudyn): the peer "
              "benchmark needs it, so nothing was run.")
        return 0
    try:
        import numpy
        import scipy
    except ImportError:
        print("numpy and scipy are needed for the reduced-model cross-check "
              "(pip install numpy scipy): nothing was run.")
        return 0

    binary = peer_run_binary()
    models = ["chain:4", "chain:16"] + ([] if args.quick else ["chain:64", "chain:256"]) + ["slider"]
    if args.models:
        unknown = [m for m in args.models if m not in models + ["chain:64", "chain:256"]]
        if unknown:
            sys.exit(f"unknown model(s) {unknown}: choose from chain:4 chain:16 "
                     "chain:64 chain:256 slider")
        models = args.models
    print(f"Exudyn {exu.__version__}, scipy {scipy.__version__}, numpy {numpy.__version__}, "
          f"Python {sys.version.split()[0]}")
    summary = []
    dump = {}
    for model in models:
        big = model == "chain:256"
        levels = LEVELS[:2] if big else LEVELS
        floor = min(levels) / 10      # stop a sweep once this error is reached
        print(f"\n=== {model} ===", flush=True)
        ref_run, msg = mbsolve_run(binary, model, "WSTIFF/SI2", 1e-11, 1)
        if ref_run is None:
            print(f"reference failed: {msg}")
            continue
        ref = ref_run[1]
        if model == "slider":
            check_name = "scipy DOP853 one-DOF energy model"
            check = reduced_slider_crank()
        else:
            check_name = "scipy DOP853 joint-angle model"
            check = reduced_chain(int(model.split(":")[1]))
        ref_unc = max_error(check, ref)
        print(f"reference mbsolve WSTIFF/SI2 ERROR 1e-11 ({ref_run[2]} steps); "
              f"vs {check_name}: {ref_unc:.2e}")

        results = {}
        for spec in ["GSTIFF", "WSTIFF", "HHT"]:
            results[spec] = sweep(
                [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9],
                lambda error, spec=spec: mbsolve_run(binary, model, spec, error, args.repeats),
                lambda error, spec=spec: f"mbsolve {spec:6} ERROR {error:.0e}",
                ref, floor)
        # Exudyn's sparse solver (EigenSparse) beats its dense one from
        # N = 16 on (measured: 0.40 s against 1.08 s for 1000 steps at
        # N = 16, 0.96 s against 10.5 s at N = 64); dense wins on the
        # three-body slider-crank (0.25 s against 0.27 s).
        sparse = model.startswith("chain:") and int(model.split(":")[1]) >= 16
        # Steps per second from 100 up: Exudyn has no dense output, so a
        # step longer than the 0.01 s output interval would skip outputs
        # that mbsolve must deliver (it lands on each one, which caps its
        # step at 0.01 s too).
        results["Exudyn"] = sweep(
            [100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200],
            lambda sps: exudyn_run(exu, model, sps, args.repeats, sparse),
            lambda sps: f"Exudyn  h = {1 / sps:.2e}",
            ref, floor)
        dump[model] = {"reference_uncertainty": ref_unc, "sweeps": results}

        for level in levels:
            t = {k: time_at(v, level) for k, v in results.items()}
            mb = [t[k] for k in ("GSTIFF", "WSTIFF", "HHT") if t[k] is not None]
            best = min(mb) if mb else None
            ratio = (best / t["Exudyn"]) if best and t["Exudyn"] else None
            summary.append((model, level, t, best, ratio, ref_unc))

    print("\nWall time [s] to reach a max probe error (median of "
          f"{args.repeats}; log-log interpolated; — = not reached)")
    head = (f"| {'model':9} | {'error':6} | {'GSTIFF':8} | {'WSTIFF':8} | {'HHT':8} "
            f"| {'mbsolve best':12} | {'Exudyn':8} | {'ratio mb/Ex':11} | {'ref. unc.':9} |")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for model, level, t, best, ratio, unc in summary:
        print(f"| {model:9} | {level:6.0e} | {fmt_t(t['GSTIFF']):8} | {fmt_t(t['WSTIFF']):8} "
              f"| {fmt_t(t['HHT']):8} | {fmt_t(best):12} | {fmt_t(t['Exudyn']):8} "
              f"| {('—' if ratio is None else f'{ratio:.2f}'):11} | {unc:9.1e} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dump, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
