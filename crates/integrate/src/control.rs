//! Step control and failure policy: every heuristic number of the step loop,
//! the corrector and the step/order selection, named once, in the manner of
//! SUNDIALS' `MXNCF`, `MXNEF` and `*_DEFAULT` (IDA: Hindmarsh et al., "User
//! Documentation for IDA"; DASSL: Brenan, Campbell & Petzold, *Numerical
//! Solution of Initial-Value Problems in DAEs*, SIAM 1996, "BCP" below;
//! LSODE: Hindmarsh, ODEPACK, 1983). Where a value is ours, the comment says
//! what was measured.

// ---- Failure policy (the one step loop) ----

/// Corrector failures in a row (with a fresh Jacobian each) before the run
/// stops. IDA's MXNCF is 10; ours was 20 in GSTIFF, WSTIFF and HHT alike
/// (a restart after a stop costs more than a few more retries on our
/// models, whose corrector fails in bursts at impacts and flat
/// configurations).
pub const MAX_CORRECTOR_FAILURES: usize = 20;

/// Failed attempts in a row (corrector or error test) before the run stops.
/// IDA's MXNEF is 10 error-test failures; ours counts both kinds and was 30
/// in all three integrators.
pub const MAX_CONSECUTIVE_FAILURES: usize = 30;

/// CONSTANT_BDF cannot cut its step: corrector retries with a fresh
/// Jacobian at the fixed step before the run stops (ours).
pub const CONSTANT_STEP_CORRECTOR_RETRIES: usize = 2;

/// Step ratio after a corrector failure with a fresh Jacobian: DASSL and
/// IDA both cut h by 4 (BCP §5.4; IDA's ETACF = 0.25).
pub const CORRECTOR_FAILURE_STEP_RATIO: f64 = 0.25;

/// Safety factor on the step ratio an error estimate allows after a failed
/// error test: DASSL's 0.9 (BCP §5.4), also LSODE's.
pub const ERROR_FAILURE_SAFETY: f64 = 0.9;

/// Bounds of the step ratio after the first error-test failures (GSTIFF,
/// HHT): at most 0.9 (a rejected step never stays), at least 0.1 — the
/// ratio LSODE takes from its third failure on (KFLAG ≤ −3: RH = 0.1).
pub const ERROR_FAILURE_MIN_RATIO: f64 = 0.1;
pub const ERROR_FAILURE_MAX_RATIO: f64 = 0.9;

/// Error-test failures in a row after which GSTIFF drops to order 1 and
/// HHT to the floor ratio: LSODE's and DASSL's third failure (KFLAG = −3).
pub const ERROR_FAILURES_BEFORE_RESTART: usize = 3;

/// WSTIFF (DASSL, BCP §5.4): the first failure's ratio is bounded below by
/// 0.25 and the second and later failures take exactly 0.25.
pub const DASSL_ERROR_FAILURE_MIN_RATIO: f64 = 0.25;

// ---- Step limits and output landing (the one step loop) ----

/// Relative slack on HMIN so a step equal to HMIN up to rounding passes
/// (ours: 1e-12, about 5000 ulp).
pub const HMIN_ROUNDOFF: f64 = 1e-12;

/// A step within this fraction of the remaining interval is the last one,
/// and is not stopped by HMIN (ours).
pub const REMAINING_ROUNDOFF: f64 = 1e-9;

/// A step that would end within 5% short of the output time is stretched to
/// land on it instead of leaving a sliver (ours, as LSODE's TCRIT handling).
pub const LANDING_STRETCH: f64 = 1.05;

/// Slack on HMAX for a landing step: output times carry rounding, e.g.
/// t0 + i·DTOUT (1 ppm, ours).
pub const HMAX_LANDING_ROUNDOFF: f64 = 1e-6;

/// A landing step equal to the previous step up to this relative rounding
/// keeps the previous step exactly, so the history stays uniform (ours).
pub const UNIFORM_STEP_ROUNDOFF: f64 = 1e-12;

/// Once an output time is at most this many steps away, it is reached in
/// equal steps (every method). Ours, measured with GSTIFF on the pendulum at
/// 100 outputs/s and ERROR 1e-6: truncating only the last step left a sliver
/// before each output, and the fixed-coefficient history then changed its
/// step on every step, which kept the order from rising (order 2 and 334
/// steps, error 3.0e-5; with equal steps order 3–5, 107 steps, 5.0e-7).
/// HHT looked 2 steps ahead before for the same reason.
pub const LANDING_EQUAL_STEPS: f64 = 4.0;

/// The fixed-step options (FIXIT, CONSTANT_BDF) land on an output time when
/// the fixed step reaches it up to this rounding (ours).
pub const FIXED_STEP_LANDING_ROUNDOFF: f64 = 1e-9;

/// ADAPTIVITY acts while h < this × HMIN (seeds: INTEGRATOR/ADAPTIVITY).
pub const ADAPTIVITY_HMIN_FACTOR: f64 = 100.0;

/// A step at HMAX up to this relative rounding counts as at the cap (ours).
pub const AT_HMAX_ROUNDOFF: f64 = 1e-12;

// ---- Newton corrector (newton.rs; one for the BDF family and HHT) ----

/// Convergence rate assumed before two corrections were seen: LSODE's
/// initial CRATE = 0.7. HHT used 0.5 before the corrector was shared.
pub const NEWTON_INITIAL_RATE: f64 = 0.7;

/// The rate estimate never falls below this fraction of the previous one
/// (LSODE: CRATE = max(0.2·CRATE, del/delp)).
pub const NEWTON_RATE_MEMORY: f64 = 0.2;

/// Converged when norm·min(1.5·rate, 1) ≤ this (LSODE's test, 1.5·CRATE
/// with the weights' units, against our 0.1 of the tolerance; BCP §5.2
/// uses 0.33 with ρ/(1−ρ)).
pub const NEWTON_RATE_FACTOR: f64 = 1.5;
pub const NEWTON_CONVERGED: f64 = 0.1;

/// A correction this small (in tolerance units) has converged whatever the
/// rate (ours: 1e-3 of the tolerance is below what the error test sees).
pub const NEWTON_NEGLIGIBLE: f64 = 1e-3;

/// Diverging: the rate exceeds 2 from the third iteration on (LSODE:
/// RDIV = 2).
pub const NEWTON_DIVERGENCE_RATE: f64 = 2.0;
pub const NEWTON_DIVERGENCE_ITERATION: usize = 2;

/// PATTERN = F (adaptive Jacobian): a reused Jacobian whose rate reaches
/// this is replaced during the iteration (IDA's RATEMAX = 0.9). HHT used
/// 1.0 before the corrector was shared.
pub const NEWTON_REEVALUATION_RATE: f64 = 0.9;

/// PATTERN = F: a reused Jacobian is replaced when the leading coefficient
/// moved out of this range of the one it was formed with (LSODE's CCMAX =
/// 0.3 relative change, here ×[0.75, 1.33]).
pub const NEWTON_COEFFICIENT_DRIFT: std::ops::RangeInclusive<f64> = 0.75..=1.33;

/// Multiplier corrections that no longer shrink by this rate (fresh
/// Jacobian) or by this one (reused Jacobian) while everything else has
/// converged are noise (HHT's constraints scaled by 1/(βh²) amplify the
/// round-off of Φ; ours, measured on the pendulum at h ≈ 1e-6).
pub const NEWTON_STALL_RATE_FRESH: f64 = 0.5;
pub const NEWTON_STALL_RATE_REUSED: f64 = 0.9;

/// Guard against division by a zero previous norm.
pub const TINY_NORM: f64 = 1e-300;

// ---- GSTIFF step and order selection (Gear / LSODE) ----

/// LSODE's safety factors on the sustainable step ratios at orders k, k−1,
/// k+1 (RHSM = 1/(1.2·dsm^(1/(k+1)) + 1.2e-6), RHDN with 1.3, RHUP with
/// 1.4).
pub const GEAR_SAFETY_SAME: f64 = 1.2;
pub const GEAR_SAFETY_DOWN: f64 = 1.3;
pub const GEAR_SAFETY_UP: f64 = 1.4;
/// Keeps the ratio finite at a zero error estimate (LSODE's 1.2e-6 terms).
pub const GEAR_RATIO_GUARD: f64 = 1e-6;
/// A step change to under 1.1 times the present step is not worth the
/// rescale of a fixed-coefficient history: the step stays, even when the
/// best ratio is below 1 (the step passed its error test). LSODE: no change
/// when RH < 1.1.
pub const GEAR_DEADBAND: f64 = 1.1;
/// After a step or order change GSTIFF holds both for k + 1 steps, so the
/// history settles and the order-raise estimate compares two corrections
/// at one step size (LSODE's IALTH = NQ + 1). Before, every accepted step
/// could change h and every change reset the order-raise count, so on a
/// pendulum landing on 100 outputs/s the order stayed at 2 for a whole run.
pub const GEAR_HOLD_EXTRA_STEPS: usize = 1;
/// When the deadband keeps the step, look again after this many steps
/// (LSODE: IALTH = 3).
pub const GEAR_RECHECK_STEPS: usize = 3;
/// Step ratio bounds after an accepted step (ours: LSODE allows ×10; GSTIFF
/// doubles at most and cuts to 0.2 at most. Measured with the k + 1 hold,
/// ×5 against ×2 on pendulum, four-bar and spring pair at ERROR 1e-2…1e-9:
/// no better in steps, slopes 0.72/0.82/0.57 against 0.86/0.93/0.64).
pub const GEAR_MAX_INCREASE: f64 = 2.0;
pub const GEAR_MIN_DECREASE: f64 = 0.2;

// ---- WSTIFF step and order selection (DASSL, BCP §5.4) ----

/// DASSL's step ratio r = (2·est + 1e-4)^(−1/(k+1)).
pub const DASSL_EST_FACTOR: f64 = 2.0;
pub const DASSL_EST_GUARD: f64 = 1e-4;
/// DASSL doubles the step when r ≥ 2 and otherwise keeps it unless r ≤ 1,
/// then cuts to r within [0.5, 0.9].
pub const DASSL_DOUBLE_AT: f64 = 2.0;
pub const DASSL_MIN_DECREASE: f64 = 0.5;
pub const DASSL_MAX_DECREASE: f64 = 0.9;
/// At order 1 (2 in DASSL's terkm1 test) a lower or higher order is chosen
/// only when its term is below half of order k's (DASSL).
pub const DASSL_ORDER_ONE_MARGIN: f64 = 0.5;
/// Start-up: the step doubles after each step until the first failure
/// (BCP §5.4).
pub const DASSL_STARTUP_GROWTH: f64 = 2.0;

// ---- HHT / NEWMARK step selection ----

/// Safety factor on the step ratio err^(−1/(p+1)) (ours, as DASSL's 0.9;
/// the exponent follows the order: `HhtParams::error_exponent`).
pub const HHT_SAFETY: f64 = 0.9;
/// HHT doubles the step at most (ours).
pub const HHT_MAX_INCREASE: f64 = 2.0;
/// Increases below 25% keep the step (and the factorization, whose
/// step-multiplied terms then stay exact; ours, Remarks 1–2 of the seeds).
pub const HHT_DEADBAND: f64 = 1.25;
/// Floor of the error measure in the step-ratio formula (ours).
pub const HHT_ERROR_FLOOR: f64 = 1e-12;
/// γ = 1/2 − α within this is the second-order condition.
pub const SECOND_ORDER_CONDITION_TOL: f64 = 1e-12;
