//! How late the engine ran its events in an emulation: a histogram of lateness (wall time
//! at which an event ran minus its due time) with 1 µs bins up to 100 ms, and the exact
//! largest value.

use crate::engine::SimTime;

/// Bin width.
const BIN_NS: u64 = 1_000;
/// Bins: 1 µs each up to 100 ms; later events count in the last one (their value is kept
/// only as the maximum).
const BINS: usize = 100_000;

pub struct Lateness {
    bins: Vec<u64>,
    count: u64,
    sum_ns: u128,
    max: SimTime,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            bins: vec![0; BINS],
            count: 0,
            sum_ns: 0,
            max: SimTime::ZERO,
        }
    }
}

impl Lateness {
    pub fn add(&mut self, late: SimTime) {
        let bin = ((late.as_nanos() / BIN_NS) as usize).min(BINS - 1);
        self.bins[bin] += 1;
        self.count += 1;
        self.sum_ns += u128::from(late.as_nanos());
        self.max = self.max.max(late);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> SimTime {
        self.max
    }

    pub fn mean(&self) -> SimTime {
        SimTime::from_nanos(self.sum_ns.checked_div(u128::from(self.count)).unwrap_or(0) as u64)
    }

    /// The `q` quantile (0 < q ≤ 1): the upper edge of the bin holding the ⌈q·n⌉-th
    /// smallest value, never above the maximum (so exact to 1 µs).
    pub fn quantile(&self, q: f64) -> SimTime {
        if self.count == 0 {
            return SimTime::ZERO;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return SimTime::from_nanos((i as u64 + 1) * BIN_NS).min(self.max);
            }
        }
        self.max
    }

    /// Events later than `bound`, to the bin (1 µs).
    pub fn over(&self, bound: SimTime) -> u64 {
        let first = ((bound.as_nanos() / BIN_NS) as usize + 1).min(BINS);
        self.bins[first..].iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_sample() {
        // 1..=100 µs, one each: the median is 50 µs, p99 99 µs, the mean 50.5 µs.
        let mut l = Lateness::default();
        for us in 1..=100 {
            l.add(SimTime::from_micros(us));
        }
        // A value at a bin's lower edge lies in that bin: its upper edge is 1 µs above.
        assert_eq!(l.quantile(0.5), SimTime::from_micros(51));
        assert_eq!(l.quantile(0.99), SimTime::from_micros(100));
        assert_eq!(l.max(), SimTime::from_micros(100));
        assert_eq!(l.mean(), SimTime::from_nanos(50_500));
        assert_eq!(l.over(SimTime::from_micros(90)), 10);
        let mut huge = Lateness::default();
        huge.add(SimTime::from_millis(250));
        assert_eq!(huge.quantile(0.99), SimTime::from_millis(100));
        assert_eq!(huge.max(), SimTime::from_millis(250));
    }
}
