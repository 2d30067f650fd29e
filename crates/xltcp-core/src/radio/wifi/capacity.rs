//! Capacity of an 802.11 hop: the one-sender oracle ([`OracleCapacity`])
//! and Bianchi's model of n saturated stations ([`Bianchi`]).

use super::{ack_txtime, control_response_rate, data_psdu_bytes, txtime, Preamble, Rate};
use super::{CTS_BYTES, RTS_BYTES};
use crate::time::Dur;

/// Transport ACKs that travel back over the same hop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReverseAck {
    /// IP size of one ACK packet (40 bytes for TCP/IPv4 without options).
    pub ip_bytes: u32,
    /// Data frames per ACK (`d`: 2 with delayed ACKs, 1 without).
    pub data_frames_per_ack: f64,
}

/// The oracle capacity of an 802.11 hop: the most user data per second one
/// saturated sender can push through it, with no third station contending
/// and no loss. [`bps`](OracleCapacity::bps) is the hop's bound for the
/// project's "goodput ≤ oracle" invariant.
///
/// One data frame costs the **cycle** (SPECS §5.4):
///
/// ```text
/// T_cycle = DIFS + (CWmin/2)·aSlotTime + TXTIME(data) + SIFS + TXTIME(ACK)
/// ```
///
/// with the data frame's PSDU = IP packet + 36 bytes (MAC header 24,
/// LLC/SNAP 8, FCS 4) and the ACK at the control-response rate. The mean
/// backoff CWmin/2 makes it an expectation over many frames.
///
/// Transport ACKs travelling back over the hop (one every `d` data frames)
/// are charged in one of two ways:
///
/// - [`bps`](OracleCapacity::bps), the **bound**: each ACK packet costs its
///   medium occupancy, `T_occ = DIFS + TXTIME(ACK packet) + SIFS +
///   TXTIME(MAC ACK)`. Its sender's backoff is not charged: it runs in the
///   same idle slots as the data sender's, and every idle slot still counts
///   down the saturated data sender, so the data sender's own CWmin/2 slots
///   per frame are all the idle time the medium must have.
///   `capacity = 8·payload / (T_cycle + T_occ/d)`.
/// - [`serialised_bps`](OracleCapacity::serialised_bps), the figure of the
///   SPECS §5.4 table: each ACK packet costs a whole cycle of its own
///   (deferral, mean backoff and all), as if one station alternated data
///   and ACKs. With two stations contending this is **not** a bound: the
///   backoffs overlap, and a simulated DCF beats it (11b at 11 Mb/s: 5.17
///   against 4.95 Mb/s; 11a at 54 Mb/s: 24.6 against 24.2 Mb/s), while
///   staying under the bound (5.29 and 26.0 Mb/s).
///
/// e.g. 11b at 11 Mb/s, long preamble, 1500-byte packets: 50 + 310 + 1310 +
/// 10 + 248 = 1928 µs; 1472 bytes of UDP payload → 6.1 Mb/s; TCP with a
/// delayed ACK every second segment: 4.95 Mb/s serialised, 5.29 Mb/s bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleCapacity {
    /// Data rate (the standard follows from it).
    pub rate: Rate,
    /// PLCP format (11b).
    pub preamble: Preamble,
    /// IP packet size of a data frame (1500).
    pub ip_bytes: u32,
    /// User payload in it (1472 for UDP/IPv4, 1460 for TCP/IPv4).
    pub payload_bytes: u32,
    /// Transport ACKs in the other direction, if any.
    pub reverse_ack: Option<ReverseAck>,
}

impl OracleCapacity {
    /// UDP over IPv4: 1500-byte packets carrying 1472 bytes each.
    pub fn udp(rate: Rate, preamble: Preamble) -> OracleCapacity {
        OracleCapacity {
            rate,
            preamble,
            ip_bytes: 1500,
            payload_bytes: 1472,
            reverse_ack: None,
        }
    }

    /// TCP over IPv4 with a 1460-byte MSS and a 40-byte ACK every
    /// `data_frames_per_ack` segments.
    pub fn tcp(rate: Rate, preamble: Preamble, data_frames_per_ack: f64) -> OracleCapacity {
        OracleCapacity {
            rate,
            preamble,
            ip_bytes: 1500,
            payload_bytes: 1460,
            reverse_ack: Some(ReverseAck {
                ip_bytes: 40,
                data_frames_per_ack,
            }),
        }
    }

    /// Mean first backoff `CWmin/2 · aSlotTime`.
    pub fn mean_backoff(&self) -> Dur {
        let std = self.rate.standard();
        // CWmin is odd: CWmin · slot / 2 is exact in nanoseconds.
        Dur::from_nanos(u64::from(std.cw_min()) * std.slot().as_nanos() / 2)
    }

    /// One frame of `ip_bytes` from deferral to the end of its MAC ACK.
    pub fn frame_cycle(&self, ip_bytes: u32) -> Dur {
        let std = self.rate.standard();
        std.difs()
            + self.mean_backoff()
            + txtime(self.rate, data_psdu_bytes(ip_bytes), self.preamble)
            + std.sifs()
            + ack_txtime(self.rate, self.preamble)
    }

    /// `T_cycle` of a data frame.
    pub fn cycle(&self) -> Dur {
        self.frame_cycle(self.ip_bytes)
    }

    /// `T_occ`: the medium occupancy of one transport ACK packet (DIFS +
    /// the packet + SIFS + its MAC ACK), zero without reverse ACKs.
    pub fn reverse_ack_occupancy(&self) -> Dur {
        let Some(a) = self.reverse_ack else {
            return Dur::ZERO;
        };
        let std = self.rate.standard();
        std.difs()
            + txtime(self.rate, data_psdu_bytes(a.ip_bytes), self.preamble)
            + std.sifs()
            + ack_txtime(self.rate, self.preamble)
    }

    /// A whole cycle of one transport ACK packet, zero without them.
    pub fn reverse_ack_cycle(&self) -> Dur {
        self.reverse_ack
            .map_or(Dur::ZERO, |a| self.frame_cycle(a.ip_bytes))
    }

    fn acks_per_frame(&self) -> f64 {
        match self.reverse_ack {
            Some(a) if a.data_frames_per_ack >= 1.0 => 1.0 / a.data_frames_per_ack,
            Some(_) => 1.0,
            None => 0.0,
        }
    }

    /// Least medium time per data frame, in seconds (the bound).
    pub fn secs_per_frame(&self) -> f64 {
        self.cycle().as_secs_f64()
            + self.acks_per_frame() * self.reverse_ack_occupancy().as_secs_f64()
    }

    /// The oracle capacity: user-data bits per second (the bound).
    pub fn bps(&self) -> f64 {
        8.0 * f64::from(self.payload_bytes) / self.secs_per_frame()
    }

    /// Medium time per data frame with every transport ACK charged a whole
    /// cycle (SPECS §5.4), in seconds.
    pub fn serialised_secs_per_frame(&self) -> f64 {
        self.cycle().as_secs_f64() + self.acks_per_frame() * self.reverse_ack_cycle().as_secs_f64()
    }

    /// User-data bits per second as the SPECS §5.4 table computes them.
    pub fn serialised_bps(&self) -> f64 {
        8.0 * f64::from(self.payload_bytes) / self.serialised_secs_per_frame()
    }
}

/// Channel access method in Bianchi's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// DATA, SIFS, ACK.
    Basic,
    /// RTS, SIFS, CTS, SIFS, DATA, SIFS, ACK.
    RtsCts,
}

/// Bianchi's (2000) model of `n` saturated stations under DCF with ideal
/// channel conditions.
///
/// Each station transmits in a generic slot with probability τ, and a
/// transmission collides with probability p (the fixed point):
///
/// ```text
/// τ = 2(1−2p) / ((1−2p)(W+1) + pW(1−(2p)^m))
///   = 2 / ((W+1) + pW·Σ_{k=0}^{m−1} (2p)^k)        (same, no 0/0 at p = ½)
/// p = 1 − (1−τ)^(n−1)
/// ```
///
/// with W = CWmin + 1 and m the number of doublings to CWmax
/// (2^m·W = CWmax + 1: m = 6 for 11a, 5 for 11b). Then
///
/// ```text
/// P_tr = 1 − (1−τ)^n,   P_s = nτ(1−τ)^(n−1) / P_tr
/// S = P_s·P_tr·E[P] / ((1−P_tr)·σ + P_tr·P_s·T_s + P_tr·(1−P_s)·T_c)
/// ```
///
/// σ = aSlotTime, E\[P\] = payload bits per frame, and (no propagation delay):
///
/// ```text
/// basic:   T_s = DATA + SIFS + ACK + DIFS
///          T_c = DATA + EIFS
/// RTS/CTS: T_s = RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + DIFS
///          T_c = RTS + EIFS
/// ```
///
/// Bianchi's paper ends a collision with DIFS; here it ends with the EIFS
/// the stations that did not take part must wait after the garbled frame
/// (§10.3.2.3.7), which is what the DCF does. The colliding stations
/// themselves resume after ACKTimeout + DIFS, a little earlier (15 µs in
/// 11a, 92 µs in 11b); the model ignores that head start. It also ignores
/// the retry limit (a drop after 7 attempts has probability p⁷).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bianchi {
    /// Data rate of every station.
    pub rate: Rate,
    /// PLCP format (11b).
    pub preamble: Preamble,
    /// Saturated stations (≥ 1).
    pub stations: u32,
    /// IP packet size of every data frame.
    pub ip_bytes: u32,
    /// User payload counted as throughput (E\[P\] / 8).
    pub payload_bytes: u32,
    /// Basic access or RTS/CTS.
    pub access: Access,
}

/// The fixed point and the throughput of a [`Bianchi`] model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BianchiSolution {
    /// τ: probability that a station transmits in a generic slot.
    pub tau: f64,
    /// p: conditional collision probability.
    pub p: f64,
    /// P_tr: probability that a slot holds at least one transmission.
    pub p_tr: f64,
    /// P_s: probability that such a transmission is successful.
    pub p_s: f64,
    /// T_s: medium time of a success.
    pub t_s: Dur,
    /// T_c: medium time of a collision.
    pub t_c: Dur,
    /// S: aggregate payload throughput, bit/s.
    pub bps: f64,
}

impl Bianchi {
    /// `n` stations sending `ip_bytes` packets whose payload is
    /// `payload_bytes`, basic access.
    pub fn basic(
        rate: Rate,
        preamble: Preamble,
        n: u32,
        ip_bytes: u32,
        payload_bytes: u32,
    ) -> Bianchi {
        Bianchi {
            rate,
            preamble,
            stations: n.max(1),
            ip_bytes,
            payload_bytes,
            access: Access::Basic,
        }
    }

    /// W = CWmin + 1 and m with 2^m·W = CWmax + 1.
    pub fn w_and_m(&self) -> (f64, i32) {
        let std = self.rate.standard();
        let w = u32::from(std.cw_min()) + 1;
        let mut m = 0;
        while (w << m) < u32::from(std.cw_max()) + 1 {
            m += 1;
        }
        (f64::from(w), m)
    }

    /// τ(p) for this W and m.
    pub fn tau(&self, p: f64) -> f64 {
        let (w, m) = self.w_and_m();
        let series: f64 = (0..m).map(|k| (2.0 * p).powi(k)).sum();
        2.0 / ((w + 1.0) + p * w * series)
    }

    /// T_s and T_c (see the type's doc).
    pub fn times(&self) -> (Dur, Dur) {
        let std = self.rate.standard();
        let sifs = std.sifs();
        let data = txtime(self.rate, data_psdu_bytes(self.ip_bytes), self.preamble);
        let ack = ack_txtime(self.rate, self.preamble);
        match self.access {
            Access::Basic => (data + sifs + ack + std.difs(), data + std.eifs()),
            Access::RtsCts => {
                let ctl = control_response_rate(self.rate);
                let rts = txtime(ctl, RTS_BYTES, self.preamble);
                let cts = txtime(control_response_rate(ctl), CTS_BYTES, self.preamble);
                let t_s = rts + sifs + cts + sifs + data + sifs + ack + std.difs();
                (t_s, rts + std.eifs())
            }
        }
    }

    /// Solves the fixed point by bisection on p (f(p) = 1 − (1−τ(p))^(n−1) − p
    /// is strictly decreasing) and evaluates S.
    pub fn solve(&self) -> BianchiSolution {
        let n = f64::from(self.stations.max(1));
        let g = |p: f64| 1.0 - (1.0 - self.tau(p)).powf(n - 1.0) - p;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if g(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // One station never collides: p = 0 exactly.
        let p = if self.stations <= 1 {
            0.0
        } else {
            0.5 * (lo + hi)
        };
        let tau = self.tau(p);
        let p_tr = 1.0 - (1.0 - tau).powf(n);
        let p_s = n * tau * (1.0 - tau).powf(n - 1.0) / p_tr;
        let (t_s, t_c) = self.times();
        let sigma = self.rate.standard().slot().as_secs_f64();
        let e_p = 8.0 * f64::from(self.payload_bytes);
        let denom = (1.0 - p_tr) * sigma
            + p_tr * p_s * t_s.as_secs_f64()
            + p_tr * (1.0 - p_s) * t_c.as_secs_f64();
        BianchiSolution {
            tau,
            p,
            p_tr,
            p_s,
            t_s,
            t_c,
            bps: p_s * p_tr * e_p / denom,
        }
    }
}
