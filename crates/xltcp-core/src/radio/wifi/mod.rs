//! IEEE 802.11a (OFDM, 5 GHz) and 802.11b (HR/DSSS, 2.4 GHz): PHY timing
//! and airtime, SNR → packet error models, the DCF MAC of one station,
//! per-station energy accounting and the hop's capacity formulas.
//!
//! Sources: IEEE 802.11-2016 clause 10.3 (DCF), clause 16 (DSSS), clause 17
//! (OFDM) with Table 16-4 (HR/DSSS PHY characteristics) and Table 17-21
//! (OFDM PHY characteristics); the error models follow the NIST (Pei &
//! Henderson 2010) and YANS (Lacage & Henderson 2006) papers; the
//! multi-station throughput model is Bianchi, "Performance analysis of the
//! IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000.
//!
//! - [`txtime`] and the constants below: IFS, slot, contention window,
//!   preamble, ACK timeout, rate tables and PSDU sizes.
//! - [`error`]: bit and packet error rates from linear SNR per rate
//!   ([`ErrorModel::Nist`] or [`ErrorModel::Yans`] for OFDM, DSSS/CCK for 11b)
//!   and a PER-vs-SNR table generator.
//! - [`Dcf`]: the sans-IO DCF state machine of one station (basic access
//!   and RTS/CTS, NAV, EIFS, retry limits, duplicate detection, fixed rate
//!   or ARF).
//! - [`EnergyMeter`]: time and joules per radio state, with a battery.
//! - [`OracleCapacity`] (one saturated sender) and [`Bianchi`] (n
//!   saturated stations).
//!
//! Simplifications (what the model leaves out and what it costs):
//! - One BSS, no fragmentation, no power save, no beacons, no PCF/EDCA:
//!   saturation figures are DCF figures; QoS traffic classes are not modelled.
//! - Carrier sense is whatever the engine reports through
//!   [`Dcf::handle_channel`]; there is no CCA energy threshold or
//!   detection delay: a transmission starting on the same slot boundary as
//!   the station's own is not heard (the collision the standard expects),
//!   one starting earlier is heard at once (slightly optimistic when the
//!   propagation delay is not zero; the engine may add it).
//! - The ACK timeout ends the wait unless a reception has started inside
//!   it; the MAC does not decode the PHY header, so a station that hears
//!   something in that window waits for the expected response's length
//!   plus one slot of tolerance before it gives up (ns-3 waits for the
//!   real end of that reception). A lost or garbled response therefore
//!   costs one slot more than the ACK timeout would suggest.
//! - The RTS NAV-reset rule (802.11-2016 §10.3.2.4: a NAV set by an RTS
//!   may be reset when no PHY-RXSTART follows) is not modelled; with no
//!   hidden stations it never matters.
//! - Rates of control frames come from the mandatory basic rate set
//!   (11a: 6, 12, 24 Mb/s; 11b: 1, 2 Mb/s), not a configurable BSS set.
//! - An ERP (802.11g) PHY and its 6 µs signal extension are not modelled.

mod arf;
mod capacity;
pub mod capture;
pub mod energy;
pub mod error;
mod events;
mod frame;
mod mac;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_medium;
#[cfg(test)]
mod tests_timing;

pub use arf::{Arf, ArfConfig, RateControl};
pub use capacity::{Access, Bianchi, BianchiSolution, OracleCapacity, ReverseAck};
pub use energy::{Accounting, EnergyMeter, PowerProfile, RadioState};
pub use error::ErrorModel;
pub use events::{DcfStats, MacEvent, UndeliveredReason};
pub use frame::{Addr, Frame, Transmission, TxKind};
pub use mac::{Dcf, DcfConfig};

use crate::time::Dur;

/// Which PHY (and with it which DCF timing) a station uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Standard {
    /// 802.11a: OFDM in the 5 GHz band, 20 MHz channels (clause 17).
    A11,
    /// 802.11b: DSSS (1, 2 Mb/s) and CCK (5.5, 11 Mb/s) in the 2.4 GHz
    /// band (clauses 15 and 16).
    B11,
}

/// The PLCP preamble and header format of an 802.11b PPDU (§16.2.2).
/// 802.11a has a single format; its frames ignore this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Preamble {
    /// Long PPDU format: 144-bit preamble + 48-bit header at 1 Mb/s, 192 µs.
    Long,
    /// Short PPDU format: 72-bit preamble at 1 Mb/s + 48-bit header at
    /// 2 Mb/s, 96 µs. Not defined for 1 Mb/s frames, which always use the
    /// long format (§16.2.2.3).
    Short,
}

// ---- 802.11a (Table 17-21, 20 MHz channel spacing) ----------------------

/// 802.11a `aSlotTime` (Table 17-21): 9 µs.
pub const A11_SLOT: Dur = Dur::from_micros(9);
/// 802.11a `aSIFSTime` (Table 17-21): 16 µs.
pub const A11_SIFS: Dur = Dur::from_micros(16);
/// 802.11a `aCWmin` (Table 17-21): 15.
pub const A11_CW_MIN: u16 = 15;
/// 802.11a `aCWmax` (Table 17-21): 1023.
pub const A11_CW_MAX: u16 = 1023;
/// 802.11a PLCP preamble (`aPreambleLength`, 16 µs) + SIGNAL field
/// (`aPLCPHeaderLength`, one 4 µs symbol) (§17.3.2, Table 17-21): 20 µs.
pub const A11_PREAMBLE_AND_HEADER: Dur = Dur::from_micros(20);
/// 802.11a OFDM symbol interval `T_SYM` = 3.2 µs + 0.8 µs guard (Table 17-5): 4 µs.
pub const A11_SYMBOL: Dur = Dur::from_micros(4);
/// 802.11a SERVICE field (§17.3.5.2): 16 bits in front of the PSDU.
pub const A11_SERVICE_BITS: u64 = 16;
/// 802.11a tail bits after the PSDU (§17.3.5.3): 6.
pub const A11_TAIL_BITS: u64 = 6;
/// 802.11a `aRxPHYStartDelay`: 20 µs, the preamble + SIGNAL time. The
/// value follows 802.11-2020 as SPECS §5.1 reports it; older editions list
/// 25 µs (not re-read here). It makes the ACK timeout 16 + 9 + 20 = 45 µs.
pub const A11_RX_PHY_START_DELAY: Dur = Dur::from_micros(20);

// ---- 802.11b (Table 16-4, HR/DSSS) ---------------------------------------

/// 802.11b `aSlotTime` (Table 16-4): 20 µs.
pub const B11_SLOT: Dur = Dur::from_micros(20);
/// 802.11b `aSIFSTime` (Table 16-4): 10 µs.
pub const B11_SIFS: Dur = Dur::from_micros(10);
/// 802.11b `aCWmin` (Table 16-4): 31.
pub const B11_CW_MIN: u16 = 31;
/// 802.11b `aCWmax` (Table 16-4): 1023.
pub const B11_CW_MAX: u16 = 1023;
/// 802.11b long PLCP: 144-bit preamble + 48-bit header at 1 Mb/s
/// (§16.2.2.2, `aPreambleLength` + `aPLCPHeaderLength`): 192 µs.
pub const B11_LONG_PREAMBLE_AND_HEADER: Dur = Dur::from_micros(192);
/// 802.11b short PLCP: 72-bit preamble at 1 Mb/s (72 µs) + 48-bit header
/// at 2 Mb/s (24 µs) (§16.2.2.3): 96 µs.
pub const B11_SHORT_PREAMBLE_AND_HEADER: Dur = Dur::from_micros(96);
/// Bits in the 802.11b PLCP header (SIGNAL, SERVICE, LENGTH, CRC; §16.2.3).
pub const B11_PLCP_HEADER_BITS: u64 = 48;

// ---- MAC framing (802.11-2016 §9.3) --------------------------------------

/// Data frame MAC header with three addresses and no QoS control
/// (FC 2, Duration 2, A1–A3 18, Sequence Control 2; §9.3.2.1): 24 bytes.
pub const MAC_HEADER_BYTES: u32 = 24;
/// Frame check sequence (§9.2.4.8): 4 bytes.
pub const FCS_BYTES: u32 = 4;
/// LLC/SNAP header in front of an IP packet (IEEE 802.2 + RFC 1042): 8 bytes.
pub const LLC_SNAP_BYTES: u32 = 8;
/// ACK frame (FC 2, Duration 2, RA 6, FCS 4; §9.3.1.4): 14 bytes.
pub const ACK_BYTES: u32 = 14;
/// CTS frame (same layout as the ACK; §9.3.1.3): 14 bytes.
pub const CTS_BYTES: u32 = 14;
/// RTS frame (FC 2, Duration 2, RA 6, TA 6, FCS 4; §9.3.1.2): 20 bytes.
pub const RTS_BYTES: u32 = 20;
/// `aPSDUMaxLength` of both PHYs (Tables 16-4 and 17-21): 4095 bytes.
pub const MAX_PSDU_BYTES: u32 = 4095;
/// Sequence numbers are 12 bits (§9.2.4.4.2): they wrap at 4096.
pub const SEQ_MODULUS: u16 = 4096;

/// PSDU of a data frame carrying an `ip_bytes`-byte IP packet: MAC header
/// + LLC/SNAP + packet + FCS. A 1500-byte packet gives 1536 bytes.
pub const fn data_psdu_bytes(ip_bytes: u32) -> u32 {
    MAC_HEADER_BYTES + LLC_SNAP_BYTES + ip_bytes + FCS_BYTES
}

impl Standard {
    /// `aSlotTime`.
    pub const fn slot(self) -> Dur {
        match self {
            Standard::A11 => A11_SLOT,
            Standard::B11 => B11_SLOT,
        }
    }

    /// `aSIFSTime`.
    pub const fn sifs(self) -> Dur {
        match self {
            Standard::A11 => A11_SIFS,
            Standard::B11 => B11_SIFS,
        }
    }

    /// DIFS = aSIFSTime + 2 · aSlotTime (§10.3.2.3.5): 34 µs (11a), 50 µs (11b).
    pub const fn difs(self) -> Dur {
        Dur::from_nanos(self.sifs().as_nanos() + 2 * self.slot().as_nanos())
    }

    /// PIFS = aSIFSTime + aSlotTime (§10.3.2.3.4): 25 µs (11a), 30 µs (11b).
    pub const fn pifs(self) -> Dur {
        Dur::from_nanos(self.sifs().as_nanos() + self.slot().as_nanos())
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime, with the ACK sent at the lowest
    /// mandatory rate (§10.3.2.3.7): 16 + 34 + 44 = 94 µs (11a, ACK at
    /// 6 Mb/s) and 10 + 50 + 304 = 364 µs (11b, ACK at 1 Mb/s, which only
    /// exists with the long preamble, so EIFS does not depend on it).
    pub fn eifs(self) -> Dur {
        self.sifs() + self.difs() + txtime(self.lowest_rate(), ACK_BYTES, Preamble::Long)
    }

    /// `aCWmin`.
    pub const fn cw_min(self) -> u16 {
        match self {
            Standard::A11 => A11_CW_MIN,
            Standard::B11 => B11_CW_MIN,
        }
    }

    /// `aCWmax`.
    pub const fn cw_max(self) -> u16 {
        match self {
            Standard::A11 => A11_CW_MAX,
            Standard::B11 => B11_CW_MAX,
        }
    }

    /// PLCP preamble + header duration. `preamble` only matters for 11b.
    pub const fn preamble_and_header(self, preamble: Preamble) -> Dur {
        match (self, preamble) {
            (Standard::A11, _) => A11_PREAMBLE_AND_HEADER,
            (Standard::B11, Preamble::Long) => B11_LONG_PREAMBLE_AND_HEADER,
            (Standard::B11, Preamble::Short) => B11_SHORT_PREAMBLE_AND_HEADER,
        }
    }

    /// `aRxPHYStartDelay`: 20 µs (11a, see [`A11_RX_PHY_START_DELAY`]);
    /// 192 µs (11b long) or 96 µs (11b short), the PLCP preamble + header
    /// time (Table 16-4).
    pub const fn rx_phy_start_delay(self, preamble: Preamble) -> Dur {
        match self {
            Standard::A11 => A11_RX_PHY_START_DELAY,
            Standard::B11 => self.preamble_and_header(preamble),
        }
    }

    /// ACKTimeout (and CTSTimeout) = aSIFSTime + aSlotTime +
    /// aRxPHYStartDelay (§10.3.2.9, §10.3.2.7), counted from the end of the
    /// frame that solicits the response: 45 µs (11a), 222 µs (11b long),
    /// 126 µs (11b short).
    pub const fn ack_timeout(self, preamble: Preamble) -> Dur {
        Dur::from_nanos(
            self.sifs().as_nanos()
                + self.slot().as_nanos()
                + self.rx_phy_start_delay(preamble).as_nanos(),
        )
    }

    /// Every rate of the PHY, slowest first.
    pub const fn rates(self) -> &'static [Rate] {
        match self {
            Standard::A11 => &A11_RATES,
            Standard::B11 => &B11_RATES,
        }
    }

    /// The mandatory rates, which this model uses as the BSS basic rate
    /// set: 6, 12, 24 Mb/s (§17.3.5.5) and 1, 2 Mb/s (§16.1.1).
    pub const fn basic_rates(self) -> &'static [Rate] {
        match self {
            Standard::A11 => &[Rate::Ofdm6, Rate::Ofdm12, Rate::Ofdm24],
            Standard::B11 => &[Rate::Dsss1, Rate::Dsss2],
        }
    }

    /// The slowest rate: 6 Mb/s (11a), 1 Mb/s (11b).
    pub const fn lowest_rate(self) -> Rate {
        self.rates()[0]
    }
}

/// The subcarrier (11a) or symbol (11b) modulation of a rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Modulation {
    /// OFDM, BPSK subcarriers (1 coded bit per subcarrier).
    Bpsk,
    /// OFDM, QPSK subcarriers (2).
    Qpsk,
    /// OFDM, 16-QAM subcarriers (4).
    Qam16,
    /// OFDM, 64-QAM subcarriers (6).
    Qam64,
    /// DSSS, differential BPSK with Barker spreading (1 Mb/s).
    Dbpsk,
    /// DSSS, differential QPSK with Barker spreading (2 Mb/s).
    Dqpsk,
    /// HR/DSSS complementary code keying (5.5 and 11 Mb/s).
    Cck,
}

/// Convolutional code rate of an OFDM rate (§17.3.5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CodeRate {
    /// R = 1/2 (the mother code).
    Half,
    /// R = 2/3 (punctured).
    TwoThirds,
    /// R = 3/4 (punctured).
    ThreeQuarters,
}

impl CodeRate {
    /// The rate as a fraction.
    pub fn as_f64(self) -> f64 {
        match self {
            CodeRate::Half => 0.5,
            CodeRate::TwoThirds => 2.0 / 3.0,
            CodeRate::ThreeQuarters => 0.75,
        }
    }
}

/// A PHY data rate of 802.11a or 802.11b.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rate {
    /// 11a 6 Mb/s: BPSK, R = 1/2, N_DBPS 24 (mandatory).
    Ofdm6,
    /// 11a 9 Mb/s: BPSK, R = 3/4, N_DBPS 36.
    Ofdm9,
    /// 11a 12 Mb/s: QPSK, R = 1/2, N_DBPS 48 (mandatory).
    Ofdm12,
    /// 11a 18 Mb/s: QPSK, R = 3/4, N_DBPS 72.
    Ofdm18,
    /// 11a 24 Mb/s: 16-QAM, R = 1/2, N_DBPS 96 (mandatory).
    Ofdm24,
    /// 11a 36 Mb/s: 16-QAM, R = 3/4, N_DBPS 144.
    Ofdm36,
    /// 11a 48 Mb/s: 64-QAM, R = 2/3, N_DBPS 192.
    Ofdm48,
    /// 11a 54 Mb/s: 64-QAM, R = 3/4, N_DBPS 216.
    Ofdm54,
    /// 11b 1 Mb/s DBPSK (mandatory).
    Dsss1,
    /// 11b 2 Mb/s DQPSK (mandatory).
    Dsss2,
    /// 11b 5.5 Mb/s CCK.
    Cck5_5,
    /// 11b 11 Mb/s CCK.
    Cck11,
}

const A11_RATES: [Rate; 8] = [
    Rate::Ofdm6,
    Rate::Ofdm9,
    Rate::Ofdm12,
    Rate::Ofdm18,
    Rate::Ofdm24,
    Rate::Ofdm36,
    Rate::Ofdm48,
    Rate::Ofdm54,
];
const B11_RATES: [Rate; 4] = [Rate::Dsss1, Rate::Dsss2, Rate::Cck5_5, Rate::Cck11];

impl Rate {
    /// The PHY this rate belongs to.
    pub const fn standard(self) -> Standard {
        match self {
            Rate::Dsss1 | Rate::Dsss2 | Rate::Cck5_5 | Rate::Cck11 => Standard::B11,
            _ => Standard::A11,
        }
    }

    /// The data rate in kb/s (5.5 Mb/s is 5500).
    pub const fn kbps(self) -> u64 {
        match self {
            Rate::Ofdm6 => 6_000,
            Rate::Ofdm9 => 9_000,
            Rate::Ofdm12 => 12_000,
            Rate::Ofdm18 => 18_000,
            Rate::Ofdm24 => 24_000,
            Rate::Ofdm36 => 36_000,
            Rate::Ofdm48 => 48_000,
            Rate::Ofdm54 => 54_000,
            Rate::Dsss1 => 1_000,
            Rate::Dsss2 => 2_000,
            Rate::Cck5_5 => 5_500,
            Rate::Cck11 => 11_000,
        }
    }

    /// The data rate in bit/s.
    pub const fn bps(self) -> u64 {
        self.kbps() * 1000
    }

    /// The data rate in Mb/s.
    pub fn mbps(self) -> f64 {
        self.kbps() as f64 / 1000.0
    }

    /// The modulation (Table 17-4 for OFDM; §16.1.1 for DSSS/CCK).
    pub const fn modulation(self) -> Modulation {
        match self {
            Rate::Ofdm6 | Rate::Ofdm9 => Modulation::Bpsk,
            Rate::Ofdm12 | Rate::Ofdm18 => Modulation::Qpsk,
            Rate::Ofdm24 | Rate::Ofdm36 => Modulation::Qam16,
            Rate::Ofdm48 | Rate::Ofdm54 => Modulation::Qam64,
            Rate::Dsss1 => Modulation::Dbpsk,
            Rate::Dsss2 => Modulation::Dqpsk,
            Rate::Cck5_5 | Rate::Cck11 => Modulation::Cck,
        }
    }

    /// The convolutional code rate (Table 17-4); `None` for DSSS/CCK.
    pub const fn code_rate(self) -> Option<CodeRate> {
        match self {
            Rate::Ofdm6 | Rate::Ofdm12 | Rate::Ofdm24 => Some(CodeRate::Half),
            Rate::Ofdm48 => Some(CodeRate::TwoThirds),
            Rate::Ofdm9 | Rate::Ofdm18 | Rate::Ofdm36 | Rate::Ofdm54 => {
                Some(CodeRate::ThreeQuarters)
            }
            Rate::Dsss1 | Rate::Dsss2 | Rate::Cck5_5 | Rate::Cck11 => None,
        }
    }

    /// Coded bits per subcarrier `N_BPSC` (Table 17-4); `None` for DSSS/CCK.
    pub const fn n_bpsc(self) -> Option<u64> {
        match self.modulation() {
            Modulation::Bpsk => Some(1),
            Modulation::Qpsk => Some(2),
            Modulation::Qam16 => Some(4),
            Modulation::Qam64 => Some(6),
            _ => None,
        }
    }

    /// Coded bits per OFDM symbol `N_CBPS` = 48 · N_BPSC (Table 17-4).
    pub const fn n_cbps(self) -> Option<u64> {
        match self.n_bpsc() {
            Some(b) => Some(48 * b),
            None => None,
        }
    }

    /// Data bits per OFDM symbol `N_DBPS` (Table 17-4): 24, 36, 48, 72, 96,
    /// 144, 192, 216; `None` for DSSS/CCK. Equals the rate in Mb/s × 4 µs.
    pub const fn n_dbps(self) -> Option<u64> {
        match self.standard() {
            Standard::A11 => Some(self.kbps() * 4 / 1000),
            Standard::B11 => None,
        }
    }

    /// Whether the standard makes the rate mandatory (and so basic here).
    pub fn is_mandatory(self) -> bool {
        self.standard().basic_rates().contains(&self)
    }

    /// The next faster rate of the same PHY, if any.
    pub fn up(self) -> Option<Rate> {
        let rates = self.standard().rates();
        let i = rates.iter().position(|&r| r == self)?;
        rates.get(i + 1).copied()
    }

    /// The next slower rate of the same PHY, if any.
    pub fn down(self) -> Option<Rate> {
        let rates = self.standard().rates();
        let i = rates.iter().position(|&r| r == self)?;
        i.checked_sub(1).map(|j| rates[j])
    }
}

/// The rate of a control response (ACK, CTS) to a frame sent at `rate`
/// (802.11-2016 §10.7.6.5.2): the highest rate of the basic rate set that
/// is at most `rate`, of the same PHY; if there is none, the highest
/// mandatory rate at most `rate`. Here the basic set is the mandatory set,
/// so 54 Mb/s → 24, 18 → 12, 9 → 6; 11 and 5.5 Mb/s → 2, 1 → 1.
pub fn control_response_rate(rate: Rate) -> Rate {
    let std = rate.standard();
    std.basic_rates()
        .iter()
        .copied()
        .filter(|r| r.kbps() <= rate.kbps())
        .max_by_key(|r| r.kbps())
        .unwrap_or(std.lowest_rate())
}

/// The preamble a frame at `rate` really uses: the short 11b format does
/// not exist at 1 Mb/s (§16.2.2.3), so such frames go out with the long one.
pub const fn effective_preamble(rate: Rate, preamble: Preamble) -> Preamble {
    match (rate, preamble) {
        (Rate::Dsss1, _) => Preamble::Long,
        (_, p) => p,
    }
}

/// TXTIME of a PPDU carrying `psdu_bytes` at `rate` (SPECS §5.2):
///
/// ```text
/// OFDM (§17.4.3):     20 µs + 4 µs · ⌈(16 + 8·L + 6) / N_DBPS⌉
/// DSSS/CCK (§16.3.4): PLCP (192 µs long, 96 µs short) + ⌈8·L / R⌉ µs
/// ```
///
/// e.g. a 1536-byte PSDU: 248 µs at 54 Mb/s, 2072 µs at 6 Mb/s; 1310 µs at
/// 11 Mb/s (long preamble); a 14-byte ACK: 28 µs at 24 Mb/s, 304 µs at
/// 1 Mb/s. `preamble` is ignored by 11a and forced long at 1 Mb/s.
pub fn txtime(rate: Rate, psdu_bytes: u32, preamble: Preamble) -> Dur {
    let bits = 8 * u64::from(psdu_bytes);
    match rate.n_dbps() {
        Some(n_dbps) => {
            let symbols = (A11_SERVICE_BITS + bits + A11_TAIL_BITS).div_ceil(n_dbps);
            A11_PREAMBLE_AND_HEADER + A11_SYMBOL.saturating_mul(symbols)
        }
        None => {
            let plcp = Standard::B11.preamble_and_header(effective_preamble(rate, preamble));
            // ⌈8·L / R⌉ µs with R in Mb/s = ⌈8000·L / R_kbps⌉.
            let micros = (bits * 1000).div_ceil(rate.kbps());
            plcp + Dur::from_micros(micros)
        }
    }
}

/// TXTIME of the ACK (or CTS) answering a frame sent at `rate`.
pub fn ack_txtime(rate: Rate, preamble: Preamble) -> Dur {
    txtime(control_response_rate(rate), ACK_BYTES, preamble)
}
