//! Conversion both ways (issue 18 item 5): every example model, written in
//! the other format (and in its own) and read back, is the same model, and
//! so is every corpus deck that builds. "The same" is compared in the
//! ground frame: a Body_Rigid has no frame of its own, so the XML moves
//! every part frame to the global frame and re-expresses its markers in
//! it; positions, axes, masses, inertias (in CM marker axes), velocities,
//! connectivity, function texts and settings must all agree.

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{Model, MotionTarget};
use mbsolve_msxml::{read_xml_str, write_xml};
use std::path::{Path, PathBuf};

/// A number in a canonical line, compared with a tolerance by `same_line`.
fn n(x: f64) -> String {
    format!("{x:e}")
}

/// Two canonical lines agree: the same words, and numbers within 1e-9
/// relative to max(1, |x|) (frame arithmetic leaves round-off).
fn same_line(a: &str, b: &str) -> bool {
    let split = |s: &str| -> Vec<String> {
        s.split(|c: char| c.is_whitespace() || "()=,".contains(c))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (ta, tb) = (split(a), split(b));
    ta.len() == tb.len()
        && ta
            .iter()
            .zip(&tb)
            .all(|(x, y)| match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(u), Ok(v)) => (u - v).abs() <= 1e-9 * u.abs().max(v.abs()).max(1.0),
                _ => x == y,
            })
}

fn frame_text(p: &mbsolve_model::Placement) -> String {
    let r = p.rotation;
    let mut s = format!(
        "o({} {} {}) r(",
        n(p.origin.x),
        n(p.origin.y),
        n(p.origin.z)
    );
    for v in r.iter() {
        s.push_str(&n(*v));
        s.push(' ');
    }
    s.push(')');
    s
}

/// The model as comparable lines, in the ground frame.
fn canonical(m: &Model) -> Vec<String> {
    let mut l = vec![
        format!("units {:?}", m.units),
        format!(
            "gravity {} {} {}",
            n(m.gravity.x),
            n(m.gravity.y),
            n(m.gravity.z)
        ),
    ];
    for p in &m.parts {
        let cm = match p.cm {
            Some(c) => m
                .marker_in_ground(c)
                .map(|f| frame_text(&f))
                .unwrap_or_default(),
            None => frame_text(&p.placement),
        };
        let i = p.inertia;
        l.push(format!(
            "part {} ground={} mass={} I=({} {} {} {} {} {}) cm={:?} at {cm} v=({} {} {}) w=({} {} {})",
            p.id,
            p.ground,
            n(p.mass),
            n(i.ixx),
            n(i.iyy),
            n(i.izz),
            n(i.ixy),
            n(i.ixz),
            n(i.iyz),
            p.cm,
            n(p.velocity.x),
            n(p.velocity.y),
            n(p.velocity.z),
            n(p.angular_velocity.x),
            n(p.angular_velocity.y),
            n(p.angular_velocity.z)
        ));
    }
    for k in &m.markers {
        let f = m
            .marker_in_ground(k.id)
            .map(|f| frame_text(&f))
            .unwrap_or_default();
        l.push(format!("marker {} part {} {f}", k.id, k.part));
    }
    for j in &m.joints {
        l.push(format!("joint {} {:?} {} {}", j.id, j.kind, j.i, j.j));
    }
    for j in &m.jprims {
        l.push(format!("jprim {:?}", j));
    }
    for v in &m.variables {
        l.push(format!("variable {} {}", v.id, v.function));
    }
    for mo in &m.motions {
        let t = match mo.target {
            MotionTarget::Joint { joint, dof } => format!("joint {joint} {dof:?}"),
            MotionTarget::Markers { i, j, axis } => format!("markers {i} {j} {axis:?}"),
        };
        l.push(format!("motion {} {t} {:?}", mo.id, mo.function.source()));
    }
    for f in &m.forces {
        let k = match (f.kind.spring(), f.kind.sforce()) {
            (Some((rot, v)), _) => format!(
                "spring rotational={rot} {} {} {} {}",
                n(v[0]),
                n(v[1]),
                n(v[2]),
                n(v[3])
            ),
            (_, Some((function, rot, only))) => format!(
                "sforce rotational={rot} action_only={only} {:?}",
                function.source()
            ),
            _ => match &f.kind {
                mbsolve_model::ForceKind::Vector {
                    statement,
                    jfloat,
                    reaction_part,
                    components,
                } => format!(
                    "{} jfloat {jfloat} on {reaction_part} {:?}",
                    statement.name(),
                    components
                        .iter()
                        .map(|c| c.as_ref().map(|c| c.source()))
                        .collect::<Vec<_>>()
                ),
                // BUSHING, FIELD, BEAM: their whole definition (law,
                // matrices, preloads) in its Debug form.
                other => format!("{other:?}"),
            },
        };
        l.push(format!("force {} {} {} {k}", f.id, f.i, f.j));
    }
    for g in &m.geometries {
        l.push(format!("geometry {g:?}"));
    }
    for c in &m.contacts {
        l.push(format!("contact {c:?}"));
    }
    for a in &m.arrays {
        l.push(format!("array {a:?}"));
    }
    // The values only: write_adm writes a SPARSE matrix as FULL.
    for x in &m.matrices {
        l.push(format!(
            "matrix {} {} {} {:?}",
            x.id, x.rows, x.columns, x.values
        ));
    }
    for s in &m.linear_systems {
        l.push(format!(
            "linear {} {} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
            s.element,
            s.x,
            s.u,
            s.y,
            s.matrices,
            s.ic,
            s.numerator,
            s.denominator,
            s.static_hold,
            s.x0
        ));
    }
    for c in &m.gcons {
        l.push(format!("gcon {} {} {:?}", c.id, c.i, c.function.source()));
    }
    for r in &m.requests {
        l.push(format!(
            "request {} {:?} {} {:?} {:?} {:?}",
            r.id, r.kind, r.i, r.j, r.rm, r.comment
        ));
    }
    for r in &m.function_requests {
        let comps: Vec<Option<String>> = r
            .components
            .iter()
            .map(|c| c.as_ref().map(|t| t.split_whitespace().collect::<String>()))
            .collect();
        l.push(format!("frequest {} {:?} {:?}", r.id, comps, r.comment));
    }
    let mut i = m.integrator.clone();
    i.origin = None;
    l.push(format!("integrator {i:?}"));
    let mut e = m.equilibrium.clone();
    e.origin = None;
    l.push(format!("equilibrium {e:?}"));
    l
}

fn assert_same(a: &Model, b: &Model, what: &str) {
    let (ca, cb) = (canonical(a), canonical(b));
    for (x, y) in ca.iter().zip(&cb) {
        assert!(same_line(x, y), "{what}:\n  {x}\n  {y}");
    }
    assert_eq!(ca.len(), cb.len(), "{what}");
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn via_adm(m: &Model, what: &str) -> Model {
    let text = write_adm(m).unwrap_or_else(|e| panic!("{what}: {e}"));
    read_adm_str(&text, "converted.adm").unwrap_or_else(|e| panic!("{what}: {e}\n{text}"))
}

fn via_xml(m: &Model, what: &str) -> Result<Model, String> {
    let text = write_xml(m)?;
    Ok(read_xml_str(&text, "converted.xml")
        .unwrap_or_else(|e| panic!("{what}: {e}\n{text}"))
        .model)
}

#[test]
fn examples_round_trip_through_both_formats() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let model = match path.extension().and_then(|e| e.to_str()) {
            Some("adm") => read_adm_str(&text, &name).unwrap(),
            Some("xml") => read_xml_str(&text, &name).unwrap().model,
            _ => continue,
        };
        n += 1;
        assert_same(&model, &via_adm(&model, &name), &format!("{name} via .adm"));
        let x = via_xml(&model, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same(&model, &x, &format!("{name} via .xml"));
        // And back again: xml → adm → model.
        assert_same(
            &model,
            &via_adm(&x, &name),
            &format!("{name} via .xml and .adm"),
        );
    }
    assert!(n >= 4, "only {n} examples found");
}

/// What a corpus deck that builds may be refused for by write_xml: the
/// refusal must start with one of these element names, and each comes with
/// a small deck (appended to [`REFUSAL_BASE`]) that write_xml refuses with
/// that start ([`xml_refusals_are_what_write_xml_refuses`] checks it). A
/// deck refused for anything else fails [`corpus_decks_round_trip`]: a
/// branch that makes more corpus decks build and refuses a new element in
/// write_xml adds its entry here, with its deck.
const XML_REFUSED: &[(&str, &str)] = &[
    // Adams integrator settings: MotionSolve's Param_Transient has other
    // integrators.
    ("INTEGRATOR/", "INTEGRATOR/GSTIFF, ERROR = 1E-5\n"),
    ("EQUILIBRIUM", "EQUILIBRIUM/TLIMIT = 0.1\n"),
    ("KINEMATICS HMAX", "KINEMATICS/HMAX = 0.01\n"),
    (
        "PTCV/",
        "CURVE/1, MATRIX = 1, CURVE_POINTS, CLOSED\n\
         MATRIX/1, FULL = RORDER, ROWS = 4, COLUMNS = 3, VALUES = 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0\n\
         MARKER/11, PART = 1, FLOATING\n\
         PTCV/1, I = 20, JFLOAT = 11, CURVE = 1, RM = 10\n",
    ),
    (
        "CURVE/",
        "CURVE/1, MATRIX = 1, CURVE_POINTS, CLOSED\n\
         MATRIX/1, FULL = RORDER, ROWS = 4, COLUMNS = 3, VALUES = 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0\n",
    ),
    (
        "JOINT/",
        "JOINT/1, REVOLUTE, I = 20, J = 10, ICROT = 0.1\n",
    ),
    (
        "MOTION/",
        "JOINT/1, REVOLUTE, I = 20, J = 10\nMOTION/1, JOINT = 1, ROTATION, VELOCITY, FUNCTION = 1\n",
    ),
    (
        "REQUEST/",
        "REQUEST/1, F2 = DX(20), CNAMES = \"\", \"x\"\n",
    ),
    (
        "FRICTION/",
        "JOINT/1, REVOLUTE, I = 20, J = 10\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, STICTION_TRANSITION_VELOCITY = 0.1, \
         PIN_RADIUS = 0.01\n",
    ),
];

/// Ground with marker 10 and a free part 2 with marker 20.
const REFUSAL_BASE: &str = "t\nPART/1, GROUND\nMARKER/10, PART = 1\n\
                            PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\nMARKER/20, PART = 2\n";

/// The refusal start that `message` begins with, if it is in
/// [`XML_REFUSED`].
fn listed_refusal(message: &str) -> Option<&'static str> {
    XML_REFUSED
        .iter()
        .map(|(start, _)| *start)
        .find(|start| message.starts_with(start))
}

/// Each entry of [`XML_REFUSED`] is a refusal of write_xml: its deck reads
/// and write_xml refuses it with a message starting with the entry.
#[test]
fn xml_refusals_are_what_write_xml_refuses() {
    for (start, tail) in XML_REFUSED {
        let text = format!("{REFUSAL_BASE}{tail}END\n");
        let m = read_adm_str(&text, "refused.adm")
            .unwrap_or_else(|e| panic!("{start}: its deck does not read: {e}\n{text}"));
        match write_xml(&m) {
            Ok(_) => panic!("{start}: write_xml writes its deck; remove the entry\n{text}"),
            Err(e) => assert!(e.starts_with(start), "{start}: refused with {e:?}"),
        }
    }
}

/// Every corpus deck that builds writes to .adm and reads back the same;
/// to .xml likewise (GCON as Constraint_General, an ACTIONONLY SFORCE as a
/// Force_Scalar_TwoBody with is_action_only), or write_xml refuses it with
/// a message starting with an element of [`XML_REFUSED`] (settings the
/// MotionSolve XML has no form for). Anything else fails, naming the deck.
#[test]
fn corpus_decks_round_trip() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let corpus = mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut decks = Vec::new();
    let mut stack = vec![corpus];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|x| x.to_str()) == Some("adm") {
                decks.push(p);
            }
        }
    }
    decks.sort();
    let (mut built, mut xml_ok) = (0, 0);
    let mut not_xml = Vec::new();
    let mut unlisted = Vec::new();
    for p in &decks {
        let name = p.display().to_string();
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let Ok(model) = read_adm_str(&text, &name) else {
            continue;
        };
        built += 1;
        assert_same(&model, &via_adm(&model, &name), &format!("{name} via .adm"));
        match via_xml(&model, &name) {
            Ok(x) => {
                assert_same(&model, &x, &format!("{name} via .xml"));
                xml_ok += 1;
            }
            Err(e) => match listed_refusal(&e) {
                Some(_) => not_xml.push(format!("{name}: {e}")),
                None => unlisted.push(format!("{name}: {e}")),
            },
        }
    }
    println!(
        "{} corpus decks, {built} build, all round-trip through .adm, {xml_ok} through .xml; not expressible in XML:\n{}",
        decks.len(),
        not_xml.join("\n")
    );
    assert!(
        unlisted.is_empty(),
        "write_xml refuses corpus decks for an element not in XML_REFUSED (add it there with a deck, or write it):\n{}",
        unlisted.join("\n")
    );
    assert_eq!(built, xml_ok + not_xml.len());
    assert!(built >= 20, "only {built} corpus decks build");
    // The three chrono distance decks (GCON) and the torque-spike deck
    // (ACTIONONLY SFORCE) are among them.
    assert!(xml_ok >= 22, "only {xml_ok} corpus decks convert to .xml");
}

/// VFORCE, VTORQUE and GFORCE (with their FLOATING marker) survive both
/// writers, also a VFORCE/1 beside a VTORQUE/1 (one XML element type: the
/// second is written with a free XML id and its Adams id as `adams_id`).
#[test]
fn vector_forces_round_trip_through_both_formats() {
    let m = read_adm_str(
        "t\nPART/1, GROUND\nMARKER/10, PART = 1\n\
         PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\nMARKER/20, PART = 2\n\
         MARKER/9, PART = 1, FLOATING\n\
         VFORCE/1, I = 20, JFLOAT = 9, RM = 10, FX = 1\\FZ = 2*TIME\n\
         VTORQUE/1, I = 20, JFLOAT = 9, RM = 20, TY = DX(20)\n\
         GFORCE/4, I = 20, JFLOAT = 9, RM = 10, FY = 3\\TX = 4\\TZ = -5\nEND\n",
        "v.adm",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.forces.len(), 3);
    let back = via_adm(&m, "vector forces");
    assert_same(&m, &back, "vector forces");
    // VTORQUE/1 becomes Force_Vector_TwoBody 5 (above GFORCE/4) with
    // adams_id 1, and reads back as VTORQUE/1.
    let text = write_xml(&m).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("<Force_Vector_TwoBody id=\"5\" type=\"TorqueOnly\"")
            && text.contains(" adams_id=\"1\""),
        "{text}"
    );
    let x = via_xml(&m, "vector forces").unwrap_or_else(|e| panic!("{e}"));
    assert_same(&m, &x, "vector forces via .xml");
}
