//! The TFRC receiver (RFC 5348 §5–6): loss detection with the three-packet reordering
//! allowance, loss events, the loss interval history, and feedback once per round-trip
//! time and on each new loss event.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::equation;
use super::loss::{LossIntervals, N};
use crate::time::SimTime;

/// Packets with a higher sequence number that must arrive before a missing one counts as
/// lost (RFC 5348 §5.1, NDUPACK = 3, as in TCP).
pub const NDUPACK: u32 = 3;

/// What the receiver reads from a data packet's header (RFC 5348 §3.2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataInfo {
    pub seq: u64,
    /// The sender's timestamp (its send time).
    pub sent: SimTime,
    /// The sender's current RTT estimate R, if it has one.
    pub rtt: Option<SimTime>,
    /// Bytes that count for the receive rate (the packet's payload).
    pub size: u32,
    /// The sender sent it while its link was down during a handover (the notice of the
    /// tfrc-handover study's countermeasure B; see [`ReceiverConfig::handover_notice`]).
    pub in_handover: bool,
    /// The sender's round when it sent the packet ([`super::TfrcSender::round`]; read
    /// only with [`LossGrouping::Round`]).
    pub round: u64,
    /// DCCP's window counter CCVal (RFC 4342 §8.1), unwrapped (read only with
    /// [`LossGrouping::WindowCounter`]).
    pub ccval: u64,
}

/// Which lost packets open a new loss event (§5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossGrouping {
    /// RFC 5348 §5.2 (RFC 3448 §5.2 alike): each lost packet's time is interpolated
    /// between the arrivals around it, and it opens a new loss event if that time is more
    /// than one RTT after the current event's first loss. A hole longer than an RTT (an
    /// outage) makes one loss event per RTT it spans.
    Interpolated,
    /// ns-2.35's `TFRCSink` with `PreciseLoss_ 1` (tfrc-sink.cc, `new_loss`): as
    /// [`LossGrouping::Interpolated`], and moreover the packet whose arrival reveals the
    /// loss must carry a later sender round ([`DataInfo::round`]) than the one that
    /// opened the current event. All losses found at one arrival, a whole hole, are then
    /// one loss event, as with the window counter of DCCP's CCID 3 (RFC 4342 §10.2;
    /// Linux's `tfrc_lh_is_new_loss` groups a hole so too).
    Round,
    /// DCCP's CCID 3 (RFC 4342 §10.2, in terms of the window counter of §8.1, which the
    /// sender advances once per quarter RTT): a loss opens a new loss event only if the
    /// last packet received before it carries a window counter more than 4 (one RTT) above
    /// that of the last packet before the current event's first loss. Every loss of one
    /// hole shares that packet, so a hole is one loss event. Linux's CCID 3 does the same
    /// (loss_interval.c, `tfrc_lh_is_new_loss`: `SUB16(ccval, li_ccval) > 4`); the counter
    /// is carried unwrapped here, so no mod-16 wrap can alias a long silence.
    WindowCounter,
}

/// A feedback packet's contents (RFC 5348 §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// Timestamp of the last data packet received (t_recvdata).
    pub t_recvdata: SimTime,
    /// Time between that packet's arrival and this feedback (t_delay).
    pub t_delay: SimTime,
    /// Receive rate, bytes per second (X_recv; over which interval: [`ReceiveRate`]).
    pub x_recv: f64,
    /// Loss event rate (p), 0 before the first loss event.
    pub p: f64,
    /// Closed loss intervals the receiver holds (for RFC 4342's Loss Intervals option).
    pub intervals: usize,
}

/// Over which interval the receiver measures the receive rate X_recv it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveRate {
    /// The bytes received since the last feedback, over the time since then: DCCP's
    /// Receive Rate option (RFC 4342 §8.3, "the rate at which the receiver has received
    /// data since it last sent an acknowledgement"). After a silence the first report
    /// averages over the silence. Linux's CCID 3 (ccid3.c, `ccid3_hc_rx_send_feedback`:
    /// `rx_bytes_recv` over the time since `rx_tstamp_last_feedback`) and ns-2.35's
    /// TFRCSink (tfrc-sink.cc, `est_thput`, once an RTT has passed since the last report)
    /// measure it so too.
    SinceFeedback,
    /// The bytes received within the most recent R_m seconds, over R_m, R_m being the
    /// sender's RTT carried by the newest packet: TFRC's X_recv (RFC 5348 §6.2 step 2,
    /// RFC 3448 §6.2 alike).
    LastRtt,
    /// ns-2.35's TFRCSink (tfrc-sink.cc, `est_thput`): the packets received since the last
    /// report over the time since then once at least one RTT has passed, else those that
    /// arrived within one RTT before the newest arrival, over that RTT.
    SinceFeedbackOrLastRtt,
    /// Linux's CCID 3 (net/dccp/ccids/ccid3.c, `ccid3_hc_rx_send_feedback`, from its
    /// rfc3448bis rewrite to its removal): as [`ReceiveRate::SinceFeedback`], except that a
    /// feedback sent because a new loss event was found (`CCID3_FBACK_PARAM_CHANGE`, which
    /// `ccid3_hc_rx_packet_recv` raises when `tfrc_rx_handle_loss` adds a loss interval)
    /// reports the X_recv stored at the previous feedback unchanged ("we do not have a
    /// reliable estimate for R_m … and so need to reuse the previous value"); only when
    /// that is 0 does it measure the bytes since the last feedback. Either way the
    /// measurement restarts there: the bytes and the time since the last feedback are
    /// dropped. (Linux raises the same feedback when I_mean falls without a new loss event,
    /// `tfrc_lh_update_i_mean`; with §5.4's larger-of-two mean a growing I_0 never lowers
    /// it, so only a new loss event does.)
    LinuxCcid3,
}

/// Receiver settings.
#[derive(Clone, Copy, Debug)]
pub struct ReceiverConfig {
    /// The interval X_recv is measured over.
    pub receive_rate: ReceiveRate,
    /// Segment size s used for the synthetic first loss interval (§6.3.1).
    pub s: f64,
    /// History discounting of §5.5.
    pub discounting: bool,
    /// Later arrivals that make a missing packet lost: [`NDUPACK`] in the RFC (ns-2's
    /// receiver uses 1, its `numPkts_`).
    pub ndupack: u32,
    /// Countermeasure B of the tfrc-handover study (Otsuka, Tamura, Ishihara, §4.5 B: "tell
    /// the receiver of the handover; it leaves pre-handover and during-handover
    /// observations out of its feedback"). Not in any RFC; off by default. The notice is
    /// [`DataInfo::in_handover`]: packets so marked are left out of every observation
    /// (receive rate, loss detection, the timestamp echoed for the RTT), and the first
    /// unmarked packet after them starts the observations afresh, as for a new
    /// connection (§6.3: answered at once; no loss history, so no loss before it counts).
    pub handover_notice: bool,
    /// Countermeasure C of the tfrc-handover study (§4.5 C: "for a while after the
    /// handover, make the newest observations count more"), the receiver's half: for
    /// `window` after the handover the loss event rate averages only the newest
    /// `intervals` loss intervals with §5.4's weights for that n. Not in any RFC; `None`
    /// (off) by default. The handover ends, for the receiver, at the first packet without
    /// the notice ([`DataInfo::in_handover`]) after packets with it.
    pub recent: Option<Recent>,
    /// Which lost packets open a new loss event.
    pub grouping: LossGrouping,
    /// How the first loss interval is made when the first loss event is found.
    pub first_interval: FirstInterval,
}

/// The first loss interval, the one closed by the first loss event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FirstInterval {
    /// RFC 5348 §6.3.1 (RFC 3448 §6.3.1 alike): synthesized, the interval whose loss
    /// event rate gives by the equation the receive rate X_recv at the first loss event
    /// ([`TfrcReceiver`]'s `synthetic_interval`). Linux's CCID 3 (ccid3.c,
    /// `ccid3_first_li`), ns-2.35's TFRCSink by default (`AdjustHistoryAfterSS_ 1`,
    /// tfrc-sink.cc `adjust_history`) and KAME's DCCP (dccp_tfrc.c,
    /// `tfrc_recv_calcFirstLI`) do so.
    #[default]
    Synthesized,
    /// Counted, as every later interval is (§5.3), from the flow's first packet: the
    /// packets from the first one received through the first lost one,
    /// S_loss − S_first + 1, as if a loss event had come just before the flow. ns-2.35's
    /// TFRCSink with `AdjustHistoryAfterSS_ 0` (tfrc-sink.cc, `est_loss_WALI`: without
    /// `adjust_history` its first sample counts every sequence number from 0, its flows'
    /// first, through the first lost packet). A flow without loss before a long outage
    /// then brings its whole history as the first interval.
    Counted,
}

/// Countermeasure C's receiver settings ([`ReceiverConfig::recent`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recent {
    /// How long after the handover the short history is used.
    pub window: SimTime,
    /// Loss intervals averaged meanwhile, 1 to [`N`] (the RFC's n = 8 changes nothing).
    pub intervals: usize,
}

/// The open loss event: the sequence number and estimated time of its first loss.
#[derive(Clone, Copy, Debug)]
struct Event {
    seq: u64,
    at: SimTime,
    /// The round of the arrival that revealed it ([`LossGrouping::Round`]).
    round: u64,
    /// The window counter of the last packet received before it
    /// ([`LossGrouping::WindowCounter`]).
    ccval: u64,
}

/// A TFRC receiver.
#[derive(Debug)]
pub struct TfrcReceiver {
    cfg: ReceiverConfig,
    /// Arrival times of the received packets that loss detection and interpolation may
    /// still need (from just below the lowest undecided gap up).
    /// With each, its window counter ([`DataInfo::ccval`]).
    arrivals: BTreeMap<u64, (SimTime, u64)>,
    /// Missing sequence numbers not yet decided (fewer than NDUPACK later arrivals).
    gaps: BTreeSet<u64>,
    highest: Option<u64>,
    event: Option<Event>,
    intervals: LossIntervals,
    /// The sender's RTT from the newest data packet.
    rtt: Option<SimTime>,
    /// Timestamp and arrival of the newest data packet.
    last: Option<(SimTime, SimTime)>,
    bytes_since_feedback: u64,
    /// Arrival time and size of the packets of about the last R_m ([`ReceiveRate::LastRtt`]).
    window: VecDeque<(SimTime, u32)>,
    last_feedback: Option<SimTime>,
    /// The receive rate the last feedback reported.
    last_x_recv: f64,
    /// When the feedback timer of §6.2 expires.
    feedback_at: Option<SimTime>,
    /// Loss events detected so far.
    pub loss_events: u64,
    /// Packets detected lost so far.
    pub lost: u64,
    /// A packet marked as sent during a handover arrived, and no unmarked one since
    /// (countermeasures B and C).
    in_handover: bool,
    /// Until when countermeasure C's short history is used.
    recent_until: Option<SimTime>,
    /// Sequence number of the first packet received ([`FirstInterval::Counted`]).
    first_seq: Option<u64>,
}

impl TfrcReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        TfrcReceiver {
            cfg,
            arrivals: BTreeMap::new(),
            gaps: BTreeSet::new(),
            highest: None,
            event: None,
            intervals: LossIntervals::new(cfg.discounting),
            rtt: None,
            last: None,
            bytes_since_feedback: 0,
            window: VecDeque::new(),
            last_feedback: None,
            last_x_recv: 0.0,
            feedback_at: None,
            loss_events: 0,
            lost: 0,
            in_handover: false,
            recent_until: None,
            first_seq: None,
        }
    }

    /// The handover notice: whether the packet is left out (countermeasure B,
    /// [`ReceiverConfig::handover_notice`]), and at the first packet after a handover B's
    /// fresh start (the counters and the sender's RTT estimate, carried by every packet,
    /// are kept) and C's window ([`ReceiverConfig::recent`]).
    fn handover(&mut self, now: SimTime, d: &DataInfo) -> bool {
        if d.in_handover {
            self.in_handover = true;
            return self.cfg.handover_notice;
        }
        if self.in_handover {
            self.in_handover = false;
            if self.cfg.handover_notice {
                let (loss_events, lost, rtt) = (self.loss_events, self.lost, self.rtt);
                *self = TfrcReceiver::new(self.cfg);
                (self.loss_events, self.lost, self.rtt) = (loss_events, lost, rtt);
            }
            self.recent_until = self.cfg.recent.map(|r| now + r.window);
        }
        false
    }

    /// Loss intervals averaged at `now`: §5.4's n = 8, or countermeasure C's shorter
    /// history within its window after a handover.
    fn history_len(&self, now: SimTime) -> usize {
        match (self.cfg.recent, self.recent_until) {
            (Some(r), Some(until)) if now < until => r.intervals,
            _ => N,
        }
    }

    /// A data packet arrived. Feedback is sent at once for the first packet (§6.3), on a
    /// new loss event (§6.1), and while the feedback timer does not run (no RTT estimate
    /// from the sender yet) for every packet.
    pub fn handle_data(&mut self, now: SimTime, d: DataInfo) -> Option<Feedback> {
        if d.rtt.is_some() {
            self.rtt = d.rtt;
        }
        if self.handover(now, &d) {
            return None;
        }
        let first = self.highest.is_none();
        if first {
            self.first_seq = Some(d.seq);
        }
        let duplicate = self.arrivals.contains_key(&d.seq)
            || self
                .highest
                .is_some_and(|h| d.seq <= h && !self.gaps.contains(&d.seq));
        if duplicate {
            return None;
        }
        self.bytes_since_feedback += d.size as u64;
        if !self.since_feedback() {
            self.window.push_back((now, d.size));
            self.trim_window(now);
        }
        if self.last.is_none_or(|(sent, _)| d.sent >= sent) {
            self.last = Some((d.sent, now));
        }
        self.arrivals.insert(d.seq, (now, d.ccval));
        let before = self.highest;
        match self.highest {
            Some(h) if d.seq > h => {
                self.gaps.extend(h + 1..d.seq);
                self.highest = Some(d.seq);
            }
            Some(_) => {
                self.gaps.remove(&d.seq);
            }
            None => self.highest = Some(d.seq),
        }
        let new_event = self.detect_losses(now, d.round, before);
        self.prune();
        if first || new_event || self.feedback_at.is_none() {
            Some(self.feedback(now, new_event && !first))
        } else {
            None
        }
    }

    /// Gaps with NDUPACK later arrivals are lost (§5.1); each lost packet's time is
    /// interpolated from its neighbours' arrivals (§5.2), and it opens a new loss event
    /// unless it falls within one RTT of the current event's first loss (or, grouped by
    /// round, the arrival at `round` revealing it is no later than the current event's).
    /// `before`: the highest sequence number received before this arrival, which bounds
    /// the open interval I_0 whose discount factor a new loss event retains (§5.5).
    /// Whether a new loss event began.
    fn detect_losses(&mut self, now: SimTime, round: u64, before: Option<u64>) -> bool {
        let mut new_event = false;
        while let Some(&gap) = self.gaps.first() {
            if self.arrivals.range(gap + 1..).count() < self.cfg.ndupack as usize {
                break;
            }
            self.gaps.pop_first();
            self.lost += 1;
            let at = self.loss_time(gap);
            let ccval = self
                .arrivals
                .range(..gap)
                .next_back()
                .map_or(0, |(_, &(_, c))| c);
            let same = match (self.event, self.rtt, self.cfg.grouping) {
                (Some(e), _, LossGrouping::WindowCounter) => ccval <= e.ccval + 4,
                (Some(e), Some(r), LossGrouping::Round) => at <= e.at + r || round <= e.round,
                (Some(e), Some(r), LossGrouping::Interpolated) => at <= e.at + r,
                _ => false,
            };
            if same {
                continue;
            }
            new_event = true;
            self.loss_events += 1;
            // §5.5: "the previous discount factor DF", the one of the last arrival before
            // this one, whose I_0 ran from the event's first loss to `before`.
            let i0 = match (self.event, before) {
                (Some(e), Some(b)) if b >= e.seq => (b - e.seq + 1) as f64,
                _ => 0.0,
            };
            match self.event {
                Some(e) => self.intervals.close((gap - e.seq) as f64, i0),
                None => self.intervals.close(self.first_interval(now, gap), i0),
            }
            self.event = Some(Event {
                seq: gap,
                at,
                round,
                ccval,
            });
        }
        new_event
    }

    /// §5.2: T_loss = T_before + (T_after − T_before)·(S_loss − S_before)/(S_after − S_before).
    fn loss_time(&self, seq: u64) -> SimTime {
        let after = self.arrivals.range(seq + 1..).next();
        let before = self.arrivals.range(..seq).next_back();
        match (before, after) {
            (Some((&sb, &(tb, _))), Some((&sa, &(ta, _)))) => {
                let span = ta.saturating_sub(tb).as_nanos() as u128;
                let part = span * (seq - sb) as u128 / (sa - sb) as u128;
                tb + SimTime(part as u64)
            }
            (None, Some((_, &(ta, _)))) => ta,
            _ => unreachable!("a gap has later arrivals"),
        }
    }

    /// The first loss interval, closed by the loss event whose first lost packet is `gap`
    /// ([`FirstInterval`]).
    fn first_interval(&self, now: SimTime, gap: u64) -> f64 {
        match (self.cfg.first_interval, self.first_seq) {
            // Every gap lies above the first packet received (gaps open above the highest).
            (FirstInterval::Counted, Some(first)) => (gap.saturating_sub(first) + 1) as f64,
            _ => self.synthetic_interval(now),
        }
    }

    /// §6.3.1: the first loss interval is the one whose loss event rate gives, by the
    /// equation with t_RTO = 4R and b = 1, the receive rate X_recv measured at the first
    /// loss event by the rule of [`ReceiveRate`]. Since the last feedback (DCCP's CCID 3,
    /// RFC 4342 §8.3 as Linux implements it, ccid3.c `ccid3_first_li`): the bytes received
    /// since the last feedback over the time since then, and only when that is zero the
    /// X_recv the last feedback reported (here also when no time has passed since the
    /// feedback, where Linux divides by at least 1 µs). Over the last R_m (RFC 5348 §6.3.1, "the receive
    /// rate over the most recent round-trip time") and by ns-2's `est_thput` (tfrc-sink.cc,
    /// `adjust_history`), [`TfrcReceiver::receive_rate`] itself. Without an RTT or any
    /// rate, one packet.
    fn synthetic_interval(&self, now: SimTime) -> f64 {
        let r = self.rtt.map_or(0.0, SimTime::as_secs_f64);
        let x_recv = match self.receive_rate(now) {
            x if x > 0.0 => x,
            _ if self.since_feedback() => self.last_x_recv,
            _ => 0.0,
        };
        if r <= 0.0 || x_recv <= 0.0 {
            return 1.0;
        }
        let p = equation::loss_rate_for(x_recv, self.cfg.s, r, 4.0 * r, 1.0);
        1.0 / p
    }

    /// The receive rate X_recv at `now`, bytes per second ([`ReceiveRate`]); 0 before the
    /// first feedback (§6.3: the first packet is answered with X_recv = 0).
    fn receive_rate(&self, now: SimTime) -> f64 {
        let Some(t) = self.last_feedback else {
            return 0.0;
        };
        let last_rtt = |r: SimTime, end: SimTime| {
            let from = end.saturating_sub(r);
            let bytes: u64 = self
                .window
                .iter()
                .filter(|&&(at, _)| at > from && at <= end)
                .map(|&(_, size)| u64::from(size))
                .sum();
            bytes as f64 / r.as_secs_f64()
        };
        match (self.cfg.receive_rate, self.rtt) {
            (ReceiveRate::LastRtt, Some(r)) if r > SimTime::ZERO => last_rtt(r, now),
            (ReceiveRate::SinceFeedbackOrLastRtt, Some(r))
                if r > SimTime::ZERO && now.saturating_sub(t) < r =>
            {
                let newest = self.window.back().map_or(now, |&(at, _)| at);
                last_rtt(r, newest)
            }
            _ if now > t => self.bytes_since_feedback as f64 / (now - t).as_secs_f64(),
            _ => 0.0,
        }
    }

    /// X_recv is measured since the last feedback alone ([`ReceiveRate::SinceFeedback`] and
    /// [`ReceiveRate::LinuxCcid3`]).
    fn since_feedback(&self) -> bool {
        matches!(
            self.cfg.receive_rate,
            ReceiveRate::SinceFeedback | ReceiveRate::LinuxCcid3
        )
    }

    /// Drops from the receive-rate window the arrivals older than R_m.
    fn trim_window(&mut self, now: SimTime) {
        if let Some(r) = self.rtt {
            let from = now.saturating_sub(r);
            while self.window.front().is_some_and(|&(at, _)| at <= from) {
                self.window.pop_front();
            }
        }
    }

    /// Drops arrivals no gap can need: below the predecessor of the lowest gap.
    fn prune(&mut self) {
        let keep_from = match self.gaps.first() {
            Some(&g) => self.arrivals.range(..g).next_back().map_or(g, |(&s, _)| s),
            None => self.highest.unwrap_or(0),
        };
        self.arrivals = self.arrivals.split_off(&keep_from);
    }

    /// The open interval I_0: packets since the current loss event's first loss.
    fn open_interval(&self) -> f64 {
        match (self.event, self.highest) {
            (Some(e), Some(h)) => (h - e.seq + 1) as f64,
            _ => 0.0,
        }
    }

    /// The highest sequence number received.
    pub fn highest(&self) -> Option<u64> {
        self.highest
    }

    /// The current loss event rate p (§5.4, n = 8).
    pub fn loss_event_rate(&self) -> f64 {
        self.intervals.loss_event_rate(self.open_interval(), N)
    }

    /// The loss event rate p the receiver reports at `now` (§5.4; within countermeasure
    /// C's window over its shorter history).
    pub fn loss_event_rate_at(&self, now: SimTime) -> f64 {
        let n = self.history_len(now);
        self.intervals.loss_event_rate(self.open_interval(), n)
    }

    /// The average loss interval I_mean in packets, before the first loss event `None`.
    pub fn mean_loss_interval(&self) -> Option<f64> {
        self.intervals.mean(self.open_interval())
    }

    /// Builds a feedback packet and restarts the feedback timer (§6.2); `new_loss`: it is
    /// sent because a new loss event was found (§6.1), which [`ReceiveRate::LinuxCcid3`]
    /// answers with the stored X_recv.
    fn feedback(&mut self, now: SimTime, new_loss: bool) -> Feedback {
        let (sent, arrived) = self.last.expect("feedback follows data");
        let keep = new_loss && self.cfg.receive_rate == ReceiveRate::LinuxCcid3;
        let x_recv = match self.last_x_recv {
            x if keep && x > 0.0 => x,
            _ => self.receive_rate(now),
        };
        let fb = Feedback {
            t_recvdata: sent,
            t_delay: now.saturating_sub(arrived),
            x_recv,
            p: self.loss_event_rate_at(now),
            intervals: self.intervals.len(),
        };
        self.bytes_since_feedback = 0;
        self.last_feedback = Some(now);
        self.last_x_recv = fb.x_recv;
        self.feedback_at = self.rtt.map(|r| now + r);
        fb
    }

    /// When the feedback timer expires, if it runs.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.feedback_at
    }

    /// The feedback timer expired (§6.2): feedback if data arrived since the last one,
    /// and the timer restarts after the sender's RTT either way.
    pub fn handle_timeout(&mut self, now: SimTime) -> Option<Feedback> {
        if self.feedback_at.is_none_or(|t| now < t) {
            return None;
        }
        let fresh = self
            .last
            .is_some_and(|(_, at)| Some(at) > self.last_feedback)
            && self.bytes_since_feedback > 0;
        if fresh {
            Some(self.feedback(now, false))
        } else {
            self.feedback_at = self.rtt.map(|r| now + r);
            None
        }
    }
}

#[cfg(test)]
mod tests;
