//! The reader on every deck of the third-party corpus (`../shared/corpus`,
//! read in place, never copied). When the corpus is absent the tests fail
//! in CI, saying where they looked (a skipped corpus must not pass there),
//! and are skipped with one note on a plain clone (`corpus::present`).

use mbsolve_adm::{diagnose_adm, parse_acf, read_acf_str, read_adm_full, syntax::parse_adm};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// (relative path, text) of every .adm and .acf file, sorted.
fn files(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs.into_iter().filter(|d| d.is_dir()) {
        let mut fs: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        fs.sort();
        for f in fs {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "adm" || ext == "acf" {
                let rel = f.strip_prefix(root).unwrap().display().to_string();
                let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
                out.push((rel, text));
            }
        }
    }
    out
}

/// What each dataset of the corpus gives: `None` = it builds, `Some(text)`
/// = the reader's first problem is a message ending in `text` (the first
/// element not supported yet, or, for RotSpring, the error Adams itself
/// reports).
const EXPECTED: &[(&str, Option<&str>)] = &[
    (
        "adams-vscode-febeam-contact/test.adm",
        // Its FE_PART is built; the CONTACTs' shell is Parasolid.
        Some(":226:3: GRAPHICS/10: GRAPHICS/10 (used by CONTACT/1): geometry file not found: adams-vscode-febeam-contact/curved_beam_contact.xmt_txt; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))"),
    ),
    (
        "adamspy-camelot-contact/camelot_1_pull0_offset0.adm",
        Some(":510:3: GRAPHICS/9: GRAPHICS/9 (used by CONTACT/1): geometry file not found: adamspy-camelot-contact/camelot_1_pull0_offset0.xmt_txt; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))"),
    ),
    (
        "adamspy-drillstring/test.adm",
        Some(":10605:3: GFORCE/9000000: FUNCTION = USER(1.05, 0.005, 1.0208, 0.3, 0.15, 1.2… calls the user subroutine adrill_solver::BitForces; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    (
        "adamspy-drillsim-analysis/test_analysis_1.adm",
        Some(":9788:3: SFORCE/1002: FUNCTION = USER(900, 400, 0.16, 0, 0.165, -20.667, … calls the user subroutine adrill_solver::MotorTrq; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    (
        "adamspy-frs5-feed/FRS5_doe_8_LAUL_analysis.adm",
        Some(":7266:3: GRAPHICS/4202: GRAPHICS/4202 (used by CONTACT/1): geometry file not found: adamspy-frs5-feed/FRS5_doe_8_LAUL_analysis.xmt_txt; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))"),
    ),
    ("adamspy-generic-model/generic_model.adm", None),
    ("adamspy-torque-spike/test_analysis_with_spikes.adm", None),
    (
        "aview-hpc-contact/test_2.adm",
        Some(":41:3: GRAPHICS/1: GRAPHICS/1 (used by CONTACT/1): geometry file not found: aview-hpc-contact/test_2.x_t; it would be Parasolid geometry, which mbsolve cannot read either (supported: Adams shell .shl and STL .stl meshes, or GRAPHICS primitives (BOX, CYLINDER, FRUSTUM, ELLIPSOID, TORUS))"),
    ),
    ("aview-hpc-free-part/test.adm", None),
    ("aview-hpc-pendulum/test.adm", None),
    ("chrono-cylindrical-case01/test_Cylindrical_Case01.adm", None),
    ("chrono-cylindrical-case02/test_Cylindrical_Case02.adm", None),
    ("chrono-cylindrical-case03/test_Cylindrical_Case03.adm", None),
    ("chrono-distance-case01/test_Distance_Case01.adm", None),
    ("chrono-distance-case02/test_Distance_Case02.adm", None),
    ("chrono-distance-case03/test_Distance_Case03.adm", None),
    ("chrono-prismatic-case01/test_Prismatic_Case01.adm", None),
    ("chrono-prismatic-case02/test_Prismatic_Case02.adm", None),
    ("chrono-prismatic-case03/test_Prismatic_Case03.adm", None),
    ("chrono-rackpinion-case01/test_RackPinion_Case01.adm", None),
    ("chrono-revolute-case01/test_Revolute_Case01.adm", None),
    ("chrono-revolute-case02/test_Revolute_Case02.adm", None),
    // Adams rejects this deck too (SOURCES.md: its .msg log).
    (
        "chrono-rotspring-case01/test_RotSpring_Case01.adm",
        Some(":193:16: REQUEST/5: illegal function expression SFORCE(1,0,2,101): Wrong component: 2. No force in corresponding object (SFORCE/1 is ROTATIONAL: it applies a torque only)"),
    ),
    ("chrono-spherical-case01/test_Spherical_Case01.adm", None),
    ("chrono-spherical-case02/test_Spherical_Case02.adm", None),
    ("chrono-transspring-case01/test_TransSpring_Case01.adm", None),
    ("chrono-universal-case01/test_Universal_Case01.adm", None),
    ("chrono-universal-case02/test_Universal_Case02.adm", None),
    ("chrono-universal-case03/test_Universal_Case03.adm", None),
    (
        "mbdyn-a2m-double-pendulum/bipendololeo.adm",
        Some(":85:35: JOINT/1: DELTA_V is one of Adams/View's old joint-friction arguments (DELTA_V, MAXIMUM_DEFORMATION, MU_DYN_ROT, MU_STAT_ROT, MAX_FRIC_ROT, PRELOAD_RADIAL, PRELOAD_AXIAL, INNER_RADIUS, OUTER_RADIUS, …), whose law Adams Solver does not document; write a FRICTION statement instead (FRICTION/id, JOINT = id, MU_STATIC = MU_STAT_ROT, MU_DYNAMIC = MU_DYN_ROT, STICTION_TRANSITION_VELOCITY = DELTA_V, PIN_RADIUS = …)"),
    ),
    (
        "mbdyn-a2m-landing-gear/ant.adm",
        Some(":285:59: GFORCE/1: FUNCTION = USER(7, 8, 9, 1.7172509E+07, 1.71725E+07… calls the user subroutine GFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    (
        "mbdyn-a2m-syntax-torture/pm03.adm",
        Some(":9:29: GFORCE/5: FUNCTION = USER(50,60,70) calls the user subroutine GFOSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    // FAST2ADAMS: FIELD KMATRIX/CMATRIX, `v,` / `, v` lists and STRING paths
    // read; every problem left is a user subroutine (AeroDyn, the
    // controllers), the first VARIABLE/1's VARSUB.
    (
        "nrel-fast-certtest/Test01_ADAMS.adm",
        Some(":5:13: VARIABLE/1: FUNCTION = USER(1) calls the user subroutine VARSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    // FAST2ADAMS: FIELD KMATRIX/CMATRIX, `v,` / `, v` lists and STRING paths
    // read; every problem left is a user subroutine (AeroDyn, the
    // controllers), the first VARIABLE/1's VARSUB.
    (
        "nrel-fast-certtest/Test06_ADAMS.adm",
        Some(":5:13: VARIABLE/1: FUNCTION = USER(1) calls the user subroutine VARSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
    // FAST2ADAMS: FIELD KMATRIX/CMATRIX, `v,` / `, v` lists and STRING paths
    // read; every problem left is a user subroutine (AeroDyn, the
    // controllers), the first VARIABLE/1's VARSUB.
    (
        "nrel-fast-certtest/Test09_ADAMS.adm",
        Some(":5:13: VARIABLE/1: FUNCTION = USER(1) calls the user subroutine VARSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression"),
    ),
];

/// "GFORCE: statement GFORCE is not supported yet" for one reader error:
/// the statement type and the message without the element's id, so that
/// a deck's 110 CONTACTs count as one kind of problem.
fn problem_kind(e: &mbsolve_adm::AdmError) -> String {
    let label = e.statement.clone().unwrap_or_default();
    let kind = label.split('/').next().unwrap_or("").to_string();
    let message = e
        .message
        .strip_prefix(&format!("{label}: "))
        .unwrap_or(&e.message);
    // USER(…) arguments differ per element; the subroutine is the kind.
    if let Some(sub) = message.split("calls the user subroutine ").nth(1) {
        let sub = sub.split(';').next().unwrap_or(sub);
        return format!("{kind}: user subroutine {sub}");
    }
    format!("{kind}: {message}")
}

/// Every problem of a deck grouped by kind, with counts, in order of first
/// appearance.
fn problem_summary(errors: &[mbsolve_adm::AdmError]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for e in errors {
        let k = problem_kind(e);
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some((_, n)) => *n += 1,
            None => out.push((k, 1)),
        }
    }
    out
}

/// The corpus report (issue 16 item 6): per deck, the first problem and
/// every kind of problem with its count; the first problem must be the one
/// in EXPECTED, so a deck that regresses or starts to build fails here.
#[test]
fn corpus_parses_and_builds_or_names_the_first_unsupported_element() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let root = corpus();
    let mut built = Vec::new();
    let mut datasets = 0;
    let mut unexpected = Vec::new();
    println!("{:<60} result", "file");
    for (rel, text) in files(&root) {
        if rel.ends_with(".adm") {
            datasets += 1;
            let syn = parse_adm(&text, &rel);
            assert!(
                syn.is_ok(),
                "parse layer rejects {rel}: {}",
                syn.unwrap_err()
            );
            let result = diagnose_adm(&text, &rel);
            // The first problem is what the one-error reader reports too.
            match (&result, read_adm_full(&text, &rel)) {
                (Ok(_), Ok(_)) => {}
                (Err(all), Err(first)) => assert_eq!(all[0], first, "{rel}"),
                (a, b) => panic!(
                    "{rel}: diagnose_adm {:?} but read_adm_full {:?}",
                    a.is_ok(),
                    b.is_ok()
                ),
            }
            match &result {
                Ok(r) => {
                    let m = &r.model;
                    println!(
                        "{rel:<60} BUILT: {} parts, {} markers, {} joints, {} jprims, {} motions, {} forces, {} variables, {} requests, {} function requests",
                        m.parts.len(),
                        m.markers.len(),
                        m.joints.len(),
                        m.jprims.len(),
                        m.motions.len(),
                        m.forces.len(),
                        m.variables.len(),
                        m.requests.len(),
                        m.function_requests.len()
                    );
                    built.push(rel.clone());
                }
                Err(errors) => {
                    println!("{rel:<60} first: {}", errors[0]);
                    for (kind, n) in problem_summary(errors) {
                        println!("{:<60}   {n:>4} × {kind}", "");
                    }
                }
            }
            let want = EXPECTED.iter().find(|(f, _)| *f == rel).map(|(_, w)| *w);
            let ok = match (want, &result) {
                (Some(None), Ok(_)) => true,
                (Some(Some(tail)), Err(e)) => e[0].to_string() == format!("{rel}{tail}"),
                _ => false,
            };
            if !ok {
                unexpected.push(rel.clone());
            }
        } else {
            let syn = parse_acf(&text, &rel);
            assert!(
                syn.is_ok(),
                "parse layer rejects {rel}: {}",
                syn.unwrap_err()
            );
            match read_acf_str(&text, &rel) {
                Ok(a) => println!("{rel:<60} BUILT: {} commands", a.commands.len()),
                Err(e) => println!("{rel:<60} {e}"),
            }
        }
    }
    println!("{} of {datasets} dataset(s) build", built.len());
    assert!(
        unexpected.is_empty(),
        "outcome differs from EXPECTED for {unexpected:?}"
    );
    assert_eq!(datasets, EXPECTED.len(), "a dataset was added or removed");
    assert_eq!(built.len(), 22);
}

/// `check` names every user subroutine of a deck at once: the drill-string
/// decks' GFORCEs (USER with ROUTINE = adrill_solver::…) are all listed.
#[test]
fn every_user_subroutine_of_a_deck_is_named() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let rel = "adamspy-drillstring/test.adm";
    let text = String::from_utf8_lossy(&std::fs::read(corpus().join(rel)).unwrap()).into_owned();
    let errors = diagnose_adm(&text, rel).unwrap_err();
    let user: Vec<_> = errors
        .iter()
        .filter(|e| e.message.contains("calls the user subroutine"))
        .collect();
    // SOURCES.md: the deck has 47 USER calls; each names its ROUTINE (the
    // GSE's has none: Adams' default GSE_DERIV).
    assert_eq!(user.len(), 47);
    let mut named: Vec<(String, usize)> = Vec::new();
    for e in &user {
        let sub = e
            .message
            .split("calls the user subroutine ")
            .nth(1)
            .unwrap();
        let sub = sub.split(';').next().unwrap().to_string();
        match named.iter_mut().find(|(s, _)| *s == sub) {
            Some((_, n)) => *n += 1,
            None => named.push((sub, 1)),
        }
    }
    named.sort();
    let want: Vec<(String, usize)> = [
        ("GSE_DERIV", 1),
        ("adrill_solver::BitForces", 1),
        ("adrill_solver::HoleCurveSub", 1),
        ("adrill_solver::Output4D", 1),
        ("adrill_solver::StringForces", 43),
    ]
    .iter()
    .map(|(s, n)| (s.to_string(), *n))
    .collect();
    assert_eq!(named, want);
}

#[test]
fn chrono_command_files_build() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let root = corpus();
    for (rel, text) in files(&root) {
        if rel.starts_with("chrono-") && rel.ends_with(".acf") {
            let acf = read_acf_str(&text, &rel).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                acf.model_file.as_deref().unwrap_or("").ends_with(".adm"),
                "{rel}"
            );
            assert_eq!(acf.commands.len(), 2, "{rel}");
        }
    }
}

/// Random byte mutations of corpus files never panic the reader.
#[test]
fn mutated_corpus_files_never_panic() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let root = corpus();
    let all = files(&root);
    let small: Vec<_> = all.iter().filter(|(_, t)| t.len() < 40_000).collect();
    // xorshift64: deterministic, no dependency
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const ALPHABET: &[u8] = b",;&!\\=()/:*-+.D 0123456789\n\r\tEFIJKQPRX\"'";
    for round in 0..2000 {
        let (rel, text) = small[(next() % small.len() as u64) as usize];
        let mut bytes = text.as_bytes().to_vec();
        let n_mut = 1 + next() % 8;
        for _ in 0..n_mut {
            if bytes.is_empty() {
                break;
            }
            let at = (next() % bytes.len() as u64) as usize;
            match next() % 4 {
                0 => bytes[at] = ALPHABET[(next() % ALPHABET.len() as u64) as usize],
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, ALPHABET[(next() % ALPHABET.len() as u64) as usize]),
                _ => bytes[at] = (next() & 0xff) as u8,
            }
        }
        let mutated = String::from_utf8_lossy(&bytes).into_owned();
        let name = format!("{rel}#{round}");
        let result = std::panic::catch_unwind(|| {
            let _ = read_adm_full(&mutated, &name);
            let _ = read_acf_str(&mutated, &name);
        });
        assert!(
            result.is_ok(),
            "reader panicked on mutation {round} of {rel}"
        );
    }
}

/// What each command file gives: `None` = every command builds, `Some(text)`
/// = the first command not supported yet.
const EXPECTED_ACF: &[(&str, Option<&str>)] = &[
    // ACTIVATE/JOINT before a static, DEACTIVATE/JOINT before the dynamics.
    ("adamspy-camelot-contact/camelot_1_pull0_offset0.acf", None),
    // Four VARIABLE redefinitions before the first SIMULATE, then a
    // 16-step equil/sim/stat funnel and two sim/dyn.
    ("adamspy-drillsim-analysis/test_analysis_1.acf", None),
    ("adamspy-drillstring/test.acf", None),
    // `accg/kgrav=0` (the ACCGRAV command) is read; ENVIRONMENT turns the
    // contact-incident output off (mbsolve writes none); DEACTIVATE/SENSOR
    // switches its sensors; SIMULATE END = 2 repeats after a RETURN sensor.
    ("adamspy-frs5-feed/FRS5_doe_8_LAUL_analysis.acf", None),
    ("adamspy-generic-model/generic_model.acf", None),
    ("adamspy-torque-spike/test_analysis_with_spikes.acf", None),
    ("aview-hpc-contact/test_2.acf", None),
    ("aview-hpc-free-part/test.acf", None),
    ("aview-hpc-pendulum/test.acf", None),
    // NREL FAST's Adams exporter: INTEGRATOR ..., INTERPOLATE = ON, the
    // reference spelling SIMULATE/DYNAMICS, DEACTIVATE/MOTION by ID and
    // DEACTIVATE/JOINT by RANGE between two dynamic runs.
    ("nrel-fast-certtest/Test01_ADAMS.acf", None),
    ("nrel-fast-certtest/Test06_ADAMS.acf", None),
    ("nrel-fast-certtest/Test09_ADAMS.acf", None),
];

#[test]
fn non_chrono_command_files_build_or_name_the_first_unsupported_command() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let root = corpus();
    let mut seen = 0;
    for (rel, text) in files(&root) {
        if !rel.ends_with(".acf") || rel.starts_with("chrono-") {
            continue;
        }
        seen += 1;
        let want = EXPECTED_ACF
            .iter()
            .find(|(f, _)| *f == rel)
            .unwrap_or_else(|| panic!("{rel} is not in EXPECTED_ACF"))
            .1;
        match (want, read_acf_str(&text, &rel)) {
            (None, Ok(_)) => {}
            (Some(tail), Err(e)) => assert_eq!(e.to_string(), format!("{rel}{tail}")),
            (want, got) => panic!("{rel}: expected {want:?}, got {got:?}"),
        }
    }
    assert_eq!(
        seen,
        EXPECTED_ACF.len(),
        "a command file was added or removed"
    );
}

/// `file/model=C:\Users\...\test` (Adams View export): the Windows path is
/// the model name, backslashes and all.
#[test]
fn file_model_with_a_windows_path() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let rel = "aview-hpc-free-part/test.acf";
    let text = std::fs::read_to_string(corpus().join(rel)).unwrap();
    let acf = read_acf_str(&text, rel).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        acf.model_file.as_deref(),
        Some(r"C:\Users\ben.thornton\code\aview_hpc\test\models\test")
    );
    assert_eq!(acf.commands.len(), 1);
}

/// The drill-string command files redefine four VARIABLEs before their
/// first SIMULATE (`VARIABLE/9105, FUNCTION=STEP(…)` …): read as dataset
/// edits, in order, with the abbreviated `equil/` and `sim/stat` after.
#[test]
fn drill_command_files_redefine_variables_before_simulating() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    for rel in [
        "adamspy-drillstring/test.acf",
        "adamspy-drillsim-analysis/test_analysis_1.acf",
    ] {
        let text = std::fs::read_to_string(corpus().join(rel)).unwrap();
        let acf = read_acf_str(&text, rel).unwrap_or_else(|e| panic!("{e}"));
        let ids: Vec<u32> = acf.redefinitions.iter().filter_map(|s| s.id).collect();
        assert_eq!(ids, [9105, 1102, 9106, 9104], "{rel}");
        let statics = acf
            .commands
            .iter()
            .filter(|c| {
                matches!(
                    c,
                    mbsolve_model::Command::Simulate {
                        mode: mbsolve_model::SimulateMode::Static,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(statics, 16, "{rel}");
    }
}

/// The FAST2ADAMS decks read up to their user subroutines: every problem
/// `check` reports is a USER call (AeroDyn's GFORCEs, the controllers'
/// VARIABLEs and SFORCEs, the SENSOR, the REQUEST), none a statement or
/// argument the reader refuses (FIELD KMATRIX/CMATRIX, `v,` / `, v`
/// lists, STRING paths, UNITS in KNEWTON all read).
#[test]
fn fast_decks_read_up_to_their_user_subroutines() {
    if !mbsolve_adm::corpus::present(Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    for (deck, fields) in [("Test01", 44), ("Test06", 45), ("Test09", 66)] {
        let rel = format!("nrel-fast-certtest/{deck}_ADAMS.adm");
        let text =
            String::from_utf8_lossy(&std::fs::read(corpus().join(&rel)).unwrap()).into_owned();
        let syn = parse_adm(&text, &rel).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            syn.statements.iter().filter(|s| s.name == "FIELD").count(),
            fields,
            "{rel}"
        );
        let errors = diagnose_adm(&text, &rel).unwrap_err();
        let other: Vec<String> = errors
            .iter()
            .filter(|e| !e.message.contains("calls the user subroutine"))
            .map(|e| e.to_string())
            .collect();
        assert!(other.is_empty(), "{rel}: {other:#?}");
        assert!(errors.len() > 20, "{rel}: {} USER calls", errors.len());
    }
}
