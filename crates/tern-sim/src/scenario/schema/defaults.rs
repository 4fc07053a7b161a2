//! Defaults of the scenario format's fields, each named after its value (serde needs a
//! function per default).

use super::super::units::{Bytes, DataRate, Duration, QueueLimit};

pub(crate) fn default_seed() -> u64 {
    1
}

pub(crate) fn msdu_lifetime() -> Duration {
    Duration(tern_proto::time::SimTime::from_micros(500 * 1024))
}

/// Linux mac80211's reorder-release timeout, HT_RX_REORDER_BUF_TIMEOUT = HZ/10: 100 ms.
pub(crate) fn reorder_timeout() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(100))
}

/// The retry-out index's EWMA weight (wlan-bufferbloat paper §3.2 (1)).
pub(crate) fn retry_out_weight() -> f64 {
    crate::wifi::retry_out::PAPER_WEIGHT
}

/// The retry-out index table (wlan-bufferbloat paper Table 1).
pub(crate) fn retry_out_table() -> Vec<super::RetryOutStep> {
    crate::wifi::retry_out::PAPER_TABLE
        .iter()
        .map(|s| super::RetryOutStep {
            below: DataRate(s.below_bps),
            index: s.index,
        })
        .collect()
}

/// The TGn channel models' environmental speed, 1.2 km/h (IEEE 802.11-03/940r4).
pub(crate) fn tgn_environment_speed() -> f64 {
    crate::radio::fading::TGN_ENVIRONMENT_SPEED
}

/// One receive antenna: the single-branch fading model.
pub(crate) fn one_antenna() -> u32 {
    1
}

pub(crate) fn wifi_queue() -> u32 {
    500
}

pub(crate) fn ampdu_mpdus() -> u32 {
    64
}

pub(crate) fn ampdu_bytes() -> u32 {
    65_535
}

pub(crate) fn pdu42() -> Bytes {
    Bytes(42)
}

pub(crate) fn ms10() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(10))
}

pub(crate) fn sdu1() -> u32 {
    1
}

pub(crate) fn window512() -> u16 {
    512
}

pub(crate) fn maxdat15() -> u32 {
    15
}

pub(crate) fn s3() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(3))
}

pub(crate) fn zero_bytes() -> Bytes {
    Bytes(0)
}

pub(crate) fn is_zero_bytes(b: &Bytes) -> bool {
    b.0 == 0
}

pub(crate) fn default_mtu() -> Bytes {
    Bytes(1500)
}

pub(crate) fn codel_target() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(5))
}

pub(crate) fn codel_interval() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(100))
}

pub(crate) fn codel_limit() -> QueueLimit {
    QueueLimit::Packets(1000)
}

pub(crate) fn one() -> f64 {
    1.0
}

pub(crate) fn s10() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(10))
}

pub(crate) fn ms100() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(100))
}

pub(crate) fn b50() -> Bytes {
    Bytes(50)
}

pub(crate) fn zero() -> Duration {
    Duration(tern_proto::time::SimTime::ZERO)
}

pub(crate) fn request_size() -> Bytes {
    Bytes(100)
}

pub(crate) fn ping_size() -> Bytes {
    Bytes(56)
}

pub(crate) fn ping_interval() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(1))
}

pub(crate) fn yes() -> bool {
    true
}

pub(crate) fn two() -> u32 {
    2
}

pub(crate) fn ms200() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(200))
}

pub(crate) fn s1() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(1))
}

pub(crate) fn s60() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(60))
}

pub(crate) fn mib1() -> Bytes {
    Bytes(1 << 20)
}

pub(crate) fn kib128() -> Bytes {
    Bytes(128 * 1024)
}

/// beta_cubic of RFC 9438 §4.6.
pub(crate) fn cubic_beta() -> f64 {
    0.7
}
