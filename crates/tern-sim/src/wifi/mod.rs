//! IEEE 802.11 building blocks for the Wi-Fi MAC models: PHY rates and PPDU durations
//! ([`phy`]), MAC frame and A-MPDU sizes ([`frames`]), the SNR → frame error model
//! ([`error_model`]) and the analytic references the simulated MACs are validated against
//! ([`analytic`]: Bianchi's DCF model, single-station A-MPDU efficiency).
//!
//! Everything here is a pure function of its arguments: no world, no engine, no RNG. The
//! MAC models (DCF, EDCA with A-MPDU and Block Ack) build on it. Clause numbers refer to
//! IEEE Std 802.11-2020 unless stated otherwise.
//!
//! Covered: 802.11b DSSS/HR-DSSS (1, 2, 5.5, 11 Mbit/s, long and short preamble), non-HT
//! OFDM rates for control responses (6–54 Mbit/s) and 802.11n HT-mixed format MCS 0–31 at
//! 20/40 MHz with long or short guard interval, in the 2.4 and 5 GHz bands.
//! Not covered: HT-greenfield, STBC, LDPC, MCS 32–76, PBCC, VHT and later.

pub mod analytic;
pub mod ap_rx;
pub mod blockack;
pub mod bss;
pub mod bss_load;
pub mod build;
pub mod device;
pub mod error_model;
pub mod esm;
pub mod frames;
pub mod phy;
pub mod rate;
pub mod records;
pub(crate) use records::records;
pub mod retry_out;
pub mod roaming;
