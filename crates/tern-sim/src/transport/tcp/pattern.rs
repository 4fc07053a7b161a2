//! The stream content of an emulation's interop flows.
//!
//! Tern's TCP carries lengths, not bytes. Whatever a Tern endpoint sends to a real host
//! carries, at stream offset `i` (0 is the first data byte, after the SYN), the byte
//! [`pattern`]`(i) = i mod 251`; a Tern endpoint receiving from a real host checks every
//! byte against the same pattern and counts the ones that differ. The real host's program
//! (`python -m tern.interop`) sends and checks the same. 251 is prime, so a byte put at any
//! wrong offset that is not a multiple of 251 away is seen.

/// The period of the stream pattern: a prime.
pub const PATTERN_PERIOD: u64 = 251;

/// The byte at stream offset `offset` of any stream a Tern endpoint exchanges with a real
/// host.
pub fn pattern(offset: u64) -> u8 {
    (offset % PATTERN_PERIOD) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_is_the_offset_mod_251() {
        assert_eq!(pattern(0), 0);
        assert_eq!(pattern(250), 250);
        assert_eq!(pattern(251), 0);
        assert_eq!(pattern(10_000_000), (10_000_000 % 251) as u8);
    }
}
