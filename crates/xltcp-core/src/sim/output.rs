//! What a run writes while it runs: per-flow time series (CSV) and packet
//! captures (pcap, one file per link, both directions of a link in one
//! file). Files are streamed, so memory does not grow with the run's length,
//! and bounded: past the run's budget (`[output] max_bytes`) records are
//! counted, not written ([`OutputCut`]).

use super::flow::Flow;
use crate::hop::AirFrame;
use crate::tcp::CongestionState;
use crate::time::Time;
use crate::wire::{Packet, PcapWriter, FULL_SNAPLEN, MIN_SNAPLEN};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Trace sinks of a run. `Output::none()` writes nothing.
pub struct Output {
    series: Vec<BufWriter<File>>,
    /// pcap writer per link index (`None` = not captured).
    pcaps: Vec<Option<usize>>,
    writers: Vec<PcapWriter<BufWriter<File>>>,
    /// `pcap/air.pcap`: the medium with link-layer framing, the IP
    /// snapshot length and a scratch buffer.
    air: Option<(PcapWriter<BufWriter<File>>, usize, Vec<u8>)>,
    sample_interval_s: f64,
    error: Option<io::Error>,
    /// The run's trace budget (`[output] max_bytes`) and what is left of it.
    max_bytes: u64,
    budget: u64,
    /// Where the budget ran out, if it did.
    cut: Option<OutputCut>,
    /// A time-series row being formatted.
    row: String,
}

/// The traces stopped at the budget: when, and what was not written.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct OutputCut {
    /// The budget, bytes.
    pub max_bytes: u64,
    /// Simulated time of the first record not written, seconds.
    pub cut_at_s: f64,
    /// Time-series rows and pcap records not written.
    pub records_not_written: u64,
    /// Signals not logged to `signals.jsonl`.
    pub signals_not_logged: u64,
}

impl Output {
    /// No traces.
    pub fn none() -> Output {
        Output {
            series: Vec::new(),
            pcaps: Vec::new(),
            writers: Vec::new(),
            air: None,
            sample_interval_s: 0.1,
            error: None,
            max_bytes: u64::MAX,
            budget: u64::MAX,
            cut: None,
            row: String::new(),
        }
    }

    /// Limits the traces to `max_bytes` from now on.
    pub fn limit(&mut self, max_bytes: u64) {
        self.max_bytes = max_bytes;
        self.budget = max_bytes;
        self.cut = None;
    }

    /// Whether a record of `bytes` at `t` fits the budget (then it is
    /// charged); counts it as not written otherwise.
    fn admit(&mut self, t: Time, bytes: usize) -> bool {
        let bytes = bytes as u64;
        if self.cut.is_none() && bytes <= self.budget {
            self.budget -= bytes;
            return true;
        }
        self.cut_at(t).records_not_written += 1;
        false
    }

    /// The cut, begun at `t` if it is the first record left out.
    fn cut_at(&mut self, t: Time) -> &mut OutputCut {
        let max_bytes = self.max_bytes;
        self.cut.get_or_insert(OutputCut {
            max_bytes,
            cut_at_s: t.as_secs_f64(),
            ..OutputCut::default()
        })
    }

    /// Counts `n` signals not logged (the signal log is full).
    pub fn signals_not_logged(&mut self, t: Time, n: u64) {
        self.cut_at(t).signals_not_logged += n;
    }

    /// Where the traces stopped, if they did.
    pub fn cut(&self) -> Option<OutputCut> {
        self.cut
    }

    /// Opens `dir/timeseries/<flow>.csv` per flow (when `timeseries`) and,
    /// when `pcap`, `dir/pcap/<name>.pcap` per capture group; `link_groups`
    /// maps each link to its capture group name.
    pub fn create(
        dir: &Path,
        flows: &[String],
        timeseries: bool,
        sample_interval_s: f64,
        pcap: Option<(u32, Vec<String>)>,
    ) -> io::Result<Output> {
        let mut out = Output::none();
        out.sample_interval_s = sample_interval_s;
        if timeseries {
            let ts = dir.join("timeseries");
            std::fs::create_dir_all(&ts)?;
            for name in flows {
                let mut w =
                    BufWriter::new(File::create(ts.join(format!("{}.csv", sanitize(name))))?);
                writeln!(
                    w,
                    "time_s,cwnd_bytes,ssthresh_bytes,srtt_s,rto_s,flight_bytes,snd_max_rel,snd_una_rel,goodput_bps,congestion_state,hop_blocked"
                )?;
                out.series.push(w);
            }
        }
        if let Some((snaplen, groups)) = pcap {
            let pdir = dir.join("pcap");
            std::fs::create_dir_all(&pdir)?;
            let mut names: Vec<&String> = Vec::new();
            for g in &groups {
                let idx = match names.iter().position(|n| *n == g) {
                    Some(i) => i,
                    None => {
                        names.push(g);
                        let path: PathBuf = pdir.join(format!("{}.pcap", sanitize(g)));
                        out.writers.push(PcapWriter::new(
                            BufWriter::new(File::create(path)?),
                            snaplen,
                        )?);
                        names.len() - 1
                    }
                };
                out.pcaps.push(Some(idx));
            }
        }
        Ok(out)
    }

    /// Whether time series are being written.
    pub fn sampling(&self) -> bool {
        !self.series.is_empty()
    }

    /// Whether any link is captured.
    pub fn capturing(&self) -> bool {
        !self.writers.is_empty() || self.air.is_some()
    }

    /// Opens `dir/pcap/air.pcap` in `link_type`, whose records put at most
    /// `header` bytes before an IP datagram cut to `snaplen` (0 = whole).
    pub fn open_air(
        &mut self,
        dir: &Path,
        snaplen: u32,
        (link_type, header): (u32, usize),
    ) -> io::Result<()> {
        let pdir = dir.join("pcap");
        std::fs::create_dir_all(&pdir)?;
        let file = BufWriter::new(File::create(pdir.join("air.pcap"))?);
        let ip = if snaplen == 0 {
            FULL_SNAPLEN
        } else {
            snaplen.clamp(MIN_SNAPLEN, FULL_SNAPLEN)
        };
        let w = PcapWriter::with_link_type(file, ip + header as u32, link_type)?;
        self.air = Some((w, ip as usize, Vec::with_capacity(2048)));
        Ok(())
    }

    /// Records `frame` leaving the air at `t` in `air.pcap`.
    pub fn capture_air(&mut self, t: Time, frame: &AirFrame) {
        let Some((_, ip, buf)) = self.air.as_mut() else {
            return;
        };
        buf.clear();
        let whole = frame.encode(*ip, buf);
        let bytes = 16 + buf.len();
        if !self.admit(t, bytes) {
            return;
        }
        if let Some((w, _, buf)) = self.air.as_mut() {
            if let Err(e) = w.write_frame(t, buf, whole) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Records `p` starting its transmission on `link` at `t`.
    pub fn capture(&mut self, link: usize, t: Time, p: &Packet) {
        if let Some(&Some(w)) = self.pcaps.get(link) {
            let bytes = 16 + p.ip_len().min(self.writers[w].snaplen() as usize);
            if !self.admit(t, bytes) {
                return;
            }
            if let Err(e) = self.writers[w].write_packet(t, p) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Writes one time-series row per flow.
    pub fn sample(&mut self, now: Time, flows: &mut [Flow], hop_blocked: bool) {
        use std::fmt::Write as _;
        let mut row = std::mem::take(&mut self.row);
        for (k, f) in flows.iter_mut().enumerate().take(self.series.len()) {
            let bits = (f.delivered - f.delivered_at_sample) as f64 * 8.0;
            f.delivered_at_sample = f.delivered;
            let ep = f.sender();
            let state = match ep.congestion_state() {
                CongestionState::Open => "open",
                CongestionState::Disorder => "disorder",
                CongestionState::Recovery => "recovery",
                CongestionState::Loss => "loss",
            };
            row.clear();
            let _ = writeln!(
                row,
                "{:.3},{},{},{},{:.6},{},{},{},{:.0},{},{}",
                now.as_secs_f64(),
                ep.cwnd(),
                // Before the first loss there is no threshold: an empty cell,
                // not a sentinel a reader could take for a window.
                Some(ep.ssthresh())
                    .filter(|&s| s != u64::MAX)
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
                ep.srtt()
                    .map(|d| format!("{:.6}", d.as_secs_f64()))
                    .unwrap_or_default(),
                ep.rto().as_secs_f64(),
                ep.flight_size(),
                ep.snd_max().since(f.sender_iss).max(0),
                ep.snd_una().since(f.sender_iss).max(0),
                if now == Time::ZERO {
                    0.0
                } else {
                    bits / self.sample_interval_s
                },
                state,
                hop_blocked as u8
            );
            if !self.admit(now, row.len()) {
                continue;
            }
            if let Err(e) = self.series[k].write_all(row.as_bytes()) {
                self.error.get_or_insert(e);
            }
        }
        self.row = row;
    }

    /// Flushes every file; reports the first error met while writing.
    pub fn finish(&mut self) -> io::Result<()> {
        for w in &mut self.series {
            w.flush()?;
        }
        for w in &mut self.writers {
            w.flush()?;
        }
        if let Some((w, _, _)) = self.air.as_mut() {
            w.flush()?;
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A flow or link name made safe as a file name.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
