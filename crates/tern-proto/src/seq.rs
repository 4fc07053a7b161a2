//! Wrapping sequence numbers with serial-number arithmetic (RFC 1982).
//!
//! One type serves every protocol that counts modulo a power of two:
//! TCP's 32-bit sequence numbers ([`SeqNum`](type@crate::tcp::SeqNum), RFC 9293 §3.4),
//! the 12-bit sequence numbers of RLC AM ([`crate::rlc::Sn`], 3GPP TS 25.322
//! §9.2.2.3) and of 802.11 QoS data and Block Ack (IEEE Std 802.11-2020
//! §9.2.4.4.2 and §10.25.6, counted modulo 4096 per §10.3.2.14).

use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::{Add, Sub};

/// A sequence number in a circular space of 2^`BITS` values, 1 ≤ `BITS` ≤ 32
/// (SERIAL_BITS of RFC 1982 §2).
///
/// The raw field is public so that the TCP alias reads like a plain newtype
/// (`seq.0`); it is always interpreted modulo 2^`BITS`. Equality, hashing,
/// ordering and arithmetic reduce it first, and every value a method returns
/// is reduced. Build narrow values with [`Seq::new`].
///
/// Ordering is RFC 1982 §3.2: `a < b` when `b` lies less than half the space
/// ahead of `a`. Two numbers exactly half the space apart are not comparable
/// (`partial_cmp` is `None`, so `<` and `>` are both false): the RFC leaves
/// that case undefined. Protocols keep their windows below half the space, so
/// it never arises between numbers of one window.
#[derive(Clone, Copy, Default)]
pub struct Seq<const BITS: u32>(pub u32);

/// A 12-bit sequence number, modulo 4096: RLC AM (TS 25.322 §9.2.2.3) and
/// the 802.11 Sequence Number field (IEEE Std 802.11-2020 §9.2.4.4.2,
/// §10.3.2.14).
pub type Seq12 = Seq<12>;

impl<const BITS: u32> Seq<BITS> {
    /// Size of the space, 2^`BITS`. Every method goes through it, so using
    /// a `BITS` outside 1..=32 fails to compile.
    pub const MODULUS: u64 = {
        assert!(
            BITS >= 1 && BITS <= 32,
            "sequence numbers have 1 to 32 bits"
        );
        1 << BITS
    };
    const MASK: u32 = (Self::MODULUS - 1) as u32;
    /// 2^(BITS-1): a number this far ahead is neither before nor after
    /// (RFC 1982 §3.2).
    const HALF: u32 = (Self::MODULUS / 2) as u32;

    /// `v` modulo 2^`BITS`.
    pub const fn new(v: u64) -> Self {
        Seq((v % Self::MODULUS) as u32)
    }

    /// The value in `0..2^BITS`.
    pub const fn value(self) -> u32 {
        self.0 & Self::MASK
    }

    /// The number `n` positions ahead: RFC 1982 §3.1 addition, modulo
    /// 2^`BITS` (the RFC limits `n` to 2^(BITS-1) - 1 for the result to
    /// compare as greater; any `n` wraps here).
    pub const fn wrapping_add(self, n: u32) -> Self {
        // 2^BITS divides 2^32, so wrapping u32 arithmetic is exact modulo 2^BITS.
        Seq(self.0.wrapping_add(n) & Self::MASK)
    }

    /// The number `n` positions behind, modulo 2^`BITS`.
    pub const fn wrapping_sub(self, n: u32) -> Self {
        Seq(self.0.wrapping_sub(n) & Self::MASK)
    }

    /// `(self - base) mod 2^BITS`: how far `self` lies ahead of `base`, in
    /// `0..2^BITS`.
    pub const fn offset_from(self, base: Self) -> u32 {
        self.0.wrapping_sub(base.0) & Self::MASK
    }

    /// Signed distance from `other` to `self`: the offset taken in
    /// `-2^(BITS-1)..2^(BITS-1)`, so positive when `self` follows `other`
    /// (half the space apart counts as negative).
    pub const fn diff(self, other: Self) -> i32 {
        let shift = 32 - BITS;
        // Sign-extend the BITS-bit offset.
        ((self.offset_from(other) << shift) as i32) >> shift
    }

    /// RFC 1982 §3.2 `self < other`: `other` lies between 1 and
    /// 2^(BITS-1) - 1 positions ahead.
    pub const fn precedes(self, other: Self) -> bool {
        let d = other.offset_from(self);
        d != 0 && d < Self::HALF
    }
}

impl<const BITS: u32> PartialEq for Seq<BITS> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl<const BITS: u32> Eq for Seq<BITS> {}

impl<const BITS: u32> Hash for Seq<BITS> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value().hash(state);
    }
}

/// RFC 1982 §3.2 comparison; `None` for numbers half the space apart.
impl<const BITS: u32> PartialOrd for Seq<BITS> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match other.offset_from(*self) {
            0 => Some(Ordering::Equal),
            d if d < Self::HALF => Some(Ordering::Less),
            d if d > Self::HALF => Some(Ordering::Greater),
            _ => None,
        }
    }
}

impl<const BITS: u32> Add<u32> for Seq<BITS> {
    type Output = Self;
    fn add(self, n: u32) -> Self {
        self.wrapping_add(n)
    }
}

impl<const BITS: u32> Sub<u32> for Seq<BITS> {
    type Output = Self;
    fn sub(self, n: u32) -> Self {
        self.wrapping_sub(n)
    }
}

impl<const BITS: u32> fmt::Debug for Seq<BITS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Seq").field(&self.value()).finish()
    }
}

impl<const BITS: u32> fmt::Display for Seq<BITS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_space_distance_is_negative() {
        assert_eq!(Seq::<32>(0).diff(Seq(1 << 31)), i32::MIN);
        assert_eq!(Seq12::new(0).diff(Seq12::new(2048)), -2048);
        assert_eq!(Seq::<1>::new(1).diff(Seq::new(0)), -1);
    }

    #[test]
    fn twelve_bits_wrap_at_4096() {
        assert_eq!(Seq12::new(4096), Seq12::new(0));
        assert_eq!(Seq12::new(4095) + 2, Seq12::new(1));
        assert_eq!(Seq12::new(0) - 1, Seq12::new(4095));
        assert_eq!(Seq12::new(1).offset_from(Seq12::new(4095)), 2);
        assert_eq!(Seq12::new(4095).offset_from(Seq12::new(1)), 4094);
        assert_eq!(Seq12::new(4095).diff(Seq12::new(1)), -2);
        assert!(Seq12::new(4095).precedes(Seq12::new(0)));
        assert!(Seq12::new(0).precedes(Seq12::new(2047)));
        assert!(!Seq12::new(0).precedes(Seq12::new(2048)));
        assert!(!Seq12::new(7).precedes(Seq12::new(7)));
    }

    #[test]
    fn half_the_space_apart_is_unordered() {
        let (a, b) = (Seq12::new(10), Seq12::new(10 + 2048));
        assert_eq!(a.partial_cmp(&b), None);
        assert_eq!((a < b, a > b, a == b), (false, false, false));
    }

    #[test]
    fn raw_field_is_read_modulo_the_space() {
        assert_eq!(Seq::<12>(4096 + 3), Seq12::new(3));
        assert_eq!(Seq::<12>(4096 + 3).value(), 3);
        assert_eq!(
            format!("{} {:?}", Seq::<12>(4099), Seq::<12>(4099)),
            "3 Seq(3)"
        );
    }
}
