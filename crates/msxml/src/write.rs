//! Model → MotionSolve XML (`mbsolve convert … -o MODEL.xml`). Markers are
//! written in the global frame with all nine direction cosines, bodies by
//! their CM marker; reading the deck back gives the same model up to the
//! part frames (a Body_Rigid has no frame of its own, so every part frame
//! becomes the global frame and marker placements are re-expressed in it:
//! the same positions in ground).

use mbsolve_model::{
    ForceKind, JointKind, MarkerMotionAxis, Model, MotionDof, MotionTarget, RequestKind,
};
use std::fmt::Write as _;

mod curve;
mod elastic;

pub(crate) fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}.", x as i64)
    } else {
        format!("{x:e}")
    }
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The model as a MotionSolve XML deck (no `<Command>` section: commands
/// are not part of a model).
pub fn write_xml(m: &Model) -> Result<String, String> {
    // Read from Adams datasets (issue 16) with no XML form written yet:
    // named rather than dropped.
    curve::refuse(m)?;
    if let Some(fe) = m.fe_parts.first() {
        return Err(format!(
            "FE_PART/{}: an Adams FE part has no MotionSolve XML form here",
            fe.id
        ));
    }
    // MS-XML-GRAMMAR.md lists Body_Point only by name: no verified
    // attributes to write a point mass with.
    if let Some(p) = m
        .parts
        .iter()
        .find(|p| mbsolve_model::point_mass::is_point_mass(p.id))
    {
        return Err(format!(
            "{}: a point mass has no verified MotionSolve XML form here (Body_Point's attributes are not in the grammar)",
            mbsolve_model::ElementRef::Part(p.id)
        ));
    }
    if let Some(io) = m.plant_inputs.iter().chain(&m.plant_outputs).next() {
        return Err(format!(
            "PINPUT/POUTPUT {}: Adams/Controls plant inputs and outputs have no MotionSolve XML form here",
            io.id
        ));
    }
    if let Some(ic) = m.joint_ics.first() {
        return Err(format!(
            "JOINT/{}: joint initial conditions (IC, ICTRAN, ICROT) have no MotionSolve XML form here",
            ic.joint
        ));
    }
    if let Some(mo) = m
        .motions
        .iter()
        .find(|mo| mo.function.integrated().is_some())
    {
        return Err(format!(
            "MOTION/{}: a VELOCITY or ACCELERATION motion has no MotionSolve XML form here",
            mo.id
        ));
    }
    if m.kinematics.hmax.is_some() {
        return Err("KINEMATICS HMAX has no MotionSolve XML form here".into());
    }
    if let Some(r) = m.function_requests.iter().find(|r| {
        r.results_name.is_some() || r.cnames.iter().chain(&r.clabels).any(Option::is_some)
    }) {
        return Err(format!(
            "REQUEST/{}: CNAMES, CLABELS and RESULTS_NAME have no MotionSolve XML form here",
            r.id
        ));
    }
    let mut o = String::new();
    let _ = writeln!(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let _ = writeln!(o, "<MultiBodySystem label=\"{}\">", esc(m.title.trim()));
    let _ = writeln!(o, " <Model>");
    let u = &m.units;
    match u.ucf {
        // MotionSolve's mass_mult_factor is 1/UCF
        Some(f) => {
            let _ = writeln!(o, "  <Param_Unit mass_mult_factor=\"{}\"/>", num(1.0 / f));
        }
        None => {
            let _ = writeln!(
                o,
                "  <Param_Unit force_unit=\"{}\" mass_unit=\"{}\" length_unit=\"{}\" time_unit=\"{}\"/>",
                u.force, u.mass, u.length, u.time
            );
        }
    }
    let s = &m.equilibrium;
    let mut st = String::new();
    if let Some(x) = s.method {
        let _ = write!(st, " method=\"{}\"", x.name());
    }
    for (k, v) in [
        ("max_ke_tol", s.max_ke_tol),
        ("max_dq_tol", s.max_dq_tol),
        ("max_imbalance", s.max_imbalance),
        ("max_error", s.max_error),
        ("stability", s.stability),
        ("compliance_delta", s.compliance_delta),
    ] {
        if let Some(v) = v {
            let _ = write!(st, " {k}=\"{}\"", num(v));
        }
    }
    if let Some(n) = s.max_num_iter {
        let _ = write!(st, " max_num_iter=\"{n}\"");
    }
    if s.tlimit.is_some() || s.alimit.is_some() {
        return Err("EQUILIBRIUM TLIMIT/ALIMIT have no Param_Static attribute".into());
    }
    if !st.is_empty() {
        let _ = writeln!(o, "  <Param_Static{st}/>");
    }
    let i = &m.integrator;
    if i.kind_given || i.error.is_some() || i.formulation.is_some() {
        return Err(format!(
            "INTEGRATOR/{}: the Adams integrators have no MotionSolve Param_Transient form",
            i.kind.name()
        ));
    }
    let g = m.gravity;
    let _ = writeln!(
        o,
        "  <Force_Gravity grav_x=\"{}\" grav_y=\"{}\" grav_z=\"{}\"/>",
        num(g.x),
        num(g.y),
        num(g.z)
    );
    for p in &m.parts {
        if p.ground {
            let _ = writeln!(o, "  <Body_Rigid id=\"{}\" IsGround=\"TRUE\"/>", p.id);
            continue;
        }
        let Some(cm) = p.cm else {
            return Err(format!(
                "PART/{}: a Body_Rigid needs a CM marker (cg_id); this part has none",
                p.id
            ));
        };
        let i = &p.inertia;
        let _ = write!(
            o,
            "  <Body_Rigid id=\"{}\" cg_id=\"{cm}\" im_id=\"{cm}\" mass=\"{}\" inertia_xx=\"{}\" inertia_yy=\"{}\" inertia_zz=\"{}\" inertia_xy=\"{}\" inertia_xz=\"{}\" inertia_yz=\"{}\"",
            p.id,
            num(p.mass),
            num(i.ixx),
            num(i.iyy),
            num(i.izz),
            num(i.ixy),
            num(i.ixz),
            num(i.iyz)
        );
        for (k, v) in [("v_ic", p.velocity), ("w_ic", p.angular_velocity)] {
            for (c, x) in ["x", "y", "z"].iter().zip(v.iter()) {
                if *x != 0.0 {
                    let _ = write!(o, " {k}_{c}=\"{}\" {k}_{c}_flag=\"TRUE\"", num(*x));
                }
            }
        }
        let _ = writeln!(o, "/>");
    }
    for k in &m.markers {
        let g = m
            .marker_in_ground(k.id)
            .ok_or_else(|| format!("MARKER/{}: its part does not exist", k.id))?;
        let (p, r) = (g.origin, g.rotation);
        let _ = write!(
            o,
            "  <Reference_Marker id=\"{}\" body_id=\"{}\" body_type=\"RigidBody\" pos_x=\"{}\" pos_y=\"{}\" pos_z=\"{}\"",
            k.id,
            k.part,
            num(p.x),
            num(p.y),
            num(p.z)
        );
        for i in 0..3 {
            for j in 0..3 {
                let _ = write!(o, " a{i}{j}=\"{}\"", num(r[(i, j)]));
            }
        }
        let _ = writeln!(o, "/>");
    }
    for j in &m.joints {
        let (ty, extra) = match j.kind {
            JointKind::RackPin { pitch_diameter } => (
                "RACK_PINION",
                format!(" pitch_diameter=\"{}\"", num(pitch_diameter)),
            ),
            k => (k.name(), String::new()),
        };
        let _ = writeln!(
            o,
            "  <Constraint_Joint id=\"{}\" type=\"{ty}\" i_marker_id=\"{}\" j_marker_id=\"{}\"{extra}/>",
            j.id, j.i, j.j
        );
    }
    for j in &m.jprims {
        let _ = writeln!(
            o,
            "  <Constraint_Jprim id=\"{}\" type=\"{}\" i_marker_id=\"{}\" j_marker_id=\"{}\"/>",
            j.id,
            j.kind.name(),
            j.i,
            j.j
        );
    }
    crate::sensor::write_sensors(&mut o, &m.sensors, esc)?;
    if let Some(f) = m.frictions.first() {
        return Err(format!(
            "FRICTION/{}: joint friction is not written to MotionSolve XML yet (its Force_JointFriction element is not read by mbsolve either)",
            f.id
        ));
    }
    for c in &m.couplers {
        let _ = writeln!(o, "{}", elastic::coupler(c));
    }
    if let Some(g) = m.gears.first() {
        return Err(format!(
            "GEAR/{}: a GEAR has no element in the MotionSolve XML we read (write it as a COUPLER)",
            g.id
        ));
    }
    crate::general::write(&mut o, m)?;
    crate::data::write_data(&mut o, m, esc)?;
    for v in &m.variables {
        // An implicit VARIABLE keeps its initial guess (Reference_Variable
        // `ic`, elements.rs).
        let ic = m.implicit_variables.iter().find(|x| x.id == v.id);
        let ic = ic
            .map(|x| format!(" ic=\"{}\"", num(x.ic)))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  <Reference_Variable id=\"{}\" type=\"EXPRESSION\"{ic} expr=\"{}\"/>",
            v.id,
            esc(&v.function)
        );
    }
    crate::states::write_diffs(&mut o, &m.diffs, esc)?;
    crate::arrays::write(&mut o, m);
    crate::control::write(&mut o, &m.linear_systems)?;
    crate::vector_forces::write(&mut o, m)?;
    crate::contact::write(&mut o, m)?;
    for mo in &m.motions {
        let label = format!("MOTION/{}", mo.id);
        let f = esc(mbsolve_adm::function_source(mo.function.source(), &label)?);
        match mo.target {
            MotionTarget::Joint { joint, dof } => {
                let t = match dof {
                    MotionDof::Translation => "T",
                    MotionDof::Rotation => "R",
                };
                let _ = writeln!(
                    o,
                    "  <Motion_Joint id=\"{}\" type=\"EXPRESSION\" val_type=\"D\" joint_id=\"{joint}\" motion_type=\"{t}\" expr=\"{f}\"/>",
                    mo.id
                );
            }
            MotionTarget::Markers { i, j, axis } => {
                let _ = writeln!(
                    o,
                    "  <Motion_Marker id=\"{}\" type=\"EXPRESSION\" val_type=\"D\" i_marker_id=\"{i}\" j_marker_id=\"{j}\" direction=\"{}\" expr=\"{f}\"/>",
                    mo.id,
                    MarkerMotionAxis::name(axis)
                );
            }
        }
    }
    for f in &m.forces {
        let (i, j) = (f.i, f.j);
        if let ForceKind::Elastic(e) = &f.kind {
            let _ = writeln!(o, "{}", elastic::element(f.id, i, j, e)?);
            continue;
        }
        if let Some((rotational, [k, c, free, preload])) = f.kind.spring() {
            let (ty, free_name) = if rotational {
                ("ROTATIONAL", "angle")
            } else {
                ("TRANSLATIONAL", "length")
            };
            let _ = writeln!(
                o,
                "  <Force_SpringDamper id=\"{}\" type=\"{ty}\" i_marker_id=\"{i}\" j_marker_id=\"{j}\" stiffness=\"{}\" damping=\"{}\" {free_name}=\"{}\" preload=\"{}\"/>",
                f.id,
                num(k),
                num(c),
                num(free),
                num(preload)
            );
        } else if let Some((function, rotational, action_only)) = f.kind.sforce() {
            let label = format!("SFORCE/{}", f.id);
            let ty = if rotational { "Torque" } else { "Force" };
            let text = esc(mbsolve_adm::function_source(function.source(), &label)?);
            // ACTIONONLY is the documented is_action_only (elements.rs).
            let only = if action_only {
                " is_action_only=\"TRUE\""
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "  <Force_Scalar_TwoBody id=\"{}\" type=\"{ty}\" i_marker_id=\"{i}\" j_marker_id=\"{j}\"{only} val_expression=\"{text}\"/>",
                f.id
            );
        }
    }
    for r in &m.requests {
        let ty = match r.kind {
            RequestKind::Displacement => "MARKER_DISPLACEMENT",
            RequestKind::Velocity => "MARKER_VELOCITY",
            RequestKind::Acceleration => "MARKER_ACCELERATION",
            RequestKind::Force => "MARKER_FORCE",
        };
        let _ = write!(
            o,
            "  <Post_Request id=\"{}\" type=\"{ty}\" i_marker_id=\"{}\"",
            r.id, r.i
        );
        if let Some(j) = r.j {
            let _ = write!(o, " j_marker_id=\"{j}\"");
        }
        if let Some(rm) = r.rm {
            let _ = write!(o, " ref_marker_id=\"{rm}\"");
        }
        if !r.comment.is_empty() {
            let _ = write!(o, " comment=\"{}\"", esc(&r.comment));
        }
        let _ = writeln!(o, "/>");
    }
    for r in &m.function_requests {
        let _ = write!(o, "  <Post_Request id=\"{}\" type=\"EXPRESSION\"", r.id);
        for (k, c) in r.components.iter().enumerate() {
            let text = c.as_deref().map(esc).unwrap_or_else(|| "NULL".into());
            let _ = write!(o, " expr{}=\"{text}\"", k + 1);
        }
        if !r.comment.is_empty() {
            let _ = write!(o, " comment=\"{}\"", esc(&r.comment));
        }
        let _ = writeln!(o, "/>");
    }
    let _ = writeln!(o, " </Model>");
    let _ = writeln!(o, "</MultiBodySystem>");
    Ok(o)
}
