//! The binary convolutional code of the OFDM and HT PHYs and its hard-decision Viterbi
//! decoder.
//!
//! The encoder is IEEE Std 802.11-2016 §17.3.5.6: constraint length 7, generators
//! g0 = 133 and g1 = 171 (octal), rate ½, punctured to 2/3 and 3/4 by the same clause's
//! patterns and to 5/6 by §19.3.11.6.2's. The decoder is the maximum-likelihood sequence
//! decoder for hard decisions (Viterbi): Hamming distance over the coded bits that were
//! sent, punctured ones skipped. The NIST error model ([`super::super::error_model`])
//! bounds this decoder's bit error rate; this module runs it, for what a bound cannot
//! give: which decoded bits are wrong.

use super::CodeRate;

/// Encoder states: the last six input bits.
pub const STATES: usize = 64;

/// Output pair (g0 bit, g1 bit) of the encoder in `state` (the last six input bits, the
/// newest in bit 5) for input `bit`, and the state it moves to.
#[inline]
pub fn step(state: usize, bit: usize) -> ([u8; 2], usize) {
    let out = OUTPUTS[state][bit];
    ([out >> 1, out & 1], (bit << 5) | (state >> 1))
}

/// The puncturing pattern of `rate`: per input bit of a period, whether the g0 bit (first
/// row) and the g1 bit (second row) are sent.
fn pattern(rate: CodeRate) -> (&'static [u8], &'static [u8]) {
    match rate {
        CodeRate::R1_2 => (&[1], &[1]),
        CodeRate::R2_3 => (&[1, 1], &[1, 0]),
        CodeRate::R3_4 => (&[1, 1, 0], &[1, 0, 1]),
        CodeRate::R5_6 => (&[1, 1, 0, 1, 0], &[1, 0, 1, 0, 1]),
    }
}

/// Which of the (g0, g1) bits of input bit `i` of a puncturing period that started at
/// `phase` the puncturer sends.
pub fn sent(rate: CodeRate, phase: usize, i: usize) -> [bool; 2] {
    let (a, b) = pattern(rate);
    let k = (phase + i) % a.len();
    [a[k] == 1, b[k] == 1]
}

/// The puncturing period in input bits.
pub fn period(rate: CodeRate) -> usize {
    pattern(rate).0.len()
}

/// Encodes `bits` from state 0: the (g0, g1) pair of each input bit.
pub fn encode(bits: &[u8]) -> Vec<[u8; 2]> {
    encode_from(0, bits)
}

/// Encodes `bits` from `state`.
pub fn encode_from(mut state: usize, bits: &[u8]) -> Vec<[u8; 2]> {
    bits.iter()
        .map(|&b| {
            let (out, next) = step(state, usize::from(b));
            state = next;
            out
        })
        .collect()
}

/// Each state's outputs for input 0 and 1, as two-bit numbers (g0 in bit 1, g1 in bit 0).
const OUTPUTS: [[u8; 2]; STATES] = {
    let mut t = [[0u8; 2]; STATES];
    let mut s = 0;
    while s < STATES {
        let mut bit = 0;
        while bit < 2 {
            let reg = (bit << 6) | s;
            let g0 = ((reg & 0o133).count_ones() & 1) as u8;
            let g1 = ((reg & 0o171).count_ones() & 1) as u8;
            t[s][bit] = (g0 << 1) | g1;
            bit += 1;
        }
        s += 1;
    }
    t
};

/// Per state reached, t = (b << 5) | k: the two-bit output of its branch from state 2k
/// (input b).
const EVEN_OUT: [i16; STATES] = branch_outputs(0);
/// As [`EVEN_OUT`], from 2k + 1.
const ODD_OUT: [i16; STATES] = branch_outputs(1);

/// Eight 0-or-1 bytes as the bits of one byte, the first in bit 0: the multiplier moves
/// byte i's bit to bit 56 + i, and no two products meet.
#[inline]
fn pack(eight: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(eight);
    u64::from_le_bytes(b).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

const fn branch_outputs(odd: usize) -> [i16; STATES] {
    let mut t = [0i16; STATES];
    let mut to = 0;
    while to < STATES {
        t[to] = OUTPUTS[2 * (to & 31) + odd][to >> 5] as i16;
        to += 1;
    }
    t
}

/// Hard-decision Viterbi decoding of `received` (per input bit, the g0 and g1 bits as
/// received, `None` for a punctured bit). `from_zero`: the encoder started in state 0 (else
/// every state is as likely); `to_zero`: it ended in state 0 (a terminated frame; else the
/// best state at the end is traced back). Returns the decoded input bits.
///
/// State t = (b << 5) | k is reached with input b from states 2k and 2k + 1 (the oldest
/// bit dropped), so each step compares two candidates per state; of two equal ones it
/// keeps 2k's, and at the end the lowest-numbered best state.
pub fn decode(received: &[[Option<u8>; 2]], from_zero: bool, to_zero: bool) -> Vec<u8> {
    // Metrics are kept less the smallest, so they stay below FAR plus a few errors: every
    // state is reached from state 0 within six steps, after which no path from another
    // start survives, and before which a path from state 0 has cost at most 12.
    const FAR: i16 = 1 << 12;
    let mut metric = [if from_zero { FAR } else { 0 }; STATES];
    metric[0] = 0;
    // Per step, per state reached: whether it came from 2k + 1 rather than 2k.
    let mut odd = vec![0u64; received.len()];
    for (t, got) in received.iter().enumerate() {
        // The received pair as a two-bit number and which of its bits were sent: a branch
        // costs the sent bits in which its output differs.
        let bit = |j: usize| got[j].map_or((0, 0), |r| (i16::from(r), 1));
        let ((r0, m0), (r1, m1)) = (bit(0), bit(1));
        let (r, m) = ((r0 << 1) | r1, (m0 << 1) | m1);
        // Each state reached, as lanes: the metric of the even and the odd state it may
        // come from, each plus its branch's cost, the smaller kept (branch-free: which wins
        // depends on the noise).
        let mut from_even = [0i16; STATES];
        let mut from_odd = [0i16; STATES];
        for (k, pair) in metric.chunks_exact(2).enumerate() {
            from_even[k] = pair[0];
            from_odd[k] = pair[1];
        }
        from_even.copy_within(..STATES / 2, STATES / 2);
        from_odd.copy_within(..STATES / 2, STATES / 2);
        let mut took_odd = [0u8; STATES];
        for to in 0..STATES {
            let e = (EVEN_OUT[to] ^ r) & m;
            let o = (ODD_OUT[to] ^ r) & m;
            let via_even = from_even[to] + (e >> 1) + (e & 1);
            let via_odd = from_odd[to] + (o >> 1) + (o & 1);
            metric[to] = via_even.min(via_odd);
            took_odd[to] = u8::from(via_odd < via_even);
        }
        let least = metric.iter().fold(i16::MAX, |a, &b| a.min(b));
        metric.iter_mut().for_each(|x| *x -= least);
        odd[t] = took_odd
            .chunks_exact(8)
            .enumerate()
            .fold(0u64, |acc, (i, eight)| acc | pack(eight) << (8 * i));
    }
    let mut s = if to_zero {
        0
    } else {
        (0..STATES).min_by_key(|&s| metric[s]).unwrap_or(0)
    };
    let mut bits = vec![0u8; received.len()];
    for t in (0..received.len()).rev() {
        // The newest input bit is bit 5 of the state it led to.
        bits[t] = (s >> 5) as u8;
        s = 2 * (s & 31) + usize::from(odd[t] >> s & 1 == 1);
    }
    bits
}

#[cfg(test)]
pub(crate) mod tests;
