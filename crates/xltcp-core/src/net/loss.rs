//! Frame-loss processes of a link direction.
//!
//! Each process draws from its own named stream, so the loss pattern of a
//! seed is the same whichever scheme runs (SPECS §8 for Gilbert-Elliott).

use crate::rng::Rng;
use crate::scenario::LossSpec;
#[cfg(test)]
use crate::scenario::LossSteps;
use rand::RngExt;
use std::sync::Arc;

/// A per-frame loss process.
#[derive(Debug)]
pub enum LossProcess {
    /// Never loses.
    None,
    /// Each frame lost independently with probability `p`.
    Iid {
        /// Loss probability.
        p: f64,
        /// The process's stream.
        rng: Rng,
    },
    /// Simple Gilbert: two states, every frame lost in Bad, none in Good;
    /// one transition per frame. `p` = P(G->B), `r` = P(B->G).
    Gilbert {
        /// P(Good -> Bad) per frame.
        p: f64,
        /// P(Bad -> Good) per frame.
        r: f64,
        /// Current state.
        bad: bool,
        /// The process's stream.
        rng: Rng,
    },
    /// `model = "list"`: the frames whose numbers are listed.
    List {
        /// Frame numbers to lose, counted from 1, sorted.
        frames: Arc<[u64]>,
        /// Index in `frames` of the next frame to lose.
        next: usize,
        /// Frames decided so far.
        seen: u64,
    },
}

impl LossProcess {
    /// Builds the process of `spec` on stream `rng`. Gilbert starts in its
    /// stationary distribution (SPECS §8 checklist).
    pub fn new(spec: &LossSpec, mut rng: Rng) -> LossProcess {
        match *spec {
            LossSpec::None => LossProcess::None,
            LossSpec::Iid { p } if p <= 0.0 => LossProcess::None,
            LossSpec::Iid { p } => LossProcess::Iid { p, rng },
            LossSpec::Gilbert { mean_loss, .. } if mean_loss <= 0.0 => LossProcess::None,
            LossSpec::Gilbert {
                mean_loss,
                mean_burst,
                ..
            } => {
                // SPECS §8: r = 1/L_b, p = P_L / (L_b (1 - P_L)).
                let r = 1.0 / mean_burst;
                let p = mean_loss / (mean_burst * (1.0 - mean_loss));
                let bad = rng.random::<f64>() < p / (p + r);
                LossProcess::Gilbert { p, r, bad, rng }
            }
            LossSpec::List { ref frames } if frames.is_empty() => LossProcess::None,
            LossSpec::List { ref frames } => LossProcess::List {
                frames: frames.clone(),
                next: 0,
                seen: 0,
            },
        }
    }

    /// Decides the fate of the next frame: true if it is lost.
    pub fn lose_next(&mut self) -> bool {
        match self {
            LossProcess::None => false,
            LossProcess::Iid { p, rng } => rng.random::<f64>() < *p,
            LossProcess::Gilbert { p, r, bad, rng } => {
                let lost = *bad;
                let u = rng.random::<f64>();
                *bad = if *bad { u >= *r } else { u < *p };
                lost
            }
            LossProcess::List { frames, next, seen } => {
                *seen += 1;
                let lost = frames.get(*next) == Some(seen);
                *next += lost as usize;
                lost
            }
        }
    }

    /// Advances the process by one frame without deciding a frame's fate
    /// (`steps = "both"`: a frame of the other direction went by). Only a
    /// Gilbert chain has a state to advance (a list counts only its own
    /// direction's frames); it draws as
    /// [`lose_next`](Self::lose_next) does.
    pub fn step(&mut self) {
        if let LossProcess::Gilbert { .. } = self {
            self.lose_next();
        }
    }

    /// The long-run loss probability.
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossProcess::None => 0.0,
            LossProcess::Iid { p, .. } => *p,
            LossProcess::Gilbert { p, r, .. } => *p / (*p + *r),
            // The list's share of the frames up to its last.
            LossProcess::List { frames, .. } => {
                frames.len() as f64 / *frames.last().unwrap_or(&1) as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn measure(spec: LossSpec, n: usize) -> (f64, f64) {
        let mut lp = LossProcess::new(&spec, stream(7, "test.loss"));
        let (mut lost, mut bursts, mut prev) = (0usize, 0usize, false);
        for _ in 0..n {
            let l = lp.lose_next();
            lost += l as usize;
            if l && !prev {
                bursts += 1;
            }
            prev = l;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn iid_hits_its_mean() {
        let (pl, _) = measure(LossSpec::Iid { p: 0.05 }, 1_000_000);
        assert!((pl - 0.05).abs() < 0.05 * 0.02, "measured {pl}");
    }

    /// SPECS §8 checklist: over 10^6 frames, mean loss and mean burst within 2 %.
    #[test]
    fn gilbert_hits_mean_loss_and_burst() {
        let spec = LossSpec::Gilbert {
            mean_loss: 0.05,
            mean_burst: 3.0,
            steps: LossSteps::Own,
        };
        let (pl, burst) = measure(spec, 1_000_000);
        assert!((pl - 0.05).abs() < 0.05 * 0.02, "measured loss {pl}");
        assert!((burst - 3.0).abs() < 3.0 * 0.02, "measured burst {burst}");
    }

    /// A step is a decision whose outcome is thrown away: interleaving steps
    /// with decisions consumes the stream exactly as deciding every frame
    /// does, so the frames decided see a subsequence of the same chain.
    #[test]
    fn a_step_advances_the_chain_like_a_decision() {
        let spec = LossSpec::Gilbert {
            mean_loss: 0.2,
            mean_burst: 3.0,
            steps: LossSteps::Both,
        };
        let mut all = LossProcess::new(&spec, stream(9, "test.loss"));
        let mut mixed = LossProcess::new(&spec, stream(9, "test.loss"));
        let full: Vec<bool> = (0..10_000).map(|_| all.lose_next()).collect();
        for (i, lost) in full.iter().enumerate() {
            if i % 3 == 1 {
                mixed.step();
            } else {
                assert_eq!(mixed.lose_next(), *lost, "frame {i}");
            }
        }
        // i.i.d. loss has no state: a step draws nothing.
        let mut iid = LossProcess::new(&LossSpec::Iid { p: 0.5 }, stream(9, "test.loss"));
        let mut iid2 = LossProcess::new(&LossSpec::Iid { p: 0.5 }, stream(9, "test.loss"));
        iid.step();
        let a: Vec<bool> = (0..100).map(|_| iid.lose_next()).collect();
        let b: Vec<bool> = (0..100).map(|_| iid2.lose_next()).collect();
        assert_eq!(a, b);
    }

    /// A list loses exactly its frames, counted from 1, and no others after
    /// its last.
    #[test]
    fn a_list_loses_exactly_its_frames() {
        let spec = LossSpec::List {
            frames: Arc::from(vec![1, 4, 5, 9]),
        };
        let mut lp = LossProcess::new(&spec, stream(1, "x"));
        let lost: Vec<u64> = (1..=20).filter(|_| lp.lose_next()).collect();
        assert_eq!(lost, vec![1, 4, 5, 9]);
        assert!((lp.mean_loss() - 4.0 / 9.0).abs() < 1e-12);
        let empty = LossSpec::List {
            frames: Arc::from(Vec::new()),
        };
        assert!(matches!(
            LossProcess::new(&empty, stream(1, "x")),
            LossProcess::None
        ));
    }

    #[test]
    fn zero_loss_never_draws() {
        let mut lp = LossProcess::new(&LossSpec::Iid { p: 0.0 }, stream(1, "x"));
        assert!(matches!(lp, LossProcess::None));
        assert!(!lp.lose_next());
    }
}
