//! The receiving side of the DCF: ACK after SIFS with duplicate
//! detection, CTS after SIFS when the NAV allows.

use super::{Dcf, Phase};
use crate::radio::wifi::events::MacEvent;
use crate::radio::wifi::frame::{Transmission, TxKind};
use crate::radio::wifi::{control_response_rate, effective_preamble, txtime};
use crate::radio::wifi::{ACK_BYTES, CTS_BYTES};
use crate::time::{Dur, Time};

impl Dcf {
    /// Whether the radio is committed to sending around `now`.
    fn committed(&self, now: Time) -> bool {
        matches!(self.phase, Phase::Tx { .. } | Phase::SifsData { .. }) || self.own_tx_until > now
    }

    /// §10.3.2.9 / §10.3.2.14: ACK SIFS after the data; a retransmission
    /// (Retry bit) whose sequence number was the last one received from
    /// that transmitter is a duplicate.
    pub(super) fn receive_data(&mut self, now: Time, tx: &Transmission) {
        if self.committed(now) {
            self.stats.rx_while_transmitting += 1;
            return;
        }
        let duplicate = tx.retry && self.rx_seq.get(&tx.from) == Some(&tx.seq);
        self.rx_seq.insert(tx.from, tx.seq);
        let event = if duplicate {
            self.stats.duplicates += 1;
            MacEvent::Duplicate {
                frame: tx.frame,
                from: tx.from,
            }
        } else {
            self.stats.received += 1;
            MacEvent::Received {
                frame: tx.frame,
                from: tx.from,
            }
        };
        self.events.push_back(event);
        self.stats.acks_sent += 1;
        self.respond(now, TxKind::Ack, tx, ACK_BYTES, Dur::ZERO);
    }

    /// §10.3.2.6: CTS SIFS after an RTS, only if the NAV is clear.
    pub(super) fn receive_rts(&mut self, now: Time, tx: &Transmission) {
        if self.committed(now) || now < self.nav_until {
            self.stats.rts_ignored += 1;
            return;
        }
        let rate = control_response_rate(tx.rate);
        let sifs = self.config.standard.sifs();
        // §9.3.1.3: Duration = RTS Duration − SIFS − CTS.
        let duration = tx.duration - sifs - txtime(rate, CTS_BYTES, self.config.preamble);
        self.stats.cts_sent += 1;
        self.respond(now, TxKind::Cts, tx, CTS_BYTES, duration);
    }

    fn respond(&mut self, now: Time, kind: TxKind, to: &Transmission, bytes: u32, duration: Dur) {
        let rate = control_response_rate(to.rate);
        let start = now + self.config.standard.sifs();
        let airtime = txtime(rate, bytes, self.config.preamble);
        self.note_own_tx(start, start + airtime);
        self.transmits.push_back(Transmission {
            kind,
            from: self.addr,
            to: to.from,
            frame: to.frame,
            seq: to.seq,
            retry: false,
            psdu_bytes: bytes,
            rate,
            preamble: effective_preamble(rate, self.config.preamble),
            start,
            airtime,
            duration,
            attempt: 1,
        });
    }
}
