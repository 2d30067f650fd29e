//! Packet captures at the base station: every transmission start on a
//! link, as the real datagram, into the simulator's files
//! (`pcap/wireless.pcap` for both air directions, `pcap/wired-<flow>.pcap`
//! per access link), and the datagrams it refused (`pcap/rejected.pcap`,
//! only when there are some). Timestamps are emulation time (zero at the
//! start).

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use xltcp_core::sim::output::sanitize;
use xltcp_core::time::Time;
use xltcp_core::wire::{PcapWriter, FULL_SNAPLEN};

/// The open capture files.
#[derive(Debug)]
pub struct Captures {
    by_link: Vec<usize>,
    writers: Vec<PcapWriter<BufWriter<File>>>,
    rejected: Option<PcapWriter<BufWriter<File>>>,
    dir: std::path::PathBuf,
    snaplen: u32,
    error: Option<io::Error>,
}

impl Captures {
    /// Opens `dir/pcap/*.pcap` for `flows` (names in scenario order);
    /// `snaplen` 0 keeps whole datagrams.
    pub fn create(dir: &Path, flows: &[String], snaplen: u32) -> io::Result<Captures> {
        let snaplen = if snaplen == 0 { FULL_SNAPLEN } else { snaplen };
        let pdir = dir.join("pcap");
        std::fs::create_dir_all(&pdir)?;
        let open = |name: &str| -> io::Result<PcapWriter<BufWriter<File>>> {
            let file = File::create(pdir.join(format!("{}.pcap", sanitize(name))))?;
            PcapWriter::new(BufWriter::new(file), snaplen)
        };
        let mut c = Captures {
            by_link: Vec::new(),
            writers: Vec::new(),
            rejected: None,
            dir: pdir.clone(),
            snaplen,
            error: None,
        };
        for (i, f) in flows.iter().enumerate() {
            c.writers.push(open(&format!("wired-{f}"))?);
            c.by_link.extend([i, i]);
        }
        c.writers.push(open("wireless")?);
        c.by_link.extend([flows.len(), flows.len()]);
        Ok(c)
    }

    /// Records `datagram` starting its transmission on `link` at `t`.
    pub fn record(&mut self, link: usize, t: Time, datagram: &[u8]) {
        if let Some(&w) = self.by_link.get(link) {
            if let Err(e) = self.writers[w].write_raw(t, datagram) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Records a datagram the base station refused, at `t`, into
    /// `pcap/rejected.pcap` (created on the first one).
    pub fn record_rejected(&mut self, t: Time, datagram: &[u8]) {
        if self.rejected.is_none() {
            let path = self.dir.join("rejected.pcap");
            match File::create(path).and_then(|f| PcapWriter::new(BufWriter::new(f), self.snaplen))
            {
                Ok(w) => self.rejected = Some(w),
                Err(e) => {
                    self.error.get_or_insert(e);
                    return;
                }
            }
        }
        if let Some(Err(e)) = self.rejected.as_mut().map(|w| w.write_raw(t, datagram)) {
            self.error.get_or_insert(e);
        }
    }

    /// Flushes every file; the first error of the run, if any.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in self.writers.iter_mut().chain(self.rejected.as_mut()) {
            w.flush()?;
        }
        Ok(())
    }
}
