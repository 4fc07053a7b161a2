//! A [`Bss`] from its scenario table.

use super::ap_rx::ApRxStrategy;
use super::bss::{Bss, Config, HtPhy, Phy};
use super::frames::AmpduLimits;
use super::phy::{
    ht_mf_max_ppdu, Band, ChannelWidth, DsssPreamble, DsssRate, GuardInterval, HtMcs, HtTxVector,
    OfdmRate,
};
use super::rate::{HtRateSet, LegacyRateSet, MinstrelConfig, RateControl};
use super::retry_out::{IndexRule, RetryOutConfig, RetryOutIndex, Step};
use crate::engine::RngStream;
use crate::radio::mobility::{Leg, Mobility, Position};
use crate::radio::propagation::{
    LogDistance, Shadowing, DEFAULT_NOISE_FIGURE_DB, DEFAULT_TX_POWER_DBM,
};
use crate::radio::tgn::TgnModel;
use crate::radio::{LinkFading, RadioChannel};
use crate::scenario::units::{DataRate, Duration};
use crate::scenario::{
    AmpduSpec, BandSpec, GuardIntervalSpec, MoveSpec, NodeSpec, PreambleSpec, RateControlSpec,
    WifiSpec, WifiStandard,
};
use tern_proto::time::SimTime;

/// 802.11b and 802.11g per-frame retry limit: dot11ShortRetryLimit (7) applies to frames not
/// longer than dot11RTSThreshold, i.e. all frames when RTS/CTS is off.
pub const DCF_RETRY_LIMIT: u32 = 7;
/// 802.11n per-MPDU software retry limit of the Linux ath9k driver (ATH_MAX_SW_RETRIES).
pub const HT_RETRY_LIMIT: u32 = 30;
/// Default shadowing decorrelation interval.
pub const SHADOWING_INTERVAL: SimTime = SimTime::from_secs(1);

/// Where a node is over time, from its `position` and `moves`.
pub fn mobility(node: &NodeSpec) -> Result<Mobility, String> {
    let [x, y, z] = node.position.unwrap_or([0.0; 3]);
    let start = Position::new(x, y, z);
    if node.moves.is_empty() {
        return Ok(Mobility::Static(start));
    }
    let legs: Vec<Leg> = node
        .moves
        .iter()
        .map(|m| match m {
            MoveSpec::Pause { pause } => Leg::Pause(pause.0),
            MoveSpec::Walk { walk_to, speed } => Leg::Walk {
                to: Position::new(walk_to[0], walk_to[1], walk_to[2]),
                speed: *speed,
            },
        })
        .collect();
    Mobility::from_legs(start, &legs)
}

/// `spec` (validated) with each setting of its standard that it leaves unset written out as
/// the model takes it ([`phy`], [`bss`], [`nominal_rate`]): 802.11b's rate and preamble,
/// 802.11g's rate control (without a fixed rate), 802.11n's band, width, guard interval,
/// spatial streams, rate control and A-MPDU limits, and every standard's retry limit. The
/// same BSS, so that a resolved scenario shows what a run uses and runs the same.
pub fn with_defaults(spec: &WifiSpec) -> WifiSpec {
    let mut s = spec.clone();
    let ht = s.standard == WifiStandard::Dot11n;
    s.retry_limit
        .get_or_insert(if ht { HT_RETRY_LIMIT } else { DCF_RETRY_LIMIT });
    match s.standard {
        WifiStandard::Dot11b => {
            s.rate.get_or_insert(DataRate(DsssRate::Mbps11.bps()));
            s.preamble.get_or_insert(PreambleSpec::Long);
        }
        WifiStandard::Dot11g => {
            if s.rate.is_none() {
                s.rate_control.get_or_insert(RateControlSpec::Minstrel);
            }
        }
        WifiStandard::Dot11n => {
            s.band.get_or_insert(BandSpec::Ghz5);
            s.width.get_or_insert(20);
            s.guard_interval.get_or_insert(GuardIntervalSpec::Long);
            s.streams.get_or_insert(1);
            s.rate_control.get_or_insert(RateControlSpec::Minstrel);
            let ampdu = s.ampdu.get_or_insert(AmpduSpec {
                max_mpdus: 64,
                max_bytes: 65_535,
                max_duration: None,
            });
            ampdu
                .max_duration
                .get_or_insert(Duration(ht_mf_max_ppdu(band(spec))));
        }
    }
    s
}

/// The PHY a BSS table describes (validated).
pub fn phy(spec: &WifiSpec) -> Phy {
    match spec.standard {
        WifiStandard::Dot11b => Phy::Dsss {
            rate: spec
                .rate
                .map_or(DsssRate::Mbps11, |r| dsss_rate(r.0).expect("validated")),
            preamble: match spec.preamble {
                Some(PreambleSpec::Short) => DsssPreamble::Short,
                _ => DsssPreamble::Long,
            },
        },
        // Without a fixed `rate`, the rate control picks each frame's (Phy::Erp's None).
        WifiStandard::Dot11g => Phy::Erp {
            rate: spec
                .rate
                .map(|r| OfdmRate::from_bps(r.0).expect("validated")),
        },
        WifiStandard::Dot11n => Phy::Ht {
            band: band(spec),
            width: if spec.width == Some(40) {
                ChannelWidth::Mhz40
            } else {
                ChannelWidth::Mhz20
            },
            gi: match spec.guard_interval {
                Some(GuardIntervalSpec::Short) => GuardInterval::Short,
                _ => GuardInterval::Long,
            },
        },
    }
}

fn band(spec: &WifiSpec) -> Band {
    match spec.band {
        Some(BandSpec::Ghz2_4) => Band::Ghz2_4,
        _ => Band::Ghz5,
    }
}

/// The PHY rate a BSS's channels report: the 802.11b or 802.11g data rate, or, where the
/// rate adapts, the fastest: 54 Mbit/s for 802.11g, the fastest HT MCS.
pub fn nominal_rate(spec: &WifiSpec) -> DataRate {
    match phy(spec) {
        Phy::Dsss { rate, .. } => DataRate(rate.bps()),
        Phy::Erp { rate } => DataRate(rate.unwrap_or(OfdmRate::Mbps54).bps()),
        Phy::Ht { width, gi, .. } => {
            let tx = HtTxVector::new(top_mcs(spec), width, gi);
            DataRate(tx.data_rate_bps() as u64)
        }
    }
}

/// The fastest HT MCS of the members' spatial streams: 7 with one (the default), 15 with two.
pub fn top_mcs(spec: &WifiSpec) -> HtMcs {
    HtMcs::new(if spec.streams == Some(2) { 15 } else { 7 }).expect("MCS 7 or 15")
}

/// The DSSS rate of `bps` bit/s, if there is one.
pub fn dsss_rate(bps: u64) -> Option<DsssRate> {
    DsssRate::ALL.into_iter().find(|r| r.bps() == bps)
}

/// The AP's receive strategy of `spec`: its retry-out index, if it has one.
pub fn ap_rx(spec: &WifiSpec) -> Option<Box<dyn ApRxStrategy>> {
    let r = spec.retry_out.as_ref().filter(|r| r.enabled)?;
    let rule = match r.fixed {
        Some(index) => IndexRule::Fixed(index),
        None => IndexRule::Table(
            r.table
                .iter()
                .map(|s| Step {
                    below_bps: s.below.0,
                    index: s.index,
                })
                .collect(),
        ),
    };
    Some(Box::new(RetryOutIndex::new(RetryOutConfig {
        weight: r.weight,
        rule,
        exact_headers: r.exact_headers,
    })))
}

/// The BSS of `spec`; `nodes` are the scenario's nodes (for positions).
pub fn bss(spec: &WifiSpec, nodes: &[NodeSpec], seed: u64) -> Bss {
    let phy = phy(spec);
    let ht = matches!(phy, Phy::Ht { .. });
    let ampdu = spec.ampdu.clone();
    let cfg = Config {
        queue_limit: spec.queue as usize,
        retry_limit: spec
            .retry_limit
            .unwrap_or(if ht { HT_RETRY_LIMIT } else { DCF_RETRY_LIMIT }),
        ampdu: AmpduLimits {
            mpdus: ampdu.as_ref().map_or(64, |a| a.max_mpdus),
            bytes: ampdu.as_ref().map_or(65_535, |a| a.max_bytes),
            ppdu: ampdu
                .as_ref()
                .and_then(|a| a.max_duration)
                .map_or(ht_mf_max_ppdu(band(spec)), |d| d.0),
        },
        mpdu_error: spec.mpdu_error,
        lifetime: Some(spec.lifetime.0).filter(|d| d.as_nanos() > 0),
        reorder_timeout: Some(spec.reorder_timeout.0).filter(|d| d.as_nanos() > 0),
        phy: phy.clone(),
    };
    let node = |name: &str| nodes.iter().find(|n| n.name == name).expect("validated");
    let members = std::iter::once(&spec.ap).chain(&spec.stations);
    let mobility = members
        .map(|m| mobility(node(m)).expect("validated"))
        .collect();
    let p = &spec.propagation;
    let (freq, bandwidth) = match &phy {
        Phy::Dsss { .. } => (2.412e9, 22e6),
        // ERP-OFDM on channel 1: a 20 MHz OFDM channel (Clause 17's noise bandwidth).
        Phy::Erp { .. } => (2.412e9, 20e6),
        Phy::Ht { band, width, .. } => (
            if *band == Band::Ghz5 { 5.18e9 } else { 2.412e9 },
            if *width == ChannelWidth::Mhz40 {
                40e6
            } else {
                20e6
            },
        ),
    };
    let mut path = LogDistance::with_friis_reference(freq, p.exponent.unwrap_or(3.0));
    if let Some(l) = p.reference_loss {
        path.reference_loss_db = l;
    }
    let radio = RadioChannel::new(
        &format!("wifi/{}", spec.name),
        seed,
        mobility,
        path,
        p.tx_power.unwrap_or(DEFAULT_TX_POWER_DBM),
        bandwidth,
        p.noise_figure.unwrap_or(DEFAULT_NOISE_FIGURE_DB),
        p.shadowing.filter(|s| *s > 0.0).map(|sigma_db| {
            (
                Shadowing { sigma_db },
                p.shadowing_interval.map_or(SHADOWING_INTERVAL, |d| d.0),
            )
        }),
    );
    let radio = match &p.fading {
        None => radio,
        Some(f) => radio
            .with_fading(LinkFading {
                environment_speed: f.environment_speed,
                freq_hz: freq,
                k_factor: f.k_factor,
                rx_antennas: f.rx_antennas as usize,
                tx_antennas: f.tx_antennas as usize,
                model: f.model.as_deref().and_then(TgnModel::parse),
                width_mhz: if bandwidth > 20e6 { 40 } else { 20 },
            })
            .expect("validated"),
    };
    let rate_spec = spec
        .rate_control
        .clone()
        .unwrap_or(RateControlSpec::Minstrel);
    let name = spec.name.clone();
    let member_names: Vec<String> = std::iter::once(spec.ap.clone())
        .chain(spec.stations.iter().cloned())
        .collect();
    let rng = |from: usize, to: usize| {
        RngStream::new(
            seed,
            &format!(
                "wifi/{name}/minstrel/{}->{}",
                member_names[from], member_names[to]
            ),
        )
    };
    Bss::new(
        &spec.name,
        cfg,
        spec.stations.len(),
        seed,
        radio,
        |from, to, HtPhy { band, width, gi }| {
            let set = HtRateSet::up_to(top_mcs(spec), width, gi);
            match &rate_spec {
                RateControlSpec::Constant { mcs } => {
                    RateControl::constant(HtMcs::new(*mcs).expect("validated"))
                }
                RateControlSpec::Ideal => RateControl::ideal(set),
                RateControlSpec::Minstrel => {
                    RateControl::minstrel(MinstrelConfig::linux_3(set, band), rng(from, to))
                }
            }
        },
        // 802.11g without a fixed rate: the eight ERP-OFDM rates (validate.rs refuses
        // `constant`, whose fixed rate is 802.11g's `rate`).
        |from, to| {
            let set = LegacyRateSet::erp_ofdm();
            match &rate_spec {
                RateControlSpec::Ideal => RateControl::ideal(set),
                RateControlSpec::Minstrel => {
                    RateControl::minstrel(MinstrelConfig::new(set, Band::Ghz2_4), rng(from, to))
                }
                RateControlSpec::Constant { .. } => {
                    unreachable!("validated: 802.11g's fixed rate is `rate`")
                }
            }
        },
    )
}
