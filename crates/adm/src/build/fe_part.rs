//! FE_PART, FE_NODE, SECTION and FE_LOAD, and markers on an FE_PART node:
//! refused with what they are and what mbsolve offers instead. An Adams
//! FE_PART (Adams Solver FE_PART statement) is a beam with distributed
//! mass, discretized into finite elements through its FE_NODEs, with
//! SECTION properties per node, in MSC's adaptation of the Absolute Nodal
//! Coordinate Formulation: fully geometrically nonlinear (stretch, shear,
//! bending, torsion), with 3·(4·nodes − 1) coordinates for a 3DBEAM. That
//! is a body with its own nodal coordinates and mass matrix, which
//! mbsolve's rigid bodies do not have. Each statement is refused on its
//! own, so `check` lists all of them at once.

use super::Builder;
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;

/// What an FE part is and what to use instead.
const FE_PART_INSTEAD: &str = "an Adams FE_PART is a nonlinear finite-element beam with distributed mass (ANCF elements through its FE_NODEs, with SECTION properties per node; FE_LOAD loads it), which mbsolve does not model; mbsolve offers BEAM, the massless two-node beam force between two PARTs: model the FE_PART as PARTs at its nodes carrying the beam's mass, joined by BEAMs";

impl Builder<'_> {
    /// FE_PART, FE_NODE, SECTION, FE_LOAD statements.
    pub(super) fn fe_refused(&self, st: &Statement, label: &str, name: &str) -> AdmError {
        self.err(
            st.pos,
            label,
            format!("{name} is not supported: {FE_PART_INSTEAD}"),
        )
    }

    /// A marker with FE_PART = id (and NODE_LABEL) sits on an FE part node.
    pub(super) fn refuse_fe_marker(&self, a: &Args) -> Result<(), AdmError> {
        if a.has("FE_PART") {
            return Err(a.err(
                a.pos_of("FE_PART"),
                format!("a marker on an FE_PART node is not supported: {FE_PART_INSTEAD}"),
            ));
        }
        Ok(())
    }
}
