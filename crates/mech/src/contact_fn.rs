//! CONTACT(id, jflag, comp, rm) read by a force or user-state function:
//! the contact's total force on its I part (jflag 0) or J part (jflag 1),
//! evaluated on demand at the state the function sees, with its exact
//! derivatives on q and u — those of the contact force itself
//! ([`ContactElement::force_jet`], the same ∂F/∂q and ∂F/∂u that go into
//! the contact's own Jacobian, rotation terms included).
//!
//! The run's switches reach the measure through the law's context
//! ([`RunSwitches`] in `StateContext`, filled by [`System::law_context`]):
//! in a kinematic analysis COULOMB_FRICTION = DYNAMICS_ONLY friction is
//! left out, and a DEACTIVATEd CONTACT reads 0 (as the contact applies
//! nothing), as the CONTACT() request does.
//!
//! Not modelled here: rm on a moving part is refused by name (its axes
//! would add rotation terms on a third body).

use crate::contact::ContactElement;
use crate::forces::Law;
use crate::local::{Grad, Jac3, Pose};
use crate::states::StateContext;
use crate::system::{MechData, System};
use mbsolve_model::{ElementRef, Measure, Model, ModelError};
use nalgebra::Matrix3;
use std::sync::Arc;

/// What a function law needs to know of the run evaluating it.
#[derive(Clone, Copy, Debug)]
pub struct RunSwitches<'a> {
    /// A kinematic analysis (`MechData::non_dynamic`): DYNAMICS_ONLY
    /// contact friction is off.
    pub non_dynamic: bool,
    /// Per contact of `System::contacts`: DEACTIVATEd
    /// (`MechData::contacts_off`); empty = all on.
    pub contacts_off: &'a [bool],
}

impl RunSwitches<'_> {
    /// A dynamic analysis with every contact on.
    pub const NONE: RunSwitches<'static> = RunSwitches {
        non_dynamic: false,
        contacts_off: &[],
    };
}

impl System {
    /// The context force and user-state laws are evaluated in: the user
    /// states of `data` and the run's switches.
    pub fn law_context<'a>(&'a self, data: &'a MechData) -> StateContext<'a> {
        let mut st = self.state_context(&data.states);
        st.run = RunSwitches {
            non_dynamic: data.non_dynamic,
            contacts_off: &data.contacts_off,
        };
        st
    }
}

/// A CONTACT(…) measure resolved to its contact and the law's slots.
#[derive(Debug)]
pub struct ContactMeasure {
    /// A copy of the CONTACT (its own narrow-phase buffers).
    contact: ContactElement,
    /// Its index in `System::contacts` (its switch in `contacts_off`).
    index: usize,
    /// The law's slot of the contact's I part (0) and J part (1).
    slots: [usize; 2],
    jflag: u8,
    comp: u8,
    /// The rm marker's axes in ground (identity for rm = 0).
    rm: Matrix3<f64>,
}

impl ContactMeasure {
    /// The component's value with its gradients on the law's 14 local q and u.
    /// A deactivated contact reads 0 with zero gradients.
    pub(crate) fn eval(
        &self,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        run: &RunSwitches,
    ) -> (f64, Grad, Grad) {
        if run.contacts_off.get(self.index) == Some(&true) {
            return (0.0, Grad::zeros(), Grad::zeros());
        }
        let mut cposes = [None, None];
        let mut cul = Grad::zeros();
        for side in 0..2 {
            if self.contact.bodies[side].is_some() {
                let s = self.slots[side];
                cposes[side] = poses[s];
                cul.fixed_rows_mut::<7>(7 * side)
                    .copy_from(&ul.fixed_rows::<7>(7 * s));
            }
        }
        let (f, fq, fu) = self.contact.force_jet(&cposes, &cul, run.non_dynamic);
        let sign = if self.jflag == 0 { -1.0 } else { 1.0 };
        let rt = self.rm.transpose() * sign;
        let (f, fq, fu): (_, Jac3, Jac3) = (rt * f, rt * fq, rt * fu);
        let (val, gq, gu) = match self.comp {
            1 => {
                let m = f.norm();
                if m > 0.0 {
                    let d = f / m;
                    (m, fq.tr_mul(&d), fu.tr_mul(&d))
                } else {
                    // |F| has no derivative at 0: taken as 0 (as VM, WM)
                    (0.0, Grad::zeros(), Grad::zeros())
                }
            }
            c => {
                let a = usize::from(c - 2);
                (f[a], fq.row(a).transpose(), fu.row(a).transpose())
            }
        };
        // back from the contact's sides to the law's slots
        let (mut oq, mut ou) = (Grad::zeros(), Grad::zeros());
        for side in 0..2 {
            if self.contact.bodies[side].is_some() {
                let s = self.slots[side];
                let mut r = oq.fixed_rows_mut::<7>(7 * s);
                r += gq.fixed_rows::<7>(7 * side);
                let mut r = ou.fixed_rows_mut::<7>(7 * s);
                r += gu.fixed_rows::<7>(7 * side);
            }
        }
        (val, oq, ou)
    }
}

/// The moving bodies a CONTACT(id, …) reads (none when `m` is another
/// measure or the contact does not exist).
pub(crate) fn contact_bodies(sys: &System, m: &Measure) -> Vec<usize> {
    let Measure::Contact { id, .. } = *m else {
        return Vec::new();
    };
    sys.contacts
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.bodies.iter().flatten().copied().collect())
        .unwrap_or_default()
}

/// Resolves the CONTACT(…) measures of `law` (element `e`, whose slots
/// hold `bodies`): the contact's parts must be among them.
pub(crate) fn attach(
    sys: &System,
    model: &Model,
    e: ElementRef,
    law: &mut Law,
    bodies: [Option<usize>; 2],
) -> Result<(), ModelError> {
    let Law::Function { measures, .. } = law else {
        return Ok(());
    };
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    for sm in measures.iter_mut() {
        let Measure::Contact {
            id,
            jflag,
            comp,
            rm,
        } = sm.kind
        else {
            continue;
        };
        let index = sys.contacts.iter().position(|c| c.id == id);
        let contact = index.map(|k| &sys.contacts[k]).ok_or_else(|| {
            fail(format!(
                "function refers to CONTACT/{id}, which does not exist"
            ))
        })?;
        let mut slots = [0usize; 2];
        for side in 0..2 {
            if let Some(b) = contact.bodies[side] {
                slots[side] = bodies.iter().position(|x| *x == Some(b)).ok_or_else(|| {
                    fail(format!(
                        "CONTACT({id}, …) reads PART/{}, which is on neither marker of the element; a force function reading a CONTACT between other parts is not supported yet",
                        sys.bodies[b].part
                    ))
                })?;
            }
        }
        let rm_axes = match rm {
            None => Matrix3::identity(),
            Some(r) => {
                let mf = sys.marker(r);
                if mf.body.is_some() {
                    return Err(fail(format!(
                        "CONTACT({id}, {jflag}, {comp}, {r}): rm on a moving part is not supported yet in a force function (use rm = 0 or a ground marker)"
                    )));
                }
                mf.axes
            }
        };
        sm.contact = Some(Arc::new(ContactMeasure {
            contact: contact.clone(),
            index: index.unwrap_or_default(),
            slots,
            jflag,
            comp,
            rm: rm_axes,
        }));
    }
    Ok(())
}
