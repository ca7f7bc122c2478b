//! Redundant-constraint detection (seeds: Adams removes redundant constraint
//! equations and reports them). Only parts of the model whose joint graph has
//! a closed loop can be redundant, so the rank-revealing step (modified
//! Gram–Schmidt over the equations in model order) runs on those components
//! alone; open chains of any length cost nothing here.

use crate::linear::Block;
use mbsolve_mech::{MechData, System};
use mbsolve_model::Model;
use nalgebra::DVector;

/// Relative size below which an equation's gradient, orthogonal to the
/// ones before it, counts as dependent (structural redundancy). Decided
/// on an assembled configuration (`ic_rank`), where every equation holds
/// to the assembly tolerance (`analysis::POS_TOL`, Adams' IC ERROR
/// default 1e-10), rows dependent on the constraint manifold are
/// dependent there to about that tolerance: RANK_TOL sits a hundred times
/// above it. At an unassembled input the same rows are only as dependent
/// as the input is consistent (a 1e-3 rad tilt leaves them 1e-3
/// independent), which is why the initial conditions decide again after
/// assembling.
pub const RANK_TOL: f64 = 1e-8;

/// The looser threshold of a re-check after an integration failure: near a
/// singular configuration the rows about to become dependent make the
/// corrector fail long before they are dependent to RANK_TOL.
pub const NEAR_SINGULAR_TOL: f64 = 1e-4;

/// A singular-configuration equation is released (reactivated) once its
/// independence (`independence`) exceeds this: twice the threshold that
/// deactivated it, so it does not flip back and forth.
pub const SINGULAR_RELEASE: f64 = 2.0 * NEAR_SINGULAR_TOL;

/// The release threshold of a singular-configuration equation held by a
/// branch row (`BranchRow`) meanwhile. The branch is held, so the release
/// can wait until the true rows are conditioned for Newton at tight
/// ERROR: rows that become independent together are jointly worse
/// conditioned than each alone (40 chained loops: ≈ 0.077σ for row
/// independence σ), and the corrector failed at every step size after a
/// release at 2e-4 and 2e-3 (docs/parallelogram-experiments.md E3, E4). The branch row's
/// linearization error up to 1e-2 cost 1.05e-8 m there.
pub const BRANCH_RELEASE: f64 = 1e-2;

/// The threshold of the rank re-check after an integration failure in a
/// formulation that holds branch rows (instead of NEAR_SINGULAR_TOL):
/// approaching a singular configuration, the corrector of 40 chained
/// loops at ERROR 1e-9 failed at every step size while each closure row
/// was still ≈ 3e-3 independent (docs/parallelogram-experiments.md E5). Half BRANCH_RELEASE,
/// so a row does not flip back and forth.
pub const BRANCH_ENTRY: f64 = 0.5 * BRANCH_RELEASE;

/// Equations found redundant at `q` (RANK_TOL), in model order; `model`
/// says which motions act on joints. Equations with `off[k]` (deactivated
/// elements) are left out, as if the element were not in the model.
pub fn find_redundant(sys: &System, model: &Model, off: &[bool], q: &[f64], t: f64) -> Vec<usize> {
    find_redundant_with(sys, model, off, q, t, RANK_TOL)
}

/// `find_redundant` with the relative threshold `rel_tol`.
pub fn find_redundant_with(
    sys: &System,
    model: &Model,
    off: &[bool],
    q: &[f64],
    t: f64,
    rel_tol: f64,
) -> Vec<usize> {
    let nb = sys.nb();
    let ground = nb;
    // Union-find over bodies + ground, joined by every equation's bodies.
    let mut parent: Vec<usize> = (0..=nb).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let node = |b: Option<usize>| b.unwrap_or(ground);
    let mut joint_edges = Vec::new();
    for (k, e) in sys.equations.iter().enumerate() {
        let b = e.bodies();
        if off.get(k) == Some(&true) || matches!(e.prim, mbsolve_mech::Primitive::Normalize { .. })
        {
            continue;
        }
        // One graph edge per element (joint or motion), not per equation.
        if joint_edges.iter().any(|(el, _, _)| *el == e.element) {
            continue;
        }
        joint_edges.push((e.element, node(b[0]), node(b[1])));
        // A row over more than two bodies joins its extra pair too.
        if let Some(x) = e.extra_bodies() {
            joint_edges.push((e.element, node(b[0]), node(x[0])));
            joint_edges.push((e.element, node(x[0]), node(x[1])));
        }
        let _ = k;
    }
    for &(_, a, b) in &joint_edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra] = rb;
        }
    }
    let mut redundant = Vec::new();
    let roots: Vec<usize> = (0..=nb).map(|x| find(&mut parent, x)).collect();
    let mut seen = std::collections::HashSet::new();
    for root in roots.iter().copied() {
        if !seen.insert(root) {
            continue;
        }
        let nodes = roots.iter().filter(|r| **r == root).count();
        let edges = joint_edges
            .iter()
            .filter(|(_, a, _)| roots[*a] == root)
            .count();
        // Motions on joints add an edge without a loop; count them out.
        // (A marker motion is an element of its own: it can close a loop.)
        let joint_motion = |el: &mbsolve_model::ElementRef| match el {
            mbsolve_model::ElementRef::Motion(id) => model
                .motions
                .iter()
                .any(|m| m.id == *id && m.joint().is_some()),
            _ => false,
        };
        let motions = joint_edges
            .iter()
            .filter(|(el, a, _)| roots[*a] == root && joint_motion(el))
            .count();
        if edges - motions < nodes {
            continue; // a tree: its equations are independent
        }
        redundant.extend(analyse_component(sys, off, q, t, &roots, root, rel_tol));
    }
    redundant.sort();
    redundant
}

fn analyse_component(
    sys: &System,
    off: &[bool],
    q: &[f64],
    t: f64,
    roots: &[usize],
    root: usize,
    rel_tol: f64,
) -> Vec<usize> {
    let nb = sys.nb();
    let bodies: Vec<usize> = (0..nb).filter(|b| roots[*b] == root).collect();
    let col_of = |g: usize| {
        bodies
            .iter()
            .position(|b| *b == g / 7)
            .map(|p| 7 * p + g % 7)
    };
    let ncols = 7 * bodies.len();
    let mut basis: Vec<DVector<f64>> = Vec::new();
    let mut out = Vec::new();
    // Normalizations first (never redundant), then joints and motions in order.
    let mut order: Vec<usize> = (0..sys.neq())
        .filter(|k| {
            matches!(
                sys.equations[*k].prim,
                mbsolve_mech::Primitive::Normalize { .. }
            )
        })
        .collect();
    order.extend((0..sys.neq()).filter(|k| {
        !matches!(
            sys.equations[*k].prim,
            mbsolve_mech::Primitive::Normalize { .. }
        )
    }));
    for k in order {
        let eqb = sys.equations[k].bodies();
        let in_comp = eqb
            .iter()
            .chain(sys.equations[k].extra_bodies().iter().flatten())
            .flatten()
            .any(|b| roots[*b] == root);
        if !in_comp || off.get(k) == Some(&true) {
            continue;
        }
        let v = sys.equation::<mbsolve_mech::local::NoHess>(k, q, t);
        let mut row = DVector::zeros(ncols);
        for l in 0..14 {
            if let Some(g) = mbsolve_mech::system::global_index(&eqb, l) {
                if let Some(c) = col_of(g) {
                    row[c] = v.s.grad[l];
                }
            }
        }
        sys.for_extra_gradient(k, q, t, true, |g, d| {
            if let Some(c) = col_of(g) {
                row[c] += d;
            }
        });
        let n0 = row.norm();
        if n0 == 0.0 {
            out.push(k);
            continue;
        }
        for _ in 0..2 {
            for b in &basis {
                let d = b.dot(&row);
                row.axpy(-d, b, 1.0);
            }
        }
        let nr = row.norm();
        if nr <= rel_tol * n0 {
            out.push(k);
        } else {
            basis.push(row / nr);
        }
    }
    out
}

/// Of the equations `redundant` at q, those dependent only AT (or near) q:
/// at a nearby configuration q' — q moved by a small generic displacement
/// and brought back onto the manifold of the other equations — they are
/// independent to RANK_TOL. They mark a singular configuration (a
/// bifurcation such as a flat parallelogram, where the rank drops at
/// isolated points), not structural redundancy (rows implied by the others
/// everywhere on the manifold, like the out-of-plane rows of a planar
/// loop). While such a row is inactive the motion can leave its branch
/// unnoticed by the residual (which is quadratic in the crossed-branch
/// deviation), so it is reactivated as soon as it is independent again.
pub fn singular_only(
    sys: &System,
    data: &MechData,
    model: &Model,
    q: &[f64],
    t: f64,
    redundant: &[usize],
) -> Vec<usize> {
    if redundant.is_empty() {
        return Vec::new();
    }
    let mut probe = data.clone();
    for k in 0..sys.neq() {
        probe.active[k] = redundant.binary_search(&k).is_err();
    }
    // A deterministic, generic displacement (no symmetry with the model's
    // coordinates): the golden-ratio sequence in [-1, 1].
    let q1: Vec<f64> = q
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = ((i as f64 + 1.0) * 0.618_033_988_749_895).fract();
            v + SINGULAR_PROBE * (2.0 * x - 1.0)
        })
        .collect();
    let Ok(q1) = crate::analysis::assemble_positions(sys, &mut probe, t, &q1) else {
        return Vec::new();
    };
    let still = find_redundant(sys, model, &data.off, &q1, t);
    redundant
        .iter()
        .copied()
        .filter(|k| still.binary_search(k).is_err())
        .collect()
}

/// Size of the probe displacement of `singular_only` (model units): large
/// against NEAR_SINGULAR_TOL so a bifurcation's rows separate, small
/// against any link.
const SINGULAR_PROBE: f64 = 1e-2;

/// How independent equation k is of the active equations at q: the norm
/// of its gradient's component orthogonal to theirs, relative to the
/// gradient (0 = dependent, 1 = orthogonal). One saddle-point solve
/// [I Aᵀ; A 0][r; x] = [∇Φ_k; 0] with A the active rows: r is the
/// component of ∇Φ_k in the null space of A. `factored` says whether an
/// earlier call at the same (q, t) factored the matrix (it is reused, and
/// set once a call factors it): the equations of one singular
/// configuration are measured with one factorization (40 per accepted
/// step for 40 loops before).
pub fn independence(
    sys: &System,
    probe: &mut crate::formulation::SingularProbe,
    q: &[f64],
    t: f64,
    k: usize,
    factored: &mut bool,
) -> f64 {
    let crate::formulation::SingularProbe {
        data,
        kkt,
        grad,
        zeros,
    } = probe;
    grad.fill(0.0);
    add_gradient(sys, k, q, t, 1.0, grad);
    let n0 = grad.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n0 == 0.0 {
        return 0.0;
    }
    let solved = if *factored {
        kkt.solve_again(grad, zeros)
    } else {
        let solved = kkt.solve(sys, data, q, t, Block::Identity, grad, zeros);
        *factored = solved.is_ok();
        solved
    };
    match solved {
        Ok((r, _)) => r.iter().map(|x| x * x).sum::<f64>().sqrt() / n0,
        Err(_) => 0.0,
    }
}

/// The linear continuation of a singular-configuration equation k while it
/// is inactive: Ψ(q) = g·(q − q₀) = 0 and its velocity form g·u = 0, with
/// g the normal of the branch the motion is on. At a bifurcation Φ_k,
/// restricted to the manifold of the other equations, is a quadratic form
/// with two real linear factors (one per branch), so Φ_k itself — or its
/// gradient — cannot tell the branches apart, and with Φ_k switched off
/// the crossed mode is free (a row of 40 flat parallelograms drifted
/// 2.3e-5 m off its branch by t = 8e-3 that way, docs/parallelogram-experiments.md E1). The
/// normal comes from Φ̃_k = Φ_k − Σ_j μ_j Φ_j (μ: the dependence of ∇Φ_k
/// on the active rows at q₀, so ∇Φ̃_k(q₀) = 0 and Φ̃_k equals Φ_k on the
/// manifold): g = H̃ d, H̃ its Hessian, d the branch tangent, because
/// ½H̃(v, v) = (n·v)(m·v) and n·d = 0 leave H̃(v, d) ∝ n·v. H̃d is taken as
/// the central difference of ∇Φ̃_k between the two points q₊, q₋ of the
/// branch at ±BRANCH_PROBE along the motion (the velocity, or the
/// acceleration from rest), each brought onto the full manifold (the
/// singular rows too), which lands them on the branch the motion is
/// nearest to. g spans the bodies of the rows in the dependence only.
#[derive(Clone, Debug)]
pub struct BranchRow {
    /// The inactive equation this row stands for.
    pub k: usize,
    /// Global coordinates and the gradient g there.
    pub cols: Vec<usize>,
    pub grad: Vec<f64>,
    /// q₀ at those coordinates (Ψ(q₀) = 0).
    pub at: Vec<f64>,
}

impl BranchRow {
    /// Ψ(q) = g·(q − q₀).
    pub fn value(&self, q: &[f64]) -> f64 {
        self.cols
            .iter()
            .zip(&self.grad)
            .zip(&self.at)
            .map(|((&c, g), q0)| g * (q[c] - q0))
            .sum()
    }
    /// Ψ_q u = g·u.
    pub fn rate(&self, u: &[f64]) -> f64 {
        self.cols
            .iter()
            .zip(&self.grad)
            .map(|(&c, g)| g * u[c])
            .sum()
    }
}

/// Distance (model units) of the two branch points either side of q₀:
/// the normal's error is O(BRANCH_PROBE²) (central difference), and the
/// start must stay nearer the followed branch than the crossing one.
const BRANCH_PROBE: f64 = 1e-3;

/// Below this speed (model units per second) the direction of motion is
/// the acceleration's, as when released from rest at the bifurcation.
const BRANCH_MIN_SPEED: f64 = 1e-6;

/// The branch rows of the equations inactive in `data` only because the
/// configuration (q, u, a at t) is singular (`MechData::singular`). An
/// equation whose branch cannot be found (no motion, or a probe point that
/// does not assemble) gets none and stays free, as before.
pub fn branch_rows(
    sys: &System,
    data: &MechData,
    q: &[f64],
    u: &[f64],
    a: &[f64],
    t: f64,
) -> Vec<BranchRow> {
    let singular: Vec<usize> = (0..sys.neq())
        .filter(|&k| !data.active[k] && data.singular[k] && !data.equation_is_off(k))
        .collect();
    if singular.is_empty() {
        return Vec::new();
    }
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let dir = if norm(u) > BRANCH_MIN_SPEED { u } else { a };
    let size = norm(dir);
    if !(size > 0.0 && size.is_finite()) {
        return Vec::new();
    }
    let mut full = data.clone();
    for &k in &singular {
        full.active[k] = true;
    }
    let probe = |sign: f64, full: &mut MechData| {
        let q1: Vec<f64> = q
            .iter()
            .zip(dir)
            .map(|(v, d)| v + sign * BRANCH_PROBE * d / size)
            .collect();
        crate::analysis::assemble_positions(sys, full, t, &q1).ok()
    };
    let (Some(plus), Some(minus)) = (probe(1.0, &mut full), probe(-1.0, &mut full)) else {
        return Vec::new();
    };
    let span = 0.5
        * norm(
            &plus
                .iter()
                .zip(&minus)
                .map(|(a, b)| a - b)
                .collect::<Vec<_>>(),
        );
    let mut kkt = crate::linear::Kkt::new(sys);
    let mut on = data.clone();
    let n = sys.nq();
    let zeros = vec![0.0; sys.neq()];
    let mut out = Vec::new();
    let mut factored = false;
    for &k in &singular {
        let mut grad = vec![0.0; n];
        add_gradient(sys, k, q, t, 1.0, &mut grad);
        // ∇Φ_k = Σ μ_j ∇Φ_j over the active rows (+ a residual of the
        // size of the independence, below BRANCH_ENTRY).
        let solved = if factored {
            kkt.solve_again(&grad, &zeros)
        } else {
            kkt.solve(sys, &mut on, q, t, Block::Identity, &grad, &zeros)
        };
        factored = solved.is_ok();
        let Ok((_, mu)) = solved else {
            continue;
        };
        let big = mu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut g = vec![0.0; n];
        for (j, w) in std::iter::once((k, 1.0)).chain(
            mu.iter()
                .enumerate()
                .filter(|(j, v)| data.active[*j] && v.abs() > 1e-12 * big)
                .map(|(j, v)| (j, -v)),
        ) {
            add_gradient(sys, j, &plus, t, w / (2.0 * span), &mut g);
            add_gradient(sys, j, &minus, t, -w / (2.0 * span), &mut g);
        }
        let gmax = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !(gmax > 0.0 && gmax.is_finite()) {
            continue;
        }
        let cols: Vec<usize> = (0..n).filter(|&c| g[c].abs() > 1e-14 * gmax).collect();
        out.push(BranchRow {
            k,
            grad: cols.iter().map(|&c| g[c]).collect(),
            at: cols.iter().map(|&c| q[c]).collect(),
            cols,
        });
    }
    out
}

/// grad += w·∇Φ_k(q) at the global coordinates.
fn add_gradient(sys: &System, k: usize, q: &[f64], t: f64, w: f64, grad: &mut [f64]) {
    let v = sys.equation::<mbsolve_mech::local::NoHess>(k, q, t);
    let bodies = sys.equations[k].bodies();
    for l in 0..14 {
        if let Some(g) = mbsolve_mech::system::global_index(&bodies, l) {
            grad[g] += w * v.s.grad[l];
        }
    }
    sys.for_extra_gradient(k, q, t, true, |g, d| grad[g] += w * d);
}
