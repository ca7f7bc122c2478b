//! The finite-difference columns of solved quantities (`reaction_fn.rs`):
//! an applied-force or net-force quantity (SFORCE(), FX…TM, JOINT(), …)
//! differences only the user states the forces it sums read (and the
//! stiction deformations where joint friction is summed), not every user
//! state. Checked on one deck against central differences of the solved
//! rows themselves, in every column of the iterate (q, u, u̇, λ, w, w'):
//! the entries agree, and every state column left out has a difference of
//! exactly zero, so the restriction drops only entries that were zero.

use mbsolve_mech::reaction_fn::{SolvedColumns, SolvedPoint};
use mbsolve_mech::Sink;
use mbsolve_solver::Simulation;
use std::collections::{BTreeMap, BTreeSet};

/// Blocks 2–5 on TRANSLATIONAL joints along ground z (gravity −x loads
/// the joints), with three DIFFs, and four solved quantities:
/// - FZ(20, 21) on block 3 sums SFORCE/1 (reads DIF(1)) and JOINT/2;
/// - SFORCE(4,0,4,0) on block 4's SFORCE/5 (SFORCE/4 reads DIF(2));
/// - SFORCE(5,0,4,0) on block 5's SFORCE/7 (SFORCE/5 reads the solved
///   SFORCE(4,0,4,0));
/// - JOINT(5,0,1,0) on SFORCE/7: JOINT/5 carries a FRICTION with
///   MAX_STICTION_DEFORMATION (a stiction state).
///
/// DIFF/3 is read by SFORCE/6 only, which no solved quantity sums.
const DECK: &str = "solved columns\n\
    UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
    ACCGRAV/IGRAV = -9.81, JGRAV = 0, KGRAV = 0\n\
    PART/1, GROUND\n\
    PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
    MARKER/20, PART = 2, QP = 2, 0, 0.1\n\
    MARKER/21, PART = 1, QP = 2, 0, 0\n\
    JOINT/2, TRANSLATIONAL, I = 20, J = 21\n\
    SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 20, J = 21, FUNCTION = -40*DZ(20,21) - DIF(1)\n\
    PART/3, MASS = 1, CM = 30, IP = 1, 1, 1\n\
    MARKER/30, PART = 3, QP = 3, 0, 0\n\
    MARKER/31, PART = 1, QP = 3, 0, 0\n\
    JOINT/3, TRANSLATIONAL, I = 30, J = 31\n\
    SFORCE/3, TRANSLATIONAL, ACTIONONLY, I = 30, J = 31, FUNCTION = -0.5*FZ(20,21)\n\
    PART/4, MASS = 1, CM = 40, IP = 1, 1, 1\n\
    MARKER/40, PART = 4, QP = 4, 0, 0.1\n\
    MARKER/41, PART = 1, QP = 4, 0, 0\n\
    JOINT/4, TRANSLATIONAL, I = 40, J = 41\n\
    SFORCE/4, TRANSLATIONAL, ACTIONONLY, I = 40, J = 41, FUNCTION = -40*DZ(40,41) - 2*DIF(2)\n\
    PART/5, MASS = 1, CM = 50, IP = 1, 1, 1\n\
    MARKER/50, PART = 5, QP = 5, 0, 0.1\n\
    MARKER/51, PART = 1, QP = 5, 0, 0\n\
    JOINT/5, TRANSLATIONAL, I = 50, J = 51\n\
    FRICTION/1, JOINT = 5, MU_STATIC = 0.3, MU_DYNAMIC = 0.25\n\
    , STICTION_TRANSITION_VELOCITY = 0.01, MAX_STICTION_DEFORMATION = 1e-4\n\
    SFORCE/5, TRANSLATIONAL, ACTIONONLY, I = 50, J = 51, FUNCTION = 0.5*SFORCE(4,0,4,0)\n\
    SFORCE/6, TRANSLATIONAL, ACTIONONLY, I = 50, J = 51, FUNCTION = -40*DZ(50,51) - DIF(3)\n\
    SFORCE/7, TRANSLATIONAL, ACTIONONLY, I = 50, J = 51, FUNCTION = 0.2*SFORCE(5,0,4,0) + 0.1*JOINT(5,0,1,0)\n\
    DIFF/1, IC = 0.3, FUNCTION = DZ(20,21) - DIF(1)\n\
    DIFF/2, IC = -0.2, FUNCTION = VZ(40,41)\n\
    DIFF/3, IC = 0.1, FUNCTION = DZ(50,51) - 3*DIF(3)\n\
    END\n";

/// Every entry the solved rows' Jacobian adds: (row, column) → summed
/// value, and how many times each row was added to (one per difference
/// column, one for the identity).
#[derive(Default)]
struct Recorder {
    entries: BTreeMap<(usize, usize), f64>,
    adds: BTreeMap<usize, usize>,
}

impl Sink for Recorder {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        *self.entries.entry((row, col)).or_insert(0.0) += value;
        *self.adds.entry(row).or_insert(0) += 1;
    }
}

/// The iterate's blocks, in the column layout of [`columns`].
struct Iterate {
    t: f64,
    blocks: [Vec<f64>; 6],
}

impl Iterate {
    fn point(&self) -> SolvedPoint<'_> {
        let [q, u, a, lam, w, wp] = &self.blocks;
        SolvedPoint {
            t: self.t,
            q,
            u,
            a,
            lam,
            w,
            wp,
            non_dynamic: false,
        }
    }
}

/// Columns q | u | u̇ | λ | w, each block its own; w' enters the w
/// columns with weight `cw`.
fn columns(n: usize, m: usize, cw: f64) -> SolvedColumns {
    SolvedColumns {
        row0: 0,
        col_q: Some(0),
        col_u: Some(n),
        cu: 1.0,
        col_a: Some(2 * n),
        ca: 1.0,
        col_lam: Some(3 * n),
        clam: 1.0,
        col_w: 3 * n + m,
        cw,
    }
}

#[test]
fn solved_rows_difference_only_the_states_their_forces_read() {
    let model = mbsolve_adm::read_adm_str(DECK, "solved_columns.adm").unwrap();
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    let (sys, data) = (&sim.sys, &sim.data);
    let (n, m, nw) = (sys.nq(), sys.neq(), sys.nw());
    let (at, ns) = (sys.solved_at(), sys.n_solved());
    assert_eq!(ns, 4, "FZ, two SFORCE() and JOINT()");
    let s = &sim.state;
    // Off the solution in every block (the w' and u̇ a small offset), so
    // no difference vanishes by accident.
    let offset = |v: &[f64], d: f64| -> Vec<f64> {
        let k = v.len() as f64;
        v.iter()
            .enumerate()
            .map(|(i, x)| x + d * (1.0 + i as f64 / k))
            .collect()
    };
    let mut it = Iterate {
        t: 0.1,
        blocks: [
            s.q.clone(),
            offset(&s.u, 0.02),
            offset(&s.a, 0.3),
            offset(&s.lambda, 0.5),
            offset(&s.w, 0.05),
            offset(&s.wp, 0.1),
        ],
    };
    // The stiction deformation well inside its MAX_STICTION_DEFORMATION
    // (1e-4: beyond it the friction force grows without bound).
    let stiction: Vec<usize> = (0..nw)
        .filter(|&j| sys.state_name(j).contains("stiction"))
        .collect();
    assert_eq!(stiction.len(), 1, "one stiction deformation");
    it.blocks[4][stiction[0]] = 2e-5;
    // The entries with w' weight 0 and 1: their difference is ∂/∂w'.
    let record = |cw: f64| {
        let mut rec = Recorder::default();
        sys.solved_jacobian(data, &it.point(), &columns(n, m, cw), &mut rec);
        rec
    };
    let (plain, rated) = (record(0.0), record(1.0));
    let col_w = 3 * n + m;
    let block_start = [0, n, 2 * n, 3 * n, col_w, col_w];
    // Central differences of the solved rows over every column.
    let mut worst = 0.0f64;
    let mut zero_outside = 0;
    let mut read: Vec<BTreeSet<String>> = vec![BTreeSet::new(); ns];
    for (b, start) in block_start.iter().enumerate() {
        for i in 0..it.blocks[b].len() {
            let x = it.blocks[b][i];
            let h = 1e-6 * (1.0 + x.abs());
            let shifted = |d: f64| {
                let mut p = Iterate {
                    t: it.t,
                    blocks: it.blocks.clone(),
                };
                p.blocks[b][i] = x + d;
                let mut r = vec![0.0; nw];
                sys.solved_residual(data, &p.point(), &mut r);
                r
            };
            let (up, down) = (shifted(h), shifted(-h));
            for (k, states_read) in read.iter_mut().enumerate() {
                let row = at + k;
                let diff = (up[row] - down[row]) / (2.0 * h);
                let col = start + i;
                let entry = |rec: &Recorder| rec.entries.get(&(row, col)).copied();
                let jac = match b {
                    5 => match (entry(&rated), entry(&plain)) {
                        (Some(r), Some(p)) => Some(r - p),
                        _ => None,
                    },
                    _ => entry(&plain),
                };
                match jac {
                    Some(j) => {
                        let e = (j - diff).abs() / j.abs().max(1.0);
                        worst = worst.max(e);
                        if b == 4 && i != row {
                            states_read.insert(sys.state_name(i));
                        }
                    }
                    None => {
                        // A column the row does not difference: the row
                        // does not depend on it at all.
                        assert_eq!(
                            up[row] - down[row],
                            0.0,
                            "{}: column {i} of block {b} ({}) left out but read",
                            sys.state_name(row),
                            if b >= 4 {
                                sys.state_name(i)
                            } else {
                                String::new()
                            }
                        );
                        if b >= 4 {
                            zero_outside += 1;
                        }
                    }
                }
            }
        }
    }
    println!("worst relative difference {worst:.2e}; {zero_outside} state columns left out");
    assert!(worst < 1e-6, "worst relative difference {worst:.3e}");
    // The state columns each quantity differences, by name.
    let names: Vec<String> = (0..ns).map(|k| sys.state_name(at + k)).collect();
    let stiction: Vec<String> = stiction.iter().map(|&j| sys.state_name(j)).collect();
    let expect = |quantity: &str, states: &[&str]| {
        let k = names
            .iter()
            .position(|n| n.contains(quantity))
            .unwrap_or_else(|| panic!("{quantity} among {names:?}"));
        // Difference columns per quantity: q, u (, u̇), λ and the states'
        // w and w', each one add, plus the identity.
        println!("{quantity}: {} adds", rated.adds[&(at + k)]);
        let got: Vec<&String> = read[k].iter().collect();
        let want: BTreeSet<String> = states.iter().map(|s| s.to_string()).collect();
        let want: Vec<&String> = want.iter().collect();
        assert_eq!(got, want, "the states {quantity} differences");
    };
    let (dif1, dif2) = (sys.state_name(0), sys.state_name(1));
    assert!(
        dif1.contains("DIFF/1") && dif2.contains("DIFF/2"),
        "{dif1}, {dif2}"
    );
    let sforce4 = names[names.iter().position(|n| n.contains("SFORCE(4")).unwrap()].clone();
    expect("FZ(20", &[&dif1, &stiction[0]]);
    expect("SFORCE(4", &[&dif2]);
    expect("SFORCE(5", &[&sforce4]);
    expect("JOINT(5", &[&stiction[0]]);
}
