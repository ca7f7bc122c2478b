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
    pub format: &'static str,
}

/// Read the model file at `path` with the reader its content calls for.
pub fn read_model(path: &Path) -> Result<ModelInput, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    if mbsolve_msxml::is_motionsolve_xml(&text) {
        let name = path.display().to_string();
        let read = mbsolve_msxml::read_xml_str(&text, &name).map_err(|e| e.to_string())?;
        if let Some(attrs) = &read.transient {
            let origin = attrs.first().map(|a| a.origin.as_str()).unwrap_or(&name);
            return Err(format!(
                "{origin}: Param_Transient: the MotionSolve integrators (DSTIFF, VSTIFF, MSTIFF, ABAM) are not supported yet; remove Param_Transient to run with GSTIFF"
            ));
        }
        return Ok(ModelInput {
            model: read.model,
            commands: Some(read.commands),
            format: "MotionSolve XML",
        });
    }
    let model =
        mbsolve_adm::read_adm_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    Ok(ModelInput {
        model,
        commands: None,
        format: "Adams dataset",
    })
}
