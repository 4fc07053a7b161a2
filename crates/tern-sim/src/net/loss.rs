//! Loss models of a link direction. Each owns its random stream.

use crate::engine::{RngStream, SimTime};
use crate::radio::mobility::Mobility;
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
    /// Bernoulli with the probability [`mininet_wifi_loss`] gives for the distance between
    /// the two nodes when the packet is decided.
    MininetWifiDistance {
        station: Mobility,
        ap: Mobility,
        rng: RngStream,
    },
}

/// The loss probability (0 to 1) Mininet-WiFi's tc mode puts on a station's interface at
/// distance `d` (m) from its AP (`mn_wifi/link.py`, `IntfWireless`): `configWLink` computes
/// `loss = eqLoss = (dist * 2) / 1000` (a percentage) and `set_tc` adds netem's
/// `loss {:.1f}%` to the interface's qdisc only when that exceeds 0.1, so netem drops each
/// packet with the percentage printed to one decimal (Python's `format`, correctly rounded
/// from the binary value, as Rust's `{:.1}` is): nothing up to 50 m, 0.1 % from just beyond,
/// 0.2 % at 100 m, 0.8 % at 400 m. netem's `loss` without a correlation is independent per
/// packet (`loss random`, Linux `sch_netem.c`).
pub fn mininet_wifi_loss(d: f64) -> f64 {
    let percent = d * 2.0 / 1000.0;
    if percent.is_nan() || percent <= 0.1 {
        return 0.0;
    }
    let printed: f64 = format!("{percent:.1}").parse().unwrap_or(percent);
    (printed / 100.0).min(1.0)
}

impl LossModel {
    /// Builds the model of `spec` drawing from `rng`, a node's path over time from
    /// `mobility` (by name). The Gilbert–Elliott chain starts in the good state.
    pub fn from_spec(
        spec: &LossSpec,
        rng: RngStream,
        mobility: &dyn Fn(&str) -> Mobility,
    ) -> LossModel {
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
            LossSpec::MininetWifiDistance {
                ref station,
                ref ap,
                ..
            } => LossModel::MininetWifiDistance {
                station: mobility(station),
                ap: mobility(ap),
                rng,
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
            LossModel::MininetWifiDistance { station, ap, rng } => {
                let d = station.position(now).distance(&ap.position(now));
                rng.bernoulli(mininet_wifi_loss(d))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::mobility::{Leg, Position};

    fn nowhere() -> Mobility {
        Mobility::Static(Position::new(0.0, 0.0, 0.0))
    }

    /// `mn_wifi/link.py` by hand: loss = 2d/1000 %, set only when above 0.1, printed with
    /// `'{:.1f}'`. 50 m: 0.1, not above 0.1, no loss. 51 m: 0.102 -> "0.1". 75 m: 0.15,
    /// whose binary value is 0.1499…, -> "0.1". 100 m: "0.2". 125 m: 0.25 exactly, a tie
    /// Python rounds to even, "0.2". 174 m: 0.348 -> "0.3". 400 m: "0.8". 1000 m: "2.0".
    #[test]
    fn mininet_wifi_loss_by_hand() {
        for (d, percent) in [
            (0.0, 0.0),
            (10.0, 0.0),
            (50.0, 0.0),
            (51.0, 0.1),
            (75.0, 0.1),
            (100.0, 0.2),
            (125.0, 0.2),
            (174.0, 0.3),
            (400.0, 0.8),
            (1000.0, 2.0),
        ] {
            let p = mininet_wifi_loss(d);
            assert!((p - percent / 100.0).abs() < 1e-15, "{d} m: {p}");
        }
    }

    /// The model follows the station: a station walking from the AP at 10 m/s loses nothing
    /// in its first 5 s (up to 50 m) and 0.8 % of packets at 400 m (by the binomial
    /// distribution, 200 000 draws at 0.8 % have a standard deviation of 0.02 points).
    #[test]
    fn distance_loss_follows_the_station() {
        let ap = Position::new(0.0, 0.0, 0.0);
        let walk = Mobility::from_legs(
            ap,
            &[Leg::Walk {
                to: Position::new(400.0, 0.0, 0.0),
                speed: 10.0,
            }],
        )
        .unwrap();
        let spec = LossSpec::MininetWifiDistance {
            station: "sta".into(),
            ap: "ap".into(),
            direction: Default::default(),
        };
        let mobility = |n: &str| match n {
            "sta" => walk.clone(),
            _ => Mobility::Static(ap),
        };
        let mut m = LossModel::from_spec(&spec, RngStream::new(3, "d"), &mobility);
        let near = (0..100_000)
            .filter(|k| m.is_lost(SimTime::from_micros(k * 50)))
            .count();
        assert_eq!(near, 0);
        let n = 200_000;
        let far = (0..n).filter(|_| m.is_lost(SimTime::from_secs(40))).count();
        let rate = far as f64 / n as f64;
        assert!((rate - 0.008).abs() < 0.001, "{rate}");
    }

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
        let mut m = LossModel::from_spec(&spec, RngStream::new(42, "ge-test"), &|_| nowhere());
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
        let mut m = LossModel::from_spec(&spec, RngStream::new(1, "o"), &|_| nowhere());
        assert!(!m.is_lost(SimTime::from_secs(20) - SimTime(1)));
        assert!(m.is_lost(SimTime::from_secs(20)));
        assert!(m.is_lost(SimTime::from_secs(23) - SimTime(1)));
        assert!(!m.is_lost(SimTime::from_secs(23)));
    }
}
