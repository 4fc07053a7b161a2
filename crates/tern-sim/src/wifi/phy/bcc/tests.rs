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

/// The decoder as the trellis defines it: every state's two branches (from [`step`]) into
/// the state they lead to, the smaller metric kept, of two equal ones the branch from the
/// lower-numbered state, and the lowest-numbered best state traced back from the end.
fn decode_by_trellis(received: &[[Option<u8>; 2]], from_zero: bool, to_zero: bool) -> Vec<u8> {
    let far = u32::MAX / 4;
    let mut metric = vec![if from_zero { far } else { 0 }; STATES];
    metric[0] = 0;
    let mut from = Vec::new();
    for got in received {
        let mut next = vec![u32::MAX; STATES];
        let mut pred = vec![0usize; STATES];
        for (s, &m) in metric.iter().enumerate() {
            for bit in 0..2 {
                let (out, to) = step(s, bit);
                let cost: u32 = (0..2)
                    .map(|j| got[j].map_or(0, |r| u32::from(r != out[j])))
                    .sum();
                if m + cost < next[to] {
                    next[to] = m + cost;
                    pred[to] = s;
                }
            }
        }
        from.push(pred);
        metric = next;
    }
    let best = *metric.iter().min().unwrap_or(&0);
    let mut s = if to_zero {
        0
    } else {
        metric.iter().position(|&m| m == best).unwrap_or(0)
    };
    let mut bits = vec![0u8; received.len()];
    for t in (0..received.len()).rev() {
        bits[t] = (s >> 5) as u8;
        s = from[t][s];
    }
    bits
}

/// The add-compare-select of [`decode`] chooses as the trellis does, ties included: at
/// raw error rates up to ½, punctured and not, from a known or a free start.
#[test]
fn the_decoder_chooses_as_the_trellis_does() {
    let mut rng = RngStream::new(3, "bcc-trellis");
    for rate in RATES {
        for p in [0.02, 0.08, 0.2, 0.5] {
            for run in 0..40 {
                let n = 30 + run;
                let received: Vec<[Option<u8>; 2]> = (0..n)
                    .map(|i| {
                        let keep = sent(rate, run, i);
                        [0, 1].map(|j| keep[j].then(|| u8::from(rng.bernoulli(p)) ^ (i as u8 & 1)))
                    })
                    .collect();
                for (from_zero, to_zero) in [(true, true), (false, false), (true, false)] {
                    assert_eq!(
                        decode(&received, from_zero, to_zero),
                        decode_by_trellis(&received, from_zero, to_zero),
                        "{rate:?} p {p} run {run}"
                    );
                }
            }
        }
    }
}
