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
/// ones before it, counts as dependent (structural redundancy).
pub const RANK_TOL: f64 = 1e-8;

/// The looser threshold of a re-check after an integration failure: near a
/// singular configuration the rows about to become dependent make the
/// corrector fail long before they are dependent to RANK_TOL.
pub const NEAR_SINGULAR_TOL: f64 = 1e-4;

/// A singular-configuration equation is released (reactivated) once its
/// independence (`independence`) exceeds this: twice the threshold that
/// deactivated it, so it does not flip back and forth.
pub const SINGULAR_RELEASE: f64 = 2.0 * NEAR_SINGULAR_TOL;

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
        let in_comp = eqb.iter().flatten().any(|b| roots[*b] == root);
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
/// component of ∇Φ_k in the null space of A.
pub fn independence(
    sys: &System,
    probe: &mut crate::formulation::SingularProbe,
    q: &[f64],
    t: f64,
    k: usize,
) -> f64 {
    let crate::formulation::SingularProbe {
        data,
        kkt,
        grad,
        zeros,
    } = probe;
    grad.fill(0.0);
    let v = sys.equation::<mbsolve_mech::local::NoHess>(k, q, t);
    let bodies = sys.equations[k].bodies();
    for l in 0..14 {
        if let Some(g) = mbsolve_mech::system::global_index(&bodies, l) {
            grad[g] = v.s.grad[l];
        }
    }
    let n0 = grad.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n0 == 0.0 {
        return 0.0;
    }
    match kkt.solve(sys, data, q, t, Block::Identity, grad, zeros) {
        Ok((r, _)) => r.iter().map(|x| x * x).sum::<f64>().sqrt() / n0,
        Err(_) => 0.0,
    }
}
