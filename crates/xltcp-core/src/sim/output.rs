//! What a run writes while it runs: per-flow time series (CSV) and packet
//! captures (pcapng, one file per link, both directions of a link in one
//! file, each direction and capture point an interface of its own). Files
//! are streamed, so memory does not grow with the run's length, and
//! bounded: past the run's budget (`[output] max_bytes`) records are
//! counted, not written ([`OutputCut`]).
//!
//! Capture points (`[output] pcap_point`): at the sender a packet is
//! recorded as its transmission starts (interface `<link>.tx`), so a frame
//! later lost on the air is in the capture; at the receiver as it arrives
//! at the far end (`<link>.rx`). A drop (a full queue, a frame lost on the
//! air or to a blockage, a MAC giving up) adds a record of the dropped
//! packet at the time of the drop, on the direction's first interface,
//! with the reason as the record's comment (`xltcp drop: ...`): Wireshark
//! shows it as the packet comment and filters it with `frame.comment`.
//!
//! Congestion events (`events.csv`, with the time series): each flow
//! sender's retransmission timeouts, fast retransmits (entries into fast
//! recovery) and ends of recovery, and the wireless hop's blockages, each
//! at the simulated instant it happened ([`Output::watch`],
//! [`Output::hop_blocked`]). The sender's own counters and state are read
//! after every input the world gives it, so TCP reports nothing new. At
//! most [`EVENTS_MAX`] lines are kept (the rest are counted in the cut).

use super::flow::Flow;
use crate::hop::{AirFrame, HopDrop};
use crate::net::link::DropReason;
use crate::scenario::{CapturePoint, DEFAULT_SNAPLEN};
use crate::signal::UndeliveredReason;
use crate::tcp::{CongestionState, Endpoint};
use crate::time::Time;
use crate::wire::{
    epb_len, Interface, Packet, PcapngWriter, FULL_SNAPLEN, LINKTYPE_RAW, MIN_SNAPLEN,
};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Trace sinks of a run. `Output::none()` writes nothing.
pub struct Output {
    series: Vec<BufWriter<File>>,
    /// Capture interfaces per capture index (`None` = not captured).
    points: Vec<Option<LinkCapture>>,
    writers: Vec<PcapngWriter<BufWriter<File>>>,
    /// `pcap/air.pcapng`: the medium with link-layer framing.
    air: Option<AirCapture>,
    sample_interval_s: f64,
    error: Option<io::Error>,
    /// The run's trace budget (`[output] max_bytes`) and what is left of it.
    max_bytes: u64,
    budget: u64,
    /// Where the budget ran out, if it did.
    cut: Option<OutputCut>,
    /// A time-series row being formatted.
    row: String,
    /// `events.csv`, when time series are written.
    events: Option<EventLog>,
}

/// The most lines a run writes to `events.csv`; the rest are counted
/// ([`OutputCut::events_not_logged`]).
pub const EVENTS_MAX: u64 = 1 << 20;

/// The header line of `events.csv`.
pub const EVENTS_HEADER: &str = "time_s,flow,event,cwnd_bytes,ssthresh_bytes,rto_s";

/// `events.csv`: its file, what was last seen of each flow's sender, and
/// how many lines it may still take.
struct EventLog {
    w: BufWriter<File>,
    /// The flows' names as written (sanitised for CSV: no commas, quotes
    /// or line breaks).
    names: Vec<String>,
    seen: Vec<Seen>,
    /// Whether the hop is blocked, as last recorded.
    blocked: bool,
    /// Lines still allowed ([`EVENTS_MAX`] or [`Output::limit_events`]).
    left: u64,
    line: String,
}

/// A sender's counters and state as last seen.
#[derive(Clone, Copy, Debug)]
struct Seen {
    rtos: u64,
    fast: u64,
    state: CongestionState,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            rtos: 0,
            fast: 0,
            state: CongestionState::Open,
        }
    }
}

/// What `events.csv` records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventKind {
    Rto,
    FastRetransmit,
    RecoveryEnd,
    LossEnd,
    HopBlocked,
    HopUnblocked,
}

impl EventKind {
    fn name(self) -> &'static str {
        match self {
            EventKind::Rto => "rto",
            EventKind::FastRetransmit => "fast_retransmit",
            EventKind::RecoveryEnd => "recovery_end",
            EventKind::LossEnd => "loss_end",
            EventKind::HopBlocked => "hop_blocked",
            EventKind::HopUnblocked => "hop_unblocked",
        }
    }
}

/// The capture of the medium: its file, its interface, the IP snapshot
/// length and a scratch buffer.
type AirCapture = (PcapngWriter<BufWriter<File>>, Interface, usize, Vec<u8>);

/// Where one link direction is captured: its file and interfaces.
#[derive(Clone, Copy, Debug)]
struct LinkCapture {
    file: usize,
    tx: Option<Interface>,
    rx: Option<Interface>,
}

/// One link direction to capture: the file (group) it goes to and the
/// link's name, which names its interfaces.
#[derive(Clone, Debug)]
pub struct CaptureSpec {
    /// The file's name without extension (`wired-<flow>`, `wireless`).
    pub file: String,
    /// The link direction's name (`ch0-bs`, `bs-air`, ...).
    pub link: String,
}

/// The IP snapshot length of `[output] pcap_snaplen` (0 = the default).
pub fn ip_snaplen(snaplen: u32) -> u32 {
    match snaplen {
        0 => DEFAULT_SNAPLEN,
        n => n.clamp(MIN_SNAPLEN, FULL_SNAPLEN),
    }
}

/// Declares a link's capture interfaces in `w` for `point`: `<link>.tx`
/// (records as each transmission starts) and `<link>.rx` (as each packet
/// arrives), each described as `"<owner> <link>: ..."`. Both engines name
/// their interfaces this way; returns the ids of those declared.
pub fn add_link_interfaces<W: Write>(
    w: &mut PcapngWriter<W>,
    owner: &str,
    link: &str,
    point: CapturePoint,
    snaplen: u32,
) -> io::Result<(Option<Interface>, Option<Interface>)> {
    let mut add = |side: &str, what: &str| {
        w.add_interface(
            &format!("{link}.{side}"),
            &format!("{owner} {link}: {what}"),
            LINKTYPE_RAW as u16,
            snaplen,
        )
    };
    let tx = point
        .sender()
        .then(|| add("tx", "at the sender, as each transmission starts"))
        .transpose()?;
    let rx = point
        .receiver()
        .then(|| add("rx", "at the receiver, as each packet arrives"))
        .transpose()?;
    Ok((tx, rx))
}

/// The comment of a drop's record.
pub fn drop_comment(why: HopDrop) -> &'static str {
    match why {
        HopDrop::Link(DropReason::QueueFull) => "xltcp drop: queue full",
        HopDrop::Link(DropReason::Loss) => "xltcp drop: lost on the air",
        HopDrop::Link(DropReason::Blocked) => {
            "xltcp drop: lost to a blockage of the channel during its airtime"
        }
        HopDrop::Mac(UndeliveredReason::RetryLimit) => {
            "xltcp drop: the MAC gave up after its retry limit"
        }
        HopDrop::Mac(UndeliveredReason::ChannelAccessFailure) => {
            "xltcp drop: the MAC found the channel busy too often (channel access failure)"
        }
        HopDrop::Mac(UndeliveredReason::QueueFull) => "xltcp drop: MAC queue full",
        HopDrop::Mac(UndeliveredReason::FrameTooLong) => "xltcp drop: frame too long for the PHY",
        HopDrop::Mac(UndeliveredReason::Flushed) => {
            "xltcp drop: cleared from the MAC queue when the radio retuned"
        }
    }
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
    /// Lines not written to `events.csv` (past [`EVENTS_MAX`] or the
    /// budget).
    pub events_not_logged: u64,
}

impl Output {
    /// No traces.
    pub fn none() -> Output {
        Output {
            series: Vec::new(),
            points: Vec::new(),
            writers: Vec::new(),
            air: None,
            sample_interval_s: 0.1,
            error: None,
            max_bytes: u64::MAX,
            budget: u64::MAX,
            cut: None,
            row: String::new(),
            events: None,
        }
    }

    /// Limits the traces to `max_bytes` from now on.
    pub fn limit(&mut self, max_bytes: u64) {
        self.max_bytes = max_bytes;
        self.budget = max_bytes;
        self.cut = None;
    }

    /// Sets `bytes` of the budget aside for the files a run writes outside
    /// it ([`super::reserved_bytes`]); none is left when they take it all.
    pub fn reserve(&mut self, bytes: u64) {
        self.budget = self.budget.saturating_sub(bytes);
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

    /// Keeps at most `n` lines of `events.csv` from now on (default
    /// [`EVENTS_MAX`]).
    pub fn limit_events(&mut self, n: u64) {
        if let Some(log) = self.events.as_mut() {
            log.left = n;
        }
    }

    /// Whether a line of `bytes` in `signals.jsonl` at `t` fits the budget
    /// the traces share (then it is charged); counts it as not logged
    /// otherwise. `[output] max_bytes` bounds all a run writes together.
    pub fn admit_signal(&mut self, t: Time, bytes: usize) -> bool {
        let bytes = bytes as u64;
        if self.cut.is_none() && bytes <= self.budget {
            self.budget -= bytes;
            return true;
        }
        self.signals_not_logged(t, 1);
        false
    }

    /// Where the traces stopped, if they did.
    pub fn cut(&self) -> Option<OutputCut> {
        self.cut
    }

    /// Opens `dir/timeseries/<flow>.csv` per flow (when `timeseries`).
    /// Captures are opened by [`Output::open_pcaps`].
    pub fn create(
        dir: &Path,
        flows: &[String],
        timeseries: bool,
        sample_interval_s: f64,
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
            let mut w = BufWriter::new(File::create(dir.join("events.csv"))?);
            writeln!(w, "{EVENTS_HEADER}")?;
            out.events = Some(EventLog {
                w,
                names: flows.iter().map(|n| csv_name(n)).collect(),
                seen: vec![Seen::default(); flows.len()],
                blocked: false,
                left: EVENTS_MAX,
                line: String::with_capacity(128),
            });
        }
        Ok(out)
    }

    /// Records what flow `flow`'s sender (of `f`) did since it was last seen:
    /// a retransmission timeout, a fast retransmit (entry into fast
    /// recovery), the end of fast recovery or of RTO recovery (back to
    /// open or disorder), each as a line of `events.csv` at `now`. The
    /// world calls it after every input it gives a flow's endpoints
    /// (`World::pump`), so `now` is the instant of the event. Cheap when
    /// nothing changed.
    #[inline]
    pub fn watch(&mut self, now: Time, flow: usize, f: &Flow) {
        if self.events.is_some() {
            self.watch_sender(now, flow, f);
        }
    }

    /// [`Output::watch`] with `events.csv` open: out of line, so that the
    /// per-packet path without an output folder carries one test.
    #[inline(never)]
    fn watch_sender(&mut self, now: Time, flow: usize, f: &Flow) {
        let Some(log) = self.events.as_mut() else {
            return;
        };
        let ep = f.sender();
        let Some(seen) = log.seen.get(flow).copied() else {
            return;
        };
        let (rtos, fast) = (ep.stats().rto_count, ep.stats().fast_retransmits);
        let state = ep.congestion_state();
        if rtos == seen.rtos && fast == seen.fast && state == seen.state {
            return;
        }
        log.seen[flow] = Seen { rtos, fast, state };
        let recovering = |s| matches!(s, CongestionState::Recovery | CongestionState::Loss);
        let end = match seen.state {
            CongestionState::Recovery => EventKind::RecoveryEnd,
            _ => EventKind::LossEnd,
        };
        if recovering(seen.state) && !recovering(state) {
            self.event(now, Some((flow, ep)), end);
        }
        for _ in seen.fast..fast {
            self.event(now, Some((flow, ep)), EventKind::FastRetransmit);
        }
        for _ in seen.rtos..rtos {
            self.event(now, Some((flow, ep)), EventKind::Rto);
        }
    }

    /// Records that the wireless hop became blocked (`blocked`) or usable
    /// at `now` in `events.csv` (a change only: a repeated state adds no
    /// line).
    pub fn hop_blocked(&mut self, now: Time, blocked: bool) {
        match self.events.as_mut() {
            Some(log) if log.blocked != blocked => log.blocked = blocked,
            _ => return,
        }
        let kind = if blocked {
            EventKind::HopBlocked
        } else {
            EventKind::HopUnblocked
        };
        self.event(now, None, kind);
    }

    /// Writes one line of `events.csv`: a flow's event with its sender's
    /// cwnd, ssthresh and RTO after it, or the hop's (no flow).
    fn event(&mut self, now: Time, flow: Option<(usize, &Endpoint)>, kind: EventKind) {
        use std::fmt::Write as _;
        let Some(log) = self.events.as_mut() else {
            return;
        };
        if log.left == 0 {
            self.cut_at(now).events_not_logged += 1;
            return;
        }
        let mut line = std::mem::take(&mut log.line);
        line.clear();
        // Nanoseconds, exactly: `Time` counts them.
        let ns = now.as_nanos();
        let _ = write!(line, "{}.{:09},", ns / 1_000_000_000, ns % 1_000_000_000);
        match flow {
            Some((k, ep)) => {
                let _ = write!(line, "{},{},{},", log.names[k], kind.name(), ep.cwnd());
                if ep.ssthresh() != u64::MAX {
                    let _ = write!(line, "{}", ep.ssthresh());
                }
                let _ = writeln!(line, ",{:.6}", ep.rto().as_secs_f64());
            }
            None => {
                let _ = writeln!(line, ",{},,,", kind.name());
            }
        }
        let bytes = line.len() as u64;
        let fits = self.cut.is_none() && bytes <= self.budget;
        let log = self.events.as_mut().expect("checked above");
        if fits {
            self.budget -= bytes;
            log.left -= 1;
            if let Err(e) = log.w.write_all(line.as_bytes()) {
                self.error.get_or_insert(e);
            }
        }
        log.line = line;
        if !fits {
            self.cut_at(now).events_not_logged += 1;
        }
    }

    /// Opens `dir/pcap/<file>.pcapng` per capture group: `points[i]` is
    /// capture index `i` (the wired links in order, then the hop's down and
    /// up directions), each given a `<link>.tx` and/or `<link>.rx`
    /// interface as `point` asks, with the IP snapshot length of
    /// `snaplen` ([`ip_snaplen`]).
    pub fn open_pcaps(
        &mut self,
        dir: &Path,
        snaplen: u32,
        point: CapturePoint,
        points: &[CaptureSpec],
    ) -> io::Result<()> {
        let pdir = dir.join("pcap");
        std::fs::create_dir_all(&pdir)?;
        let snaplen = ip_snaplen(snaplen);
        let mut names: Vec<&str> = Vec::new();
        for spec in points {
            let file = match names.iter().position(|n| *n == spec.file) {
                Some(i) => i,
                None => {
                    names.push(&spec.file);
                    let path = pdir.join(format!("{}.pcapng", sanitize(&spec.file)));
                    self.writers
                        .push(PcapngWriter::new(BufWriter::new(File::create(path)?))?);
                    names.len() - 1
                }
            };
            let w = &mut self.writers[file];
            let (tx, rx) = add_link_interfaces(w, "xltcp link", &spec.link, point, snaplen)?;
            self.points.push(Some(LinkCapture { file, tx, rx }));
        }
        Ok(())
    }

    /// Whether time series are being written.
    pub fn sampling(&self) -> bool {
        !self.series.is_empty()
    }

    /// Whether any link is captured.
    pub fn capturing(&self) -> bool {
        !self.writers.is_empty() || self.air.is_some()
    }

    /// Opens `dir/pcap/air.pcapng` in `link_type` (one interface, `air`),
    /// whose records put at most `header` bytes before an IP datagram cut
    /// to `snaplen` ([`ip_snaplen`]).
    pub fn open_air(
        &mut self,
        dir: &Path,
        snaplen: u32,
        (link_type, header): (u32, usize),
    ) -> io::Result<()> {
        let pdir = dir.join("pcap");
        std::fs::create_dir_all(&pdir)?;
        let file = BufWriter::new(File::create(pdir.join("air.pcapng"))?);
        let ip = ip_snaplen(snaplen);
        let mut w = PcapngWriter::new(file)?;
        let iface = w.add_interface(
            "air",
            "xltcp: the medium, every frame with its link-layer header as it leaves the air",
            link_type as u16,
            ip + header as u32,
        )?;
        self.air = Some((w, iface, ip as usize, Vec::with_capacity(2048)));
        Ok(())
    }

    /// Records `frame` leaving the air at `t` in `air.pcapng`.
    pub fn capture_air(&mut self, t: Time, frame: &AirFrame) {
        let Some((_, _, ip, buf)) = self.air.as_mut() else {
            return;
        };
        buf.clear();
        let whole = frame.encode(*ip, buf);
        let bytes = epb_len(buf.len(), None);
        if !self.admit(t, bytes) {
            return;
        }
        if let Some((w, iface, _, buf)) = self.air.as_mut() {
            if let Err(e) = w.write_frame(*iface, t, buf, whole, None) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Records `p` starting its transmission on capture index `link` at
    /// `t` (sender point).
    pub fn capture(&mut self, link: usize, t: Time, p: &Packet) {
        if let Some(&Some(c)) = self.points.get(link) {
            if let Some(iface) = c.tx {
                self.record(c.file, iface, t, p, None);
            }
        }
    }

    /// Records `p` arriving at the far end of capture index `link` at `t`
    /// (receiver point).
    pub fn capture_rx(&mut self, link: usize, t: Time, p: &Packet) {
        if let Some(&Some(c)) = self.points.get(link) {
            if let Some(iface) = c.rx {
                self.record(c.file, iface, t, p, None);
            }
        }
    }

    /// Records `p` dropped on capture index `link` at `t` for `why`: on
    /// the sender interface if there is one, else the receiver's, with the
    /// reason as its comment.
    pub fn capture_drop(&mut self, link: usize, t: Time, p: &Packet, why: HopDrop) {
        if let Some(&Some(c)) = self.points.get(link) {
            if let Some(iface) = c.tx.or(c.rx) {
                self.record(c.file, iface, t, p, Some(drop_comment(why)));
            }
        }
    }

    fn record(&mut self, file: usize, iface: Interface, t: Time, p: &Packet, c: Option<&str>) {
        let w = &self.writers[file];
        let captured = p.ip_len().min(w.snaplen(iface) as usize);
        if !self.admit(t, epb_len(captured, c.map(str::len))) {
            return;
        }
        if let Err(e) = self.writers[file].write_packet(iface, t, p, c) {
            self.error.get_or_insert(e);
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
                ep.snd_max_rel(),
                ep.snd_una_rel(),
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
        if let Some(log) = self.events.as_mut() {
            log.w.flush()?;
        }
        if let Some((w, _, _, _)) = self.air.as_mut() {
            w.flush()?;
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A flow's name made safe as a CSV cell: no commas, quotes or line
/// breaks (each becomes `_`).
fn csv_name(name: &str) -> String {
    name.chars()
        .map(|c| if ",\"\r\n".contains(c) { '_' } else { c })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xltcp-events-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn events_past_the_cap_are_counted_not_written() {
        let dir = folder("cap");
        let mut out = Output::create(&dir, &["a".into()], true, 0.1).unwrap();
        out.limit_events(3);
        for k in 1..=8u64 {
            out.hop_blocked(Time::ZERO + crate::time::Dur::from_millis(k), k % 2 == 1);
        }
        out.finish().unwrap();
        let text = std::fs::read_to_string(dir.join("events.csv")).unwrap();
        assert_eq!(
            text,
            format!(
                "{EVENTS_HEADER}\n0.001000000,,hop_blocked,,,\n\
                 0.002000000,,hop_unblocked,,,\n0.003000000,,hop_blocked,,,\n"
            )
        );
        let cut = out.cut().expect("events were left out");
        assert_eq!(cut.events_not_logged, 5);
        assert_eq!(cut.cut_at_s, 0.004);
        assert_eq!(cut.records_not_written, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn events_share_the_budget_and_repeats_add_nothing() {
        let dir = folder("budget");
        let mut out = Output::create(&dir, &["a".into()], true, 0.1).unwrap();
        out.limit(60);
        out.hop_blocked(Time::ZERO, true);
        out.hop_blocked(Time::ZERO + crate::time::Dur::from_millis(5), true);
        out.hop_blocked(Time::ZERO + crate::time::Dur::from_secs(1), false);
        out.hop_blocked(Time::ZERO + crate::time::Dur::from_secs(2), true);
        out.finish().unwrap();
        let text = std::fs::read_to_string(dir.join("events.csv")).unwrap();
        // Lines of 28 and 30 bytes: the third is over the 60 (the header
        // is in the run's reserve).
        assert_eq!(text.lines().count(), 3, "{text}");
        assert_eq!(out.cut().unwrap().events_not_logged, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_are_safe_csv_cells() {
        assert_eq!(csv_name("a,b\"c\nd"), "a_b_c_d");
        assert_eq!(csv_name("up-1"), "up-1");
    }
}
