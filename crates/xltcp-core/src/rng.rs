//! Named random streams.
//!
//! Every random process (a link's loss process, a primary user's ON/OFF
//! schedule, a MAC's back-off) draws from its own stream, derived from the
//! run's seed and the process's name. Two runs of the same scenario and seed
//! therefore see the same loss pattern and the same blockages whichever scheme
//! is switched on, so scheme comparisons are paired.

use rand::SeedableRng;
pub use rand_pcg::Pcg64Mcg as Stream;

/// The generator behind every named stream.
pub type Rng = Stream;

/// 64-bit FNV-1a: a stable hash of a process name (std's hashers are not
/// guaranteed stable across releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser, used to spread (seed, name) over 128 bits of state.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream of the random process `name` in a run seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> Rng {
    let h = fnv1a(name.as_bytes());
    let hi = splitmix(seed ^ splitmix(h));
    let lo = splitmix(hi ^ h.rotate_left(17));
    Rng::from_seed(((hi as u128) << 64 | lo as u128).to_le_bytes())
}

/// The seed of a part of the run that derives its streams by their own
/// names (a second hop, whose processes must not share the first hop's
/// streams): a run seeded with `seed` gives part `name` this seed.
pub fn derive_seed(seed: u64, name: &str) -> u64 {
    splitmix(seed ^ splitmix(fnv1a(name.as_bytes()) ^ 0x6a09_e667_f3bc_c909))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    /// Golden values: if this test fails, a dependency or the derivation
    /// changed and every published result would silently change with it.
    #[test]
    fn golden_first_draws() {
        let mut r = stream(1, "wireless.down.loss");
        let draws: Vec<u64> = (0..3).map(|_| r.random::<u64>()).collect();
        insta::assert_debug_snapshot!(draws);
    }

    #[test]
    fn streams_differ_by_name_and_seed() {
        let a = stream(1, "a").random::<u64>();
        let b = stream(1, "b").random::<u64>();
        let c = stream(2, "a").random::<u64>();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, stream(1, "a").random::<u64>());
    }
}
