//! The document walk: root, `<Model>`, `<Command>`; attribute access with
//! case-insensitive names and a check that every attribute was used.

use crate::elements::{self, Poses};
use crate::{XmlError, XmlErrors};
use mbsolve_adm::syntax::{Arg, ExprText, Item, Statement, Value};
use mbsolve_adm::Pos;
use mbsolve_model::{Command, Model, OutputSpec, SimulateMode};
use roxmltree::{Document, Node};

/// An attribute as written, with where it was written ("deck.xml:12:5"),
/// for settings objects that validate later (Param_Transient).
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub name: String,
    pub value: String,
    pub origin: String,
}

/// What a deck holds: the model, the command sequence in order, the
/// elements read but without effect on the solution, and the
/// `Param_Transient` attributes as written (validated by the solver's
/// settings layer, which knows the integrators' defaults and ranges).
#[derive(Clone, Debug)]
pub struct XmlRead {
    pub model: Model,
    pub commands: Vec<Command>,
    pub skipped: Vec<mbsolve_adm::Skipped>,
    pub transient: Option<Vec<Attr>>,
    /// A ResOutput (in `<Model>` or `<Command>`) asks for the ASCII `.plt`
    /// result file.
    pub plt_file: bool,
}

/// One XML element with its attributes, tracking which were used so that
/// an attribute nobody reads is an error naming it.
#[derive(Clone)]
pub(crate) struct Elem<'a> {
    /// The element name as written.
    pub tag: String,
    pub pos: Pos,
    pub id: Option<u32>,
    attrs: Vec<(String, String, Pos)>,
    used: Vec<bool>,
    file: &'a str,
    /// The element's text content (Reference_Spline's x y pairs).
    pub text: String,
}

fn pos_at(doc: &Document, byte: usize) -> Pos {
    let p = doc.text_pos_at(byte);
    Pos {
        line: p.row,
        col: p.col,
    }
}

impl<'a> Elem<'a> {
    fn new(doc: &Document, node: Node, file: &'a str) -> Result<Self, XmlError> {
        let attrs: Vec<(String, String, Pos)> = node
            .attributes()
            .map(|a| {
                (
                    a.name().to_string(),
                    a.value().to_string(),
                    pos_at(doc, a.range_value().start),
                )
            })
            .collect();
        let mut e = Elem {
            tag: node.tag_name().name().to_string(),
            pos: pos_at(doc, node.range().start),
            id: None,
            used: vec![false; attrs.len()],
            attrs,
            file,
            text: node
                .children()
                .filter(|c| c.is_text())
                .filter_map(|c| c.text())
                .collect(),
        };
        e.id = match e.get("id") {
            None => None,
            Some((v, p)) => match v.trim().parse::<u32>() {
                Ok(id) if id > 0 => Some(id),
                _ => {
                    return Err(e.err(
                        p,
                        format!(
                            "id = \"{v}\" must be a positive integer (ids are per element type)"
                        ),
                    ))
                }
            },
        };
        Ok(e)
    }

    /// This element's attributes (none marked used) with `given` (a modify
    /// command's, at their own positions) replacing or adding to them,
    /// `dropped` removed and `added` appended; positioned at `pos`.
    pub fn overridden(
        &self,
        given: &[(String, String, Pos)],
        dropped: &[&str],
        added: Vec<(String, String, Pos)>,
        pos: Pos,
    ) -> Elem<'a> {
        let is_given = |n: &str| given.iter().any(|(g, _, _)| g.eq_ignore_ascii_case(n));
        let mut attrs: Vec<(String, String, Pos)> = self
            .attrs
            .iter()
            .filter(|(n, _, _)| !is_given(n) && !dropped.iter().any(|d| d.eq_ignore_ascii_case(n)))
            .cloned()
            .collect();
        attrs.extend(
            given
                .iter()
                .filter(|(n, _, _)| !n.eq_ignore_ascii_case("id"))
                .cloned(),
        );
        attrs.extend(added);
        let mut e = Elem {
            tag: self.tag.clone(),
            pos,
            id: self.id,
            used: vec![false; attrs.len()],
            attrs,
            file: self.file,
            text: self.text.clone(),
        };
        // The id was read (and checked) when the element was.
        e.ignore(&["id"]);
        e
    }

    /// "Constraint_Joint id=3", the element as messages name it.
    pub fn label(&self) -> String {
        match self.id {
            Some(id) => format!("{} id={id}", self.tag),
            None => self.tag.clone(),
        }
    }

    pub fn err(&self, pos: Pos, msg: impl AsRef<str>) -> XmlError {
        XmlError {
            file: self.file.to_string(),
            line: pos.line,
            col: pos.col,
            message: format!("{}: {}", self.label(), msg.as_ref()),
        }
    }

    pub fn err_here(&self, msg: impl AsRef<str>) -> XmlError {
        self.err(self.pos, msg)
    }

    pub fn origin(&self, pos: Pos) -> String {
        format!("{}:{}:{}", self.file, pos.line, pos.col)
    }

    /// The attribute `key` (any case), marked used.
    pub fn get(&mut self, key: &str) -> Option<(String, Pos)> {
        let k = self
            .attrs
            .iter()
            .position(|(n, _, _)| n.eq_ignore_ascii_case(key))?;
        self.used[k] = true;
        let (_, v, p) = &self.attrs[k];
        Some((v.clone(), *p))
    }

    /// The attribute `key` (any case) without marking it used (a first
    /// pass over the whole model).
    pub fn peek(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(key))
            .map(|(_, v, _)| v.as_str())
    }

    pub fn has(&self, key: &str) -> bool {
        self.attrs
            .iter()
            .any(|(n, _, _)| n.eq_ignore_ascii_case(key))
    }

    /// Attributes whose names start with `prefix` (any case), unread.
    pub fn names_with_prefix(&self, prefix: &str) -> Vec<(String, String)> {
        self.attrs
            .iter()
            .filter(|(n, _, _)| n.to_ascii_lowercase().starts_with(prefix))
            .map(|(n, v, _)| (n.clone(), v.clone()))
            .collect()
    }

    /// Mark attributes as read without effect (labels, MotionView paths).
    pub fn ignore(&mut self, keys: &[&str]) {
        for k in keys {
            let _ = self.get(k);
        }
    }

    /// All attributes, marking them used (settings passed on as written).
    pub fn take_all(&mut self) -> Vec<(String, String, Pos)> {
        self.used.iter_mut().for_each(|u| *u = true);
        self.attrs.clone()
    }

    pub fn number(&mut self, key: &str) -> Result<Option<(f64, Pos)>, XmlError> {
        match self.get(key) {
            None => Ok(None),
            Some((v, p)) => match parse_number(&v) {
                Some(x) => Ok(Some((x, p))),
                None => Err(self.err(p, format!("{key} = \"{v}\" is not a number"))),
            },
        }
    }

    pub fn number_or(&mut self, key: &str, default: f64) -> Result<f64, XmlError> {
        Ok(self.number(key)?.map(|(x, _)| x).unwrap_or(default))
    }

    pub fn id_attr(&mut self, key: &str) -> Result<Option<(u32, Pos)>, XmlError> {
        match self.get(key) {
            None => Ok(None),
            Some((v, p)) => match v.trim().parse::<u32>() {
                Ok(id) => Ok(Some((id, p))),
                Err(_) => Err(self.err(p, format!("{key} = \"{v}\" is not an id"))),
            },
        }
    }

    pub fn required_id(&mut self, key: &str) -> Result<(u32, Pos), XmlError> {
        match self.id_attr(key)? {
            Some(x) => Ok(x),
            None => Err(self.err_here(format!("needs {key}"))),
        }
    }

    pub fn required(&mut self, key: &str) -> Result<(String, Pos), XmlError> {
        match self.get(key) {
            Some(x) => Ok(x),
            None => Err(self.err_here(format!("needs {key}"))),
        }
    }

    /// TRUE/FALSE (YES/NO), any case.
    pub fn boolean(&mut self, key: &str) -> Result<Option<bool>, XmlError> {
        match self.get(key) {
            None => Ok(None),
            Some((v, p)) => match v.trim().to_ascii_uppercase().as_str() {
                "TRUE" | "YES" => Ok(Some(true)),
                "FALSE" | "NO" => Ok(Some(false)),
                _ => Err(self.err(p, format!("{key} = \"{v}\" must be TRUE or FALSE"))),
            },
        }
    }

    /// Every attribute was used; otherwise an error naming the first
    /// unread one.
    pub fn finish(&self) -> Result<(), XmlError> {
        for ((name, _, p), used) in self.attrs.iter().zip(&self.used) {
            let ns = name.starts_with("xmlns") || name.contains(':');
            if !used && !ns {
                return Err(self.err(*p, format!("attribute {name} is not supported")));
            }
        }
        Ok(())
    }

    // Statement building: Adams arguments whose positions point into the XML.

    pub fn statement(&self, name: &str, id: Option<u32>) -> Statement {
        Statement {
            name: name.to_string(),
            pos: self.pos,
            id,
            args: Vec::new(),
        }
    }
}

/// Numbers as MotionSolve writes them: "0.", "1.0000E-10", "2E5", "-9.2E4".
pub(crate) fn parse_number(v: &str) -> Option<f64> {
    let t = v.trim();
    let t = t.replace(['d', 'D'], "E");
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

pub(crate) fn flag(st: &mut Statement, key: &str, pos: Pos) {
    st.args.push(Arg {
        key: key.to_string(),
        pos,
        value: Value::Flag,
    });
}

pub(crate) fn list(st: &mut Statement, key: &str, values: &[String], pos: Pos) {
    st.args.push(Arg {
        key: key.to_string(),
        pos,
        value: Value::List(
            values
                .iter()
                .map(|v| Item {
                    text: v.clone(),
                    pos,
                })
                .collect(),
        ),
    });
}

/// A whitespace- or comma-separated list attribute `key` whose words
/// `parse` reads (`bad` says what a word that does not read is not), and
/// its optional `count_key` ("num_…"), which must equal its length
/// (`noun`: "ids", "values").
pub(crate) fn counted_list<T>(
    e: &mut Elem,
    key: &str,
    count_key: &str,
    parse: impl Fn(&str) -> Option<T>,
    (bad, verb, noun): (&str, &str, &str),
) -> Result<(Vec<T>, Pos), XmlError> {
    let (text, p) = e.required(key)?;
    let mut out = Vec::new();
    for w in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
    {
        match parse(w) {
            Some(x) => out.push(x),
            None => return Err(e.err(p, format!("{key}: '{w}' {bad}"))),
        }
    }
    if let Some((n, np)) = e.number(count_key)? {
        if n != out.len() as f64 {
            return Err(e.err(
                np,
                format!("{count_key} = {n} but {key} {verb} {} {noun}", out.len()),
            ));
        }
    }
    Ok((out, p))
}

pub(crate) fn numbers(st: &mut Statement, key: &str, values: &[f64], pos: Pos) {
    let v: Vec<String> = values.iter().map(|x| format!("{x:e}")).collect();
    list(st, key, &v, pos);
}

pub(crate) fn expr(st: &mut Statement, key: &str, text: &str, pos: Pos) {
    // XML attribute normalisation has turned newlines into spaces.
    st.args.push(Arg {
        key: key.to_string(),
        pos,
        value: Value::Expr(ExprText {
            text: text.to_string(),
            byte_pos: vec![pos; text.len()],
            pos,
        }),
    });
}

pub(crate) fn text(st: &mut Statement, key: &str, value: &str, pos: Pos) {
    st.args.push(Arg {
        key: key.to_string(),
        pos,
        value: Value::Text(Item {
            text: value.to_string(),
            pos,
        }),
    });
}

fn element_children<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(|c| c.is_element())
}

pub(crate) fn read(text: &str, file: &str) -> Result<XmlRead, XmlErrors> {
    let doc = Document::parse(text).map_err(|e| {
        let p = e.pos();
        XmlError {
            file: file.to_string(),
            line: p.row,
            col: p.col,
            // roxmltree's text ends with " at row:col", which the
            // position prefix already says.
            message: format!("malformed XML: {}", strip_position(&e.to_string())),
        }
    })?;
    let root = doc.root_element();
    let root_pos = pos_at(&doc, root.range().start);
    let fail = |pos: Pos, message: String| XmlError {
        file: file.to_string(),
        line: pos.line,
        col: pos.col,
        message,
    };
    if !root
        .tag_name()
        .name()
        .eq_ignore_ascii_case("MultiBodySystem")
    {
        return Err(fail(
            root_pos,
            format!(
                "the root element is <{}>; a MotionSolve deck has <MultiBodySystem> with <Model> and <Command> inside",
                root.tag_name().name()
            ),
        )
        .into());
    }
    let mut models = Vec::new();
    let mut command = None;
    let mut skipped = Vec::new();
    for c in element_children(root) {
        let name = c.tag_name().name().to_ascii_lowercase();
        match name.as_str() {
            "model" => models.push(c),
            "command" => {
                if command.is_some() {
                    return Err(fail(
                        pos_at(&doc, c.range().start),
                        "a second <Command> section".into(),
                    )
                    .into());
                }
                command = Some(c)
            }
            "messaging" => skipped.push(mbsolve_adm::Skipped {
                statement: c.tag_name().name().to_string(),
                location: format!("{file}:{}", pos_at(&doc, c.range().start).line),
                reason: "message-file options only",
            }),
            _ => {
                return Err(fail(
                    pos_at(&doc, c.range().start),
                    format!(
                    "<{}> is not a section of <MultiBodySystem> (expected <Model> and <Command>)",
                    c.tag_name().name()
                ),
                )
                .into())
            }
        }
    }
    let model_node = match models.as_slice() {
        [m] => *m,
        [] => return Err(fail(root_pos, "no <Model> section".into()).into()),
        [_, second, ..] => {
            return Err(fail(
                pos_at(&doc, second.range().start),
                "a second <Model> section".into(),
            )
            .into())
        }
    };

    // Pass 1: marker poses and ground (markers precede their bodies, and
    // references resolve after the whole model).
    let mut errors = Vec::new();
    let mut elems = Vec::new();
    for c in element_children(model_node) {
        match Elem::new(&doc, c, file) {
            Ok(e) => elems.push(e),
            Err(e) => errors.push(e),
        }
    }
    let mut poses = match Poses::collect(&mut elems) {
        Ok(p) => p,
        Err(mut e) => {
            errors.append(&mut e);
            Poses::default()
        }
    };
    poses.first = crate::added::FirstPass::collect(&elems);

    // Modify commands override the attributes as read.
    let originals = elems
        .iter()
        .filter(|e| crate::commands::is_modifiable(&e.tag))
        .filter_map(|e| Some(((e.tag.to_ascii_lowercase(), e.id?), e.clone())))
        .collect();

    // Pass 2: every element to statements (or settings).
    let mut out = elements::Output::default();
    let mut plt_file = false;
    for e in &mut elems {
        if e.tag.eq_ignore_ascii_case("ResOutput") {
            match crate::commands::res_output(e, &mut out.skipped) {
                Ok(p) => plt_file |= p,
                Err(err) => errors.push(err),
            }
            continue;
        }
        if let Err(err) = elements::translate(e, &poses, &mut out) {
            errors.push(err);
        }
    }
    skipped.append(&mut out.skipped);
    // A VFORCE/VTORQUE/GFORCE needs its FLOATING marker defined before it:
    // those markers go first (a stable sort keeps every other order).
    out.statements
        .sort_by_key(|st| !(st.name == "MARKER" && st.args.iter().any(|a| a.key == "FLOATING")));
    let mut commands = Vec::new();
    let mut walk = crate::commands::Walk {
        originals,
        transient: out.transient.clone().unwrap_or_default(),
        running: None,
        pending: Vec::new(),
        poses,
    };
    if let Some(c) = command {
        for n in element_children(c) {
            let labels = &out.labels;
            let time = &mut out.time;
            let step = Elem::new(&doc, n, file).and_then(|mut e| {
                let tag = e.tag.to_ascii_lowercase();
                if crate::commands::is_modify(&tag) {
                    let what = crate::commands::modify(&mut e, &mut walk, &mut out.statements)?;
                    return Ok(match what {
                        None => Step::Nothing,
                        Some(what) => {
                            let statements = walk.running.clone().unwrap_or_default();
                            walk.pending.push((commands.len(), statements));
                            // The model is built below, once every error
                            // has been collected.
                            Step::Run(Box::new(Command::Redefine {
                                model: mbsolve_model::RedefinedModel(std::sync::Arc::default()),
                                what,
                                origin: e.origin(e.pos),
                            }))
                        }
                    });
                }
                match tag.as_str() {
                    "resoutput" => {
                        plt_file |= crate::commands::res_output(&mut e, &mut out.skipped)?;
                        return Ok(Step::Nothing);
                    }
                    "h3doutput" => {
                        out.skipped.push(mbsolve_adm::Skipped {
                            statement: e.label(),
                            location: e.origin(e.pos),
                            reason: "animation-file options only",
                        });
                        return Ok(Step::Nothing);
                    }
                    "param_transient" => {
                        return Ok(Step::Run(Box::new(crate::commands::param_transient(
                            &mut e, &mut walk,
                        ))))
                    }
                    "param_static" | "param_simulation" => {
                        let mut o = elements::Output::default();
                        elements::translate(&mut e, &Poses::default(), &mut o)?;
                        return Ok(match o.statics {
                            Some(settings) => Step::Run(Box::new(Command::Equilibrium {
                                settings,
                                default: false,
                            })),
                            None => Step::Nothing,
                        });
                    }
                    _ => {}
                }
                let Some(cmd) = command_of(&mut e, time, labels)? else {
                    return Ok(Step::Stop);
                };
                if matches!(cmd, Command::Simulate { .. }) && walk.running.is_none() {
                    walk.running = Some(out.statements.clone());
                }
                Ok(Step::Run(Box::new(cmd)))
            });
            match step {
                Ok(Step::Stop) => break,
                Ok(Step::Run(cmd)) => commands.push(*cmd),
                Ok(Step::Nothing) => {}
                Err(e) => errors.push(e),
            }
        }
        for (name, _, p) in element_attrs(&doc, c) {
            if name.eq_ignore_ascii_case("time_out") {
                // A wall-clock limit on the whole run: real decks carry it
                // (time_out="999999"); it is not applied, and `check` and
                // the log list it as read without effect.
                skipped.push(mbsolve_adm::Skipped {
                    statement: format!("Command {name}"),
                    location: format!("{file}:{}", p.line),
                    reason: "wall-clock limit, not applied",
                });
            } else {
                errors.push(fail(
                    p,
                    format!("Command: attribute {name} is not supported"),
                ));
            }
        }
    }
    skipped.append(&mut out.skipped);
    if !errors.is_empty() {
        return Err(XmlErrors(errors));
    }
    let title = root
        .attribute("label")
        .map(str::to_string)
        .unwrap_or_else(|| {
            std::path::Path::new(file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    let build = |statements: &[Statement]| {
        mbsolve_adm::build_statements(statements, &title, file).map_err(|e| {
            // Name the element as the XML does: "JOINT/3: …" → "Constraint_Joint id=3: …".
            let message = e
                .statement
                .as_ref()
                .and_then(|st| {
                    let xml = out.labels.get(st)?;
                    let rest = e.message.strip_prefix(&format!("{st}: "))?;
                    Some(format!("{xml}: {rest}"))
                })
                .unwrap_or_else(|| e.message.clone());
            XmlError {
                file: e.file.clone(),
                line: e.pos.line,
                col: e.pos.col,
                message,
            }
        })
    };
    let built = build(&out.statements)?;
    // The models modify commands switch to after an analysis.
    for (k, statements) in std::mem::take(&mut walk.pending) {
        let mut m = build(&statements)?.model;
        m.equilibrium = out.statics.clone().unwrap_or_default();
        if let Command::Redefine { model, .. } = &mut commands[k] {
            model.0 = std::sync::Arc::new(m);
        }
    }
    let mut model = built.model;
    skipped.extend(built.skipped);
    model.equilibrium = out.statics.unwrap_or_default();
    Ok(XmlRead {
        model,
        commands,
        skipped,
        transient: out.transient,
        plt_file,
    })
}

/// What one `<Command>` child does.
enum Step {
    Run(Box<Command>),
    /// Read, with nothing to run (a Param_Simulation, an edit of the model
    /// before the first Simulate).
    Nothing,
    Stop,
}

fn element_attrs(doc: &Document, node: Node) -> Vec<(String, String, Pos)> {
    node.attributes()
        .map(|a| {
            (
                a.name().to_string(),
                a.value().to_string(),
                pos_at(doc, a.range_value().start),
            )
        })
        .collect()
}

/// One `<Command>` child: Ok(None) for Stop (the rest is not run).
/// `time` is the end of the previous Simulate: `end_time` is absolute and
/// `duration` continues from it.
fn command_of(
    e: &mut Elem,
    time: &mut f64,
    labels: &std::collections::HashMap<String, String>,
) -> Result<Option<Command>, XmlError> {
    match e.tag.to_ascii_lowercase().as_str() {
        "deactivate" => crate::commands::activation(e, false, labels).map(Some),
        "activate" => crate::commands::activation(e, true, labels).map(Some),
        "stop" => {
            e.finish()?;
            Ok(None)
        }
        "simulate" => {
            let (kind, kpos) = e.required("analysis_type")?;
            let mode = match kind.trim().to_ascii_uppercase().as_str() {
                "TRANSIENT" => SimulateMode::Transient,
                "STATIC" => SimulateMode::Static,
                "ASSEMBLY" => SimulateMode::InitialConditions,
                other => {
                    return Err(e.err(
                        kpos,
                        format!(
                            "analysis_type = \"{other}\" is not supported (Static, Transient or Assembly)"
                        ),
                    ))
                }
            };
            if let Some((t0, p)) = e.number("start_time")? {
                if (t0 - *time).abs() > 1e-12 * time.abs().max(1.0) {
                    return Err(e.err(
                        p,
                        format!(
                            "start_time = {t0} differs from the current time {}: a simulation continues from where the previous one ended",
                            mbsolve_model::readable(*time)
                        ),
                    ));
                }
            }
            let end = e.number("end_time")?;
            let duration = e.number("duration")?;
            // A Static Simulate over a time span (end_time after the
            // current time, or a duration) is a quasi-static simulation
            // (seeds: Param_Static, "Static and Quasi-static analysis"), as
            // Adams SIMULATE/STATIC with END; end_time at the current time
            // is one static solution.
            let timed = mode == SimulateMode::Transient
                || (mode == SimulateMode::Static
                    && (duration.is_some() || end.is_some_and(|(t, _)| t > *time)));
            let end = match (end, duration) {
                (Some((t, _)), None) => t,
                (None, Some((d, _))) => *time + d,
                (None, None) if mode != SimulateMode::Transient => *time,
                (None, None) => return Err(e.err_here("needs end_time or duration")),
                (Some(_), Some((_, p))) => {
                    return Err(e.err(p, "give end_time or duration, not both"))
                }
            };
            let steps = e.number("num_steps")?;
            let interval = e.number("print_interval")?;
            if let Some((_, p)) = e.get("print_increment") {
                return Err(e.err(
                    p,
                    "print_increment is not supported yet (use print_interval or num_steps)",
                ));
            }
            if let Some((_, p)) = e.get("print_array_id") {
                return Err(e.err(
                    p,
                    "print_array_id is not supported yet (use print_interval or num_steps)",
                ));
            }
            e.finish()?;
            let (steps, dtout) = match (steps, interval) {
                (Some(_), Some((_, p))) => {
                    return Err(e.err(p, "give one of num_steps and print_interval"))
                }
                (Some((n, p)), None) => {
                    if n < 1.0 || n.fract() != 0.0 {
                        return Err(e.err(p, format!("num_steps = {n} must be a positive integer")));
                    }
                    (Some(n as u64), None)
                }
                (None, Some((dt, _))) => (None, Some(dt)),
                // Seeds/grammar: print_interval defaults to 0.01.
                (None, None) => (None, Some(0.01)),
            };
            let output = match timed {
                true => Some(OutputSpec {
                    end,
                    steps,
                    dtout,
                    // Run time: `duration` continues from the time the
                    // previous Simulate reached (a return sensor may end
                    // it early); `end` is only the reader's expectation.
                    duration: duration.map(|(d, _)| d),
                }),
                false => None,
            };
            *time = end.max(*time);
            Ok(Some(Command::Simulate { mode, output }))
        }
        _ => Err(e.err_here(format!(
            "command <{}> is not supported yet (supported: Simulate, Activate, Deactivate, Stop)",
            e.tag
        ))),
    }
}

fn strip_position(msg: &str) -> &str {
    match msg.rsplit_once(" at ") {
        Some((head, tail))
            if tail
                .split(':')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())) =>
        {
            head
        }
        _ => msg,
    }
}
