//! Model → Adams dataset text (`mbsolve convert … -o MODEL.adm`), the
//! inverse of the builder: reading the text back gives the same model.
//! Frames are written as an origin and two points (QG/ZG/XG, QP/ZP/XP), so
//! no Euler-angle singularity or rounding of angles enters; numbers are
//! written to full precision.

use mbsolve_model::{
    CorrectorKind, ForceKind, Formulation, JointKind, Model, MotionDof, MotionTarget, Placement,
    RequestKind, StaticMethod,
};
use nalgebra::Vector3;
use std::fmt::Write as _;

mod contact;
mod curve;
mod data;
mod elastic;
mod fe_part;
mod point_mass;

pub(crate) fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:e}")
    }
}

fn vec3(v: &Vector3<f64>) -> String {
    format!("{}, {}, {}", num(v.x), num(v.y), num(v.z))
}

/// Origin, a point on z and a point on x, in the parent frame.
fn frame(p: &Placement, q: &str, z: &str, x: &str) -> String {
    let o = p.origin;
    let zp = o + p.rotation.column(2);
    let xp = o + p.rotation.column(0);
    format!(
        "{q} = {}, {z} = {}, {x} = {}",
        vec3(&o),
        vec3(&zp),
        vec3(&xp)
    )
}

/// A function's text, or an error naming the element whose function was
/// built in code and so has no text (both writers, `.adm` and `.xml`).
pub fn function_source<'a>(s: Option<&'a str>, element: &str) -> Result<&'a str, String> {
    s.ok_or_else(|| {
        format!("{element}: its function was built in code and has no expression text to write")
    })
}

/// The model as an Adams dataset.
pub fn write_adm(m: &Model) -> Result<String, String> {
    let mut o = String::new();
    let title = m.title.lines().next().unwrap_or("").trim();
    let _ = writeln!(
        o,
        "{}",
        if title.is_empty() {
            "mbsolve model"
        } else {
            title
        }
    );
    let u = &m.units;
    match u.ucf {
        // a factor given as such replaces the four units
        Some(f) => {
            let _ = writeln!(o, "UNITS/UCF = {}", num(f));
        }
        None => {
            let _ = writeln!(
                o,
                "UNITS/FORCE = {}, MASS = {}, LENGTH = {}, TIME = {}",
                u.force, u.mass, u.length, u.time
            );
        }
    }
    let g = m.gravity;
    let _ = writeln!(
        o,
        "ACCGRAV/IGRAV = {}, JGRAV = {}, KGRAV = {}",
        num(g.x),
        num(g.y),
        num(g.z)
    );
    for p in &m.parts {
        if fe_part::is_node_body(m, p) {
            continue;
        }
        if let Some(line) = point_mass::statement(p) {
            let _ = writeln!(o, "{line}");
        } else if p.ground {
            let _ = writeln!(o, "PART/{}, GROUND", p.id);
        } else {
            let i = &p.inertia;
            let _ = write!(
                o,
                "PART/{}, MASS = {}, IP = {}, {}, {}, {}, {}, {}, {}",
                p.id,
                num(p.mass),
                num(i.ixx),
                num(i.iyy),
                num(i.izz),
                num(i.ixy),
                num(i.ixz),
                num(i.iyz),
                frame(&p.placement, "QG", "ZG", "XG")
            );
            o.push_str(&point_mass::cm_and_velocity(p));
            if p.angular_velocity != Vector3::zeros() {
                // WX/WY/WZ are in the CM marker's axes (the part's without one).
                let r =
                    p.cm.and_then(|c| m.marker_in_ground(c))
                        .map(|f| f.rotation)
                        .unwrap_or(p.placement.rotation);
                let w = r.transpose() * p.angular_velocity;
                let _ = write!(
                    o,
                    ", WX = {}, WY = {}, WZ = {}",
                    num(w.x),
                    num(w.y),
                    num(w.z)
                );
            }
            let _ = writeln!(o);
        }
    }
    o.push_str(&fe_part::statements(m));
    for k in &m.markers {
        if let Some(line) = fe_part::marker(m, k) {
            if !line.is_empty() {
                let _ = writeln!(o, "{line}");
            }
            continue;
        }
        if let Some(line) = point_mass::marker(k) {
            let _ = writeln!(o, "{line}");
            continue;
        }
        let _ = writeln!(
            o,
            "MARKER/{}, PART = {}, {}",
            k.id,
            k.part,
            frame(&k.placement, "QP", "ZP", "XP")
        );
    }
    for j in &m.joints {
        if fe_part::is_plane_joint(m, j.id) {
            continue;
        }
        let extra = match j.kind {
            JointKind::RackPin { pitch_diameter } => format!(", PD = {}", num(pitch_diameter)),
            _ => String::new(),
        } + &data::joint_ic_args(m, j.id, j.kind);
        let _ = writeln!(
            o,
            "JOINT/{}, {}, I = {}, J = {}{extra}",
            j.id,
            j.kind.name(),
            j.i,
            j.j
        );
    }
    for j in &m.jprims {
        let _ = writeln!(
            o,
            "JPRIM/{}, {}, I = {}, J = {}",
            j.id,
            j.kind.name(),
            j.i,
            j.j
        );
    }
    for v in &m.variables {
        // An implicit VARIABLE keeps its initial guess (IC).
        let ic = m.implicit_variables.iter().find(|x| x.id == v.id);
        let ic = ic.map(|x| format!(" IC = {:e},", x.ic)).unwrap_or_default();
        let _ = writeln!(
            o,
            "VARIABLE/{},{ic} FUNCTION = {}",
            v.id,
            one_line(&v.function)
        );
    }
    for s in &m.sensors {
        let mut line = format!(
            "SENSOR/{}, FUNCTION = {}, VALUE = {}, ERROR = {}, {}, TERROR = {}",
            s.id,
            one_line(&s.function),
            num(s.value),
            num(s.error),
            s.compare.keyword(),
            num(s.terror)
        );
        let flags = [
            (true, s.action.keyword()),
            (s.print, "PRINT"),
            (s.restart, "RESTART"),
            (s.codgen, "CODGEN"),
            (s.bisection, "BISECTION"),
        ];
        for (_, k) in flags.iter().filter(|(on, k)| *on && !k.is_empty()) {
            line.push_str(&format!(", {k}"));
        }
        for (k, v) in [("STEPSIZE", s.stepsize), ("DT", s.dt)] {
            if let Some(v) = v {
                line.push_str(&format!(", {k} = {}", num(v)));
            }
        }
        if let Some(g) = &s.evaluate {
            line.push_str(&format!(", EVALUATE = {}", one_line(g)));
        }
        let _ = writeln!(o, "{line}");
    }
    for d in &m.diffs {
        let label = format!("DIFF/{}", d.id);
        let f = one_line(function_source(d.function.source(), &label)?);
        let ic = match d.ic_rate {
            Some(r) => format!("{}, {}", num(d.ic), num(r)),
            None => num(d.ic),
        };
        let implicit = if d.implicit { ", IMPLICIT" } else { "" };
        let hold = if d.static_hold { ", STATIC_HOLD" } else { "" };
        let _ = writeln!(o, "{label}, IC = {ic}{implicit}{hold}, FUNCTION = {f}");
    }
    crate::write_states::write_linear(&mut o, m);
    for mo in &m.motions {
        let label = format!("MOTION/{}", mo.id);
        let f = one_line(function_source(mo.function.source(), &label)?);
        let target = match mo.target {
            MotionTarget::Joint { joint, dof } => format!(
                "JOINT = {joint}, {}",
                match dof {
                    MotionDof::Translation => "TRANSLATION",
                    MotionDof::Rotation => "ROTATION",
                }
            ),
            MotionTarget::Markers { i, j, axis } => {
                format!("I = {i}, J = {j}, {}", axis.name())
            }
        };
        let integral = data::motion_integral_args(mo.function.integrated());
        let _ = writeln!(o, "{label}, {target}{integral}, FUNCTION = {f}");
    }
    // FLOATING markers live only in the elements that use them: each is
    // written once, before its first user (the reader needs it defined).
    let mut floating_written = std::collections::HashSet::new();
    for f in &m.forces {
        if fe_part::is_element(m, f) {
            continue;
        }
        let (i, j) = (f.i, f.j);
        if let ForceKind::Vector {
            statement,
            jfloat,
            reaction_part,
            components,
        } = &f.kind
        {
            if floating_written.insert(*jfloat) {
                let _ = writeln!(o, "MARKER/{jfloat}, PART = {reaction_part}, FLOATING");
            }
            let label = format!("{}/{}", statement.name(), f.id);
            let mut parts = Vec::new();
            for (key, c) in ["FX", "FY", "FZ", "TX", "TY", "TZ"]
                .iter()
                .zip(components.iter())
            {
                if let Some(function) = c {
                    let text = one_line(function_source(function.source(), &label)?);
                    parts.push(format!("{key} = {text}"));
                }
            }
            // Components are separated by backslashes (Adams syntax).
            let _ = writeln!(
                o,
                "{label}, I = {i}, JFLOAT = {jfloat}, RM = {j}, {}",
                parts.join("\\ ")
            );
        } else if let Some((rotational, v)) = f.kind.spring() {
            let (kind, keys) = if rotational {
                ("ROTATIONAL", ["KT", "CT", "ANGLE", "TORQUE"])
            } else {
                ("TRANSLATIONAL", ["K", "C", "LENGTH", "FORCE"])
            };
            let args: Vec<String> = keys
                .iter()
                .zip(v)
                .map(|(k, x)| format!("{k} = {}", num(x)))
                .collect();
            let _ = writeln!(
                o,
                "SPRINGDAMPER/{}, {kind}, I = {i}, J = {j}, {}",
                f.id,
                args.join(", ")
            );
        } else if let ForceKind::Elastic(e) = &f.kind {
            let _ = writeln!(o, "{}", elastic::statement(f.id, i, j, e)?);
        } else if let Some((function, rotational, action_only)) = f.kind.sforce() {
            let label = format!("SFORCE/{}", f.id);
            let kind = if rotational {
                "ROTATIONAL"
            } else {
                "TRANSLATIONAL"
            };
            let only = if action_only { ", ACTIONONLY" } else { "" };
            let text = one_line(function_source(function.source(), &label)?);
            let _ = writeln!(
                o,
                "{label}, {kind}{only}, I = {i}, J = {j}, FUNCTION = {text}"
            );
        }
    }
    o.push_str(&curve::lines(m, &mut floating_written));
    o.push_str(&crate::write_friction::lines(m)?);
    o.push_str(&contact::lines(m)?);
    for c in &m.couplers {
        let _ = writeln!(o, "{}", elastic::coupler(c));
    }
    for g in &m.gears {
        let [a, b] = g.joints;
        let _ = writeln!(o, "GEAR/{}, JOINTS = {a}, {b}, CV = {}", g.id, g.cv);
    }
    for c in &m.gcons {
        let label = format!("GCON/{}", c.id);
        let text = one_line(function_source(c.function.source(), &label)?);
        let _ = writeln!(o, "{label}, I = {}, FUNCTION = {text}", c.i);
    }
    for r in &m.requests {
        let kind = match r.kind {
            RequestKind::Displacement => "DISPLACEMENT",
            RequestKind::Velocity => "VELOCITY",
            RequestKind::Acceleration => "ACCELERATION",
            RequestKind::Force => "FORCE",
        };
        let _ = write!(o, "REQUEST/{}, {kind}, I = {}", r.id, r.i);
        if let Some(j) = r.j {
            let _ = write!(o, ", J = {j}");
        }
        if let Some(rm) = r.rm {
            let _ = write!(o, ", RM = {rm}");
        }
        if !r.comment.is_empty() {
            let _ = write!(o, ", COMMENT = {}", one_line(&r.comment));
        }
        let _ = writeln!(o);
    }
    for r in &m.function_requests {
        let _ = write!(o, "REQUEST/{}", r.id);
        if !r.comment.is_empty() {
            let _ = write!(o, ", COMMENT = {}", one_line(&r.comment));
        }
        let comps: Vec<String> = r
            .components
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.as_ref().map(|t| format!("F{} = {}", k + 1, one_line(t))))
            .collect();
        if !comps.is_empty() {
            let _ = write!(o, ", {}", comps.join("\\\n, "));
        }
        // CNAMES/CLABELS (empty where the default holds) and RESULTS_NAME:
        // the CSV column names.
        for (key, texts) in [("CNAMES", &r.cnames), ("CLABELS", &r.clabels)] {
            if texts.iter().any(Option::is_some) {
                let quoted: Vec<String> = texts
                    .iter()
                    .map(|t| format!("\"{}\"", t.as_deref().unwrap_or("")))
                    .collect();
                let _ = write!(o, "\n, {key} = {}", quoted.join(", "));
            }
        }
        if let Some(n) = &r.results_name {
            let _ = write!(o, "\n, RESULTS_NAME = {n}");
        }
        let _ = writeln!(o);
    }
    for (kind, ios) in [("PINPUT", &m.plant_inputs), ("POUTPUT", &m.plant_outputs)] {
        for io in ios {
            let vars: Vec<String> = io.variables.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(o, "{kind}/{}, VARIABLES = {}", io.id, vars.join(", "));
        }
    }
    if let Some(h) = m.kinematics.hmax {
        let _ = writeln!(o, "KINEMATICS/, HMAX = {h:e}");
    }
    data::write_data(&mut o, m);
    integrator(&mut o, m);
    equilibrium(&mut o, m)?;
    let _ = writeln!(o, "END");
    Ok(o)
}

/// `KEY = value` for each argument given.
fn given(args: &mut Vec<String>, values: &[(&str, Option<f64>)]) {
    for (k, v) in values {
        if let Some(v) = v {
            args.push(format!("{k} = {}", num(*v)));
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn integrator(o: &mut String, m: &Model) {
    let s = &m.integrator;
    let mut args: Vec<String> = Vec::new();
    if s.kind_given {
        args.push(s.kind.name().into());
    }
    // The ODE form has no Adams keyword: ABAM, RKF45, VSTIFF and MSTIFF
    // imply it.
    let keyword = s.formulation.and_then(|f| match f {
        Formulation::I3 => Some("I3"),
        Formulation::Si2 => Some("SI2"),
        Formulation::Si1 => Some("SI1"),
        Formulation::Ode => None,
    });
    if let Some(k) = keyword {
        args.push(k.into());
    }
    given(
        &mut args,
        &[
            ("ERROR", s.error),
            ("HMAX", s.hmax),
            ("HMIN", s.hmin),
            ("HINIT", s.hinit),
            ("MAXERR", s.maxerr),
            ("ADAPTIVITY", s.adaptivity),
            ("ALPHA", s.alpha),
            ("BETA", s.beta),
            ("GAMMA", s.gamma),
        ],
    );
    for (k, v) in [
        ("KMAX", s.kmax),
        ("MAXIT", s.maxit),
        ("FIXIT", s.fixit),
        ("HRATIO", s.hratio),
    ] {
        if let Some(v) = v {
            args.push(format!("{k} = {v}"));
        }
    }
    if let Some(p) = &s.pattern {
        let p: Vec<&str> = p.iter().map(|b| if *b { "T" } else { "F" }).collect();
        args.push(format!("PATTERN = {}", p.join(":")));
    }
    if let Some(c) = s.corrector {
        args.push(format!(
            "CORRECTOR = {}",
            match c {
                CorrectorKind::Original => "ORIGINAL",
                CorrectorKind::Modified => "MODIFIED",
                CorrectorKind::OrigConstant => "ORIG_CONSTANT",
            }
        ));
    }
    if let Some(i) = s.interpolate {
        args.push(format!("INTERPOLATE = {}", if i { "ON" } else { "OFF" }));
    }
    if !args.is_empty() {
        let _ = writeln!(o, "INTEGRATOR/{}", args.join(", "));
    }
}

fn equilibrium(o: &mut String, m: &Model) -> Result<(), String> {
    let s = &m.equilibrium;
    if let Some(x) = s.method.filter(|x| *x != StaticMethod::FimS) {
        return Err(format!(
            "Param_Static method {} has no Adams EQUILIBRIUM form",
            x.name()
        ));
    }
    for (k, v) in [
        ("max_ke_tol", s.max_ke_tol),
        ("max_dq_tol", s.max_dq_tol),
        ("compliance_delta", s.compliance_delta),
    ] {
        if v.is_some() {
            return Err(format!(
                "Param_Static {k} has no Adams EQUILIBRIUM argument"
            ));
        }
    }
    let mut args: Vec<String> = Vec::new();
    if s.method == Some(StaticMethod::FimS) {
        args.push("STATIC".into());
    }
    given(
        &mut args,
        &[
            ("ERROR", s.max_error),
            ("IMBALANCE", s.max_imbalance),
            ("STABILITY", s.stability),
            ("TLIMIT", s.tlimit),
            ("ALIMIT", s.alimit),
        ],
    );
    if let Some(n) = s.max_num_iter {
        args.push(format!("MAXIT = {n}"));
    }
    if !args.is_empty() {
        let _ = writeln!(o, "EQUILIBRIUM/{}", args.join(", "));
    }
    Ok(())
}
