//! A sans-IO TCP endpoint (RFC 9293) with RFC 6298 timers, RFC 5681 /
//! RFC 6582 / RFC 9438 congestion control, RFC 2018 / RFC 6675 SACK
//! recovery and RFC 7323 window scaling and timestamps.
//!
//! Payload is abstract: segments carry byte counts and the application
//! side works with counts ([`Connection::write`], [`Connection::read`]).
//!
//! Module map: [`wire`] (segments, sequence numbers, option sizes),
//! [`config`], [`rtt`] (RFC 6298), `recovery` (NewReno vs SACK recovery
//! strategy; the congestion controllers are in [`crate::cc`]),
//! `scoreboard` (retransmission queue, RFC 6675 pipe / IsLost), `send` and
//! `recv` (buffers, reassembly, delayed ACK), `report` (the [`Event`]s and
//! [`Stats`] a connection reports), `input`, `output`, `timers`
//! (the [`Connection`] state machine split by direction), `frto` (RFC 5682
//! spurious-timeout detection with the RFC 4015 response, off by default:
//! [`Config::frto`]), `rlci` (response to lower-layer connectivity-change
//! indications, draft-schuetz-tcpm-tcp-rlci, off by default: [`Config::rlci`]), [`rate`]
//! (delivery-rate samples, draft-cheng-iccrg-delivery-rate-estimation, for a controller that
//! asks, [`crate::cc::CongestionControl::wants_rate_samples`], or a pacing connection),
//! `pacing` (Linux's internal pacing: a timer holds data segments; off by default,
//! [`Config::pacing`], on whatever it says for a controller that needs it, as BBR).

pub mod config;
mod delack;
mod frto;
mod input;
mod output;
mod pacing;
mod prr;
pub mod rate;
mod recovery;
mod recv;
mod report;
mod rlci;
pub mod rtt;
mod rtt_sample;
mod scoreboard;
mod send;
mod timers;
pub mod wire;

use std::collections::VecDeque;
use std::sync::Arc;

pub use config::{
    CcKind, Config, DelayedAck, DelayedAckRule, InitialWindow, LossFlight, RtoRule, RttSource,
    SpuriousRtoResponse,
};
pub use recovery::RecoveryKind;
pub use report::{Event, RetransmitKind, Stats};
pub use wire::{Flags, SackBlocks, Segment, SeqNum, TcpOptions, MAX_SACK_BLOCKS};

use delack::AckPolicy;
use recovery::Recovery;
use recv::RecvBuf;
use rtt::RttEstimator;
use scoreboard::Scoreboard;
use send::SendBuf;

use crate::cc::CongestionControl;
use crate::time::SimTime;

/// Connection states (RFC 9293 §3.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl State {
    /// States after the handshake in which sequence numbers are synchronized.
    pub fn is_synchronized(self) -> bool {
        !matches!(
            self,
            State::Closed | State::Listen | State::SynSent | State::SynReceived
        )
    }
}

/// One TCP endpoint.
///
/// # Driving a connection
///
/// The connection never reads a clock; every call that depends on time
/// takes `now`, which must never decrease. After creating it and after
/// **every** call to [`handle_segment`](Self::handle_segment),
/// [`handle_timeout`](Self::handle_timeout), [`write`](Self::write),
/// [`read`](Self::read), [`close`](Self::close) or
/// [`on_connectivity`](Self::on_connectivity), the driver must:
///
/// 1. call [`poll_transmit`](Self::poll_transmit) until it returns `None`,
///    sending each segment;
/// 2. drain [`poll_event`](Self::poll_event);
/// 3. re-read [`poll_timeout`](Self::poll_timeout) and call
///    [`handle_timeout`](Self::handle_timeout) once that time is reached
///    (calling it early or spuriously is harmless).
///
/// `poll_transmit` returning `None` means "nothing more right now" (window
/// or cwnd limited, or idle); new sending opportunities only arise from the
/// calls above.
///
/// # Layout
///
/// In the order written (`repr(C)`), by how often a segment touches a field: first what
/// every segment and poll reads or writes, then a receiver's, then a sender's, then what
/// rarely changes. With many flows each segment finds its connection out of the caches,
/// so the cost of a segment is the number of distinct cache lines it touches; Rust's own
/// order (by alignment) spread those over all 13 lines of the connection
/// (benches/RESULTS.md, "A connection's hot fields first").
#[derive(Debug)]
#[repr(C)]
pub struct Connection {
    // Read or written by every segment and every poll, sender or receiver: the first lines.
    /// Latest time seen, for calls that take no `now`.
    now: SimTime,
    /// Shared with the other connections of the same configuration (a world of many flows
    /// then reads one copy, which stays in cache, instead of one per connection).
    cfg: Arc<Config>,
    cc: Box<dyn CongestionControl>,
    /// Delivery-rate estimation and pacing, when the controller wants samples or the
    /// connection paces; one pointer, `None` in a connection that does neither.
    sampling: Option<Box<Sampling>>,
    rst_reply: Option<Box<Segment>>,
    tw_deadline: Option<SimTime>,
    rto_deadline: Option<SimTime>,
    persist_deadline: Option<SimTime>,
    /// Payload bytes per segment (effective send MSS minus fixed options).
    smss: u32,
    dupacks: u32,
    ts_recent: u32,
    local_port: u16,
    remote_port: u16,
    state: State,
    snd_wscale: u8,
    rcv_wscale: u8,
    in_recovery: bool,
    /// Conventional RTO recovery (go-back-N in slow start) is under way; it
    /// ends once `recover` is acknowledged (RFC 5682 §2 step 1 asks).
    rto_recovery: bool,
    ws_ok: bool,
    sack_ok: bool,
    ts_ok: bool,
    /// SYN (active) or SYN-ACK (passive) waiting to be (re)sent.
    syn_pending: bool,
    force_retx: bool,
    probe_pending: bool,
    /// Whether [`Event::CwndChanged`] and [`Event::RttUpdated`], which nearly every ACK
    /// brings, are queued ([`Connection::set_cwnd_rtt_events`]).
    cwnd_rtt_events: bool,
    send: SendBuf,
    snd_wnd: u64,
    max_snd_wnd: u64,
    /// SND.WL1 as a peer-side offset (signed: may precede RCV.NXT).
    snd_wl1: i64,
    snd_wl2: u64,
    /// RCV.NXT carried by the last segment we sent (RFC 7323 §4.3).
    last_ack_sent: u64,
    /// Right edge of the window we last advertised.
    adv_right: u64,
    /// `recover` / RecoveryPoint (RFC 6582 §3.2, RFC 6675 §5) as an offset.
    recover: u64,
    events: VecDeque<Event>,
    ack: AckPolicy,
    stats: Stats,

    // A receiver's.
    recv: RecvBuf,

    // A sender's.
    sb: Scoreboard,
    recovery: Recovery,
    /// F-RTO in progress after a timeout (RFC 5682), if enabled; boxed, like the other
    /// states of rare episodes here, so that what every segment touches packs into fewer
    /// cache lines.
    frto: Option<Box<frto::Frto>>,
    /// Pending RTO re-initialisation of the Eifel response (RFC 4015 §2).
    eifel_rto: Option<Box<frto::EifelRto>>,
    rto_retries: u32,
    rtt: RttEstimator,

    // Set up once, or read in rare episodes (handshake, zero window, report of a change).
    iss: u32,
    irs: u32,
    syn_retries: u32,
    persist_backoff: u32,
    syn_sent_at: Option<SimTime>,
    last_cc: (u64, u64, Option<u64>),
}

/// What a connection that samples delivery rates, or paces, keeps: boxed apart from the
/// [`Connection`], whose cache lines then hold what every connection touches.
#[derive(Debug, Default)]
struct Sampling {
    /// Delivery-rate estimation (`rate`).
    sampler: rate::RateSampler,
    /// Internal pacing (`pacing`), when configured or the controller needs it.
    pacer: Option<pacing::Pacer>,
    /// When the pacer lets held data go.
    pacing_deadline: Option<SimTime>,
    /// The RTT sample of the ACK being processed, and the smallest seen.
    ack_rtt: Option<SimTime>,
    min_rtt: Option<SimTime>,
}

impl Connection {
    fn new(cfg: Arc<Config>, isn: u32, state: State, now: SimTime) -> Self {
        let smss = cfg.own_mss();
        let mut cc = cfg.controller(smss);
        cc.reseed(u64::from(isn));
        let paces = cfg.pacing || cc.needs_pacing();
        let samples = paces || cc.wants_rate_samples();
        // A controller that sets the window from rate samples (Linux's `cong_control`)
        // replaces PRR (`tcp_cong_control`).
        let prr = cfg.prr && !cc.wants_rate_samples();
        let mut sb = Scoreboard::default();
        if samples {
            sb.set_sampling();
        }
        Connection {
            state,
            iss: isn,
            irs: 0,
            local_port: 0,
            remote_port: 0,
            now,
            send: SendBuf::new(cfg.send_buffer),
            recv: RecvBuf::new(cfg.recv_buffer),
            ack: AckPolicy::new(cfg.delayed_ack, smss),
            sb,
            rtt: RttEstimator::of(&cfg),
            cc,
            recovery: Recovery::new(false, cfg.recovery, prr),
            in_recovery: false,
            recover: 0,
            dupacks: 0,
            rto_recovery: false,
            frto: None,
            eifel_rto: None,
            smss,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            snd_wscale: 0,
            rcv_wscale: 0,
            ws_ok: false,
            sack_ok: false,
            ts_ok: false,
            ts_recent: 0,
            last_ack_sent: 0,
            adv_right: 0,
            syn_pending: state == State::SynSent,
            syn_sent_at: None,
            syn_retries: 0,
            force_retx: false,
            probe_pending: false,
            rst_reply: None,
            rto_deadline: None,
            rto_retries: 0,
            persist_deadline: None,
            persist_backoff: 0,
            tw_deadline: None,
            events: VecDeque::new(),
            cwnd_rtt_events: true,
            last_cc: (0, 0, None),
            sampling: samples.then(|| {
                Box::new(Sampling {
                    pacer: paces.then(pacing::Pacer::default),
                    ..Sampling::default()
                })
            }),
            stats: Stats::default(),
            cfg,
        }
    }

    /// Active open: the SYN is emitted by the next `poll_transmit`.
    pub fn connect(cfg: impl Into<Arc<Config>>, isn: u32, now: SimTime) -> Connection {
        Connection::new(cfg.into(), isn, State::SynSent, now)
    }

    /// Passive open: waits for a SYN.
    pub fn listen(cfg: impl Into<Arc<Config>>, isn: u32) -> Connection {
        Connection::new(cfg.into(), isn, State::Listen, SimTime::ZERO)
    }

    /// Sets the ports used in emitted segments (a listener learns the remote
    /// port, and its local port if 0, from the SYN).
    pub fn with_ports(mut self, local: u16, remote: u16) -> Self {
        self.local_port = local;
        self.remote_port = remote;
        self
    }

    /// Appends `bytes` to the send stream; returns how many fit into the
    /// send buffer. Nothing is accepted after [`close`](Self::close).
    pub fn write(&mut self, bytes: u64) -> u64 {
        let n = self.send.write(bytes);
        self.update_persist(self.now);
        n
    }

    /// Queues a FIN after all written data (RFC 9293 §3.10.4).
    pub fn close(&mut self) {
        match self.state {
            State::Listen | State::SynSent => self.set_state(State::Closed),
            State::Established => {
                self.send.fin_queued = true;
                self.set_state(State::FinWait1);
            }
            State::CloseWait => {
                self.send.fin_queued = true;
                self.set_state(State::LastAck);
            }
            // SYN-RECEIVED: FIN goes out once established.
            _ => self.send.fin_queued = true,
        }
    }

    /// Consumes up to `max` in-order bytes. Freeing buffer space sends a
    /// window update when the right edge can move by at least
    /// min(buffer/2, MSS) (receiver SWS avoidance, RFC 9293 §3.8.6.2.2)
    /// and the window at least doubles (as Linux does); smaller updates
    /// ride on the next ACK.
    pub fn read(&mut self, max: u64) -> u64 {
        let n = self.recv.read(max);
        if n > 0 && self.state.is_synchronized() && !self.recv.fin_done() {
            let threshold = (self.cfg.recv_buffer / 2).min(u64::from(self.cfg.own_mss()));
            let edge = self.advertised_right_edge();
            let nxt = self.recv.rcv_nxt();
            let offered = self.adv_right.saturating_sub(nxt);
            if edge >= self.adv_right + threshold && edge - nxt >= 2 * offered {
                self.ack.ack_now = true;
            }
        }
        n
    }

    /// In-order bytes ready for [`read`](Self::read).
    pub fn readable(&self) -> u64 {
        self.recv.readable()
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// The peer's FIN has been received (end of the inbound stream).
    pub fn peer_closed(&self) -> bool {
        self.recv.fin_done()
    }

    /// Effective congestion window in bytes (NewReno inflation and
    /// deflation included, never below one segment).
    pub fn cwnd(&self) -> u64 {
        (self.cc.cwnd() as i64 + self.recovery.inflation()).max(i64::from(self.smss)) as u64
    }

    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }

    /// The pacing rate in bytes per second, when the connection paces and has one.
    pub fn pacing_rate(&self) -> Option<u64> {
        self.pacer().and_then(|p| p.rate())
    }

    /// The pacer, when the connection paces.
    fn pacer(&self) -> Option<&pacing::Pacer> {
        self.sampling.as_deref().and_then(|s| s.pacer.as_ref())
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }

    pub fn rttvar(&self) -> SimTime {
        self.rtt.rttvar()
    }

    /// Current retransmission timeout, back-off included.
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }

    /// RFC 6675 `pipe`: bytes believed in flight.
    pub fn bytes_in_flight(&self) -> u64 {
        self.sb.pipe()
    }

    /// Payload bytes per full-sized segment.
    pub fn smss(&self) -> u32 {
        self.smss
    }

    /// Peer's send window in bytes (scaled).
    pub fn send_window(&self) -> u64 {
        self.snd_wnd
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Whether SACK / timestamps were negotiated.
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }

    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }

    /// Bytes written but not yet acknowledged by the peer.
    pub fn unacked_bytes(&self) -> u64 {
        self.send.fin_offset().saturating_sub(self.send.snd_una)
    }

    /// Offsets of a segment this endpoint sent, for time-sequence traces:
    /// its sequence number counted from our ISS and its acknowledgment
    /// number from the peer's (the SYN is offset 0, the first data byte 1),
    /// unwrapped around the current send and receive points (RFC 9293 §3.4
    /// sequence arithmetic). The acknowledgment is `None` without ACK flag.
    pub fn sent_offsets(&self, seg: &Segment) -> (u64, Option<u64>) {
        let una = self.send.snd_una;
        let seq = unwrap_offset(una, self.local_seq(una), seg.seq).max(0) as u64;
        let ack = seg.flags.ack.then(|| {
            let nxt = self.recv.rcv_nxt();
            unwrap_offset(nxt, self.remote_seq(nxt), seg.ack).max(0) as u64
        });
        (seq, ack)
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.bytes_delivered = self.recv.delivered();
        s
    }

    /// Whether [`Event::CwndChanged`] and [`Event::RttUpdated`] are queued (by default
    /// they are): a driver that records neither turns them off, and the connection then
    /// neither reads its congestion controller nor writes its event queue for them on
    /// every ACK. Set it before the first segment: the window reported last is not kept
    /// while they are off.
    pub fn set_cwnd_rtt_events(&mut self, on: bool) {
        self.cwnd_rtt_events = on;
    }

    /// Next trace record.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// True when [`Self::poll_event`] has an event to return: lets a caller skip the
    /// draining call on the common path, where nothing is queued.
    #[inline]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    fn set_state(&mut self, s: State) {
        if self.state != s {
            self.state = s;
            self.events.push_back(Event::StateChanged(s));
            if s == State::Closed {
                self.rto_deadline = None;
                self.persist_deadline = None;
                self.tw_deadline = None;
                self.ack.on_ack_sent();
            }
        }
    }

    fn abort(&mut self) {
        self.events.push_back(Event::Aborted);
        self.set_state(State::Closed);
    }

    /// Emits `CwndChanged` when the effective window, ssthresh or pacing rate moved.
    fn report_cc(&mut self) {
        if !self.cwnd_rtt_events {
            return;
        }
        let now = (self.cwnd(), self.ssthresh(), self.pacing_rate());
        if now != self.last_cc {
            self.last_cc = now;
            self.events.push_back(Event::CwndChanged {
                cwnd: now.0,
                ssthresh: now.1,
                pacing_rate: now.2,
            });
        }
    }

    /// Emits `RttUpdated` after RTT sample `r` was taken.
    fn report_rtt(&mut self, r: SimTime) {
        if self.cwnd_rtt_events {
            self.events.push_back(Event::RttUpdated {
                srtt: self.rtt.srtt().unwrap_or(r),
                rttvar: self.rtt.rttvar(),
                rto: self.rtt.rto(),
            });
        }
    }

    /// Our sequence number for a local offset.
    fn local_seq(&self, off: u64) -> SeqNum {
        SeqNum(self.iss) + off as u32
    }

    /// The peer's sequence number for a remote offset.
    fn remote_seq(&self, off: u64) -> SeqNum {
        SeqNum(self.irs) + off as u32
    }

    /// Local offset of an acknowledgment number, relative to SND.UNA.
    fn unwrap_local(&self, seq: SeqNum) -> i64 {
        unwrap_offset(self.send.snd_una, self.local_seq(self.send.snd_una), seq)
    }

    /// Remote offset of a peer sequence number, relative to RCV.NXT.
    fn unwrap_remote(&self, seq: SeqNum) -> i64 {
        let nxt = self.recv.rcv_nxt();
        unwrap_offset(nxt, self.remote_seq(nxt), seq)
    }

    /// TSval clock: milliseconds (RFC 7323 §5.4), offset by the ISN so each
    /// connection starts at a different value.
    fn ts_now(&self, now: SimTime) -> u32 {
        ((now.0 / 1_000_000) as u32).wrapping_add(self.iss)
    }

    /// Right edge of the window we would advertise now.
    fn advertised_right_edge(&self) -> u64 {
        let wnd = (self.recv.window() >> self.rcv_wscale).min(65535);
        self.recv.rcv_nxt() + (wnd << self.rcv_wscale)
    }
}

/// The offset of `seq`, given that `base_seq` is the sequence number of
/// offset `base` (RFC 1982 serial-number distance, so `seq` may lie up to
/// 2^31 either side).
fn unwrap_offset(base: u64, base_seq: SeqNum, seq: SeqNum) -> i64 {
    base as i64 + i64::from(seq.diff(base_seq))
}

#[cfg(test)]
mod tests;
