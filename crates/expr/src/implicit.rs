//! Implicit (algebraic) VARIABLEs: a VARIABLE whose function reads itself,
//! directly or through other VARIABLEs (an algebraic loop), cannot be
//! inlined. Its value becomes an unknown of the system, solved with the
//! mechanics from the row v − f(v, q, u, t) = 0 (mbsolve-mech `states.rs`,
//! form `Output`). In an expression, VARVAL of such a variable stays a
//! measure call, which the force-function adapter turns into the user-state
//! measure of `VARIABLE/id`.
//!
//! The substitution table marks an implicit variable by its placeholder
//! body "VARVAL(id)" ([`Expr::unknown_variable`]): every VARVAL(id) that
//! reaches it is kept as a measure instead of being inlined.

use crate::parse::Node;
use crate::{Expr, MeasureCall, MeasureKind};
use std::collections::{BTreeSet, HashMap};

impl Expr {
    /// The placeholder body of implicit VARIABLE/id in a substitution
    /// table: VARVAL(id) reads the unknown itself.
    pub fn unknown_variable(id: u32) -> Expr {
        Expr {
            source: format!("VARVAL({id})"),
            root: Node::Measure(0),
            vars: Vec::new(),
            measures: vec![MeasureCall {
                kind: MeasureKind::Varval,
                args: vec![id],
            }],
            measure_spans: vec![Default::default()],
            reads_time: false,
        }
    }

    /// Whether this is the placeholder of implicit VARIABLE/id (also the
    /// parse of the text "VARVAL(id)").
    pub fn is_unknown_variable(&self, id: u32) -> bool {
        self.vars.is_empty()
            && matches!(self.root, Node::Measure(0))
            && self.measures.len() == 1
            && self.measures[0].kind == MeasureKind::Varval
            && self.measures[0].args.first() == Some(&id)
    }
}

/// The ids of the VARIABLEs on an algebraic loop: those that reach
/// themselves through VARVAL (`variables`: id → parsed FUNCTION). A
/// variable that only reads a loop is explicit (it is inlined, reading the
/// loop's unknowns).
pub fn implicit_variables(variables: &HashMap<u32, Expr>) -> BTreeSet<u32> {
    let reads: HashMap<u32, Vec<u32>> = variables
        .iter()
        .map(|(id, e)| (*id, e.variables_read().collect()))
        .collect();
    let mut out = BTreeSet::new();
    for &id in variables.keys() {
        // Depth-first from the variables `id` reads; implicit when `id`
        // is reached again. Each search visits each variable once.
        let mut seen: BTreeSet<u32> = BTreeSet::new();
        let mut stack: Vec<u32> = reads[&id].clone();
        while let Some(v) = stack.pop() {
            if v == id {
                out.insert(id);
                break;
            }
            if seen.insert(v) {
                if let Some(next) = reads.get(&v) {
                    stack.extend(next.iter().copied());
                }
            }
        }
    }
    out
}

/// `variables` with every implicit one (`implicit`) replaced by its
/// placeholder, ready for [`Expr::with_variables`].
pub fn with_unknowns(
    variables: &HashMap<u32, Expr>,
    implicit: &BTreeSet<u32>,
) -> HashMap<u32, Expr> {
    variables
        .iter()
        .map(|(id, e)| {
            let e = if implicit.contains(id) {
                Expr::unknown_variable(*id)
            } else {
                e.clone()
            };
            (*id, e)
        })
        .collect()
}
