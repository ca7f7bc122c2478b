//! Helpers shared by the msxml integration tests.

use mbsolve_model::{ForceKind, Model};

/// The vector forces as comparable lines. `floating` maps a model's
/// floating-marker ids onto the other's (a OneBody force gets a marker id
/// of its own on ground; the twin names it 14).
pub fn vector_forces(m: &Model, floating: &[(u32, u32)]) -> Vec<String> {
    m.forces
        .iter()
        .filter_map(|f| match &f.kind {
            ForceKind::Vector {
                statement,
                jfloat,
                reaction_part,
                components,
            } => {
                let j = floating
                    .iter()
                    .find(|(from, _)| from == jfloat)
                    .map_or(*jfloat, |(_, to)| *to);
                let c: Vec<Option<String>> = components
                    .iter()
                    .map(|c| {
                        c.as_ref()
                            .map(|c| c.source().unwrap_or("?").replace(' ', ""))
                    })
                    .collect();
                Some(format!(
                    "{}/{} I={} JFLOAT={j} on part {reaction_part} RM={} {c:?}",
                    statement.name(),
                    f.id,
                    f.i,
                    f.j
                ))
            }
            _ => None,
        })
        .collect()
}
