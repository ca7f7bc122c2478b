//! FE_PART, FE_NODE, SECTION, FE_LOAD and markers on FE_PART nodes (Adams'
//! nonlinear finite-element beam parts) are refused each with the same
//! explanation and the alternative mbsolve has (BEAM), and `diagnose_adm`
//! (what `check` prints) lists every one of them at once.

const INSTEAD: &str = "an Adams FE_PART is a nonlinear finite-element beam with distributed mass (ANCF elements through its FE_NODEs, with SECTION properties per node; FE_LOAD loads it), which mbsolve does not model; mbsolve offers BEAM, the massless two-node beam force between two PARTs: model the FE_PART as PARTs at its nodes carrying the beam's mass, joined by BEAMs";

/// The statements of the adams-vscode-febeam-contact deck's FE part, cut
/// down to their first arguments.
const DECK: &str = "fe beam
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND
PART/1, GROUND
SECTION/1, TYPE = Solid Rectangular, AREA = 2500
FE_PART/2, TYPE = 3DBEAM, NODE_LABELS = 1, 2, MATERIAL = 1
MATERIAL/1, NAME = rubber, DENSITY = 7.801E-006
MARKER/7, FE_PART = 2, NODE_LABEL = 1, QP = -650, 100, 0
FE_NODE/1, FE_PART = 2, LABEL = 1, S = 0
FE_LOAD/1, FE_PART = 2, FY = 1
END
";

#[test]
fn fe_part_statements_are_all_refused_with_the_alternative() {
    let errors = mbsolve_adm::diagnose_adm(DECK, "fe.adm").err().unwrap();
    let got: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        got,
        vec![
            format!("fe.adm:4:1: SECTION/1: SECTION is not supported: {INSTEAD}"),
            format!("fe.adm:5:1: FE_PART/2: FE_PART is not supported: {INSTEAD}"),
            format!(
                "fe.adm:7:11: MARKER/7: a marker on an FE_PART node is not supported: {INSTEAD}"
            ),
            format!("fe.adm:8:1: FE_NODE/1: FE_NODE is not supported: {INSTEAD}"),
            format!("fe.adm:9:1: FE_LOAD/1: FE_LOAD is not supported: {INSTEAD}"),
        ]
    );
}
