//! One pending wake-up per component (DESIGN.md, "Timers").
//!
//! A component whose deadline moves often (a TCP endpoint's retransmission timer, a BSS, an
//! RLC bearer's TTI clock) keeps at most one event in the queue: when its deadline moves
//! earlier a new event is queued; when it moves later the queued event is left to fire and
//! find nothing to do. No event is ever searched for and removed.

use super::SimTime;

/// The due time of a component's queued wake-up, if one is queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wake(Option<SimTime>);

impl Wake {
    /// The component wants to run at `at` (not before `now`): returns the time of a new
    /// event to queue, or `None` when the queued one comes soon enough.
    #[inline]
    pub fn arm(&mut self, now: SimTime, at: SimTime) -> Option<SimTime> {
        let at = at.max(now);
        if self.0.is_none_or(|queued| at < queued) {
            self.0 = Some(at);
            Some(at)
        } else {
            None
        }
    }

    /// An event of this component fires at `now`: whether it is the one last queued (then
    /// nothing is queued any more). An older event, superseded by an earlier one, returns
    /// false.
    #[inline]
    pub fn fire(&mut self, now: SimTime) -> bool {
        let current = self.0 == Some(now);
        if current {
            self.0 = None;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_event_per_deadline_and_superseded_events_are_stale() {
        let t = SimTime::from_millis;
        let mut w = Wake::default();
        assert_eq!(w.arm(t(0), t(10)), Some(t(10)));
        assert_eq!(
            w.arm(t(0), t(20)),
            None,
            "a later deadline keeps the queued event"
        );
        assert_eq!(
            w.arm(t(0), t(5)),
            Some(t(5)),
            "an earlier one queues a new event"
        );
        assert!(w.fire(t(5)));
        assert!(!w.fire(t(10)), "the superseded event finds nothing to do");
        assert_eq!(w.arm(t(12), t(3)), Some(t(12)), "never in the past");
    }
}
