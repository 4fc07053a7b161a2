//! The receiver's loss interval history and the average loss interval (RFC 5348 §5.4,
//! history discounting §5.5; unchanged from RFC 3448 §5.4–5.5).

use std::collections::VecDeque;

/// Loss intervals averaged, n of RFC 5348 §5.4.
pub const N: usize = 8;

/// The weights w_0 … w_{n-1} of RFC 5348 §5.4 for a history of `n` intervals: w_i = 1 for
/// i < n/2, and w_i = 1 − (i − (n/2 − 1))/(n/2 + 1) = 2·(n−i)/(n+2) after, giving 1, 1, 1,
/// 1, 0.8, 0.6, 0.4, 0.2 for the RFC's n = 8 (and 1, 0.5 for n = 2).
pub fn weight(n: usize, i: usize) -> f64 {
    if 2 * i < n {
        1.0
    } else {
        2.0 * (n - i) as f64 / (n + 2) as f64
    }
}

/// The lower bound of the discount factor, THRESHOLD of RFC 5348 §5.5.
const DISCOUNT_FLOOR: f64 = 0.5;

/// Closed loss intervals I_1 … I_n, newest first, in packets, each with the discount
/// factor DF_i it carries (RFC 5348 §5.5; 1 without history discounting).
#[derive(Clone, Debug, Default)]
pub struct LossIntervals {
    closed: VecDeque<(f64, f64)>,
    /// History discounting of §5.5 on (ns-2's `discount_ 1`).
    discounting: bool,
}

impl LossIntervals {
    pub fn new(discounting: bool) -> Self {
        LossIntervals {
            closed: VecDeque::with_capacity(N + 1),
            discounting,
        }
    }

    /// How many closed intervals are kept (at most n).
    pub fn len(&self) -> usize {
        self.closed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.closed.is_empty()
    }

    /// A loss event closes the open interval of `closed` packets: it becomes I_1, and with
    /// discounting every older interval takes on the general discount factor DF in force
    /// (§5.5: "DF_i = DF * DF_i" for i = 1 … n, then the shift, DF_0 = 1). DF is the one
    /// of the last packet arrival before the loss event (§5.5: DF "is updated on every
    /// packet arrival", with I_0 then the packets since the last loss event), so `i0` is
    /// the open interval I_0 at that arrival: the closed interval and the packets after
    /// its end that revealed the loss (NDUPACK of them or more, §5.1).
    pub fn close(&mut self, closed: f64, i0: f64) {
        if self.discounting {
            let df = self.discount(i0, N);
            for (_, d) in self.closed.iter_mut() {
                *d *= df;
            }
        }
        self.closed.push_front((closed, 1.0));
        self.closed.truncate(N);
    }

    /// The history's own mean over `n` intervals, I_1 … I_k (k ≤ n) with their weights
    /// w_0 … w_{k-1} and DF_i.
    fn history_mean(&self, n: usize) -> f64 {
        let (i_tot, w_tot) = self
            .closed
            .iter()
            .take(n)
            .enumerate()
            .fold((0.0, 0.0), |(i, w), (k, &(len, df))| {
                (i + len * weight(n, k) * df, w + weight(n, k) * df)
            });
        i_tot / w_tot
    }

    /// The general discount factor DF of §5.5 for an open interval of `i0` packets:
    /// 2·I_mean/I_0 when I_0 > 2·I_mean, at least THRESHOLD = 0.5; 1 otherwise.
    fn discount(&self, i0: f64, n: usize) -> f64 {
        if !self.discounting || self.closed.is_empty() {
            return 1.0;
        }
        let mean = self.history_mean(n);
        if i0 > 2.0 * mean {
            (2.0 * mean / i0).max(DISCOUNT_FLOOR)
        } else {
            1.0
        }
    }

    /// The average loss interval I_mean with the open interval I_0 of `i0` packets
    /// (§5.4): the larger of the weighted means with and without I_0, so that a long
    /// interval since the last loss raises it but a short one cannot lower it; `None`
    /// before the first loss event.
    pub fn mean(&self, i0: f64) -> Option<f64> {
        self.mean_of(i0, N)
    }

    /// [`LossIntervals::mean`] over the newest `n` intervals (1 ≤ n ≤ [`N`]) with §5.4's
    /// weights for n: what the tfrc-handover study's countermeasure C uses for a while
    /// after a handover, to weight the newest intervals more.
    pub fn mean_of(&self, i0: f64, n: usize) -> Option<f64> {
        assert!((1..=N).contains(&n), "1 to {N} intervals, not {n}");
        if self.closed.is_empty() {
            return None;
        }
        let df = self.discount(i0, n);
        let k = self.closed.len().min(n);
        // With I_0: I_0·w_0 + Σ_{i=1}^{k-1} I_i·w_i·DF_i·DF.
        let (mut i_tot0, mut w_tot0) = (i0 * weight(n, 0), weight(n, 0));
        for (i, &(len, d)) in self.closed.iter().take(k - 1).enumerate() {
            i_tot0 += len * weight(n, i + 1) * d * df;
            w_tot0 += weight(n, i + 1) * d * df;
        }
        let mean0 = i_tot0 / w_tot0;
        Some(mean0.max(self.history_mean(n)))
    }

    /// The loss event rate p = 1/I_mean (§5.4) over the newest `n` intervals, 0 before the
    /// first loss event.
    pub fn loss_event_rate(&self, i0: f64, n: usize) -> f64 {
        self.mean_of(i0, n).map_or(0.0, |m| 1.0 / m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §5.4's weights for n = 8.
    #[test]
    fn weights_of_section_5_4() {
        let w: Vec<f64> = (0..N).map(|i| weight(N, i)).collect();
        assert_eq!(w, [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
        // The same rule for shorter histories: n = 2 gives 1, 2·1/4; n = 4 gives 1, 1, 4/6, 2/6.
        assert_eq!([weight(2, 0), weight(2, 1)], [1.0, 0.5]);
        let w4: Vec<f64> = (0..4).map(|i| weight(4, i)).collect();
        assert_eq!(w4, [1.0, 1.0, 4.0 / 6.0, 2.0 / 6.0]);
    }

    /// Countermeasure C's shorter history: a short newest interval of 10 after seven of 100
    /// gives, over n = 8, (10 + 100·(1+1+1+0.8+0.6+0.4+0.2)) / 6 = 510/6 = 85; over n = 2
    /// only I_1 and I_2 count, (10·1 + 100·0.5) / 1.5 = 40. An I_0 of 30 would give
    /// (30·1 + 10·0.5)/1.5 = 23.3 with n = 2, below 40, so it is not taken (§5.4).
    #[test]
    fn a_shorter_history_follows_the_newest_intervals() {
        let mut h = LossIntervals::new(false);
        for _ in 0..7 {
            h.close(100.0, 100.0);
        }
        h.close(10.0, 10.0);
        assert!((h.mean(0.0).unwrap() - 85.0).abs() < 1e-12);
        assert!((h.mean_of(30.0, 2).unwrap() - 40.0).abs() < 1e-12);
        assert_eq!(
            h.loss_event_rate(30.0, 2),
            1.0 / h.mean_of(30.0, 2).unwrap()
        );
    }

    /// Eight equal intervals of 100 packets give I_mean = 100 whatever the (shorter) I_0;
    /// a long I_0 of 1000 raises it: (1000 + 100·(1+1+1+0.8+0.6+0.4+0.2)) / 6 = 250.
    #[test]
    fn mean_takes_the_open_interval_only_when_it_raises_it() {
        let mut h = LossIntervals::new(false);
        for _ in 0..8 {
            h.close(100.0, 100.0);
        }
        assert_eq!(h.mean(10.0), Some(100.0));
        assert_eq!(h.mean(1000.0), Some(250.0));
        assert_eq!(h.loss_event_rate(10.0, N), 0.01);
    }

    /// The newest interval weighs most: intervals (newest first) 10, 20, …, 80 give
    /// I_tot1 = 10+20+30+40 + 0.8·50 + 0.6·60 + 0.4·70 + 0.2·80 = 220, W_tot = 6,
    /// I_mean = 36.67 (an I_0 of 0 is ignored).
    #[test]
    fn weighted_by_age() {
        let mut h = LossIntervals::new(false);
        for len in [80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 20.0, 10.0] {
            h.close(len, len);
        }
        let m = h.mean(0.0).unwrap();
        assert!((m - 220.0 / 6.0).abs() < 1e-12, "{m}");
    }

    /// Only n intervals are kept: a ninth pushes the oldest out.
    #[test]
    fn keeps_n_intervals() {
        let mut h = LossIntervals::new(false);
        h.close(1e6, 1e6);
        for _ in 0..8 {
            h.close(100.0, 100.0);
        }
        assert_eq!(h.len(), 8);
        assert_eq!(h.mean(0.0), Some(100.0));
    }

    /// §5.5: with I_mean = 100 and I_0 = 1000, DF = max(0.5, 200/1000) = 0.5, so the
    /// older intervals count half: (1000 + 0.5·100·5) / (1 + 0.5·5) = 1250/3.5 = 357.1
    /// (against 250 without discounting).
    #[test]
    fn history_discounting_halves_old_intervals() {
        let mut h = LossIntervals::new(true);
        for _ in 0..8 {
            h.close(100.0, 100.0);
        }
        let m = h.mean(1000.0).unwrap();
        assert!((m - 1250.0 / 3.5).abs() < 1e-9, "{m}");
        // An I_0 below 2·I_mean is not discounted: (150 + 100·5) / 6.
        assert_eq!(h.mean(150.0), Some(650.0 / 6.0));
    }

    /// The discount in force when a loss event closes a long interval stays on the older
    /// intervals: after closing 1000 over eight 100s (DF 0.5), I_mean =
    /// (1000 + 0.5·100·(1+1+1+0.8+0.6+0.4+0.2)) / (1 + 0.5·5) = 1250/3.5.
    #[test]
    fn discount_is_retained() {
        let mut h = LossIntervals::new(true);
        for _ in 0..8 {
            h.close(100.0, 100.0);
        }
        h.close(1000.0, 1000.0);
        let m = h.mean(0.0).unwrap();
        assert!((m - 1250.0 / 3.5).abs() < 1e-9, "{m}");
    }

    /// A loss event retains the DF of the open interval I_0 at the last arrival before
    /// it (§5.5), not the closed interval's length: with eight intervals of 100
    /// (I_mean = 100), an interval of 300 closed when I_0 had reached 303 gets DF = 2·100/303
    /// on the older ones, and then I_mean (without I_0) = (300 + 100·DF·(1+1+1+0.8+0.6+
    /// 0.4+0.2)) / (1 + DF·5) = (300·303 + 100 000) / (303 + 1000) = 190 900/1303; with DF
    /// of the closed length 300 it would be (300 + 500·2/3) / (1 + 10/3) = 146.15.
    #[test]
    fn the_retained_discount_is_that_of_the_open_interval() {
        let mut h = LossIntervals::new(true);
        for _ in 0..8 {
            h.close(100.0, 100.0);
        }
        h.close(300.0, 303.0);
        let m = h.mean(0.0).unwrap();
        assert!((m - 190_900.0 / 1303.0).abs() < 1e-9, "{m}");
    }
}
