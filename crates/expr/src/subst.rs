//! Explicit VARIABLEs by substitution: every VARVAL(id) in an expression
//! reads the compiled tree of VARIABLE/id, so values and exact derivatives
//! with respect to time and to the measures the variable reads flow through
//! the same jets as the rest of the expression. A variable that depends on
//! itself is an implicit (algebraic) VARIABLE, which this crate does not
//! solve: it is reported with the chain.
//!
//! The substitution is a DAG, not a tree: each VARIABLE reached is compiled
//! once into the expression's shared bodies and every VARVAL of it becomes a
//! reference ([`Node::Var`]) evaluated once per evaluation. Forty VARIABLEs,
//! each `VARVAL(next) + VARVAL(next)`, give forty bodies, not 2⁴⁰ copies.

use crate::eval::VarBody;
use crate::parse::Node;
use crate::{Expr, ExprError, MeasureCall, MeasureKind, Span};
use std::collections::HashMap;

/// Substitution recurses once per nested variable (VARVAL within VARVAL):
/// bounded so the recursion cannot exhaust the stack.
const MAX_VARIABLE_NESTING: usize = 200;

impl Expr {
    /// This expression with every VARVAL(id) reading the expression of
    /// VARIABLE/id from `variables` (id → compiled FUNCTION), recursively.
    /// Nodes taken from a variable report the span of the (first) VARVAL
    /// call of this expression that reaches them, so errors point into this
    /// expression's text.
    pub fn with_variables(&self, variables: &HashMap<u32, Expr>) -> Result<Expr, ExprError> {
        Inliner::new(variables, Vec::new()).finish(self)
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
        Inliner::new(variables, vec![id]).finish(v)
    }

    /// Ids of the VARIABLEs this expression reads directly (VARVAL).
    pub fn variables_read(&self) -> impl Iterator<Item = u32> + '_ {
        self.measures
            .iter()
            .filter(|m| m.kind == MeasureKind::Varval)
            .map(|m| m.args.first().copied().unwrap_or(0))
    }

    /// Number of distinct VARIABLE bodies this expression evaluates (each
    /// once per evaluation).
    pub fn shared_variables(&self) -> usize {
        self.vars.len()
    }
}

struct Inliner<'a> {
    variables: &'a HashMap<u32, Expr>,
    /// VARIABLE id → index of its body in `bodies`.
    done: HashMap<u32, usize>,
    /// Bodies in dependency order: each reads only earlier ones.
    bodies: Vec<VarBody>,
    /// The result's measure table (shared by the root and every body).
    measures: Vec<MeasureCall>,
    spans: Vec<Span>,
    reads_time: bool,
    /// Variables being substituted (outermost first), for cycle reports.
    stack: Vec<u32>,
}

impl<'a> Inliner<'a> {
    fn new(variables: &'a HashMap<u32, Expr>, stack: Vec<u32>) -> Self {
        Inliner {
            variables,
            done: HashMap::new(),
            bodies: Vec::new(),
            measures: Vec::new(),
            spans: Vec::new(),
            reads_time: false,
            stack,
        }
    }

    fn finish(mut self, e: &Expr) -> Result<Expr, ExprError> {
        let root = self.translate(e, None)?;
        Ok(Expr {
            source: e.source.clone(),
            root,
            vars: self.bodies,
            measures: self.measures,
            measure_spans: self.spans,
            reads_time: self.reads_time || e.reads_time,
        })
    }

    fn intern(&mut self, call: &MeasureCall, span: Span) -> usize {
        match self.measures.iter().position(|m| m == call) {
            Some(k) => k,
            None => {
                self.measures.push(call.clone());
                self.spans.push(span);
                self.measures.len() - 1
            }
        }
    }

    /// `e`'s tree over the shared tables: its VARVAL slots become
    /// [`Node::Var`] references, its other measures slots of the result's
    /// table. `at` = the span of the top-level VARVAL call (None for the
    /// top-level expression itself, whose nodes keep their own spans).
    fn translate(&mut self, e: &Expr, at: Option<Span>) -> Result<Node, ExprError> {
        if !e.vars.is_empty() {
            // Its Var indices point into its own bodies: substitute parsed
            // expressions only.
            return Err(ExprError {
                message: "expression already has its VARIABLEs substituted".into(),
                span: at.unwrap_or_default(),
            });
        }
        let mut leaves = Vec::with_capacity(e.measures.len());
        for (slot, call) in e.measures.iter().enumerate() {
            let span = at.unwrap_or_else(|| e.measure_span(slot));
            let id = call.args.first().copied().unwrap_or(0);
            // An implicit VARIABLE (placeholder body, `implicit.rs`) is an
            // unknown of the system: its VARVAL stays a measure.
            let unknown = self
                .variables
                .get(&id)
                .is_some_and(|v| v.is_unknown_variable(id));
            leaves.push(if call.kind == MeasureKind::Varval && !unknown {
                Node::Var(self.variable(id, span)?)
            } else {
                Node::Measure(self.intern(call, span))
            });
        }
        Ok(rebuild(&e.root, &leaves, at))
    }

    /// Index of VARIABLE/id's shared body, compiling it on first use;
    /// errors inside it are reported at `span` (the top-level VARVAL call).
    fn variable(&mut self, id: u32, span: Span) -> Result<usize, ExprError> {
        if let Some(k) = self.done.get(&id) {
            return Ok(*k);
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
        let node = self.translate(v, Some(span));
        self.stack.pop();
        let node = node?;
        self.reads_time |= v.reads_time;
        self.bodies.push(VarBody { id, node });
        let k = self.bodies.len() - 1;
        self.done.insert(id, k);
        Ok(k)
    }
}

/// A copy of `node` with measure slot k replaced by `leaves[k]` and, when
/// `at` is given, every span set to it. Recursion is bounded by the
/// parser's depth limit (the tree is a parsed one).
fn rebuild(node: &Node, leaves: &[Node], at: Option<Span>) -> Node {
    let go = |n: &Node| rebuild(n, leaves, at);
    let sp = |s: &Span| at.unwrap_or(*s);
    match node {
        Node::Measure(k) => leaves.get(*k).cloned().unwrap_or(Node::Measure(*k)),
        Node::Const(c) => Node::Const(*c),
        Node::Time => Node::Time,
        Node::Var(k) => Node::Var(*k),
        Node::Neg(a) => Node::Neg(Box::new(go(a))),
        Node::Bin { op, a, b, span } => Node::Bin {
            op: *op,
            a: Box::new(go(a)),
            b: Box::new(go(b)),
            span: sp(span),
        },
        Node::Chain { first, rest } => Node::Chain {
            first: Box::new(go(first)),
            rest: rest.iter().map(|(op, n, s)| (*op, go(n), sp(s))).collect(),
        },
        Node::Call { f, args, span } => Node::Call {
            f: *f,
            args: args.iter().map(go).collect(),
            span: sp(span),
        },
        Node::If(n) => Node::If(Box::new([go(&n[0]), go(&n[1]), go(&n[2]), go(&n[3])])),
        Node::Spline(c) => c.map(go, sp(&c.span)),
        Node::Curve(c) => c.map(go, sp(&c.span)),
        Node::Senval(c) => Node::Senval(Box::new(crate::senval::SenvalCall {
            span: sp(&c.span),
            ..(**c).clone()
        })),
        Node::Mode(c) => Node::Mode(Box::new(crate::mode::ModeCall {
            span: sp(&c.span),
            ..(**c).clone()
        })),
        Node::Interp(c) => c.map(go, sp(&c.span)),
        Node::Invpsd(c) => c.map(go, sp(&c.span)),
        Node::Delay(c) => c.map(go, sp(&c.span)),
        Node::Incang(c) => c.map(go, sp(&c.span)),
    }
}
