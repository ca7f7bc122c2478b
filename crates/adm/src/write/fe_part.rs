//! FE_PART in `write_adm`: the FE part is written back as FE_PART and
//! MATERIAL statements (COORDINATES in ground, so no QG/REULER), markers on
//! its nodes as `MARKER/id, FE_PART = id, NODE_LABEL = n` with their ground
//! frame; the node bodies, element BEAMs and element markers it was built
//! into (mbsolve_model::fe_part), and a 2D beam's PLANAR joints and their
//! markers, are left out, since reading the FE_PART back builds them again.

use super::num;
use mbsolve_model::{ElementRef, Force, Id, Marker, Model, Part};
use nalgebra::Matrix3;
use std::fmt::Write as _;

/// Body-fixed 3-1-3 angles (ψ, θ, φ) of `r` = Rz(ψ) Rx(θ) Rz(φ); at
/// θ = 0 or π only ψ ± φ is defined, and φ = 0 is taken.
fn euler313_angles(r: &Matrix3<f64>) -> [f64; 3] {
    let theta = r[(2, 2)].clamp(-1.0, 1.0).acos();
    if theta.sin().abs() > 1e-12 {
        [
            r[(0, 2)].atan2(-r[(1, 2)]),
            theta,
            r[(2, 0)].atan2(r[(2, 1)]),
        ]
    } else {
        [r[(1, 0)].atan2(r[(0, 0)]), theta, 0.0]
    }
}

/// Whether part `p` is an FE part's node body.
pub(super) fn is_node_body(m: &Model, p: &Part) -> bool {
    m.fe_parts
        .iter()
        .any(|fe| fe.nodes.iter().any(|n| n.body == p.id))
}

/// Whether `f` is an FE part's element BEAM.
pub(super) fn is_element(m: &Model, f: &Force) -> bool {
    matches!(f.element(), ElementRef::Beam(id) if m.fe_parts.iter().any(|fe| fe.elements.contains(&id)))
}

/// Whether JOINT/`id` holds a 2D FE part's node in its plane.
pub(super) fn is_plane_joint(m: &Model, id: Id) -> bool {
    m.fe_parts.iter().any(|fe| fe.plane_joints.contains(&id))
}

/// The element markers of every FE part (the I and J of its BEAMs).
fn element_markers(m: &Model) -> Vec<Id> {
    m.forces
        .iter()
        .filter(|f| is_element(m, f))
        .flat_map(|f| [f.i, f.j])
        .collect()
}

/// For a marker on a node body: Some(its statement), or Some("") for an
/// element marker (not written); None for any other marker.
pub(super) fn marker(m: &Model, k: &Marker) -> Option<String> {
    if m.fe_parts.iter().any(|fe| fe.plane_markers.contains(&k.id)) {
        return Some(String::new());
    }
    let (fe, node) = m
        .fe_parts
        .iter()
        .find_map(|fe| fe.nodes.iter().find(|n| n.body == k.part).map(|n| (fe, n)))?;
    if element_markers(m).contains(&k.id) {
        return Some(String::new());
    }
    let g = k.placement.in_frame(&node.placement);
    let a = euler313_angles(&g.rotation);
    Some(format!(
        "MARKER/{}, FE_PART = {}, NODE_LABEL = {}, QP = {}, {}, {}, REULER = {}, {}, {}",
        k.id,
        fe.id,
        node.label,
        num(g.origin.x),
        num(g.origin.y),
        num(g.origin.z),
        num(a[0]),
        num(a[1]),
        num(a[2])
    ))
}

/// The FE_PART statements and the MATERIALs they read (each once).
pub(super) fn statements(m: &Model) -> String {
    let mut o = String::new();
    let mut materials: Vec<Id> = Vec::new();
    for fe in &m.fe_parts {
        let labels: Vec<String> = fe.nodes.iter().map(|n| n.label.to_string()).collect();
        let coordinates: Vec<String> = fe
            .nodes
            .iter()
            .map(|n| {
                let p = n.placement.origin;
                let a = euler313_angles(&n.placement.rotation);
                [p.x, p.y, p.z, a[0], a[1], a[2]]
                    .iter()
                    .fold(n.label.to_string(), |s, v| s + ", " + &num(*v))
            })
            .collect();
        let sections: Vec<String> = fe
            .nodes
            .iter()
            .map(|n| {
                let s = n.section;
                [s.area, s.iyy, s.izz, s.iyz, s.jxx]
                    .iter()
                    .fold(n.label.to_string(), |t, v| t + ", " + &num(*v))
            })
            .collect();
        let _ = writeln!(
            o,
            "FE_PART/{}, TYPE = {}, NODE_LABELS = {}\n, COORDINATES = {}\n, SECTION = {}\n, MATERIAL = {}, CRATIOK = {}",
            fe.id,
            fe.plane.map_or("3DBEAM", |p| p.type_name()),
            labels.join(", "),
            coordinates.join("\n, "),
            sections.join("\n, "),
            fe.material.id,
            num(fe.cratiok)
        );
        if !materials.contains(&fe.material.id) {
            materials.push(fe.material.id);
            let mat = fe.material;
            let _ = writeln!(
                o,
                "MATERIAL/{}, DENSITY = {}, YOUNGS_MODULUS = {}, POISSONS_RATIO = {}",
                mat.id,
                num(mat.density),
                num(mat.youngs_modulus),
                num(mat.poissons_ratio)
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::euler313_angles;
    use mbsolve_model::euler313;

    #[test]
    fn euler313_angles_invert_euler313() {
        for (a, b, c) in [
            (0.3, 0.4, -0.2),
            (6.1134, 0.0, 0.0),
            (-2.0, 3.0, 1.0),
            (1.0, std::f64::consts::PI, 0.0),
        ] {
            let r = euler313(a, b, c);
            let e = euler313_angles(&r);
            assert!(
                (euler313(e[0], e[1], e[2]) - r).norm() < 1e-12,
                "{a} {b} {c}"
            );
        }
    }
}
