//! FE_PART, TYPE = 3DBEAM (and the 2D beams): a beam with distributed mass, given by its nodes
//! (Adams Solver FE_PART, FE_NODE, SECTION and MATERIAL statements).
//!
//! Adams documents what the element must do: a "fully geometrically
//! nonlinear" beam with stretching, shearing, bending and torsion, whose
//! nodes lie on the neutral axis with their x axes tangent to it, with
//! section properties (area, Iyy, Izz, Iyz, Jxx) per node and a "symmetric,
//! consistent mass matrix which remains constant". Its element is MSC's
//! adaptation of the Absolute Nodal Coordinate Formulation, whose 3D
//! equations are not published. The element here is therefore OUR design,
//! built from parts mbsolve already has:
//!
//! - **Nodes are bodies.** Each node becomes a rigid body with six degrees
//!   of freedom, its frame at the node (position and 3-1-3 angles of
//!   COORDINATES, in the FE_PART's QG/REULER frame). Markers on the node
//!   (MARKER, FE_PART, NODE_LABEL) are markers on that body.
//! - **Elements are co-rotational beams** between consecutive nodes of
//!   NODE_LABELS: the BEAM FORMULATION = NONLINEAR law (mbsolve_mech
//!   beam_nl), which is exact for rigid motions at any angle and carries
//!   Euler–Bernoulli stiffness in a frame that follows the element. Each
//!   element's undeformed shape is straight along the chord of its two
//!   nodes; the section axes are node y (averaged over the two nodes and
//!   made normal to the chord) and its cross product, so a curved FE part
//!   is a polygon whose nodes carry the initial curvature, stress-free.
//! - **Sections.** An element takes the mean of its two nodes' sections
//!   (area, Iyy, Izz, Jxx): the midpoint value of a linear taper. Iyz must
//!   be 0 (principal section axes): the element has no coupled bending.
//!   Shear flexibility is left out (no shear area is given), so bending is
//!   Euler–Bernoulli, which is what a slender FE part is.
//! - **Material.** E = YOUNGS_MODULUS, G = E/(2(1 + ν)) from
//!   POISSONS_RATIO; torsional stiffness G·Jxx/L.
//! - **Mass is lumped, not consistent** (Adams: consistent): each element
//!   gives each of its end nodes half its mass ρAL, and rotary inertia
//!   ρAL³/78 about the two bending axes (the HRZ diagonal of the cubic
//!   consistent matrix: 4L²/420 scaled by (ρAL/2)/(156/420)), plus the
//!   section's own rotary inertia ρ·Iyy·L/2, ρ·Izz·L/2 and ρ(Iyy+Izz)L/2
//!   about the axis. mbsolve's bodies are rigid bodies whose mass matrix
//!   is block-diagonal per body; a consistent matrix would couple two
//!   bodies' accelerations, which the system assembly does not do. The
//!   cost is frequency accuracy: a cantilever's first bending frequency is
//!   0.5 % low at 10 elements, 0.2 % at 16 (O(h²); consistent mass is
//!   O(h⁴)).
//! - **2D beams** (TYPE = 2DBEAMXY, YZ, ZX; Adams: "special cases of
//!   3DBEAM when the beam has a planar behavior", which "may have an
//!   offset") are the same element with each node held in its plane by a
//!   PLANAR joint to ground ([`hold_in_plane`]): in-plane stretching and
//!   bending only.
//! - **Damping.** CRATIOK is the stiffness-proportional damping ratio:
//!   C = CRATIOK·K, as BEAM's CRATIO (Adams multiplies the stiffness matrix
//!   by CRATIO). A mode of circular frequency ω then has the damping ratio
//!   ζ = CRATIOK·ω/2.

use crate::{
    BeamFormulation, BeamSection, Elastic, ElasticDamping, Force, ForceKind, Id, Inertia, Joint,
    JointKind, Marker, Part, Placement,
};
use nalgebra::{Matrix3, Vector3};

/// TYPE = 2DBEAMXY, 2DBEAMYZ, 2DBEAMZX: the plane (parallel to two
/// global axes) the beam's centreline stays in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FePlane {
    Xy,
    Yz,
    Zx,
}

impl FePlane {
    /// The TYPE keyword.
    pub fn type_name(self) -> &'static str {
        match self {
            FePlane::Xy => "2DBEAMXY",
            FePlane::Yz => "2DBEAMYZ",
            FePlane::Zx => "2DBEAMZX",
        }
    }

    /// Axes (columns) whose z is the plane's normal: ground axes turned
    /// so that the PLANAR joints' z axes are normal to the plane.
    fn frame(self) -> Matrix3<f64> {
        match self {
            FePlane::Xy => Matrix3::identity(),
            FePlane::Yz => Matrix3::from_columns(&[Vector3::y(), Vector3::z(), Vector3::x()]),
            FePlane::Zx => Matrix3::from_columns(&[Vector3::z(), Vector3::x(), Vector3::y()]),
        }
    }
}

/// A node's section (FE_PART SECTION = label, area, Iyy, Izz, Iyz, Jxx, or
/// the SECTION statement its FE_NODE names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeSection {
    pub area: f64,
    /// Second moment about the node's y axis (bending in its x-z plane).
    pub iyy: f64,
    /// Second moment about the node's z axis (bending in its x-y plane).
    pub izz: f64,
    /// Product moment: must be 0 (principal axes).
    pub iyz: f64,
    /// Torsional constant.
    pub jxx: f64,
}

/// MATERIAL: DENSITY, YOUNGS_MODULUS, POISSONS_RATIO (isotropic elastic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeMaterial {
    pub id: Id,
    pub density: f64,
    pub youngs_modulus: f64,
    pub poissons_ratio: f64,
}

impl FeMaterial {
    /// G = E/(2(1 + ν)), isotropic.
    pub fn shear_modulus(&self) -> f64 {
        self.youngs_modulus / (2.0 * (1.0 + self.poissons_ratio))
    }
}

/// One node as the FE_PART gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct FeNodeInput {
    pub label: Id,
    /// Node frame in ground (x tangent to the neutral axis).
    pub placement: Placement,
    pub section: FeSection,
}

/// One node of a built FE part.
#[derive(Clone, Debug, PartialEq)]
pub struct FeNode {
    pub label: Id,
    /// The `Model::parts` id of the node's body.
    pub body: Id,
    /// Initial node frame in ground.
    pub placement: Placement,
    pub section: FeSection,
}

/// The FE_PART as read, with the ids of what it was built into (node
/// bodies, element BEAMs and their markers), for messages and writers.
#[derive(Clone, Debug, PartialEq)]
pub struct FePart {
    pub id: Id,
    pub nodes: Vec<FeNode>,
    pub material: FeMaterial,
    pub cratiok: f64,
    /// The element forces' ids (BEAM space), node k to node k + 1.
    pub elements: Vec<Id>,
    /// A 2D beam's plane (None: 3DBEAM).
    pub plane: Option<FePlane>,
    /// A 2D beam's PLANAR joints (one per node, to ground) and their
    /// markers.
    pub plane_joints: Vec<Id>,
    pub plane_markers: Vec<Id>,
}

/// The next free ids in the PART, MARKER and BEAM spaces.
#[derive(Clone, Copy, Debug)]
pub struct FeIds {
    pub part: Id,
    pub marker: Id,
    pub beam: Id,
}

/// What an FE part adds to the model.
#[derive(Clone, Debug)]
pub struct FeBuilt {
    pub part: FePart,
    pub bodies: Vec<Part>,
    pub markers: Vec<Marker>,
    pub forces: Vec<Force>,
    /// A 2D beam's PLANAR joints.
    pub joints: Vec<Joint>,
}

/// Positive and finite, or the reason.
fn positive(what: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{what} must be positive, found {}",
            crate::readable(v)
        ))
    }
}

fn check_section(label: Id, s: &FeSection) -> Result<(), String> {
    for (what, v) in [
        ("area", s.area),
        ("Iyy", s.iyy),
        ("Izz", s.izz),
        ("Jxx", s.jxx),
    ] {
        positive(&format!("node {label}'s section {what}"), v)?;
    }
    if s.iyz != 0.0 {
        return Err(format!(
            "node {label}'s section has Iyz = {}: only principal section axes (Iyz = 0) are supported; turn the node about its x axis onto the principal axes",
            crate::readable(s.iyz)
        ));
    }
    Ok(())
}

fn mean(a: &FeSection, b: &FeSection) -> FeSection {
    FeSection {
        area: 0.5 * (a.area + b.area),
        iyy: 0.5 * (a.iyy + b.iyy),
        izz: 0.5 * (a.izz + b.izz),
        iyz: 0.5 * (a.iyz + b.iyz),
        jxx: 0.5 * (a.jxx + b.jxx),
    }
}

/// Build FE_PART/`id` (TYPE = 3DBEAM) from its nodes in NODE_LABELS order:
/// node bodies with lumped mass, co-rotational BEAMs between consecutive
/// nodes (see the module documentation). `ids` is advanced past the ids
/// used. Errors say what is wrong in the FE_PART's terms.
pub fn build_fe_part(
    id: Id,
    nodes: &[FeNodeInput],
    material: FeMaterial,
    cratiok: f64,
    ids: &mut FeIds,
) -> Result<FeBuilt, String> {
    if nodes.len() < 2 {
        return Err(format!(
            "an FE part needs at least 2 nodes, found {}",
            nodes.len()
        ));
    }
    positive("MATERIAL DENSITY", material.density)?;
    positive("MATERIAL YOUNGS_MODULUS", material.youngs_modulus)?;
    let nu = material.poissons_ratio;
    if !(nu.is_finite() && nu > -1.0 && nu < 0.5) {
        return Err(format!(
            "MATERIAL POISSONS_RATIO must lie in (-1, 0.5), found {}",
            crate::readable(nu)
        ));
    }
    if !(cratiok.is_finite() && cratiok >= 0.0) {
        return Err(format!(
            "CRATIOK must be 0 or positive, found {}",
            crate::readable(cratiok)
        ));
    }
    for (k, n) in nodes.iter().enumerate() {
        if nodes[..k].iter().any(|m| m.label == n.label) {
            return Err(format!("node {} is listed twice", n.label));
        }
        let finite = n.placement.origin.iter().all(|v| v.is_finite())
            && n.placement.rotation.iter().all(|v| v.is_finite());
        if !finite {
            return Err(format!("node {}'s coordinates are not finite", n.label));
        }
        check_section(n.label, &n.section)?;
    }
    let (rho, e, g) = (
        material.density,
        material.youngs_modulus,
        material.shear_modulus(),
    );
    let mut mass = vec![0.0; nodes.len()];
    let mut inertia = vec![Matrix3::<f64>::zeros(); nodes.len()];
    let mut markers = Vec::new();
    let mut forces = Vec::new();
    let mut elements = Vec::new();
    // Node bodies take PART ids below point-mass keys; the element BEAMs
    // and their two markers each need ids too.
    let count = nodes.len() as u64;
    if ids.part as u64 + count > crate::point_mass::MAX_ID as u64
        || ids.marker as u64 + 2 * count > Id::MAX as u64
        || ids.beam as u64 + count > Id::MAX as u64
    {
        return Err("no free PART, MARKER or BEAM ids are left for the FE part's nodes and elements (ids are taken after the largest in the dataset)".into());
    }
    let bodies_ids: Vec<Id> = (0..nodes.len()).map(|k| ids.part + k as Id).collect();
    ids.part += nodes.len() as Id;
    for k in 0..nodes.len() - 1 {
        let (a, b) = (&nodes[k], &nodes[k + 1]);
        let d = b.placement.origin - a.placement.origin;
        let length = d.norm();
        let scale = a.placement.origin.norm().max(b.placement.origin.norm());
        if length <= 1e-12 * scale || length == 0.0 {
            return Err(format!("nodes {} and {} coincide", a.label, b.label));
        }
        let e1 = d / length;
        // Adams: each node's x axis is tangent to the neutral axis. A
        // chord more than 45° off a node's x axis is a mislabelled node.
        for n in [a, b] {
            if n.placement.rotation.column(0).dot(&e1) < std::f64::consts::FRAC_1_SQRT_2 {
                return Err(format!(
                    "node {}'s x axis is more than 45° off the beam from node {} to node {} (a node's x axis must be tangent to the neutral axis)",
                    n.label, a.label, b.label
                ));
            }
        }
        let y_mean = 0.5 * (a.placement.rotation.column(1) + b.placement.rotation.column(1));
        let y = y_mean - e1 * e1.dot(&y_mean);
        if y.norm() < 1e-6 {
            return Err(format!(
                "nodes {} and {} are turned about 180° apart about the beam (their y axes cancel)",
                a.label, b.label
            ));
        }
        let e2 = y.normalize();
        let e3 = e1.cross(&e2);
        let frame = Matrix3::from_columns(&[e1, e2, e3]);
        let s = mean(&a.section, &b.section);
        let section = BeamSection {
            length,
            ixx: s.jxx,
            iyy: s.iyy,
            izz: s.izz,
            area: s.area,
            asy: 0.0,
            asz: 0.0,
            emodulus: e,
            gmodulus: g,
        };
        // J at node a, I at node b, both along the chord: the BEAM's
        // undeformed state (I at LENGTH along J's x, same axes).
        let j = ids.marker;
        let i = ids.marker + 1;
        ids.marker += 2;
        markers.push(Marker {
            id: j,
            part: bodies_ids[k],
            placement: Placement::new(Vector3::zeros(), a.placement.rotation.transpose() * frame),
        });
        markers.push(Marker {
            id: i,
            part: bodies_ids[k + 1],
            placement: Placement::new(Vector3::zeros(), b.placement.rotation.transpose() * frame),
        });
        let beam = Elastic::beam(section, ElasticDamping::Ratio(cratiok))
            .with_formulation(BeamFormulation::Nonlinear);
        forces.push(Force {
            id: ids.beam,
            i,
            j,
            kind: ForceKind::Elastic(Box::new(beam)),
        });
        elements.push(ids.beam);
        ids.beam += 1;
        // Lumped mass: half to each end, HRZ rotary inertia ρAL³/78 about
        // the bending axes plus the section's rotary inertia.
        let m = rho * s.area * length;
        let bend = m * length * length / 78.0;
        let local = Matrix3::from_diagonal(&Vector3::new(
            0.5 * rho * (s.iyy + s.izz) * length,
            bend + 0.5 * rho * s.iyy * length,
            bend + 0.5 * rho * s.izz * length,
        ));
        let in_ground = frame * local * frame.transpose();
        for n in [k, k + 1] {
            mass[n] += 0.5 * m;
            inertia[n] += in_ground;
        }
    }
    let bodies = nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let r = n.placement.rotation;
            let t = r.transpose() * inertia[k] * r;
            let mut p = Part::body(
                bodies_ids[k],
                mass[k],
                Inertia {
                    ixx: t[(0, 0)],
                    iyy: t[(1, 1)],
                    izz: t[(2, 2)],
                    ixy: t[(0, 1)],
                    ixz: t[(0, 2)],
                    iyz: t[(1, 2)],
                },
                n.placement.clone(),
            );
            p.name = format!("FE_PART/{id} node {}", n.label);
            p
        })
        .collect();
    let part = FePart {
        id,
        nodes: nodes
            .iter()
            .zip(&bodies_ids)
            .map(|(n, body)| FeNode {
                label: n.label,
                body: *body,
                placement: n.placement.clone(),
                section: n.section,
            })
            .collect(),
        material,
        cratiok,
        elements,
        plane: None,
        plane_joints: Vec::new(),
        plane_markers: Vec::new(),
    };
    Ok(FeBuilt {
        part,
        bodies,
        markers,
        forces,
        joints: Vec::new(),
    })
}

/// TYPE = 2DBEAMXY/YZ/ZX: the built FE part held in its plane by a PLANAR
/// joint from each node to `ground` (the node keeps the in-plane
/// translations and the rotation about the normal: stretching and in-plane
/// bending, as Adams' 2D beam). The nodes must lie in one plane parallel
/// to the named one (Adams: "they may have an offset") with their x axes
/// in it. `marker` and `joint` are the next free MARKER and JOINT ids.
pub fn hold_in_plane(
    built: &mut FeBuilt,
    plane: FePlane,
    ground: Id,
    marker: &mut Id,
    joint: &mut Id,
) -> Result<(), String> {
    let axes = plane.frame();
    let normal = axes.column(2).into_owned();
    let nodes = &built.part.nodes;
    let offset = normal.dot(&nodes[0].placement.origin);
    let size = nodes
        .iter()
        .map(|n| n.placement.origin.norm())
        .fold(1.0_f64, f64::max);
    for n in nodes {
        if (normal.dot(&n.placement.origin) - offset).abs() > 1e-9 * size {
            return Err(format!(
                "TYPE = {}: node {} is off the plane of node {} (a 2D beam's nodes lie in one plane parallel to its named plane)",
                plane.type_name(),
                n.label,
                nodes[0].label
            ));
        }
        if normal.dot(&n.placement.rotation.column(0)).abs() > 1e-6 {
            return Err(format!(
                "TYPE = {}: node {}'s x axis leaves the plane",
                plane.type_name(),
                n.label
            ));
        }
    }
    if *marker as u64 + 2 * nodes.len() as u64 > Id::MAX as u64
        || *joint as u64 + nodes.len() as u64 > Id::MAX as u64
    {
        return Err("no free MARKER or JOINT ids are left for the 2D beam's joints".into());
    }
    for n in nodes {
        let (i, j) = (*marker, *marker + 1);
        *marker += 2;
        built.markers.push(Marker {
            id: i,
            part: n.body,
            placement: Placement::new(Vector3::zeros(), n.placement.rotation.transpose() * axes),
        });
        built.markers.push(Marker {
            id: j,
            part: ground,
            placement: Placement::new(n.placement.origin, axes),
        });
        built.joints.push(Joint {
            id: *joint,
            kind: JointKind::Planar,
            i,
            j,
        });
        built.part.plane_joints.push(*joint);
        built.part.plane_markers.extend([i, j]);
        *joint += 1;
    }
    built.part.plane = Some(plane);
    Ok(())
}

impl FePart {
    /// The node labelled `label`.
    pub fn node(&self, label: Id) -> Option<&FeNode> {
        self.nodes.iter().find(|n| n.label == label)
    }

    /// A marker on node `label` placed at `ground` (a frame in ground), as
    /// a marker of the node's body.
    pub fn marker_on_node(&self, id: Id, label: Id, ground: &Placement) -> Option<Marker> {
        let n = self.node(label)?;
        let r = n.placement.rotation.transpose();
        Some(Marker {
            id,
            part: n.body,
            placement: Placement::new(
                r * (ground.origin - n.placement.origin),
                r * ground.rotation,
            ),
        })
    }

    /// Total mass ρ Σ A L of the elements.
    pub fn mass(&self) -> f64 {
        self.nodes
            .windows(2)
            .map(|w| {
                let s = mean(&w[0].section, &w[1].section);
                self.material.density
                    * s.area
                    * (w[1].placement.origin - w[0].placement.origin).norm()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn straight(n: usize, length: f64) -> Vec<FeNodeInput> {
        (0..=n)
            .map(|k| FeNodeInput {
                label: k as Id + 1,
                placement: Placement::at(length * k as f64 / n as f64, 0.0, 0.0),
                section: FeSection {
                    area: 2.0,
                    iyy: 3.0,
                    izz: 4.0,
                    iyz: 0.0,
                    jxx: 5.0,
                },
            })
            .collect()
    }

    fn steel() -> FeMaterial {
        FeMaterial {
            id: 1,
            density: 7.0,
            youngs_modulus: 200.0,
            poissons_ratio: 0.25,
        }
    }

    #[test]
    fn lumped_mass_adds_up_to_the_beam_and_hrz_rotary_inertia() {
        let mut ids = FeIds {
            part: 10,
            marker: 100,
            beam: 5,
        };
        let built = build_fe_part(2, &straight(4, 8.0), steel(), 0.0, &mut ids).unwrap();
        let total: f64 = built.bodies.iter().map(|b| b.mass).sum();
        // ρ A L = 7 · 2 · 8
        assert!((total - 112.0).abs() < 1e-12, "{total}");
        assert!((built.part.mass() - 112.0).abs() < 1e-12);
        // end node: half of one element (m = 28, L = 2)
        let end = &built.bodies[0];
        assert!((end.mass - 14.0).abs() < 1e-12);
        let bend = 28.0 * 4.0 / 78.0;
        assert!((end.inertia.iyy - (bend + 0.5 * 7.0 * 3.0 * 2.0)).abs() < 1e-12);
        assert!((end.inertia.izz - (bend + 0.5 * 7.0 * 4.0 * 2.0)).abs() < 1e-12);
        assert!((end.inertia.ixx - 0.5 * 7.0 * 7.0 * 2.0).abs() < 1e-12);
        assert_eq!(built.part.elements, vec![5, 6, 7, 8]);
        assert_eq!((ids.part, ids.marker, ids.beam), (15, 108, 9));
        assert_eq!(built.bodies[3].name, "FE_PART/2 node 4");
        // G = E/(2(1+ν)) = 80
        let ForceKind::Elastic(ref b) = built.forces[0].kind else {
            panic!("not elastic")
        };
        let s = b.beam.unwrap();
        assert_eq!((s.gmodulus, s.length, s.ixx), (80.0, 2.0, 5.0));
        assert_eq!(b.formulation, BeamFormulation::Nonlinear);
    }

    #[test]
    fn bad_fe_parts_are_refused_with_the_reason() {
        let mut ids = FeIds {
            part: 1,
            marker: 1,
            beam: 1,
        };
        let mut nodes = straight(2, 1.0);
        nodes[1].section.iyz = 0.5;
        let e = build_fe_part(2, &nodes, steel(), 0.0, &mut ids).unwrap_err();
        assert!(e.starts_with("node 2's section has Iyz = 0.5"), "{e}");
        let mut nodes = straight(2, 1.0);
        nodes[2].placement.origin = nodes[1].placement.origin;
        let e = build_fe_part(2, &nodes, steel(), 0.0, &mut ids).unwrap_err();
        assert_eq!(e, "nodes 2 and 3 coincide");
        let mut nodes = straight(2, 1.0);
        nodes[2].placement = nodes[2].placement.clone().with_euler313(1.2, 0.0, 0.0);
        let e = build_fe_part(2, &nodes, steel(), 0.0, &mut ids).unwrap_err();
        assert!(e.starts_with("node 3's x axis is more than 45° off"), "{e}");
        let mut m = steel();
        m.poissons_ratio = 0.5;
        let e = build_fe_part(2, &straight(2, 1.0), m, 0.0, &mut ids).unwrap_err();
        assert_eq!(
            e,
            "MATERIAL POISSONS_RATIO must lie in (-1, 0.5), found 0.5"
        );
        let e = build_fe_part(2, &straight(2, 1.0), steel(), -1.0, &mut ids).unwrap_err();
        assert_eq!(e, "CRATIOK must be 0 or positive, found -1");
        let mut nodes = straight(2, 1.0);
        nodes[1].placement = nodes[1].placement.clone().with_euler313(0.0, PI, 0.0);
        let e = build_fe_part(2, &nodes, steel(), 0.0, &mut ids).unwrap_err();
        assert_eq!(
            e,
            "nodes 1 and 2 are turned about 180° apart about the beam (their y axes cancel)"
        );
        let mut full = FeIds {
            part: crate::point_mass::MAX_ID - 2,
            marker: 1,
            beam: 1,
        };
        let e = build_fe_part(2, &straight(2, 1.0), steel(), 0.0, &mut full).unwrap_err();
        assert!(e.starts_with("no free PART, MARKER or BEAM ids"), "{e}");
    }
}
