//! The argument list of a function parsed in its own module (INTERP,
//! INVPSD, DELAY): the count checked against the usage, the tree depth.

use crate::parse::Node;
use crate::{ExprError, Span};

/// Parsed arguments: (node, tree depth, text span).
pub(crate) type Arg = (Node, u32, Span);

/// The arguments in order with the call's tree depth, or the count error
/// `"<NAME> takes <lo> to <hi> arguments (<usage>), found <n>"`.
pub(crate) fn checked(
    name: &str,
    usage: &str,
    (lo, hi): (usize, usize),
    args: Vec<Arg>,
    full: Span,
) -> Result<(u32, std::vec::IntoIter<Arg>), ExprError> {
    if !(lo..=hi).contains(&args.len()) {
        let count = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} to {hi}")
        };
        return Err(ExprError {
            message: format!(
                "{name} takes {count} arguments ({usage}), found {}",
                args.len()
            ),
            span: full,
        });
    }
    let depth = 1 + args.iter().map(|a| a.1).max().unwrap_or(0);
    Ok((depth, args.into_iter()))
}
