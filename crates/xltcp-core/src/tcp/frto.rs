//! Spurious timeouts: F-RTO (RFC 5682, with `Config::frto`), Eifel
//! detection (RFC 3522, with `Config::eifel`) and the undo of a timeout
//! found spurious.
//!
//! A timeout may be spurious: the segments were delayed (a long MAC
//! retry, a blockage the MAC rode out), not lost, and going back N resends
//! a window the receiver already has. F-RTO tells the two apart. Without
//! SACK, `FrtoVariant::Rfc5682` runs the basic algorithm of RFC 5682 §2:
//!
//! 1. On a timeout (not one repeated in RTO recovery), retransmit the
//!    first unacknowledged segment as usual.
//! 2. On the first ACK after it: a duplicate ACK, an ACK up to `recover`,
//!    or one short of the retransmitted segment's end means a real loss:
//!    conventional recovery (go back N in slow start). An ACK beyond the
//!    retransmitted segment sends up to two *new* segments, whatever cwnd
//!    says (none possible: conventional recovery), and goes to step 3.
//! 3. On the next ACK: a duplicate ACK means a real loss: cwnd at most
//!    3 SMSS and go back N. An ACK of new data acknowledges segments sent
//!    before the timeout and never resent: the timeout was spurious.
//!
//! With SACK it runs §3's SACK-enhanced algorithm, which differs in how it
//! reads duplicate ACKs: in step 2 they only update the scoreboard (the
//! sender waits for the retransmitted segment's ACK); in step 3 an ACK,
//! duplicate or not, that newly acknowledges data below `recover` sent
//! before the timeout and never resent, cumulatively or in its SACK
//! blocks, shows the timeout spurious, and one that acknowledges only the
//! new segments (or nothing) shows it real. Blocks SACKed before the
//! timeout are not new: the scoreboard forgets them at the timeout (RFC
//! 2018 §8), so F-RTO keeps its own copy.
//!
//! `FrtoVariant::Linux` is Linux's reading (`tcp_process_loss`), with or
//! without SACK: an ACK that (s)acknowledges data never resent shows the
//! timeout spurious at any step, also the first ACK after the
//! retransmission (RFC 5682 would send two new segments first); a
//! duplicate ACK waits in step 2; in step 3 a duplicate ACK or a SACK of
//! the new segments alone shows it real, and the slow-start cwnd stays.
//! Linux also runs F-RTO on a timeout that repeats one (RFC 5682 §3.2
//! allows it), restoring the first timeout's window if it was spurious,
//! but not on one that ends fast recovery. Data counts as never resent
//! above the highest retransmission since the episode began (retransmissions
//! are contiguous from SND.UNA in going back N; a tail loss probe's copy of
//! the last segment is not tracked).
//!
//! The response to a spurious timeout (RFC 5682 §5 leaves it open) is
//! Linux's undo (`tcp_undo_cwnd_reduction`): cwnd and ssthresh return to
//! at least their values before the timeout, the connection leaves loss
//! recovery and goes on with new data, and duplicate ACKs may start fast
//! recovery at once for a hole that is left (as in Linux's Open state;
//! after a timeout that is not undone, none starts before SND.UNA passes
//! `recover`). The backed-off RTO stays until the
//! next RTT sample, as it does after any timeout. Each spurious timeout is
//! counted (`Stats::spurious_rtos`).
//!
//! With `dsack_undo` (and SACK) a timeout is also undone as Linux undoes
//! one (`tcp_try_undo_loss`), with the same response: a timeout in a new
//! window starts an undo state of its own (`tcp_enter_loss`), and an ACK
//! that advances SND.UNA once every retransmission since has come back as
//! a DSACK shows it was not needed. A timeout inside fast recovery's
//! window, or repeating one, keeps the undo state it found.

use super::recovery::union_len;
use super::{CongestionState, Endpoint, Frto, Recovery};
use crate::time::Time;
use crate::wire::{SackBlock, Segment, SeqNum};

impl Endpoint {
    /// Eifel detection (RFC 3522), on an ACK that advanced SND.UNA while
    /// the timeout's recovery lasts: a TSecr older than the first
    /// retransmission's timestamp echoes an original, so the timeout was
    /// spurious. The response is F-RTO's (Linux's undo): cwnd and
    /// ssthresh back to at least their values before it, the Open state,
    /// and new data from SND.MAX instead of going back N.
    pub(crate) fn eifel_on_ack(&mut self, now: Time, seg: &Segment) {
        let Some((rtx_ts, (cwnd, ssthresh))) = self.eifel else {
            return;
        };
        if self.cstate != CongestionState::Loss {
            self.eifel = None;
            return;
        }
        let Some((_, tsecr)) = seg.options.timestamps else {
            return;
        };
        if (rtx_ts.wrapping_sub(tsecr) as i32) > 0 {
            self.eifel = None;
            self.undo_timeout(now, (cwnd, ssthresh));
        }
    }

    /// The response to a spurious timeout (module doc): cwnd and ssthresh
    /// back to at least `prior`, the Open state, new data from SND.MAX,
    /// and fast retransmit allowed again at once.
    pub(crate) fn undo_timeout(&mut self, now: Time, prior: (u64, u64)) {
        self.stats.spurious_rtos += 1;
        // The receiver holds what it SACKed before the timeout (the
        // scoreboard forgot it, RFC 2018 §8; Linux never does).
        let known = std::mem::take(&mut self.sacked_at_rto);
        for &(left, right) in &known {
            if right > self.snd_una {
                self.scoreboard.add(SackBlock {
                    left: left.max(self.snd_una),
                    right,
                });
            }
        }
        self.sacked_at_rto = known;
        // Linux forgets the timeout's loss marks (`tcp_undo_cwnd_reduction`).
        self.sent.clear_lost();
        self.win.cwnd = self.win.cwnd.max(prior.0);
        self.win.ssthresh = self.win.ssthresh.max(prior.1);
        self.snd_nxt = self.snd_max;
        // `recover` (set to SND.MAX by the timeout) holds fast retransmit
        // back against the duplicate ACKs of going back N (RFC 6582 §3.2
        // step 4, RFC 6675 §5.1); an undone timeout went back over nothing,
        // and a hole left below `recover` must not wait for the next one.
        self.recover = SeqNum(self.snd_una.0.wrapping_sub(1));
        self.frto = Frto::Off;
        self.frto_new = 0;
        self.set_cstate(CongestionState::Open);
        // As Linux goes on from its Open state with the same ACK: a hole
        // the SACK blocks already show lost (RFC 6675 IsLost) is repaired
        // by fast retransmit now, not after the next timeout.
        let smss = u64::from(self.smss);
        if self.recovery == Recovery::Sack
            && !self.rack_on()
            && self.scoreboard.is_lost(self.snd_una, smss)
        {
            self.enter_recovery(now);
        }
    }

    /// F-RTO step 2b: up to two new segments, whatever cwnd says, if the
    /// data and the receiver's window allow one; false if none can go.
    pub(crate) fn frto_send_new(&mut self) -> bool {
        let outstanding = self.snd_max.since(self.snd_una).max(0) as u64;
        let room = self.snd_wnd.saturating_sub(outstanding);
        if self.snd_max < self.snd_buf_end && room > 0 {
            self.snd_nxt = self.snd_max;
            self.frto_new = 2;
            self.frto = Frto::Second;
            true
        } else {
            self.frto = Frto::Off;
            false
        }
    }

    /// F-RTO found the timeout real: go back N from SND.UNA, cwnd at most
    /// `cap` bytes.
    pub(crate) fn frto_real_loss(&mut self, cap: u64) {
        self.win.cwnd = self.win.cwnd.min(cap);
        self.snd_nxt = self.snd_una;
        self.frto = Frto::Off;
        self.frto_new = 0;
    }

    /// Bytes of the data sent before the timeout and never resent
    /// (`frto_originals`) that are acknowledged now: cumulatively, SACKed
    /// since the timeout, or SACKed before it.
    pub(crate) fn frto_originals_acked(&self) -> u64 {
        let (lo, hi) = self.frto_originals;
        if lo >= hi {
            return 0;
        }
        let cum_end = self.snd_una.min(hi);
        let cum = cum_end.since(lo).max(0) as u64;
        cum + union_len(
            self.scoreboard.ranges(),
            &self.sacked_at_rto,
            cum_end.max(lo),
            hi,
        )
    }

    /// Steps 2 and 3 of RFC 5682 §2, the basic algorithm (module doc).
    pub(crate) fn frto_basic(&mut self, now: Time, ack: SeqNum, advanced: bool, dup: bool) {
        match self.frto {
            Frto::Off => {}
            Frto::First { rtx_end } => {
                if dup || (advanced && (ack >= self.recover || ack < rtx_end)) {
                    // Step 2a: conventional recovery.
                    self.frto = Frto::Off;
                } else if advanced {
                    self.frto_send_new();
                }
            }
            Frto::Second => {
                if advanced {
                    // Step 3b: segments sent before the timeout and never
                    // resent were acknowledged: the timeout was spurious.
                    self.undo_timeout(now, self.frto_prior);
                } else if dup {
                    // Step 3a: a real loss; go back N in slow start.
                    self.frto_real_loss(3 * u64::from(self.smss));
                }
            }
        }
    }

    /// Steps 2 and 3 of RFC 5682 §3, the SACK-enhanced algorithm (module
    /// doc).
    pub(crate) fn frto_sack(&mut self, now: Time, ack: SeqNum, advanced: bool, dup: bool) {
        match self.frto {
            Frto::Off => {}
            Frto::First { rtx_end } => {
                if !advanced {
                    // Step 2: a duplicate ACK updates the scoreboard only.
                } else if ack >= self.recover || ack < rtx_end {
                    // Step 2a: conventional recovery.
                    self.frto = Frto::Off;
                } else if self.frto_send_new() {
                    // Step 2b; step 3 looks for acknowledgements beyond these.
                    self.frto_acked = self.frto_originals_acked();
                }
            }
            Frto::Second => {
                if self.frto_originals_acked() > self.frto_acked {
                    // Step 3b: data below `recover` never resent was newly
                    // acknowledged, cumulatively or by SACK: spurious.
                    self.undo_timeout(now, self.frto_prior);
                } else if advanced || dup {
                    // Step 3a: only the new segments (or nothing) newly
                    // acknowledged: a real loss.
                    self.frto_real_loss(3 * u64::from(self.smss));
                }
            }
        }
    }

    /// Linux's F-RTO (`FrtoVariant::Linux`): the SACK-enhanced steps, but
    /// data never resent (s)acknowledged at any step shows the timeout
    /// spurious at once, and a real loss keeps the slow-start cwnd.
    pub(crate) fn frto_linux(&mut self, now: Time, ack: SeqNum, advanced: bool, dup: bool) {
        if self.frto_originals_acked() > self.frto_acked {
            self.undo_timeout(now, self.frto_prior);
            return;
        }
        match self.frto {
            Frto::Off => {}
            Frto::First { .. } => {
                if !advanced {
                    // Step 2: waiting for the resent segment's ACK.
                } else if ack >= self.recover {
                    // Everything outstanding acknowledged, none of it
                    // never resent: conventional.
                    self.frto = Frto::Off;
                } else {
                    self.frto_send_new();
                }
            }
            Frto::Second => {
                if dup {
                    self.frto_real_loss(u64::MAX);
                }
            }
        }
    }
}
