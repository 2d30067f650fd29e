//! Python bindings: the `xltcp._core` extension module.
//!
//! Thin: load and validate a scenario, run it, hand back the summary as
//! JSON. Scenario problems raise `ScenarioError` with the loader's message;
//! anything else raises `RuntimeError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use std::path::Path;
use std::time::Instant;
use xltcp_core::{scenario, sim};

create_exception!(
    _core,
    ScenarioError,
    PyException,
    "A scenario file or override is invalid."
);
create_exception!(
    _core,
    EmuUnavailable,
    PyException,
    "The emulator cannot run here (not root, no /dev/net/tun, no `ip netns`, no iperf3) or cannot run this scenario."
);

fn load(path: &str, overrides: &[String]) -> PyResult<scenario::Scenario> {
    scenario::load_file(Path::new(path), overrides)
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// The version of the core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Validates a scenario file; returns the scenario echo as JSON.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
fn validate(path: &str, overrides: Vec<String>) -> PyResult<String> {
    let s = load(path, &overrides)?;
    Ok(scenario::echo(&s).to_string())
}

/// Runs a scenario; returns the summary as JSON.
#[pyfunction]
#[pyo3(signature = (path, seed = None, out_dir = None, overrides = Vec::new(), progress = None))]
fn run(
    py: Python<'_>,
    path: &str,
    seed: Option<u64>,
    out_dir: Option<&str>,
    overrides: Vec<String>,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let s = load(path, &overrides)?;
    let epoch = {
        // The engine is sans-IO; the binding supplies the wall clock.
        #[allow(clippy::disallowed_methods)]
        Instant::now()
    };
    let clock = move || epoch.elapsed().as_secs_f64();
    let mut interrupted: Option<PyErr> = None;
    let mut report = |done: xltcp_core::time::Time, total: xltcp_core::time::Time| -> bool {
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                interrupted = Some(e);
                return false;
            }
            if let Some(cb) = &progress {
                if let Err(e) = cb.call1(py, (done.as_secs_f64(), total.as_secs_f64())) {
                    interrupted = Some(e);
                    return false;
                }
            }
            true
        })
    };
    let result = py.detach(|| {
        sim::run(
            &s,
            sim::RunOptions {
                seed,
                out_dir: out_dir.map(Path::new),
                progress: Some(&mut report),
                wall_clock: Some(&clock),
            },
        )
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    match result {
        Ok(summary) => serde_json::to_string_pretty(&summary)
            .map_err(|e| PyRuntimeError::new_err(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
            Err(PyKeyboardInterrupt::new_err("interrupted"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {
            Err(ScenarioError::new_err(format!("{path}: {e}")))
        }
        Err(e) => Err(PyRuntimeError::new_err(match out_dir {
            Some(d) => format!("{d}: {e}"),
            None => e.to_string(),
        })),
    }
}

// --- The emulator -----------------------------------------------------------

/// Runs a scenario through the real-time emulator (real Linux TCP in
/// network namespaces); returns the summary as JSON. `cc` replaces every
/// flow's congestion control with a Linux one (e.g. "cubic"); `signals`
/// is a Unix-domain socket path for the cross-layer signal socket.
#[pyfunction]
#[pyo3(signature = (path, seed = None, out_dir = None, overrides = Vec::new(), progress = None, cc = None, signals = None))]
#[allow(clippy::too_many_arguments)]
fn emu(
    py: Python<'_>,
    path: &str,
    seed: Option<u64>,
    out_dir: Option<&str>,
    overrides: Vec<String>,
    progress: Option<Py<PyAny>>,
    cc: Option<String>,
    signals: Option<String>,
) -> PyResult<String> {
    let s = load(path, &overrides)?;
    let mut interrupted: Option<PyErr> = None;
    let mut report = |done: f64, total: f64| -> bool {
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                interrupted = Some(e);
                return false;
            }
            if let Some(cb) = &progress {
                if let Err(e) = cb.call1(py, (done, total)) {
                    interrupted = Some(e);
                    return false;
                }
            }
            true
        })
    };
    let result = py.detach(|| {
        xltcp_emu::run(
            &s,
            xltcp_emu::EmuOptions {
                seed,
                out_dir: out_dir.map(Path::new),
                progress: Some(&mut report),
                cc,
                signal_socket: signals.as_deref().map(Path::new),
                ..Default::default()
            },
        )
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    use xltcp_emu::EmuError;
    match result {
        Ok(summary) => serde_json::to_string_pretty(&summary)
            .map_err(|e| PyRuntimeError::new_err(e.to_string())),
        Err(e @ (EmuError::Unavailable(_) | EmuError::Unsupported(_))) => {
            Err(EmuUnavailable::new_err(e.to_string()))
        }
        Err(EmuError::Interrupted) => Err(PyKeyboardInterrupt::new_err("interrupted")),
        Err(e) => Err(PyRuntimeError::new_err(e.to_string())),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("EmuUnavailable", m.py().get_type::<EmuUnavailable>())?;
    m.add_function(wrap_pyfunction!(emu, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
