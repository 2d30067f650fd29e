//! Python bindings: the `xltcp._core` extension module.
//!
//! Thin: load and validate a scenario, run it, hand back the summary as
//! JSON. Scenario problems raise `ScenarioError` with the loader's message;
//! anything else raises `RuntimeError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::Path;
use std::time::Instant;
use xltcp_core::radio::wifi::error::{chunk_success_rate, db_to_linear, payload_bits, per};
use xltcp_core::radio::wifi::{ErrorModel, Preamble, Standard, MAX_PSDU_BYTES};
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

/// Every key the scenario loader reads, explored from these scenario files
/// (see `xltcp_core::scenario::catalog`), as JSON.
#[pyfunction]
fn catalog(paths: Vec<String>) -> PyResult<String> {
    let files: Vec<std::path::PathBuf> = paths.into_iter().map(Into::into).collect();
    let keys = scenario::catalog(&files).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    serde_json::to_string(&keys).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Validates a scenario file for an engine (`"sim"`, the default, makes
/// every check `run` makes; `"emu"` only the loader's); returns the
/// scenario echo as JSON.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), engine = "sim"))]
fn validate(path: &str, overrides: Vec<String>, engine: &str) -> PyResult<String> {
    let s = load(path, &overrides)?;
    match engine {
        "sim" => sim::check(&s).map_err(|e| ScenarioError::new_err(format!("{path}: {e}")))?,
        "emu" => {}
        other => {
            return Err(PyValueError::new_err(format!(
                "engine {other:?}: allowed \"sim\", \"emu\""
            )))
        }
    }
    Ok(scenario::echo(&s).to_string())
}

/// The engines' progress callback: `false` (stop) once Python has a
/// pending signal (Ctrl-C) or `progress(done_s, total_s)` raised, the error
/// kept in `interrupted` for the caller to raise.
fn progress_reporter<'a>(
    progress: &'a Option<Py<PyAny>>,
    interrupted: &'a mut Option<PyErr>,
) -> impl FnMut(f64, f64) -> bool + 'a {
    move |done, total| {
        Python::attach(|py| {
            let called = py.check_signals().and_then(|()| match progress {
                Some(cb) => cb.call1(py, (done, total)).map(drop),
                None => Ok(()),
            });
            match called {
                Ok(()) => true,
                Err(e) => {
                    *interrupted = Some(e);
                    false
                }
            }
        })
    }
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
    let mut tick = progress_reporter(&progress, &mut interrupted);
    let mut report = |done: xltcp_core::time::Time, total: xltcp_core::time::Time| {
        tick(done.as_secs_f64(), total.as_secs_f64())
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
    // The reporter borrows `interrupted` until here.
    drop(tick);
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
/// is a Unix-domain socket path for the cross-layer signal socket;
/// `sysctls` are `net.NAME=VALUE` settings for both hosts.
#[pyfunction]
#[pyo3(signature = (path, seed = None, out_dir = None, overrides = Vec::new(), progress = None, cc = None, signals = None, sysctls = Vec::new()))]
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
    sysctls: Vec<String>,
) -> PyResult<String> {
    let s = load(path, &overrides)?;
    let mut interrupted: Option<PyErr> = None;
    let mut report = progress_reporter(&progress, &mut interrupted);
    let result = py.detach(|| {
        xltcp_emu::run(
            &s,
            xltcp_emu::EmuOptions {
                seed,
                out_dir: out_dir.map(Path::new),
                progress: Some(&mut report),
                cc,
                signal_socket: signals.as_deref().map(Path::new),
                sysctls,
                ..Default::default()
            },
        )
    });
    // The reporter borrows `interrupted` until here.
    drop(report);
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

/// Why the emulator would refuse the scenario at `path` with `overrides`
/// (what it does not model, one reason per line), or `None` if it runs it.
/// Does not look at the machine (root, TUN, iperf3): `emu` says that.
/// Raises ScenarioError for an invalid scenario.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
fn emu_refusal(path: &str, overrides: Vec<String>) -> PyResult<Option<String>> {
    let s = load(path, &overrides)?;
    Ok(xltcp_emu::supported(&s).err().map(|e| e.to_string()))
}

// --- 802.11 frame errors ------------------------------------------------------

/// The frame error rate of the 802.11 hop's error model: the probability
/// that a `psdu_bytes`-byte frame sent at `rate_mbps` (a rate of
/// `standard`, "11a" or "11b") is lost at `snr_db` (signal over noise, dB)
/// under `model` ("nist" or "yans"; 11b rates use the DSSS/CCK model
/// either way). With `header` (the default) the PHY header chunk is
/// charged too (what the hop draws per frame); without it, only the
/// payload chunk at the data rate (11a: SERVICE + 8·L + tail bits).
/// `preamble` ("long" or "short") picks the 11b header rate. Raises
/// ValueError for an unknown standard, rate, model or preamble, a size
/// outside 1..=4095 bytes or an SNR that is not a number.
#[pyfunction]
#[pyo3(signature = (standard, rate_mbps, snr_db, psdu_bytes, model = "nist", preamble = "long", header = true))]
fn wifi_per(
    standard: &str,
    rate_mbps: f64,
    snr_db: f64,
    psdu_bytes: i64,
    model: &str,
    preamble: &str,
    header: bool,
) -> PyResult<f64> {
    let std = match standard {
        "11a" => Standard::A11,
        "11b" => Standard::B11,
        _ => {
            return Err(PyValueError::new_err(format!(
                "standard {standard:?}: expected \"11a\" or \"11b\""
            )))
        }
    };
    let Some(&rate) = std
        .rates()
        .iter()
        .find(|r| (r.mbps() - rate_mbps).abs() < 1e-9)
    else {
        let names: Vec<String> = std.rates().iter().map(|r| r.mbps().to_string()).collect();
        return Err(PyValueError::new_err(format!(
            "{rate_mbps} Mbit/s is not a data rate of 802.{standard} (one of {})",
            names.join(", ")
        )));
    };
    let model = match model {
        "nist" => ErrorModel::Nist,
        "yans" => ErrorModel::Yans,
        _ => {
            return Err(PyValueError::new_err(format!(
                "error model {model:?}: expected \"nist\" or \"yans\""
            )))
        }
    };
    let preamble = match preamble {
        "long" => Preamble::Long,
        "short" => Preamble::Short,
        _ => {
            return Err(PyValueError::new_err(format!(
                "preamble {preamble:?}: expected \"long\" or \"short\""
            )))
        }
    };
    if std == Standard::A11 && preamble == Preamble::Short {
        return Err(PyValueError::new_err(
            "802.11a has one PLCP format; the short preamble is 802.11b's",
        ));
    }
    let psdu = match u32::try_from(psdu_bytes) {
        Ok(n) if (1..=MAX_PSDU_BYTES).contains(&n) => n,
        _ => {
            return Err(PyValueError::new_err(format!(
                "psdu_bytes {psdu_bytes}: expected 1 to {MAX_PSDU_BYTES}"
            )))
        }
    };
    if snr_db.is_nan() {
        return Err(PyValueError::new_err("snr_db is not a number"));
    }
    let snr = db_to_linear(snr_db);
    Ok(if header {
        per(model, rate, preamble, snr, psdu)
    } else {
        1.0 - chunk_success_rate(model, rate, snr, payload_bits(rate, psdu))
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("EmuUnavailable", m.py().get_type::<EmuUnavailable>())?;
    m.add("AS_LINUX", xltcp_core::scenario::AS_LINUX.to_vec())?;
    m.add(
        "EMULATED_HOSTS",
        xltcp_core::scenario::EMULATED_HOSTS.to_vec(),
    )?;
    m.add_function(wrap_pyfunction!(emu, m)?)?;
    m.add_function(wrap_pyfunction!(emu_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(wifi_per, m)?)?;
    Ok(())
}
