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

/// Hard-decision Viterbi decoding of `received` (per input bit, the g0 and g1 bits as
/// received, `None` for a punctured bit). `from_zero`: the encoder started in state 0 (else
/// every state is as likely); `to_zero`: it ended in state 0 (a terminated frame; else the
/// best state at the end is traced back). Returns the decoded input bits.
///
/// State t = (b << 5) | k is reached with input b from states 2k and 2k + 1 (the oldest
/// bit dropped), so each step compares two candidates per state.
pub fn decode(received: &[[Option<u8>; 2]], from_zero: bool, to_zero: bool) -> Vec<u8> {
    let far = u32::MAX / 4;
    let mut metric = [if from_zero { far } else { 0 }; STATES];
    metric[0] = 0;
    // Per step, per state reached: whether it came from 2k + 1 rather than 2k.
    let mut odd = vec![0u64; received.len()];
    for (t, got) in received.iter().enumerate() {
        // The cost of each two-bit output against what was received.
        let cost: [u32; 4] = [0u8, 1, 2, 3].map(|o| {
            let g0 = got[0].map_or(0, |r| u32::from(r != o >> 1));
            let g1 = got[1].map_or(0, |r| u32::from(r != o & 1));
            g0 + g1
        });
        let mut next = [0u32; STATES];
        let mut from_odd = 0u64;
        for (to, slot) in next.iter_mut().enumerate() {
            let (bit, k) = (to >> 5, to & 31);
            let even = metric[2 * k] + cost[usize::from(OUTPUTS[2 * k][bit])];
            let odd_m = metric[2 * k + 1] + cost[usize::from(OUTPUTS[2 * k + 1][bit])];
            if odd_m < even {
                *slot = odd_m;
                from_odd |= 1 << to;
            } else {
                *slot = even;
            }
        }
        odd[t] = from_odd;
        metric = next;
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
