use super::*;
use crate::wifi::error_model::{ht_decoded_ber_db, ht_success_rate_db};
use crate::wifi::phy::HtMcs;

/// An MPDU of 1500 IP bytes: 1538 octets with the MAC header, LLC/SNAP and FCS, as
/// `frames::mpdu_len` sizes it.
const FRAME_BITS: u64 = 1538 * 8;

fn patterns(ber: f64, other: f64, n: usize, name: &str) -> Vec<u32> {
    let mut rng = RngStream::new(7, name);
    (0..n)
        .map(|_| draw(ber, FRAME_BITS, other, &mut rng))
        .collect()
}

#[test]
fn a_frame_failed_by_one_error_keeps_its_fields_but_for_their_share_of_the_bits() {
    // At a tiny bit error rate a failed frame holds one wrong bit, anywhere among its N:
    // in the F bits read with probability F / N.
    let p = field_intact_given_failure(1e-7, u64::from(FIELD_BITS), FRAME_BITS, 0.0);
    let want = 1.0 - f64::from(FIELD_BITS) / FRAME_BITS as f64;
    assert!((p - want).abs() < 1e-5, "{p} against {want}");
    // A frame that fails whatever its bits (the fixed error rate 1) says nothing of them.
    let p = field_intact_given_failure(0.01, 20, FRAME_BITS, 1.0);
    assert!((p - 0.99f64.powi(20)).abs() < 1e-12, "{p}");
    // A failed frame at a bit error rate of ½: its fields are a coin toss each.
    let p = field_intact_given_failure(0.5, 20, FRAME_BITS, 0.0);
    assert!((p - 0.5f64.powi(20)).abs() < 1e-12, "{p}");
}

#[test]
fn drawn_patterns_have_the_independent_bits_of_a_failed_frame() {
    // At a bit error rate of 5 % a 12304-bit frame fails surely, so the fields' bits are
    // wrong independently, 5 % each, and all right with probability 0.95^20 = 0.358.
    let ber = 0.05;
    let n = 200_000;
    let drawn = patterns(ber, 0.0, n, "independent");
    let intact = drawn.iter().filter(|&&p| p == 0).count() as f64 / n as f64;
    let want = (1.0 - ber).powi(FIELD_BITS as i32);
    assert!(
        (intact - want).abs() < 0.005,
        "{intact} intact against {want}"
    );
    for bit in 0..FIELD_BITS {
        let wrong = drawn.iter().filter(|&&p| p >> bit & 1 == 1).count() as f64 / n as f64;
        assert!(
            (wrong - ber).abs() < 0.003,
            "bit {bit}: {wrong} wrong against {ber}"
        );
    }
    // Bits are independent: two of them wrong together at ber².
    let both = drawn.iter().filter(|&&p| p & 0b11 == 0b11).count() as f64 / n as f64;
    assert!(
        (both - ber * ber).abs() < 0.001,
        "{both} against {}",
        ber * ber
    );
}

#[test]
fn at_a_low_bit_error_rate_a_failed_frame_keeps_its_fields() {
    let ber = 1e-5;
    let n = 200_000;
    let drawn = patterns(ber, 0.0, n, "low");
    let wrong = drawn.iter().filter(|&&p| p != 0).count() as f64 / n as f64;
    let want = 1.0 - field_intact_given_failure(ber, u64::from(FIELD_BITS), FRAME_BITS, 0.0);
    assert!(want > 0.001 && want < 0.002, "{want}");
    assert!((wrong - want).abs() < 0.0005, "{wrong} against {want}");
    // Mostly one wrong bit, as one error event fails the frame.
    let single = drawn.iter().filter(|&&p| p.count_ones() == 1).count() as f64 / n as f64;
    assert!(
        (single - wrong).abs() < 1e-4,
        "{single} single against {wrong}"
    );
}

#[test]
fn the_fields_read_are_the_true_ones_with_the_wrong_bits_flipped() {
    assert_eq!(sn_read(100, 0), 100);
    assert_eq!(sn_read(100, 0b1), 101);
    // The sequence number has 12 bits; bits above them are the Protocol field's.
    assert_eq!(sn_read(4095, 1 << 12), 4095);
    assert_eq!(protocol_read(6, 0), 6);
    assert_eq!(protocol_read(6, 1 << 12), 7);
    // ICMP (1) reads as TCP (6) only when its bits 0-2 flip (1 ^ 6 = 7).
    assert_eq!(protocol_read(1, 0b111 << 12), 6);
}

#[test]
fn the_decoded_bit_error_rate_is_the_one_the_frame_success_rate_rests_on() {
    for i in 0..8 {
        let mcs = HtMcs::new(i).unwrap();
        for snr_db in [2.0, 8.0, 14.0, 20.0, 26.0] {
            let ber = ht_decoded_ber_db(mcs, snr_db);
            let success = ht_success_rate_db(mcs, snr_db, FRAME_BITS);
            assert!((0.0..=0.5).contains(&ber), "MCS {i} at {snr_db} dB: {ber}");
            if ber < 0.5 {
                let from_ber = (1.0 - ber).powf(FRAME_BITS as f64);
                assert!(
                    (from_ber - success).abs() < 1e-9,
                    "MCS {i} at {snr_db} dB: {from_ber} against {success}"
                );
            }
        }
    }
}
