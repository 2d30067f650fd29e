//! The cross-layer signal socket: the emulated radio's signals published
//! on a Unix-domain stream socket as line-delimited JSON, and external
//! signals injected through the same socket, so a real radio stack (e.g.
//! GNU Radio) can drive the hop and, as they land, the schemes.
//!
//! Every line is one JSON object with `"type"`; published lines carry `"t"`,
//! emulation seconds since the start. A client first receives
//! `{"t":..,"type":"hello","version":1,"capacity_bps":N,"blocked":B}`, then:
//!
//! | type | fields | when |
//! |---|---|---|
//! | `pu_start` / `pu_stop` | `cause` | the hop becomes blocked / usable |
//! | `tfp_start` / `tfp_end` | `cause` | a TCP freeze period begins / ends (same edges) |
//! | `capacity` | `bps` | the hop's rate (sent after `hello`) |
//! | `delivered` | `dir`, `flow`, `bytes` | a frame crossed the air (`dir` "down"/"up") |
//! | `undelivered` | `dir`, `flow`, `bytes`, `reason` | a frame was lost on the air: `loss`, `blocked`, `queue_full` |
//!
//! `cause` is `"pu"` for the scenario's availability process,
//! `"external"` for an injected signal and `"end"` when the scenario's end
//! opens the hop. A client may send:
//! `{"type":"pu_start"}` (block the hop now), `{"type":"pu_stop"}` (unblock
//! it now) or `{"type":"release"}` (back to the scenario's process); each
//! is answered `{"type":"ack","cmd":..}` or `{"type":"error","message":..}`
//! and takes effect within 10 ms (the data path's longest sleep). A client
//! that does not keep up loses lines (counted), never slows the data path.

use crate::clock::Clock;
use serde::Serialize;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;
use xltcp_core::time::Time;

/// A signal of the emulated radio.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Signal {
    /// The hop became blocked.
    PuStart {
        /// "pu" or "external".
        cause: &'static str,
    },
    /// The hop became usable.
    PuStop {
        /// "pu" or "external".
        cause: &'static str,
    },
    /// A TCP freeze period begins.
    TfpStart {
        /// "pu" or "external".
        cause: &'static str,
    },
    /// A TCP freeze period ends.
    TfpEnd {
        /// "pu" or "external".
        cause: &'static str,
    },
    /// The hop's rate.
    Capacity {
        /// Bits per second.
        bps: u64,
    },
    /// A frame crossed the air.
    Delivered {
        /// "down" or "up".
        dir: &'static str,
        /// Flow index.
        flow: u32,
        /// IP bytes.
        bytes: u32,
    },
    /// A frame was lost on the air.
    Undelivered {
        /// "down" or "up".
        dir: &'static str,
        /// Flow index.
        flow: u32,
        /// IP bytes.
        bytes: u32,
        /// "loss", "blocked" or "queue_full".
        reason: &'static str,
    },
}

/// A signal injected from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Block the hop now.
    PuStart,
    /// Unblock the hop now.
    PuStop,
    /// Follow the scenario's availability process again.
    Release,
}

/// Reads one client line into a command, or the error message to answer.
pub fn parse_command(line: &str) -> Result<Command, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match v.get("type").and_then(|t| t.as_str()) {
        Some("pu_start") => Ok(Command::PuStart),
        Some("pu_stop") => Ok(Command::PuStop),
        Some("release") => Ok(Command::Release),
        Some(other) => Err(format!(
            "unknown type {other:?}; expected pu_start, pu_stop or release"
        )),
        None => Err("missing \"type\"".into()),
    }
}

/// One published line: `{"t": seconds, ...signal}`.
pub fn line(t: Time, s: &Signal) -> String {
    let mut v = serde_json::to_value(s).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("t".into(), serde_json::json!(t.as_nanos() as f64 / 1e9));
    }
    let mut text = v.to_string();
    text.push('\n');
    text
}

struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
}

/// What the socket thread needs.
pub struct Server<'a> {
    /// Socket path (removed before binding if stale, and at the end).
    pub path: &'a Path,
    /// The emulation clock, for `hello`.
    pub clock: Clock,
    /// The hop's rate.
    pub capacity_bps: u64,
    /// Whether the hop is blocked, for `hello` (kept by the data path).
    pub blocked: &'a AtomicBool,
    /// Signals from the data path.
    pub signals: Receiver<(Time, Signal)>,
    /// Commands to the data path.
    pub commands: Sender<Command>,
    /// Set when the run ends.
    pub stop: &'a AtomicBool,
}

/// Lines lost because a client was not reading.
pub type Lost = u64;

/// Binds the socket; fails if the path is in use by a live listener.
pub fn bind(path: &Path) -> std::io::Result<UnixListener> {
    if UnixStream::connect(path).is_err() {
        let _ = std::fs::remove_file(path);
    }
    let l = UnixListener::bind(path)?;
    l.set_nonblocking(true)?;
    Ok(l)
}

impl Server<'_> {
    /// Serves clients until `stop`; returns the lines lost to slow clients.
    pub fn serve(self, listener: UnixListener) -> Lost {
        let mut clients: Vec<Client> = Vec::new();
        let mut lost = 0;
        while !self.stop.load(Ordering::Acquire) {
            while let Ok((stream, _)) = listener.accept() {
                if let Some(c) = self.welcome(stream) {
                    clients.push(c);
                }
            }
            clients.retain_mut(|c| self.read_commands(c));
            match self.signals.recv_timeout(Duration::from_millis(5)) {
                Ok((t, s)) => {
                    let mut text = line(t, &s);
                    while let Ok((t, s)) = self.signals.try_recv() {
                        text.push_str(&line(t, &s));
                    }
                    clients.retain_mut(|c| match c.stream.write_all(text.as_bytes()) {
                        Ok(()) => true,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {
                            lost += 1;
                            true
                        }
                        Err(_) => false,
                    });
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = std::fs::remove_file(self.path);
        lost
    }

    fn welcome(&self, stream: UnixStream) -> Option<Client> {
        stream.set_nonblocking(true).ok()?;
        let t = self.clock.now();
        let hello = serde_json::json!({
            "t": t.as_nanos() as f64 / 1e9, "type": "hello", "version": 1,
            "capacity_bps": self.capacity_bps, "blocked": self.blocked.load(Ordering::Relaxed),
        });
        let mut text = hello.to_string();
        text.push('\n');
        text.push_str(&line(
            t,
            &Signal::Capacity {
                bps: self.capacity_bps,
            },
        ));
        let mut s = stream;
        // A fresh socket's buffer holds these two lines.
        s.set_nonblocking(false).ok()?;
        s.write_all(text.as_bytes()).ok()?;
        s.set_nonblocking(true).ok()?;
        let reader = BufReader::new(s.try_clone().ok()?);
        Some(Client { stream: s, reader })
    }

    /// Reads waiting command lines; false when the client has gone.
    fn read_commands(&self, c: &mut Client) -> bool {
        let mut text = String::new();
        loop {
            text.clear();
            match c.reader.read_line(&mut text) {
                Ok(0) => return false,
                Ok(_) => {
                    let reply = match parse_command(text.trim()) {
                        Ok(cmd) => {
                            let _ = self.commands.send(cmd);
                            serde_json::json!({"type": "ack", "cmd": text.trim()})
                        }
                        Err(message) => serde_json::json!({"type": "error", "message": message}),
                    };
                    let _ = c.stream.write_all(format!("{reply}\n").as_bytes());
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                Err(_) => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_time_and_type() {
        let l = line(
            Time(1_500_000_000),
            &Signal::Undelivered {
                dir: "down",
                flow: 2,
                bytes: 1500,
                reason: "loss",
            },
        );
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"t": 1.5, "type": "undelivered", "dir": "down", "flow": 2, "bytes": 1500, "reason": "loss"})
        );
        assert!(l.ends_with('\n'));
        let l = line(Time(0), &Signal::TfpStart { cause: "pu" });
        assert_eq!(l, "{\"cause\":\"pu\",\"t\":0.0,\"type\":\"tfp_start\"}\n");
    }

    #[test]
    fn commands_parse_or_say_why_not() {
        assert_eq!(
            parse_command(r#"{"type":"pu_start"}"#),
            Ok(Command::PuStart)
        );
        assert_eq!(parse_command(r#"{"type":"release"}"#), Ok(Command::Release));
        assert!(parse_command(r#"{"type":"jam"}"#)
            .unwrap_err()
            .contains("unknown type"));
        assert!(parse_command("nope").unwrap_err().contains("not JSON"));
    }
}
