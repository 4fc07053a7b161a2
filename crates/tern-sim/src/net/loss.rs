//! Loss models of a link direction. Each owns its random stream.

use crate::engine::{RngStream, SimTime};
use crate::scenario::{LossSpec, OutageWindow};

#[derive(Debug)]
pub enum LossModel {
    Bernoulli {
        p: f64,
        rng: RngStream,
    },
    GilbertElliott {
        good_to_bad: f64,
        bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
        rng: RngStream,
    },
    Outage {
        /// `[start, end)` intervals, in the order given.
        windows: Vec<(SimTime, SimTime)>,
    },
}

impl LossModel {
    /// Builds the model of `spec` drawing from `rng`. The Gilbert–Elliott
    /// chain starts in the good state.
    pub fn from_spec(spec: &LossSpec, rng: RngStream) -> LossModel {
        match *spec {
            LossSpec::Bernoulli { p, .. } => LossModel::Bernoulli { p, rng },
            LossSpec::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_good,
                loss_bad,
                ..
            } => LossModel::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_good,
                loss_bad,
                bad: false,
                rng,
            },
            LossSpec::Outage { ref windows, .. } => LossModel::Outage {
                windows: windows
                    .iter()
                    .map(|OutageWindow { at, length }| (at.0, at.0 + length.0))
                    .collect(),
            },
        }
    }

    /// Whether the packet whose last bit arrives at `now` is lost.
    pub fn is_lost(&mut self, now: SimTime) -> bool {
        match self {
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_good,
                loss_bad,
                bad,
                rng,
            } => {
                let flip = if *bad { *bad_to_good } else { *good_to_bad };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
            LossModel::Outage { windows } => windows.iter().any(|&(s, e)| now >= s && now < e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Long-run loss rate and mean loss-burst length of the Gilbert model
    /// (loss_good = 0, loss_bad = 1) against their closed forms:
    /// stationary P(bad) = p / (p + r), mean burst = 1 / r.
    #[test]
    fn gilbert_elliott_matches_closed_form() {
        let (p, r) = (0.01, 0.25);
        let spec = LossSpec::GilbertElliott {
            good_to_bad: p,
            bad_to_good: r,
            loss_good: 0.0,
            loss_bad: 1.0,
            direction: Default::default(),
        };
        let mut m = LossModel::from_spec(&spec, RngStream::new(42, "ge-test"));
        let n = 2_000_000;
        let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
        for _ in 0..n {
            let l = m.is_lost(SimTime::ZERO);
            lost += u64::from(l);
            if l && !prev {
                bursts += 1;
            }
            prev = l;
        }
        let rate = lost as f64 / n as f64;
        let expect_rate = p / (p + r);
        let burst = lost as f64 / bursts as f64;
        let expect_burst = 1.0 / r;
        assert!(
            (rate / expect_rate - 1.0).abs() < 0.02,
            "rate {rate} vs {expect_rate}"
        );
        assert!(
            (burst / expect_burst - 1.0).abs() < 0.02,
            "burst {burst} vs {expect_burst}"
        );
    }

    #[test]
    fn outage_window_is_half_open() {
        let spec = LossSpec::Outage {
            windows: vec![OutageWindow {
                at: crate::scenario::units::Duration(SimTime::from_secs(20)),
                length: crate::scenario::units::Duration(SimTime::from_secs(3)),
            }],
            direction: Default::default(),
        };
        let mut m = LossModel::from_spec(&spec, RngStream::new(1, "o"));
        assert!(!m.is_lost(SimTime::from_secs(20) - SimTime(1)));
        assert!(m.is_lost(SimTime::from_secs(20)));
        assert!(m.is_lost(SimTime::from_secs(23) - SimTime(1)));
        assert!(!m.is_lost(SimTime::from_secs(23)));
    }
}
