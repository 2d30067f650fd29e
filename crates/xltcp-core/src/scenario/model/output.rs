//! `[output]`: what a run writes (captures, traces, their limits).

/// `[output]`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// `pcap`: write the packet captures, pcapng files in `pcap/`
    /// (default false): `wired-<flow>.pcapng` per flow's access link,
    /// `wireless.pcapng` for the hop and, where the hop shows its link
    /// layer, `air.pcapng`.
    pub pcap: bool,
    /// `pcap_snaplen`: bytes of each IP datagram captured, <= 65535;
    /// default 0 = [`DEFAULT_SNAPLEN`] (the IPv4 and TCP headers with every
    /// option, and the start of the payload). Values below 80 are raised to
    /// 80 so that the headers stay whole; 65535 keeps every datagram whole.
    pub pcap_snaplen: u32,
    /// `pcap_point`: where on each link a packet is captured (default
    /// `"sender"`).
    pub pcap_point: CapturePoint,
    /// `timeseries`: write per-flow time series (default true).
    pub timeseries: bool,
    /// `max_bytes`: the most bytes a run's results folder may take; its
    /// traces (time series, pcaps, signal log) get what is left after a
    /// reserve for `summary.json` and the other files
    /// ([`crate::sim::reserved_bytes`]), and records past it are counted,
    /// not written (default [`DEFAULT_MAX_OUTPUT_BYTES`]).
    pub max_bytes: Option<u64>,
}

/// The snapshot length of a capture without `[output] pcap_snaplen`:
/// 128 bytes, the IPv4 header (20) and the longest TCP header (60) whole,
/// with room to spare.
pub const DEFAULT_SNAPLEN: u32 = 128;

/// Where a capture records the packets of a link direction
/// (`[output] pcap_point`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CapturePoint {
    /// `"sender"` (default): as its transmission starts, so a frame later
    /// lost on the air is in the capture; every drop adds a record of the
    /// dropped packet carrying the reason as its comment.
    #[default]
    Sender,
    /// `"receiver"`: as it arrives at the far end, so only what got
    /// through is there (drops are still recorded, with their reason).
    Receiver,
    /// `"both"`: each direction twice, as two interfaces of its file.
    Both,
}

impl CapturePoint {
    /// Whether packets are captured as their transmission starts.
    pub fn sender(self) -> bool {
        self != CapturePoint::Receiver
    }

    /// Whether packets are captured as they arrive.
    pub fn receiver(self) -> bool {
        self != CapturePoint::Sender
    }

    /// The name a scenario file uses.
    pub fn name(self) -> &'static str {
        match self {
            CapturePoint::Sender => "sender",
            CapturePoint::Receiver => "receiver",
            CapturePoint::Both => "both",
        }
    }
}

/// The trace budget of a run without `[output] max_bytes`: 1 GiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1 << 30;

impl OutputSpec {
    /// The trace budget in bytes.
    pub fn budget(&self) -> u64 {
        self.max_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES)
    }
}

impl Default for OutputSpec {
    /// The documented defaults (time series on, pcap off).
    fn default() -> Self {
        OutputSpec {
            pcap: false,
            pcap_snaplen: 0,
            pcap_point: CapturePoint::Sender,
            timeseries: true,
            max_bytes: None,
        }
    }
}
