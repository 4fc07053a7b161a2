//! Random number streams, one per component.
//!
//! Derivation (stable; changing it changes every published result):
//!
//! * key: `ChaCha8Rng::seed_from_u64(master_seed)`, i.e. the master seed
//!   expanded to a 256-bit ChaCha key by `rand_core`'s documented PCG32-based
//!   `seed_from_u64`;
//! * stream: the 64-bit FNV-1a hash of the component's name (UTF-8 bytes),
//!   passed to `ChaCha8Rng::set_stream`.
//!
//! A component's draws therefore depend only on the master seed and its own
//! name (e.g. `"link/access/fwd/loss"`), never on how many other components
//! exist or in which order they were built.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// 64-bit FNV-1a (Fowler–Noll–Vo) hash: offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A named, portable random stream.
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: ChaCha8Rng,
}

impl RngStream {
    /// The stream of component `name` under `master_seed` (see the module docs).
    pub fn new(master_seed: u64, name: &str) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(master_seed);
        rng.set_stream(fnv1a64(name.as_bytes()));
        RngStream { rng }
    }

    pub fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_values() {
        // Test vectors of the FNV reference implementation.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn streams_depend_on_seed_and_name_only() {
        let a: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(7, "x"), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(7, "x"), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(7, "y"), |r, _| Some(r.next_u64()))
            .collect();
        let d: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(8, "x"), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = RngStream::new(1, "mean");
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // Standard error of the mean of U(0,1) is sqrt(1/12/n) ≈ 0.00065.
        assert!((mean - 0.5).abs() < 0.004, "{mean}");
    }
}
