//! The NIST model's decoded bit error rate ([`coded_ber`]) against the Viterbi decoder of
//! [`crate::wifi::phy::bcc`] run on the 802.11 code itself: random bits, each coded bit sent
//! flipped with the uncoded error rate p (a binary symmetric channel, the NIST model's hard
//! decisions). The union bound lies above the decoder's measured rate, and at the raw error
//! rates of a failed frame it overstates it by one to two orders of magnitude.

use super::*;
use crate::engine::RngStream;
use crate::wifi::phy::bcc::tests::wrong_bits;

fn measured_ber(rate: CodeRate, p: f64, bits: usize, seed: u64) -> f64 {
    let mut rng = RngStream::new(seed, "viterbi-test");
    let blocks = bits / 2000;
    let wrong: usize = (0..blocks)
        .map(|_| {
            wrong_bits(rate, p, 2000, &mut rng)
                .iter()
                .filter(|&&w| w)
                .count()
        })
        .sum();
    wrong as f64 / (blocks * 2000) as f64
}

/// The union bound lies above the Viterbi decoder's measured bit error rate at every code
/// rate: an upper bound, as the NIST model takes it.
#[test]
fn the_union_bound_lies_above_the_decoders_bit_error_rate() {
    for (rate, p) in [
        (CodeRate::R1_2, 0.02),
        (CodeRate::R1_2, 0.04),
        (CodeRate::R2_3, 0.02),
        (CodeRate::R3_4, 0.005),
        (CodeRate::R3_4, 0.02),
        (CodeRate::R5_6, 0.01),
    ] {
        let got = measured_ber(rate, p, 200_000, 2);
        let bound = coded_ber(p, rate);
        assert!(
            got <= bound,
            "{rate:?} at p = {p}: decoder {got:e} above the bound {bound:e}"
        );
    }
}

/// Where a 1500-byte frame fails by the bound (p = 0.04 at rate 1/2: the bound gives 0.015,
/// so (1 − P_b)^12000 ≈ 10⁻⁸⁰) the decoder gets all but about 6 in 10 000 bits right: the bound
/// overstates its bit error rate more than tenfold, and at p = 0.06, where the bound passes
/// ½, more than thirtyfold. So a field of a failed frame read at the bound's rate is misread
/// far more often than a decoder misreads it.
#[test]
fn at_a_failed_frames_raw_error_rate_the_bound_overstates_the_decoded_rate() {
    let at_04 = measured_ber(CodeRate::R1_2, 0.04, 200_000, 4);
    assert!(coded_ber(0.04, CodeRate::R1_2) > 10.0 * at_04, "{at_04:e}");
    let at_06 = measured_ber(CodeRate::R1_2, 0.06, 200_000, 5);
    assert!(coded_ber(0.06, CodeRate::R1_2) > 0.5);
    assert!(at_06 < 0.5 / 30.0, "{at_06:e}");
}

/// Share of the windows of `field` consecutive decoded bits holding at least one error.
fn field_hit_rate(rate: CodeRate, p: f64, field: usize, bits: usize, seed: u64) -> f64 {
    let mut rng = RngStream::new(seed, "viterbi-test");
    let (mut hit, mut all) = (0usize, 0usize);
    for _ in 0..bits / 2000 {
        let wrong = wrong_bits(rate, p, 2000, &mut rng);
        for w in wrong.windows(field) {
            hit += usize::from(w.contains(&true));
            all += 1;
        }
    }
    hit as f64 / all as f64
}

/// The 12 bits of a sequence number (rate ½, as MCS 0, 1 and 3 send) are hit far less often
/// by the decoder's errors than by independent errors at the bound's rate. At p = 0.045 the decoder
/// hits the field in well under 2 % of the windows, where independent bits at the bound's
/// rate (`misread`'s draw) hit it in over a quarter; at p = 0.15 both hit it in most.
#[test]
fn a_twelve_bit_field_is_hit_far_less_often_than_at_the_bounds_rate() {
    let at_bound = |p: f64| 1.0 - (1.0 - coded_ber(p, CodeRate::R1_2).min(0.5)).powi(12);
    let low = field_hit_rate(CodeRate::R1_2, 0.045, 12, 100_000, 6);
    assert!(
        low < 0.02 && at_bound(0.045) > 0.25,
        "decoder {low}, bound {}",
        at_bound(0.045)
    );
    let high = field_hit_rate(CodeRate::R1_2, 0.15, 12, 40_000, 7);
    assert!(high > 0.5 && at_bound(0.15) > 0.99, "decoder {high}");
}
