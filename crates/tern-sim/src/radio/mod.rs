//! Radio: where nodes are ([`mobility`]) and what they receive from each other
//! ([`propagation`]).

pub mod mobility;
pub mod propagation;

use crate::engine::{RngStream, SimTime};
use mobility::Mobility;
use propagation::{noise_floor_dbm, rssi_dbm, snr_db, LogDistance, Shadowing, ShadowingProcess};
use std::collections::BTreeMap;

/// The members of one radio channel and what each receives from another: log-distance
/// path loss between their positions at the time, optional log-normal shadowing per
/// member pair (the same both ways), one transmit power and one receiver noise floor.
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
        }
    }

    /// Received power at member `rx` from member `tx` at `now`, dBm.
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

    /// SNR at member `rx` of a frame from member `tx` at `now`, dB.
    pub fn snr_db(&mut self, tx: usize, rx: usize, now: SimTime) -> f64 {
        snr_db(self.rssi_dbm(tx, rx, now), self.noise_floor_dbm)
    }
}
