//! The bandwidth a station may expect at an AP it is about to join, from what the AP's
//! beacons tell: the tfrc-handover study's countermeasure A (Otsuka, Tamura, Ishihara,
//! §4.5 A, after their refs. [1], [3]: "estimate the bandwidth available at the new AP on
//! the station and change the sending rate before the handover").
//!
//! The estimate: an AP's BSS Load element (IEEE 802.11-2020 §9.4.2.27, the QBSS Load of
//! 802.11e) carries its Station Count, the stations associated with it. A station that
//! joins n stations which all have traffic queued (the case the study builds: 9 residents
//! sending 503.2 kbit/s each into an 802.11b BSS that carries less than 10 of them) gets,
//! under the DCF, the same share of successful transmissions as each of them (equal
//! frame sizes and rates: Bianchi's model treats every station alike; Heusse et al.,
//! "Performance anomaly of 802.11b", INFOCOM 2003, §III, measured it): Bianchi's
//! saturation throughput of n + 1 stations divided by n + 1
//! ([`super::analytic::bianchi_saturation`]), for the station's own packet size. The
//! element's Channel Utilization is not used: in a saturated BSS it reads ≈ 255 (busy),
//! which says the share is contended, not how large it is; a BSS that is not saturated
//! would leave more than this share, so the estimate is then low.

use super::analytic::{bianchi_saturation, Backoff, DcfTimes};
use super::bss::config::Phy;
use super::phy::{DsssPreamble, DsssRate, PhyTiming};
use crate::net::device::JoinLoad;

/// What a station reads from the beacons of the AP it joins: the BSS Load element's Station
/// Count and the PHY the BSS runs (from its Supported Rates and DSSS Parameter Set).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BssLoad {
    pub stations: u32,
    pub rate: DsssRate,
    pub preamble: DsssPreamble,
}

impl BssLoad {
    /// The station's fair share in IP bytes per second for IP packets of `ip_bytes`: the
    /// DCF saturation throughput of `stations` + 1 stations divided among them.
    pub fn fair_share(&self, ip_bytes: u32) -> Option<f64> {
        let t = PhyTiming::DSSS;
        let phy = Phy::Dsss {
            rate: self.rate,
            preamble: self.preamble,
        };
        let times = DcfTimes::dcf(ip_bytes, ip_bytes, &phy)?;
        let backoff = Backoff::from_cw(t.cw_min, t.cw_max).expect("802.11b's 31 and 1023");
        let n = self.stations + 1;
        Some(bianchi_saturation(n, backoff, &times).bps / 8.0 / f64::from(n))
    }
}

/// The form the world carries it in, below the link models ([`JoinLoad`]).
impl From<BssLoad> for JoinLoad {
    fn from(load: BssLoad) -> JoinLoad {
        JoinLoad {
            stations: load.stations,
            rate_kbps: load.rate.kbps() as u32,
            short_preamble: load.preamble == DsssPreamble::Short,
        }
    }
}

/// Read back from the form the world carries ([`JoinLoad`]), which is only ever made from
/// a [`BssLoad`].
impl From<JoinLoad> for BssLoad {
    fn from(load: JoinLoad) -> BssLoad {
        let rate = DsssRate::ALL
            .into_iter()
            .find(|r| r.kbps() == u64::from(load.rate_kbps))
            .expect("made from a DSSS rate");
        BssLoad {
            stations: load.stations,
            rate,
            preamble: if load.short_preamble {
                DsssPreamble::Short
            } else {
                DsssPreamble::Long
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 802.11b rate and preamble crosses the world's form and comes back the same.
    #[test]
    fn the_worlds_form_reads_back() {
        for rate in DsssRate::ALL {
            for preamble in [DsssPreamble::Long, DsssPreamble::Short] {
                let load = BssLoad {
                    stations: 7,
                    rate,
                    preamble,
                };
                assert_eq!(BssLoad::from(JoinLoad::from(load)), load);
            }
        }
    }

    /// Alone at the AP (Station Count 0) the station sends back to back: one 665-byte IP
    /// packet (629 B of payload, DCCP and IPv4 headers) makes a 701-byte MPDU, 192 µs of
    /// long preamble and PLCP header + ⌈701·8/11⌉ = 510 µs; then SIFS 10 µs, the Ack at
    /// 2 Mbit/s 192 + 56 µs, DIFS 50 µs: T_s = 1010 µs, and with no collision Bianchi's
    /// cycle adds the mean backoff of CWmin/2 = 15.5 slots of 20 µs (τ = 2/(W + 1), W = 32),
    /// 1320 µs per packet: 665/1320e-6 = 503 788 B/s.
    #[test]
    fn alone_it_is_the_back_to_back_rate() {
        let load = BssLoad {
            stations: 0,
            rate: DsssRate::Mbps11,
            preamble: DsssPreamble::Long,
        };
        let x = load.fair_share(665).unwrap();
        assert!((x - 665.0 / 1320e-6).abs() < 1e-6, "{x}");
    }

    /// With 9 stations the share is a tenth of Bianchi's 10-station throughput, which is
    /// above the lone station's for so few stations (their backoffs count down together,
    /// Bianchi 2000 Fig. 6) but well below ten times it; a station that joins more
    /// stations expects less.
    #[test]
    fn shares_fall_with_the_station_count() {
        let share = |stations| {
            BssLoad {
                stations,
                rate: DsssRate::Mbps11,
                preamble: DsssPreamble::Long,
            }
            .fair_share(665)
            .unwrap()
        };
        let (alone, ten, twenty) = (share(0), share(9), share(19));
        assert!(alone / 10.0 < ten && ten < alone / 5.0, "{alone} {ten}");
        assert!(twenty < ten);
    }
}
