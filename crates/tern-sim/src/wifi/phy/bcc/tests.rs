use super::*;
use crate::engine::RngStream;

/// Random bits, six zero tail bits, encoded, punctured at `rate`, each sent bit flipped
/// with probability `p`, decoded from state 0 to state 0: which data bits came out wrong.
pub(crate) fn wrong_bits(rate: CodeRate, p: f64, n: usize, rng: &mut RngStream) -> Vec<bool> {
    let bits: Vec<u8> = (0..n + 6)
        .map(|i| if i < n { (rng.next_u32() & 1) as u8 } else { 0 })
        .collect();
    let received: Vec<[Option<u8>; 2]> = encode(&bits)
        .iter()
        .enumerate()
        .map(|(i, out)| {
            let keep = sent(rate, 0, i);
            let mut got = [None, None];
            for j in 0..2 {
                if keep[j] {
                    got[j] = Some(out[j] ^ u8::from(rng.bernoulli(p)));
                }
            }
            got
        })
        .collect();
    let decoded = decode(&received, true, true);
    (0..n).map(|i| decoded[i] != bits[i]).collect()
}

const RATES: [CodeRate; 4] = [
    CodeRate::R1_2,
    CodeRate::R2_3,
    CodeRate::R3_4,
    CodeRate::R5_6,
];

/// The encoder's first outputs for input 1 from state 0 are the generators' leading taps,
/// and the code rates come out of the puncturing patterns: 2/3 sends 3 bits per 2 input bits,
/// 3/4 4 per 3, 5/6 6 per 5.
#[test]
fn the_encoder_and_puncturer_follow_the_standard() {
    // g0 = 133 = 1011011, g1 = 171 = 1111001 (octal; the newest bit at the left).
    let impulse = encode(&[1, 0, 0, 0, 0, 0, 0]);
    let g0: Vec<u8> = impulse.iter().map(|o| o[0]).collect();
    let g1: Vec<u8> = impulse.iter().map(|o| o[1]).collect();
    assert_eq!(g0, [1, 0, 1, 1, 0, 1, 1]);
    assert_eq!(g1, [1, 1, 1, 1, 0, 0, 1]);
    for (rate, bits_in, bits_out) in [
        (CodeRate::R1_2, 1, 2),
        (CodeRate::R2_3, 2, 3),
        (CodeRate::R3_4, 3, 4),
        (CodeRate::R5_6, 5, 6),
    ] {
        assert_eq!(period(rate), bits_in);
        let n: usize = (0..bits_in)
            .map(|i| sent(rate, 0, i).iter().filter(|&&k| k).count())
            .sum();
        assert_eq!(n, bits_out, "{rate:?}");
    }
}

/// With no channel errors every bit decodes, and an isolated flipped bit is always
/// corrected (the punctured codes' free distance is at least 4).
#[test]
fn the_decoder_recovers_what_the_encoder_sent() {
    let mut rng = RngStream::new(1, "bcc-test");
    for rate in RATES {
        assert!(
            !wrong_bits(rate, 0.0, 3000, &mut rng).contains(&true),
            "{rate:?}"
        );
        // One flip in about 3000 coded bits.
        assert!(
            !wrong_bits(rate, 2e-4, 3000, &mut rng).contains(&true),
            "{rate:?}"
        );
    }
}
