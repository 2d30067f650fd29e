//! What a run writes while it runs: per-flow time series (CSV) and packet
//! captures (pcap, one file per link, both directions of a link in one
//! file). Files are streamed, so memory does not grow with the run's length.

use super::flow::Flow;
use crate::tcp::CongestionState;
use crate::time::Time;
use crate::wire::{Packet, PcapWriter};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Trace sinks of a run. `Output::none()` writes nothing.
pub struct Output {
    series: Vec<BufWriter<File>>,
    /// pcap writer per link index (`None` = not captured).
    pcaps: Vec<Option<usize>>,
    writers: Vec<PcapWriter<BufWriter<File>>>,
    sample_interval_s: f64,
    error: Option<io::Error>,
}

impl Output {
    /// No traces.
    pub fn none() -> Output {
        Output {
            series: Vec::new(),
            pcaps: Vec::new(),
            writers: Vec::new(),
            sample_interval_s: 0.1,
            error: None,
        }
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
        !self.writers.is_empty()
    }

    /// Records `p` starting its transmission on `link` at `t`.
    pub fn capture(&mut self, link: usize, t: Time, p: &Packet) {
        if let Some(Some(w)) = self.pcaps.get(link) {
            if let Err(e) = self.writers[*w].write_packet(t, p) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Writes one time-series row per flow.
    pub fn sample(&mut self, now: Time, flows: &mut [Flow], hop_blocked: bool) {
        for (f, w) in flows.iter_mut().zip(self.series.iter_mut()) {
            let bits = (f.delivered - f.delivered_at_sample) as f64 * 8.0;
            f.delivered_at_sample = f.delivered;
            let ep = f.sender();
            let state = match ep.congestion_state() {
                CongestionState::Open => "open",
                CongestionState::Disorder => "disorder",
                CongestionState::Recovery => "recovery",
                CongestionState::Loss => "loss",
            };
            let r = writeln!(
                w,
                "{:.3},{},{},{},{:.6},{},{},{},{:.0},{},{}",
                now.as_secs_f64(),
                ep.cwnd(),
                ep.ssthresh().min(u32::MAX as u64),
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
            if let Err(e) = r {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Flushes every file; reports the first error met while writing.
    pub fn finish(&mut self) -> io::Result<()> {
        for w in &mut self.series {
            w.flush()?;
        }
        for w in &mut self.writers {
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
