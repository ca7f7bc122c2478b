use mbsolve_study::changes::{Change, Source};
use mbsolve_study::model_view::{ElementRow, ModelView};
use mbsolve_study::run::StudyError;
use mbsolve_study::Mode;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(
    _core,
    ModelError,
    PyException,
    "A model that cannot be read, changed or assembled; .file, .line (None when unknown) and .element (e.g. 'PART/2', or None) say where."
);

fn model_error(py: Python<'_>, e: StudyError) -> PyErr {
    let err = ModelError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("file", e.file);
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("element", e.element);
    let _ = value.setattr("reason", e.message);
    err
}

type ChangeTuple = (String, String, String);

/// What a run is made of, as `mbsolve.Model.spec()` gives it: a dict of
/// plain strings (adm, adm_name, acf, acf_name) and changes.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Spec {
    adm: String,
    adm_name: String,
    acf: Option<String>,
    acf_name: String,
    changes: Vec<ChangeTuple>,
}

impl Spec {
    fn split(self) -> PyResult<(Source, Vec<Change>)> {
        let changes = self
            .changes
            .into_iter()
            .map(|(e, a, v)| Change::new(&e, &a, &v).map_err(PyValueError::new_err))
            .collect::<PyResult<_>>()?;
        let src = Source {
            adm: self.adm,
            adm_name: self.adm_name,
            acf: self.acf,
            acf_name: self.acf_name,
        };
        Ok((src, changes))
    }
}

/// Check one change's key and value text: (ELEMENT, ARGUMENT, value), or
/// ValueError.
#[pyfunction]
fn parse_change(key: &str, value: &str) -> PyResult<ChangeTuple> {
    let c = Change::parse(key, value).map_err(PyValueError::new_err)?;
    Ok((c.element, c.argument, c.value))
}

fn rows<'py>(py: Python<'py>, rows: &[ElementRow]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in rows {
        let d = PyDict::new(py);
        for (k, v) in &r.fields {
            d.set_item(k, v)?;
        }
        list.append(d)?;
    }
    Ok(list)
}

/// Read, change and assemble a model (a spec dict); returns its inspection as a dict
/// (parts, joints, forces, requests, dof, columns) or raises ModelError.
#[pyfunction]
fn inspect<'py>(py: Python<'py>, spec: Spec) -> PyResult<Bound<'py, PyDict>> {
    let (src, ch) = spec.split()?;
    let view: Result<ModelView, StudyError> =
        py.detach(|| mbsolve_study::load(&src, &ch).map(|l| ModelView::of(&l)));
    let view = view.map_err(|e| model_error(py, e))?;
    let d = PyDict::new(py);
    d.set_item("title", view.title)?;
    d.set_item("parts", rows(py, &view.parts)?)?;
    d.set_item("joints", rows(py, &view.joints)?)?;
    d.set_item("forces", rows(py, &view.forces)?)?;
    d.set_item("requests", rows(py, &view.requests)?)?;
    d.set_item("dof", view.dof)?;
    d.set_item("columns", view.columns)?;
    Ok(d)
}

/// How often a run waiting for the solver re-takes the GIL to look for
/// signals (Ctrl-C): `Python::check_signals` needs the GIL.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Run on a worker thread with the GIL released, re-taking it every
/// SIGNAL_POLL to check for signals. On KeyboardInterrupt (or any signal
/// handler's exception) the solver is asked to stop at its next output
/// frame; the partial outcome comes back with the exception.
fn run_interruptible(
    py: Python<'_>,
    src: &Source,
    ch: &[Change],
) -> (Result<mbsolve_study::RunOutcome, StudyError>, Option<PyErr>) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::channel();
    std::thread::scope(|s| {
        let flag = stop.clone();
        s.spawn(move || {
            let _ = tx.send(mbsolve_study::run(src, ch, Some(flag)));
        });
        let mut interrupt = None;
        loop {
            let (back, got) = py.detach(move || {
                let got = rx.recv_timeout(SIGNAL_POLL);
                (rx, got)
            });
            rx = back;
            match got {
                Ok(outcome) => return (outcome, interrupt),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let e = StudyError {
                        file: src.adm_name.clone(),
                        line: None,
                        element: None,
                        message: "the run ended without a result (internal error)".into(),
                    };
                    return (Err(e), interrupt);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if interrupt.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    interrupt = Some(e);
                }
            }
        }
    })
}

/// Read, change and run a model (a spec dict) with the GIL released. Returns a dict:
/// columns, data (float64 bytes, row-major), rows, log, stats, reports,
/// dof, error (None when the run finished). Raises ModelError when the
/// model cannot be read or assembled. Ctrl-C stops the solver at its next
/// output frame and raises KeyboardInterrupt whose `partial` attribute is
/// the dict of what was computed.
#[pyfunction]
fn run<'py>(py: Python<'py>, spec: Spec) -> PyResult<Bound<'py, PyDict>> {
    let (src, ch) = spec.split()?;
    let (out, interrupt) = run_interruptible(py, &src, &ch);
    let out = out.map_err(|e| model_error(py, e))?;
    let d = outcome_dict(py, out)?;
    if let Some(e) = interrupt {
        let _ = e.value(py).setattr("partial", &d);
        return Err(e);
    }
    Ok(d)
}

fn outcome_dict(py: Python<'_>, out: mbsolve_study::RunOutcome) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let bytes: Vec<u8> = out.data.iter().flat_map(|v| v.to_ne_bytes()).collect();
    d.set_item("rows", out.rows())?;
    d.set_item("data", PyBytes::new(py, &bytes))?;
    d.set_item("columns", out.header)?;
    d.set_item("log", out.log)?;
    d.set_item("reports", out.reports)?;
    d.set_item("dof", out.dof)?;
    d.set_item("error", out.error)?;
    let stats = PyList::empty(py);
    for s in &out.stats {
        let sd = PyDict::new(py);
        sd.set_item("analysis", &s.analysis)?;
        sd.set_item("steps", s.steps)?;
        sd.set_item("rejected_steps", s.rejected_steps)?;
        sd.set_item("jacobian_evaluations", s.jacobian_evaluations)?;
        sd.set_item("corrector_failures", s.corrector_failures)?;
        sd.set_item("residual_evaluations", s.residual_evaluations)?;
        sd.set_item("wall_seconds", s.wall_seconds)?;
        stats.append(sd)?;
    }
    d.set_item("stats", stats)?;
    Ok(d)
}

/// Expand a parameter table [(key, [values])] into variants, each a list
/// of (ELEMENT, ARGUMENT, value); mode "product" or "zip".
#[pyfunction]
fn variants(params: Vec<(String, Vec<String>)>, mode: &str) -> PyResult<Vec<Vec<ChangeTuple>>> {
    let mode: Mode = mode.parse().map_err(PyValueError::new_err)?;
    let v = mbsolve_study::variants(&params, mode).map_err(PyValueError::new_err)?;
    Ok(v.into_iter()
        .map(|cs| {
            cs.into_iter()
                .map(|c| (c.element, c.argument, c.value))
                .collect()
        })
        .collect())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(parse_change, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    Ok(())
}
