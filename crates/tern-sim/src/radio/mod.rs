//! Radio: where nodes are ([`mobility`]) and what they receive from each other
//! ([`propagation`], and optionally small-scale fading: frequency-flat, [`fading`], or a
//! TGn tapped delay line over the OFDM subcarriers, [`tgn`]).

pub mod fading;
pub mod mobility;
pub mod propagation;
pub mod tgn;

use crate::engine::{RngStream, SimTime};
use fading::{Fading, FadingProcess};
use mobility::Mobility;
use propagation::{noise_floor_dbm, rssi_dbm, snr_db, LogDistance, Shadowing, ShadowingProcess};
use std::collections::BTreeMap;
use tgn::{TgnModel, TgnProcess};

/// The members of one radio channel and what each receives from another: log-distance
/// path loss between their positions at the time, optional log-normal shadowing per
/// member pair (the same both ways), optional small-scale fading, reciprocal (the two
/// directions of a link share the fade of the antenna pair they have in common), one
/// transmit power and one receiver noise floor.
pub struct RadioChannel {
    name: String,
    seed: u64,
    pub mobility: Vec<Mobility>,
    path_loss: LogDistance,
    tx_power_dbm: f64,
    noise_floor_dbm: f64,
    shadowing: Option<(Shadowing, SimTime)>,
    /// Shadowing processes by unordered member pair, made on first use from their own
    /// named random streams (so which pairs talk first does not change any draw).
    processes: BTreeMap<(usize, usize), ShadowingProcess>,
    fading: Option<LinkFading>,
    /// Fading processes by (transmitter, receiver), one per receive antenna, made on first
    /// use from the named random streams of their channel-matrix elements ([`element`]).
    fades: BTreeMap<(usize, usize), Vec<FadingProcess>>,
    /// With a TGn model: its processes by (transmitter, receiver, spatially expanded), one
    /// per receive antenna, the data subcarriers' offsets and a buffer for their SNRs.
    selective: BTreeMap<(usize, usize, bool), Branches>,
    offsets: Vec<f64>,
    scratch: Vec<f64>,
}

/// What sets every link's fading ([`fading`]): the scatterers' speed, the carrier
/// frequency, the Rician K factor and the receivers' antennas. A link's maximum Doppler shift is
/// f_d = (environment speed + the faster member's top speed)/λ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkFading {
    /// Speed of the moving scatterers, m/s (TGn: [`fading::TGN_ENVIRONMENT_SPEED`]).
    pub environment_speed: f64,
    pub freq_hz: f64,
    pub k_factor: f64,
    /// Receive antennas (chains) of every member, combined by maximal-ratio combining
    /// ([`fading`], "Receive diversity"); at least 1.
    pub rx_antennas: usize,
    /// Transmit antennas (chains) of every member, at least 1. With more than one, a
    /// one-stream PPDU goes out on all of them with the HT cyclic shifts (spatial
    /// expansion, [`tgn::TgnProcess::expanded`]), as ath9k sends every MCS on the card's
    /// whole transmit chainmask (drivers/net/wireless/ath/ath9k/xmit.c, `ath_buf_set_rate`:
    /// `ChSel` from `ath_txchainmask_reduction` of `ah->txchainmask`). The shifts act across
    /// the subcarriers, so such a PPDU is evaluated on them even over flat fading
    /// ([`tgn::TgnProcess::flat_expanded`]). A PPDU of N_SS ≥ 2 streams is mapped directly,
    /// stream s from antenna s, and keeps the zero-forcing abstraction of [`fading`] on the
    /// elements of transmit antenna 0.
    pub tx_antennas: usize,
    /// A TGn tapped-delay-line model ([`tgn`]) evaluated on the data subcarriers of a
    /// `width_mhz` (20 or 40) PPDU; `None`: frequency-flat fading, one gain per PPDU.
    pub model: Option<TgnModel>,
    pub width_mhz: u32,
}

impl RadioChannel {
    /// `bandwidth_hz` and `noise_figure_db` give the noise floor (thermal noise + NF).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        seed: u64,
        mobility: Vec<Mobility>,
        path_loss: LogDistance,
        tx_power_dbm: f64,
        bandwidth_hz: f64,
        noise_figure_db: f64,
        shadowing: Option<(Shadowing, SimTime)>,
    ) -> RadioChannel {
        RadioChannel {
            name: name.to_owned(),
            seed,
            mobility,
            path_loss,
            tx_power_dbm,
            noise_floor_dbm: noise_floor_dbm(bandwidth_hz, noise_figure_db),
            shadowing,
            processes: BTreeMap::new(),
            fading: None,
            fades: BTreeMap::new(),
            selective: BTreeMap::new(),
            offsets: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The same channel with small-scale fading on every link direction; errors if the
    /// resulting Doppler shift or K factor is invalid.
    pub fn with_fading(mut self, fading: LinkFading) -> Result<RadioChannel, String> {
        let top = self
            .mobility
            .iter()
            .map(Mobility::max_speed)
            .fold(0.0, f64::max);
        Fading {
            doppler_hz: Fading::doppler_hz(fading.environment_speed + top, fading.freq_hz),
            k_factor: fading.k_factor,
        }
        .validate()?;
        if fading.rx_antennas == 0 {
            return Err("a receiver needs at least 1 antenna, got 0".into());
        }
        if fading.tx_antennas == 0 || fading.tx_antennas > tgn::MAX_TX_ANTENNAS {
            return Err(format!(
                "expected 1 to {} transmit antennas, got {}",
                tgn::MAX_TX_ANTENNAS,
                fading.tx_antennas
            ));
        }
        if fading.model.is_some() || fading.tx_antennas > 1 {
            self.offsets = tgn::data_subcarrier_offsets(fading.width_mhz);
        }
        self.fading = Some(fading);
        Ok(self)
    }

    /// The fading power gain of the link `tx` → `rx` at `now` for a PPDU of `n_ss` spatial
    /// streams, dB (0 without fading): the maximal-ratio combination of the receiver's first
    /// [`fading::diversity_order`] antennas. Antenna b draws from the stream
    /// `<channel>/fading/<element>` of the element it receives ([`element`]).
    pub fn fading_db(&mut self, tx: usize, rx: usize, now: SimTime, n_ss: u64) -> f64 {
        let Some(f) = self.fading else {
            return 0.0;
        };
        let speed = f.environment_speed
            + self.mobility[tx]
                .max_speed()
                .max(self.mobility[rx].max_speed());
        let (seed, name) = (self.seed, &self.name);
        let branches = self.fades.entry((tx, rx)).or_insert_with(|| {
            let fading = Fading {
                doppler_hz: Fading::doppler_hz(speed, f.freq_hz),
                k_factor: f.k_factor,
            };
            (0..f.rx_antennas)
                .map(|b| {
                    let stream = format!("{name}/fading/{}", element(tx, rx, 0, b));
                    FadingProcess::new(fading, &mut RngStream::new(seed, &stream))
                        .expect("validated")
                })
                .collect()
        });
        let order = fading::diversity_order(f.rx_antennas, n_ss);
        10.0 * libm::log10(fading::mrc_power(&branches[..order], now))
    }

    /// Received power at member `rx` from member `tx` at `now`, dBm: the local mean (path
    /// loss and shadowing), without small-scale fading, as a driver's averaged RSSI reports it.
    pub fn rssi_dbm(&mut self, tx: usize, rx: usize, now: SimTime) -> f64 {
        let d = self.mobility[tx]
            .position(now)
            .distance(&self.mobility[rx].position(now));
        let mut loss = self.path_loss.loss_db(d);
        if let Some((s, interval)) = self.shadowing {
            let pair = (tx.min(rx), tx.max(rx));
            let (seed, name) = (self.seed, &self.name);
            let p = self.processes.entry(pair).or_insert_with(|| {
                let rng = RngStream::new(seed, &format!("{name}/shadowing/{}-{}", pair.0, pair.1));
                ShadowingProcess::new(s, interval, rng).expect("validated")
            });
            loss += p.sample_db(now);
        }
        rssi_dbm(self.tx_power_dbm, loss)
    }

    /// SNR at member `rx` of a one-stream frame from member `tx` at `now`, dB
    /// ([`RadioChannel::snr_db_streams`] with one spatial stream).
    pub fn snr_db(&mut self, tx: usize, rx: usize, now: SimTime) -> f64 {
        self.snr_db_streams(tx, rx, now, 1)
    }

    /// SNR per spatial stream at member `rx` of a PPDU of `n_ss` streams from member `tx`
    /// at `now`, dB ([`RadioChannel::snr_db_mapped`]; over a frequency-selective channel the
    /// subcarriers' SNRs are averaged arithmetically, an upper bound of any effective SNR).
    pub fn snr_db_streams(&mut self, tx: usize, rx: usize, now: SimTime, n_ss: u64) -> f64 {
        self.snr_db_mapped(tx, rx, now, n_ss, &|snrs: &[f64]| {
            snrs.iter().sum::<f64>() / snrs.len() as f64
        })
    }

    /// SNR per spatial stream at member `rx` of a PPDU of `n_ss` streams from member `tx`
    /// at `now`, dB: the mean received power (path loss, shadowing) over the noise, times
    /// the small-scale fading. Frequency-flat: the combined power gain of the link
    /// ([`RadioChannel::fading_db`]). TGn, or one stream from several transmit antennas
    /// over flat fading (the cyclic shifts make it selective): per data subcarrier k, the mean SNR times
    /// Σ_b |H_b(f_k)|² over the receiver's first [`fading::diversity_order`] antennas
    /// (maximal-ratio combining per subcarrier), and `esm` maps those linear SNRs to one
    /// (an effective-SNR mapping, e.g. `wifi::esm`). Antenna b's taps draw from the streams
    /// `<channel>/tgn/<element>/tap<l>` of the element it receives ([`element`]); a
    /// one-stream PPDU from a transmitter of several antennas ([`LinkFading::tx_antennas`])
    /// reaches antenna b over the elements of all of them, each with its cyclic shift.
    pub fn snr_db_mapped(
        &mut self,
        tx: usize,
        rx: usize,
        now: SimTime,
        n_ss: u64,
        esm: &dyn Fn(&[f64]) -> f64,
    ) -> f64 {
        let Some(f) = self.fading else {
            return snr_db(self.rssi_dbm(tx, rx, now), self.noise_floor_dbm);
        };
        let n_tx = if n_ss == 1 { f.tx_antennas } else { 1 };
        let model = f.model;
        if model.is_none() && n_tx == 1 {
            let fade = self.fading_db(tx, rx, now, n_ss);
            return snr_db(self.rssi_dbm(tx, rx, now), self.noise_floor_dbm) + fade;
        }
        let mean_db = snr_db(self.rssi_dbm(tx, rx, now), self.noise_floor_dbm);
        let speed = f.environment_speed
            + self.mobility[tx]
                .max_speed()
                .max(self.mobility[rx].max_speed());
        let (seed, name, offsets) = (self.seed, &self.name, &self.offsets);
        let link = self.selective.entry((tx, rx, n_tx > 1)).or_insert_with(|| {
            let fading = Fading {
                doppler_hz: Fading::doppler_hz(speed, f.freq_hz),
                k_factor: f.k_factor,
            };
            Branches::new(
                (0..f.rx_antennas)
                    .map(|b| {
                        let kind = if model.is_some() { "tgn" } else { "fading" };
                        let antennas: Vec<(String, f64)> = (0..n_tx)
                            .map(|i| {
                                let stream = format!("{name}/{kind}/{}", element(tx, rx, i, b));
                                (stream, tgn::ht_cyclic_shift(n_tx, i))
                            })
                            .collect();
                        match model {
                            Some(m) => TgnProcess::expanded(m, fading, offsets, seed, &antennas),
                            None => TgnProcess::flat_expanded(fading, offsets, seed, &antennas),
                        }
                        .expect("validated")
                    })
                    .collect(),
            )
        });
        let order = fading::diversity_order(f.rx_antennas, n_ss);
        self.scratch.clear();
        self.scratch.resize(self.offsets.len(), 0.0);
        for power in link.at(now, order) {
            for (s, p) in self.scratch.iter_mut().zip(power) {
                *s += p;
            }
        }
        let mean = libm::pow(10.0, mean_db / 10.0);
        for s in &mut self.scratch {
            *s *= mean;
        }
        10.0 * libm::log10(esm(&self.scratch))
    }
}

/// The element of a link's channel matrix that receive antenna `b` of `rx` sees from
/// transmit antenna `a` of `tx`, named for its random stream: `<lo>-<hi>/<i>-<j>`, the
/// members in increasing order and the antenna of each end (`a` is 0 but for a one-stream
/// PPDU spatially expanded over several transmit antennas, [`LinkFading::tx_antennas`]).
///
/// The propagation channel is reciprocal: the gain from antenna i of one member to antenna
/// j of the other is the gain back, at the same frequency and within the coherence time
/// (which the time-division duplex of one 802.11 channel keeps: 802.11n's transmit
/// beamforming with implicit feedback estimates one direction's channel from the other's on
/// that ground). So the two directions of a link draw every element, antenna i of one
/// member to antenna j of the other, from one stream and fade together on it: H_ba = H_abᵀ.
fn element(tx: usize, rx: usize, a: usize, b: usize) -> String {
    if tx < rx {
        format!("{tx}-{rx}/{a}-{b}")
    } else {
        format!("{rx}-{tx}/{b}-{a}")
    }
}

/// The receive antennas' frequency responses of one link direction, and their powers per
/// subcarrier at the last instant asked for: a PPDU's payload and its PHY header are
/// judged at the same instant over one or more of the same antennas, so each antenna's
/// response is computed once per instant.
struct Branches {
    branches: Vec<TgnProcess>,
    /// The instant `power` holds, and how many of the antennas it holds so far.
    at: Option<SimTime>,
    done: usize,
    /// |H_b(f_k)|² per antenna b and subcarrier k.
    power: Vec<Vec<f64>>,
}

impl Branches {
    fn new(branches: Vec<TgnProcess>) -> Self {
        let power = branches
            .iter()
            .map(|b| vec![0.0; b.subcarriers()])
            .collect();
        Branches {
            branches,
            at: None,
            done: 0,
            power,
        }
    }

    /// The first `order` antennas' powers per subcarrier at `t`.
    fn at(&mut self, t: SimTime, order: usize) -> &[Vec<f64>] {
        if self.at != Some(t) {
            self.at = Some(t);
            self.done = 0;
        }
        while self.done < order {
            let b = self.done;
            self.power[b].fill(0.0);
            self.branches[b].add_power(t, &mut self.power[b]);
            self.done += 1;
        }
        &self.power[..order]
    }
}
