//! A service rate known in advance as a function of time: the rate a scheduled radio
//! bearer's buffer drains at (an LTE cell's uplink, whose eNB scheduler grants the UE so
//! many bytes per subframe), piecewise constant.
//!
//! A packet at the head of the buffer is served at whatever rate holds at each instant, so
//! a change of rate while it is being sent changes the time its remaining bytes take. An
//! LTE UE sends, in each 1 ms subframe, as many bytes from its buffer as the grant of that
//! subframe allows (3GPP TS 36.321 §5.4.3.1, logical channel prioritisation: each grant is
//! filled from the buffer), segmenting an IP packet across grants where it does not fit
//! (TS 36.322 §4.2.1.2 and §5.1.3, RLC segmentation); the packet has left when the grant
//! that carries its last byte is sent. This is the fluid form of that: grants of `rate ·
//! 1 ms` per subframe, the departure timed to the nanosecond rather than to the end of the
//! subframe (at most 1 ms early). The buffer is thus a work-conserving FIFO server with
//! a time-varying rate: a packet that finds `Q` bytes ahead of it at a constant rate `r`
//! leaves `(Q + its size) · 8 / r` later (Kleinrock, *Queueing Systems* vol. 1, §1.3, the
//! work in the system drains at the server's rate).

use crate::engine::SimTime;
use crate::scenario::units::DataRate;

/// A piecewise-constant rate: `steps[i].1` holds from `steps[i].0` until the next step.
/// The first step is at time zero and every rate is above zero (the scenario's checks).
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceRate {
    steps: Vec<(SimTime, u64)>,
}

impl ServiceRate {
    /// `initial` from time zero, then each `(at, rate)` change; changes at the same instant
    /// keep the last one listed.
    pub fn new(initial: DataRate, changes: impl IntoIterator<Item = (SimTime, DataRate)>) -> Self {
        let mut changes: Vec<(SimTime, u64)> = changes.into_iter().map(|(t, r)| (t, r.0)).collect();
        // Stable: equal instants keep their order, the last one wins below.
        changes.sort_by_key(|c| c.0);
        let mut steps = vec![(SimTime::ZERO, initial.0)];
        for (at, rate) in changes {
            match steps.last_mut() {
                Some(last) if last.0 == at => last.1 = rate,
                _ => steps.push((at, rate)),
            }
        }
        ServiceRate { steps }
    }

    /// The rate at `t`, in bit/s.
    pub fn at(&self, t: SimTime) -> u64 {
        let i = self.steps.partition_point(|s| s.0 <= t);
        self.steps[i.saturating_sub(1)].1
    }

    /// When `bytes` whose service starts at `start` have all been served: the first instant
    /// `t` with ∫ rate from `start` to `t` ≥ `bytes · 8`, rounded up to the nanosecond.
    /// Work is counted in bit·ns·10⁹ (a rate in bit/s times a duration in ns), so a constant
    /// rate gives exactly [`DataRate::tx_time`].
    pub fn finish(&self, start: SimTime, bytes: u64) -> SimTime {
        let mut need = u128::from(bytes) * 8 * 1_000_000_000;
        let mut i = self
            .steps
            .partition_point(|s| s.0 <= start)
            .saturating_sub(1);
        let mut t = start;
        loop {
            let rate = u128::from(self.steps[i].1.max(1));
            let Some(&(next, _)) = self.steps.get(i + 1) else {
                return t + SimTime(need.div_ceil(rate) as u64);
            };
            let span = u128::from((next - t).as_nanos());
            if rate * span >= need {
                return t + SimTime(need.div_ceil(rate) as u64);
            }
            need -= rate * span;
            t = next;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn a_constant_rate_is_the_serialization_time() {
        let r = ServiceRate::new(DataRate(5_000_000), []);
        for bytes in [1, 128, 1052, 1500, 123_457] {
            let start = SimTime(987_654_321);
            assert_eq!(
                r.finish(start, bytes),
                start + DataRate(5_000_000).tx_time(bytes)
            );
        }
    }

    /// 1000 B at 80 kbit/s take 100 ms; started 40 ms before the rate doubles, 40 ms serve
    /// 400 B and the other 600 B take 30 ms at 160 kbit/s: done 70 ms after the start.
    #[test]
    fn the_rest_of_a_packet_goes_at_the_new_rate() {
        let r = ServiceRate::new(DataRate(80_000), [(ms(1000), DataRate(160_000))]);
        assert_eq!(r.finish(ms(960), 1000), ms(1030));
        // Slower again later: a packet spanning two changes.
        let r = ServiceRate::new(
            DataRate(80_000),
            [(ms(1000), DataRate(160_000)), (ms(1010), DataRate(8_000))],
        );
        // 40 ms at 80k: 400 B; 10 ms at 160k: 200 B; 400 B at 8 kbit/s: 400 ms.
        assert_eq!(r.finish(ms(960), 1000), ms(1410));
        // Starting exactly at a change uses the new rate.
        assert_eq!(r.finish(ms(1000), 100), ms(1005));
    }

    #[test]
    fn changes_at_one_instant_keep_the_last_and_are_sorted() {
        let r = ServiceRate::new(
            DataRate(1_000),
            [
                (ms(20), DataRate(3_000)),
                (ms(10), DataRate(2_000)),
                (ms(20), DataRate(4_000)),
            ],
        );
        assert_eq!(r.at(ms(5)), 1_000);
        assert_eq!(r.at(ms(10)), 2_000);
        assert_eq!(r.at(ms(19)), 2_000);
        assert_eq!(r.at(ms(20)), 4_000);
        assert_eq!(r.at(SimTime::MAX), 4_000);
    }
}
