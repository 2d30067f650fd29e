//! Packet captures at the base station, in the simulator's pcapng layout
//! (`[output] pcap = true`): `pcap/wired-<flow>.pcapng` per flow's access
//! link and `pcap/wireless.pcapng` for the hop, both directions of a link
//! in one file, each direction and capture point an interface of its own
//! named after the link (`ch0-bs.tx`, `bs-air.rx`, ...), nanosecond
//! timestamps of emulation time (zero at the start). The records are the
//! real datagrams, cut to the scenario's snapshot length (128 bytes by
//! default, as in the simulator: the IPv4 and TCP headers whole).
//!
//! `[output] pcap_point` as in the simulator: at the sender a datagram is
//! recorded as its transmission starts on the link, at the receiver as it
//! arrives at the far end. A drop (a full queue, a frame lost on the air or
//! to a blockage, a MAC giving up) adds a record of the dropped datagram at
//! its time, on the direction's first interface, with the simulator's
//! reason as its comment (`xltcp drop: ...`). Datagrams the base station
//! refused go to `pcap/rejected.pcapng` (created on the first one), on an
//! interface per side (`from-ch`, `from-sh`), the reason as the comment.
//!
//! The files share the run's trace budget (`[output] max_bytes`) with the
//! time series: past it, records are counted, not written.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use xltcp_core::hop::HopDrop;
use xltcp_core::scenario::CapturePoint;
use xltcp_core::sim::flow::Side;
use xltcp_core::sim::output::{add_link_interfaces, drop_comment, ip_snaplen, sanitize};
use xltcp_core::time::Time;
use xltcp_core::wire::{epb_len, Interface, PcapngWriter, LINKTYPE_RAW};

type Writer = PcapngWriter<BufWriter<File>>;

/// The bytes a run's traces (captures and time series, written from
/// different threads) may still take: `[output] max_bytes` at the start.
#[derive(Clone, Debug)]
pub struct TraceBudget(Arc<AtomicU64>);

impl TraceBudget {
    /// A budget of `max_bytes`.
    pub fn new(max_bytes: u64) -> Self {
        TraceBudget(Arc::new(AtomicU64::new(max_bytes)))
    }

    /// Takes `bytes` from the budget if that many are left.
    pub fn take(&self, bytes: u64) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }
}

/// Where one link direction is recorded: its file and interfaces.
#[derive(Clone, Copy, Debug)]
struct Point {
    file: usize,
    tx: Option<Interface>,
    rx: Option<Interface>,
}

/// The open capture files.
#[derive(Debug)]
pub struct Captures {
    /// Per link index (the hop's layout), where it is recorded.
    points: Vec<Point>,
    writers: Vec<Writer>,
    /// `rejected.pcapng` and its two interfaces (from the CH, from the SH).
    rejected: Option<(Writer, [Interface; 2])>,
    dir: PathBuf,
    snaplen: u32,
    /// Bytes the run's traces may still take.
    budget: TraceBudget,
    /// Records past the budget, not written.
    pub not_written: u64,
    error: Option<io::Error>,
}

/// The reason comment of a refused datagram.
fn reject_comment(why: &str) -> String {
    format!("xltcp refused: {why}")
}

impl Captures {
    /// Opens `dir/pcap/*.pcapng` for `flows` (names in scenario order),
    /// whose links are named `links` (the hop's layout: per flow its
    /// uplink and downlink, then the wireless down and up directions),
    /// recording at `point` with IP snapshot length `snaplen` (0 = the
    /// default, 128 bytes) within `budget`.
    pub fn create(
        dir: &Path,
        flows: &[String],
        links: &[String],
        point: CapturePoint,
        snaplen: u32,
        budget: TraceBudget,
    ) -> io::Result<Captures> {
        let snaplen = ip_snaplen(snaplen);
        let pdir = dir.join("pcap");
        std::fs::create_dir_all(&pdir)?;
        let mut c = Captures {
            points: Vec::new(),
            writers: Vec::new(),
            rejected: None,
            dir: pdir.clone(),
            snaplen,
            budget,
            not_written: 0,
            error: None,
        };
        let files: Vec<String> = flows
            .iter()
            .map(|f| format!("wired-{f}"))
            .chain(["wireless".to_string()])
            .collect();
        for (file, name) in files.iter().enumerate() {
            let path = pdir.join(format!("{}.pcapng", sanitize(name)));
            let mut w = PcapngWriter::new(BufWriter::new(File::create(path)?))?;
            for link in links.iter().skip(2 * file).take(2) {
                let owner = "xltcp emulator, link";
                let (tx, rx) = add_link_interfaces(&mut w, owner, link, point, snaplen)?;
                c.points.push(Point { file, tx, rx });
            }
            c.writers.push(w);
        }
        Ok(c)
    }

    /// Whether a record of `captured` bytes (with a comment of `comment`
    /// bytes) fits the budget; charged if it does, counted if not.
    fn admit(&mut self, captured: usize, comment: Option<usize>) -> bool {
        let bytes = epb_len(captured, comment) as u64;
        if self.not_written == 0 && self.budget.take(bytes) {
            return true;
        }
        self.not_written += 1;
        false
    }

    fn write(&mut self, file: usize, iface: Interface, t: Time, d: &[u8], c: Option<&str>) {
        let captured = d.len().min(self.snaplen as usize);
        if !self.admit(captured, c.map(str::len)) {
            return;
        }
        if let Err(e) = self.writers[file].write_frame(iface, t, d, d.len(), c) {
            self.error.get_or_insert(e);
        }
    }

    /// Records `datagram` starting its transmission on `link` at `t`.
    pub fn record(&mut self, link: usize, t: Time, datagram: &[u8]) {
        if let Some(&Point {
            file, tx: Some(i), ..
        }) = self.points.get(link)
        {
            self.write(file, i, t, datagram, None);
        }
    }

    /// Records `datagram` arriving at the far end of `link` at `t`.
    pub fn record_rx(&mut self, link: usize, t: Time, datagram: &[u8]) {
        if let Some(&Point {
            file, rx: Some(i), ..
        }) = self.points.get(link)
        {
            self.write(file, i, t, datagram, None);
        }
    }

    /// Records `datagram` dropped on `link` at `t` for `why`: on the
    /// sender interface if there is one, else the receiver's, with the
    /// reason as its comment.
    pub fn record_drop(&mut self, link: usize, t: Time, datagram: &[u8], why: HopDrop) {
        if let Some(&p) = self.points.get(link) {
            if let Some(i) = p.tx.or(p.rx) {
                self.write(p.file, i, t, datagram, Some(drop_comment(why)));
            }
        }
    }

    /// Records a datagram the base station refused from the hosts of
    /// `from` at `t` for `why`, into `pcap/rejected.pcapng` (created on the
    /// first one).
    pub fn record_rejected(&mut self, t: Time, from: Side, datagram: &[u8], why: &str) {
        if self.rejected.is_none() {
            match self.open_rejected() {
                Ok(r) => self.rejected = Some(r),
                Err(e) => {
                    self.error.get_or_insert(e);
                    return;
                }
            }
        }
        let comment = reject_comment(why);
        let captured = datagram.len().min(self.snaplen as usize);
        if !self.admit(captured, Some(comment.len())) {
            return;
        }
        if let Some((w, ifaces)) = self.rejected.as_mut() {
            let i = ifaces[from as usize];
            if let Err(e) = w.write_frame(i, t, datagram, datagram.len(), Some(&comment)) {
                self.error.get_or_insert(e);
            }
        }
    }

    fn open_rejected(&self) -> io::Result<(Writer, [Interface; 2])> {
        let file = File::create(self.dir.join("rejected.pcapng"))?;
        let mut w = PcapngWriter::new(BufWriter::new(file))?;
        let mut add = |name: &str, hosts: &str| {
            w.add_interface(
                name,
                &format!("xltcp emulator: datagrams from the {hosts} the base station refused"),
                LINKTYPE_RAW as u16,
                self.snaplen,
            )
        };
        let ifaces = [
            add("from-ch", "wired hosts")?,
            add("from-sh", "wireless hosts")?,
        ];
        Ok((w, ifaces))
    }

    /// Flushes every file; the first error of the run, if any.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in self.writers.iter_mut() {
            w.flush()?;
        }
        if let Some((w, _)) = self.rejected.as_mut() {
            w.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn open(dir: &Path, max_bytes: u64) -> Captures {
        let links = names(&["ch0-bs", "bs-ch0", "bs-air", "air-bs"]);
        Captures::create(
            dir,
            &names(&["bulk"]),
            &links,
            CapturePoint::Both,
            0,
            TraceBudget::new(max_bytes),
        )
        .expect("captures open")
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("xltcp-capture-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn records_are_cut_to_128_bytes_and_files_named_as_the_simulators() {
        let dir = tmp("cut");
        let mut c = open(&dir, u64::MAX);
        c.record(2, Time(5), &[0x45; 1500]);
        c.finish().unwrap();
        let air = std::fs::read(dir.join("pcap/wireless.pcapng")).unwrap();
        assert!(dir.join("pcap/wired-bulk.pcapng").is_file());
        // Section header, four interfaces, then one record: captured 128
        // of 1500 bytes.
        let epb = air.len() - epb_len(128, None);
        assert_eq!(&air[epb..epb + 4], &6u32.to_le_bytes());
        assert_eq!(&air[epb + 20..epb + 24], &128u32.to_le_bytes());
        assert_eq!(&air[epb + 24..epb + 28], &1500u32.to_le_bytes());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn records_past_the_budget_are_counted_not_written() {
        let dir = tmp("budget");
        let one = epb_len(128, None) as u64;
        let mut c = open(&dir, 2 * one);
        for _ in 0..5 {
            c.record(0, Time(1), &[0x45; 1500]);
        }
        c.record_drop(
            2,
            Time(2),
            &[0x45; 60],
            HopDrop::Link(xltcp_core::net::link::DropReason::Loss),
        );
        c.record_rejected(Time(3), Side::Ch, &[0x45; 10], "truncated");
        assert_eq!(c.not_written, 5);
        c.finish().unwrap();
        let wired = std::fs::metadata(dir.join("pcap/wired-bulk.pcapng"))
            .unwrap()
            .len();
        let air = std::fs::metadata(dir.join("pcap/wireless.pcapng"))
            .unwrap()
            .len();
        let headers = air; // no record there: the same layout of headers
        assert_eq!(wired, headers + 2 * one);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
