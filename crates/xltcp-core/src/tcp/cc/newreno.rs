//! NewReno's window growth and reduction (RFC 5681 §3.1 with RFC 3465's
//! byte counting, and the RFC 6582 reduction on loss).
//!
//! Congestion avoidance uses byte counting (RFC 5681 §3.1, the RECOMMENDED
//! variant): at most one SMSS of growth per window of acknowledged bytes.
//! Slow start grows by what an ACK acknowledges up to a limit per ACK:
//! RFC 5681's one SMSS by default, RFC 3465's L (`abc_limit`), or none, as
//! Linux, which then stops at ssthresh and counts the rest towards
//! congestion avoidance (`tcp_slow_start`).

use super::Window;
use crate::tcp::config::Profile;

/// State of the RFC 5681 controller.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance.
    bytes_acked: u64,
    /// Most SMSS one ACK adds in slow start (RFC 3465's L); 0: no limit.
    abc_limit: u32,
}

impl NewReno {
    /// A controller growing by at most `abc_limit` SMSS per ACK in slow
    /// start (RFC 3465's L), or by all an ACK acknowledges with 0.
    pub fn new(abc_limit: u32) -> NewReno {
        NewReno {
            bytes_acked: 0,
            abc_limit,
        }
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize/2, 2*SMSS).
    pub(crate) fn ssthresh_on_loss(&mut self, flight: u64, smss: u64, profile: Profile) -> u64 {
        self.bytes_acked = 0;
        let flight = match profile {
            Profile::Rfc => flight,
            // ns-3 BytesInFlight excludes the three dup-acked segments.
            Profile::Ns3 => flight.saturating_sub(3 * smss),
        };
        (flight / 2).max(2 * smss)
    }

    /// A timeout: RFC 5681 eq. (4) on the first, and LW = 1 SMSS (§3.1).
    pub(crate) fn on_rto(&mut self, w: &mut Window, flight: u64, smss: u64, first: bool) {
        self.bytes_acked = 0;
        if first {
            w.ssthresh = (flight / 2).max(2 * smss);
        }
        w.cwnd = smss;
    }

    /// An ACK newly acknowledged `acked` bytes outside loss recovery.
    pub(crate) fn on_ack(&mut self, w: &mut Window, acked: u64, smss: u64, profile: Profile) {
        if acked == 0 {
            return;
        }
        if profile == Profile::Ns3 {
            return Self::ns3_increase(w, acked / smss, smss);
        }
        if w.cwnd < w.ssthresh {
            self.bytes_acked = 0;
            let rest = slow_start(w, acked, smss, profile, self.abc_limit);
            if rest > 0 {
                self.avoid(w, rest, smss);
            }
        } else {
            self.avoid(w, acked, smss);
        }
    }

    /// ns-3's `TcpNewReno::IncreaseWindow` (tcp-congestion-ops.cc) for an
    /// ACK of `segs` whole segments: slow start adds one SMSS per ACK of at
    /// least one segment (`SlowStart`), and once cwnd is at or above
    /// ssthresh, the same ACK's remaining segments, if any, add
    /// SMSS*SMSS/cwnd once (`CongestionAvoidance`, RFC 5681 eq. 3,
    /// whatever the ACK acknowledges: with delayed ACKs cwnd grows by about
    /// half an SMSS per RTT). ns-3 carries sub-SMSS remainders of
    /// acknowledged bytes over to later ACKs (`m_bytesAckedNotProcessed`);
    /// here they are dropped, which is the same with full-sized segments.
    fn ns3_increase(w: &mut Window, mut segs: u64, smss: u64) {
        if w.cwnd < w.ssthresh && segs >= 1 {
            w.cwnd += smss;
            segs -= 1;
        }
        if w.cwnd >= w.ssthresh && segs > 0 {
            w.cwnd += (smss * smss / w.cwnd.max(1)).max(1);
        }
    }

    /// RFC 5681 §3.1: congestion avoidance by byte counting.
    fn avoid(&mut self, w: &mut Window, acked: u64, smss: u64) {
        self.bytes_acked += acked;
        if self.bytes_acked >= w.cwnd {
            self.bytes_acked -= w.cwnd;
            w.cwnd += smss;
        }
    }
}

/// Slow start for an ACK of `acked` bytes with cwnd below ssthresh (RFC
/// 5681 §3.1): cwnd += min(N, SMSS), or RFC 3465's min(N, L·SMSS) with
/// `abc_limit` L; ns-3 adds one SMSS per ACK that acknowledges anything.
/// With L = 0 (Linux's `tcp_slow_start`) all of it up to ssthresh, and the
/// rest is returned, for congestion avoidance to count; otherwise 0.
pub(crate) fn slow_start(
    w: &mut Window,
    acked: u64,
    smss: u64,
    profile: Profile,
    abc_limit: u32,
) -> u64 {
    let inc = match (profile, abc_limit) {
        (Profile::Rfc, 0) => {
            let grow = acked.min(w.ssthresh.saturating_sub(w.cwnd));
            w.cwnd += grow;
            return acked - grow;
        }
        (Profile::Rfc, l) => acked.min(u64::from(l) * smss),
        (Profile::Ns3, _) => smss,
    };
    w.cwnd += inc;
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_min_of_acked_and_smss() {
        let mut cc = NewReno::new(1);
        let mut w = Window {
            cwnd: 1000,
            ssthresh: u64::MAX,
        };
        cc.on_ack(&mut w, 3000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 2000);
        cc.on_ack(&mut w, 400, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 2400);
        cc.on_ack(&mut w, 1000, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 3400);
        // ns-3 counts whole segments: less than one SMSS adds nothing.
        cc.on_ack(&mut w, 400, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 3400);
    }

    #[test]
    fn ns3_slow_start_spills_into_congestion_avoidance() {
        // ns-3's IncreaseWindow: a two-segment ACK that takes cwnd to
        // ssthresh adds one SMSS, then SMSS*SMSS/cwnd for the other segment.
        let mut cc = NewReno::new(1);
        let mut w = Window {
            cwnd: 3000,
            ssthresh: 4000,
        };
        cc.on_ack(&mut w, 2000, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 4250);
        // A one-segment ACK stops at the slow start step.
        let mut w = Window {
            cwnd: 3000,
            ssthresh: 4000,
        };
        cc.on_ack(&mut w, 1000, 1000, Profile::Ns3);
        assert_eq!(w.cwnd, 4000);
    }

    #[test]
    fn byte_counting_limits_slow_start_to_l_smss_per_ack_or_not_at_all() {
        let window = || Window {
            cwnd: 1000,
            ssthresh: 4500,
        };
        // RFC 3465's L = 2: a three-segment ACK adds two.
        let mut cc = NewReno::new(2);
        let mut w = window();
        cc.on_ack(&mut w, 3000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 3000);
        // No limit (Linux): all three, then only up to ssthresh, the rest
        // counted towards congestion avoidance.
        let mut cc = NewReno::new(0);
        let mut w = window();
        cc.on_ack(&mut w, 3000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 4000);
        cc.on_ack(&mut w, 3000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 4500, "stops at ssthresh");
        // 2500 B counted already; 2000 more complete a window of 4500.
        cc.on_ack(&mut w, 2000, 1000, Profile::Rfc);
        assert_eq!(w.cwnd, 5500);
    }

    #[test]
    fn congestion_avoidance_counts_bytes() {
        let mut cc = NewReno::new(1);
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
        let mut cc = NewReno::new(1);
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
        let mut cc = NewReno::new(1);
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
