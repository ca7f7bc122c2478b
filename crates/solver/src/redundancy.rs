//! Redundant-constraint detection (seeds: Adams removes redundant constraint
//! equations and reports them). Only parts of the model whose joint graph has
//! a closed loop can be redundant, so the rank-revealing step (modified
//! Gram–Schmidt over the equations in model order) runs on those components
//! alone; open chains of any length cost nothing here.

use mbsolve_mech::System;
use mbsolve_model::Model;
use nalgebra::DVector;

/// Equations found redundant at `q`, in model order; `model` says which
/// motions act on joints. Equations with `off[k]` (deactivated elements)
/// are left out, as if the element were not in the model.
pub fn find_redundant(sys: &System, model: &Model, off: &[bool], q: &[f64], t: f64) -> Vec<usize> {
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
        redundant.extend(analyse_component(sys, off, q, t, &roots, root));
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
        if nr <= 1e-8 * n0 {
            out.push(k);
        } else {
            basis.push(row / nr);
        }
    }
    out
}
