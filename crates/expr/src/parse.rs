//! Lexer and recursive-descent parser: text → [`Node`] tree.
//!
//! Grammar (Fortran precedence, as Adams uses it):
//! ```text
//! expr    := term { ('+'|'-') term }
//! term    := unary { ('*'|'/') unary }
//! unary   := ('+'|'-') unary | power
//! power   := primary [ '**' unary ]          right-associative, binds tighter than unary minus
//! primary := number ['D'] | name | name '(' args ')' | 'IF' '(' expr ':' expr ',' expr ',' expr ')'
//!          | '(' expr ')'
//! ```
//! so `-2**2` is −4 and `2**-1` is 0.5.

use crate::names::{Builtin, MeasureCall, MeasureKind, NOT_SUPPORTED};
use crate::{ExprError, Span};

/// Recursion limit of the parser (parentheses, unary signs, calls).
const MAX_NESTING: usize = 200;
/// Depth limit of the resulting tree (evaluation recurses over it).
pub(crate) const MAX_TREE_DEPTH: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Const(f64),
    Time,
    /// Index into the expression's measure table.
    Measure(usize),
    Neg(Box<Node>),
    Bin {
        op: BinOp,
        a: Box<Node>,
        b: Box<Node>,
        span: Span,
    },
    Call {
        f: Builtin,
        args: Vec<Node>,
        span: Span,
    },
    /// IF(cond: negative, zero, positive)
    If(Box<[Node; 4]>),
    /// A left-associative run `first op₁ x₁ op₂ x₂ …` of `+ -` or `* /`,
    /// evaluated left to right as Fortran does, in one loop: a 1500-term
    /// sum (legal in Adams) is depth 1, not a 1500-deep tree.
    Chain {
        first: Box<Node>,
        rest: Vec<(BinOp, Node, Span)>,
    },
    /// The value of entry k of the expression's shared VARIABLE bodies
    /// (see `subst`): evaluated once per evaluation, however often read.
    Var(usize),
    /// CUBSPL/AKISPL on a SPLINE (see `spline`).
    Spline(Box<crate::spline::SplineCall>),
    /// CURVE(alpha, iord, comp, id) (see `curve`).
    Curve(Box<crate::curve::CurveCall>),
    /// SENVAL(id) (see `senval`).
    Senval(Box<crate::senval::SenvalCall>),
    /// MODE, the analysis number (see `mode`).
    Mode(Box<crate::mode::ModeCall>),
    /// INTERP(x, method, id[, iord]) (see `interp`).
    Interp(Box<crate::interp::InterpCall>),
    /// INVPSD(x, id, f0, f1, nf, linlog, seed) (see `invpsd`).
    Invpsd(Box<crate::invpsd::InvpsdCall>),
    /// DELAY(e, delay, e0[, id]) (see `delay`).
    Delay(Box<crate::delay::DelayCall>),
    /// INCANG(i, j, k), continuous (see `incang`).
    Incang(Box<crate::incang::IncangCall>),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    LParen,
    RParen,
    Comma,
    Colon,
    Plus,
    Minus,
    Star,
    Slash,
    Pow,
    End,
}

fn describe(t: &Tok, text: &str) -> String {
    match t {
        Tok::End => "the end of the expression".into(),
        _ => format!("'{text}'"),
    }
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn err(message: impl Into<String>, start: usize, end: usize) -> ExprError {
    ExprError {
        message: message.into(),
        span: Span { start, end },
    }
}

impl<'a> Lexer<'a> {
    fn next(&mut self) -> Result<(Tok, Span), ExprError> {
        let b = self.src.as_bytes();
        while self.pos < b.len() && (b[self.pos] as char).is_ascii_whitespace() {
            self.pos += 1;
        }
        let start = self.pos;
        if start >= b.len() {
            return Ok((Tok::End, Span { start, end: start }));
        }
        let c = b[start];
        let single = |t: Tok, n: usize| {
            (
                t,
                Span {
                    start,
                    end: start + n,
                },
            )
        };
        let tok = match c {
            b'(' => single(Tok::LParen, 1),
            b')' => single(Tok::RParen, 1),
            b',' => single(Tok::Comma, 1),
            b':' => single(Tok::Colon, 1),
            b'+' => single(Tok::Plus, 1),
            b'-' => single(Tok::Minus, 1),
            b'/' => single(Tok::Slash, 1),
            b'*' if b.get(start + 1) == Some(&b'*') => single(Tok::Pow, 2),
            b'*' => single(Tok::Star, 1),
            b'0'..=b'9' | b'.' => return self.number(),
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut end = start;
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                }
                self.pos = end;
                let name = self.src[start..end].to_ascii_uppercase();
                return Ok((Tok::Name(name), Span { start, end }));
            }
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(err(
                    format!("unexpected character '{ch}'"),
                    start,
                    start + ch.len_utf8(),
                ));
            }
        };
        self.pos = tok.1.end;
        Ok(tok)
    }

    /// digits [. digits] [E [sign] digits] [D]   — `D` = degrees.
    fn number(&mut self) -> Result<(Tok, Span), ExprError> {
        let b = self.src.as_bytes();
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let s = *i;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
            *i - s
        };
        let mut n = digits(&mut i);
        if i < b.len() && b[i] == b'.' {
            i += 1;
            n += digits(&mut i);
        }
        if n == 0 {
            return Err(err("bad number '.'", start, i));
        }
        if i < b.len() && (b[i] == b'E' || b[i] == b'e') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            if digits(&mut j) == 0 {
                let end = j.min(b.len());
                return Err(err(
                    format!("bad number '{}'", &self.src[start..end]),
                    start,
                    end,
                ));
            }
            i = j;
        }
        let text = &self.src[start..i];
        let mut value: f64 = text
            .parse()
            .map_err(|_| err(format!("bad number '{text}'"), start, i))?;
        if !value.is_finite() {
            // As in every other argument: 1e400 is not silently infinity.
            return Err(err(
                format!("number '{text}' is out of range (beyond ±1.8e308)"),
                start,
                i,
            ));
        }
        let after_alnum = |k: usize| k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_');
        if i < b.len() && (b[i] == b'D' || b[i] == b'd') && !after_alnum(i + 1) {
            value = value.to_radians();
            i += 1;
        } else if after_alnum(i) {
            let mut end = i;
            while after_alnum(end) {
                end += 1;
            }
            return Err(err(
                format!("bad number '{}'", &self.src[start..end]),
                start,
                end,
            ));
        }
        self.pos = i;
        Ok((Tok::Num(value), Span { start, end: i }))
    }
}

pub(crate) struct Parsed {
    pub root: Node,
    pub measures: Vec<MeasureCall>,
    pub measure_spans: Vec<Span>,
    pub reads_time: bool,
}

pub(crate) fn parse(src: &str) -> Result<Parsed, ExprError> {
    let mut p = Parser {
        src,
        lex: Lexer { src, pos: 0 },
        tok: Tok::End,
        span: Span { start: 0, end: 0 },
        prev: None,
        measures: Vec::new(),
        measure_spans: Vec::new(),
        reads_time: false,
        nesting: 0,
    };
    p.advance()?;
    if p.tok == Tok::End {
        return Err(err("empty expression", 0, src.len()));
    }
    let (root, _) = p.expr()?;
    if p.tok != Tok::End {
        let text = p.text(p.span);
        return Err(err(
            format!("expected an operator, found '{text}'"),
            p.span.start,
            p.span.end,
        ));
    }
    Ok(Parsed {
        root,
        measures: p.measures,
        measure_spans: p.measure_spans,
        reads_time: p.reads_time,
    })
}

struct Parser<'a> {
    src: &'a str,
    lex: Lexer<'a>,
    tok: Tok,
    span: Span,
    /// The previous token's span, for "expected an operand after '*'".
    prev: Option<Span>,
    measures: Vec<MeasureCall>,
    measure_spans: Vec<Span>,
    reads_time: bool,
    nesting: usize,
}

type Res = Result<(Node, u32), ExprError>;
/// Parsed call arguments (node, tree depth, text span) and the span of `( … )`.
type Args = (Vec<(Node, u32, Span)>, Span);

impl<'a> Parser<'a> {
    fn advance(&mut self) -> Result<(), ExprError> {
        self.prev = Some(self.span);
        let (t, s) = self.lex.next()?;
        self.tok = t;
        self.span = s;
        Ok(())
    }
    fn text(&self, s: Span) -> &'a str {
        self.src.get(s.start..s.end).unwrap_or("")
    }
    fn enter(&mut self) -> Result<(), ExprError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(err(
                "expression is nested too deeply",
                self.span.start,
                self.span.end,
            ));
        }
        Ok(())
    }
    fn bin(&self, op: BinOp, a: (Node, u32), b: (Node, u32), span: Span) -> Res {
        let depth = 1 + a.1.max(b.1);
        if depth > MAX_TREE_DEPTH {
            return Err(err("expression is too long", span.start, span.end));
        }
        Ok((
            Node::Bin {
                op,
                a: Box::new(a.0),
                b: Box::new(b.0),
                span,
            },
            depth,
        ))
    }

    fn expr(&mut self) -> Res {
        self.enter()?;
        let first = self.term()?;
        let out = self.chain(
            first,
            |t| match t {
                Tok::Plus => Some(BinOp::Add),
                Tok::Minus => Some(BinOp::Sub),
                _ => None,
            },
            Self::term,
        )?;
        self.nesting -= 1;
        Ok(out)
    }

    fn term(&mut self) -> Res {
        let first = self.unary()?;
        self.chain(
            first,
            |t| match t {
                Tok::Star => Some(BinOp::Mul),
                Tok::Slash => Some(BinOp::Div),
                _ => None,
            },
            Self::unary,
        )
    }

    /// `first {op operand}` as one [`Node::Chain`] (or `first` alone).
    fn chain(
        &mut self,
        first: (Node, u32),
        op_of: fn(&Tok) -> Option<BinOp>,
        operand: fn(&mut Self) -> Res,
    ) -> Res {
        let mut rest = Vec::new();
        let mut depth = first.1;
        while let Some(op) = op_of(&self.tok) {
            let span = self.span;
            self.advance()?;
            let (n, d) = operand(self)?;
            depth = depth.max(d);
            rest.push((op, n, span));
        }
        if rest.is_empty() {
            return Ok(first);
        }
        Ok((
            Node::Chain {
                first: Box::new(first.0),
                rest,
            },
            depth + 1,
        ))
    }

    fn unary(&mut self) -> Res {
        match self.tok {
            Tok::Minus | Tok::Plus => {
                let neg = self.tok == Tok::Minus;
                self.enter()?;
                self.advance()?;
                let (n, d) = self.unary()?;
                self.nesting -= 1;
                if !neg {
                    return Ok((n, d));
                }
                Ok(match n {
                    Node::Const(v) => (Node::Const(-v), d),
                    n => (Node::Neg(Box::new(n)), d + 1),
                })
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Res {
        let base = self.primary()?;
        if self.tok == Tok::Pow {
            let span = self.span;
            self.enter()?;
            self.advance()?;
            let exp = self.unary()?;
            self.nesting -= 1;
            return self.bin(BinOp::Pow, base, exp, span);
        }
        Ok(base)
    }

    fn missing_operand(&self) -> ExprError {
        match (&self.tok, self.prev) {
            (Tok::End, Some(p)) if p.end > p.start => err(
                format!(
                    "unterminated expression: expected an operand after '{}'",
                    self.text(p)
                ),
                p.start,
                self.span.end,
            ),
            (Tok::End, _) => err("empty expression", 0, self.src.len()),
            _ => err(
                format!("expected an operand, found '{}'", self.text(self.span)),
                self.span.start,
                self.span.end,
            ),
        }
    }

    fn expect_close(&mut self, open: Span) -> Result<(), ExprError> {
        match self.tok {
            Tok::RParen => self.advance(),
            Tok::End => Err(err(
                "unclosed parenthesis: missing ')'",
                open.start,
                open.end,
            )),
            _ => Err(err(
                format!(
                    "expected ')', found {}",
                    describe(&self.tok, self.text(self.span))
                ),
                self.span.start,
                self.span.end,
            )),
        }
    }

    fn primary(&mut self) -> Res {
        match self.tok.clone() {
            Tok::Num(v) => {
                self.advance()?;
                Ok((Node::Const(v), 0))
            }
            Tok::LParen => {
                let open = self.span;
                self.advance()?;
                let inner = self.expr()?;
                self.expect_close(open)?;
                Ok(inner)
            }
            Tok::Name(name) => {
                let name_span = self.span;
                self.advance()?;
                if self.tok == Tok::LParen {
                    self.call(&name, name_span)
                } else {
                    self.constant(&name, name_span)
                }
            }
            _ => Err(self.missing_operand()),
        }
    }

    fn constant(&mut self, name: &str, span: Span) -> Res {
        let v = match name {
            "TIME" => {
                self.reads_time = true;
                return Ok((Node::Time, 0));
            }
            "MODE" => {
                let call = crate::mode::ModeCall { cell: None, span };
                return Ok((Node::Mode(Box::new(call)), 0));
            }
            "PI" => std::f64::consts::PI,
            "DTOR" => std::f64::consts::PI / 180.0,
            "RTOD" => 180.0 / std::f64::consts::PI,
            _ => {
                let known = name == "IF"
                    || Builtin::lookup(name).is_some()
                    || MeasureKind::lookup(name).is_some();
                let msg = if known {
                    format!("{name} needs an argument list: {name}(...)")
                } else {
                    format!("unknown name {}", self.text(span))
                };
                return Err(err(msg, span.start, span.end));
            }
        };
        Ok((Node::Const(v), 0))
    }

    /// Arguments of a call; `colon_first` for IF(c: a, b, c).
    fn args(&mut self, colon_first: bool) -> Result<Args, ExprError> {
        let open = self.span;
        self.enter()?;
        self.advance()?;
        let mut out = Vec::new();
        if self.tok == Tok::RParen {
            let close = self.span;
            self.advance()?;
            self.nesting -= 1;
            return Ok((
                out,
                Span {
                    start: open.start,
                    end: close.end,
                },
            ));
        }
        loop {
            let start = self.span.start;
            let (n, d) = self.expr()?;
            let end = self.prev.map(|p| p.end).unwrap_or(start);
            out.push((n, d, Span { start, end }));
            let sep = if colon_first && out.len() == 1 {
                Tok::Colon
            } else {
                Tok::Comma
            };
            if self.tok == sep {
                self.advance()?;
                continue;
            }
            if self.tok == Tok::RParen {
                let close = self.span;
                self.advance()?;
                self.nesting -= 1;
                return Ok((
                    out,
                    Span {
                        start: open.start,
                        end: close.end,
                    },
                ));
            }
            if self.tok == Tok::End {
                return Err(err(
                    "unclosed parenthesis: missing ')'",
                    open.start,
                    open.end,
                ));
            }
            let want = if sep == Tok::Colon {
                "':'"
            } else {
                "',' or ')'"
            };
            return Err(err(
                format!("expected {want}, found '{}'", self.text(self.span)),
                self.span.start,
                self.span.end,
            ));
        }
    }

    fn call(&mut self, name: &str, name_span: Span) -> Res {
        let shown = self.text(name_span).to_string();
        if name == "IF" {
            let (args, span) = self.args(true)?;
            if args.len() != 4 {
                return Err(err(
                    format!(
                        "IF takes 4 arguments (IF(x: neg, zero, pos)), found {}",
                        args.len()
                    ),
                    name_span.start,
                    span.end,
                ));
            }
            let depth = 1 + args.iter().map(|a| a.1).max().unwrap_or(0);
            let mut it = args.into_iter().map(|a| a.0);
            let nodes = [(); 4].map(|_| it.next().unwrap_or(Node::Const(0.0)));
            return Ok((Node::If(Box::new(nodes)), depth));
        }
        if let Some((f, lo, hi)) = Builtin::lookup(name) {
            let (args, span) = self.args(false)?;
            let full = Span {
                start: name_span.start,
                end: span.end,
            };
            check_count(name, args.len(), lo, hi, full)?;
            let depth = 1 + args.iter().map(|a| a.1).max().unwrap_or(0);
            if depth > MAX_TREE_DEPTH {
                return Err(err("expression is too long", full.start, full.end));
            }
            return Ok((
                Node::Call {
                    f,
                    args: args.into_iter().map(|a| a.0).collect(),
                    span: full,
                },
                depth,
            ));
        }
        if name == "INCANG" {
            return self.incang(name_span);
        }
        if let Some(kind) = MeasureKind::lookup(name) {
            let (args, span) = self.args(false)?;
            let full = Span {
                start: name_span.start,
                end: span.end,
            };
            check_count(name, args.len(), kind.min_args(), kind.roles().len(), full)?;
            let mut ids = Vec::with_capacity(args.len());
            for (n, (node, _, s)) in args.into_iter().enumerate() {
                match node {
                    Node::Const(v) if v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 => {
                        ids.push(v as u32)
                    }
                    _ => {
                        return Err(err(
                            format!(
                                "{name} argument {} must be a non-negative integer id, found '{}'",
                                n + 1,
                                self.text(s)
                            ),
                            s.start,
                            s.end,
                        ))
                    }
                }
            }
            let idx = self.measure_slot(MeasureCall { kind, args: ids }, full);
            return Ok((Node::Measure(idx), 0));
        }
        if let Some(method) = crate::spline::lookup(name) {
            return self.spline_call(method, name, name_span);
        }
        if name == "CURVE" {
            let (args, span) = self.args(false)?;
            let full = Span {
                start: name_span.start,
                end: span.end,
            };
            return crate::curve::parse(args, full, |s| self.text(s).to_string());
        }
        if name == "SENVAL" {
            return self.senval_call(name_span);
        }
        if name == "MODE" {
            return Err(err(
                "MODE takes no argument list: write MODE, as TIME",
                name_span.start,
                name_span.end,
            ));
        }
        type OwnParse = fn(
            Vec<crate::call_args::Arg>,
            Span,
            &dyn Fn(Span) -> String,
        ) -> Result<(Node, u32), ExprError>;
        let own: Option<OwnParse> = match name {
            "INTERP" => Some(crate::interp::parse),
            "INVPSD" => Some(crate::invpsd::parse),
            "DELAY" => Some(crate::delay::parse),
            _ => None,
        };
        if let Some(parse) = own {
            let (args, span) = self.args(false)?;
            let full = Span {
                start: name_span.start,
                end: span.end,
            };
            return parse(args, full, &|s| self.text(s).to_string());
        }
        if let Some(why) = crate::names::refusal_reason(name) {
            return Err(err(
                format!("function {shown} is not supported: {why}"),
                name_span.start,
                name_span.end,
            ));
        }
        if NOT_SUPPORTED.contains(&name) {
            return Err(err(
                format!("function {shown} is not supported yet"),
                name_span.start,
                name_span.end,
            ));
        }
        Err(err(
            format!("unknown function {shown}"),
            name_span.start,
            name_span.end,
        ))
    }
}

impl Parser<'_> {
    /// The measure-table slot of `call`, shared with equal calls.
    fn measure_slot(&mut self, call: MeasureCall, span: Span) -> usize {
        match self.measures.iter().position(|m| *m == call) {
            Some(i) => i,
            None => {
                self.measures.push(call);
                self.measure_spans.push(span);
                self.measures.len() - 1
            }
        }
    }

    /// INCANG(i, j, k): the included angle at marker j between the lines
    /// from j to i and from j to k, continued past 0 and π (`incang`), on
    /// the measures DX/DY/DZ(i, j) and DX/DY/DZ(k, j), which force
    /// functions and requests supply with exact derivatives alike.
    fn incang(&mut self, name_span: Span) -> Res {
        let (args, span) = self.args(false)?;
        let full = Span {
            start: name_span.start,
            end: span.end,
        };
        check_count("INCANG", args.len(), 3, 3, full)?;
        let mut ids = [0u32; 3];
        for (n, (node, _, s)) in args.into_iter().enumerate() {
            match node {
                Node::Const(v) if v > 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 => {
                    ids[n] = v as u32
                }
                _ => {
                    return Err(err(
                        format!(
                            "INCANG argument {} must be a positive integer marker id, found '{}'",
                            n + 1,
                            self.text(s)
                        ),
                        s.start,
                        s.end,
                    ))
                }
            }
        }
        let [i, j, k] = ids;
        let mut component = |kind: MeasureKind, from: u32| {
            Node::Measure(self.measure_slot(
                MeasureCall {
                    kind,
                    args: vec![from, j],
                },
                full,
            ))
        };
        let a = [
            component(MeasureKind::Dx, i),
            component(MeasureKind::Dy, i),
            component(MeasureKind::Dz, i),
        ];
        let b = [
            component(MeasureKind::Dx, k),
            component(MeasureKind::Dy, k),
            component(MeasureKind::Dz, k),
        ];
        Ok((
            Node::Incang(Box::new(crate::incang::IncangCall {
                a,
                b,
                ids,
                history: Default::default(),
                span: full,
            })),
            2,
        ))
    }
}

impl Parser<'_> {
    /// CUBSPL/AKISPL(x, z, id[, iord]): id and iord are integer constants
    /// (Adams: "an integer variable"; iord in 0…2), bound to the SPLINE data
    /// later (`Expr::with_splines`).
    fn spline_call(
        &mut self,
        method: mbsolve_model::SplineMethod,
        name: &str,
        name_span: Span,
    ) -> Res {
        let (args, span) = self.args(false)?;
        let full = Span {
            start: name_span.start,
            end: span.end,
        };
        check_count(name, args.len(), 3, 4, full)?;
        let depth = 1 + args.iter().map(|a| a.1).max().unwrap_or(0);
        let mut it = args.into_iter();
        let (x, _, _) = it.next().unwrap_or((Node::Const(0.0), 0, full));
        let (z, _, _) = it.next().unwrap_or((Node::Const(0.0), 0, full));
        let mut integer = |what: &str, lo: f64, hi: f64| -> Result<Option<u32>, ExprError> {
            match it.next() {
                None => Ok(None),
                Some((Node::Const(v), _, _)) if v >= lo && v <= hi && v.fract() == 0.0 => {
                    Ok(Some(v as u32))
                }
                Some((_, _, s)) => Err(err(
                    format!("{name}: {what}, found '{}'", self.text(s)),
                    s.start,
                    s.end,
                )),
            }
        };
        let id = integer(
            "the SPLINE id must be a positive integer",
            1.0,
            u32::MAX as f64,
        )?
        .unwrap_or(0);
        let iord = integer("the derivative order must be 0, 1 or 2", 0.0, 2.0)?;
        Ok((
            Node::Spline(Box::new(crate::spline::SplineCall {
                method,
                x,
                z,
                id,
                iord: iord.unwrap_or(0) as u8,
                iord_given: iord.is_some(),
                data: None,
                span: full,
            })),
            depth,
        ))
    }
}

impl Parser<'_> {
    /// SENVAL(id): id is an integer constant, bound to the sensor later
    /// (`Expr::with_sensor_values`).
    fn senval_call(&mut self, name_span: Span) -> Res {
        let (args, span) = self.args(false)?;
        let full = Span {
            start: name_span.start,
            end: span.end,
        };
        check_count("SENVAL", args.len(), 1, 1, full)?;
        let id = match args.into_iter().next() {
            Some((Node::Const(v), _, _))
                if v >= 1.0 && v.fract() == 0.0 && v <= u32::MAX as f64 =>
            {
                v as u32
            }
            Some((_, _, s)) => {
                return Err(err(
                    format!(
                        "SENVAL: the SENSOR id must be a positive integer, found '{}'",
                        self.text(s)
                    ),
                    s.start,
                    s.end,
                ))
            }
            None => 0,
        };
        Ok((
            Node::Senval(Box::new(crate::senval::SenvalCall {
                id,
                cell: None,
                span: full,
            })),
            0,
        ))
    }
}

fn check_count(name: &str, n: usize, lo: usize, hi: usize, span: Span) -> Result<(), ExprError> {
    if n >= lo && n <= hi {
        return Ok(());
    }
    let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
    let want = if lo == hi {
        format!("{lo} {}", plural(lo))
    } else {
        format!("{lo} to {hi} arguments")
    };
    Err(err(
        format!("{name} takes {want}, found {n}"),
        span.start,
        span.end,
    ))
}
