//! Property tests of the wrapping sequence numbers against RFC 1982 §3.2
//! written out literally, for the 12-bit (RLC AM, 802.11) and 32-bit (TCP)
//! spaces and a tiny one where every corner is hit often.

use proptest::prelude::*;
use std::cmp::Ordering;
use tern_proto::seq::Seq;

/// RFC 1982 §3.2, as the RFC states it on plain integers `i1`, `i2` in
/// `0..2^bits`: `s1 < s2` iff `(i1 < i2 and i2 - i1 < 2^(bits-1))` or
/// `(i1 > i2 and i1 - i2 > 2^(bits-1))`.
fn rfc1982_less(i1: u64, i2: u64, bits: u32) -> bool {
    let half = 1u64 << (bits - 1);
    (i1 < i2 && i2 - i1 < half) || (i1 > i2 && i1 - i2 > half)
}

/// Every law checked for one pair of raw values in a space of 2^B.
fn laws<const B: u32>(x: u64, y: u64, n: u32) {
    let (a, b) = (Seq::<B>::new(x), Seq::<B>::new(y));
    let m = Seq::<B>::MODULUS;
    let (i1, i2) = (x % m, y % m);
    assert_eq!(u64::from(a.value()), i1);

    // Ordering is RFC 1982's, and `precedes` is `<`.
    let less = rfc1982_less(i1, i2, B);
    let greater = rfc1982_less(i2, i1, B);
    assert_eq!(a < b, less, "{a} < {b}");
    assert_eq!(a > b, greater, "{a} > {b}");
    assert_eq!(a.precedes(b), less);
    // Antisymmetry; the pair half the space apart is the only unordered one.
    let expected = match (i1 == i2, less, greater) {
        (true, _, _) => Some(Ordering::Equal),
        (_, true, _) => Some(Ordering::Less),
        (_, _, true) => Some(Ordering::Greater),
        _ => None,
    };
    assert_eq!(a.partial_cmp(&b), expected);
    assert_eq!(
        expected.is_none(),
        i1.abs_diff(i2) == m / 2,
        "unordered only at half the space"
    );

    // Offsets and signed differences agree with integer arithmetic modulo 2^B.
    let off = u64::from(b.offset_from(a));
    assert_eq!(off, (i2 + m - i1) % m);
    assert_eq!(a + off as u32, b);
    assert_eq!(b - off as u32, a);
    let d = i64::from(b.diff(a));
    assert!(-(m as i64) / 2 <= d && d < m as i64 / 2);
    assert_eq!((d + m as i64) as u64 % m, off);
    if expected.is_some() {
        assert_eq!(b.diff(a), -a.diff(b));
        assert_eq!(d > 0, less);
    }

    // RFC 1982 §3.1 addition: adding 0 < n < 2^(B-1) moves strictly forward.
    let n = u64::from(n) % (m / 2);
    let c = a + n as u32;
    assert_eq!(u64::from(c.value()), (i1 + n) % m);
    assert_eq!(a < c, n != 0);
    assert_eq!(c > a, n != 0);
    assert_eq!(c.offset_from(a) as u64, n);

    // Reduction: raw values congruent modulo 2^B are the same number.
    assert_eq!(Seq::<B>::new(x + m), a);
    assert_eq!(Seq::<B>(a.0.wrapping_add(m as u32)), a);
}

proptest! {
    #[test]
    fn twelve_bit_laws(x in 0u64..1 << 20, y in 0u64..1 << 20, n: u32) {
        laws::<12>(x, y, n);
    }

    #[test]
    fn twelve_bit_laws_near_the_wrap(x in 4000u64..4200, y in 0u64..200, n in 2040u32..2056) {
        laws::<12>(x, y, n);
    }

    #[test]
    fn thirty_two_bit_laws(x: u32, y: u32, n: u32) {
        laws::<32>(u64::from(x), u64::from(y), n);
    }

    #[test]
    fn thirty_two_bit_laws_half_apart(x: u32, delta in 0u32..3) {
        let y = x.wrapping_add((1 << 31) - 1 + delta);
        laws::<32>(u64::from(x), u64::from(y), delta);
    }

    #[test]
    fn three_bit_laws(x in 0u64..32, y in 0u64..32, n in 0u32..16) {
        laws::<3>(x, y, n);
    }
}
