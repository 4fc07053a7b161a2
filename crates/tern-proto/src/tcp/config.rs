//! Endpoint configuration. `Config::default()` follows the RFC defaults.

use super::recovery::RecoveryKind;
pub use crate::cc::CcKind;
use crate::cc::{self, CaIncrease, CongestionControl, CubicOptions};
use crate::time::SimTime;

/// Initial congestion window (IW) policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// `n` segments, e.g. 10 per RFC 6928.
    Segments(u32),
    /// 1 segment (RFC 1122).
    Rfc1122,
    /// 2 segments (RFC 2581).
    Rfc2581,
    /// `min(4*MSS, max(2*MSS, 4380))` bytes (RFC 3390 §1).
    Rfc3390,
}

impl InitialWindow {
    /// Initial window in bytes for sender MSS `smss`.
    pub fn bytes(self, smss: u32) -> u64 {
        let smss = u64::from(smss);
        match self {
            InitialWindow::Segments(n) => u64::from(n.max(1)) * smss,
            InitialWindow::Rfc1122 => smss,
            InitialWindow::Rfc2581 => 2 * smss,
            InitialWindow::Rfc3390 => (4 * smss).min((2 * smss).max(4380)),
        }
    }
}

/// Delayed-ACK parameters (RFC 1122 §4.2.3.2, RFC 5681 §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// Upper bound on how long an ACK may be withheld (200 ms; must be < 500 ms).
    pub max_delay: SimTime,
    /// Acknowledge at least every `every` in-order segments (2).
    pub every: u32,
    /// How the timeout is chosen: fixed at `max_delay`, or Linux's adaptive rule (then
    /// `max_delay` is TCP_DELACK_MAX and `every` is replaced by Linux's "more than one
    /// full frame"; `super::delack`).
    pub rule: DelayedAckRule,
}

/// How the delayed-ACK timeout is chosen ([`DelayedAck::rule`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DelayedAckRule {
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2: a fixed timer of `max_delay`, an ACK every
    /// `every` segments.
    #[default]
    Fixed,
    /// Linux's adaptive ATO with quick-ACK mode (net/ipv4/tcp_input.c
    /// `tcp_event_data_recv`, `tcp_incr_quickack`, `__tcp_ack_snd_check`; tcp_output.c
    /// `tcp_send_delayed_ack`; tcp_timer.c `tcp_delack_timer_handler`).
    Linux,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck {
            max_delay: SimTime::from_millis(200),
            every: 2,
            rule: DelayedAckRule::Fixed,
        }
    }
}

/// Configuration of one TCP endpoint. All fields are public.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Our MSS; `None` derives it from the path MTU as `mtu - 40`.
    pub mss: Option<u32>,
    /// Path MTU in bytes (IPv4 + TCP headers included).
    pub mtu: u32,
    pub cc: CcKind,
    /// Offer SACK (RFC 2018); used only if the peer offers it too.
    pub sack: bool,
    /// Loss recovery when SACK is not in use: NewReno (RFC 6582, the
    /// default) or Reno (RFC 5681 §3.2, as 4.4BSD-Lite).
    pub recovery: RecoveryKind,
    /// With SACK, Proportional Rate Reduction (RFC 9937) sets what fast recovery sends
    /// on each ACK instead of RFC 6675's `cwnd - pipe`. Off by default; Linux (since 3.2)
    /// and ns-3 (`TcpPrrRecovery`, its default) use it.
    pub prr: bool,
    /// Offer timestamps (RFC 7323 §3); used only if the peer offers them too.
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323 §2); used only if the peer offers it too.
    pub window_scale: bool,
    pub initial_window: InitialWindow,
    /// `None` acknowledges every segment immediately.
    pub delayed_ack: Option<DelayedAck>,
    /// Lower bound on the RTO (1 s per RFC 6298 §2.4; Linux uses 200 ms).
    pub min_rto: SimTime,
    /// How the RTO follows the RTT samples: RFC 6298 (the default) or Linux's rule.
    pub rto_rule: RtoRule,
    /// Where an ACK's RTT sample comes from: the timestamp echo first (RFC 7323, the
    /// default) or the acknowledged segments' send times first (Linux 3.13 on).
    pub rtt_source: RttSource,
    /// Upper bound on the RTO including back-off (RFC 6298 §2.5 allows >= 60 s).
    pub max_rto: SimTime,
    /// RTO before any RTT sample (1 s, RFC 6298 §2.1).
    pub initial_rto: SimTime,
    /// Clock granularity G of RFC 6298 §2 (1 ms: the timestamp clock rate).
    pub clock_granularity: SimTime,
    /// Send buffer capacity in bytes (bounds [`super::Connection::write`]).
    pub send_buffer: u64,
    /// Receive buffer capacity in bytes (bounds the advertised window).
    pub recv_buffer: u64,
    /// DupThresh (RFC 5681 §3.2, RFC 6675 §2).
    pub dupack_threshold: u32,
    /// SYN / SYN-ACK retransmissions before giving up (Linux `tcp_syn_retries` = 6).
    pub syn_retries: u32,
    /// Data retransmission timeouts before aborting (Linux `tcp_retries2` = 15).
    pub max_retries: u32,
    /// TIME-WAIT duration. RFC 9293 §3.6 asks for 2*MSL = 4 min; the default
    /// is shortened to Linux's 60 s, and simulations may shorten it further.
    pub time_wait: SimTime,
    /// CUBIC's beta_cubic and fast convergence (RFC 9438 §4.6, §4.7).
    pub cubic: CubicOptions,
    /// HyStart++ (RFC 9406) in the initial slow start.
    pub hystart: bool,
    /// F-RTO: detect spurious retransmission timeouts (RFC 5682; the
    /// SACK-enhanced algorithm of §3 when SACK is negotiated, the basic one
    /// of §2 otherwise) and answer a detected one with the Eifel response
    /// (RFC 4015 §2): resume sending new data and restore cwnd/ssthresh
    /// instead of go-back-N in slow start.
    ///
    /// Off by default, so the conventional RFC 5681 / RFC 6298 timeout
    /// recovery stays the default. Linux enables F-RTO by default
    /// (`net.ipv4.tcp_frto = 2`, SACK-enhanced when SACK is in use), and so
    /// does Android: set it to model those stacks.
    pub frto: bool,
    /// What a timeout that F-RTO found spurious restores ([`frto`](Self::frto) on).
    pub spurious_rto_response: SpuriousRtoResponse,
    /// React to lower-layer connectivity-change indications
    /// ([`Connection::on_connectivity`](super::Connection::on_connectivity)),
    /// after "TCP Response to Lower-Layer Connectivity-Change Indications"
    /// (draft-schuetz-tcpm-tcp-rlci): when the link comes back while the
    /// retransmission timer is backed off, retransmit the oldest
    /// unacknowledged segment at once and restart the timer with the
    /// un-backed-off RTO (see the `rlci` module for the exact rules).
    ///
    /// Off by default: standard TCP has no such input and ignores the
    /// indication, waiting for its backed-off timer.
    pub rlci: bool,
    /// With [`rlci`](Self::rlci) on: treat every link-up indication as a
    /// change of path (e.g. a handover to another access point) and forget
    /// what was learnt about the old one, like a newly started connection:
    /// SRTT and RTTVAR are cleared and the RTO goes back to
    /// [`initial_rto`](Self::initial_rto) (RFC 6298 §2.1, and the note after
    /// rule 5.7 of RFC 6298 §5 allows clearing them after repeated
    /// back-off), and the congestion controller restarts with the initial
    /// window and an arbitrarily high ssthresh (RFC 5681 §3.1). Off by
    /// default. Only meaningful if the driver signals link-up on a real
    /// path change.
    pub rlci_reset_path: bool,
    /// Grow cwnd on an ACK only while the sender is cwnd-limited, as Linux does
    /// (`tcp_is_cwnd_limited`, net/ipv4/tcp_cong.c, Linux 2.6.18–3.19, after
    /// RFC 2861): when the bytes in flight before the ACK reach cwnd, or fall
    /// short of it by at most [`CWND_LIMITED_SLACK_SEGMENTS`] segments
    /// (`tcp_max_tso_deferred_mss`; the GSO allowance does not apply, Tern
    /// sends one segment at a time). A sender held back by its send buffer or
    /// the peer's window then keeps cwnd where its flight is, instead of
    /// growing it without bound (RFC 7661 §4.3 makes the same point).
    ///
    /// Off by default: RFC 5681 §3.1 grows cwnd on every ACK of new data.
    pub cwnd_limited_growth: bool,
    /// How NewReno grows cwnd in congestion avoidance (CUBIC and Compound TCP have their
    /// own rules).
    pub ca_increase: CaIncrease,
    /// What a loss halves in RFC 5681 eq. 4, at a fast retransmit and at a timeout.
    pub loss_flight: LossFlight,
    /// Linux's internal pacing (`tcp::pacing`): data segments leave at the pacing rate.
    /// Off by default; a controller that needs it (BBR) paces anyway.
    pub pacing: bool,
}

/// The flight that RFC 5681 eq. 4 halves, `ssthresh = max(flight/2, 2*SMSS)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossFlight {
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681 eq. 4,
    /// RFC 6675 §5 step 4.2).
    #[default]
    FlightSize,
    /// RFC 6675 §4's pipe (SACKed and lost-not-resent data left out), taken after the ACK
    /// that starts recovery has marked its losses, and before a timeout marks everything
    /// lost. Not what the RFCs say, but what ns-3 does with SACK: `TcpSocketBase::
    /// EnterRecovery` and `ReTxTimeout` pass `BytesInFlight()` (RFC 6675's pipe) to
    /// `GetSsThresh` (src/internet/model/tcp-socket-base.cc, ns-3.44, lines 1716-1717 and
    /// 3916, 3963). Needs SACK.
    Pipe,
}

/// The response to a retransmission timeout that F-RTO (RFC 5682) found spurious.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpuriousRtoResponse {
    /// RFC 4015 §2, the Eifel response: `cwnd = FlightSize + min(bytes_acked, IW)`,
    /// `ssthresh = pipe_prev`, the congestion controller as it was before the timeout, and
    /// the RTO re-initialised from the first sample of new data.
    #[default]
    Eifel,
    /// Linux's undo (net/ipv4/tcp_input.c, from the F-RTO rewrite of Linux 3.10 on):
    /// `tcp_process_loss` calls `tcp_try_undo_loss(sk, true)` on F-RTO's step 3b, which
    /// undoes the window reduction (`tcp_undo_cwr` in 3.10-3.13, `tcp_undo_cwnd_reduction`
    /// later): `cwnd = undo_cwnd() = max(cwnd, prior_cwnd)` (`tcp_reno_undo_cwnd`, and
    /// CUBIC's `bictcp_undo_cwnd` with `loss_cwnd` before 4.13: the same value) and
    /// `ssthresh = max(ssthresh, prior_ssthresh)`, where `tcp_enter_loss` saved
    /// `prior_cwnd = cwnd` and `prior_ssthresh = tcp_current_ssthresh()` = max(ssthresh,
    /// ¾·cwnd) in whole segments (`(cwnd >> 1) + (cwnd >> 2)`), or ssthresh during an
    /// unfinished fast recovery. The controller keeps what the timeout left it (Linux's
    /// CUBIC resets on entering Loss, `bictcp_state`), and the RTT estimator is not touched.
    LinuxUndo,
}

/// How the retransmission timeout follows the RTT samples ([`super::rtt`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoRule {
    /// RFC 6298 §2: RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)).
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c,
    /// include/net/tcp.h): RTO = SRTT + RTTVAR, where RTTVAR is four mean deviations
    /// but never below `min_rto` (tracked once per round trip), so the minimum adds to
    /// SRTT instead of bounding the sum.
    Linux,
}

/// Where an ACK's RTT sample (for the RTO estimator, [`super::rtt`]) comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RttSource {
    /// The timestamp echo of every ACK that acknowledges new data (RFC 7323 §4.1, RTTM),
    /// else, without timestamps, the send time of the newest acknowledged segment when
    /// none of them was retransmitted (Karn, RFC 6298 §3); no sample from SACK. What
    /// Linux did before 3.13 (net/ipv4/tcp_input.c `tcp_ack_update_rtt` →
    /// `tcp_ack_saw_tstamp` / `tcp_ack_no_tstamp`), and what 4.4BSD-Lite and XNU do
    /// (tcp_input.c: `tcp_xmit_timer` with `tcp_now - ts_ecr` when the ACK has a
    /// timestamp, the timed segment's `t_rtt` otherwise; XNU `tcp_compute_rtt`).
    #[default]
    TsEcrFirst,
    /// Linux 3.13 and every later kernel (net/ipv4/tcp_input.c `tcp_ack_update_rtt`,
    /// after "tcp: prefer packet timing to TS-ECR for RTT" and "tcp: measure RTT from new
    /// SACK", 3.13), in order:
    /// 1. the send time of the oldest cumulatively acknowledged segment never
    ///    retransmitted (`tcp_clean_rtx_queue`: `first_ackt`; 3.13 `seq_rtt`), none if any
    ///    segment the ACK covers was retransmitted (`FLAG_RETRANS_DATA_ACKED`, Karn);
    /// 2. else the send time of the lowest newly SACKed segment never retransmitted
    ///    (`tcp_sacktag_one`: "Pick the earliest sequence sacked for RTT"; `first_sackt`);
    ///    taken also from an ACK that acknowledges nothing new, which then restarts the
    ///    retransmission timer if that segment was sent before the first unacknowledged
    ///    one was last (re)sent (`tcp_clean_rtx_queue`'s `sack_rtt > now - head->when`);
    /// 3. else, only on an ACK of new data (`FLAG_ACKED`), the timestamp echo.
    ///
    /// The congestion controller and the delivery-rate sample get the newest such
    /// segment's time (`ca_rtt_us`: `last_ackt`, else `last_sackt`, else the echo; later
    /// kernels' `rs->rtt_us`), on ACKs of new data. Linux 3.13 times in jiffies
    /// (`tcp_time_stamp`), 3.15 on in microseconds (`skb_mstamp`); Tern in nanoseconds.
    /// 3.13 also counted an already SACKed segment in `last_ackt` and gave its controller
    /// no sample past a retransmitted one (`pkts_acked` with -1); Tern follows the later
    /// kernels there.
    PacketTimingFirst,
}

/// Segments by which the flight may fall short of cwnd and the sender still
/// count as cwnd-limited (Linux `tcp_max_tso_deferred_mss()`, which returns 3).
pub const CWND_LIMITED_SLACK_SEGMENTS: u64 = 3;

impl Default for Config {
    fn default() -> Self {
        Config {
            mss: None,
            mtu: 1500,
            cc: CcKind::NewReno,
            sack: true,
            recovery: RecoveryKind::NewReno,
            prr: false,
            timestamps: true,
            window_scale: true,
            initial_window: InitialWindow::Rfc3390,
            delayed_ack: Some(DelayedAck::default()),
            min_rto: SimTime::from_secs(1),
            rto_rule: RtoRule::Rfc6298,
            rtt_source: RttSource::TsEcrFirst,
            max_rto: SimTime::from_secs(60),
            initial_rto: SimTime::from_secs(1),
            clock_granularity: SimTime::from_millis(1),
            send_buffer: 1 << 20,
            recv_buffer: 1 << 20,
            dupack_threshold: 3,
            syn_retries: 6,
            max_retries: 15,
            time_wait: SimTime::from_secs(60),
            cubic: CubicOptions::default(),
            hystart: false,
            frto: false,
            spurious_rto_response: SpuriousRtoResponse::Eifel,
            rlci: false,
            rlci_reset_path: false,
            cwnd_limited_growth: false,
            ca_increase: CaIncrease::ByteCounting,
            loss_flight: LossFlight::FlightSize,
            pacing: false,
        }
    }
}

impl Config {
    /// The MSS we advertise: configured, or `mtu - 40` (IPv4 + TCP headers).
    pub fn own_mss(&self) -> u32 {
        self.mss
            .unwrap_or(self.mtu.saturating_sub(40))
            .clamp(1, 65535)
    }

    /// Window scale shift we offer: the smallest that lets the receive
    /// buffer fit in 16 bits, at most 14 (RFC 7323 §2.3).
    pub fn own_window_shift(&self) -> u8 {
        let mut shift = 0u8;
        while shift < 14 && (self.recv_buffer >> shift) > 65535 {
            shift += 1;
        }
        shift
    }

    /// A fresh controller of kind [`cc`](Self::cc) for sender MSS `smss`,
    /// starting from the initial window (RFC 5681 §3.1).
    pub(super) fn controller(&self, smss: u32) -> Box<dyn CongestionControl> {
        cc::new_controller(
            self.cc,
            smss,
            self.initial_window.bytes(smss),
            self.cubic,
            self.hystart,
            self.ca_increase,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_windows() {
        // RFC 3390: min(4*1460, max(2*1460, 4380)) = min(5840, 4380) = 4380 = 3 segments.
        assert_eq!(InitialWindow::Rfc3390.bytes(1460), 4380);
        // MSS 536: min(2144, max(1072, 4380)) = 2144 = 4 segments.
        assert_eq!(InitialWindow::Rfc3390.bytes(536), 2144);
        // MSS 4000: min(16000, max(8000, 4380)) = 8000 = 2 segments.
        assert_eq!(InitialWindow::Rfc3390.bytes(4000), 8000);
        assert_eq!(InitialWindow::Rfc1122.bytes(1460), 1460);
        assert_eq!(InitialWindow::Rfc2581.bytes(1460), 2920);
        assert_eq!(InitialWindow::Segments(10).bytes(1460), 14600);
    }

    #[test]
    fn mss_and_shift() {
        let c = Config::default();
        assert_eq!(c.own_mss(), 1460);
        // 1 MiB >> 4 = 65536 > 65535, >> 5 fits.
        assert_eq!(c.own_window_shift(), 5);
        let small = Config {
            recv_buffer: 65535,
            ..Config::default()
        };
        assert_eq!(small.own_window_shift(), 0);
    }
}
