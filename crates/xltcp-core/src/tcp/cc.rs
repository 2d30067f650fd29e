//! Congestion control behind an enum-dispatched interface.
//!
//! The controller owns only its private state; `cwnd` and `ssthresh` live in
//! [`Window`], which the endpoint owns, so that loss recovery and
//! cross-layer hooks can read and set them too.
//!
//! Congestion avoidance uses byte counting (RFC 5681 §3.1, the RECOMMENDED
//! variant): at most one SMSS of growth per window of acknowledged bytes.

use super::config::Profile;

/// The congestion window and the slow start threshold, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window (cwnd).
    pub cwnd: u64,
    /// Slow start threshold (ssthresh).
    pub ssthresh: u64,
}

/// Congestion controllers. Later schemes add variants.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// RFC 5681 slow start and congestion avoidance.
    NewReno(NewReno),
}

/// State of the RFC 5681 controller.
#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance.
    bytes_acked: u64,
}

impl CongestionControl {
    /// The standard controller.
    pub fn new_reno() -> CongestionControl {
        CongestionControl::NewReno(NewReno::default())
    }

    /// An ACK newly acknowledged `acked` bytes outside loss recovery.
    pub fn on_ack(&mut self, w: &mut Window, acked: u64, smss: u64, profile: Profile) {
        match self {
            CongestionControl::NewReno(s) => s.on_ack(w, acked, smss, profile),
        }
    }

    /// A loss was detected by duplicate ACKs or SACK: returns the new
    /// ssthresh. `flight` is the FlightSize without Limited Transmit segments.
    pub fn ssthresh_on_loss(&mut self, flight: u64, smss: u64, profile: Profile) -> u64 {
        match self {
            CongestionControl::NewReno(s) => {
                s.bytes_acked = 0;
                // RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2*SMSS).
                let flight = match profile {
                    Profile::Rfc => flight,
                    // ns-3 BytesInFlight excludes the three dup-acked segments.
                    Profile::Ns3 => flight.saturating_sub(3 * smss),
                };
                (flight / 2).max(2 * smss)
            }
        }
    }

    /// The retransmission timer expired. `first` is false for a repeated
    /// timeout of the same segment, which leaves ssthresh unchanged.
    pub fn on_rto(&mut self, w: &mut Window, flight: u64, smss: u64, first: bool) {
        match self {
            CongestionControl::NewReno(s) => {
                s.bytes_acked = 0;
                if first {
                    // RFC 5681 eq. (4).
                    w.ssthresh = (flight / 2).max(2 * smss);
                }
                // RFC 5681 §3.1: LW = 1 SMSS.
                w.cwnd = smss;
            }
        }
    }
}

impl NewReno {
    fn on_ack(&mut self, w: &mut Window, acked: u64, smss: u64, profile: Profile) {
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            // RFC 5681 §3.1: slow start, cwnd += min(N, SMSS).
            // ns-3 adds one SMSS per ACK that acknowledges anything.
            let inc = match profile {
                Profile::Rfc => acked.min(smss),
                Profile::Ns3 => smss,
            };
            w.cwnd += inc;
            self.bytes_acked = 0;
        } else {
            match profile {
                Profile::Rfc => {
                    // RFC 5681 §3.1: congestion avoidance by byte counting.
                    self.bytes_acked += acked;
                    if self.bytes_acked >= w.cwnd {
                        self.bytes_acked -= w.cwnd;
                        w.cwnd += smss;
                    }
                }
                // ns-3 adds SMSS*SMSS/cwnd per ACK whatever it acknowledges
                // (RFC 5681 eq. 3), so with delayed ACKs cwnd grows by about
                // half an SMSS per RTT.
                Profile::Ns3 => w.cwnd += (smss * smss / w.cwnd.max(1)).max(1),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_min_of_acked_and_smss() {
        let mut cc = CongestionControl::new_reno();
        let mut w = Window {
            cwnd: 1000,
            ssthresh: u64::MAX,
        };
        cc.on_ack(&mut w, 3000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 2000);
        cc.on_ack(&mut w, 400, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 2400);
        cc.on_ack(&mut w, 400, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 3400);
    }

    #[test]
    fn congestion_avoidance_counts_bytes() {
        let mut cc = CongestionControl::new_reno();
        let mut w = Window {
            cwnd: 4000,
            ssthresh: 4000,
        };
        for _ in 0..3 {
            cc.on_ack(&mut w, 1000, 1000, Profile::Rfc);
            assert_eq!(w.cwnd, 4000);
        }
        cc.on_ack(&mut w, 1000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 5000, "one SMSS after a full window of bytes");
    }

    #[test]
    fn ns3_congestion_avoidance_counts_acks() {
        let mut cc = CongestionControl::new_reno();
        let mut w = Window {
            cwnd: 4000,
            ssthresh: 4000,
        };
        // Two-segment (delayed) ACKs grow cwnd by SMSS^2/cwnd each, not by
        // what they acknowledge.
        cc.on_ack(&mut w, 2000, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 4250);
        cc.on_ack(&mut w, 2000, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 4250 + 1_000_000 / 4250);
    }

    #[test]
    fn loss_and_rto_thresholds() {
        let mut cc = CongestionControl::new_reno();
        assert_eq!(cc.ssthresh_on_loss(10_000, 1000, Profile::Rfc), 5000);
        assert_eq!(cc.ssthresh_on_loss(3000, 1000, Profile::Rfc), 2000);
        assert_eq!(cc.ssthresh_on_loss(10_000, 1000, Profile::Ns3), 3500);
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
        };
        cc.on_rto(&mut w, 10_000, 1000, true);
        assert_eq!(
            w,
            Window {
                cwnd: 1000,
                ssthresh: 5000
            }
        );
        cc.on_rto(&mut w, 1000, 1000, false);
        assert_eq!(
            w,
            Window {
                cwnd: 1000,
                ssthresh: 5000
            },
            "repeated timeout keeps ssthresh"
        );
    }
}
