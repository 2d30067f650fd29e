//! Two stations on one shared medium, with an optional primary user: the
//! MACs driven end to end by a tiny event loop that stands in for the
//! engine's medium model (collisions, PU blockage, injected losses).

use super::*;
use crate::rng::stream;
use crate::time::{Dur, Time};

/// A frame on the air.
#[derive(Clone, Copy, Debug)]
struct Air {
    tx: Transmission,
    from: usize,
    corrupted: bool,
}

impl Air {
    fn end(&self) -> Time {
        self.tx.start + self.tx.airtime
    }
}

/// Decides which attempts the medium corrupts on its own (bit errors).
type LoseFn = Box<dyn FnMut(TxKind, u64, u8) -> bool>;
/// Called when station `to` receives data frame `id`; may enqueue a reply.
type OnData = Box<dyn FnMut(usize, &mut Mac, Time, u64)>;

/// Stations 0 and 1 send to each other; a PU is busy over `pu` intervals.
struct Net {
    macs: Vec<Mac>,
    now: Time,
    pending: Vec<(Transmission, usize)>,
    on_air: Vec<Air>,
    pu: Vec<(Time, Time)>,
    level: Vec<bool>,
    lose: LoseFn,
    on_data: OnData,
    events: Vec<(Time, usize, MacEvent)>,
    started: Vec<(usize, Transmission)>,
    collisions: u64,
}

impl Net {
    fn new(config: MacConfig, seed: u64) -> Net {
        Net {
            macs: vec![
                Mac::new(config, stream(seed, "st.mac")),
                Mac::new(config, stream(seed, "bs.mac")),
            ],
            now: Time::ZERO,
            pending: Vec::new(),
            on_air: Vec::new(),
            pu: Vec::new(),
            level: vec![false, false],
            lose: Box::new(|_, _, _| false),
            on_data: Box::new(|_, _, _, _| {}),
            events: Vec::new(),
            started: Vec::new(),
            collisions: 0,
        }
    }

    fn pu_on(&self, t: Time) -> bool {
        self.pu.iter().any(|&(a, b)| a <= t && t < b)
    }

    /// The next instant anything happens.
    fn next(&self) -> Option<Time> {
        let ends = self.on_air.iter().map(Air::end);
        let starts = self.pending.iter().map(|(t, _)| t.start);
        let edges = self
            .pu
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .filter(|&t| t > self.now);
        let timers = self.macs.iter().filter_map(Mac::poll_timeout);
        ends.chain(starts).chain(edges).chain(timers).min()
    }

    /// Drains station `i`'s outputs.
    fn drain(&mut self, i: usize) {
        while let Some(e) = self.macs[i].poll_event() {
            self.events.push((self.now, i, e));
        }
        while let Some(tx) = self.macs[i].poll_transmit() {
            self.pending.push((tx, i));
        }
    }

    /// Puts due transmissions on the air, marking collisions.
    fn start_due(&mut self) {
        let now = self.now;
        let (due, later): (Vec<_>, Vec<_>) =
            self.pending.drain(..).partition(|(t, _)| t.start <= now);
        self.pending = later;
        for (tx, from) in due {
            let mut air = Air {
                tx,
                from,
                corrupted: self.pu_on(now) || (self.lose)(tx.kind, tx.frame.id, tx.attempt),
            };
            for other in &mut self.on_air {
                other.corrupted = true;
                air.corrupted = true;
                self.collisions += 1;
            }
            self.started.push((from, tx));
            self.on_air.push(air);
        }
    }

    /// Ends finished transmissions and hands intact frames to their addressee.
    fn end_due(&mut self) {
        let now = self.now;
        let (done, still): (Vec<_>, Vec<_>) = self.on_air.drain(..).partition(|a| a.end() <= now);
        self.on_air = still;
        for a in done {
            let to = 1 - a.from;
            if a.corrupted {
                continue;
            }
            match a.tx.kind {
                TxKind::Data => {
                    self.macs[to].handle_data(now, a.tx.frame.id);
                    (self.on_data)(to, &mut self.macs[to], now, a.tx.frame.id);
                }
                TxKind::Ack => self.macs[to].handle_ack(now, a.tx.frame.id),
            }
            self.drain(to);
        }
    }

    /// Tells each station the medium level it senses (others' frames + PU).
    fn sense(&mut self) {
        let pu = self.pu_on(self.now);
        if pu {
            for a in &mut self.on_air {
                a.corrupted = true;
            }
        }
        for i in 0..self.macs.len() {
            let busy = pu || self.on_air.iter().any(|a| a.from != i);
            if busy != self.level[i] {
                self.level[i] = busy;
                self.macs[i].handle_channel(self.now, busy);
                self.drain(i);
            }
        }
    }

    fn run(&mut self, until: Time) {
        self.sense();
        while let Some(t) = self.next() {
            if t > until {
                break;
            }
            self.now = t;
            self.end_due();
            self.sense();
            for i in 0..self.macs.len() {
                self.macs[i].handle_timeout(t);
                self.drain(i);
            }
            self.start_due();
            self.sense();
        }
    }

    fn delivered(&self, station: usize) -> Vec<(Time, u64, u8)> {
        self.events
            .iter()
            .filter_map(|&(t, i, e)| match e {
                MacEvent::Delivered { frame, attempts } if i == station => {
                    Some((t, frame, attempts))
                }
                _ => None,
            })
            .collect()
    }
}

fn paper_frame(id: u64) -> Frame {
    Frame {
        id,
        mpdu_len: FrameLayout::paper_000().mpdu_len(),
    }
}

fn saturated(n: u64, seed: u64) -> Net {
    let mut net = Net::new(
        MacConfig {
            queue_limit: n as usize,
            ..MacConfig::default()
        },
        seed,
    );
    for id in 0..n {
        net.macs[0].enqueue(Time::ZERO, paper_frame(id));
    }
    net
}

/// With one saturated sender and a receiver that only ACKs, every frame
/// costs exactly its back-off plus the fixed part of the oracle cycle.
#[test]
fn saturated_sender_matches_the_oracle_cycle_exactly() {
    let n = 2000;
    let mut net = saturated(n, 1);
    net.run(Time::NEVER);
    let got = net.delivered(0);
    assert_eq!(got.len() as u64, n);
    assert!(got.iter().all(|&(_, _, attempts)| attempts == 1));
    assert!(got.iter().enumerate().all(|(i, d)| d.1 == i as u64), "FIFO");
    let oracle = OracleCapacity::one_way(FrameLayout::paper_000());
    let s = *net.macs[0].stats();
    // Fixed part per frame: CCA + turnaround + PPDU + turnaround + ACK;
    // a LIFS between consecutive frames.
    let fixed = oracle.cycle() - oracle.mean_backoff() - ifs(127);
    let want = Time::ZERO
        + unit_backoff_period().saturating_mul(s.backoff_periods)
        + fixed.saturating_mul(n)
        + ifs(127).saturating_mul(n - 1);
    assert_eq!(got.last().unwrap().0, want);
    assert_eq!(net.macs[1].stats().acks_sent, n);
    assert_eq!(net.collisions, 0);

    // Goodput over n cycles against the oracle: only the realised mean
    // back-off differs (sd of the mean ≈ 0.05 units ≈ 0.25 % of a cycle).
    let elapsed = (want + ifs(127)) - Time::ZERO;
    let goodput = (n * 8 * 94) as f64 / elapsed.as_secs_f64();
    let ratio = goodput / oracle.bps();
    assert!((ratio - 1.0).abs() < 0.01, "goodput/oracle = {ratio}");
}

/// Reverse "TCP ACK" frames every second data frame contend with the data
/// sender: accounting balances and goodput stays under the oracle that
/// charges their airtime.
#[test]
fn reverse_traffic_contends_and_stays_under_the_oracle() {
    let n = 2000;
    let mut net = saturated(n, 2);
    let ack_mpdu = FrameLayout::paper_000().with_payload(0).unwrap().mpdu_len();
    let mut count = 0u64;
    net.on_data = Box::new(move |to, mac, now, _id| {
        if to != 1 {
            return;
        }
        count += 1;
        if count.is_multiple_of(2) {
            mac.enqueue(
                now,
                Frame {
                    id: 1_000_000 + count,
                    mpdu_len: ack_mpdu,
                },
            );
        }
    });
    net.run(Time::NEVER);
    let data = net.delivered(0);
    let st = *net.macs[0].stats();
    let bs = *net.macs[1].stats();
    // Every frame ends in exactly one event at its sender.
    assert_eq!(
        st.enqueued,
        st.delivered + st.retry_limit_drops + st.channel_access_failures
    );
    assert_eq!(
        bs.enqueued,
        bs.delivered + bs.retry_limit_drops + bs.channel_access_failures
    );
    assert_eq!(st.enqueued, n);
    assert!(bs.enqueued >= n / 2 - 1);
    let last = data.last().unwrap().0;
    let goodput = (data.len() as u64 * 8 * 94) as f64 / last.as_secs_f64();
    let oracle = OracleCapacity {
        reverse_ack_mpdu: Some(ack_mpdu),
        data_frames_per_ack: 2.0,
        ..OracleCapacity::one_way(FrameLayout::paper_000())
    };
    let ratio = goodput / oracle.bps();
    assert!(ratio < 1.0, "goodput/oracle = {ratio}");
    assert!(ratio > 0.8, "goodput/oracle = {ratio}");
    assert!(
        net.collisions > 0,
        "CCA-to-TX turnaround is a vulnerable window"
    );
}

/// While a primary user occupies the channel no frame starts; frames that
/// meet it fail with channel-access failures, and traffic resumes after.
#[test]
fn primary_user_blocks_the_hop() {
    let n = 400;
    let mut net = saturated(n, 3);
    let (on, off) = (
        Time::ZERO + Dur::from_millis(100),
        Time::ZERO + Dur::from_millis(600),
    );
    net.pu = vec![(on, off)];
    net.run(Time::NEVER);
    // Only a frame already on the air (or its ACK) can overlap the PU.
    for &(who, tx) in &net.started {
        assert!(
            !(tx.start >= on && tx.start < off),
            "station {who} started {tx:?} during the PU"
        );
    }
    let st = *net.macs[0].stats();
    assert!(st.channel_access_failures > 0);
    assert_eq!(
        st.enqueued,
        st.delivered + st.retry_limit_drops + st.channel_access_failures
    );
    // A CSMA-CA gives up within 5 CCAs and at most 7+15+31+31+31 units.
    let worst = unit_backoff_period().saturating_mul(115) + cca_duration().saturating_mul(5);
    let failures: Vec<Time> = net
        .events
        .iter()
        .filter(|(_, _, e)| {
            matches!(
                e,
                MacEvent::Undelivered {
                    reason: UndeliveredReason::ChannelAccessFailure,
                    ..
                }
            )
        })
        .map(|&(t, _, _)| t)
        .collect();
    assert!(failures.iter().all(|&t| t > on && t <= off + worst));
    // Deliveries resume after the PU: the first one after `off` comes soon.
    let after = net.delivered(0).into_iter().find(|d| d.0 > off).unwrap();
    assert!(after.0 - off < Dur::from_millis(20), "{:?}", after.0 - off);
}

/// Losing a data frame costs a retransmission; losing its ACK too, and the
/// receiver then sees (and ACKs) the frame twice.
#[test]
fn lost_frames_and_lost_acks_are_retransmitted() {
    let n = 50;
    let mut net = saturated(n, 4);
    let mut acks_lost = std::collections::BTreeSet::new();
    net.lose = Box::new(move |kind, id, attempt| match kind {
        TxKind::Data => id % 5 == 0 && attempt == 1,
        // The first ACK of frames 7, 14, 21, 28, 42, 49 (35 is lost as data).
        TxKind::Ack => id % 7 == 0 && id % 5 != 0 && acks_lost.insert(id),
    });
    net.run(Time::NEVER);
    let got = net.delivered(0);
    assert_eq!(got.len() as u64, n);
    for &(_, id, attempts) in &got {
        let want = if id % 5 == 0 || id % 7 == 0 { 2 } else { 1 };
        assert_eq!(attempts, want, "frame {id}");
    }
    // After a lost ACK the receiver got the frame twice and ACKed it twice.
    let ack_lost = 6;
    assert_eq!(net.macs[1].stats().acks_sent, n + ack_lost);
    assert_eq!(net.macs[0].stats().ack_timeouts, n / 5 + ack_lost);
    assert_eq!(net.macs[0].stats().retransmissions, n / 5 + ack_lost);
}
