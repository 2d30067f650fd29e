//! The 802.11 hop's counters, its section of `summary.json`, and the
//! counters read at a time ([`WifiHop::stats_at`]).

use super::{sched, WifiHop};
use crate::radio::wifi::{EnergyMeter, RadioState};
use crate::scenario::ApScheduler;
use crate::time::Time;
use serde::Serialize;

/// Counters of one direction of the hop (BS -> hosts is `down`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WifiDirStats {
    /// Packets handed to a MAC.
    pub offered: u64,
    /// Data frames put on the air (first tries and retries).
    pub frames_sent: u64,
    /// IP bytes of the data frames put on the air.
    pub bytes_sent: u64,
    /// Of `frames_sent`, retransmissions.
    pub retransmissions: u64,
    /// RTS frames put on the air.
    pub rts_sent: u64,
    /// Longest MAC transmit queue seen, in frames.
    pub max_queue: u64,
    /// Packets received intact (first copies).
    pub arrived: u64,
    /// TCP payload bytes of the packets received (first copies).
    pub payload_bytes_arrived: u64,
    /// Duplicate data frames rejected by the receiver's DCF.
    pub duplicates: u64,
    /// Data frames destroyed by a collision.
    pub collided: u64,
    /// Data frames destroyed by a blockage of the channel (a primary user).
    pub blocked_destroyed: u64,
    /// Data frames lost to bit errors at the SNR or the loss process.
    pub lost: u64,
    /// Data frames their receiver could not hear (it was transmitting).
    pub deaf: u64,
    /// Control frames (ACK, RTS, CTS) sent this way that did not arrive
    /// intact (collision, blockage, bit errors).
    pub control_lost: u64,
    /// Packets dropped at the retry limit.
    pub drop_retry_limit: u64,
    /// Packets refused by a full MAC queue.
    pub drop_queue_full: u64,
    /// Packets refused as longer than 4095 bytes of PSDU.
    pub drop_too_long: u64,
    /// Packets cleared from the MAC queue by a retune (`tfp_queue = "flush"`).
    pub drop_flushed: u64,
    /// Packets an agent took back from the MAC queue before they reached
    /// the air ([`Hop::withdraw`](crate::hop::Hop::withdraw)): not drops;
    /// they are offered again when the agent sends them on.
    pub withdrawn: u64,
    /// Frames given up after their receiver got them (ACKs lost): not drops.
    pub undelivered_after_receipt: u64,
}

/// Time and energy of one station's radio over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StationEnergy {
    /// Station index (0 = the AP, `h + 1` = wireless host `h`).
    pub station: usize,
    /// Seconds transmitting.
    pub tx_s: f64,
    /// Seconds receiving (another station's frame on the air).
    pub rx_s: f64,
    /// Seconds idle listening.
    pub idle_s: f64,
    /// Seconds asleep (no power save is modelled: 0).
    pub sleep_s: f64,
    /// Joules spent.
    pub energy_j: f64,
    /// When the battery ran out, in seconds (none: it did not, or there is
    /// no battery).
    pub battery_depleted_at_s: Option<f64>,
}

/// The 802.11 hop's section of `summary.json` (`"wifi"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WifiStats {
    /// BS -> hosts.
    pub down: WifiDirStats,
    /// Hosts -> BS.
    pub up: WifiDirStats,
    /// Each station's radio time and energy, AP first.
    pub stations: Vec<StationEnergy>,
    /// TCP payload bits received intact (both directions) per joule spent
    /// by all stations (0 when nothing was spent).
    pub bits_per_joule: f64,
    /// Radios switched off by an empty battery (`on_empty = "off"`).
    #[serde(skip_serializing_if = "is_zero")]
    pub batteries_emptied: u64,
    /// The DSA cell's disruptions (`[wireless.dsa]`), if configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsa: Option<super::DsaStats>,
    /// The AP's per-receiver scheduler (`scheduler = "rr"` or `"pf"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<Box<SchedStats>>,
}

/// The AP's per-receiver scheduler: what it decided.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SchedStats {
    /// `"rr"` or `"pf"`.
    pub discipline: &'static str,
    /// Frames handed to the AP's MAC per receiving station (station 1 first).
    pub frames: Vec<u64>,
    /// Frames refused at a full receiver queue, per receiving station.
    pub refused: Vec<u64>,
    /// Seconds between the queue samples.
    pub queue_every_s: f64,
    /// Frames waiting per receiving station (station 1 first), sampled
    /// every `queue_every_s` from time 0.
    pub queue: Vec<Vec<u32>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl WifiHop {
    /// The counters with each station's energy at `now`.
    pub fn stats_at(&self, now: Time) -> WifiStats {
        let secs = |m: &EnergyMeter, s: RadioState| m.time_in(s, now).as_secs_f64();
        let stations: Vec<StationEnergy> = self
            .stations
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let m = &s.energy;
                let depleted = m
                    .depleted_at()
                    .or_else(|| m.poll_timeout().filter(|&t| t <= now));
                StationEnergy {
                    station: i,
                    tx_s: secs(m, RadioState::Tx),
                    rx_s: secs(m, RadioState::Rx),
                    idle_s: secs(m, RadioState::Idle),
                    sleep_s: secs(m, RadioState::Sleep),
                    energy_j: m.energy_j(now),
                    battery_depleted_at_s: depleted.map(|t| (t - Time::ZERO).as_secs_f64()),
                }
            })
            .collect();
        let joules: f64 = stations.iter().map(|s| s.energy_j).sum();
        let bytes = self.stats.down.payload_bytes_arrived + self.stats.up.payload_bytes_arrived;
        WifiStats {
            down: self.stats.down,
            up: self.stats.up,
            bits_per_joule: crate::radio::wifi::energy::bits_per_joule(8 * bytes, joules),
            stations,
            batteries_emptied: self.stats.batteries_emptied,
            dsa: self.dsa.as_ref().map(|d| d.stats_at(now)),
            scheduler: self.sched.as_ref().map(|s| {
                Box::new(SchedStats {
                    discipline: match self.spec.scheduler {
                        ApScheduler::RoundRobin => "rr",
                        _ => "pf",
                    },
                    frames: s.decisions[1..].to_vec(),
                    refused: self.sched_refused[1..].to_vec(),
                    queue_every_s: sched::SAMPLE_EVERY.as_secs_f64(),
                    queue: s.samples.clone(),
                })
            }),
        }
    }
}
