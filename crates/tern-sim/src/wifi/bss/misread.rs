//! What a receiver's driver reads from an MPDU that failed its FCS. ath9k hands CRC-failed
//! A-MPDU subframes to the driver with their bytes as received ([`super::RxAmpdu`]), and a
//! receiver-side mechanism reads header fields from them that the failed FCS no longer
//! vouches for: the wlan-bufferbloat paper's retry-out index takes "the sequence number of
//! a CRC-failed MPDU as correct" unless it contradicts the reordering window, and counts
//! only MPDUs carrying TCP (its §3.1, §3.2 (2)-(3)). Where the frame failed at a high bit
//! error rate, in a deep fade or at a rate far above what the channel carries, those
//! fields are likely wrong too.
//!
//! The model: the decoded bits of a frame are wrong independently with the error model's
//! bit error rate (the independence its frame success rate (1 − ber)^N rests on), so the
//! bits of the fields read are drawn given that the frame failed
//! ([`field_intact_given_failure`]): intact with that probability, otherwise a non-zero
//! error pattern over them. The fields, [`FIELD_BITS`] in all:
//! * the sequence number, the 12 high bits of the MAC header's Sequence Control field
//!   (IEEE 802.11-2016 §9.2.4.4), the low [`SN_BITS`] bits of the pattern;
//! * the IPv4 header's Protocol octet (RFC 791 §3.1), which tells TCP from other traffic
//!   behind the LLC/SNAP header, the next [`PROTOCOL_BITS`].
//!
//! The station the frame came from is taken as known (the mechanism's experiments have one
//! station per AP).

use super::super::error_model::field_intact_given_failure;
use crate::engine::RngStream;

/// Bits of the sequence number.
pub const SN_BITS: u32 = 12;
/// Bits of the IPv4 Protocol field.
pub const PROTOCOL_BITS: u32 = 8;
/// Bits of the fields read from a failed MPDU.
pub const FIELD_BITS: u32 = SN_BITS + PROTOCOL_BITS;

/// Draws the error pattern over the [`FIELD_BITS`] bits read from an MPDU of `frame_bits`
/// bits that failed its FCS, its bits wrong independently with probability `ber` and the
/// frame failing besides with probability `other`: bit i set means bit i was read wrong.
pub fn draw(ber: f64, frame_bits: u64, other: f64, rng: &mut RngStream) -> u32 {
    let fields = u64::from(FIELD_BITS);
    if rng.uniform() < field_intact_given_failure(ber, fields, frame_bits, other) {
        return 0;
    }
    // A non-zero pattern of independent bits: its lowest wrong bit k has probability
    // (1 − ber)^k · ber / (1 − (1 − ber)^F); the bits above it are wrong with probability ber.
    let log_right = libm::log1p(-ber);
    let any_wrong = -libm::expm1(f64::from(FIELD_BITS) * log_right);
    let u = rng.uniform() * any_wrong;
    let mut lowest = FIELD_BITS - 1;
    let mut below = 0.0;
    for k in 0..FIELD_BITS {
        below += libm::exp(f64::from(k) * log_right) * ber;
        if u < below {
            lowest = k;
            break;
        }
    }
    let mut pattern = 1u32 << lowest;
    for k in lowest + 1..FIELD_BITS {
        if rng.uniform() < ber {
            pattern |= 1 << k;
        }
    }
    pattern
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
