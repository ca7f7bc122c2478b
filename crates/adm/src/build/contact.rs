//! GRAPHICS solids and CONTACT (issue 17).
//!
//! GRAPHICS statements are display data unless a CONTACT names them, so a
//! solid is read leniently and kept with any problem it has; the problem
//! (or a missing or unsupported EXTERNAL file) is an error only when a
//! CONTACT refers to the solid, at the end of the dataset. GRAPHICS that
//! are not solids (OUTLINE, FORCE, SPDP, CIRCLE, …) stay display-only.

use super::{loc, Builder, Skipped};
use crate::args::Args;
use crate::error::Pos;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::{Contact, ContactFriction, ElementRef, Geometry, Id, NormalForce, Shape};
use std::path::{Path, PathBuf};

/// The solid GRAPHICS types a CONTACT may use.
const SOLIDS: &[&str] = &[
    "BOX",
    "CYLINDER",
    "FRUSTUM",
    "ELLIPSOID",
    "TORUS",
    "EXTERNAL",
];

/// Every GRAPHICS keyword of the solid forms (the others are display-only).
const GRAPHICS_KEYS: &[&str] = &[
    "BOX",
    "CORNER",
    "X",
    "Y",
    "Z",
    "CYLINDER",
    "FRUSTUM",
    "CM",
    "LENGTH",
    "RADIUS",
    "TOP",
    "BOTTOM",
    "ANGLE",
    "SIDES",
    "SEG",
    "RANGE",
    "ELLIPSOID",
    "XSCALE",
    "YSCALE",
    "ZSCALE",
    "TORUS",
    "MAJOR_RADIUS",
    "MINOR_RADIUS",
    "EXTERNAL",
    "RM",
    "FILE",
    "ELEMENT",
    "FACETING_TOLERANCE",
];

const CONTACT_KEYS: &[&str] = &[
    "TYPE",
    "IGEOM",
    "JGEOM",
    "IFLIP",
    "JFLIP",
    "IMPACT",
    "POISSON",
    "STIFFNESS",
    "EXPONENT",
    "DAMPING",
    "DMAX",
    "PENALTY",
    "RESTITUTION_COEFFICIENT",
    "NORMAL_TRANS",
    "NORMAL_FUNCTION",
    "NORMAL_ROUTINE",
    "COULOMB_FRICTION",
    "MU_STATIC",
    "MU_DYNAMIC",
    "STICTION_TRANSITION_VELOCITY",
    "FRICTION_TRANSITION_VELOCITY",
    "FRICTION_FUNCTION",
    "FRICTION_ROUTINE",
    "STICTION",
    "MAX_STICTION_DEFORMATION",
    "AUGMENTED_LAGRANGIAN_FORMULATION",
    "NO_FRICTION",
];

/// A GRAPHICS solid as read: the geometry, or why it cannot be used.
pub(crate) struct GraphicsSolid {
    id: Id,
    label: String,
    pos: Pos,
    result: Result<Geometry, (Pos, String)>,
}

/// GRAPHICS solids by id and the CONTACT references to check at the end.
#[derive(Default)]
pub(crate) struct ContactTables {
    solids: Vec<GraphicsSolid>,
    /// (contact label, IGEOM/JGEOM key, graphics id, position)
    refs: Vec<(String, &'static str, Id, Pos)>,
    /// CONTACT(id, …) in expressions: (label, id, position, call text)
    results: Vec<(String, Id, Pos, String)>,
}

/// Mesh files beside the deck: Adams shell (.shl) and STL.
fn read_mesh(path: &Path) -> Result<Shape, String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let supported = "supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS)";
    let parasolid = matches!(ext.as_str(), "x_t" | "xmt_txt" | "x_b" | "xmt_bin" | "xmt");
    if !path.exists() {
        let kind = if parasolid {
            "; it would be Parasolid geometry, which mbsolve cannot read either"
        } else {
            ""
        };
        return Err(format!(
            "geometry file not found: {}{kind} ({supported})",
            path.display()
        ));
    }
    if parasolid {
        return Err(format!(
            "{} is Parasolid geometry, which mbsolve cannot read ({supported})",
            path.display()
        ));
    }
    if ext != "shl" && ext != "stl" {
        return Err(format!(
            "{}: unknown geometry file type ({supported})",
            path.display()
        ));
    }
    if ext == "stl" {
        let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mesh = stl_io::read_stl(&mut f)
            .map_err(|e| format!("{}: bad STL file: {e}", path.display()))?;
        let vertices = mesh
            .vertices
            .iter()
            .map(|v| [v[0] as f64, v[1] as f64, v[2] as f64])
            .collect();
        let triangles = mesh
            .faces
            .iter()
            .map(|t| t.vertices.map(|k| k as u32))
            .collect();
        return Ok(Shape::Mesh {
            vertices,
            triangles,
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_shell(&text).map_err(|e| format!("{}: bad shell file: {e}", path.display()))
}

/// An Adams shell file: the number of points, their x y z, the number of
/// faces, then each face as its vertex count and 1-based vertex numbers;
/// an optional scale factor may come first. Polygons are fanned into
/// triangles.
pub(crate) fn parse_shell(text: &str) -> Result<Shape, String> {
    let nums: Vec<f64> = text
        .split_whitespace()
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("'{t}' is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let attempt = |start: usize, scale: f64| -> Option<Shape> {
        let count = |x: f64| (x >= 0.0 && x.fract() == 0.0).then_some(x as usize);
        let np = count(*nums.get(start)?)?;
        let pts_end = start + 1 + 3 * np;
        let vertices: Vec<[f64; 3]> = nums
            .get(start + 1..pts_end)?
            .chunks(3)
            .map(|c| [c[0] * scale, c[1] * scale, c[2] * scale])
            .collect();
        let nf = count(*nums.get(pts_end)?)?;
        let mut k = pts_end + 1;
        let mut triangles = Vec::new();
        for _ in 0..nf {
            let nv = count(*nums.get(k)?)?;
            let idx: Vec<u32> = nums
                .get(k + 1..k + 1 + nv)?
                .iter()
                .map(|&x| {
                    count(x)
                        .filter(|&i| i >= 1 && i <= np)
                        .map(|i| i as u32 - 1)
                })
                .collect::<Option<_>>()?;
            for w in 1..nv.saturating_sub(1) {
                triangles.push([idx[0], idx[w], idx[w + 1]]);
            }
            k += 1 + nv;
        }
        (k == nums.len() && !triangles.is_empty()).then_some(Shape::Mesh {
            vertices,
            triangles,
        })
    };
    attempt(0, 1.0)
        .or_else(|| nums.first().and_then(|&s| attempt(1, s)))
        .ok_or_else(|| {
            "expected: number of points, x y z per point, number of faces, then per face its vertex count and 1-based vertex numbers".to_string()
        })
}

impl Builder<'_> {
    /// GRAPHICS: a solid is kept (with any problem) for CONTACT; anything
    /// else is display-only, as before.
    pub(super) fn graphics(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let solid = st.args.iter().find_map(|a| {
            SOLIDS
                .iter()
                .find(|s| a.key.eq_ignore_ascii_case(s))
                .copied()
        });
        self.skipped.push(Skipped {
            statement: label.clone(),
            location: loc(self.file, st.pos),
            reason: "geometry only",
        });
        let (Some(kind), Some(id)) = (solid, st.id) else {
            return Ok(());
        };
        let result = self.read_solid(st, label.clone(), kind);
        self.contact_tables.solids.push(GraphicsSolid {
            id,
            label,
            pos: st.pos,
            result,
        });
        Ok(())
    }

    fn read_solid(
        &mut self,
        st: &Statement,
        label: String,
        kind: &str,
    ) -> Result<Geometry, (Pos, String)> {
        let mut a = Args::new(self.file, st, label, GRAPHICS_KEYS, &[])
            .map_err(|e| (st.pos, e.to_string()))?;
        let here = st.pos;
        let e = |a: &Args, k: &str, msg: String| (a.pos_of(k), msg);
        let num = |a: &mut Args, k: &str| -> Result<f64, (Pos, String)> {
            match a.number(k) {
                Ok(Some(v)) => Ok(v),
                Ok(None) => Err((here, format!("{kind} needs {k} ="))),
                Err(x) => Err((a.pos_of(k), x.to_string())),
            }
        };
        let marker = |a: &mut Args, k: &str| -> Result<Id, (Pos, String)> {
            match a.id(k) {
                Ok(Some((m, _))) => Ok(m),
                Ok(None) => Err((here, format!("{kind} needs {k} = marker"))),
                Err(x) => Err((a.pos_of(k), x.to_string())),
            }
        };
        let _ = a.flag(kind);
        // display-only tessellation controls: contact uses exact shapes
        a.ignore(&["SIDES", "SEG", "FACETING_TOLERANCE"]);
        if a.has("ANGLE") {
            match a.number("ANGLE") {
                Ok(Some(v)) if (v - 2.0 * std::f64::consts::PI).abs() < 1e-9 => {}
                _ => {
                    return Err(e(
                        &a,
                        "ANGLE",
                        "a partial sweep (ANGLE other than 360D) is not supported for contact"
                            .into(),
                    ))
                }
            }
        }
        let (m, shape) = match kind {
            "BOX" => {
                let m = marker(&mut a, "CORNER")?;
                let shape = Shape::Box {
                    x: num(&mut a, "X")?,
                    y: num(&mut a, "Y")?,
                    z: num(&mut a, "Z")?,
                };
                (m, shape)
            }
            "CYLINDER" => {
                let m = marker(&mut a, "CM")?;
                let shape = Shape::Cylinder {
                    length: num(&mut a, "LENGTH")?,
                    radius: num(&mut a, "RADIUS")?,
                };
                (m, shape)
            }
            "FRUSTUM" => {
                let m = marker(&mut a, "CM")?;
                let shape = Shape::Frustum {
                    length: num(&mut a, "LENGTH")?,
                    bottom: num(&mut a, "BOTTOM")?,
                    top: num(&mut a, "TOP")?,
                };
                (m, shape)
            }
            "ELLIPSOID" => {
                let m = marker(&mut a, "CM")?;
                let shape = Shape::Ellipsoid {
                    x: num(&mut a, "XSCALE")?,
                    y: num(&mut a, "YSCALE")?,
                    z: num(&mut a, "ZSCALE")?,
                };
                (m, shape)
            }
            "TORUS" => {
                let m = marker(&mut a, "CM")?;
                let shape = Shape::Torus {
                    major: num(&mut a, "MAJOR_RADIUS")?,
                    minor: num(&mut a, "MINOR_RADIUS")?,
                };
                (m, shape)
            }
            _ => {
                let m = marker(&mut a, "RM")?;
                let file = match a.text("FILE") {
                    Ok(Some(f)) => f.trim_matches('"').to_string(),
                    _ => return Err((here, "EXTERNAL needs FILE =".into())),
                };
                // ELEMENT names a body inside a multi-body file; the mesh
                // formats read here hold one body.
                a.ignore(&["ELEMENT"]);
                let path: PathBuf = Path::new(self.file)
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(&file);
                let pos = a.pos_of("FILE");
                let shape = read_mesh(&path).map_err(|msg| (pos, msg))?;
                (m, shape)
            }
        };
        a.finish().map_err(|x| (st.pos, x.to_string()))?;
        Ok(Geometry {
            id: st.id.unwrap_or(0),
            marker: m,
            shape,
        })
    }

    pub(super) fn contact(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
    ) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, CONTACT_KEYS, &[])?;
        if id == 0 {
            return Err(a.err_here("CONTACT needs an id (CONTACT/id)"));
        }
        if self.model.contacts.iter().any(|c| c.id == id) {
            return Err(a.err_here(format!("duplicate id: CONTACT/{id} is already defined")));
        }
        for k in [
            "NORMAL_FUNCTION",
            "NORMAL_ROUTINE",
            "FRICTION_FUNCTION",
            "FRICTION_ROUTINE",
        ] {
            if a.has(k) {
                return Err(a.err(
                    a.pos_of(k),
                    format!(
                        "{k} (a user-written contact law) is not supported; use IMPACT or POISSON"
                    ),
                ));
            }
        }
        for k in ["IFLIP", "JFLIP"] {
            if a.has(k) {
                return Err(a.err(
                    a.pos_of(k),
                    format!("{k} flips the normal of a 2D curve geometry; mbsolve supports 3D solid contact only"),
                ));
            }
        }
        if let Some((t, pos)) = a.word("TYPE")? {
            if t != "SOLID_TO_SOLID" {
                return Err(a.err(
                    pos,
                    format!("TYPE = {t} is not supported (only SOLID_TO_SOLID)"),
                ));
            }
        }
        let geoms = |a: &mut Args, key: &'static str| -> Result<Vec<Id>, AdmError> {
            let Some(v) = a.numbers_range(key, 1, 10_000)? else {
                return Err(a.err_here(format!("missing {key} =")));
            };
            let pos = a.pos_of(key);
            let mut ids = Vec::with_capacity(v.len());
            for g in v {
                if g < 1.0 || g.fract() != 0.0 || g > u32::MAX as f64 {
                    return Err(a.err(pos, format!("{key}: bad GRAPHICS id {g}")));
                }
                ids.push(g as Id);
            }
            Ok(ids)
        };
        let igeom = geoms(&mut a, "IGEOM")?;
        let jgeom = geoms(&mut a, "JGEOM")?;
        let positive = |a: &Args, k: &str, v: f64, allow_zero: bool| -> Result<f64, AdmError> {
            if v > 0.0 || (allow_zero && v == 0.0) {
                Ok(v)
            } else {
                let rel = if allow_zero { "≥ 0" } else { "> 0" };
                Err(a.err(a.pos_of(k), format!("{k} must be {rel}, found {v}")))
            }
        };
        let impact = a.flag("IMPACT")?;
        let poisson = a.flag("POISSON")?;
        // the other model's parameters are an error, not silently unused
        let other: &[&str] = if poisson {
            &["STIFFNESS", "EXPONENT", "DAMPING", "DMAX"]
        } else {
            &["PENALTY", "RESTITUTION_COEFFICIENT", "NORMAL_TRANS"]
        };
        for k in other {
            if a.has(k) {
                let model = if poisson { "IMPACT" } else { "POISSON" };
                return Err(a.err(
                    a.pos_of(k),
                    format!("{k} belongs to the {model} normal force model"),
                ));
            }
        }
        let normal = match (impact, poisson) {
            (true, true) => return Err(a.err_here("say one of IMPACT or POISSON")),
            (false, true) => {
                let p = a.number("PENALTY")?;
                let p = positive(&a, "PENALTY", a.require(p, "PENALTY")?, false)?;
                let e = a.number("RESTITUTION_COEFFICIENT")?;
                let e = a.require(e, "RESTITUTION_COEFFICIENT")?;
                if !(0.0..=1.0).contains(&e) {
                    return Err(a.err(
                        a.pos_of("RESTITUTION_COEFFICIENT"),
                        format!("RESTITUTION_COEFFICIENT must be in [0, 1], found {e}"),
                    ));
                }
                let vt = a.number("NORMAL_TRANS")?.unwrap_or(0.1);
                NormalForce::Poisson {
                    penalty: p,
                    restitution: e,
                    normal_trans: positive(&a, "NORMAL_TRANS", vt, false)?,
                }
            }
            // IMPACT is the default normal force model
            _ => {
                let k = a.number("STIFFNESS")?;
                let k = positive(&a, "STIFFNESS", a.require(k, "STIFFNESS")?, false)?;
                let ex = a.number("EXPONENT")?;
                let ex = positive(&a, "EXPONENT", a.require(ex, "EXPONENT")?, false)?;
                let c = a.number("DAMPING")?;
                let c = positive(&a, "DAMPING", a.require(c, "DAMPING")?, true)?;
                let d = a.number("DMAX")?;
                let d = positive(&a, "DMAX", a.require(d, "DMAX")?, false)?;
                NormalForce::Impact {
                    stiffness: k,
                    exponent: ex,
                    damping: c,
                    dmax: d,
                }
            }
        };
        let mode = a.word("COULOMB_FRICTION")?;
        let friction = match mode.as_ref().map(|(w, p)| (w.as_str(), *p)) {
            None | Some(("OFF", _)) => None,
            Some((w @ ("ON" | "DYNAMICS_ONLY" | "DYNAMICSONLY"), _)) => {
                let mut get = |k: &str, def: f64| -> Result<f64, AdmError> {
                    Ok(a.number(k)?.unwrap_or(def))
                };
                // Adams' defaults (CONTACT statement reference)
                let f = ContactFriction {
                    dynamics_only: w != "ON",
                    mu_static: get("MU_STATIC", 0.3)?,
                    mu_dynamic: get("MU_DYNAMIC", 0.1)?,
                    stiction_transition_velocity: get("STICTION_TRANSITION_VELOCITY", 0.1)?,
                    friction_transition_velocity: get("FRICTION_TRANSITION_VELOCITY", 1.0)?,
                };
                if f.mu_static < 0.0 || f.mu_dynamic < 0.0 {
                    return Err(a.err_here("MU_STATIC and MU_DYNAMIC must be ≥ 0"));
                }
                if !(f.stiction_transition_velocity > 0.0
                    && f.friction_transition_velocity > f.stiction_transition_velocity)
                {
                    return Err(a.err_here(
                        "needs 0 < STICTION_TRANSITION_VELOCITY < FRICTION_TRANSITION_VELOCITY",
                    ));
                }
                Some(f)
            }
            Some((w, p)) => {
                return Err(a.err(
                    p,
                    format!("bad COULOMB_FRICTION '{w}' (ON, OFF or DYNAMICS_ONLY)"),
                ))
            }
        };
        // STICTION = OFF is the model used here (no stiction deformation
        // state); STICTION = ON and its deformation limit are not.
        if let Some((w, p)) = a.word("STICTION")? {
            if w != "OFF" {
                return Err(a.err(
                    p,
                    "STICTION = ON (a stiction deformation state) is not supported; the friction law is velocity-regularized",
                ));
            }
            a.ignore(&["MAX_STICTION_DEFORMATION"]);
        }
        if friction.is_none() {
            for k in [
                "MU_STATIC",
                "MU_DYNAMIC",
                "STICTION_TRANSITION_VELOCITY",
                "FRICTION_TRANSITION_VELOCITY",
            ] {
                if a.has(k) {
                    return Err(a.err(
                        a.pos_of(k),
                        format!("{k} needs COULOMB_FRICTION = ON or DYNAMICS_ONLY"),
                    ));
                }
            }
        }
        let label = a.label.clone();
        for (key, list) in [("IGEOM", &igeom), ("JGEOM", &jgeom)] {
            for &g in list.iter() {
                self.contact_tables
                    .refs
                    .push((label.clone(), key, g, a.pos_of(key)));
            }
        }
        a.finish()?;
        self.source(ElementRef::Contact(id), st.pos);
        self.model.contacts.push(Contact {
            id,
            igeom,
            jgeom,
            normal,
            friction,
        });
        Ok(())
    }

    /// A CONTACT(id, …) result named in an expression, checked at the end.
    pub(super) fn refer_contact(&mut self, id: Id, pos: Pos, label: &str, what: &str) {
        self.contact_tables
            .results
            .push((label.to_string(), id, pos, what.to_string()));
    }

    /// At the end of the dataset: every solid a CONTACT names must exist
    /// and be usable; those become model geometry.
    pub(super) fn finish_contacts(&mut self) -> Result<(), AdmError> {
        for (label, id, pos, what) in std::mem::take(&mut self.contact_tables.results) {
            if !self.model.contacts.iter().any(|c| c.id == id) {
                return Err(self.err(pos, &label, format!("{what}: CONTACT {id} does not exist")));
            }
        }
        let refs = std::mem::take(&mut self.contact_tables.refs);
        let mut used: Vec<Id> = Vec::new();
        for (label, key, g, pos) in refs {
            let Some(solid) = self.contact_tables.solids.iter().find(|s| s.id == g) else {
                return Err(self.err(
                    pos,
                    &label,
                    format!("{key} = {g}: there is no solid GRAPHICS/{g} (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS or EXTERNAL)"),
                ));
            };
            let (spos, slabel) = (solid.pos, solid.label.clone());
            match solid.result.clone() {
                Err((p, msg)) => {
                    return Err(self.err(p, &slabel, format!("{slabel} (used by {label}): {msg}")));
                }
                Ok(geom) => {
                    if !used.contains(&g) {
                        used.push(g);
                        self.refer(super::Space::Marker, geom.marker, spos, &slabel, "marker");
                        self.model.geometries.push(geom);
                        self.source(ElementRef::Graphics(g), spos);
                    }
                }
            }
        }
        // solids used by a CONTACT have an effect: not "skipped"
        self.skipped
            .retain(|s| !used.iter().any(|g| s.statement == format!("GRAPHICS/{g}")));
        Ok(())
    }
}
