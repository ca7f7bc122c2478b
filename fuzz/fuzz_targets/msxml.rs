//! libFuzzer target: the MotionSolve XML reader never panics, whatever the
//! bytes (seed with fuzz/seed.sh: examples/*.xml and crates/msxml/tests/data/*.xml).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = mbsolve_msxml::read_xml_str(&text, "fuzz.xml");
});
