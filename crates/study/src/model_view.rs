//! A loaded model described as rows of (field, text) for inspection from
//! Python or a summary: parts, joints, forces, requests.

use crate::run::Loaded;
use mbsolve_model::{ForceKind, RequestKind};

/// One element: ordered (field, value) pairs, values as text.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementRow {
    pub fields: Vec<(String, String)>,
}

fn row(fields: &[(&str, String)]) -> ElementRow {
    ElementRow {
        fields: fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelView {
    pub title: String,
    pub parts: Vec<ElementRow>,
    pub joints: Vec<ElementRow>,
    pub forces: Vec<ElementRow>,
    pub requests: Vec<ElementRow>,
    pub dof: i64,
    pub columns: Vec<String>,
}

impl ModelView {
    pub fn of(l: &Loaded) -> ModelView {
        let m = &l.model;
        let opt = |o: Option<u32>| o.map(|v| v.to_string()).unwrap_or_default();
        let force_kind = |k: &ForceKind| match k {
            ForceKind::TranslationalSpringDamper { .. } => "SPRINGDAMPER/TRANSLATIONAL",
            ForceKind::RotationalSpringDamper { .. } => "SPRINGDAMPER/ROTATIONAL",
            ForceKind::TranslationalActionReaction { .. } => "SFORCE/TRANSLATIONAL",
            ForceKind::RotationalActionReaction { .. } => "SFORCE/ROTATIONAL",
            ForceKind::TranslationalActionOnly { .. } => "SFORCE/ACTIONONLY/TRANSLATIONAL",
            ForceKind::RotationalActionOnly { .. } => "SFORCE/ACTIONONLY/ROTATIONAL",
            ForceKind::Vector { statement, .. } => statement.name(),
            ForceKind::Elastic(e) => e.statement.name(),
        };
        let request_kind = |k: RequestKind| match k {
            RequestKind::Displacement => "DISPLACEMENT",
            RequestKind::Velocity => "VELOCITY",
            RequestKind::Acceleration => "ACCELERATION",
            RequestKind::Force => "FORCE",
        };
        let mut requests: Vec<ElementRow> = m
            .requests
            .iter()
            .map(|r| {
                row(&[
                    ("element", format!("REQUEST/{}", r.id)),
                    ("kind", request_kind(r.kind).into()),
                    ("i", r.i.to_string()),
                    ("j", opt(r.j)),
                    ("rm", opt(r.rm)),
                    ("comment", r.comment.clone()),
                ])
            })
            .collect();
        requests.extend(m.function_requests.iter().map(|r| {
            row(&[
                ("element", format!("REQUEST/{}", r.id)),
                ("kind", "FUNCTION".into()),
                ("i", String::new()),
                ("j", String::new()),
                ("rm", String::new()),
                ("comment", r.comment.clone()),
            ])
        }));
        ModelView {
            title: m.title.trim().to_string(),
            parts: m
                .parts
                .iter()
                .map(|p| {
                    row(&[
                        ("element", mbsolve_model::point_mass::body_label(p.id)),
                        ("ground", p.ground.to_string()),
                        ("mass", format!("{:e}", p.mass)),
                        ("cm", opt(p.cm)),
                    ])
                })
                .collect(),
            joints: m
                .joints
                .iter()
                .map(|j| {
                    row(&[
                        ("element", format!("JOINT/{}", j.id)),
                        ("kind", j.kind.name().into()),
                        ("i", j.i.to_string()),
                        ("j", j.j.to_string()),
                    ])
                })
                .collect(),
            forces: m
                .forces
                .iter()
                .map(|f| {
                    row(&[
                        ("element", f.element().to_string()),
                        ("kind", force_kind(&f.kind).into()),
                        ("i", f.i.to_string()),
                        ("j", f.j.to_string()),
                    ])
                })
                .collect(),
            requests,
            dof: l.dof,
            columns: l.header.clone(),
        }
    }
}
