//! Model input: the reader is chosen by the file's content (a MotionSolve
//! `<MultiBodySystem>` deck or an Adams dataset), not by its extension.

use mbsolve_model::{Command, Model};
use std::path::Path;

/// A model and, for formats that carry them (MotionSolve XML), its
/// commands.
pub struct ModelInput {
    pub model: Model,
    /// The deck's own command section; None for an Adams dataset (its
    /// commands are in the `.acf`).
    pub commands: Option<Vec<Command>>,
    /// A MotionSolve deck's Param_Transient, validated.
    pub transient: Option<mbsolve_solver::settings::ParamTransient>,
    /// Elements read without effect on the solution, one line each for
    /// the log and `check` ("deck.xml:3: ResOutput read without effect
    /// (result-file options only)").
    pub without_effect: Vec<String>,
    pub format: &'static str,
    /// The deck asks for the ASCII `.plt` result file (ResOutput
    /// plt_file="TRUE").
    pub plt_file: bool,
}

/// Read the model file at `path` with the reader its content calls for.
pub fn read_model(path: &Path) -> Result<ModelInput, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    if mbsolve_msxml::is_motionsolve_xml(&text) {
        let name = path.display().to_string();
        let read = mbsolve_msxml::read_xml_str(&text, &name).map_err(|e| e.to_string())?;
        // Param_Transient is validated here, naming the attribute and its
        // line, before anything runs.
        let transient = match &read.transient {
            Some(attrs) => {
                let attrs: Vec<(&str, &str, &str)> = attrs
                    .iter()
                    .map(|a| (a.name.as_str(), a.value.as_str(), a.origin.as_str()))
                    .collect();
                Some(mbsolve_solver::settings::ParamTransient::from_attributes(
                    &attrs,
                )?)
            }
            // MotionSolve's default: DSTIFF with Param_Transient's defaults.
            None => Some(
                mbsolve_solver::settings::ParamTransient::builder()
                    .build()
                    .map_err(|e| format!("{name}: {e}"))?,
            ),
        };
        return Ok(ModelInput {
            model: read.model,
            commands: Some(read.commands),
            transient,
            without_effect: read
                .skipped
                .iter()
                .map(|k| {
                    format!(
                        "{}: {} read without effect ({})",
                        k.location, k.statement, k.reason
                    )
                })
                .collect(),
            format: "MotionSolve XML",
            plt_file: read.plt_file,
        });
    }
    let model =
        mbsolve_adm::read_adm_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    Ok(ModelInput {
        model,
        commands: None,
        transient: None,
        without_effect: Vec::new(),
        format: "Adams dataset",
        plt_file: false,
    })
}

/// `mbsolve run FILE.acf`, as Adams is started: a command file given as the
/// model (its extension `.acf`, no `--acf`) names the dataset on its first
/// line, found beside it (with `.adm` added when the name has no extension
/// and no such file exists, as Adams adds it). The options are returned as
/// `run DATASET --acf FILE.acf`.
pub fn command_file_as_model(
    mut opts: crate::args::RunOptions,
) -> Result<crate::args::RunOptions, String> {
    let is_acf = opts
        .model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("acf"));
    if opts.acf.is_some() || !is_acf {
        return Ok(opts);
    }
    let acf = opts.model.clone();
    let read = mbsolve_adm::read_acf(&acf).map_err(|e| e.to_string())?;
    let Some(name) = read.model_file.filter(|n| !n.trim().is_empty()) else {
        return Err(format!(
            "{}: a command file run as the model must name its dataset on its first line",
            acf.display()
        ));
    };
    let dir = acf.parent().map(Path::to_path_buf).unwrap_or_default();
    let named = dir.join(name.trim());
    let with_adm = dir.join(format!("{}.adm", name.trim()));
    let model = if named.is_file() {
        named
    } else if Path::new(name.trim()).extension().is_none() && with_adm.is_file() {
        with_adm
    } else {
        return Err(format!(
            "{}:1: the command file names the dataset '{}', but neither {} nor {} exists",
            acf.display(),
            name.trim(),
            named.display(),
            with_adm.display()
        ));
    };
    opts.model = model;
    opts.acf = Some(acf);
    Ok(opts)
}
