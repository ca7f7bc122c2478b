//! Helpers shared by the builder tests: a dataset is a base text plus the
//! statements under test, then END.

#![allow(dead_code)]

use mbsolve_adm::read_adm_str;

/// The model of `base` + `extra`; panics with the reader's message.
pub fn build_on(base: &str, extra: &str) -> mbsolve_model::Model {
    read_adm_str(&format!("{base}{extra}END\n"), "m.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// The reader's message for `base` + `extra`; panics if it builds.
pub fn error_on(base: &str, extra: &str) -> String {
    match read_adm_str(&format!("{base}{extra}END\n"), "m.adm") {
        Ok(_) => panic!("expected an error for {extra:?}"),
        Err(e) => e.to_string(),
    }
}

/// Each (extra statements, exact message) pair.
pub fn expect_errors(base: &str, cases: &[(&str, &str)]) {
    for (extra, want) in cases {
        assert_eq!(error_on(base, extra), *want, "{extra}");
    }
}
