//! Analytic references that the simulated 802.11 MACs are validated against, as pure
//! functions:
//!
//! * Bianchi's saturation model of the DCF (802.11b, 802.11g): G. Bianchi, "Performance analysis of the IEEE
//!   802.11 distributed coordination function", IEEE JSAC 18(3), pp. 535–547, March 2000;
//! * the MAC efficiency of one saturated 802.11n station sending A-MPDUs with immediate
//!   Block Ack and no contention (AIFS + mean backoff + A-MPDU + SIFS + BlockAck).

use super::bss::config::{DcfRate, Phy};
use super::frames::{ampdu_len_uniform, dcf_mpdu_len, mpdu_len, BLOCK_ACK_COMPRESSED};
use super::phy::{
    ht_control_response_rate, ofdm_txtime, Band, EdcaParams, HtTxVector, OfdmRate, PhyTiming,
};
use crate::engine::SimTime;

// ---------------------------------------------------------------------------------------
// Bianchi (2000)
// ---------------------------------------------------------------------------------------

/// Bianchi's backoff parameters: the minimum window W = CWmin + 1 and the maximum backoff
/// stage m, with CWmax + 1 = 2^m · W. 802.11b DSSS: W = 32, m = 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backoff {
    pub w: u32,
    pub m: u32,
}

impl Backoff {
    /// From aCWmin and aCWmax (both 2^k − 1). `None` if (CWmax + 1)/(CWmin + 1) is not a
    /// power of two.
    pub fn from_cw(cw_min: u32, cw_max: u32) -> Option<Backoff> {
        let (w, top) = (cw_min.checked_add(1)?, cw_max.checked_add(1)?);
        if w == 0 || top % w != 0 || !(top / w).is_power_of_two() {
            return None;
        }
        Some(Backoff {
            w,
            m: (top / w).trailing_zeros(),
        })
    }
}

/// Bianchi's eq. (7), the probability τ that a station transmits in a random slot given the
/// conditional collision probability p:
/// τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)),
/// evaluated in the equivalent form 2 / (1 + W + pW · Σ_{i=0}^{m−1} (2p)^i), which has no
/// removable singularity at p = ½.
pub fn bianchi_tau(p: f64, b: Backoff) -> f64 {
    let mut geometric = 0.0;
    let mut term = 1.0;
    for _ in 0..b.m {
        geometric += term;
        term *= 2.0 * p;
    }
    let w = f64::from(b.w);
    2.0 / (1.0 + w + p * w * geometric)
}

/// The solution of Bianchi's fixed point for `n` saturated stations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedPoint {
    /// Transmission probability per slot, τ.
    pub tau: f64,
    /// Conditional collision probability, p.
    pub p: f64,
}

/// Solves eq. (7) together with eq. (9), p = 1 − (1 − τ)^(n−1), for `n ≥ 1` stations.
///
/// g(p) = 1 − (1 − τ(p))^(n−1) − p is continuous and strictly decreasing on [0, 1] (τ(p)
/// decreases with p), with g(0) ≥ 0 and g(1) ≤ 0, so the root is unique (as Bianchi notes).
/// It is found by bisection on p over [0, 1]: 64 halvings bring the bracket below the f64
/// resolution, with a fixed number of steps so the result is deterministic. n = 1 gives
/// p = 0, τ = 2/(W + 1).
pub fn bianchi_fixed_point(n: u32, b: Backoff) -> FixedPoint {
    let others = f64::from(n.saturating_sub(1));
    let g = |p: f64| 1.0 - libm::pow(1.0 - bianchi_tau(p, b), others) - p;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if n > 1 {
        for _ in 0..64 {
            let mid = 0.5 * (lo + hi);
            if g(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    let p = if n > 1 { 0.5 * (lo + hi) } else { 0.0 };
    FixedPoint {
        tau: bianchi_tau(p, b),
        p,
    }
}

/// The channel times of Bianchi §IV, all as exact durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcfTimes {
    /// Empty slot σ.
    pub slot: SimTime,
    /// T_s, the channel busy time of a successful transmission.
    pub success: SimTime,
    /// T_c, the channel busy time of a collision.
    pub collision: SimTime,
    /// E[P], the airtime of the payload counted as useful.
    pub payload: SimTime,
    /// The payload bits counted as useful (for the absolute throughput).
    pub payload_bits: u64,
}

/// How stations wait after a collision in [`DcfTimes::basic_access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollisionDefer {
    /// Bianchi's T_c = H + E[P*] + DIFS + δ: everyone resumes after DIFS.
    Difs,
    /// T_c = H + E[P*] + δ + EIFS, EIFS = SIFS + Ack TXTIME + DIFS: what 802.11 stations do
    /// after receiving a frame with a bad FCS (§10.3.2.3.7), and so what a simulated DCF
    /// does; ns-3's Bianchi validation offers this variant too.
    Eifs,
}

impl DcfTimes {
    /// Basic access (no RTS/CTS), Bianchi §IV:
    /// T_s = TXTIME(data) + SIFS + δ + TXTIME(Ack) + DIFS + δ and T_c per `defer`,
    /// with TXTIME(data) = H + E[P] (PHY and MAC headers plus payload), all frames of equal
    /// length (E[P*] = E[P]), δ the propagation delay. With [`CollisionDefer::Eifs`] the Ack
    /// TXTIME given is also used in EIFS, which is right when the Ack is sent at the lowest
    /// rate (as in 802.11b at 1 Mbit/s); build the struct by hand otherwise.
    #[allow(clippy::too_many_arguments)]
    pub fn basic_access(
        timing: &PhyTiming,
        data_txtime: SimTime,
        ack_txtime: SimTime,
        delta: SimTime,
        payload: SimTime,
        payload_bits: u64,
        defer: CollisionDefer,
    ) -> DcfTimes {
        let difs = timing.difs();
        let success = data_txtime + timing.sifs + delta + ack_txtime + difs + delta;
        let collision = match defer {
            CollisionDefer::Difs => data_txtime + difs + delta,
            CollisionDefer::Eifs => data_txtime + delta + timing.eifs(ack_txtime),
        };
        DcfTimes {
            slot: timing.slot,
            success,
            collision,
            payload,
            payload_bits,
        }
    }
}

impl DcfTimes {
    /// The channel times of the simulated DCF of 802.11b or 802.11g (basic access) for IP
    /// packets of `ip_bytes` at the PHY's data rate: the Ack at its control-response rate
    /// (§10.6.6.5.2, [`DcfRate::ack_txtime`]), δ = 0, and after a collision the stations that
    /// heard it wait EIFS (§10.3.2.3.7), so T_c = TXTIME(data) + EIFS. `payload_bytes` of each
    /// packet count as useful, sent at the data rate. `None` for HT, and for 802.11b's short
    /// preamble at 1 Mbit/s.
    pub fn dcf(ip_bytes: u32, payload_bytes: u32, phy: &Phy) -> Option<DcfTimes> {
        if let Phy::Dsss { rate, preamble } = phy {
            preamble.allowed_with(*rate).then_some(())?;
        }
        let rate = DcfRate::of(phy)?;
        let t = phy.timing();
        let data = rate.txtime(dcf_mpdu_len(ip_bytes));
        let bits = u64::from(payload_bytes) * 8;
        Some(DcfTimes {
            slot: t.slot,
            success: data + t.sifs + rate.ack_txtime() + t.difs(),
            collision: data + t.eifs(phy.eifs_ack_txtime()),
            payload: SimTime::from_nanos(bits * 1_000_000_000 / rate.bps()),
            payload_bits: bits,
        })
    }
}

/// Bianchi's saturation throughput and the probabilities it is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saturation {
    pub tau: f64,
    pub p: f64,
    /// P_tr = 1 − (1 − τ)^n: at least one transmission in a slot.
    pub p_tr: f64,
    /// P_s = nτ(1 − τ)^(n−1) / P_tr: a transmission is successful.
    pub p_s: f64,
    /// S, the fraction of channel time carrying payload.
    pub normalized: f64,
    /// Payload bit/s: P_s · P_tr · payload_bits / E[slot].
    pub bps: f64,
}

/// Throughput of `n` stations that each transmit with probability `tau` per slot (Bianchi
/// §IV): S = P_s·P_tr·E[P] / ((1 − P_tr)σ + P_tr·P_s·T_s + P_tr(1 − P_s)·T_c). `p` is
/// reported as 1 − (1 − τ)^(n−1). Useful on its own to look for the τ that maximises S.
pub fn saturation_for_tau(n: u32, tau: f64, t: &DcfTimes) -> Saturation {
    let nf = f64::from(n);
    let idle = libm::pow(1.0 - tau, nf);
    let p_tr = 1.0 - idle;
    let one_success = nf * tau * libm::pow(1.0 - tau, nf - 1.0);
    let p_s = if p_tr > 0.0 { one_success / p_tr } else { 0.0 };
    let secs = |d: SimTime| d.as_nanos() as f64 * 1e-9;
    let mean_slot = idle * secs(t.slot)
        + one_success * secs(t.success)
        + (p_tr - one_success) * secs(t.collision);
    Saturation {
        tau,
        p: 1.0 - libm::pow(1.0 - tau, nf - 1.0),
        p_tr,
        p_s,
        normalized: one_success * secs(t.payload) / mean_slot,
        bps: one_success * t.payload_bits as f64 / mean_slot,
    }
}

/// Bianchi's saturation throughput of `n` stations with backoff `b` and channel times `t`:
/// the fixed point of [`bianchi_fixed_point`] fed to [`saturation_for_tau`].
pub fn bianchi_saturation(n: u32, b: Backoff, t: &DcfTimes) -> Saturation {
    let fp = bianchi_fixed_point(n, b);
    Saturation {
        p: fp.p,
        ..saturation_for_tau(n, fp.tau, t)
    }
}

// ---------------------------------------------------------------------------------------
// One saturated 802.11n station with A-MPDU and Block Ack
// ---------------------------------------------------------------------------------------

/// The average channel time of one A-MPDU exchange of a lone saturated HT station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmpduCycle {
    /// AIFS[AC] = SIFS + AIFSN · slot.
    pub aifs: SimTime,
    /// Mean backoff CWmin/2 · slot (the counter is uniform on 0..=CWmin and never doubles:
    /// no collisions, no losses).
    pub mean_backoff: SimTime,
    /// TXTIME of the HT-mixed PPDU carrying the A-MPDU.
    pub ampdu: SimTime,
    pub sifs: SimTime,
    /// TXTIME of the compressed BlockAck at the control-response rate.
    pub block_ack: SimTime,
    pub n_mpdus: u32,
    pub ip_bytes: u32,
}

impl AmpduCycle {
    pub fn total(&self) -> SimTime {
        self.aifs + self.mean_backoff + self.ampdu + self.sifs + self.block_ack
    }

    /// IP-layer throughput: n · 8 · ip_bytes per cycle.
    pub fn throughput_bps(&self) -> f64 {
        let bits = 8.0 * f64::from(self.n_mpdus) * f64::from(self.ip_bytes);
        bits / (self.total().as_nanos() as f64 * 1e-9)
    }
}

/// The A-MPDU exchange of one HT station sending `n_mpdus` IP packets of `ip_bytes` each
/// (QoS Data, LLC/SNAP, [`mpdu_len`]) at `tx` in `band` with EDCA parameters `edca`: the
/// immediate compressed BlockAck (implicit Block Ack request, no BlockAckReq frame) comes
/// back at [`ht_control_response_rate`] over `basic`. The caller keeps `n_mpdus` within
/// [`super::frames::max_ampdu_mpdus`].
pub fn ht_ampdu_cycle(
    tx: HtTxVector,
    band: Band,
    n_mpdus: u32,
    ip_bytes: u32,
    edca: &EdcaParams,
    basic: &[OfdmRate],
) -> AmpduCycle {
    let timing = PhyTiming::ht(band);
    let psdu = ampdu_len_uniform(n_mpdus, mpdu_len(ip_bytes));
    let ba_rate = ht_control_response_rate(tx.mcs, basic);
    AmpduCycle {
        aifs: edca.aifs(&timing),
        mean_backoff: SimTime::from_nanos(u64::from(edca.cw_min) * timing.slot.as_nanos() / 2),
        ampdu: tx.txtime(psdu, band),
        sifs: timing.sifs,
        block_ack: ofdm_txtime(BLOCK_ACK_COMPRESSED, ba_rate, band),
        n_mpdus,
        ip_bytes,
    }
}

/// IP-layer throughput (bit/s) of one saturated HT station: payload bits /
/// (AIFS + CWmin/2 · slot + TXTIME(A-MPDU) + SIFS + TXTIME(BlockAck)). See
/// [`ht_ampdu_cycle`].
pub fn ht_single_station_throughput(
    tx: HtTxVector,
    band: Band,
    n_mpdus: u32,
    ip_bytes: u32,
    edca: &EdcaParams,
    basic: &[OfdmRate],
) -> f64 {
    ht_ampdu_cycle(tx, band, n_mpdus, ip_bytes, edca, basic).throughput_bps()
}

#[cfg(test)]
mod tests {
    use super::super::frames::max_ampdu_mpdus;
    use super::super::phy::{
        dsss_txtime, AccessCategory, ChannelWidth, DsssPreamble, DsssRate, GuardInterval, HtMcs,
    };
    use super::*;

    /// Bianchi's Table II parameter set (FHSS, 1 Mbit/s): payload 8184 bits, MAC header 272,
    /// PHY header 128 bits, ACK 112 bits + PHY header, slot 50 µs, SIFS 28 µs, DIFS 128 µs,
    /// δ = 1 µs. So H = 400 µs, E[P] = 8184 µs, ACK = 240 µs, T_s = 8982 µs, T_c = 8713 µs.
    fn fhss_times() -> DcfTimes {
        let fhss = PhyTiming {
            slot: SimTime::from_micros(50),
            sifs: SimTime::from_micros(28),
            cw_min: 31,
            cw_max: 255,
        };
        assert_eq!(fhss.difs(), SimTime::from_micros(128));
        DcfTimes::basic_access(
            &fhss,
            SimTime::from_micros(400 + 8184),
            SimTime::from_micros(240),
            SimTime::from_micros(1),
            SimTime::from_micros(8184),
            8184,
            CollisionDefer::Difs,
        )
    }

    #[test]
    fn fhss_times_match_hand_computation() {
        let t = fhss_times();
        assert_eq!(t.success, SimTime::from_micros(8982));
        assert_eq!(t.collision, SimTime::from_micros(8713));
    }

    #[test]
    fn backoff_from_cw() {
        assert_eq!(Backoff::from_cw(31, 1023), Some(Backoff { w: 32, m: 5 }));
        assert_eq!(Backoff::from_cw(15, 1023), Some(Backoff { w: 16, m: 6 }));
        assert_eq!(Backoff::from_cw(31, 31), Some(Backoff { w: 32, m: 0 }));
        assert_eq!(Backoff::from_cw(31, 1000), None);
    }

    /// The closed form of eq. (7) and its regular form agree away from p = ½, and with m = 0
    /// τ = 2/(W + 1) whatever p (Bianchi's remark on the no-exponential-backoff case).
    #[test]
    fn tau_forms_agree() {
        let b = Backoff { w: 32, m: 3 };
        for p in [0.0, 0.1, 0.3, 0.49, 0.51, 0.7, 0.95] {
            let (w, m) = (32.0, 3.0);
            let closed = 2.0 * (1.0 - 2.0 * p)
                / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - libm::pow(2.0 * p, m)));
            assert!((bianchi_tau(p, b) - closed).abs() < 1e-12, "p = {p}");
        }
        let b0 = Backoff { w: 32, m: 0 };
        for n in [2, 10, 50] {
            let fp = bianchi_fixed_point(n, b0);
            assert!((fp.tau - 2.0 / 33.0).abs() < 1e-15);
        }
    }

    #[test]
    fn fixed_point_solves_both_equations() {
        for b in [
            Backoff { w: 32, m: 3 },
            Backoff { w: 32, m: 5 },
            Backoff { w: 128, m: 3 },
            Backoff { w: 16, m: 6 },
        ] {
            let mut last_p = 0.0;
            for n in [2u32, 3, 5, 10, 20, 50, 100] {
                let fp = bianchi_fixed_point(n, b);
                assert!((fp.tau - bianchi_tau(fp.p, b)).abs() < 1e-14);
                let p = 1.0 - libm::pow(1.0 - fp.tau, f64::from(n - 1));
                assert!((fp.p - p).abs() < 1e-12, "{b:?} n={n}: {} vs {p}", fp.p);
                assert!(fp.p > last_p, "p grows with n");
                last_p = fp.p;
            }
        }
    }

    /// n = 1: no collisions, so S is the airtime fraction of the cycle
    /// mean backoff (W − 1)/2 slots + T_s, computed directly.
    #[test]
    fn single_station_equals_airtime_fraction() {
        let t = fhss_times();
        let b = Backoff { w: 32, m: 3 };
        let s = bianchi_saturation(1, b, &t);
        assert_eq!(s.p, 0.0);
        let slot = t.slot.as_nanos() as f64;
        let cycle = 15.5 * slot + t.success.as_nanos() as f64;
        let direct = t.payload.as_nanos() as f64 / cycle;
        assert!(
            (s.normalized - direct).abs() < 1e-12,
            "{} vs {direct}",
            s.normalized
        );
        assert!((s.bps - 8184.0 / (cycle * 1e-9)).abs() < 1e-6);
        // 802.11b, 1500 B IP at 11 Mbit/s long preamble, one station: the same identity.
        let dsss = PhyTiming::DSSS;
        let data = dsss_txtime(1536, DsssRate::Mbps11, DsssPreamble::Long).unwrap();
        let ack = dsss_txtime(14, DsssRate::Mbps1, DsssPreamble::Long).unwrap();
        let payload = SimTime::from_nanos(1500 * 8 * 1000 / 11);
        let t = DcfTimes::basic_access(
            &dsss,
            data,
            ack,
            SimTime::ZERO,
            payload,
            12_000,
            CollisionDefer::Eifs,
        );
        let s = bianchi_saturation(1, Backoff::from_cw(31, 1023).unwrap(), &t);
        let cycle = 15.5 * 20e-6 + (t.success.as_nanos() as f64) * 1e-9;
        assert!((s.bps - 12_000.0 / cycle).abs() < 1e-6 * s.bps);
    }

    /// Qualitative results of Bianchi's Fig. 6 (basic access, FHSS parameters): with
    /// W = 32, m = 3 throughput falls as n grows; W = 128 does better (with these long frames,
    /// T_c* = 174 slots, the optimal window is already ≈ 2/τ_opt ≈ 90 at n = 5) and falls
    /// much less; more backoff stages (m = 5) help at large n.
    #[test]
    fn fhss_trends() {
        let t = fhss_times();
        let s = |n, w, m| bianchi_saturation(n, Backoff { w, m }, &t).normalized;
        let mut last = 1.0;
        for n in [5, 10, 15, 20, 30, 40, 50] {
            let v = s(n, 32, 3);
            assert!(v < last && v > 0.5, "n={n}: {v}");
            last = v;
        }
        assert!(s(5, 128, 3) > s(5, 32, 3));
        assert!(s(5, 128, 3) - s(50, 128, 3) < s(5, 32, 3) - s(50, 32, 3));
        assert!(s(50, 32, 5) > s(50, 32, 3));
    }

    /// Bianchi §V (maximum saturation throughput): S as a function of τ is maximal where
    /// (1 − τ)^n − T_c*·{nτ − [1 − (1 − τ)^n]} = 0, T_c* = T_c/σ, approximately at
    /// τ ≈ 1/(n·√(T_c*/2)) for large n, and the maximum hardly depends on n.
    #[test]
    fn fhss_optimum_tau() {
        let t = fhss_times();
        let tc_star = t.collision.as_nanos() as f64 / t.slot.as_nanos() as f64;
        let mut maxima = Vec::new();
        for n in [5u32, 10, 20, 50] {
            let nf = f64::from(n);
            // Grid search of S(τ) (unimodal) with step 1e-6.
            let (mut best_tau, mut best) = (0.0, 0.0);
            for k in 1..100_000 {
                let tau = f64::from(k) * 1e-6;
                let v = saturation_for_tau(n, tau, &t).normalized;
                if v > best {
                    (best_tau, best) = (tau, v);
                }
            }
            // Root of the optimality condition, by bisection on (0, 1/n).
            let cond = |tau: f64| {
                let u = libm::pow(1.0 - tau, nf);
                u - tc_star * (nf * tau - (1.0 - u))
            };
            let (mut lo, mut hi) = (0.0, 1.0 / nf);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if cond(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            assert!(
                (best_tau - lo).abs() <= 2e-6,
                "n={n}: grid {best_tau} vs root {lo}"
            );
            if n >= 20 {
                let approx = 1.0 / (nf * libm::sqrt(tc_star / 2.0));
                assert!((lo / approx - 1.0).abs() < 0.05, "n={n}: {lo} vs {approx}");
            }
            maxima.push(best);
        }
        let hi = maxima.iter().cloned().fold(0.0, f64::max);
        let lo = maxima.iter().cloned().fold(1.0, f64::min);
        assert!(hi - lo < 0.01, "{maxima:?}");
    }

    fn ht(i: u8, w: ChannelWidth, g: GuardInterval) -> HtTxVector {
        HtTxVector::new(HtMcs::new(i).unwrap(), w, g)
    }

    #[test]
    fn ampdu_cycle_parts() {
        let be = EdcaParams::default_for(AccessCategory::BestEffort, &PhyTiming::OFDM_5GHZ);
        let basic = [OfdmRate::Mbps6, OfdmRate::Mbps12, OfdmRate::Mbps24];
        let c = ht_ampdu_cycle(
            ht(7, ChannelWidth::Mhz20, GuardInterval::Long),
            Band::Ghz5,
            28,
            1500,
            &be,
            &basic,
        );
        assert_eq!(c.aifs, SimTime::from_micros(43));
        assert_eq!(c.mean_backoff, SimTime::from_nanos(67_500));
        assert_eq!(c.ampdu, SimTime::from_micros(5360));
        assert_eq!(c.sifs, SimTime::from_micros(16));
        assert_eq!(c.block_ack, SimTime::from_micros(32));
        assert_eq!(c.total(), SimTime::from_nanos(5_518_500));
    }

    /// Against ns-3's documented output of `wifi-spectrum-saturation-example` (ns-3 wifi
    /// testing documentation, "Saturation performance": one station, saturating UDP with
    /// 1472-byte payloads, i.e. 1500-byte IP packets, A-MPDU up to 65 535 B): MCS 0 20 MHz
    /// 5.81381 Mbit/s, MCS 7 20 MHz 59.5501, MCS 15 40 MHz short GI 254.902 (UDP payload
    /// rate). The formula, with as many MPDUs as [`max_ampdu_mpdus`] allows, is within 1 %.
    #[test]
    fn single_station_matches_ns3_saturation_example() {
        use ChannelWidth::*;
        use GuardInterval::*;
        let be = EdcaParams::default_for(AccessCategory::BestEffort, &PhyTiming::OFDM_5GHZ);
        let basic = [OfdmRate::Mbps6, OfdmRate::Mbps12, OfdmRate::Mbps24];
        for (tx, ns3_mbps) in [
            (ht(0, Mhz20, Long), 5.81381),
            (ht(7, Mhz20, Long), 59.5501),
            (ht(15, Mhz40, Short), 254.902),
        ] {
            let n = max_ampdu_mpdus(1500, tx, Band::Ghz5);
            let ip = ht_single_station_throughput(tx, Band::Ghz5, n, 1500, &be, &basic);
            let udp_mbps = ip * 1472.0 / 1500.0 / 1e6;
            assert!(
                (udp_mbps / ns3_mbps - 1.0).abs() < 0.01,
                "{tx:?} n={n}: {udp_mbps} vs {ns3_mbps}"
            );
        }
    }
}
