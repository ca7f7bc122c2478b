//! Explicit VARIABLEs by substitution: every VARVAL(id) in an expression is
//! replaced by the compiled tree of VARIABLE/id (recursively), so values and
//! exact derivatives with respect to time and to the measures the variable
//! reads flow through the same jets as the rest of the expression. A
//! variable that depends on itself is an implicit (algebraic) VARIABLE,
//! which this crate does not solve: it is reported with the chain.

use crate::parse::{Node, MAX_TREE_DEPTH};
use crate::{Expr, ExprError, MeasureCall, MeasureKind, Span};
use std::collections::HashMap;

/// Substitution recurses once per nested variable: bounded like the
/// parser's nesting.
const MAX_VARIABLE_NESTING: usize = 200;

impl Expr {
    /// This expression with every VARVAL(id) replaced by the expression of
    /// VARIABLE/id from `variables` (id → compiled FUNCTION), recursively.
    /// Nodes taken from a variable report the span of the VARVAL call they
    /// replace, so errors point into this expression's text.
    pub fn with_variables(&self, variables: &HashMap<u32, Expr>) -> Result<Expr, ExprError> {
        let mut inliner = Inliner {
            variables,
            done: HashMap::new(),
            stack: Vec::new(),
        };
        let out = inliner.expand(self)?;
        if depth(&out.root) > MAX_TREE_DEPTH {
            return Err(ExprError {
                message: "expression is too long once its VARIABLEs are substituted".into(),
                span: Span {
                    start: 0,
                    end: self.source.len(),
                },
            });
        }
        Ok(out)
    }

    /// VARIABLE/id of `variables` with its VARVALs substituted; a cycle is
    /// reported from `id` around (VARIABLE/id → … → VARIABLE/id), with the
    /// span of the VARVAL call in VARIABLE/id's own text.
    pub fn variable_with_variables(
        id: u32,
        variables: &HashMap<u32, Expr>,
    ) -> Result<Expr, ExprError> {
        let Some(v) = variables.get(&id) else {
            return Err(ExprError {
                message: format!("VARIABLE/{id} does not exist"),
                span: Span::default(),
            });
        };
        let mut inliner = Inliner {
            variables,
            done: HashMap::new(),
            stack: vec![id],
        };
        inliner.expand(v)
    }

    /// Ids of the VARIABLEs this expression reads directly (VARVAL).
    pub fn variables_read(&self) -> impl Iterator<Item = u32> + '_ {
        self.measures
            .iter()
            .filter(|m| m.kind == MeasureKind::Varval)
            .map(|m| m.args.first().copied().unwrap_or(0))
    }
}

struct Inliner<'a> {
    variables: &'a HashMap<u32, Expr>,
    /// Variables already substituted.
    done: HashMap<u32, Expr>,
    /// Variables being substituted (outermost first), for cycle reports.
    stack: Vec<u32>,
}

/// What a measure slot of the expression being expanded becomes.
enum Slot {
    Keep(usize),
    /// The substituted variable's tree, its slot map into the new table and
    /// the span of the VARVAL call.
    Inline(Expr, Vec<usize>, Span),
}

impl Inliner<'_> {
    fn expand(&mut self, e: &Expr) -> Result<Expr, ExprError> {
        let mut measures: Vec<MeasureCall> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        let mut intern =
            |call: &MeasureCall, span: Span| match measures.iter().position(|m| m == call) {
                Some(k) => k,
                None => {
                    measures.push(call.clone());
                    spans.push(span);
                    measures.len() - 1
                }
            };
        let mut reads_time = e.reads_time;
        let mut slots = Vec::with_capacity(e.measures.len());
        for (slot, call) in e.measures.iter().enumerate() {
            let span = e.measure_span(slot);
            if call.kind == MeasureKind::Varval {
                let id = call.args.first().copied().unwrap_or(0);
                let v = self.variable(id, span)?;
                reads_time |= v.reads_time;
                let map = v.measures.iter().map(|c| intern(c, span)).collect();
                slots.push(Slot::Inline(v, map, span));
            } else {
                slots.push(Slot::Keep(intern(call, span)));
            }
        }
        Ok(Expr {
            source: e.source.clone(),
            root: rebuild(&e.root, &slots),
            measures,
            measure_spans: spans,
            reads_time,
        })
    }

    /// VARIABLE/id with its own VARVALs substituted; errors inside it are
    /// reported at `span` (the VARVAL call in the expression being expanded).
    fn variable(&mut self, id: u32, span: Span) -> Result<Expr, ExprError> {
        if let Some(v) = self.done.get(&id) {
            return Ok(v.clone());
        }
        if let Some(first) = self.stack.iter().position(|x| *x == id) {
            let chain: Vec<String> = self.stack[first..]
                .iter()
                .chain(std::iter::once(&id))
                .map(|x| format!("VARIABLE/{x}"))
                .collect();
            return Err(ExprError {
                message: format!(
                    "implicit VARIABLE not supported yet: VARIABLE/{id} depends on itself ({})",
                    chain.join(" → ")
                ),
                span,
            });
        }
        let Some(v) = self.variables.get(&id) else {
            return Err(ExprError {
                message: format!("VARVAL({id}): VARIABLE/{id} does not exist"),
                span,
            });
        };
        if self.stack.len() >= MAX_VARIABLE_NESTING {
            return Err(ExprError {
                message: format!(
                    "VARIABLEs nested more than {MAX_VARIABLE_NESTING} deep (VARVAL within VARVAL) are not supported"
                ),
                span,
            });
        }
        self.stack.push(id);
        let out = self.expand(v).map_err(|e| ExprError {
            message: e.message,
            span,
        });
        self.stack.pop();
        let out = out?;
        // Bounded here too, so rebuilding never recurses deeper than twice
        // the parser's limit.
        if depth(&out.root) > MAX_TREE_DEPTH {
            return Err(ExprError {
                message: format!(
                    "VARIABLE/{id} is too long once its own VARIABLEs are substituted"
                ),
                span,
            });
        }
        self.done.insert(id, out.clone());
        Ok(out)
    }
}

fn rebuild(node: &Node, slots: &[Slot]) -> Node {
    let go = |n: &Node| rebuild(n, slots);
    match node {
        Node::Measure(k) => match &slots[*k] {
            Slot::Keep(m) => Node::Measure(*m),
            Slot::Inline(v, map, span) => relabel(&v.root, map, *span),
        },
        Node::Const(c) => Node::Const(*c),
        Node::Time => Node::Time,
        Node::Neg(a) => Node::Neg(Box::new(go(a))),
        Node::Bin { op, a, b, span } => Node::Bin {
            op: *op,
            a: Box::new(go(a)),
            b: Box::new(go(b)),
            span: *span,
        },
        Node::Call { f, args, span } => Node::Call {
            f: *f,
            args: args.iter().map(go).collect(),
            span: *span,
        },
        Node::If(n) => Node::If(Box::new([go(&n[0]), go(&n[1]), go(&n[2]), go(&n[3])])),
    }
}

/// A copy of a substituted variable's tree with its measure slots mapped
/// into the new table and every span set to the VARVAL call's.
fn relabel(node: &Node, map: &[usize], span: Span) -> Node {
    let go = |n: &Node| relabel(n, map, span);
    match node {
        Node::Measure(k) => Node::Measure(map[*k]),
        Node::Const(c) => Node::Const(*c),
        Node::Time => Node::Time,
        Node::Neg(a) => Node::Neg(Box::new(go(a))),
        Node::Bin { op, a, b, .. } => Node::Bin {
            op: *op,
            a: Box::new(go(a)),
            b: Box::new(go(b)),
            span,
        },
        Node::Call { f, args, .. } => Node::Call {
            f: *f,
            args: args.iter().map(go).collect(),
            span,
        },
        Node::If(n) => Node::If(Box::new([go(&n[0]), go(&n[1]), go(&n[2]), go(&n[3])])),
    }
}

/// Tree depth, counted like the parser counts it.
fn depth(node: &Node) -> u32 {
    match node {
        Node::Measure(_) | Node::Const(_) | Node::Time => 0,
        Node::Neg(a) => 1 + depth(a),
        Node::Bin { a, b, .. } => 1 + depth(a).max(depth(b)),
        Node::Call { args, .. } => 1 + args.iter().map(depth).max().unwrap_or(0),
        Node::If(n) => 1 + n.iter().map(depth).max().unwrap_or(0),
    }
}
