//! Linear six-component elastic elements between two markers: BUSHING,
//! FIELD and BEAM (FORMULATION = LINEAR). All three apply, at I, the force
//! and torque (components in J's axes)
//!
//!   f = preload − K (δ − δ₀) − C δ̇,
//!
//! with δ = (x, y, z, a, b, c): x, y, z the displacement of I from J in J's
//! axes, and a, b, c Adams' projected small-angle rotations
//! a = AX(I, J) = atan2(−z_I·y_J, z_I·z_J), b = AY(I, J) =
//! atan2(z_I·x_J, z_I·z_J), c = AZ(I, J) = atan2(x_I·y_J, x_I·x_J); δ̇ has
//! the time derivatives of x, y, z as seen from J and the angular velocity
//! of I relative to J in J's axes (Adams BUSHING/FIELD/BEAM statements).
//! The reaction at J is −F and −T − (x_I − x_J) × F (the moment arm of the
//! deformation).

use nalgebra::{Matrix6, Vector6};

/// Which statement an [`Elastic`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElasticStatement {
    Bushing,
    Field,
    Beam,
}

impl ElasticStatement {
    pub fn name(self) -> &'static str {
        match self {
            ElasticStatement::Bushing => "BUSHING",
            ElasticStatement::Field => "FIELD",
            ElasticStatement::Beam => "BEAM",
        }
    }
}

/// A BEAM's FORMULATION. Adams defines only LINEAR (the matrix in
/// [`BeamSection::stiffness`]); it names NONLINEAR "the full non linear
/// Euler-Bernoulli theory" and STRING "a simplified non linear theory"
/// without equations. The two non-linear laws here are OUR design, chosen
/// to be what those phrases promise and to reduce to LINEAR for small
/// deflections (equations in mbsolve_mech::beam_nl and docs/):
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BeamFormulation {
    /// Adams' linear Timoshenko beam, clamped at J (the module law).
    #[default]
    Linear,
    /// Co-rotational: the LINEAR stiffness and damping act on deformations
    /// measured in a frame that turns with the chord and the mean end
    /// triads, the axial strain including the bending shortening
    /// (von Kármán), so a rigid motion gives no force at any angle.
    Nonlinear,
    /// LINEAR plus the lateral (chord, P-Δ) stiffness N/L of the axial
    /// force N: lateral stiffness rises under tension, falls under
    /// compression; negligible EI gives a string.
    String,
}

impl BeamFormulation {
    pub fn name(self) -> &'static str {
        match self {
            BeamFormulation::Linear => "LINEAR",
            BeamFormulation::Nonlinear => "NONLINEAR",
            BeamFormulation::String => "STRING",
        }
    }
}

/// A BEAM's section and material (Adams BEAM arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamSection {
    /// Undeformed length along J's x axis.
    pub length: f64,
    /// Torsional constant.
    pub ixx: f64,
    pub iyy: f64,
    pub izz: f64,
    pub area: f64,
    /// Shear area ratios (0 = no shear deflection: Euler–Bernoulli).
    pub asy: f64,
    pub asz: f64,
    pub emodulus: f64,
    pub gmodulus: f64,
}

impl BeamSection {
    /// Adams' linear Timoshenko stiffness matrix (BEAM, FORMULATION =
    /// LINEAR): with P_y = 12 E I_zz ASY/(G A L²), P_z = 12 E I_yy ASZ/(G A L²),
    /// K11 = EA/L, K22 = 12EI_zz/(L³(1+P_y)), K26 = −6EI_zz/(L²(1+P_y)),
    /// K33 = 12EI_yy/(L³(1+P_z)), K35 = 6EI_yy/(L²(1+P_z)), K44 = GI_xx/L,
    /// K55 = (4+P_z)EI_yy/(L(1+P_z)), K66 = (4+P_y)EI_zz/(L(1+P_y)), symmetric.
    /// It is the inverse of the cantilever flexibility (tip deflection
    /// F L³/(3EI) + F L·AS/(GA), rotation F L²/(2EI), …) clamped at J.
    pub fn stiffness(&self) -> Matrix6<f64> {
        let (l, e, g, a) = (self.length, self.emodulus, self.gmodulus, self.area);
        let shear = |i: f64, ratio: f64| {
            if ratio == 0.0 {
                0.0
            } else {
                12.0 * e * i * ratio / (g * a * l * l)
            }
        };
        let py = shear(self.izz, self.asy);
        let pz = shear(self.iyy, self.asz);
        let mut k = Matrix6::zeros();
        k[(0, 0)] = e * a / l;
        k[(1, 1)] = 12.0 * e * self.izz / (l.powi(3) * (1.0 + py));
        k[(1, 5)] = -6.0 * e * self.izz / (l * l * (1.0 + py));
        k[(2, 2)] = 12.0 * e * self.iyy / (l.powi(3) * (1.0 + pz));
        k[(2, 4)] = 6.0 * e * self.iyy / (l * l * (1.0 + pz));
        k[(3, 3)] = g * self.ixx / l;
        k[(4, 4)] = (4.0 + pz) * e * self.iyy / (l * (1.0 + pz));
        k[(5, 5)] = (4.0 + py) * e * self.izz / (l * (1.0 + py));
        k[(5, 1)] = k[(1, 5)];
        k[(4, 2)] = k[(2, 4)];
        k
    }
}

/// How the damping matrix is given. (The ratio variant is small; the
/// element itself is boxed inside `ForceKind`, so the size gap costs
/// nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElasticDamping {
    /// C in full (BUSHING C/CT on the diagonal, FIELD C, BEAM CMATRIX).
    Matrix(Matrix6<f64>),
    /// C = ratio · K (FIELD CRATIO, BEAM CRATIO).
    Ratio(f64),
}

/// BUSHING, FIELD or BEAM: see the module documentation for the law.
#[derive(Clone, Debug, PartialEq)]
pub struct Elastic {
    pub statement: ElasticStatement,
    pub stiffness: Matrix6<f64>,
    pub damping: ElasticDamping,
    /// δ₀: FIELD LENGTH, BEAM (LENGTH, 0, …), zero for a BUSHING.
    pub reference: Vector6<f64>,
    /// FORCE and TORQUE preloads, J's axes.
    pub preload: Vector6<f64>,
    /// The section a BEAM's stiffness came from (for writers).
    pub beam: Option<BeamSection>,
    /// A BEAM's FORMULATION (LINEAR for BUSHING and FIELD).
    pub formulation: BeamFormulation,
}

impl Elastic {
    /// BUSHING: K, C, KT, CT on the diagonal; FORCE, TORQUE preloads.
    pub fn bushing(
        k: [f64; 3],
        c: [f64; 3],
        kt: [f64; 3],
        ct: [f64; 3],
        force: [f64; 3],
        torque: [f64; 3],
    ) -> Elastic {
        let diag = |a: [f64; 3], b: [f64; 3]| {
            Matrix6::from_diagonal(&Vector6::new(a[0], a[1], a[2], b[0], b[1], b[2]))
        };
        Elastic {
            statement: ElasticStatement::Bushing,
            stiffness: diag(k, kt),
            damping: ElasticDamping::Matrix(diag(c, ct)),
            reference: Vector6::zeros(),
            preload: Vector6::new(
                force[0], force[1], force[2], torque[0], torque[1], torque[2],
            ),
            beam: None,
            formulation: BeamFormulation::Linear,
        }
    }

    /// BEAM, FORMULATION = LINEAR.
    pub fn beam(section: BeamSection, damping: ElasticDamping) -> Elastic {
        let mut reference = Vector6::zeros();
        reference[0] = section.length;
        Elastic {
            statement: ElasticStatement::Beam,
            stiffness: section.stiffness(),
            damping,
            reference,
            preload: Vector6::zeros(),
            beam: Some(section),
            formulation: BeamFormulation::Linear,
        }
    }

    /// The same element with another BEAM FORMULATION.
    pub fn with_formulation(mut self, formulation: BeamFormulation) -> Elastic {
        self.formulation = formulation;
        self
    }

    /// The damping matrix C.
    pub fn damping_matrix(&self) -> Matrix6<f64> {
        match self.damping {
            ElasticDamping::Matrix(c) => c,
            ElasticDamping::Ratio(r) => self.stiffness * r,
        }
    }

    /// The first non-finite parameter, by name, or None.
    pub fn non_finite(&self) -> Option<&'static str> {
        let finite = |m: &[f64]| m.iter().all(|v| v.is_finite());
        if !finite(self.stiffness.as_slice()) {
            return Some("stiffness");
        }
        if !finite(self.damping_matrix().as_slice()) {
            return Some("damping");
        }
        if !finite(self.reference.as_slice()) {
            return Some("free length");
        }
        if !finite(self.preload.as_slice()) {
            return Some("preload");
        }
        None
    }
}

/// Model checks of a BUSHING, FIELD or BEAM: finite parameters, I and J on
/// different parts, a BEAM's section positive where it divides.
pub(crate) fn validate(
    model: &crate::Model,
    e: crate::ElementRef,
    f: &crate::Force,
    el: &Elastic,
) -> Result<(), crate::ModelError> {
    let fail = |message: String| crate::ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    if let Some(what) = el.non_finite() {
        return Err(fail(format!("its {what} is not finite")));
    }
    let part = |m| model.marker(m).map(|m| m.part);
    if let (Some(pi), Some(pj)) = (part(f.i), part(f.j)) {
        if pi == pj {
            return Err(fail(format!(
                "its I (MARKER/{}) and J (MARKER/{}) markers are on the same part {pi}: the element would act on nothing",
                f.i, f.j
            )));
        }
    }
    if el.formulation != BeamFormulation::Linear && el.beam.is_none() {
        return Err(fail(format!(
            "FORMULATION = {} applies to a BEAM only, not to a {}",
            el.formulation.name(),
            el.statement.name()
        )));
    }
    if let Some(s) = &el.beam {
        let shear = s.asy != 0.0 || s.asz != 0.0;
        for (name, v, needed) in [
            ("LENGTH", s.length, true),
            ("AREA", s.area, true),
            ("EMODULUS", s.emodulus, true),
            ("GMODULUS", s.gmodulus, shear),
        ] {
            if needed && (v.is_nan() || v <= 0.0) {
                return Err(fail(format!(
                    "{name} must be positive, found {}",
                    crate::readable(v)
                )));
            }
        }
    }
    Ok(())
}
