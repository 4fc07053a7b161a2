//! A windowed running maximum, as Linux's lib/win_minmax.c (Kathleen Nichols' algorithm):
//! the best, second-best and third-best samples of the window, each younger than the one
//! before, so that when the best ages out the next is ready. Time is whatever the caller
//! counts in (BBR: packet-timed round trips).

/// One kept sample: when, and its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// The running maximum over a window of `win` time units (`struct minmax`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxFilter {
    s: [Sample; 3],
}

impl MaxFilter {
    /// The windowed maximum (`minmax_get`).
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forgets everything for sample `v` at `t` (`minmax_reset`).
    pub fn reset(&mut self, t: u64, v: u64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Takes measurement `v` at `t` (`minmax_running_max`).
    pub fn update(&mut self, win: u64, t: u64, v: u64) {
        let val = Sample { t, v };
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            self.reset(t, v);
            return;
        }
        if v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val);
    }

    /// Ages the kept samples (`minmax_subwin_update`): the best is replaced by the next
    /// when it leaves the window, and the second and third are refreshed after a quarter
    /// and a half of it.
    fn subwin_update(&mut self, win: u64, val: Sample) {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A maximum lasts its window, then the best younger sample takes over.
    #[test]
    fn the_maximum_ages_out_after_its_window() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        for t in 1..=10 {
            f.update(10, t, 50 + t);
            assert_eq!(f.get(), 100);
        }
        f.update(10, 11, 40);
        assert!(f.get() < 100 && f.get() >= 50);
        // A new maximum wins at once.
        f.update(10, 12, 500);
        assert_eq!(f.get(), 500);
    }
}
