//! What a receiver's driver reads from an MPDU that failed its FCS. ath9k hands CRC-failed
//! A-MPDU subframes to the driver with their bytes as received ([`super::RxAmpdu`]), and a
//! receiver-side mechanism reads header fields from them that the failed FCS no longer
//! vouches for: the wlan-bufferbloat paper's retry-out index takes "the sequence number of
//! a CRC-failed MPDU as correct" unless it contradicts the reordering window, and counts
//! only MPDUs carrying TCP (its §3.1, §3.2 (2)-(3)). Where the frame failed at a high bit
//! error rate, in a deep fade or at a rate far above what the channel carries, those
//! fields are likely wrong too.
//!
//! The model: the fields are decoded as the PHY decodes them. A stretch of random data bits
//! around each is encoded at the MPDU's code rate ([`bcc`]), each coded bit sent is flipped
//! with the uncoded bit error rate p of the MPDU's modulation at its SNR (the NIST model's,
//! the p its frame success rate starts from), and the stretch is decoded by the
//! hard-decision Viterbi decoder; the fields' bits are read from its output. The stretch
//! reaches [`GUARD`] bits beyond its field on either side (a Viterbi decoder's decisions
//! settle within about five constraint lengths), starts in any state and is traced back from
//! the best one at its end, and its puncturing phase is drawn (an MPDU starts anywhere in
//! the PSDU). The decoder's errors come in bursts, and at a raw error rate where the NIST
//! bound makes a frame fail surely it still reads most 12-bit fields right
//! (`error_model/viterbi_tests.rs`).
//!
//! The draw is conditioned on the frame having failed, which the error model gives with
//! probability f: a field is hit with probability q / f for q the decoder's rate of hitting
//! it (a hit fails the frame; an intact field leaves it to fail elsewhere). The decoder is
//! run up to m times, m = 1/f rounded at random and at most [`MAX_RUNS`], and the first
//! pattern with a wrong bit is kept: a hit with probability 1 − (1 − q)^m, which is q / f
//! while q is small and q where the frame fails surely.
//!
//! The fields, 20 bits in all, at their places in a QoS Data MPDU whose bits are sent
//! least significant first in each octet (IEEE 802.11-2016 §9.2.2):
//! * the sequence number, the 12 high bits of the Sequence Control field at octets 22-23
//!   (§9.2.4.4; the 26-octet QoS Data header of §9.3.2.1 without the fourth address), MPDU
//!   bits [`SN_AT`]..+12: the low [`SN_BITS`] bits of the pattern;
//! * the IPv4 header's Protocol octet (RFC 791 §3.1), which tells TCP from other traffic:
//!   octet 9 of the IP header behind the 26-octet MAC header and the 8-octet LLC/SNAP header,
//!   MPDU bits [`PROTOCOL_AT`]..+8: the next [`PROTOCOL_BITS`].
//!
//! The station the frame came from is taken as known (the mechanism's experiments have one
//! station per AP).

use super::super::phy::bcc;
use super::super::phy::CodeRate;
use crate::engine::RngStream;

/// Bits of the sequence number.
pub const SN_BITS: u32 = 12;
/// Bits of the IPv4 Protocol field.
pub const PROTOCOL_BITS: u32 = 8;
/// The sequence number's first bit in the MPDU: octet 22, after the 4-bit fragment number.
pub const SN_AT: usize = 22 * 8 + 4;
/// The IPv4 Protocol octet's first bit in the MPDU: octet 26 + 8 + 9.
pub const PROTOCOL_AT: usize = (26 + 8 + 9) * 8;
/// Bits decoded beyond the fields on either side.
pub const GUARD: usize = 48;
/// The most runs of the decoder for one draw.
pub const MAX_RUNS: u32 = 16;

/// Draws the error pattern over the 20 bits read from an MPDU that failed its
/// FCS, sent at code rate `rate` with uncoded bit error rate `p`, which the error model had
/// failing with probability `failed`: bit i set means bit i was read wrong.
pub fn draw(p: f64, rate: CodeRate, failed: f64, rng: &mut RngStream) -> u32 {
    if p <= 0.0 || failed <= 0.0 {
        return 0;
    }
    let m = (1.0 / failed).min(f64::from(MAX_RUNS));
    let runs = m.floor() as u32 + u32::from(rng.uniform() < m.fract());
    for _ in 0..runs {
        let pattern = decode_fields(p.min(0.5), rate, rng);
        if pattern != 0 {
            return pattern;
        }
    }
    0
}

/// One run of the decoder over each field's stretch: which field bits came out wrong.
fn decode_fields(p: f64, rate: CodeRate, rng: &mut RngStream) -> u32 {
    let sn = decode_field(SN_AT, SN_BITS as usize, p, rate, rng);
    let protocol = decode_field(PROTOCOL_AT, PROTOCOL_BITS as usize, p, rate, rng);
    sn | protocol << SN_BITS
}

/// Decodes the stretch of [`GUARD`] bits either side of the `bits` field bits at MPDU bit
/// `at`, random data sent through the channel at raw error rate `p`: bit k set if field
/// bit k came out wrong.
fn decode_field(at: usize, bits: usize, p: f64, rate: CodeRate, rng: &mut RngStream) -> u32 {
    let len = GUARD + bits + GUARD;
    let phase = (rng.next_u32() as usize) % bcc::period(rate);
    let keep: Vec<[bool; 2]> = (0..len)
        .map(|i| bcc::sent(rate, phase + at - GUARD, i))
        .collect();
    // The coded bits sent, in order (input bit, branch); the gaps between the ones the
    // channel flips are geometric.
    let sent: Vec<(usize, usize)> = keep
        .iter()
        .enumerate()
        .flat_map(|(i, k)| (0..2).filter(move |&j| k[j]).map(move |j| (i, j)))
        .collect();
    let mut flips = vec![[0u8; 2]; len];
    let log_right = libm::log1p(-p);
    let mut next = 0.0;
    let mut count = 0;
    loop {
        next += libm::floor(libm::log(1.0 - rng.uniform()) / log_right);
        if next >= sent.len() as f64 {
            break;
        }
        let (i, j) = sent[next as usize];
        flips[i][j] = 1;
        count += 1;
        next += 1.0;
    }
    // A code of free distance 4 or more decodes a lone wrong bit right, and the field lies
    // beyond where a free start or end lets the decoder stray.
    if count < 2 {
        return 0;
    }
    let data: Vec<u8> = (0..len).map(|_| (rng.next_u32() & 1) as u8).collect();
    let state = rng.next_u32() as usize % bcc::STATES;
    let received: Vec<[Option<u8>; 2]> = bcc::encode_from(state, &data)
        .iter()
        .enumerate()
        .map(|(i, out)| [0, 1].map(|j| keep[i][j].then_some(out[j] ^ flips[i][j])))
        .collect();
    let decoded = bcc::decode(&received, false, false);
    (0..bits).fold(0, |acc, k| {
        acc | u32::from(decoded[GUARD + k] != data[GUARD + k]) << k
    })
}

/// The sequence number read from an MPDU whose number is `sn`, with error pattern `pattern`.
pub fn sn_read(sn: u16, pattern: u32) -> u16 {
    sn ^ (pattern & ((1 << SN_BITS) - 1)) as u16
}

/// The IPv4 Protocol number read from an MPDU whose packet's is `protocol`, with error
/// pattern `pattern`.
pub fn protocol_read(protocol: u8, pattern: u32) -> u8 {
    protocol ^ (pattern >> SN_BITS) as u8
}

#[cfg(test)]
mod tests;
