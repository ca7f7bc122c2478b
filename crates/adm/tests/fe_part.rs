//! FE_PART (TYPE = 3DBEAM), FE_NODE, SECTION, MATERIAL and markers on FE
//! part nodes are read and built into node bodies and element BEAMs; the
//! corpus deck (adams-vscode-febeam-contact) stops only at its Parasolid
//! contact geometry; what is not built (FE_LOAD, 2D beams, ANGLE ≠ 0) and
//! records that disagree with their FE_PART are refused by name.

use mbsolve_model::{BeamFormulation, ElasticDamping, ElementRef, ForceKind};
use nalgebra::Vector3;
use std::path::Path;

fn corpus_deck() -> String {
    let root = mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::read_to_string(root.join("adams-vscode-febeam-contact/test.adm")).unwrap()
}

/// The corpus deck without its three CONTACTs and their EXTERNAL shell.
fn without_contacts(text: &str) -> String {
    let mut out = Vec::new();
    let mut skip = false;
    for line in text.lines() {
        if line.starts_with("CONTACT/") || line.starts_with("GRAPHICS/10") {
            skip = true;
        } else if !line.starts_with(',') {
            skip = false;
        }
        if !skip {
            out.push(line);
        }
    }
    out.join("\n")
}

/// `check` on the corpus deck names one problem only: the Parasolid shell
/// its CONTACTs use. Every FE statement and FE-node marker is read.
#[test]
fn the_corpus_fe_beam_deck_stops_only_at_its_parasolid_contact_geometry() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let rel = "adams-vscode-febeam-contact/test.adm";
    let errors = mbsolve_adm::diagnose_adm(&corpus_deck(), rel)
        .err()
        .unwrap();
    let got: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        got,
        vec![format!("{rel}:226:3: GRAPHICS/10: GRAPHICS/10 (used by CONTACT/1): geometry file not found: adams-vscode-febeam-contact/curved_beam_contact.xmt_txt; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))")]
    );
}

/// Without its contacts the deck builds: six node bodies beside PART/3,
/// five co-rotational BEAMs with C = 0.01·K and G = E/(2(1+ν)), node masses
/// summing to ρ·A·(chord length), the node frames at COORDINATES (node 1
/// turned 6.1134 rad about z), and the FE-node markers where the deck puts
/// them (QP given, or the node's origin when not).
#[test]
fn the_corpus_fe_beam_builds_into_node_bodies_and_beams() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let read = mbsolve_adm::read_adm_full(&without_contacts(&corpus_deck()), "fe.adm").unwrap();
    let m = &read.model;
    assert!(
        read.skipped.iter().all(|s| s.statement != "MATERIAL/1"),
        "MATERIAL/1 is read by FE_PART/2"
    );
    assert_eq!(m.fe_parts.len(), 1);
    let fe = &m.fe_parts[0];
    assert_eq!(fe.id, 2);
    assert_eq!(
        fe.nodes.iter().map(|n| n.label).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(m.parts.len(), 8);
    let node_mass: f64 = fe.nodes.iter().map(|n| m.part(n.body).unwrap().mass).sum();
    let chord: f64 = fe
        .nodes
        .windows(2)
        .map(|w| (w[1].placement.origin - w[0].placement.origin).norm())
        .sum();
    let want = 7.801e-6 * 2500.0 * chord;
    assert!(
        (node_mass / want - 1.0).abs() < 1e-12,
        "{node_mass} vs {want}"
    );
    let n1 = m.part(fe.nodes[0].body).unwrap();
    assert_eq!(n1.name, "FE_PART/2 node 1");
    assert!((n1.placement.origin - Vector3::new(-650.0, 100.0, 0.0)).norm() < 1e-9);
    let x_axis = n1.placement.rotation.column(0);
    assert!((x_axis[1].atan2(x_axis[0]) - (6.113438635 - 2.0 * std::f64::consts::PI)).abs() < 1e-9);
    let beams: Vec<_> = m
        .forces
        .iter()
        .filter(|f| matches!(f.element(), ElementRef::Beam(_)))
        .collect();
    assert_eq!(beams.len(), 5);
    for f in &beams {
        let ForceKind::Elastic(ref e) = f.kind else {
            panic!("a BEAM is elastic")
        };
        assert_eq!(e.formulation, BeamFormulation::Nonlinear);
        assert_eq!(e.damping, ElasticDamping::Ratio(0.01));
        let s = e.beam.unwrap();
        assert_eq!(
            (s.area, s.iyy, s.izz, s.ixx),
            (2500.0, 2.083333333e6, 1.302083333e5, 2.213541667e6)
        );
        assert!((s.gmodulus - 20700.0 / 2.58).abs() < 1e-9);
    }
    // MARKER/8 (node 6, QP and REULER given) and MARKER/9 (node 4, none).
    let g8 = m.marker_in_ground(8).unwrap();
    assert!((g8.origin - Vector3::new(650.0, 100.0, 0.0)).norm() < 1e-9);
    let g9 = m.marker_in_ground(9).unwrap();
    assert!((g9.origin - Vector3::new(130.5867801, 47.02729423, 0.0)).norm() < 1e-9);
    assert_eq!(m.marker(9).unwrap().part, fe.node(4).unwrap().body);
    // Messages name the FE part for what it was built into.
    assert_eq!(
        m.describe(ElementRef::Part(fe.nodes[2].body)),
        format!("PART/{} (FE_PART/2 node 3, fe.adm:102)", fe.nodes[2].body)
    );
}

const SMALL: &str = "fe beam
PART/1, GROUND
SECTION/1, TYPE = Solid Rectangular, RECT_BASE = 2, RECT_HEIGHT = 1
FE_PART/2, TYPE = 3DBEAM, NODE_LABELS = 1, 2, COORDINATES = 1, 0, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, MATERIAL = 1
MATERIAL/1, DENSITY = 2, YOUNGS_MODULUS = 100, POISSONS_RATIO = 0.25
FE_NODE/1, FE_PART = 2, LABEL = 1, S = 0, SECTION_NODE = 1
FE_NODE/2, FE_PART = 2, LABEL = 2, S = 1, SECTION_NODE = 1, QG = 3, 0, 0
MARKER/5, FE_PART = 2, NODE_LABEL = 2, QP = 3, 1, 0
{extra}
END
";

/// Without a SECTION list, each node takes the SECTION its FE_NODE names;
/// a solid rectangle's missing values come from RECT_BASE b = 2 and
/// RECT_HEIGHT h = 1: A = 2, IYY = hb³/12, IZZ = bh³/12, JXX = IYY + IZZ.
#[test]
fn fe_nodes_give_sections_from_section_statements() {
    let m = mbsolve_adm::read_adm_str(&SMALL.replace("{extra}", ""), "s.adm").unwrap();
    let s = m.fe_parts[0].nodes[1].section;
    assert_eq!((s.area, s.iyy, s.izz), (2.0, 8.0 / 12.0, 2.0 / 12.0));
    assert!((s.jxx - 10.0 / 12.0).abs() < 1e-15, "{}", s.jxx);
    // ρ A L = 2·2·3, half at each node.
    assert_eq!(m.part(m.fe_parts[0].nodes[0].body).unwrap().mass, 6.0);
    // QP is in the FE part's frame: 1 above node 2.
    let p = &m.markers.iter().find(|k| k.id == 5).unwrap().placement;
    assert!((p.origin - Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
}

/// Each problem with the statement, line and column that causes it.
#[test]
fn what_is_not_built_or_disagrees_is_refused_by_name() {
    let base = SMALL.replace("{extra}", "");
    let cases = [
        (
            SMALL.replace("{extra}", "FE_LOAD/1, FE_PART = 2, FY = 1"),
            "s.adm:9:1: FE_LOAD/1: FE_LOAD is not supported: apply the load at node markers instead (MARKER with FE_PART and NODE_LABEL, loaded by SFORCE, VFORCE or GFORCE)",
        ),
        (
            base.replace("TYPE = 3DBEAM", "TYPE = 4DBEAM"),
            "s.adm:4:19: FE_PART/2: TYPE = 4DBEAM: unknown FE part type (Adams: 3DBEAM, 2DBEAMXY, 2DBEAMYZ, 2DBEAMZX)",
        ),
        (
            base.replace("TYPE = 3DBEAM", "TYPE = 2DBEAMXY")
                .replace("2, 3, 0, 0,", "2, 3, 0, 0.1,"),
            "s.adm:4:1: FE_PART/2: TYPE = 2DBEAMXY: node 2 is off the plane of node 1 (a 2D beam's nodes lie in one plane parallel to its named plane)",
        ),
        (
            base.replace("TYPE = 3DBEAM", "TYPE = 2DBEAMYZ"),
            "s.adm:4:1: FE_PART/2: TYPE = 2DBEAMYZ: node 1's x axis leaves the plane",
        ),
        (
            base.replace("QG = 3, 0, 0", "QG = 3, 0.5, 0"),
            "s.adm:7:61: FE_NODE/2: QG is 0.5 from node 2 of FE_PART/2 (its COORDINATES)",
        ),
        (
            base.replace("LABEL = 2, S = 1,", "LABEL = 2, S = 0.5,"),
            "s.adm:7:36: FE_NODE/2: S = 0.5 but node 2 lies at 1 of FE_PART/2's length",
        ),
        (
            base.replace("LABEL = 1, S = 0,", "LABEL = 1, S = 0, ANGLE = 10,"),
            "s.adm:6:43: FE_NODE/1: ANGLE = 10 is not supported: only ANGLE = 0 (turn the node's axes through COORDINATES instead)",
        ),
        (
            base.replace("NODE_LABEL = 2", "NODE_LABEL = 3"),
            "s.adm:8:37: MARKER/5: FE_PART/2 has no node 3 (NODE_LABELS)",
        ),
        (
            base.replace("MATERIAL = 1\n", "MATERIAL = 4\n"),
            "s.adm:4:114: FE_PART/2: MATERIAL 4 does not exist",
        ),
        (
            base.replace("2, 3, 0, 0, 0, 0, 0,", "2, 3, 0, 0, 0, 0,"),
            "s.adm:4:47: FE_PART/2: COORDINATES takes 7 values per node (label, then 6), found 13 values",
        ),
        (
            base.replace(
                "MATERIAL = 1\n",
                "SECTION = 1, 2, 0.6666666666666666, 0.16666666666666666, 0, 0.8333333333333334, 2, 2, 0.7, 0.16666666666666666, 0, 0.8333333333333334, MATERIAL = 1\n",
            ),
            "s.adm:7:58: FE_NODE/2: SECTION_NODE: SECTION/1 has IYY = 0.666667 but FE_PART/2's SECTION gives 0.7 for node 2",
        ),
        (
            SMALL.replace("{extra}", "MATERIAL/1, DENSITY = 3"),
            "s.adm:9:1: MATERIAL/1: duplicate id: MATERIAL/1 is already defined at s.adm:5",
        ),
        (
            base.replace(", POISSONS_RATIO = 0.25", ""),
            "s.adm:5:1: MATERIAL/1: missing POISSONS_RATIO = (FE_PART/2 reads it)",
        ),
        (
            base.replace("YOUNGS_MODULUS = 100", "YOUNGS_MODULUS = 0"),
            "s.adm:4:1: FE_PART/2: MATERIAL YOUNGS_MODULUS must be positive, found 0",
        ),
    ];
    let (got, want): (Vec<String>, Vec<&str>) = cases
        .iter()
        .map(|(deck, want)| {
            let e = mbsolve_adm::read_adm_str(deck, "s.adm").unwrap_err();
            (e.to_string(), *want)
        })
        .unzip();
    assert_eq!(got, want);
}

/// TYPE = 2DBEAMXY (nodes at z = 0.5, an offset plane): each node body is
/// held in the plane by a PLANAR joint to ground whose z axis is global Z;
/// `write_adm` writes the TYPE back and not the joints, and reading that
/// back builds them again.
#[test]
fn a_2d_beam_holds_its_nodes_in_an_offset_plane_and_round_trips() {
    let deck = SMALL
        .replace("{extra}", "")
        .replace("TYPE = 3DBEAM", "TYPE = 2DBEAMXY")
        .replace(
            "1, 0, 0, 0, 0, 0, 0, 2, 3, 0, 0,",
            "1, 0, 0, 0.5, 0, 0, 0, 2, 3, 0, 0.5,",
        )
        .replace("QG = 3, 0, 0", "QG = 3, 0, 0.5");
    let m = mbsolve_adm::read_adm_str(&deck, "p.adm").unwrap();
    assert_eq!(m.joints.len(), 2);
    for j in &m.joints {
        assert_eq!(j.kind, mbsolve_model::JointKind::Planar);
        let (i, g) = (
            m.marker_in_ground(j.i).unwrap(),
            m.marker_in_ground(j.j).unwrap(),
        );
        assert!((i.rotation.column(2) - Vector3::z()).norm() < 1e-12);
        assert!((g.rotation.column(2) - Vector3::z()).norm() < 1e-12);
        assert!((i.origin.z - 0.5).abs() < 1e-12 && (g.origin - i.origin).norm() < 1e-12);
    }
    let text = mbsolve_adm::write_adm(&m).unwrap();
    assert!(text.contains("FE_PART/2, TYPE = 2DBEAMXY,"), "{text}");
    assert!(!text.contains("PLANAR"), "{text}");
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.joints.len(), 2);
    assert_eq!(back.markers.len(), m.markers.len());
}

/// `write_adm` writes the FE part back as FE_PART and MATERIAL, and the
/// markers on its nodes with FE_PART and NODE_LABEL (not its node PARTs,
/// element BEAMs or element markers); reading that back builds the same
/// node bodies (mass, inertia, frames), elements and markers in ground.
#[test]
fn write_adm_round_trips_an_fe_part() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let m = mbsolve_adm::read_adm_str(&without_contacts(&corpus_deck()), "fe.adm").unwrap();
    let text = mbsolve_adm::write_adm(&m).unwrap();
    assert!(
        text.contains("FE_PART/2, TYPE = 3DBEAM, NODE_LABELS = 1, 2, 3, 4, 5, 6"),
        "{text}"
    );
    assert!(
        text.contains("MARKER/9, FE_PART = 2, NODE_LABEL = 4, QP = "),
        "{text}"
    );
    assert!(!text.contains("BEAM/"), "{text}");
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.parts.len(), m.parts.len());
    assert_eq!(back.forces.len(), m.forces.len());
    assert_eq!(back.markers.len(), m.markers.len());
    let (a, b) = (&m.fe_parts[0], &back.fe_parts[0]);
    assert_eq!(
        (a.material, a.cratiok, &a.elements),
        (b.material, b.cratiok, &b.elements)
    );
    for (x, y) in a.nodes.iter().zip(&b.nodes) {
        let (p, q) = (m.part(x.body).unwrap(), back.part(y.body).unwrap());
        assert_eq!((x.label, x.section, p.id), (y.label, y.section, q.id));
        assert!((p.mass / q.mass - 1.0).abs() < 1e-12);
        assert!(
            (p.inertia.matrix() - q.inertia.matrix()).norm() < 1e-9 * p.inertia.matrix().norm()
        );
        assert!((p.placement.origin - q.placement.origin).norm() < 1e-9);
        assert!((p.placement.rotation - q.placement.rotation).norm() < 1e-12);
    }
    for id in [2, 7, 8, 9, 11] {
        let (g, h) = (
            m.marker_in_ground(id).unwrap(),
            back.marker_in_ground(id).unwrap(),
        );
        assert!((g.origin - h.origin).norm() < 1e-9, "MARKER/{id}");
        assert!((g.rotation - h.rotation).norm() < 1e-12, "MARKER/{id}");
    }
}
