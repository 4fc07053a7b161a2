//! Exact send times of a periodic source.

use crate::engine::SimTime;

/// Send times `start + floor(k * num / den)` for k = 0, 1, 2, …
///
/// An interval is a ratio so that a constant bit rate whose spacing is not a
/// whole number of nanoseconds (1000 B at 3 Mbit/s: 2 666 666.67 ns) still
/// averages exactly the configured rate, without drift.
#[derive(Clone, Debug)]
pub struct SendSchedule {
    start: SimTime,
    num: u128,
    den: u128,
    next_k: u64,
    /// No send at or after this time.
    stop: SimTime,
    /// No more than this many sends.
    count: u64,
}

impl SendSchedule {
    /// One send every `interval`.
    pub fn every(start: SimTime, interval: SimTime, stop: SimTime, count: Option<u64>) -> Self {
        Self::ratio(start, u128::from(interval.as_nanos()), 1, stop, count)
    }

    /// One send every `num / den` nanoseconds.
    pub fn ratio(start: SimTime, num: u128, den: u128, stop: SimTime, count: Option<u64>) -> Self {
        SendSchedule {
            start,
            num,
            den: den.max(1),
            next_k: 0,
            stop,
            count: count.unwrap_or(u64::MAX),
        }
    }

    fn time_of(&self, k: u64) -> SimTime {
        let offset = (u128::from(k) * self.num / self.den).min(u128::from(u64::MAX));
        self.start + SimTime(offset as u64)
    }

    /// Time of the next send, if there is one.
    pub fn next(&self) -> Option<SimTime> {
        let t = self.time_of(self.next_k);
        (self.next_k < self.count && t < self.stop).then_some(t)
    }

    /// Consumes the next send; returns its sequence number (0, 1, …).
    pub fn advance(&mut self) -> u64 {
        self.next_k += 1;
        self.next_k - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbr_spacing_does_not_drift() {
        // 1000 B at 3 Mbit/s: 8000 bit / 3e6 bit/s = 8/3 ms apart.
        let mut s = SendSchedule::ratio(
            SimTime::ZERO,
            8000 * 1_000_000_000,
            3_000_000,
            SimTime::MAX,
            None,
        );
        for _ in 0..3000 {
            s.advance();
        }
        // 3000 sends take exactly 8 s.
        assert_eq!(s.next(), Some(SimTime::from_secs(8)));
    }

    #[test]
    fn stops_at_count_and_time() {
        let mut s = SendSchedule::every(
            SimTime::ZERO,
            SimTime::from_millis(100),
            SimTime::from_millis(250),
            None,
        );
        assert_eq!(s.advance(), 0);
        assert_eq!(s.next(), Some(SimTime::from_millis(100)));
        s.advance();
        s.advance();
        assert_eq!(s.next(), None);
        let mut c = SendSchedule::every(
            SimTime::ZERO,
            SimTime::from_millis(1),
            SimTime::MAX,
            Some(2),
        );
        c.advance();
        c.advance();
        assert_eq!(c.next(), None);
    }
}
