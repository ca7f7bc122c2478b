//! ACTIVATE/DEACTIVATE of elements between analyses (Adams commands,
//! MotionSolve `<Activate>`/`<Deactivate>`). A deactivated constraint
//! element (joint, motion, JPRIM, GCON) drops its equations like a
//! redundant one (row Φ_k replaced by λ_k = 0, so the DOF count grows), but
//! is marked in [`MechData::off`] so the redundancy checks neither watch
//! nor reactivate it; a deactivated force adds nothing. The system itself
//! is unchanged: the same equations and forces, the same matrix patterns.

use crate::system::{MechData, Sink, System};
use mbsolve_model::ElementRef;

/// Passes every entry on with value 0: a switched-off force keeps the
/// fixed sparsity pattern the Jacobian users rely on.
pub(crate) struct ZeroSink<'a>(pub &'a mut dyn Sink);

impl Sink for ZeroSink<'_> {
    fn add(&mut self, row: usize, col: usize, _value: f64) {
        self.0.add(row, col, 0.0);
    }
}

/// What [`System::set_element_active`] switched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switched {
    pub equations: usize,
    pub forces: usize,
}

impl MechData {
    /// Whether force element `k` is switched off.
    #[inline]
    pub fn force_is_off(&self, k: usize) -> bool {
        self.forces_off.get(k).copied().unwrap_or(false)
    }

    /// Whether CONTACT `k` (index into `System::contacts`) is switched off.
    #[inline]
    pub fn contact_is_off(&self, k: usize) -> bool {
        self.contacts_off.get(k).copied().unwrap_or(false)
    }

    /// Whether equation `k` belongs to a deactivated element.
    #[inline]
    pub fn equation_is_off(&self, k: usize) -> bool {
        self.off.get(k).copied().unwrap_or(false)
    }
}

impl System {
    /// Switch element `e` on or off: its constraint equations and force
    /// elements. None when the system has neither for `e` (not in the
    /// model, or an element kind that cannot be switched). A reactivated
    /// equation becomes active; the caller re-checks redundancy and
    /// re-assembles before the next analysis.
    pub fn set_element_active(
        &self,
        data: &mut MechData,
        e: ElementRef,
        on: bool,
    ) -> Option<Switched> {
        let mut sw = Switched {
            equations: 0,
            forces: 0,
        };
        // A CONTACT is a force element of its own list (`contact.rs`).
        if let ElementRef::Contact(id) = e {
            for (k, c) in self.contacts.iter().enumerate() {
                if c.id == id {
                    data.contacts_off[k] = !on;
                    sw.forces += 1;
                }
            }
        }
        for (k, eq) in self.equations.iter().enumerate() {
            if eq.element == e {
                data.off[k] = !on;
                data.active[k] = on;
                sw.equations += 1;
            }
        }
        for (k, f) in self.forces.iter().enumerate() {
            if f.element == e {
                data.forces_off[k] = !on;
                sw.forces += 1;
            }
        }
        data.invalidate_cache();
        (sw.equations + sw.forces > 0).then_some(sw)
    }
}
