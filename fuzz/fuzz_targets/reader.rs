//! Arbitrary bytes (decoded lossily, as `read_adm` does with a file) to
//! the dataset reader (parse, build, validate) and the command-file reader.
//! Any panic is a bug: bad input must give an error naming file and line.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match mbsolve_adm::read_adm_full(&text, "fuzz.adm") {
        Ok(read) => {
            if let Err(e) = mbsolve_model::validate(&read.model) {
                let _ = e.to_string();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    if let Err(e) = mbsolve_adm::read_acf_str(&text, "fuzz.acf") {
        let _ = e.to_string();
    }
});
