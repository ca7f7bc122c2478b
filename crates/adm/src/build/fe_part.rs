//! FE_PART (TYPE = 3DBEAM), FE_NODE, SECTION, MATERIAL and markers on FE
//! part nodes (Adams Solver FE_PART statement; Adams FE Part guide):
//!
//! - `FE_PART/id, TYPE = 3DBEAM | 2DBEAMXY | 2DBEAMYZ | 2DBEAMZX, NODE_LABELS = n1, n2, …, COORDINATES =
//!   n, x, y, z, a, b, c, … (per node: label, position and 3-1-3 angles
//!   in radians, in the FE part's QG/REULER frame), SECTION = n, area,
//!   Iyy, Izz, Iyz, Jxx, … (per node), MATERIAL = id, CRATIOK = r
//!   [, QG = x, y, z][, REULER = a, b, c]`
//! - `FE_NODE/id, FE_PART = id, LABEL = n, S = s, ANGLE = a, SECTION_NODE
//!   = id, QG = …, REULER = …`: a node's record. Its position and angles
//!   must agree with the FE_PART's COORDINATES, S with the node's share of
//!   the chord length; SECTION_NODE names the node's SECTION: it gives
//!   the section when the FE_PART has no SECTION list, and must agree with
//!   the list when it has one.
//! - `SECTION/id, TYPE = text, AREA, IYY, IZZ, IYZ, JXX[, RECT_BASE = b,
//!   RECT_HEIGHT = h]`: missing values of a solid rectangle come from b, h
//!   (area bh, IYY = hb³/12, IZZ = bh³/12, JXX = IYY + IZZ, the values
//!   Adams View writes).
//! - `MATERIAL/id, NAME, DENSITY, YOUNGS_MODULUS, POISSONS_RATIO`.
//! - `MARKER/id, FE_PART = id, NODE_LABEL = n[, QP][, REULER | ZP, XP]`:
//!   a marker on node n's body; QP and the orientation are in the FE part's
//!   frame, and default to the node's position and axes.
//!
//! TYPE = 2DBEAMXY/YZ/ZX is the 3DBEAM held in its plane by a PLANAR
//! joint per node. FE_LOAD is refused by name. The element, mass and
//! damping laws are in mbsolve_model::fe_part (our design: Adams publishes
//! the formulation's name, not its 3D equations).

use super::{orientation, Builder, Space};
use crate::args::Args;
use crate::error::Pos;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::fe_part::{
    build_fe_part, hold_in_plane, FeIds, FeMaterial, FeNodeInput, FePlane, FeSection,
};
use mbsolve_model::{euler313, ElementRef, Id, Placement};
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;

const FE_PART_KEYS: &[&str] = &[
    "TYPE",
    "NODE_LABELS",
    "COORDINATES",
    "SECTION",
    "MATERIAL",
    "CRATIOK",
    "QG",
    "REULER",
];
const FE_NODE_KEYS: &[&str] = &[
    "FE_PART",
    "LABEL",
    "S",
    "ANGLE",
    "SECTION_NODE",
    "QG",
    "REULER",
];
const SECTION_KEYS: &[&str] = &[
    "TYPE",
    "AREA",
    "IYY",
    "IZZ",
    "IYZ",
    "JXX",
    "RECT_BASE",
    "RECT_HEIGHT",
];
const MATERIAL_KEYS: &[&str] = &["NAME", "DENSITY", "YOUNGS_MODULUS", "POISSONS_RATIO"];

/// Where a statement was written, for messages raised in `finish`.
#[derive(Clone)]
struct At {
    pos: Pos,
    label: String,
}

struct PendingFePart {
    id: Id,
    at: At,
    labels: Vec<Id>,
    /// Per node: position and 3-1-3 angles in the FE part's frame.
    coordinates: HashMap<Id, [f64; 6]>,
    sections: Option<HashMap<Id, FeSection>>,
    material: (Id, Pos),
    cratiok: f64,
    frame: Placement,
    plane: Option<FePlane>,
}

struct PendingFeNode {
    at: At,
    fe_part: (Id, Pos),
    label: (Id, Pos),
    s: Option<(f64, Pos)>,
    section: Option<(Id, Pos)>,
    qg: Option<(Vector3<f64>, Pos)>,
    reuler: Option<(Matrix3<f64>, Pos)>,
}

/// A SECTION's values; None = not given and not derivable.
#[derive(Clone, Copy)]
struct SectionValues {
    area: Option<f64>,
    iyy: Option<f64>,
    izz: Option<f64>,
    iyz: f64,
    jxx: Option<f64>,
}

struct PendingFeMarker {
    id: Id,
    at: At,
    fe_part: (Id, Pos),
    label: (Id, Pos),
    qp: Option<Vector3<f64>>,
    rotation: Option<Matrix3<f64>>,
}

/// FE statements read so far, built into the model by `finish_fe_parts`.
#[derive(Default)]
pub(super) struct FeTables {
    parts: Vec<PendingFePart>,
    nodes: Vec<PendingFeNode>,
    sections: HashMap<Id, (SectionValues, At)>,
    /// MATERIAL statements by id (all of them: a duplicate id is an error
    /// once an FE_PART reads it).
    materials: HashMap<Id, Vec<Statement>>,
    markers: Vec<PendingFeMarker>,
    node_ids: HashMap<Id, Pos>,
    /// Each FE_PART's QG/REULER frame, by id.
    frames: HashMap<Id, Placement>,
}

/// Positive integer labels from a list of numbers.
fn labels(a: &Args, key: &str, values: &[f64]) -> Result<Vec<Id>, AdmError> {
    values
        .iter()
        .map(|v| {
            if v.fract() == 0.0 && *v >= 1.0 && *v < mbsolve_model::point_mass::MAX_ID as f64 {
                Ok(*v as Id)
            } else {
                Err(a.err(
                    a.pos_of(key),
                    format!(
                        "{key}: node labels are positive integers, found {}",
                        mbsolve_model::readable(*v)
                    ),
                ))
            }
        })
        .collect()
}

/// A per-node table (`label, v1, …, v{width-1}` repeated), keyed by label,
/// covering exactly the nodes of NODE_LABELS.
fn per_node<const W: usize>(
    a: &mut Args,
    key: &str,
    nodes: &[Id],
) -> Result<Option<HashMap<Id, [f64; W]>>, AdmError> {
    let Some(v) = a.numbers_range(key, 1, usize::MAX)? else {
        return Ok(None);
    };
    if v.len() % (W + 1) != 0 {
        return Err(a.err(
            a.pos_of(key),
            format!(
                "{key} takes {} values per node (label, then {W}), found {} values",
                W + 1,
                v.len()
            ),
        ));
    }
    let mut out = HashMap::new();
    for row in v.chunks(W + 1) {
        let label = labels(a, key, &row[..1])?[0];
        if !nodes.contains(&label) {
            return Err(a.err(
                a.pos_of(key),
                format!("{key}: node {label} is not in NODE_LABELS"),
            ));
        }
        let values: [f64; W] = std::array::from_fn(|k| row[k + 1]);
        if out.insert(label, values).is_some() {
            return Err(a.err(a.pos_of(key), format!("{key}: node {label} is given twice")));
        }
    }
    if let Some(missing) = nodes.iter().find(|n| !out.contains_key(n)) {
        return Err(a.err(
            a.pos_of(key),
            format!("{key}: node {missing} of NODE_LABELS is missing"),
        ));
    }
    Ok(Some(out))
}

fn required_id(a: &Args, st: &Statement, name: &str) -> Result<Id, AdmError> {
    st.id
        .ok_or_else(|| a.err_here(format!("{name} needs an id ({name}/id)")))
}

impl Builder<'_> {
    /// FE_PART/id: read and checked here, built in `finish_fe_parts`.
    pub(super) fn fe_part(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, FE_PART_KEYS, &[])?;
        let id = required_id(&a, st, "FE_PART")?;
        if let Some(first) = self.fe.parts.iter().find(|p| p.id == id) {
            return Err(a.err_here(format!(
                "duplicate id: FE_PART/{id} is already defined at {}:{}",
                self.file, first.at.pos.line
            )));
        }
        let mut plane = None;
        match a.word("TYPE")? {
            None => return Err(a.err_here("missing TYPE = (3DBEAM)")),
            Some((t, _)) if t == "3DBEAM" => {}
            Some((t, _)) if t == "2DBEAMXY" => plane = Some(FePlane::Xy),
            Some((t, _)) if t == "2DBEAMYZ" => plane = Some(FePlane::Yz),
            Some((t, _)) if t == "2DBEAMZX" => plane = Some(FePlane::Zx),
            Some((t, pos)) => {
                return Err(a.err(
                    pos,
                    format!("TYPE = {t}: unknown FE part type (Adams: 3DBEAM, 2DBEAMXY, 2DBEAMYZ, 2DBEAMZX)"),
                ))
            }
        }
        let Some(node_values) = a.numbers_range("NODE_LABELS", 1, usize::MAX)? else {
            return Err(a.err_here("missing NODE_LABELS ="));
        };
        let nodes = labels(&a, "NODE_LABELS", &node_values)?;
        let Some(coordinates) = per_node::<6>(&mut a, "COORDINATES", &nodes)? else {
            return Err(
                a.err_here("missing COORDINATES = (label, x, y, z, and three angles per node)")
            );
        };
        let sections = per_node::<5>(&mut a, "SECTION", &nodes)?.map(|t| {
            t.into_iter()
                .map(|(k, v)| {
                    let s = FeSection {
                        area: v[0],
                        iyy: v[1],
                        izz: v[2],
                        iyz: v[3],
                        jxx: v[4],
                    };
                    (k, s)
                })
                .collect()
        });
        let material = a.id("MATERIAL")?;
        let material = a.require(material, "MATERIAL")?;
        let cratiok = a.number("CRATIOK")?.unwrap_or(0.0);
        let qg = a.vec3("QG")?.unwrap_or_else(Vector3::zeros);
        let rotation = orientation(&mut a, "REULER", "ZP", "XP", qg)?;
        a.finish()?;
        self.fe.parts.push(PendingFePart {
            id,
            at: At {
                pos: st.pos,
                label: format!("FE_PART/{id}"),
            },
            labels: nodes,
            coordinates,
            sections,
            material,
            cratiok,
            frame: Placement::new(qg, rotation),
            plane,
        });
        Ok(())
    }

    /// FE_NODE/id: checked against its FE_PART in `finish_fe_parts`.
    pub(super) fn fe_node(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label.clone(), FE_NODE_KEYS, &[])?;
        let id = required_id(&a, st, "FE_NODE")?;
        if let Some(first) = self.fe.node_ids.insert(id, st.pos) {
            return Err(a.err_here(format!(
                "duplicate id: FE_NODE/{id} is already defined at {}:{}",
                self.file, first.line
            )));
        }
        let fe_part = a.id("FE_PART")?;
        let fe_part = a.require(fe_part, "FE_PART")?;
        let node = a.id("LABEL")?;
        let node = a.require(node, "LABEL")?;
        let s = a.number("S")?.map(|s| (s, a.pos_of("S")));
        if let Some(angle) = a.number("ANGLE")?.filter(|v| *v != 0.0) {
            return Err(a.err(
                a.pos_of("ANGLE"),
                format!(
                    "ANGLE = {} is not supported: only ANGLE = 0 (turn the node's axes through COORDINATES instead)",
                    mbsolve_model::readable(angle)
                ),
            ));
        }
        let section = a.id("SECTION_NODE")?;
        let qg = a.vec3("QG")?.map(|v| (v, a.pos_of("QG")));
        let reuler = a
            .numbers("REULER", 3)?
            .map(|e| (euler313(e[0], e[1], e[2]), a.pos_of("REULER")));
        a.finish()?;
        self.fe.nodes.push(PendingFeNode {
            at: At { pos: st.pos, label },
            fe_part,
            label: node,
            s,
            section,
            qg,
            reuler,
        });
        Ok(())
    }

    /// SECTION/id: values kept for the FE_NODEs that name it.
    pub(super) fn fe_section(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label.clone(), SECTION_KEYS, &[])?;
        let id = required_id(&a, st, "SECTION")?;
        if let Some((_, first)) = self.fe.sections.get(&id) {
            return Err(a.err_here(format!(
                "duplicate id: SECTION/{id} is already defined at {}:{}",
                self.file, first.pos.line
            )));
        }
        // TYPE names the shape for Adams View's drawing and stress
        // recovery; the solver reads the section values.
        let _ = a.text("TYPE")?;
        let base = a.number("RECT_BASE")?;
        let height = a.number("RECT_HEIGHT")?;
        let rect = base.zip(height);
        let mut values = SectionValues {
            area: a.number("AREA")?,
            iyy: a.number("IYY")?,
            izz: a.number("IZZ")?,
            iyz: a.number("IYZ")?.unwrap_or(0.0),
            jxx: a.number("JXX")?,
        };
        if let Some((b, h)) = rect {
            let iyy = h * b.powi(3) / 12.0;
            let izz = b * h.powi(3) / 12.0;
            values.area = values.area.or(Some(b * h));
            values.iyy = values.iyy.or(Some(iyy));
            values.izz = values.izz.or(Some(izz));
            values.jxx = values.jxx.or(Some(iyy + izz));
        }
        a.finish()?;
        self.fe
            .sections
            .insert(id, (values, At { pos: st.pos, label }));
        Ok(())
    }

    /// MATERIAL/id: kept (it stays in the skipped list unless an FE_PART
    /// reads it).
    pub(super) fn fe_material(&mut self, st: &Statement) {
        if let Some(id) = st.id {
            self.fe.materials.entry(id).or_default().push(st.clone());
        }
    }

    /// FE_LOAD: distributed loads are not built.
    pub(super) fn fe_load_refused(&self, st: &Statement, label: &str) -> AdmError {
        self.err(
            st.pos,
            label,
            "FE_LOAD is not supported: apply the load at node markers instead (MARKER with FE_PART and NODE_LABEL, loaded by SFORCE, VFORCE or GFORCE)",
        )
    }

    /// A marker with FE_PART = id sits on node NODE_LABEL of that FE part;
    /// placed in `finish_fe_parts`. Returns false for any other marker (the
    /// caller finishes `a`).
    pub(super) fn fe_marker_taken(
        &mut self,
        a: &mut Args,
        id: Id,
        pos: Pos,
    ) -> Result<bool, AdmError> {
        if !a.has("FE_PART") {
            return Ok(false);
        }
        let fe_part = a.id("FE_PART")?;
        let fe_part = a.require(fe_part, "FE_PART")?;
        let node = a.id("NODE_LABEL")?;
        let node = a.require(node, "NODE_LABEL")?;
        let qp = a.vec3("QP")?;
        let oriented = ["REULER", "ZP", "XP"].iter().any(|k| a.has(k));
        let rotation = orientation(a, "REULER", "ZP", "XP", qp.unwrap_or_else(Vector3::zeros))?;
        let label = a.label.clone();
        self.fe.markers.push(PendingFeMarker {
            id,
            at: At { pos, label },
            fe_part,
            label: node,
            qp,
            rotation: oriented.then_some(rotation),
        });
        self.source(ElementRef::Marker(id), pos);
        Ok(true)
    }

    fn next_id(&self, space: Space) -> Id {
        self.defined
            .keys()
            .filter(|(s, _)| *s == space)
            .map(|(_, id)| *id)
            .max()
            .unwrap_or(0)
            + 1
    }

    fn section_of(&self, id: Id, pos: Pos, at: &At) -> Result<FeSection, AdmError> {
        let Some((v, sat)) = self.fe.sections.get(&id) else {
            return Err(self.err(
                pos,
                &at.label,
                format!("SECTION_NODE: SECTION/{id} does not exist"),
            ));
        };
        let need = |what: &str, x: Option<f64>| {
            x.ok_or_else(|| {
                self.err(
                    sat.pos,
                    &sat.label,
                    format!("missing {what} = (or RECT_BASE and RECT_HEIGHT)"),
                )
            })
        };
        Ok(FeSection {
            area: need("AREA", v.area)?,
            iyy: need("IYY", v.iyy)?,
            izz: need("IZZ", v.izz)?,
            iyz: v.iyz,
            jxx: need("JXX", v.jxx)?,
        })
    }

    fn fe_material_values(&self, id: Id, pos: Pos, at: &At) -> Result<FeMaterial, AdmError> {
        let Some(st) = self.fe.materials.get(&id).and_then(|v| v.first()) else {
            return Err(self.err(pos, &at.label, format!("MATERIAL {id} does not exist")));
        };
        if let Some(second) = self.fe.materials[&id].get(1) {
            return Err(self.err(
                second.pos,
                &format!("MATERIAL/{id}"),
                format!(
                    "duplicate id: MATERIAL/{id} is already defined at {}:{}",
                    self.file, st.pos.line
                ),
            ));
        }
        let mut a = Args::new(self.file, st, format!("MATERIAL/{id}"), MATERIAL_KEYS, &[])?;
        let _ = a.text("NAME")?;
        let mut get = |key: &str| -> Result<f64, AdmError> {
            let v = a.number(key)?;
            v.ok_or_else(|| a.err_here(format!("missing {key} = ({} reads it)", at.label)))
        };
        let density = get("DENSITY")?;
        let youngs_modulus = get("YOUNGS_MODULUS")?;
        let poissons_ratio = get("POISSONS_RATIO")?;
        a.finish()?;
        Ok(FeMaterial {
            id,
            density,
            youngs_modulus,
            poissons_ratio,
        })
    }

    /// Build every FE_PART into node bodies, element BEAMs and markers
    /// (mbsolve_model::fe_part), check its FE_NODEs, place its markers.
    pub(super) fn finish_fe_parts(&mut self) -> Result<(), AdmError> {
        let parts = std::mem::take(&mut self.fe.parts);
        let mut ids = FeIds {
            part: self.next_id(Space::Part),
            marker: self.next_id(Space::Marker),
            beam: self.next_id(Space::Beam),
        };
        let mut joint = self.next_id(Space::Joint);
        for p in &parts {
            let material = self.fe_material_values(p.material.0, p.material.1, &p.at)?;
            let mut nodes = Vec::with_capacity(p.labels.len());
            for &label in &p.labels {
                let c = p.coordinates[&label];
                let local =
                    Placement::new(Vector3::new(c[0], c[1], c[2]), euler313(c[3], c[4], c[5]));
                let section = match &p.sections {
                    Some(t) => t[&label],
                    None => {
                        let named = self.fe.nodes.iter().find(|n| {
                            n.fe_part.0 == p.id && n.label.0 == label && n.section.is_some()
                        });
                        match named {
                            Some(n) => {
                                let (sid, spos) = n.section.expect("filtered");
                                self.section_of(sid, spos, &n.at)?
                            }
                            None => {
                                return Err(self.err(
                                    p.at.pos,
                                    &p.at.label,
                                    format!("node {label} has no section: give SECTION = (label, area, Iyy, Izz, Iyz, Jxx per node) or an FE_NODE with SECTION_NODE"),
                                ))
                            }
                        }
                    }
                };
                nodes.push(FeNodeInput {
                    label,
                    placement: local.in_frame(&p.frame),
                    section,
                });
            }
            let mut built = build_fe_part(p.id, &nodes, material, p.cratiok, &mut ids)
                .map_err(|m| self.err(p.at.pos, &p.at.label, m))?;
            if let Some(plane) = p.plane {
                let ground = self
                    .model
                    .parts
                    .iter()
                    .find(|q| q.ground)
                    .map(|q| q.id)
                    .expect("finish checked the ground");
                hold_in_plane(&mut built, plane, ground, &mut ids.marker, &mut joint)
                    .map_err(|m| self.err(p.at.pos, &p.at.label, m))?;
            }
            let here = format!("{}:{}", self.file, p.at.pos.line);
            for b in &built.bodies {
                self.model
                    .sources
                    .push((ElementRef::Part(b.id), format!("{}, {here}", b.name)));
            }
            for (k, f) in built.forces.iter().enumerate() {
                let (na, nb) = (p.labels[k], p.labels[k + 1]);
                let what = format!("{} element {na}-{nb}, {here}", p.at.label);
                self.model.sources.push((f.element(), what.clone()));
                for m in [f.i, f.j] {
                    self.model
                        .sources
                        .push((ElementRef::Marker(m), what.clone()));
                }
            }
            self.model.parts.extend(built.bodies);
            self.model.markers.extend(built.markers);
            self.model.forces.extend(built.forces);
            for j in &built.joints {
                let what = format!("{} node plane, {here}", p.at.label);
                self.model
                    .sources
                    .push((ElementRef::Joint(j.id), what.clone()));
                for m in [j.i, j.j] {
                    self.model
                        .sources
                        .push((ElementRef::Marker(m), what.clone()));
                }
            }
            self.model.joints.extend(built.joints);
            let used = format!("MATERIAL/{}", p.material.0);
            self.skipped.retain(|s| s.statement != used);
            self.model.fe_parts.push(built.part);
            self.fe.frames.insert(p.id, p.frame.clone());
        }
        self.check_fe_nodes()?;
        for m in std::mem::take(&mut self.fe.markers) {
            let (fe, node) = self.fe_node_of(m.fe_part, m.label, &m.at)?;
            let frame = &self.fe_frame(fe);
            let origin = m.qp.map_or(node.placement.origin, |qp| {
                frame.origin + frame.rotation * qp
            });
            let rotation = m
                .rotation
                .map_or(node.placement.rotation, |r| frame.rotation * r);
            let marker = self.model.fe_parts[fe]
                .marker_on_node(m.id, m.label.0, &Placement::new(origin, rotation))
                .expect("node found above");
            self.model.markers.push(marker);
        }
        Ok(())
    }

    /// The FE_PART's QG/REULER frame (the frame COORDINATES are in).
    fn fe_frame(&self, fe: usize) -> Placement {
        let p = &self.model.fe_parts[fe];
        self.fe.frames.get(&p.id).cloned().unwrap_or_default()
    }

    /// The built FE part (index) and node named by (FE_PART, label).
    fn fe_node_of(
        &self,
        fe_part: (Id, Pos),
        label: (Id, Pos),
        at: &At,
    ) -> Result<(usize, mbsolve_model::fe_part::FeNode), AdmError> {
        let Some(k) = self.model.fe_parts.iter().position(|p| p.id == fe_part.0) else {
            return Err(self.err(
                fe_part.1,
                &at.label,
                format!("FE_PART {} does not exist", fe_part.0),
            ));
        };
        let Some(node) = self.model.fe_parts[k].node(label.0) else {
            return Err(self.err(
                label.1,
                &at.label,
                format!(
                    "FE_PART/{} has no node {} (NODE_LABELS)",
                    fe_part.0, label.0
                ),
            ));
        };
        Ok((k, node.clone()))
    }

    /// FE_NODE records must agree with their FE_PART: QG and REULER with
    /// its COORDINATES, S with the node's share of the chord length.
    fn check_fe_nodes(&self) -> Result<(), AdmError> {
        for n in &self.fe.nodes {
            let (fe, node) = self.fe_node_of(n.fe_part, n.label, &n.at)?;
            let part = &self.model.fe_parts[fe];
            let size = part
                .nodes
                .iter()
                .map(|m| m.placement.origin.norm())
                .fold(1.0_f64, f64::max);
            if let Some((qg, pos)) = n.qg {
                let off = (qg - node.placement.origin).norm();
                if off > 1e-6 * size {
                    return Err(self.err(
                        pos,
                        &n.at.label,
                        format!(
                            "QG is {} from node {} of FE_PART/{} (its COORDINATES)",
                            mbsolve_model::readable(off),
                            n.label.0,
                            part.id
                        ),
                    ));
                }
            }
            if let Some((r, pos)) = n.reuler {
                let off = (r - node.placement.rotation).norm();
                if off > 1e-6 {
                    return Err(self.err(
                        pos,
                        &n.at.label,
                        format!(
                            "REULER differs from node {}'s angles in FE_PART/{}'s COORDINATES",
                            n.label.0, part.id
                        ),
                    ));
                }
            }
            if let Some((s, pos)) = n.s {
                let chords: Vec<f64> = part
                    .nodes
                    .windows(2)
                    .map(|w| (w[1].placement.origin - w[0].placement.origin).norm())
                    .collect();
                let k = part
                    .nodes
                    .iter()
                    .position(|m| m.label == n.label.0)
                    .expect("node found above");
                let share = chords[..k].iter().sum::<f64>() / chords.iter().sum::<f64>();
                if (s - share).abs() > 1e-3 {
                    return Err(self.err(
                        pos,
                        &n.at.label,
                        format!(
                            "S = {} but node {} lies at {} of FE_PART/{}'s length",
                            mbsolve_model::readable(s),
                            n.label.0,
                            mbsolve_model::readable(share),
                            part.id
                        ),
                    ));
                }
            }
            // The SECTION an FE_NODE names must be the node's section (the
            // FE_PART's SECTION list wins when both are given).
            if let Some((sid, spos)) = n.section {
                let named = self.section_of(sid, spos, &n.at)?;
                let pairs = [
                    ("AREA", named.area, node.section.area),
                    ("IYY", named.iyy, node.section.iyy),
                    ("IZZ", named.izz, node.section.izz),
                    ("IYZ", named.iyz, node.section.iyz),
                    ("JXX", named.jxx, node.section.jxx),
                ];
                for (key, a, b) in pairs {
                    if (a - b).abs() > 1e-6 * a.abs().max(b.abs()) {
                        return Err(self.err(
                            spos,
                            &n.at.label,
                            format!(
                                "SECTION_NODE: SECTION/{sid} has {key} = {} but FE_PART/{}'s SECTION gives {} for node {}",
                                mbsolve_model::readable(a),
                                part.id,
                                mbsolve_model::readable(b),
                                n.label.0
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
