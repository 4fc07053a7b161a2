//! `[[wifi]]` BSSs, their radios, and `[[roaming]]`.

use super::super::units::{DataRate, Duration};
use super::defaults::*;
use super::link::QueueSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An IEEE 802.11 BSS: the access point `ap` and its `stations`, all on one channel (every
/// member hears every other: no hidden terminals). Each station is joined to the AP by a
/// link named `<bss>-<station>` whose forward direction is the uplink. Routes treat those
/// like any other link.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiSpec {
    pub name: String,
    pub ap: String,
    pub stations: Vec<String>,
    pub standard: WifiStandard,
    /// 802.11b and 802.11g: the data rate of every Data frame. 802.11b: 1, 2, 5.5 or
    /// 11 Mbit/s (default 11 Mbit/s; no rate adaptation), Acks at the highest basic rate (1
    /// or 2 Mbit/s) not above it. 802.11g: 6, 9, 12, 18, 24, 36, 48 or 54 Mbit/s, Acks at
    /// the highest mandatory rate (6, 12 or 24 Mbit/s) not above it; default: none, each
    /// frame's rate is picked by `rate_control`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    /// 802.11b only: PLCP preamble, "long" (default, 192 µs) or "short" (96 µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<PreambleSpec>,
    /// 802.11n only: "5GHz" (default) or "2.4GHz".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<BandSpec>,
    /// 802.11n only: channel width in MHz, 20 (default) or 40.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// 802.11n only: "long" (800 ns, default) or "short" (400 ns) guard interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_interval: Option<GuardIntervalSpec>,
    /// 802.11n only: spatial streams of every member, 1 (default, MCS 0–7) or 2 (MCS 0–15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<u8>,
    /// 802.11n and 802.11g: how each sender picks the rate of each frame to each peer
    /// (default Minstrel, Linux mac80211's default `minstrel_ht`). 802.11n: the MCS of an
    /// A-MPDU; 802.11g (without `rate`): the ERP-OFDM rate, 6–54 Mbit/s, of an MPDU, with
    /// "minstrel" (minstrel_ht's OFDM group, Linux 5.12 on) or "ideal".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<RateControlSpec>,
    /// MAC transmit queue of each member, in packets (default 500, the size of ns-3's
    /// WifiMacQueue).
    #[serde(default = "wifi_queue")]
    pub queue: u32,
    /// A queue discipline in front of each member's MAC queue, as Linux's qdisc on the
    /// interface: packets wait in it while the MAC queue (`queue`) is full, and the driver
    /// takes the next one whenever a frame leaves the MAC queue (acknowledged or dropped).
    /// E.g. `{ kind = "droptail", limit = "1000pkt" }` (pfifo_fast with txqueuelen 1000, the
    /// default ether_setup() gives Wi-Fi devices) or `{ kind = "codel" }` (RFC 8289).
    /// Default: none, packets go straight to the MAC queue (as in ns-3). Not with roaming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<QueueSpec>,
    /// Attempts before a frame is dropped: 802.11b per frame (default 7,
    /// dot11ShortRetryLimit), 802.11n per MPDU (default 30, ATH_MAX_SW_RETRIES of the Linux
    /// ath9k driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit: Option<u32>,
    /// MSDU lifetime: a packet still in the MAC queue this long after it entered is
    /// discarded (dot11EDCATableMSDULifetime, IEEE 802.11-2020 Annex C; default 512 ms = 500 TU, the
    /// standard's default; ns-3's WifiMacQueue MaxDelay is 500 ms). "0s" turns it off.
    #[serde(default = "msdu_lifetime")]
    pub lifetime: Duration,
    /// 802.11n only: how long a receiver's reordering buffer holds MPDUs behind a missing
    /// one before it gives the missing one up and passes them on: Linux mac80211's
    /// reorder-release timeout (net/mac80211/rx.c, HT_RX_REORDER_BUF_TIMEOUT = HZ/10, default
    /// 100 ms). "0s" turns it off: a gap then waits for the MPDU, a BlockAckReq or an MPDU
    /// a window ahead, as IEEE 802.11-2020 §10.25.6.6 alone has it (ns-3's recipient).
    #[serde(default = "reorder_timeout")]
    pub reorder_timeout: Duration,
    /// 802.11n only: A-MPDU limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ampdu: Option<AmpduSpec>,
    /// A fixed probability that an MPDU is received in error, on top of the SNR-based
    /// errors (default 0): for calibration.
    #[serde(default)]
    pub mpdu_error: f64,
    /// How the SNR between members follows from their positions.
    #[serde(default)]
    pub propagation: PropagationSpec,
    /// 802.11n only: the AP's retry-out index (the wlan-bufferbloat study's AP-side
    /// countermeasure to upload bufferbloat). Default: none (the standard receiver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_out: Option<RetryOutSpec>,
}

/// The retry-out index of an 802.11n AP ("AP-side countermeasure to bufferbloat in IEEE
/// 802.11n upload TCP", IPSJ Journal 58(2), 2017, §3; the wlan-bufferbloat study): per
/// station, an EWMA of the data rate of the A-MPDUs received picks an index; an MPDU carrying
/// TCP whose receptions with a bad FCS exceed it is declared lost (the reordering window
/// moves past it, what was held behind it goes up, a later intact copy is acknowledged but
/// dropped).
/// `{}` turns it on with the paper's parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryOutSpec {
    /// Whether the AP applies it (default true); false keeps the table but makes the AP the
    /// standard receiver, so that a sweep can turn the scheme on and off
    /// (`--set wifi.<bss>.retry_out.enabled=false`).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Weight of each new A-MPDU's data rate in the EWMA, in (0, 1] (default 0.25, §3.2 (1)).
    #[serde(default = "retry_out_weight")]
    pub weight: f64,
    /// The index by smoothed rate: rows in increasing `below`; at or above the last row's
    /// `below` the index is not applied. Default Table 1 of the paper: below 25 Mbit/s 2,
    /// below 50 Mbit/s 5, below 100 Mbit/s 8.
    #[serde(default = "retry_out_table")]
    pub table: Vec<RetryOutStep>,
    /// One index at every rate instead of `table` (§4.4 runs 2, 5 and 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<u32>,
    /// An idealised driver that reads every failed MPDU's sequence number and IPv4 Protocol
    /// octet as they were sent (default false: as decoded, so a frame failed at a high bit
    /// error rate may be counted against another SN, or not at all; §3.1 says they "may be
    /// wrong"). A bound for a sensitivity, not a driver.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact_headers: bool,
}

impl RetryOutSpec {
    /// The default `table` (the paper's Table 1).
    pub fn default_table() -> Vec<RetryOutStep> {
        retry_out_table()
    }
}

/// A row of the retry-out index table.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryOutStep {
    /// Smoothed rates below this (and at or above the previous row's) get `index`.
    pub below: DataRate,
    /// Bad-FCS receptions an MPDU may have before it is declared lost.
    pub index: u32,
}

/// A station's moves between the BSSs it is listed in. A station starts associated with
/// the first `[[wifi]]` BSS that lists it. A roam (IEEE 802.11-2020 §11.3.5.4,
/// reassociation) takes the station away from its AP for `disconnect` (scanning,
/// authentication, reassociation; the distribution system learns the new place at the
/// end): meanwhile its MAC queue keeps what it has and what it is given, up to its limit,
/// and sends nothing; the old AP discards what it held for the station and refuses more.
/// Either scheduled (`at`, `to`) or triggered by the RSSI of the APs' beacons
/// (`rssi_below`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoamingSpec {
    /// A name, for `--set roaming.<name>.disconnect=3s`.
    pub name: String,
    pub station: String,
    /// Scheduled: when the station leaves its AP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Duration>,
    /// Scheduled: the BSS it joins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// RSSI-triggered: at every beacon interval (102.4 ms) at which its AP's beacons arrive
    /// weaker than this (dBm), the station roams to the strongest other AP of its BSSs, if
    /// that one is at least `hysteresis` stronger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rssi_below: Option<f64>,
    /// RSSI-triggered: dB a candidate AP must be stronger than the current one (default 5 dB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis: Option<f64>,
    /// Time without an association.
    pub disconnect: Duration,
    /// Countermeasure D of the tfrc-handover study (Otsuka, Tamura, Ishihara, §4.5 D:
    /// "during the disconnection, discard packets in the send buffer that are too old to
    /// be played"; in no standard): during the disconnection, before it queues each new
    /// frame and again when it joins the new AP, the station's MAC discards the frames that
    /// entered its queue longer ago than this play-out deadline (ITU-T G.114 §2: 150 ms
    /// one-way delay for interactive media, 400 ms its upper limit). Unset: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_older_than: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum WifiStandard {
    #[serde(rename = "802.11b")]
    Dot11b,
    /// ERP-OFDM in 2.4 GHz (IEEE 802.11-2020 Clause 18), a BSS of ERP stations only.
    #[serde(rename = "802.11g")]
    Dot11g,
    #[serde(rename = "802.11n")]
    Dot11n,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PreambleSpec {
    Long,
    Short,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BandSpec {
    #[serde(rename = "2.4GHz")]
    Ghz2_4,
    #[serde(rename = "5GHz")]
    Ghz5,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GuardIntervalSpec {
    Long,
    Short,
}

/// Rate adaptation of an 802.11n sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum RateControlSpec {
    /// Always this MCS (0–15); 802.11n only.
    Constant { mcs: u8 },
    /// The best MCS for the current SNR, known exactly (an oracle).
    Ideal,
    /// Minstrel-HT-like: success-probability statistics per rate, throughput ranking,
    /// sampling.
    Minstrel,
}

/// A-MPDU limits of an 802.11n sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AmpduSpec {
    /// MPDUs per A-MPDU, 1–64 (default 64, the HT Block Ack window).
    #[serde(default = "ampdu_mpdus")]
    pub max_mpdus: u32,
    /// PSDU bytes, up to 65 535 (default).
    #[serde(default = "ampdu_bytes")]
    pub max_bytes: u32,
    /// PPDU duration (default 5.484 ms, the HT-mixed L-SIG limit; Linux ath9k uses 4 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<Duration>,
}

/// Log-distance path loss (Rappaport eq. 4.69) from positions to SNR. Defaults are ns-3's
/// YansWifiChannelHelper::Default() and YansWifiPhy: exponent 3, reference loss at 1 m from
/// Friis at the band's frequency, transmit power 16.0206 dBm, noise figure 7 dB.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PropagationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// Loss at 1 m, dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_loss: Option<f64>,
    /// Transmit power of every member, dBm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_power: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_figure: Option<f64>,
    /// Standard deviation of log-normal shadowing, dB (default 0: none); one draw per
    /// `shadowing_interval` (default 1 s) and member pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing_interval: Option<Duration>,
    /// Small-scale fading per link direction (Zheng & Xiao's sum of sinusoids,
    /// `radio/fading.rs`; Clarke's spectrum when flat, TGn's bell on a TGn model's taps):
    /// off unless this table is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fading: Option<FadingSpec>,
}

/// Time-correlated Rayleigh (or Rician) fading of every link direction: each transmission's
/// SNR gets the fade at its start (all MPDUs of an A-MPDU share it, a retry sees its own).
/// The maximum Doppler shift is f_d = v/λ with v the environment speed plus the faster
/// member's top speed (TGn channel models, IEEE 802.11-03/940r4).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    /// Speed of the moving scatterers (people, doors), m/s; default 0.3333 = 1.2 km/h, the
    /// TGn models' environmental speed for indoor channels with stationary stations.
    #[serde(default = "tgn_environment_speed")]
    pub environment_speed: f64,
    /// Rician K factor, linear (power of the direct wave over the scattered power); default
    /// 0 = Rayleigh, TGn's NLOS condition (every tap Rayleigh beyond the breakpoint
    /// distance, 5-30 m for models B-F).
    #[serde(default)]
    pub k_factor: f64,
    /// Receive antennas (chains) of every member, 1-4, each with its own independent fading,
    /// combined by maximal-ratio combining (Goldsmith, Wireless Communications, 2005,
    /// §7.2.4; the array gain counts: the link budget is per antenna); an MCS with N_SS
    /// streams gets diversity order max(1, N - N_SS + 1) (zero-forcing abstraction, see
    /// `radio/fading.rs`). Default 1, the single-branch worst case; 802.11n devices have up
    /// to 4 (IEEE 802.11-2012 §20.1.1: up to four spatial streams).
    #[serde(default = "one_antenna")]
    pub rx_antennas: u32,
    /// Transmit antennas (chains) of every member, 1-4; default 1. With more, a
    /// one-stream PPDU (MCS 0-7, and every PHY header) is sent on all of them with the HT
    /// cyclic shifts (IEEE Std 802.11n-2009 Table 20-9: 0 and -400 ns for two), the power
    /// split between them, as ath9k sends every MCS on the card's whole transmit chainmask
    /// (xmit.c, `ath_buf_set_rate`); the shifts make the channel frequency-selective and
    /// the code gains transmit diversity across the subcarriers (evaluated on the HT
    /// subcarriers, flat fading too). Two-stream PPDUs are mapped directly, one stream per
    /// antenna.
    #[serde(default = "one_antenna")]
    pub tx_antennas: u32,
    /// "flat" (default): one gain per PPDU. "B", "C", "D" or "E": the TGn tapped-delay-line
    /// model of that name (IEEE 802.11-03/940r4; rms delay spread 15, 30, 50, 100 ns;
    /// residential, residential/small office, office, large office) evaluated on the HT data
    /// subcarriers, combined per subcarrier over the receive antennas and mapped to one
    /// effective SNR by mutual information (`radio/tgn.rs`, `wifi/esm.rs`); its taps fade
    /// with TGn's bell-shaped Doppler spectrum, and `k_factor` applies to the first tap only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}
