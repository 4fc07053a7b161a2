//! Congestion control behind a small trait, shared by every transport that
//! needs a controller (TCP today; the QUIC adapter and TFRC-style rate
//! control can drive the same controllers).
//!
//! A controller owns its congestion window and slow-start threshold (both in
//! bytes), and may set a pacing rate (BBR, [`CongestionControl::pacing_rate`]). Inputs arrive as event structs so new fields can be added without
//! touching every implementation, and hooks a controller may ignore have
//! default, no-op methods. Loss *recovery* (which segments to resend, e.g.
//! TCP's NewReno or SACK recovery) is the transport's business, not the
//! controller's. Nothing here knows a transport's types: transports import
//! `cc`, never the reverse.
//!
//! Adding a controller is a new file, a [`CcKind`] variant and one line in
//! [`new_controller`].

mod bbr;
mod bbr3;
mod ctcp;
mod cubic;
mod hystart;
mod minmax;
mod newreno;

pub use bbr::Bbr;
pub use bbr3::Bbr3;
pub use ctcp::Ctcp;
pub use cubic::{Cubic, CubicOptions};
pub use hystart::HyStartPlusPlus;
pub use newreno::{CaIncrease, NewReno};

use crate::time::SimTime;

/// Congestion controller selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    /// Reno/NewReno (RFC 5681, RFC 6582).
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
    /// Compound TCP (draft-sridharan-tcpm-ctcp-02).
    Ctcp,
    /// BBR v1 as Linux's net/ipv4/tcp_bbr.c.
    Bbr,
    /// BBRv3 (draft-ietf-ccwg-bbr; Google's v3 tcp_bbr.c).
    Bbr3,
}

/// A cumulative ACK of new data outside loss recovery.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: SimTime,
    /// Newly acknowledged bytes.
    pub bytes_acked: u64,
    /// RTT sample taken from this ACK, if any.
    pub rtt: Option<SimTime>,
    /// Smoothed RTT after this ACK, if known.
    pub srtt: Option<SimTime>,
    /// Bytes in flight before this ACK was processed.
    pub in_flight: u64,
}

/// A congestion event: entering fast recovery, or a retransmission timeout.
#[derive(Clone, Copy, Debug)]
pub struct LossEvent {
    pub now: SimTime,
    /// FlightSize (RFC 5681 §3.1): bytes sent but not cumulatively acked.
    pub flight_size: u64,
    /// For [`CongestionControl::on_rto`] only: the timeout falls inside a loss episode that
    /// has already set ssthresh, and RFC 5681 eq. 4 would not lower it (see
    /// `Connection::on_rto`). A controller whose ssthresh follows FlightSize keeps ssthresh
    /// and only collapses cwnd to the loss window; CUBIC, whose ssthresh follows cwnd
    /// (RFC 9438 §4.8), ignores it.
    pub hold_ssthresh: bool,
}

/// A round-trip time measurement (RFC 6298 §2, RFC 9002 §5), delivered
/// after the transport's estimator has taken it.
#[derive(Clone, Copy, Debug)]
pub struct RttSample {
    pub now: SimTime,
    /// The measurement itself (RFC 9002's `latest_rtt`).
    pub rtt: SimTime,
    /// Smoothed RTT with this sample included.
    pub srtt: SimTime,
}

/// A delivery-rate sample, as rate-based controllers (BBR, TFRC-style
/// senders) consume them (draft-cheng-iccrg-delivery-rate-estimation §3.1:
/// `rs.delivered` bytes over `rs.interval`; Linux's `struct rate_sample`). TCP produces
/// one per ACK that delivers data when its controller asks for them
/// ([`CongestionControl::wants_rate_samples`]) or it paces (`tcp::rate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    pub now: SimTime,
    /// Bytes delivered during `interval` (`rs.delivered`).
    pub delivered: u64,
    /// The longer of the send and ACK intervals of the sample
    /// (`rs.interval`); zero when the sample is not valid (shorter than the minimum RTT).
    pub interval: SimTime,
    /// RTT of the newest packet the sample covers (`rs.rtt`); `SimTime::MAX` without one.
    pub rtt: SimTime,
    /// The sender was application-limited when that packet was sent
    /// (`rs.is_app_limited`): the rate understates the path's.
    pub is_app_limited: bool,
    /// Bytes in flight just after that packet was sent, itself included
    /// (`rs->tx_in_flight`, Google's BBRv3 kernel); zero without a packet.
    pub tx_in_flight: u64,
    /// Bytes marked lost since that packet was sent (`rs->lost` = `tp->lost − tx.lost`);
    /// zero without a packet.
    pub lost: u64,
    /// The connection's delivered count when that packet was sent (`rs.prior_delivered`).
    pub prior_delivered: u64,
    /// Bytes delivered over the connection so far (`tp->delivered`).
    pub total_delivered: u64,
    /// When `total_delivered` last grew (`tp->delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Bytes this ACK newly acknowledged or SACKed (`rs.acked_sacked`).
    pub acked_sacked: u64,
    /// Bytes this ACK newly marked lost (`rs.losses`).
    pub losses: u64,
    /// Bytes in flight before the ACK (`rs.prior_in_flight`) and after it.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// The connection is in fast recovery after the ACK (Linux's `TCP_CA_Recovery`).
    pub in_recovery: bool,
    /// The connection is recovering from a timeout (`TCP_CA_Loss`).
    pub in_loss: bool,
    /// Bytes ever marked lost (`tp->lost`).
    pub total_lost: u64,
    /// When the pacer lets the next segment leave (`tp->tcp_wstamp_ns`); `now` or earlier
    /// when it may leave at once.
    pub pacing_edt: SimTime,
}

/// A packet the transport has just marked lost, with what its delivery-rate snapshot
/// recorded when it was sent (Google's BBRv3 kernel: `tcp_notify_skb_loss_event`, which adds
/// it to `tp->lost` and then calls the controller's `skb_marked_lost`). Produced by a
/// transport that samples delivery rates, once per packet, before the controller hears of
/// the ACK or timeout that marked it.
#[derive(Clone, Copy, Debug, Default)]
pub struct LostPacket {
    pub now: SimTime,
    /// Its size in bytes (`tcp_skb_pcount` in packets).
    pub bytes: u64,
    /// Bytes in flight just after it was sent, itself included (`tx.in_flight`).
    pub tx_in_flight: u64,
    /// Bytes marked lost since it was sent, itself included (`tp->lost − tx.lost`).
    pub lost: u64,
    /// Sent while application-limited (`tx.is_app_limited`).
    pub is_app_limited: bool,
    /// Its snapshot is still unused: neither SACKed nor already taken by a sample (Linux's
    /// `tx.delivered_mstamp != 0`).
    pub has_snapshot: bool,
}

/// The sender had room in its congestion window but no data to send: it is
/// application-limited (RFC 7661 §2), so ACKs say little about how large the
/// window could be.
#[derive(Clone, Copy, Debug)]
pub struct AppLimitedEvent {
    pub now: SimTime,
    /// Bytes in flight (RFC 6675 `pipe`), below the congestion window.
    pub in_flight: u64,
}

/// A retransmission timeout turned out to be spurious (detected by F-RTO,
/// RFC 5682): the congestion-control state the Eifel response algorithm
/// (RFC 4015 §2, "reverse the congestion control state") asks for, or Linux's undo
/// (`tcp_undo_cwnd_reduction`, see `tcp::SpuriousRtoResponse`).
#[derive(Clone, Copy, Debug)]
pub struct SpuriousRtoEvent {
    pub now: SimTime,
    /// Eifel: `cwnd <- FlightSize + min(bytes_acked, IW)`; Linux: `max(cwnd, prior_cwnd)`;
    /// in bytes.
    pub cwnd: u64,
    /// Eifel: `ssthresh <- pipe_prev = max(FlightSize, ssthresh)` taken before the
    /// timeout; Linux: `max(ssthresh, prior_ssthresh)`; in bytes, `u64::MAX` standing
    /// for "arbitrarily high".
    pub ssthresh: u64,
}

/// F-RTO (RFC 5682) gave a timeout back to conventional RTO recovery:
/// slow start goes on from `cwnd` (bytes; at most 2 SMSS in step 2a, 3 SMSS
/// in step 3a). ssthresh is left as the timeout set it.
#[derive(Clone, Copy, Debug)]
pub struct FrtoFallbackEvent {
    pub now: SimTime,
    pub cwnd: u64,
}

/// A congestion controller (RFC 5681 §3 framework).
///
/// The required methods are what a window-based controller must answer;
/// the `on_rtt_sample`, `on_rate_sample` and `on_app_limited` hooks default
/// to doing nothing, so NewReno and CUBIC ignore them and a delay- or
/// rate-based controller overrides what it needs.
pub trait CongestionControl: core::fmt::Debug + Send {
    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold in bytes.
    fn ssthresh(&self) -> u64;
    /// New data was cumulatively acknowledged while not in recovery.
    fn on_ack(&mut self, ev: &AckEvent);
    /// Loss detected by duplicate ACKs or SACK: the start of fast recovery.
    fn on_congestion_event(&mut self, ev: &LossEvent);
    /// The retransmission timer expired (QUIC: persistent congestion,
    /// RFC 9002 §7.6).
    fn on_rto(&mut self, ev: &LossEvent);
    /// A new RTT measurement, in or out of recovery.
    fn on_rtt_sample(&mut self, _ev: &RttSample) {}
    /// A new delivery-rate sample (see [`RateSample`] for who produces one).
    fn on_rate_sample(&mut self, _ev: &RateSample) {}
    /// A packet was marked lost (see [`LostPacket`] for who produces one).
    fn on_packet_lost(&mut self, _ev: &LostPacket) {}
    /// The sender found room in the window and nothing to send.
    fn on_app_limited(&mut self, _ev: &AppLimitedEvent) {}
    /// Whether the transport must produce [`RateSample`]s for it.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// The rate to pace at, in bytes per second, if the controller sets one (Linux's
    /// `sk_pacing_rate` written by a controller with `cong_control`); `None` leaves it to
    /// the transport's default (`tcp_update_pacing_rate`).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Whether the controller needs pacing whatever the configuration (Linux's
    /// `SK_PACING_NEEDED`, which BBR sets in `bbr_init`).
    fn needs_pacing(&self) -> bool {
        false
    }
    /// Whether the transport must mark its delivery samples application-limited now
    /// (BBR's PROBE_RTT sets `tp->app_limited` so that its own low rate is not taken as
    /// the path's).
    fn holds_app_limited(&self) -> bool {
        false
    }
    /// Data is sent with nothing in flight (Linux's `CA_EVENT_TX_START`), the connection
    /// being application-limited or not.
    fn on_tx_start(&mut self, _now: SimTime, _app_limited: bool) {}
    /// A per-connection seed for a controller that draws random numbers (BBR's first
    /// gain-cycle phase); the same seed gives the same draws.
    fn reseed(&mut self, _seed: u64) {}
    /// A copy of the whole controller. The connection takes one before a
    /// retransmission timeout updates cwnd and ssthresh (RFC 4015 §2) so
    /// that a spurious timeout can be undone.
    fn boxed_clone(&self) -> Box<dyn CongestionControl>;
    /// Adopt `ev.cwnd` and `ev.ssthresh` after a timeout that proved spurious; everything
    /// else (CUBIC's W_max, K and epoch) stays. The Eifel response calls it on the copy
    /// saved before the timeout, Linux's undo on the controller as the timeout left it.
    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent);
    /// F-RTO resumed conventional RTO recovery: set cwnd to `ev.cwnd`.
    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent);
    /// Slow start ends without a loss (HyStart++, RFC 9406 §4.2): congestion avoidance
    /// begins at the current window (`ssthresh = cwnd`).
    fn exit_slow_start(&mut self, now: SimTime);
}

/// Builds the configured controller for sender MSS `smss` and initial
/// window `iw` bytes; `cubic` holds CUBIC's implementation choices.
/// With `hystart`, its initial slow start follows HyStart++ (RFC 9406); `ca_increase` is
/// NewReno's congestion-avoidance growth.
pub fn new_controller(
    kind: CcKind,
    smss: u32,
    iw: u64,
    cubic: CubicOptions,
    hystart: bool,
    ca_increase: CaIncrease,
) -> Box<dyn CongestionControl> {
    let cc: Box<dyn CongestionControl> = match kind {
        CcKind::NewReno => Box::new(NewReno::new(smss, iw, ca_increase)),
        CcKind::Cubic => Box::new(Cubic::new(smss, iw, cubic)),
        CcKind::Ctcp => Box::new(Ctcp::new(smss, iw)),
        CcKind::Bbr => Box::new(Bbr::new(smss, iw)),
        CcKind::Bbr3 => Box::new(Bbr3::new(smss, iw)),
    };
    if hystart {
        Box::new(HyStartPlusPlus::new(cc, smss))
    } else {
        cc
    }
}

/// Slow-start growth shared by the controllers: RFC 5681 §3.1 eq. 2,
/// `cwnd += min(N, SMSS)` per ACK.
pub(crate) fn slow_start_increase(bytes_acked: u64, smss: u64) -> u64 {
    bytes_acked.min(smss)
}

/// RFC 5681 eq. 4: `ssthresh = max(FlightSize / 2, 2*SMSS)`.
pub(crate) fn half_flight(flight_size: u64, smss: u64) -> u64 {
    (flight_size / 2).max(2 * smss)
}

/// A window in (fractional) segments as bytes, `u64::MAX` for an infinite one (a
/// slow-start threshold still "arbitrarily high", RFC 5681 §3.1).
pub(crate) fn segments_to_bytes(segments: f64, smss: f64) -> u64 {
    if segments.is_finite() {
        (segments * smss) as u64
    } else {
        u64::MAX
    }
}

/// The inverse of [`segments_to_bytes`].
pub(crate) fn bytes_to_segments(bytes: u64, smss: f64) -> f64 {
    if bytes == u64::MAX {
        f64::INFINITY
    } else {
        bytes as f64 / smss
    }
}
