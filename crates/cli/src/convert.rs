//! `mbsolve convert MODEL -o OUT.adm|OUT.xml`: read with the reader the
//! model's content calls for, write with the writer the output's extension
//! names. Nothing is written when the model cannot be expressed in the
//! target format (the error names the element).

use std::path::{Path, PathBuf};

pub fn convert(model: &Path, output: &Path) -> Result<PathBuf, String> {
    crate::run::regular_file(model, "model")?;
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let write: fn(&mbsolve_model::Model) -> Result<String, String> = match ext.as_deref() {
        Some("adm") => mbsolve_adm::write_adm,
        Some("xml") => mbsolve_msxml::write_xml,
        _ => {
            return Err(format!(
                "{}: the output's extension chooses the format: .adm (Adams) or .xml (MotionSolve)",
                output.display()
            ))
        }
    };
    let same = match (model.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(format!(
            "refusing to write {}: it is the model file",
            output.display()
        ));
    }
    let input = crate::input::read_model(model)?;
    let text = write(&input.model).map_err(|e| format!("{}: {e}", model.display()))?;
    crate::run::write_output(output, text.as_bytes())?;
    Ok(output.to_path_buf())
}
