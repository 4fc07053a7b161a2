//! MAC frame sizes that count on the air, and A-MPDU aggregation sizes and limits
//! (IEEE Std 802.11-2020 §9.3 frame formats, §9.7 A-MPDU format, §10.12 A-MPDU operation).
//!
//! Sizes only: the MAC models build their frames from these numbers, no bytes are encoded.

use super::phy::{ht_mf_max_ppdu, Band, HtTxVector};
use crate::engine::SimTime;

/// Frame check sequence (§9.2.4.8): 4 bytes.
pub const FCS: u32 = 4;
/// Data frame MAC header without QoS Control (§9.3.2.1; FC, Duration, A1–A3, Sequence
/// Control): 24 bytes. Used by 802.11b DCF stations.
pub const DATA_HEADER: u32 = 24;
/// QoS Data MAC header (§9.3.2.1; 24 bytes + 2-byte QoS Control, no HT Control, no A4):
/// 26 bytes.
pub const QOS_DATA_HEADER: u32 = 26;
/// LLC/SNAP header carrying an IP packet (IEEE 802.2 + RFC 1042): 8 bytes.
pub const LLC_SNAP: u32 = 8;
/// Ack frame incl. FCS (§9.3.1.3): FC 2 + Duration 2 + RA 6 + FCS 4 = 14 bytes.
pub const ACK: u32 = 14;
/// CTS frame incl. FCS (§9.3.1.2): 14 bytes.
pub const CTS: u32 = 14;
/// RTS frame incl. FCS (§9.3.1.2): 20 bytes.
pub const RTS: u32 = 20;
/// Compressed BlockAck incl. FCS (§9.3.1.8): FC 2 + Duration 2 + RA 6 + TA 6 + BA Control 2
/// + Starting Sequence Control 2 + 8-byte bitmap + FCS 4 = 32 bytes.
pub const BLOCK_ACK_COMPRESSED: u32 = 32;
/// Compressed BlockAckReq incl. FCS (§9.3.1.7): FC 2 + Duration 2 + RA 6 + TA 6 + BAR
/// Control 2 + Starting Sequence Control 2 + FCS 4 = 24 bytes.
pub const BLOCK_ACK_REQ_COMPRESSED: u32 = 24;
/// MPDU delimiter in front of each MPDU of an A-MPDU (§9.7.1): 4 bytes.
pub const MPDU_DELIMITER: u32 = 4;
/// Most MPDUs in one A-MPDU under an HT immediate Block Ack agreement: the 64-frame
/// compressed bitmap / buffer size (Block Ack operation, §10.25; 64 for HT).
pub const MAX_AMPDU_MPDUS: u32 = 64;
/// Longest HT A-MPDU: 2^(13 + 3) − 1 = 65 535 bytes (Maximum A-MPDU Length Exponent 3,
/// §9.4.2.55.3; also the 16-bit HT-SIG LENGTH limit).
pub const MAX_HT_AMPDU_LEN: u32 = 65_535;

/// A QoS Data MPDU carrying an IP packet of `ip_bytes`: 26 (header) + 8 (LLC/SNAP) + ip + 4
/// (FCS). A 1500-byte IP packet makes a 1538-byte MPDU.
pub const fn mpdu_len(ip_bytes: u32) -> u32 {
    QOS_DATA_HEADER + LLC_SNAP + ip_bytes + FCS
}

/// A non-QoS Data MPDU (802.11b DCF) carrying an IP packet: 24 + 8 + ip + 4 bytes.
pub const fn dcf_mpdu_len(ip_bytes: u32) -> u32 {
    DATA_HEADER + LLC_SNAP + ip_bytes + FCS
}

/// One A-MPDU subframe (§9.7.1): delimiter + MPDU, padded to a multiple of 4 bytes unless it
/// is the last subframe of the A-MPDU.
pub const fn ampdu_subframe_len(mpdu_len: u32, last: bool) -> u32 {
    let len = MPDU_DELIMITER + mpdu_len;
    if last {
        len
    } else {
        len.next_multiple_of(4)
    }
}

/// PSDU length of an A-MPDU made of MPDUs of the given lengths, in order (0 if empty).
/// Three 1538-byte MPDUs: 1544 + 1544 + 1542 = 4630 bytes.
pub fn ampdu_len(mpdu_lens: &[u32]) -> u32 {
    let n = mpdu_lens.len();
    mpdu_lens
        .iter()
        .enumerate()
        .map(|(i, &l)| ampdu_subframe_len(l, i + 1 == n))
        .sum()
}

/// PSDU length of an A-MPDU of `n` equal MPDUs of `mpdu_len` bytes.
pub const fn ampdu_len_uniform(n: u32, mpdu_len: u32) -> u32 {
    if n == 0 {
        0
    } else {
        (n - 1) * ampdu_subframe_len(mpdu_len, false) + ampdu_subframe_len(mpdu_len, true)
    }
}

/// The most MPDUs carrying `ip_bytes` IP packets that one HT-mixed A-MPDU can hold at `tx`
/// in `band`: at most [`MAX_AMPDU_MPDUS`], at most [`MAX_HT_AMPDU_LEN`] bytes, and a PPDU no
/// longer than [`ht_mf_max_ppdu`] (5.484 ms, the L-SIG limit; see there why not the 10 ms
/// aPPDUMaxTime). 0 if not even one fits. A TXOP limit, when the MAC has one, is the MAC's
/// to apply on top.
pub fn max_ampdu_mpdus(ip_bytes: u32, tx: HtTxVector, band: Band) -> u32 {
    let limits = AmpduLimits {
        mpdus: MAX_AMPDU_MPDUS,
        bytes: MAX_HT_AMPDU_LEN,
        ppdu: ht_mf_max_ppdu(band),
    };
    ampdu_capacity(ip_bytes, tx, band, &limits)
}

/// Limits on one A-MPDU: MPDUs, PSDU bytes, PPDU duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmpduLimits {
    pub mpdus: u32,
    pub bytes: u32,
    pub ppdu: SimTime,
}

/// The most MPDUs carrying `ip_bytes` IP packets that one A-MPDU at `tx` in `band` can hold
/// within `limits` (0 if not even one fits).
///
/// Length and duration grow with the number of MPDUs, so the counts that fit are a prefix of
/// `1..=limits.mpdus`; a binary search finds its end in ⌈log₂ 64⌉ + 1 TXTIME evaluations
/// instead of up to 64 (it was a third of an MCS 7 upload's run time).
pub fn ampdu_capacity(ip_bytes: u32, tx: HtTxVector, band: Band, limits: &AmpduLimits) -> u32 {
    let mpdu = mpdu_len(ip_bytes);
    let fits = |n: u32| {
        let len = ampdu_len_uniform(n, mpdu);
        len <= limits.bytes && tx.txtime(len, band) <= limits.ppdu
    };
    // Invariant: `lo` fits (0 trivially), `hi + 1` does not (or is past the limit).
    let (mut lo, mut hi) = (0, limits.mpdus);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::super::phy::{ChannelWidth, GuardInterval, HtMcs};
    use super::*;

    #[test]
    fn mpdu_and_ampdu_sizes() {
        assert_eq!(mpdu_len(1500), 1538);
        assert_eq!(dcf_mpdu_len(1500), 1536);
        assert_eq!(ampdu_subframe_len(1538, false), 1544);
        assert_eq!(ampdu_subframe_len(1538, true), 1542);
        assert_eq!(ampdu_subframe_len(1540, false), 1544);
        assert_eq!(ampdu_len(&[1538, 1538, 1538]), 4630);
        assert_eq!(ampdu_len(&[]), 0);
        assert_eq!(ampdu_len(&[100, 1538]), 104 + 1542);
        for n in 0..70 {
            assert_eq!(
                ampdu_len(&vec![1538; n as usize]),
                ampdu_len_uniform(n, 1538)
            );
        }
    }

    /// The binary search gives what the definition does: the largest n whose A-MPDU fits,
    /// over every MCS, width, guard interval, a range of packet sizes and PPDU limits.
    #[test]
    fn ampdu_capacity_is_the_largest_count_that_fits() {
        use ChannelWidth::*;
        use GuardInterval::*;
        for i in 0..32 {
            for w in [Mhz20, Mhz40] {
                for g in [Long, Short] {
                    let tx = HtTxVector::new(HtMcs::new(i).unwrap(), w, g);
                    for ip in [40, 100, 576, 1000, 1500, 2304] {
                        for (bytes, ppdu_us) in [(65_535, 5_484), (8_000, 2_000), (3_000, 300)] {
                            let limits = AmpduLimits {
                                mpdus: 64,
                                bytes,
                                ppdu: SimTime::from_micros(ppdu_us),
                            };
                            let mpdu = mpdu_len(ip);
                            let linear = (1..=64)
                                .take_while(|&n| {
                                    let len = ampdu_len_uniform(n, mpdu);
                                    len <= bytes && tx.txtime(len, Band::Ghz5) <= limits.ppdu
                                })
                                .last()
                                .unwrap_or(0);
                            assert_eq!(
                                ampdu_capacity(ip, tx, Band::Ghz5, &limits),
                                linear,
                                "MCS {i} {w:?} {g:?} {ip} B"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ampdu_limits() {
        let tx = |i, w, g| HtTxVector::new(HtMcs::new(i).unwrap(), w, g);
        use ChannelWidth::*;
        use GuardInterval::*;
        // MCS 0 (6.5 Mbit/s): the 5.484 ms PPDU limit allows 2 × 1500 B (3086 B, 3840 µs);
        // 3 would need 5740 µs.
        assert_eq!(max_ampdu_mpdus(1500, tx(0, Mhz20, Long), Band::Ghz5), 2);
        // MCS 7 20 MHz: 28 MPDUs (43 230 B, 5360 µs); 29 would take 5548 µs.
        assert_eq!(max_ampdu_mpdus(1500, tx(7, Mhz20, Long), Band::Ghz5), 28);
        // MCS 15 40 MHz SGI: the 65 535-byte limit binds first: 42 × 1544 − 2 = 64 846 B.
        assert_eq!(max_ampdu_mpdus(1500, tx(15, Mhz40, Short), Band::Ghz5), 42);
        // Small packets: the 64-MPDU limit binds.
        assert_eq!(max_ampdu_mpdus(100, tx(15, Mhz40, Short), Band::Ghz5), 64);
    }
}
