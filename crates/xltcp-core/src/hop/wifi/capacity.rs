//! The oracle's bound for a flow over the 802.11 hop (see the module doc
//! of [`super`]): [`tcp_capacity`], the medium-time model, and the hop's
//! mean over the SNR and the loss process.

use super::WifiHop;
use crate::radio::snr::mean_over;
use crate::radio::wifi::error::{db_to_linear, per};
use crate::radio::wifi::{data_psdu_bytes, OracleCapacity, Rate, ReverseAck};
use crate::scenario::{Direction, FlowSpec, TcpSpec, WifiSpec};

impl WifiHop {
    /// The hop's capacity for `flow` (formula in the module doc).
    pub fn capacity(&self, flow: &FlowSpec) -> f64 {
        let tcp = &flow.tcp;
        let (model, preamble) = (self.spec.error_model, self.spec.preamble);
        let snr = self.spec.snr_of(flow.host_name());
        let process = if flow.direction == Direction::Down {
            &self.loss_down
        } else {
            &self.loss_up
        };
        let kept = 1.0 - process.mean_loss();
        if self.spec.arf {
            // An ideal rate choice at every SNR: a bound on any controller.
            let caps: Vec<_> = (self.spec.standard.rates().iter())
                .map(|&rate| tcp_capacity(&self.spec, tcp, rate, flow.link_overhead))
                .collect();
            return mean_over(snr, self.end, |db| {
                let x = db_to_linear(db);
                caps.iter()
                    .map(|cap| {
                        let psdu = data_psdu_bytes(cap.ip_bytes);
                        let p = 1.0 - (1.0 - per(model, cap.rate, preamble, x, psdu)) * kept;
                        cap.bps() / (1.0 + p)
                    })
                    .fold(0.0, f64::max)
            });
        }
        let cap = tcp_capacity(&self.spec, tcp, self.spec.rate, flow.link_overhead);
        let psdu = data_psdu_bytes(cap.ip_bytes);
        let rate = self.spec.rate;
        let success = mean_over(snr, self.end, |db| {
            1.0 - per(model, rate, preamble, db_to_linear(db), psdu)
        });
        let p = 1.0 - success * kept;
        cap.bps() / (1.0 + p)
    }
}
/// The medium-time model of TCP over an 802.11 hop of `spec` at `rate`:
/// segments of `tcp`'s MSS one way, its ACKs (one per
/// `delayed_ack_segments`) the other, each frame carrying `link_overhead`
/// bytes of a layer below IP (the UCL's security) besides its IP packet.
/// The oracle's and the UCL's.
pub fn tcp_capacity(
    spec: &WifiSpec,
    tcp: &TcpSpec,
    rate: Rate,
    link_overhead: u32,
) -> OracleCapacity {
    let ts = if tcp.timestamps { 12 } else { 0 } + link_overhead;
    OracleCapacity {
        rate,
        preamble: spec.preamble,
        ip_bytes: 40 + ts + tcp.mss,
        payload_bytes: tcp.mss,
        reverse_ack: Some(ReverseAck {
            ip_bytes: 40 + ts,
            data_frames_per_ack: f64::from(tcp.delayed_ack_segments.max(1)),
        }),
    }
}
