//! What CONTACT elements change in the integrator settings (seeds:
//! adams-integrator-statement.txt, CORRECTOR and the HHT caution).

use mbsolve_model::{CorrectorKind, IntegratorKind, IntegratorSettings, Model, NormalForce};

/// The settings a dynamic run uses for `model`, with the log line of any
/// automatic change:
/// - CORRECTOR = ORIGINAL (given or by default) becomes MODIFIED when the
///   model has CONTACT elements ("Upon reading the model data, if the
///   ORIGINAL corrector setting is set, Adams Solver (C++) will
///   automatically switch to using the MODIFIED corrector"); ORIG_CONSTANT
///   and MODIFIED are kept. Integrators without a CORRECTOR argument
///   (DSTIFF and the ODE-form integrators, which have no ORIGINAL/MODIFIED
///   choice) are left as they are, so that their validation does not
///   reject a corrector the user never wrote;
/// - HHT with a restitution (POISSON) contact is an error ("The HHT
///   integrator is incompatible with restitution (POISSON) contact").
pub fn for_contacts(
    settings: &IntegratorSettings,
    model: &Model,
) -> Result<(IntegratorSettings, Option<String>), String> {
    let mut s = settings.clone();
    if model.contacts.is_empty() {
        return Ok((s, None));
    }
    if s.kind == IntegratorKind::Hht {
        if let Some(c) = model
            .contacts
            .iter()
            .find(|c| matches!(c.normal, NormalForce::Poisson { .. }))
        {
            return Err(format!(
                "INTEGRATOR/HHT: the HHT integrator is incompatible with restitution (POISSON) contact ({}); use IMPACT or another integrator",
                model.describe(mbsolve_model::ElementRef::Contact(c.id))
            ));
        }
    }
    let takes_corrector = crate::settings::pair_of(&s)
        .map(|p| p.args.contains(crate::settings::Arg::Corrector))
        .unwrap_or(false);
    let note = match s.corrector {
        None | Some(CorrectorKind::Original) if takes_corrector => {
            s.corrector = Some(CorrectorKind::Modified);
            Some(format!(
                "CORRECTOR switched from ORIGINAL to MODIFIED: the model has {} CONTACT element(s) (ORIG_CONSTANT prevents the switch)",
                model.contacts.len()
            ))
        }
        _ => None,
    };
    Ok((s, note))
}
