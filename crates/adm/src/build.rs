//! Builder: statements → `mbsolve_model::Model`.
//!
//! Statements are handled in file order; references between elements (a
//! marker's part, a joint's markers, ids inside expressions) are collected and
//! checked at the end, because Adams allows forward references.

mod friction;
pub(crate) use friction::friction_applies;
mod contact;
mod coupler;
mod curve;
mod data;
mod elastic;
mod fe_part;
mod initial;
mod jprim;
mod plant_values;
mod point_mass;
pub(crate) mod redefine;
mod sensor;
mod states;
mod variables;

use crate::args::{resolve, Args};
use crate::error::{AdmError, Pos};
use crate::syntax::{ExprText, Statement};
use mbsolve_expr::{ArgRole, Expr, ExprConstraintFunction, ExprStateFunction, ExprTimeFunction};
use mbsolve_model::{
    euler313, CorrectorKind, ElementRef, Force, ForceKind, Formulation, FunctionRequest, Gcon, Id,
    Inertia, IntegratorKind, IntegratorSettings, Joint, JointKind, Marker, MarkerMotionAxis, Model,
    Motion, MotionDof, MotionTarget, Part, Placement, Request, RequestKind, StaticMethod,
    StaticSettings, Units, VectorStatement,
};
use nalgebra::{Matrix3, Vector3};
use std::collections::HashMap;
use std::sync::Arc;
use variables::{ElementCall, PendingFunction, Unresolved};

/// Every Adams dataset statement name (for abbreviation and for a clear
/// "not supported yet" instead of "unknown statement").
pub(crate) const STATEMENTS: &[&str] = &[
    "ACCGRAV",
    "ARRAY",
    "BEAM",
    "BUSHING",
    "CLEARANCE",
    "CONTACT",
    "COUPLER",
    "CURVE",
    "CVCV",
    "DEBUG",
    "DIFF",
    "END",
    "ENVIRONMENT",
    "EQUILIBRIUM",
    "FE_LOAD",
    "FE_NODE",
    "FE_PART",
    "FEMDATA",
    "FIELD",
    "FLEX_BODY",
    "FRICTION",
    "GCON",
    "GEAR",
    "GFORCE",
    "GRAPHICS",
    "GSE",
    "IC",
    "INTEGRATOR",
    "JOINT",
    "JPRIM",
    "KINEMATICS",
    "LIST",
    "LSE",
    "LSOLVER",
    "MARKER",
    "MATERIAL",
    "MATRIX",
    "MFORCE",
    "MOTION",
    "NFORCE",
    "NOLIST",
    "OUTPUT",
    "PART",
    "PINPUT",
    "POINT_MASS",
    "POUTPUT",
    "PREFERENCES",
    "PTCV",
    "REQUEST",
    "RESULTS",
    "SECTION",
    "SENSOR",
    "SFORCE",
    "SPLINE",
    "SPRINGDAMPER",
    "STRING",
    "SURFACE",
    "TFSISO",
    "UCON",
    "UNITS",
    "VARIABLE",
    "VFORCE",
    "VTORQUE",
];

/// A statement that was read and deliberately not turned into model data
/// (GRAPHICS geometry, RESULTS file options): no effect on the solution.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    pub statement: String,
    pub location: String,
    pub reason: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Space {
    Part,
    PointMass,
    Marker,
    Joint,
    Motion,
    Sforce,
    Springdamper,
    Vforce,
    Vtorque,
    Gforce,
    Gcon,
    Friction,
    Variable,
    Jprim,
    Pinput,
    Poutput,
    Spline,
    String,
    Bushing,
    Field,
    Beam,
    Coupler,
    Gear,
    Diff,
    Array,
    Matrix,
    Lse,
    Tfsiso,
    Sensor,
    Curve,
    Ptcv,
    Cvcv,
}

impl Space {
    fn name(self) -> &'static str {
        match self {
            Space::Part => "PART",
            Space::PointMass => "POINT_MASS",
            Space::Marker => "MARKER",
            Space::Joint => "JOINT",
            Space::Motion => "MOTION",
            Space::Sforce => "SFORCE",
            Space::Springdamper => "SPRINGDAMPER",
            Space::Vforce => "VFORCE",
            Space::Vtorque => "VTORQUE",
            Space::Gforce => "GFORCE",
            Space::Gcon => "GCON",
            Space::Friction => "FRICTION",
            Space::Variable => "VARIABLE",
            Space::Jprim => "JPRIM",
            Space::Pinput => "PINPUT",
            Space::Poutput => "POUTPUT",
            Space::Spline => "SPLINE",
            Space::String => "STRING",
            Space::Bushing => "BUSHING",
            Space::Field => "FIELD",
            Space::Beam => "BEAM",
            Space::Coupler => "COUPLER",
            Space::Gear => "GEAR",
            Space::Diff => "DIFF",
            Space::Array => "ARRAY",
            Space::Matrix => "MATRIX",
            Space::Lse => "LSE",
            Space::Tfsiso => "TFSISO",
            Space::Sensor => "SENSOR",
            Space::Curve => "CURVE",
            Space::Ptcv => "PTCV",
            Space::Cvcv => "CVCV",
        }
    }
}

/// A reference to check once every statement is read.
struct Ref {
    space: Space,
    id: Id,
    /// The file `pos` is in: the dataset, or the command file of a FUNCTION
    /// redefined there.
    file: String,
    pos: Pos,
    label: String,
    role: String,
}

/// PART initial velocities, resolved once markers are known.
struct PartVelocity {
    part_index: usize,
    v: Vector3<f64>,
    w: Vector3<f64>,
    vm: Option<Id>,
    wm: Option<Id>,
}

pub(crate) struct Builder<'a> {
    file: &'a str,
    pub model: Model,
    pub skipped: Vec<Skipped>,
    defined: HashMap<(Space, Id), Pos>,
    refs: Vec<Ref>,
    /// FLOATING markers: defined (so their ids resolve) but positioned only
    /// by the elements that use them, none of which is supported yet.
    /// FLOATING markers with their parts.
    floating: std::collections::HashMap<Id, Id>,
    velocities: Vec<PartVelocity>,
    /// Motions that did not say TRANSLATION/ROTATION: (motion index, pos, label).
    motion_dof_pending: Vec<(usize, Pos, String)>,
    /// VARIABLE functions by id, with their text (for positions), label
    /// and the file the text is in.
    variables: Vec<(Id, Expr, ExprText, String, String)>,
    /// VARIABLE IC = values by id: the initial guesses of implicit ones.
    variable_ics: HashMap<Id, f64>,
    /// Force, motion and GCON functions that read VARVAL: converted once
    /// every VARIABLE is known.
    pending_functions: Vec<PendingFunction>,
    /// Where each LSE/TFSISO was written (file, position, label), in
    /// `model.linear_systems` order: resolved once every statement is read.
    linear_sources: Vec<(String, Pos, String)>,
    /// Element results (SFORCE(…)) named in expressions, checked against
    /// the element once every statement is read.
    element_calls: Vec<ElementCall>,
    seen_units: bool,
    seen_accgrav: bool,
    seen_integrator: bool,
    seen_kinematics: bool,
    /// FRICTION statements whose joint-type rules are checked in `finish`.
    friction_pending: Vec<friction::PendingFriction>,
    /// SPLINE data by id, read ahead of the other statements
    /// (`predefine_splines`) and bound into every compiled expression.
    splines: HashMap<Id, Arc<mbsolve_model::Spline>>,
    /// PINPUT/POUTPUT VARIABLES lists read ahead (`predefine_plant_io`)
    /// for PINVAL/POUVAL in expressions.
    plant_lists: plant_values::PlantLists,
    /// VELOCITY/ACCELERATION motions (index, integration constants),
    /// wrapped in their displacement integral by `finish`.
    motion_integrals: Vec<(usize, mbsolve_model::MotionIntegral)>,
    /// GRAPHICS solids and CONTACT references (build/contact.rs).
    contact_tables: contact::ContactTables,
    /// The curve data of each CURVE() call, filled once its CURVE and
    /// MATRIX are read (build/curve.rs).
    curve_slots: HashMap<Id, mbsolve_expr::CurveSlot>,
    /// FE_PART, FE_NODE, SECTION, MATERIAL and FE-node markers (build/fe_part.rs).
    fe: fe_part::FeTables,
}

/// The PREFERENCES values mbsolve reads, statement and command alike:
/// CONTACT_FACETING_TOLERANCE and NTHREADS range-checked, the
/// CONTACT_GEOMETRY_LIBRARY named checked and returned.
pub(crate) fn preference_values(a: &mut Args) -> Result<Option<String>, AdmError> {
    if let Some(t) = a.number("CONTACT_FACETING_TOLERANCE")? {
        if t <= 0.0 {
            return Err(a.err(
                a.pos_of("CONTACT_FACETING_TOLERANCE"),
                format!(
                    "CONTACT_FACETING_TOLERANCE must be positive, found {}",
                    mbsolve_model::readable(t)
                ),
            ));
        }
    }
    // The contact geometry engine Adams should use (its default,
    // RAPID, or Parasolid): mbsolve has one engine, analytic for the
    // GRAPHICS primitives and parry3d for meshes, whichever is named.
    let mut library = None;
    if let Some((w, pos)) = a.word("CONTACT_GEOMETRY_LIBRARY")? {
        let w = w.to_ascii_uppercase();
        let names = ["DEFAULT_LIBRARY", "PARASOLID", "RAPID"];
        if !names
            .iter()
            .any(|n| n.starts_with(w.as_str()) && !w.is_empty())
        {
            return Err(a.err(
                pos,
                format!(
                    "CONTACT_GEOMETRY_LIBRARY = {w} is not one of {}",
                    names.join(", ")
                ),
            ));
        }
        library = Some(w);
    }
    if let Some(n) = a.integer("NTHREADS")? {
        if n < 1 {
            return Err(a.err(
                a.pos_of("NTHREADS"),
                format!("NTHREADS must be at least 1, found {n}"),
            ));
        }
    }
    Ok(library)
}

/// "file:line:col: LABEL: message".
fn err_in(file: &str, pos: Pos, label: &str, msg: impl AsRef<str>) -> AdmError {
    AdmError::new(
        file,
        pos,
        Some(label.to_string()),
        format!("{label}: {}", msg.as_ref()),
    )
}

fn loc(file: &str, pos: Pos) -> String {
    format!("{file}:{}", pos.line)
}

impl<'a> Builder<'a> {
    pub fn new(file: &'a str, title: &str) -> Self {
        Builder {
            file,
            model: Model::new(title),
            skipped: Vec::new(),
            defined: HashMap::new(),
            refs: Vec::new(),
            floating: Default::default(),
            velocities: Vec::new(),
            motion_dof_pending: Vec::new(),
            variables: Vec::new(),
            variable_ics: HashMap::new(),
            pending_functions: Vec::new(),
            linear_sources: Vec::new(),
            element_calls: Vec::new(),
            seen_units: false,
            seen_accgrav: false,
            seen_integrator: false,
            seen_kinematics: false,
            friction_pending: Vec::new(),
            splines: HashMap::new(),
            plant_lists: HashMap::new(),
            motion_integrals: Vec::new(),
            contact_tables: Default::default(),
            curve_slots: HashMap::new(),
            fe: Default::default(),
        }
    }

    fn err(&self, pos: Pos, label: &str, msg: impl AsRef<str>) -> AdmError {
        err_in(self.file, pos, label, msg)
    }

    pub fn statement(&mut self, st: &Statement) -> Result<(), AdmError> {
        let name = match resolve(&st.name, STATEMENTS, &[]) {
            Ok(n) => n,
            Err(e) if e.is_empty() => {
                return Err(AdmError::new(
                    self.file,
                    st.pos,
                    Some(st.label()),
                    format!("unknown statement {}", st.name),
                ))
            }
            Err(e) => {
                return Err(AdmError::new(
                    self.file,
                    st.pos,
                    Some(st.label()),
                    format!("ambiguous statement abbreviation {} ({e})", st.name),
                ))
            }
        };
        let label = match st.id {
            Some(id) => format!("{name}/{id}"),
            None => name.to_string(),
        };
        let needs_id = matches!(
            name,
            "PART"
                | "MARKER"
                | "POINT_MASS"
                | "JOINT"
                | "JPRIM"
                | "MOTION"
                | "SPRINGDAMPER"
                | "SFORCE"
                | "REQUEST"
                | "VARIABLE"
                | "GCON"
                | "PINPUT"
                | "POUTPUT"
                | "VFORCE"
                | "VTORQUE"
                | "GFORCE"
                | "FRICTION"
                | "SPLINE"
                | "STRING"
                | "BUSHING"
                | "FIELD"
                | "BEAM"
                | "COUPLER"
                | "GEAR"
                | "DIFF"
                | "ARRAY"
                | "MATRIX"
                | "LSE"
                | "TFSISO"
                | "GSE"
                | "SENSOR"
                | "CURVE"
                | "PTCV"
                | "CVCV"
        );
        let id = match (needs_id, st.id) {
            (_, Some(0)) => {
                return Err(AdmError::new(
                    self.file,
                    st.pos,
                    Some(label.clone()),
                    format!("{label}: {}", crate::args::ID_RULE),
                ))
            }
            (true, Some(id)) => id,
            (true, None) => {
                return Err(AdmError::new(
                    self.file,
                    st.pos,
                    Some(label.clone()),
                    format!("{name} needs an id ({name}/id)"),
                ))
            }
            (false, _) => 0,
        };
        reject_user_subroutine(self.file, st, name, &label)?;
        match name {
            "UNITS" => self.units(st, label),
            "ACCGRAV" => self.accgrav(st, label),
            "PART" => self.part(st, label, id),
            "MARKER" => self.marker(st, label, id),
            "JOINT" => self.joint(st, label, id),
            "JPRIM" => self.jprim(st, label, id),
            "VARIABLE" => self.variable(st, label, id),
            "DIFF" => self.diff(st, label, id),
            "ARRAY" => self.array(st, label, id),
            "MATRIX" => self.matrix(st, label, id),
            "LSE" => self.lse(st, label, id),
            "TFSISO" => self.tfsiso(st, label, id),
            "GSE" => Err(self.err(
                st.pos,
                &label,
                format!("{label}: a GSE is defined by user subroutines (GSE_DERIV, GSE_OUTPUT, …), which mbsolve cannot run"),
            )),
            "MOTION" => self.motion(st, label, id),
            "SPRINGDAMPER" => self.springdamper(st, label, id),
            "SFORCE" => self.sforce(st, label, id),
            "VFORCE" => self.vector_force(st, label, id, VectorStatement::Vforce),
            "VTORQUE" => self.vector_force(st, label, id, VectorStatement::Vtorque),
            "GFORCE" => self.vector_force(st, label, id, VectorStatement::Gforce),
            "GCON" => self.gcon(st, label, id),
            "FRICTION" => self.friction(st, label, id),
            "SPLINE" => self.spline(st, label, id),
            "STRING" => self.string(st, label, id),
            "BUSHING" => self.elastic(st, label, id, mbsolve_model::ElasticStatement::Bushing),
            "FIELD" => self.elastic(st, label, id, mbsolve_model::ElasticStatement::Field),
            "BEAM" => self.elastic(st, label, id, mbsolve_model::ElasticStatement::Beam),
            "COUPLER" => self.coupler(st, label, id),
            "GEAR" => self.gear(st, label, id),
            "POINT_MASS" => self.point_mass(st, label, id),
            "FE_PART" => self.fe_part(st, label),
            "FE_NODE" => self.fe_node(st, label),
            "SECTION" => self.fe_section(st, label),
            "FE_LOAD" => Err(self.fe_load_refused(st, &label)),
            "SENSOR" => self.sensor(st, label, id),
            "CURVE" => self.curve(st, label, id),
            "PTCV" => self.ptcv(st, label, id),
            "CVCV" => self.cvcv(st, label, id),
            "REQUEST" => self.request(st, label, id),
            "INTEGRATOR" => {
                if self.seen_integrator {
                    return Err(self.err(st.pos, &label, "a second INTEGRATOR statement"));
                }
                self.seen_integrator = true;
                let mut a = Args::new(self.file, st, label, INTEGRATOR_KEYS, &[])?;
                // DEFAULT is left unconsumed: it belongs to the INTEGRATOR command.
                let settings = integrator_settings(&mut a)?;
                a.finish()?;
                self.model.integrator = settings;
                Ok(())
            }
            "EQUILIBRIUM" => {
                let mut a = Args::new(self.file, st, label, EQUILIBRIUM_KEYS, &[])?;
                // DEFAULT is left unconsumed: it belongs to the EQUILIBRIUM command.
                self.model.equilibrium = equilibrium_settings(&mut a)?;
                a.finish()?;
                Ok(())
            }
            "OUTPUT" => {
                let mut a = Args::new(self.file, st, label, OUTPUT_KEYS, &[])?;
                a.ignore(OUTPUT_IGNORED);
                a.finish()
            }
            "GRAPHICS" => self.graphics(st, label),
            "CONTACT" => self.contact(st, label, st.id.unwrap_or(0)),
            "PINPUT" | "POUTPUT" => self.plant_io(st, label, id, name == "PINPUT"),
            "PREFERENCES" => self.preferences(st, label),
            "KINEMATICS" => {
                let mut a = Args::new(self.file, st, label, KINEMATICS_KEYS, &[])?;
                if self.seen_kinematics {
                    return Err(a.err_here("a second KINEMATICS statement"));
                }
                self.seen_kinematics = true;
                let hmax = a.number("HMAX")?;
                if let Some(h) = hmax.filter(|h| *h <= 0.0) {
                    return Err(a.err(
                        a.pos_of("HMAX"),
                        format!(
                            "HMAX must be positive, found {}",
                            mbsolve_model::readable(h)
                        ),
                    ));
                }
                // ERROR, MAXIT, PATTERN, TLIMIT, ALIMIT, AERROR, APATTERN
                // tune Adams' kinematic corrector, which mbsolve's does not
                // share: finish() rejects them by name.
                a.finish()?;
                self.model.kinematics = mbsolve_model::KinematicSettings { hmax };
                Ok(())
            }
            "MATERIAL" => {
                // Material data: a PART gives MASS and IP explicitly; an
                // FE_PART reads its MATERIAL (build/fe_part.rs), which then
                // leaves this skipped list.
                self.fe_material(st);
                self.skipped.push(Skipped {
                    statement: label,
                    location: loc(self.file, st.pos),
                    reason: "material data, read only by FE_PARTs (none reads this one)",
                });
                Ok(())
            }
            "DEBUG" => {
                let mut a = Args::new(self.file, st, label.clone(), DEBUG_KEYS, &[])?;
                // Adams Solver DEBUG: what its message and tabular files
                // print (EPRINT, DUMP, …); no effect on the solution.
                a.ignore(DEBUG_KEYS);
                a.finish()?;
                self.skipped.push(Skipped {
                    statement: label,
                    location: loc(self.file, st.pos),
                    reason: "Adams diagnostic printout only",
                });
                Ok(())
            }
            "LIST" | "NOLIST" => {
                // Adams: list (or not) the dataset in its output file.
                let a = Args::new(self.file, st, label.clone(), &[], &[])?;
                a.finish()?;
                self.skipped.push(Skipped {
                    statement: label,
                    location: loc(self.file, st.pos),
                    reason: "listing of the dataset in Adams' output file only",
                });
                Ok(())
            }
            "LSOLVER" => {
                // Adams' choice of sparse linear solver (AUTO, CALAHAN, UMF):
                // speed, not results. mbsolve factors with its own sparse LU.
                // STABILITY (the pivoting threshold of Adams' LU) would change
                // the numbers, so finish() refuses it by name.
                let mut a = Args::new(
                    self.file,
                    st,
                    label.clone(),
                    &["AUTO", "CALAHAN", "UMF", "STABILITY"],
                    &[],
                )?;
                let chosen: Vec<&str> = ["AUTO", "CALAHAN", "UMF"]
                    .into_iter()
                    .filter(|k| a.has(k))
                    .collect();
                if chosen.len() > 1 {
                    return Err(a.err(
                        a.pos_of(chosen[1]),
                        format!("{} and {} are exclusive", chosen[0], chosen[1]),
                    ));
                }
                a.ignore(&["AUTO", "CALAHAN", "UMF"]);
                a.finish()?;
                self.skipped.push(Skipped {
                    statement: label,
                    location: loc(self.file, st.pos),
                    reason: "Adams' choice of linear solver: mbsolve factors with its own sparse LU, and the choice changes speed, not results",
                });
                Ok(())
            }
            "RESULTS" => {
                // Options of Adams' own results file (XRF, …): no effect on the solution.
                self.skipped.push(Skipped {
                    statement: label,
                    location: loc(self.file, st.pos),
                    reason: "results-file format only",
                });
                Ok(())
            }
            other => Err(self.err(
                st.pos,
                &label,
                format!("statement {other} is not supported yet"),
            )),
        }
    }
}

/// `FUNCTION = USER(…)` or `ROUTINE = lib::name` on any statement or
/// command: Adams calls a compiled user subroutine that mbsolve cannot load,
/// so the element is rejected naming the subroutine (issue 16 item 5),
/// before any "statement … not supported yet", so that a deck's report says
/// what really blocks it.
pub(crate) fn reject_user_subroutine(
    file: &str,
    st: &Statement,
    name: &str,
    label: &str,
) -> Result<(), AdmError> {
    let routine = st
        .args
        .iter()
        .find(|a| a.key.len() >= 3 && "ROUTINE".starts_with(a.key.as_str()));
    let user = st.args.iter().find_map(|a| match &a.value {
        crate::syntax::Value::Expr(e) if is_user_call(&e.text) => Some((a, e)),
        _ => None,
    });
    let routine_name = routine.map(|a| match &a.value {
        crate::syntax::Value::List(items) => items
            .iter()
            .map(|i| i.text.trim())
            .collect::<Vec<_>>()
            .join(","),
        crate::syntax::Value::Text(i) => i.text.trim().to_string(),
        _ => String::new(),
    });
    let subroutine = match routine_name.filter(|r| !r.is_empty()) {
        Some(r) => r,
        None => match default_subroutine(name) {
            Some(s) => s.to_string(),
            None => format!("the {name} user subroutine"),
        },
    };
    let cannot = "mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression";
    match (user, routine) {
        (Some((a, e)), _) => Err(err_in(
            file,
            a.pos,
            label,
            format!(
                "{} = {} calls the user subroutine {subroutine}; {cannot}",
                a.key,
                user_call_head(&e.text)
            ),
        )),
        (None, Some(r)) => Err(err_in(
            file,
            r.pos,
            label,
            format!("ROUTINE = {subroutine} names a user subroutine; {cannot}"),
        )),
        (None, None) => Ok(()),
    }
}

impl<'a> Builder<'a> {
    /// PINPUT/id or POUTPUT/id, VARIABLES = id, …: the plant's inputs or
    /// outputs for a controller, in order (Adams/Controls).
    fn plant_io(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
        input: bool,
    ) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["VARIABLES"], &[])?;
        let space = if input { Space::Pinput } else { Space::Poutput };
        self.define(space, id, st.pos, &a.label)?;
        let Some(list) = a.text("VARIABLES")? else {
            return Err(a.err_here("missing VARIABLES = id, …"));
        };
        let pos = a.pos_of("VARIABLES");
        let mut variables = Vec::new();
        for t in list.split(',') {
            match crate::args::parse_id(t) {
                Some(v) if v > 0 => {
                    if variables.contains(&v) {
                        return Err(a.err(pos, format!("VARIABLES names VARIABLE/{v} twice")));
                    }
                    self.refer(Space::Variable, v, pos, &a.label, "VARIABLES: VARIABLE");
                    variables.push(v);
                }
                _ => return Err(a.err(pos, format!("bad VARIABLE id '{}' in VARIABLES", t.trim()))),
            }
        }
        a.finish()?;
        let io = mbsolve_model::PlantIo { id, variables };
        if input {
            self.model.plant_inputs.push(io);
        } else {
            self.model.plant_outputs.push(io);
        }
        Ok(())
    }

    /// PREFERENCES: CONTACT_FACETING_TOLERANCE and CONTACT_GEOMETRY_LIBRARY
    /// tune Adams' contact geometry engines, which mbsolve does not use;
    /// NTHREADS is Adams' thread count, on which no result depends. They are
    /// read (and checked) and recorded as skipped; every other preference
    /// (solver bias, library paths, …) is rejected by name.
    fn preferences(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label.clone(), PREFERENCES_KEYS, &[])?;
        let library = preference_values(&mut a)?;
        a.finish()?;
        self.skipped.push(Skipped {
            statement: label,
            location: loc(self.file, st.pos),
            reason: if library.is_some() {
                "contact faceting, geometry library and thread count: mbsolve's contact geometry is analytic for GRAPHICS primitives and parry3d for meshes, whatever library or faceting is named, and no result depends on the thread count"
            } else {
                "contact faceting and thread count: mbsolve's contact geometry is analytic for GRAPHICS primitives and parry3d for meshes, whatever faceting is named, and no result depends on the thread count"
            },
        });
        Ok(())
    }

    fn define(&mut self, space: Space, id: Id, pos: Pos, label: &str) -> Result<(), AdmError> {
        if let Some(first) = self.defined.get(&(space, id)) {
            return Err(self.err(
                pos,
                label,
                format!(
                    "duplicate id: {}/{id} is already defined at {}:{}",
                    space.name(),
                    self.file,
                    first.line
                ),
            ));
        }
        self.defined.insert((space, id), pos);
        Ok(())
    }

    fn refer(&mut self, space: Space, id: Id, pos: Pos, label: &str, role: &str) {
        self.refs.push(Ref {
            space,
            id,
            file: self.file.to_string(),
            pos,
            label: label.to_string(),
            role: role.to_string(),
        });
    }

    fn source(&mut self, e: ElementRef, pos: Pos) {
        self.model.sources.push((e, loc(self.file, pos)));
    }

    /// Marker id argument, recorded for the end-of-file check.
    fn marker_arg(&mut self, a: &mut Args, key: &str) -> Result<Option<Id>, AdmError> {
        match a.id(key)? {
            Some((id, pos)) => {
                self.refer(Space::Marker, id, pos, &a.label, &format!("{key} marker"));
                Ok(Some(id))
            }
            None => Ok(None),
        }
    }

    fn required_marker(&mut self, a: &mut Args, key: &str) -> Result<Id, AdmError> {
        let m = self.marker_arg(a, key)?;
        a.require(m, key)
    }

    /// Compile an expression; record the ids it names.
    fn compile(&mut self, e: &ExprText, label: &str) -> Result<Expr, AdmError> {
        let text = plant_values::rewrite(&e.text, &self.plant_lists)
            .map_err(|(at, message)| self.err(e.pos_at(at), label, message))?;
        let expr = Expr::parse(&text)
            .and_then(|x| x.with_splines(&|id| self.splines.get(&id).cloned()))
            .map_err(|x| self.err(e.pos_at(x.span.start), label, &x.message))?;
        let expr = self.bind_curves(expr, e, label);
        for (slot, call) in expr.measures().iter().enumerate() {
            let pos = e.pos_at(expr.measure_span(slot).start);
            let what = call.to_string();
            for (role, id) in call.references() {
                let space = match role {
                    ArgRole::Marker => Space::Marker,
                    ArgRole::Joint => Space::Joint,
                    ArgRole::Jprim => Space::Jprim,
                    ArgRole::Motion => Space::Motion,
                    ArgRole::Sforce => Space::Sforce,
                    ArgRole::Variable => Space::Variable,
                    ArgRole::Contact => {
                        self.refer_contact(id, pos, label, &what);
                        continue;
                    }
                    ArgRole::Diff => Space::Diff,
                    ArgRole::Array => Space::Array,
                    ArgRole::Beam => Space::Beam,
                    ArgRole::Bushing => Space::Bushing,
                    ArgRole::Field => Space::Field,
                    ArgRole::Springdamper => Space::Springdamper,
                    ArgRole::Gforce => Space::Gforce,
                    ArgRole::Vforce => Space::Vforce,
                    ArgRole::Vtorque => Space::Vtorque,
                    ArgRole::Friction => Space::Friction,
                    ArgRole::Ptcv => Space::Ptcv,
                    ArgRole::Cvcv => Space::Cvcv,
                    ArgRole::Number => continue,
                };
                self.refer(space, id, pos, label, &format!("{what}: {}", space.name()));
            }
            if variables::checked_at_read(call.kind) {
                self.element_calls.push(ElementCall {
                    call: call.clone(),
                    file: self.file.to_string(),
                    pos,
                    label: label.to_string(),
                });
            }
        }
        Ok(self.bind_senvals(expr, e, label))
    }

    /// UNITS (Adams Solver reference): FORCE, MASS, LENGTH and TIME by name
    /// (full names or unique prefixes), or a predefined SYSTEM (CGS, FPS,
    /// IPS, MKS; NONE = nondimensional, UCF = 1), or a factor UCF = r. The
    /// three forms exclude one another. A unit left out of the four is SI's.
    fn units(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        use mbsolve_model::Dimension;
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["FORCE", "MASS", "LENGTH", "TIME", "SYSTEM", "UCF"],
            &[],
        )?;
        if self.seen_units {
            return Err(a.err_here("a second UNITS statement"));
        }
        self.seen_units = true;
        let named: Vec<&str> = ["FORCE", "MASS", "LENGTH", "TIME"]
            .into_iter()
            .filter(|k| a.has(k))
            .collect();
        for (form, other) in [("SYSTEM", "UCF"), ("SYSTEM", ""), ("UCF", "")] {
            if !a.has(form) {
                continue;
            }
            let clash = if other.is_empty() {
                named.first().copied()
            } else if a.has(other) {
                Some(other)
            } else {
                None
            };
            if let Some(c) = clash {
                return Err(a.err(
                    a.pos_of(c),
                    format!(
                        "{c} cannot be given with {form} (Adams: UNITS takes the four units, a SYSTEM or a UCF)"
                    ),
                ));
            }
        }
        let mut u = Units::default();
        if let Some((w, pos)) = a.word("SYSTEM")? {
            let name = w.to_ascii_uppercase();
            if "NONE".starts_with(&name) && !name.is_empty() {
                u.ucf = Some(1.0);
            } else {
                let hits: Vec<&str> = mbsolve_model::SYSTEMS
                    .iter()
                    .map(|s| s.0)
                    .filter(|s| s.starts_with(&name) && !name.is_empty())
                    .collect();
                match hits.as_slice() {
                    [one] => u = Units::system(one).expect("a listed system"),
                    _ => {
                        return Err(a.err(
                            pos,
                            format!(
                                "SYSTEM = {w} is not an Adams unit system (one of CGS, FPS, IPS, MKS, NONE)"
                            ),
                        ))
                    }
                }
            }
        }
        if let Some(r) = a.number("UCF")? {
            if r.is_nan() || r <= 0.0 {
                return Err(a.err(
                    a.pos_of("UCF"),
                    format!("UCF must be positive, found {}", mbsolve_model::readable(r)),
                ));
            }
            u.ucf = Some(r);
        }
        for (key, d) in [
            ("FORCE", Dimension::Force),
            ("MASS", Dimension::Mass),
            ("LENGTH", Dimension::Length),
            ("TIME", Dimension::Time),
        ] {
            if let Some((w, pos)) = a.word(key)? {
                let name = mbsolve_model::resolve_unit(d, &w).map_err(|m| a.err(pos, m))?;
                let field = match d {
                    Dimension::Force => &mut u.force,
                    Dimension::Mass => &mut u.mass,
                    Dimension::Length => &mut u.length,
                    Dimension::Time => &mut u.time,
                };
                *field = name.to_string();
            }
        }
        a.finish()?;
        self.model.units = u;
        Ok(())
    }

    fn accgrav(&mut self, st: &Statement, label: String) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["IGRAV", "JGRAV", "KGRAV"], &[])?;
        if self.seen_accgrav {
            return Err(a.err_here("a second ACCGRAV statement"));
        }
        self.seen_accgrav = true;
        let g = Vector3::new(
            a.number("IGRAV")?.unwrap_or(0.0),
            a.number("JGRAV")?.unwrap_or(0.0),
            a.number("KGRAV")?.unwrap_or(0.0),
        );
        a.finish()?;
        self.model.gravity = g;
        Ok(())
    }

    fn part(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, PART_KEYS, &[])?;
        self.body_id_in_range(&a, id)?;
        self.define(Space::Part, id, st.pos, &a.label)?;
        // MATERIAL names the material for the user's records; mass and
        // inertia are given explicitly.
        a.ignore(&["MATERIAL"]);
        if a.flag("GROUND")? {
            if self.model.parts.iter().any(|p| p.ground) {
                return Err(a.err_here("a second GROUND part"));
            }
            a.finish()?;
            self.model.parts.push(Part::ground(id));
            self.source(ElementRef::Part(id), st.pos);
            return Ok(());
        }
        let mass = a.number("MASS")?.unwrap_or(0.0);
        let cm = self.marker_arg(&mut a, "CM")?;
        if let Some((im, pos)) = a.id("IM")? {
            if Some(im) != cm {
                return Err(a.err(
                    pos,
                    "an inertia marker IM different from CM is not supported yet",
                ));
            }
        }
        let inertia = match a.numbers_range("IP", 3, 6)? {
            None => Inertia::default(),
            Some(v) if v.len() == 3 => Inertia::diagonal(v[0], v[1], v[2]),
            Some(v) if v.len() == 6 => Inertia {
                ixx: v[0],
                iyy: v[1],
                izz: v[2],
                ixy: v[3],
                ixz: v[4],
                iyz: v[5],
            },
            Some(v) => {
                return Err(a.err(
                    a.pos_of("IP"),
                    format!("IP takes 3 or 6 values, found {}", v.len()),
                ))
            }
        };
        let qg = a.vec3("QG")?.unwrap_or_else(Vector3::zeros);
        let rotation = orientation(&mut a, "REULER", "ZG", "XG", qg)?;
        let comp =
            |a: &mut Args, k: &str| -> Result<f64, AdmError> { Ok(a.number(k)?.unwrap_or(0.0)) };
        let v = Vector3::new(
            comp(&mut a, "VX")?,
            comp(&mut a, "VY")?,
            comp(&mut a, "VZ")?,
        );
        let w = Vector3::new(
            comp(&mut a, "WX")?,
            comp(&mut a, "WY")?,
            comp(&mut a, "WZ")?,
        );
        let vm = self.marker_arg(&mut a, "VM")?;
        let wm = self.marker_arg(&mut a, "WM")?;
        a.finish()?;
        let mut part = Part::body(id, mass, inertia, Placement::new(qg, rotation));
        part.cm = cm;
        self.velocities.push(PartVelocity {
            part_index: self.model.parts.len(),
            v,
            w,
            vm,
            wm,
        });
        self.model.parts.push(part);
        self.source(ElementRef::Part(id), st.pos);
        Ok(())
    }

    fn marker(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, MARKER_KEYS, &[])?;
        self.define(Space::Marker, id, st.pos, &a.label)?;
        if self.fe_marker_taken(&mut a, id, st.pos)? {
            return a.finish();
        }
        let part = match self.marker_point_mass(&mut a)? {
            Some(point_mass) => point_mass,
            None => {
                let part = a.id("PART")?;
                let (part, ppos) = a.require(part, "PART")?;
                self.refer(Space::Part, part, ppos, &a.label, "PART");
                part
            }
        };
        if a.flag("FLOATING")? {
            // Its position comes from the element that uses it (VFORCE,
            // VTORQUE, GFORCE, PTCV, CVCV, CONTACT …).
            a.finish()?;
            self.floating.insert(id, part);
            self.source(ElementRef::Marker(id), st.pos);
            return Ok(());
        }
        let qp = a.vec3("QP")?.unwrap_or_else(Vector3::zeros);
        let rotation = orientation(&mut a, "REULER", "ZP", "XP", qp)?;
        a.finish()?;
        self.model.markers.push(Marker {
            id,
            part,
            placement: Placement::new(qp, rotation),
        });
        self.source(ElementRef::Marker(id), st.pos);
        Ok(())
    }

    fn joint(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, JOINT_KEYS, &[])?;
        self.define(Space::Joint, id, st.pos, &a.label)?;
        let kinds = [
            ("REVOLUTE", JointKind::Revolute),
            ("TRANSLATIONAL", JointKind::Translational),
            ("SPHERICAL", JointKind::Spherical),
            ("FIXED", JointKind::Fixed),
            ("CYLINDRICAL", JointKind::Cylindrical),
            ("UNIVERSAL", JointKind::Universal),
            ("HOOKE", JointKind::Hooke),
            ("PLANAR", JointKind::Planar),
        ];
        let mut kind = None;
        for (key, k) in kinds {
            if a.flag(key)? {
                if kind.is_some() {
                    return Err(a.err(a.pos_of(key), "more than one joint type"));
                }
                kind = Some(k);
            }
        }
        // RACKPIN, PD = pitch diameter (seeds: JOINT/RACKPIN).
        if a.flag("RACKPIN")? {
            if kind.is_some() {
                return Err(a.err(a.pos_of("RACKPIN"), "more than one joint type"));
            }
            let Some(pd) = a.number("PD")? else {
                return Err(a.err_here("RACKPIN needs PD = pitch diameter of the pinion"));
            };
            kind = Some(JointKind::RackPin { pitch_diameter: pd });
        } else if a.has("PD") {
            return Err(a.err(
                a.pos_of("PD"),
                "PD (pitch diameter) applies to a RACKPIN joint only",
            ));
        }
        let i = self.required_marker(&mut a, "I")?;
        let j = self.required_marker(&mut a, "J")?;
        // IC = displacement, velocity; ICTRAN/ICROT: held during the
        // initial-condition analysis only (see build/initial.rs).
        self.joint_ics(&mut a, id, kind)?;
        // an unsupported joint type (SCREW, CONVEL) is reported by finish()
        if kind.is_none() && !["SCREW", "CONVEL"].iter().any(|k| a.has(k)) {
            return Err(a.err_here(
                "missing joint type (REVOLUTE, TRANSLATIONAL, SPHERICAL, FIXED, CYLINDRICAL, UNIVERSAL, HOOKE, PLANAR or RACKPIN)",
            ));
        }
        self.reject_old_joint_friction(&a)?;
        a.finish()?;
        let kind = kind.unwrap_or(JointKind::Fixed);
        self.model.joints.push(Joint { id, kind, i, j });
        self.source(ElementRef::Joint(id), st.pos);
        Ok(())
    }

    /// MOTION/id on a joint (JOINT=, TRANSLATION|ROTATION) or between two
    /// markers (I=, J=, X|Y|Z|B1|B2|B3), FUNCTION = expression of time.
    fn motion(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            MOTION_KEYS,
            &[("TRANSLATIONAL", "TRANSLATION"), ("ROTATIONAL", "ROTATION")],
        )?;
        self.define(Space::Motion, id, st.pos, &a.label)?;
        // VELOCITY/ACCELERATION with ICDISP, ICVEL (see build/initial.rs)
        self.motion_integral(&mut a)?;
        let components = [
            ("X", MarkerMotionAxis::X),
            ("Y", MarkerMotionAxis::Y),
            ("Z", MarkerMotionAxis::Z),
            ("B1", MarkerMotionAxis::B1),
            ("B2", MarkerMotionAxis::B2),
            ("B3", MarkerMotionAxis::B3),
        ];
        let mut component = None;
        for (key, axis) in components {
            if a.flag(key)? {
                if component.is_some() {
                    return Err(a.err(
                        a.pos_of(key),
                        "a MOTION drives one component: X, Y, Z, B1, B2 or B3",
                    ));
                }
                component = Some(axis);
            }
        }
        let by_markers = a.has("I") || a.has("J") || component.is_some();
        let mut pending_dof = false;
        let target = if by_markers {
            if a.has("JOINT") {
                return Err(a.err(
                    a.pos_of("JOINT"),
                    "a MOTION acts either on a JOINT or between markers I and J, not both",
                ));
            }
            for k in ["TRANSLATION", "ROTATION"] {
                if a.has(k) {
                    return Err(a.err(
                        a.pos_of(k),
                        format!("{k} applies to a joint motion; between markers say X, Y, Z, B1, B2 or B3"),
                    ));
                }
            }
            let i = self.required_marker(&mut a, "I")?;
            let j = self.required_marker(&mut a, "J")?;
            let Some(axis) = component else {
                return Err(a.err_here(
                    "a MOTION between markers needs its component: X, Y, Z, B1, B2 or B3",
                ));
            };
            MotionTarget::Markers { i, j, axis }
        } else {
            let joint = a.id("JOINT")?;
            let (joint, jpos) = a.require(joint, "JOINT")?;
            self.refer(Space::Joint, joint, jpos, &a.label, "JOINT");
            let t = a.flag("TRANSLATION")?;
            let r = a.flag("ROTATION")?;
            if t && r {
                return Err(a.err(
                    a.pos_of("ROTATION"),
                    "TRANSLATION and ROTATION are exclusive",
                ));
            }
            pending_dof = !t && !r;
            let dof = if t {
                MotionDof::Translation
            } else {
                MotionDof::Rotation
            };
            MotionTarget::Joint { joint, dof }
        };
        let e = a.expr("FUNCTION")?;
        let Some(e) = e else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        let k = self.model.motions.len();
        let function = self.function_or_pending(
            expr,
            e,
            &label,
            |file, x, t, l| PendingFunction::motion(file, k, x, t, l),
            Arc::new(Unresolved) as Arc<dyn mbsolve_model::TimeFunction>,
            |x| {
                ExprTimeFunction::new(x)
                    .map(|f| Arc::new(f) as Arc<dyn mbsolve_model::TimeFunction>)
            },
        )?;
        a.finish()?;
        if pending_dof {
            self.motion_dof_pending
                .push((self.model.motions.len(), st.pos, label));
        }
        self.model.motions.push(Motion {
            id,
            target,
            function,
        });
        self.source(ElementRef::Motion(id), st.pos);
        Ok(())
    }

    fn define_force(
        &mut self,
        id: Id,
        pos: Pos,
        label: &str,
        sforce: bool,
    ) -> Result<(), AdmError> {
        // Ids are unique per statement type (Adams; the FRS5 corpus deck
        // has SPRINGDAMPER/n beside SFORCE/n), so each has its own space.
        let space = if sforce {
            Space::Sforce
        } else {
            Space::Springdamper
        };
        self.define(space, id, pos, label)
    }

    fn springdamper(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, SPRINGDAMPER_KEYS, &[])?;
        self.define_force(id, st.pos, &a.label.clone(), false)?;
        let t = a.flag("TRANSLATIONAL")?;
        let r = a.flag("ROTATIONAL")?;
        if t == r {
            return Err(a.err_here("say exactly one of TRANSLATIONAL or ROTATIONAL"));
        }
        let i = self.required_marker(&mut a, "I")?;
        let j = self.required_marker(&mut a, "J")?;
        let (own, other) = if t {
            (
                ["K", "C", "LENGTH", "FORCE"],
                ["KT", "CT", "ANGLE", "TORQUE"],
            )
        } else {
            (
                ["KT", "CT", "ANGLE", "TORQUE"],
                ["K", "C", "LENGTH", "FORCE"],
            )
        };
        for k in other {
            if a.has(k) {
                let kind = if t { "TRANSLATIONAL" } else { "ROTATIONAL" };
                return Err(a.err(
                    a.pos_of(k),
                    format!("{k} does not apply to a {kind} SPRINGDAMPER"),
                ));
            }
        }
        let mut v = [0.0; 4];
        for (n, k) in own.iter().enumerate() {
            v[n] = a.number(k)?.unwrap_or(0.0);
        }
        a.finish()?;
        let kind = if t {
            ForceKind::TranslationalSpringDamper {
                stiffness: v[0],
                damping: v[1],
                free_length: v[2],
                preload: v[3],
            }
        } else {
            ForceKind::RotationalSpringDamper {
                stiffness: v[0],
                damping: v[1],
                free_angle: v[2],
                preload: v[3],
            }
        };
        self.model.forces.push(Force { id, i, j, kind });
        self.source(ElementRef::Springdamper(id), st.pos);
        Ok(())
    }

    fn sforce(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, SFORCE_KEYS, &[])?;
        self.define_force(id, st.pos, &a.label.clone(), true)?;
        let t = a.flag("TRANSLATIONAL")?;
        let r = a.flag("ROTATIONAL")?;
        if t == r {
            return Err(a.err_here("say exactly one of TRANSLATIONAL or ROTATIONAL"));
        }
        let action_only = a.flag("ACTIONONLY")?;
        let i = self.required_marker(&mut a, "I")?;
        let j = self.required_marker(&mut a, "J")?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        let k = self.model.forces.len();
        let f = self.function_or_pending(
            expr,
            e,
            &label,
            |file, x, t, l| PendingFunction::force(file, k, x, t, l),
            Arc::new(Unresolved) as Arc<dyn mbsolve_model::StateFunction>,
            |x| {
                ExprStateFunction::new(x)
                    .map(|f| Arc::new(f) as Arc<dyn mbsolve_model::StateFunction>)
            },
        )?;
        a.finish()?;
        let kind = match (t, action_only) {
            (true, false) => ForceKind::TranslationalActionReaction { function: f },
            (false, false) => ForceKind::RotationalActionReaction { function: f },
            (true, true) => ForceKind::TranslationalActionOnly { function: f },
            (false, true) => ForceKind::RotationalActionOnly { function: f },
        };
        self.model.forces.push(Force { id, i, j, kind });
        self.source(ElementRef::Force(id), st.pos);
        Ok(())
    }

    /// VFORCE (FX\\FY\\FZ), VTORQUE (TX\\TY\\TZ) or GFORCE (all six)/id,
    /// I = marker, JFLOAT = FLOATING marker (its part takes the reaction),
    /// RM = marker whose axes the components are in (ADM-GRAMMAR §5).
    fn vector_force(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
        statement: VectorStatement,
    ) -> Result<(), AdmError> {
        const ALL: [&str; 6] = ["FX", "FY", "FZ", "TX", "TY", "TZ"];
        let own: &[&str] = match statement {
            VectorStatement::Vforce => &ALL[..3],
            VectorStatement::Vtorque => &ALL[3..],
            VectorStatement::Gforce => &ALL,
        };
        let mut keys = vec!["I", "JFLOAT", "RM", "FUNCTION"];
        keys.extend_from_slice(&ALL);
        let mut a = Args::new(self.file, st, label, &keys, &[])?;
        if let Some(other) = ALL.iter().find(|k| !own.contains(k) && a.has(k)) {
            return Err(a.err(
                a.pos_of(other),
                format!(
                    "{other} does not apply to a {} (it takes {})",
                    statement.name(),
                    own.join(", ")
                ),
            ));
        }
        let space = match statement {
            VectorStatement::Vforce => Space::Vforce,
            VectorStatement::Vtorque => Space::Vtorque,
            VectorStatement::Gforce => Space::Gforce,
        };
        self.define(space, id, st.pos, &a.label.clone())?;
        let i = self.required_marker(&mut a, "I")?;
        let rm = self.required_marker(&mut a, "RM")?;
        let jfloat = a.id("JFLOAT")?;
        let (jfloat, jpos) = a.require(jfloat, "JFLOAT")?;
        let Some(&reaction_part) = self.floating.get(&jfloat) else {
            return Err(a.err(
                jpos,
                format!(
                    "JFLOAT marker {jfloat} is not a FLOATING marker defined before this statement"
                ),
            ));
        };
        if a.has("FUNCTION") {
            // FUNCTION = USER(…) is refused above as a user subroutine; an
            // expression list here is not Adams syntax for these elements.
            return Err(a.err(
                a.pos_of("FUNCTION"),
                format!(
                    "give the components as {} = expressions, not FUNCTION =",
                    own.join(", ")
                ),
            ));
        }
        let label = a.label.clone();
        let mut components: [Option<Arc<dyn mbsolve_model::StateFunction>>; 6] = Default::default();
        for key in own {
            let Some(e) = a.expr(key)? else { continue };
            let expr = self.compile(e, &label)?;
            let k = ALL
                .iter()
                .position(|n| n == key)
                .expect("own keys are in ALL");
            let index = self.model.forces.len();
            components[k] = Some(self.function_or_pending(
                expr,
                e,
                &label,
                |file, x, t, l| PendingFunction::vector_component(file, index, k, x, t, l),
                Arc::new(Unresolved) as Arc<dyn mbsolve_model::StateFunction>,
                |x| {
                    ExprStateFunction::new(x)
                        .map(|f| Arc::new(f) as Arc<dyn mbsolve_model::StateFunction>)
                },
            )?);
        }
        if components.iter().all(Option::is_none) {
            return Err(a.err_here(format!("give at least one of {} =", own.join(", "))));
        }
        a.finish()?;
        self.model.forces.push(Force {
            id,
            i,
            j: rm,
            kind: ForceKind::Vector {
                statement,
                jfloat,
                reaction_part,
                components,
            },
        });
        let e = self.model.forces.last().expect("just pushed").element();
        self.source(e, st.pos);
        Ok(())
    }

    /// GCON/id, I = marker, FUNCTION = expression of TIME and DX DY DZ DM
    /// AX AY AZ: the constraint expression = 0, reaction at marker I.
    fn gcon(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["I", "FUNCTION"], &[])?;
        self.define(Space::Gcon, id, st.pos, &a.label)?;
        let i = self.marker_arg(&mut a, "I")?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        // I = the marker the reaction acts on. SolidWorks Motion exports
        // omit it; the constraint itself does not depend on it, so the
        // first marker the FUNCTION reads stands in (inferred: Adams needs
        // a marker only to report the reaction).
        let first_marker = expr.measures().iter().find_map(|c| {
            c.references()
                .find(|(role, _)| *role == ArgRole::Marker)
                .map(|(_, m)| m)
        });
        let Some(i) = i.or(first_marker) else {
            return Err(a.err_here(
                "missing I = (the reaction marker), and the FUNCTION reads no marker to take it from",
            ));
        };
        let k = self.model.gcons.len();
        let f = self.function_or_pending(
            expr,
            e,
            &label,
            |file, x, t, l| PendingFunction::gcon(file, k, x, t, l),
            Arc::new(Unresolved) as Arc<dyn mbsolve_model::ConstraintFunction>,
            |x| {
                ExprConstraintFunction::new(x)
                    .map(|f| Arc::new(f) as Arc<dyn mbsolve_model::ConstraintFunction>)
            },
        )?;
        a.finish()?;
        self.model.gcons.push(Gcon { id, i, function: f });
        self.source(ElementRef::Gcon(id), st.pos);
        Ok(())
    }

    fn request(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            REQUEST_KEYS,
            &[
                ("D", "DISPLACEMENT"),
                ("V", "VELOCITY"),
                ("A", "ACCELERATION"),
                ("F", "FORCE"),
                ("C", "COMMENT"),
            ],
        )?;
        let rpos = st.pos;
        if let Some(first) = self
            .model
            .sources
            .iter()
            .find(|(e, _)| *e == ElementRef::Request(id))
            .map(|(_, l)| l.clone())
        {
            return Err(a.err_here(format!(
                "duplicate id: REQUEST/{id} is already defined at {first}"
            )));
        }
        let comment = match a.text("COMMENT")? {
            Some(c) => c,
            None => a.text("TITLE")?.unwrap_or_default(),
        };
        let kinds = [
            ("DISPLACEMENT", RequestKind::Displacement),
            ("VELOCITY", RequestKind::Velocity),
            ("ACCELERATION", RequestKind::Acceleration),
            ("FORCE", RequestKind::Force),
        ];
        let mut kind = None;
        for (key, k) in kinds {
            if a.flag(key)? {
                if kind.is_some() {
                    return Err(a.err(a.pos_of(key), "more than one request type"));
                }
                kind = Some(k);
            }
        }
        let fkeys = ["F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8"];
        let has_f = fkeys.iter().any(|k| a.has(k));
        match (kind, has_f) {
            (Some(kind), false) => {
                let i = self.required_marker(&mut a, "I")?;
                let j = self.marker_arg(&mut a, "J")?;
                let rm = self.marker_arg(&mut a, "RM")?;
                a.finish()?;
                self.model.requests.push(Request {
                    id,
                    kind,
                    i,
                    j,
                    rm,
                    comment,
                });
            }
            (None, true) => {
                let mut components: [Option<String>; 8] = Default::default();
                let label = a.label.clone();
                for (n, k) in fkeys.iter().enumerate() {
                    if let Some(e) = a.expr(k)? {
                        let expr = self.compile(e, &label)?;
                        components[n] = Some(expr.source().to_string());
                    }
                }
                let cnames = column_texts(&mut a, "CNAMES")?;
                let clabels = column_texts(&mut a, "CLABELS")?;
                let results_name = a
                    .text("RESULTS_NAME")?
                    .map(|t| unquote(&t).to_string())
                    .filter(|t| !t.is_empty());
                a.finish()?;
                self.model.function_requests.push(FunctionRequest {
                    id,
                    components,
                    comment,
                    results_name,
                    cnames,
                    clabels,
                });
            }
            (Some(_), true) => return Err(a.err_here(
                "a request is either DISPLACEMENT/VELOCITY/ACCELERATION/FORCE or F1…F8, not both",
            )),
            (None, false) => {
                if a.has("FUNCTION") || a.has("ROUTINE") {
                    return Err(a.err(
                        a.pos_of("FUNCTION"),
                        "user-subroutine requests (FUNCTION = USER(…)) are not supported yet",
                    ));
                }
                return Err(a.err_here(
                    "missing request type (DISPLACEMENT, VELOCITY, ACCELERATION, FORCE or F1…F8)",
                ));
            }
        }
        self.source(ElementRef::Request(id), rpos);
        Ok(())
    }

    /// Adams needs exactly one GROUND part. Its absence is most often a
    /// forgotten title line: line 1 is always the title, so a statement
    /// written there is not read.
    fn no_ground(&self) -> AdmError {
        let title = self.model.title.trim();
        let looks_like_statement = crate::syntax::parse_command_lines(&[title], 1, self.file)
            .ok()
            .and_then(|s| s.into_iter().next())
            .is_some_and(|st| {
                resolve(&st.name, STATEMENTS, &[]).is_ok()
                    && (st.id.is_some() || !st.args.is_empty())
            });
        let hint = if looks_like_statement {
            format!(
                "line 1 is the title and is not read as a statement, yet it holds '{title}': add a title line above it"
            )
        } else {
            "no PART has GROUND (PART/id, GROUND); note that line 1 is always the title".to_string()
        };
        AdmError::new(
            self.file,
            Pos { line: 1, col: 1 },
            None,
            format!("the model has no ground part: {hint}"),
        )
    }

    /// Resolve references and part velocities once every statement is read.
    pub fn finish(mut self) -> Result<(Model, Vec<Skipped>), AdmError> {
        if !self.model.parts.iter().any(|p| p.ground) {
            return Err(self.no_ground());
        }
        self.finish_fe_parts()?;
        self.finish_contacts()?;
        // markers and parts are defined in `defined`
        for r in &self.refs {
            if !self.defined.contains_key(&(r.space, r.id)) {
                return Err(err_in(
                    &r.file,
                    r.pos,
                    &r.label,
                    format!("{} {} does not exist", r.role, r.id),
                ));
            }
            if r.space == Space::Marker && self.floating.contains_key(&r.id) {
                return Err(err_in(
                    &r.file,
                    r.pos,
                    &r.label,
                    format!(
                        "{} {} is a FLOATING marker: only the elements that position it (VFORCE, VTORQUE, GFORCE, PTCV, CVCV, CONTACT) may use it",
                        r.role, r.id
                    ),
                ));
            }
        }
        self.check_frictions()?;
        self.fill_curve_slots();
        for pv in &self.velocities {
            let part = &self.model.parts[pv.part_index];
            let frame_of = |m: Option<Id>| -> Option<Matrix3<f64>> {
                m.and_then(|m| self.model.marker_in_ground(m))
                    .map(|p| p.rotation)
            };
            // VX/VY/VZ: ground axes unless VM names a marker;
            // WX/WY/WZ: CM marker axes unless WM names a marker.
            let rv = frame_of(pv.vm).unwrap_or_else(Matrix3::identity);
            let rw = frame_of(pv.wm)
                .or_else(|| frame_of(part.cm))
                .unwrap_or(part.placement.rotation);
            let (v, w) = (rv * pv.v, rw * pv.w);
            let part = &mut self.model.parts[pv.part_index];
            part.velocity = v;
            part.angular_velocity = w;
        }
        for (k, pos, label) in std::mem::take(&mut self.motion_dof_pending) {
            let MotionTarget::Joint { joint, .. } = self.model.motions[k].target else {
                continue;
            };
            let kind = self
                .model
                .joints
                .iter()
                .find(|j| j.id == joint)
                .map(|j| j.kind);
            let dof = match kind {
                Some(JointKind::Revolute) => MotionDof::Rotation,
                Some(JointKind::Translational) => MotionDof::Translation,
                _ => {
                    return Err(self.err(
                        pos,
                        &label,
                        "say TRANSLATION or ROTATION (the joint type does not decide it)",
                    ))
                }
            };
            self.model.motions[k].target = MotionTarget::Joint { joint, dof };
        }
        self.resolve_variables()?;
        self.check_element_calls()?;
        self.integrate_motions();
        Ok((self.model, self.skipped))
    }
}

/// A value with its double quotes removed (`"(ft)"` → `(ft)`).
fn unquote(t: &str) -> &str {
    let t = t.trim();
    t.strip_prefix('"')
        .and_then(|u| u.strip_suffix('"'))
        .unwrap_or(t)
}

/// REQUEST CNAMES / CLABELS = "c1", …, "c8": one text per component F1…F8
/// (empty strings keep the default name).
fn column_texts(a: &mut Args, key: &str) -> Result<[Option<String>; 8], AdmError> {
    let mut out: [Option<String>; 8] = Default::default();
    let pos = a.pos_of(key);
    let Some(text) = a.text(key)? else {
        return Ok(out);
    };
    let items: Vec<&str> = text.split(',').map(unquote).collect();
    // Adams View pads the list with empty names past F8 (the drill-string
    // corpus deck writes 10 and 11): those name nothing and are allowed.
    for (n, t) in items.into_iter().enumerate() {
        match (n < 8, t.is_empty()) {
            (_, true) => {}
            (true, false) => out[n] = Some(t.to_string()),
            (false, false) => {
                return Err(a.err(
                    pos,
                    format!(
                        "{key} value {} ('{t}') names a component past F8; a request has F1…F8",
                        n + 1
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// Whether an expression is a user-subroutine call `USER(…)` (any case,
/// blanks allowed before the parenthesis).
fn is_user_call(text: &str) -> bool {
    let t = text.trim_start();
    t.len() >= 4
        && t.is_char_boundary(4)
        && t[..4].eq_ignore_ascii_case("USER")
        && t[4..].trim_start().starts_with('(')
}

/// `USER(7, 8, …)` shortened for a message: the first values only.
fn user_call_head(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = flat.chars().take(40).collect();
    if flat.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// The subroutine Adams calls for `FUNCTION = USER(…)` without ROUTINE=
/// (Adams Solver subroutine reference: SFOSUB for SFORCE, VARSUB for
/// VARIABLE, …).
fn default_subroutine(statement: &str) -> Option<&'static str> {
    Some(match statement {
        "SFORCE" => "SFOSUB",
        "VARIABLE" => "VARSUB",
        "MOTION" => "MOTSUB",
        "GFORCE" => "GFOSUB",
        "VFORCE" => "VFOSUB",
        "VTORQUE" => "VTOSUB",
        "REQUEST" => "REQSUB",
        "DIFF" => "DIFSUB",
        "GCON" => "GCNSUB",
        "SENSOR" => "SENSUB",
        "FIELD" => "FIESUB",
        "COUPLER" => "COUSUB",
        "CURVE" => "CURSUB",
        "SURFACE" => "SURSUB",
        "CONTACT" => "CNFSUB",
        "FRICTION" => "FRICSUB",
        "UCON" => "UCOSUB",
        "SPLINE" => "SPLINE_READ",
        "GSE" => "GSE_DERIV",
        _ => return None,
    })
}

/// REULER or ZP/XP (ZG/XG) orientation of a frame whose origin is `origin`
/// (both in the parent frame).
fn orientation(
    a: &mut Args,
    euler: &str,
    zkey: &str,
    xkey: &str,
    origin: Vector3<f64>,
) -> Result<Matrix3<f64>, AdmError> {
    let e = a.numbers(euler, 3)?;
    let zp = a.vec3(zkey)?;
    let xp = a.vec3(xkey)?;
    match (e, zp, xp) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(a.err(
            a.pos_of(zkey),
            format!("{euler} and {zkey}/{xkey} are exclusive"),
        )),
        (Some(e), None, None) => Ok(euler313(e[0], e[1], e[2])),
        (None, None, None) => Ok(Matrix3::identity()),
        (None, None, Some(_)) => Err(a.err(
            a.pos_of(xkey),
            format!("{xkey} without {zkey} is not supported yet"),
        )),
        (None, Some(zp), xp) => {
            let z = zp - origin;
            if z.norm() == 0.0 {
                return Err(a.err(a.pos_of(zkey), format!("{zkey} coincides with the origin")));
            }
            let z = z.normalize();
            let x = match xp {
                Some(xp) => {
                    let d = xp - origin;
                    d - z * d.dot(&z)
                }
                // (inferred) no XP: the x axis is the parent x axis projected
                // onto the plane normal to z, or the parent y axis if z ∥ x.
                None => {
                    let ex = Vector3::x();
                    let p = ex - z * ex.dot(&z);
                    if p.norm() > 1e-6 {
                        p
                    } else {
                        let ey = Vector3::y();
                        ey - z * ey.dot(&z)
                    }
                }
            };
            if x.norm() <= 1e-12 * (1.0 + z.norm()) {
                return Err(a.err(a.pos_of(xkey), format!("{xkey} lies on the z axis")));
            }
            let x = x.normalize();
            let y = z.cross(&x);
            Ok(Matrix3::from_columns(&[x, y, z]))
        }
    }
}

pub(crate) const INTEGRATOR_KEYS: &[&str] = &[
    "GSTIFF",
    "WSTIFF",
    "HASTIFF",
    "CONSTANT_BDF",
    "HHT",
    "NEWMARK",
    "DSTIFF",
    "ABAM",
    "RKF45",
    "VSTIFF",
    "MSTIFF",
    "I3",
    "SI2",
    "SI1",
    "FORMULATION",
    "ERROR",
    "HMAX",
    "HMIN",
    "HINIT",
    "KMAX",
    "MAXIT",
    "PATTERN",
    "CORRECTOR",
    "ADAPTIVITY",
    "INTERPOLATE",
    "FIXIT",
    "HRATIO",
    "MAXERR",
    "ALPHA",
    "BETA",
    "GAMMA",
    "SCALE",
    "DEFAULT",
];

/// Adams EQUILIBRIUM arguments (statement and command). Those without a
/// Param_Static counterpart yet are known, so they are reported as "not
/// supported yet" rather than unknown.
pub(crate) const EQUILIBRIUM_KEYS: &[&str] = &[
    "ERROR",
    "IMBALANCE",
    "MAXIT",
    "STABILITY",
    "STATIC",
    "ALIMIT",
    "TLIMIT",
    "PATTERN",
    "DYNAMIC",
    "SETTLING_TIME",
    "KINETIC_ENERGY_ERROR",
    "ACCELERATION_ERROR",
    "GLOBAL_DAMPING",
    "DEFAULT",
];

/// EQUILIBRIUM arguments as Param_Static settings: ERROR → max_error,
/// IMBALANCE → max_imbalance, MAXIT → max_num_iter, STABILITY → stability;
/// STATIC (the force-imbalance method) → FIM_S; TLIMIT and ALIMIT limit
/// each Newton step (ALIMIT in radians; `1.0D` is degrees). Ranges are
/// checked by the solver.
pub(crate) fn equilibrium_settings(a: &mut Args) -> Result<StaticSettings, AdmError> {
    let mut s = StaticSettings {
        max_error: a.number("ERROR")?,
        max_imbalance: a.number("IMBALANCE")?,
        max_num_iter: a.integer("MAXIT")?,
        stability: a.number("STABILITY")?,
        tlimit: a.number("TLIMIT")?,
        alimit: a.number("ALIMIT")?,
        origin: Some(a.origin()),
        ..Default::default()
    };
    if a.flag("STATIC")? {
        s.method = Some(StaticMethod::FimS);
    }
    Ok(s)
}

/// INTEGRATOR arguments exactly as given (shared by the statement and the command).
pub(crate) fn integrator_settings(a: &mut Args) -> Result<IntegratorSettings, AdmError> {
    if a.has("SCALE") {
        // Adams Solver (FORTRAN) INTEGRATOR SCALE = r1, r2, r3 reweights the
        // integration error of groups of states (translational,
        // rotational, modal). The seeds fix mbsolve's error weights, and a
        // scale silently ignored would change the accuracy asked for.
        return Err(a.err(
            a.pos_of("SCALE"),
            "SCALE (Adams FORTRAN error scaling of state groups) is not supported: mbsolve weights the integration error as the seeds define; scale ERROR instead",
        ));
    }
    let mut s = IntegratorSettings {
        origin: Some(a.origin()),
        ..Default::default()
    };
    let kinds = [
        ("GSTIFF", IntegratorKind::Gstiff),
        ("WSTIFF", IntegratorKind::Wstiff),
        ("HASTIFF", IntegratorKind::Hastiff),
        ("CONSTANT_BDF", IntegratorKind::ConstantBdf),
        ("HHT", IntegratorKind::Hht),
        ("NEWMARK", IntegratorKind::Newmark),
        ("DSTIFF", IntegratorKind::Dstiff),
        // The ODE form (coordinate partitioning): the Adams solver-algorithm
        // seed's ABAM and RKF45, and MotionSolve's VSTIFF and MSTIFF.
        ("ABAM", IntegratorKind::Abam),
        ("RKF45", IntegratorKind::Rkf45),
        ("VSTIFF", IntegratorKind::Vstiff),
        ("MSTIFF", IntegratorKind::Mstiff),
    ];
    let mut seen = None;
    for (k, kind) in kinds {
        if a.flag(k)? {
            if let Some(prev) = seen {
                return Err(a.err(a.pos_of(k), format!("{prev} and {k} are exclusive")));
            }
            seen = Some(k);
            s.kind = kind;
            s.kind_given = true;
        }
    }
    let forms = [
        ("I3", Formulation::I3),
        ("SI2", Formulation::Si2),
        ("SI1", Formulation::Si1),
    ];
    for (k, f) in forms {
        if a.flag(k)? {
            if s.formulation.is_some() {
                return Err(a.err(a.pos_of(k), "more than one formulation"));
            }
            s.formulation = Some(f);
        }
    }
    if let Some((w, pos)) = a.word("FORMULATION")? {
        if s.formulation.is_some() {
            return Err(a.err(pos, "more than one formulation"));
        }
        s.formulation = Some(match w.as_str() {
            "I3" => Formulation::I3,
            "SI2" => Formulation::Si2,
            "SI1" => Formulation::Si1,
            _ => return Err(a.err(pos, format!("bad FORMULATION '{w}' (I3, SI2 or SI1)"))),
        });
    }
    s.error = a.number("ERROR")?;
    s.hmax = a.number("HMAX")?;
    s.hmin = a.number("HMIN")?;
    s.hinit = a.number("HINIT")?;
    s.kmax = a.integer("KMAX")?;
    s.maxit = a.integer("MAXIT")?;
    s.fixit = a.integer("FIXIT")?;
    s.hratio = a.integer("HRATIO")?;
    s.maxerr = a.number("MAXERR")?;
    s.adaptivity = a.number("ADAPTIVITY")?;
    s.alpha = a.number("ALPHA")?;
    s.beta = a.number("BETA")?;
    s.gamma = a.number("GAMMA")?;
    if let Some((w, pos)) = a.word("PATTERN")? {
        let mut p = Vec::new();
        for t in w.split(':') {
            p.push(match t.trim() {
                "T" | "TRUE" => true,
                "F" | "FALSE" => false,
                other => return Err(a.err(pos, format!("bad PATTERN entry '{other}' (T or F)"))),
            });
        }
        s.pattern = Some(p);
    }
    if let Some((w, pos)) = a.word("CORRECTOR")? {
        s.corrector = Some(
            match resolve(
                &w,
                &["ORIGINAL", "MODIFIED", "ORIG_CONSTANT"],
                &[("ORIGINAL_CONSTANT", "ORIG_CONSTANT")],
            ) {
                Ok("ORIGINAL") => CorrectorKind::Original,
                Ok("MODIFIED") => CorrectorKind::Modified,
                Ok(_) => CorrectorKind::OrigConstant,
                Err(_) => {
                    return Err(a.err(
                        pos,
                        format!("bad CORRECTOR '{w}' (ORIGINAL, MODIFIED or ORIG_CONSTANT)"),
                    ))
                }
            },
        );
    }
    if a.has("INTERPOLATE") {
        let pos = a.pos_of("INTERPOLATE");
        let v = match a.word("INTERPOLATE") {
            Ok(Some((w, _))) => match w.as_str() {
                "ON" | "YES" | "TRUE" => true,
                "OFF" | "NO" | "FALSE" => false,
                _ => return Err(a.err(pos, format!("bad INTERPOLATE '{w}' (ON or OFF)"))),
            },
            // bare INTERPOLATE
            _ => true,
        };
        s.interpolate = Some(v);
    }
    Ok(s)
}

const PART_KEYS: &[&str] = &[
    "GROUND", "MASS", "CM", "IM", "IP", "QG", "REULER", "XG", "ZG", "VX", "VY", "VZ", "WX", "WY",
    "WZ", "VM", "WM", "EXACT", "MATERIAL", "PLANAR", "DENSITY",
];
const MARKER_KEYS: &[&str] = &[
    "PART",
    "QP",
    "REULER",
    "ZP",
    "XP",
    "USEXP",
    "FLOATING",
    "FE_PART",
    "NODE_LABEL",
    "NODE_ID",
    "FLEX_BODY",
    "POINT_MASS",
    "CURVE",
    "SURFACE",
    "VELOCITY",
];
const JOINT_KEYS: &[&str] = &[
    "REVOLUTE",
    "TRANSLATIONAL",
    "SPHERICAL",
    "FIXED",
    "CYLINDRICAL",
    "UNIVERSAL",
    "HOOKE",
    "PLANAR",
    "RACKPIN",
    "SCREW",
    "CONVEL",
    "I",
    "J",
    "PD",
    "PITCH",
    "IC",
    "ICTRAN",
    "ICROT",
    "DELTA_V",
    "MAXIMUM_DEFORMATION",
    "MU_DYN_ROT",
    "MU_STAT_ROT",
    "MAX_FRIC_ROT",
    "MU_DYN_TRANS",
    "MU_STAT_TRANS",
    "MAX_FRIC_TRANS",
    "PRELOAD_RADIAL",
    "PRELOAD_AXIAL",
    "INNER_RADIUS",
    "OUTER_RADIUS",
    "FRICTION",
    "HEIGHT",
    "PIN_RADIUS",
    "BALL_RADIUS",
];
pub(crate) const MOTION_KEYS: &[&str] = &[
    "JOINT",
    "TRANSLATION",
    "ROTATION",
    "DISPLACEMENT",
    "VELOCITY",
    "ACCELERATION",
    "FUNCTION",
    "ROUTINE",
    "I",
    "J",
    "X",
    "Y",
    "Z",
    "B1",
    "B2",
    "B3",
    "ICDISP",
    "ICVEL",
];
const SPRINGDAMPER_KEYS: &[&str] = &[
    "TRANSLATIONAL",
    "ROTATIONAL",
    "I",
    "J",
    "K",
    "C",
    "LENGTH",
    "FORCE",
    "KT",
    "CT",
    "ANGLE",
    "TORQUE",
];
pub(crate) const SFORCE_KEYS: &[&str] = &[
    "TRANSLATIONAL",
    "ROTATIONAL",
    "ACTIONONLY",
    "I",
    "J",
    "FUNCTION",
    "ROUTINE",
];
const REQUEST_KEYS: &[&str] = &[
    "DISPLACEMENT",
    "VELOCITY",
    "ACCELERATION",
    "FORCE",
    "I",
    "J",
    "RM",
    "COMMENT",
    "TITLE",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "FUNCTION",
    "ROUTINE",
    "CNAMES",
    "CUNITS",
    "CLABELS",
    "RESULTS_NAME",
    "VARIABLES",
];
const KINEMATICS_KEYS: &[&str] = &[
    "HMAX", "ERROR", "MAXIT", "PATTERN", "TLIMIT", "ALIMIT", "AERROR", "APATTERN",
];
/// Adams Solver PREFERENCES arguments: CONTACT_FACETING_TOLERANCE,
/// NTHREADS and CONTACT_GEOMETRY_LIBRARY are read (see
/// `Builder::preferences`); the rest are rejected by name.
const PREFERENCES_KEYS: &[&str] = &[
    "CONTACT_FACETING_TOLERANCE",
    "NTHREADS",
    "SOLVERBIAS",
    "STATUS_MESSAGE",
    "SIMFAIL",
    "CONTACT_GEOMETRY_LIBRARY",
    "FLEX_LIMIT_CHECK",
    "FLEX_LIMIT_CHECK_ACTION",
    "LIBRARY_SEARCH_PATH",
];
/// Adams Solver DEBUG arguments: printouts of its own files.
const DEBUG_KEYS: &[&str] = &[
    "EPRINT", "DUMP", "JMDUMP", "RHSDUMP", "REQDUMP", "VERBOSE", "DOF", "TRACE",
];
pub(crate) const OUTPUT_KEYS: &[&str] = &[
    "REQSAVE",
    "GRSAVE",
    "NOSEPARATOR",
    "SEPARATOR",
    "TELETYPE",
    "NOPRINT",
    "OSFORMAT",
    "GR521SAV",
    "CHART",
    "LOADS",
    "YPR",
    "DSCALE",
];
/// OUTPUT keywords that only choose which of Adams' own files are written or
/// how they are laid out; they change no result. (YPR and DSCALE would change
/// what requests report, so they stay "not supported yet".)
pub(crate) const OUTPUT_IGNORED: &[&str] = &[
    "REQSAVE",
    "GRSAVE",
    "NOSEPARATOR",
    "SEPARATOR",
    "TELETYPE",
    "NOPRINT",
    "OSFORMAT",
    "GR521SAV",
    "CHART",
    "LOADS",
];
