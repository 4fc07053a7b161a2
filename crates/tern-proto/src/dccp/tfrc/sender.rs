//! The TFRC sender (RFC 5348 §4, and the rules of RFC 3448 §4 as a profile): the allowed
//! rate X from the equation and the receiver's feedback, slow start to the first loss,
//! the no-feedback timer, and the inter-packet interval.

use super::equation;
use crate::time::SimTime;

/// Which TFRC specification the sender follows where they differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// RFC 5348: initial rate W_init/R (§4.2), the X_recv_set and data-limited rules of
    /// §4.3, the no-feedback timer of §4.4.
    Rfc5348,
    /// RFC 3448 (the text RFC 4342 and the tfrc-handover study refer to): 1 packet/s until
    /// the first feedback, slow start X = max(min(2X, 2X_recv), s/R) (§4.3), the limit
    /// 2·X_recv of the newest feedback, and §4.4's X_recv halving.
    Rfc3448,
}

/// What the no-feedback timer does with p = 0 once feedback has given an RTT (§4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NofeedbackRule {
    /// Halve X directly, down to s/t_mbi: RFC 3448 §4.4 as amended by its verified
    /// erratum 1458 ("… or when p == 0"), and RFC 5348 §4.4 ("Else if (p == 0) … X =
    /// max(X/2, s/t_mbi)"). ns-2.35's `Agent/TFRC` (tfrc.cc, `reduce_rate_on_no_feedback`:
    /// `rate_*=0.5` whatever p) and Linux's CCID 3 from its rfc3448bis rewrite
    /// (ccid3.c, `ccid3_hc_tx_no_feedback_timer`: "halve send rate directly" when
    /// `tx_p == 0`) do the same.
    HalveRate,
    /// RFC 3448 §4.4 as published: with p = 0 (X_calc undefined, so X_calc > 2·X_recv)
    /// the cached X_recv is halved, X_recv = max(X_recv/2, s/(2·t_mbi)), and X recomputed
    /// by §4.3 step (4), which in slow start is X = max(min(2X, 2·X_recv), s/R) once R has
    /// passed since the last doubling: X does not fall below s/R while p = 0. Linux's
    /// CCID 3 before its rfc3448bis rewrite did this (`ccid3hctx_p == 0 ||` folded into
    /// the X_recv branch of `ccid3_hc_tx_no_feedback_timer`). Only in the RFC 3448 profile.
    HalveReceiveRate,
}

/// Sender settings; every default is the RFC's.
#[derive(Clone, Copy, Debug)]
pub struct SenderConfig {
    pub profile: Profile,
    /// The no-feedback timer's rule with p = 0 (§4.4): by default RFC 3448's published
    /// text in its profile, RFC 5348's (the erratum's) in RFC 5348's.
    pub nofeedback: NofeedbackRule,
    /// Segment size s in bytes (§4.1).
    pub s: u32,
    /// t_mbi, the longest interval between packets (§4.3: 64 s).
    pub t_mbi: SimTime,
    /// Packets per TCP acknowledgement b of the equation (§3.1: 1).
    pub b: f64,
    /// Lower bound of t_RTO in the equation: §3.1 says t_RTO = 4R (0 here) and allows
    /// max(4R, 1 s).
    pub min_rto: SimTime,
    /// The oscillation prevention of §4.5 (optional; ns-2's `ca_ 1`): packets are spaced
    /// by sqrt(R_sample)/R_sqmean around the allowed rate.
    pub oscillation_prevention: bool,
    /// RTTs in the no-feedback timeout max(k·R, 2s/X): §4.3 step 6's k = 4; ns-2.35's
    /// `Agent/TFRC` uses 2 (tfrc.cc, `recv` and `reduce_rate_on_no_feedback`: `t =
    /// 2*rtt_`), so it halves twice as often through an outage.
    pub nofeedback_rtts: f64,
    /// ns-2.35's rate change after the first loss event (`Agent/TFRC`, tfrc.cc,
    /// `increase_rate`: `rate_ = rate_ + (size_/rtt_)*mult` with `mult` the RTTs since the
    /// last change, at most 2, then capped by the equation's rate): while p > 0, a
    /// feedback that allows more than X raises X by at most s/R per RTT since the last
    /// change (two at most), where RFC 5348 §4.3 step (4) (RFC 3448 alike) sets X to
    /// min(X_calc, limit) at once. A decrease is immediate in both. ns-2's receive limit
    /// is never below one packet per RTT: both `increase_rate` and `decrease_rate` (with
    /// its default `maxHeavyRounds_ 0`) cap the rate at `max(maxrate_, size_/rtt_)`,
    /// `maxrate_` being 2·X_recv, so with this option the limit is max(limit, s/R), where
    /// RFC 5348 §4.3 step (4) has no such floor. ns-2's send timer goes with these rules:
    /// out of slow start a feedback does not move the packet already scheduled (`recv`
    /// calls `nextpkt()` only in slow start), and every no-feedback expiry sends a packet
    /// at once (`reduce_rate_on_no_feedback` ends in `nextpkt()`), where RFC 5348 §4.6
    /// recomputes t_ipi with every change of X. Not in any RFC; off by default.
    pub additive_increase: bool,
    /// Filter constant q of the RTT average R = q·R + (1 − q)·R_sample (§4.3 step 2: 0.9),
    /// used as well for §4.5's R_sqmean (q2 = 0.9). ns-2.35's `Agent/TFRC` smooths both
    /// with its `df_`, 0.95 by default (tfrc.cc, `update_rtt`: `rtt_ = df_*rtt_ +
    /// ((1-df_)*(now - tao))`, and `sqrtrtt_` alike; ns-default.tcl), so R follows a
    /// change of the path half as fast. Countermeasure C's gain, while it lasts, replaces
    /// 1 − q for R.
    pub rtt_filter: f64,
}

impl SenderConfig {
    pub fn new(profile: Profile, s: u32) -> Self {
        SenderConfig {
            profile,
            nofeedback: match profile {
                Profile::Rfc5348 => NofeedbackRule::HalveRate,
                Profile::Rfc3448 => NofeedbackRule::HalveReceiveRate,
            },
            s,
            t_mbi: SimTime::from_secs(64),
            b: 1.0,
            min_rto: SimTime::ZERO,
            oscillation_prevention: false,
            nofeedback_rtts: 4.0,
            additive_increase: false,
            rtt_filter: Q,
        }
    }
}

/// The sender's reading of a feedback packet (RFC 5348 §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeedbackIn {
    pub t_recvdata: SimTime,
    pub t_delay: SimTime,
    pub x_recv: f64,
    pub p: f64,
}

/// Filter constant of the RTT average (§4.3: q = 0.9) and of §4.5's R_sqmean (q2 = 0.9),
/// the default of [`SenderConfig::rtt_filter`].
pub const Q: f64 = 0.9;
/// The first no-feedback timeout, before any RTT is known (§4.2: 2 seconds).
const FIRST_NOFEEDBACK: SimTime = SimTime::from_secs(2);

/// A TFRC sender.
#[derive(Debug)]
pub struct TfrcSender {
    cfg: SenderConfig,
    /// The allowed sending rate X, bytes per second.
    x: f64,
    /// The equation's rate at the last feedback (X_calc).
    x_calc: f64,
    /// The newest receive rate reported (X_recv).
    x_recv: f64,
    /// RFC 5348's X_recv_set: (time, X_recv) of the last two RTTs, +∞ at first.
    x_recv_set: Vec<(SimTime, f64)>,
    /// The newest loss event rate reported.
    p: f64,
    /// RTT estimate R in seconds, and §4.5's R_sqmean.
    r: Option<f64>,
    r_sqmean: f64,
    /// The newest RTT sample, for §4.5's spacing.
    r_sample: f64,
    /// When X was last doubled in slow start (tld).
    tld: Option<SimTime>,
    /// When the next packet may go (t_nom of §4.6), and when the last one went.
    next_send: SimTime,
    last_sent: Option<SimTime>,
    /// When the no-feedback timer expires.
    nofeedback_at: SimTime,
    /// The sender had nothing to send at a moment it was allowed to, since the last
    /// feedback (data-limited, §4.3), and since the no-feedback timer was set (idle, §4.4).
    limited_since_feedback: bool,
    sent_since_timer: bool,
    /// Countermeasure C's RTT half ([`TfrcSender::weight_recent_rtt`]): until when, and
    /// the weight of the newest sample meanwhile.
    recent_rtt: Option<(SimTime, f64)>,
    /// Countermeasure A ([`TfrcSender::set_rate`]): when the estimate was set, until a
    /// feedback reports on a packet sent after it.
    estimate_since: Option<SimTime>,
    /// Feedback packets taken in plus no-feedback expiries: the round a data packet
    /// carries ([`TfrcSender::round`]).
    round: u64,
    /// When a feedback last set X ([`SenderConfig::additive_increase`]; ns-2's
    /// `last_change_`, which its no-feedback timer leaves as it is).
    last_change: SimTime,
}

impl TfrcSender {
    /// A sender starting at `now`: 1 packet per second (§4.2), no-feedback timer at 2 s.
    pub fn new(cfg: SenderConfig, now: SimTime) -> Self {
        TfrcSender {
            cfg,
            x: cfg.s as f64,
            x_calc: f64::INFINITY,
            x_recv: 0.0,
            x_recv_set: vec![(now, f64::INFINITY)],
            p: 0.0,
            r: None,
            r_sqmean: 0.0,
            r_sample: 0.0,
            tld: None,
            next_send: now,
            last_sent: None,
            nofeedback_at: now + FIRST_NOFEEDBACK,
            limited_since_feedback: false,
            sent_since_timer: false,
            recent_rtt: None,
            estimate_since: None,
            round: 0,
            last_change: now,
        }
    }

    /// A sender starting at `now` with an RTT sample from the connection set-up (DCCP's
    /// Request/Response): RFC 5348 §4.2 starts it at once at the initial rate W_init/R.
    /// RFC 3448 has no such rule; its profile starts at 1 packet per second all the same.
    pub fn with_rtt(cfg: SenderConfig, now: SimTime, rtt: SimTime) -> Self {
        let mut tx = TfrcSender::new(cfg, now);
        if cfg.profile == Profile::Rfc5348 {
            let r = rtt.as_secs_f64().max(1e-9);
            tx.r = Some(r);
            tx.r_sample = r;
            tx.r_sqmean = r.sqrt();
            tx.x = tx.initial_rate(r);
            tx.tld = Some(now);
        }
        tx
    }

    fn s(&self) -> f64 {
        self.cfg.s as f64
    }

    /// The sender's settings.
    pub fn config(&self) -> SenderConfig {
        self.cfg
    }

    /// The allowed sending rate X in bytes per second.
    pub fn rate(&self) -> f64 {
        self.x
    }

    /// The RTT estimate R, once a feedback gave one.
    pub fn rtt(&self) -> Option<SimTime> {
        self.r.map(|r| SimTime((r * 1e9).round() as u64))
    }

    /// The newest reported receive rate and loss event rate.
    pub fn x_recv(&self) -> f64 {
        self.x_recv
    }
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The earliest time the next packet may be sent (§4.6).
    pub fn poll_send_time(&self) -> SimTime {
        self.next_send
    }

    /// When the no-feedback timer expires (§4.4).
    pub fn poll_nofeedback_timer(&self) -> SimTime {
        self.nofeedback_at
    }

    /// A packet goes out at `now` (no earlier than [`TfrcSender::poll_send_time`]): the next may
    /// go one inter-packet interval t_ipi = s/X later (§4.6). A sender that was idle sends
    /// at once and keeps no credit, so there is no burst.
    pub fn handle_sent(&mut self, now: SimTime) {
        self.last_sent = Some(now);
        self.reschedule();
        self.sent_since_timer = true;
    }

    /// The next send time from the last one and the current rate: t_ipi follows every
    /// change of X (§4.6: t_ipi = s/X, recomputed with X).
    fn reschedule(&mut self) {
        if let Some(last) = self.last_sent {
            let t_ipi = self.s() / self.instantaneous_rate();
            self.next_send = last + SimTime(((t_ipi * 1e9).round() as u64).max(1));
        }
    }

    /// The sender was allowed to send at `now` but had no data (data-limited, §4.3 and
    /// §8.2.1).
    pub fn handle_no_data(&mut self) {
        self.limited_since_feedback = true;
    }

    /// §4.5: X_inst = X·R_sqmean/sqrt(R_sample) when oscillation prevention is on.
    fn instantaneous_rate(&self) -> f64 {
        if self.cfg.oscillation_prevention && self.r_sample > 0.0 {
            self.x * self.r_sqmean / self.r_sample.sqrt()
        } else {
            self.x
        }
    }

    /// t_RTO of the equation: max(4R, min_rto) (§3.1).
    fn t_rto(&self, r: f64) -> f64 {
        (4.0 * r).max(self.cfg.min_rto.as_secs_f64())
    }

    /// The initial rate of §4.2 after the first RTT is known: W_init/R with
    /// W_init = min(4s, max(2s, 4380)) (RFC 3390's window) in RFC 5348; s/R in RFC 3448.
    fn initial_rate(&self, r: f64) -> f64 {
        let s = self.s();
        match self.cfg.profile {
            Profile::Rfc5348 => (4.0 * s).min((2.0 * s).max(4380.0)) / r,
            Profile::Rfc3448 => s / r,
        }
    }

    /// Countermeasure A of the tfrc-handover study (Otsuka, Tamura, Ishihara, §4.5 A, after
    /// their refs. [1], [3]: "estimate the bandwidth available at the new AP and change the
    /// sending rate before the handover"; in no RFC): the allowed rate becomes `x` bytes per
    /// second (at least s/t_mbi), the next packet is spaced by the new t_ipi (§4.6), and the
    /// no-feedback timer restarts as after a feedback (§4.3 step 6). The estimate stands
    /// until the receiver reports on packets sent at it: the cached receive rate becomes
    /// X/2, so that §4.3's limit 2·X_recv (RFC 5348: 2·max(X_recv_set)) is the estimate;
    /// the last doubling is now, so that slow start does not double it within an RTT; and
    /// a feedback whose echoed packet (t_recvdata) was sent before the estimate measured
    /// the old path, or the silence of the handover, and does not lower the cached
    /// receive rate (its RTT sample and loss event rate count as usual).
    pub fn set_rate(&mut self, now: SimTime, x: f64) {
        let floor = self.s() / self.cfg.t_mbi.as_secs_f64();
        self.x = x.max(floor);
        self.x_recv = self.x / 2.0;
        self.x_recv_set = vec![(now, self.x_recv)];
        self.tld = Some(now);
        self.estimate_since = Some(now);
        self.reschedule();
        match self.r {
            Some(r) => self.restart_nofeedback(now, r),
            None => self.nofeedback_at = now + FIRST_NOFEEDBACK,
        }
    }

    /// Countermeasure C of the tfrc-handover study (§4.5 C: "for a while after the
    /// handover, make the newest observations count more"; in no RFC), the sender's half:
    /// until `now + window` the RTT average gives the newest sample the weight `gain`,
    /// R = (1 − gain)·R + gain·R_sample, instead of §4.3's 1 − q = 0.1.
    pub fn weight_recent_rtt(&mut self, now: SimTime, window: SimTime, gain: f64) {
        self.recent_rtt = Some((now + window, gain));
    }

    /// The sender's round: how many feedback packets it has taken in and how many times
    /// its no-feedback timer expired. ns-2.35's `Agent/TFRC` carries it on every data
    /// packet (tfrc.cc: `round_id`, incremented in `recv` and in
    /// `reduce_rate_on_no_feedback`) for its receiver's loss event grouping
    /// ([`super::receiver::LossGrouping::Round`]).
    pub fn round(&self) -> u64 {
        self.round
    }

    /// A feedback packet arrived (§4.3).
    pub fn handle_feedback(&mut self, now: SimTime, fb: FeedbackIn) {
        self.round += 1;
        // (1)–(2) RTT sample and its moving average (with countermeasure C's weight for a
        // while after a handover).
        let sample = now
            .saturating_sub(fb.t_recvdata)
            .saturating_sub(fb.t_delay)
            .as_secs_f64()
            .max(1e-9);
        let gain = match self.recent_rtt {
            Some((until, gain)) if now < until => gain,
            _ => 1.0 - self.cfg.rtt_filter,
        };
        let r = match self.r {
            None => sample,
            Some(r) => (1.0 - gain) * r + gain * sample,
        };
        self.r = Some(r);
        self.r_sample = sample;
        self.r_sqmean = if self.r_sqmean > 0.0 {
            let q = self.cfg.rtt_filter;
            q * self.r_sqmean + (1.0 - q) * sample.sqrt()
        } else {
            sample.sqrt()
        };
        let loss_up = fb.p > self.p;
        // ns-2 leaves slow start at the equation's rate; it increases additively only
        // after that (`rate_change_` other than SLOW_START).
        let additive = self.cfg.additive_increase && self.p > 0.0;
        self.p = fb.p;
        // Countermeasure A: a report on packets sent before the estimate keeps it.
        let before_estimate = self.estimate_since.is_some_and(|t| fb.t_recvdata < t);
        if before_estimate {
            self.x_recv = self.x_recv.max(fb.x_recv);
        } else {
            self.estimate_since = None;
            self.x_recv = fb.x_recv;
        }
        // (3) the equation, (4) the allowed rate.
        if fb.p > 0.0 {
            self.x_calc = equation::throughput(self.s(), r, fb.p, self.t_rto(r), self.cfg.b);
        }
        let limit = match self.cfg.profile {
            Profile::Rfc5348 => self.recv_limit(now, r, loss_up),
            Profile::Rfc3448 => 2.0 * self.x_recv,
        };
        // Without an earlier RTT the first feedback gives R, and with it the initial rate
        // (§4.2: slow start from 1 packet/s lands on max(2X, initial_rate)).
        self.update_rate(now, r, limit, additive);
        self.last_change = now;
        self.limited_since_feedback = false;
        // ns-2 moves its send timer at a feedback only in slow start (tfrc.cc, `recv`:
        // `nextpkt()` with flost = 0 only); out of it the packet already scheduled goes
        // at its time ([`SenderConfig::additive_increase`]).
        if !(self.cfg.additive_increase && fb.p > 0.0) {
            self.reschedule();
        }
        // (5) the no-feedback timer restarts (§4.3 step 6).
        self.restart_nofeedback(now, r);
    }

    /// §4.3 step (4), RFC 5348: the receive limit from X_recv_set, with the data-limited
    /// and loss rules.
    fn recv_limit(&mut self, now: SimTime, r: f64, loss_up: bool) -> f64 {
        if self.limited_since_feedback {
            if loss_up {
                for e in self.x_recv_set.iter_mut() {
                    e.1 /= 2.0;
                }
                self.x_recv *= 0.85;
                self.maximize_set(now);
                self.set_max()
            } else {
                self.maximize_set(now);
                2.0 * self.set_max()
            }
        } else {
            self.x_recv_set.push((now, self.x_recv));
            let horizon = SimTime(((2.0 * r) * 1e9) as u64);
            self.x_recv_set
                .retain(|&(t, _)| now.saturating_sub(t) <= horizon);
            2.0 * self.set_max()
        }
    }

    /// Maximize X_recv_set (§4.3): the set becomes the one entry max(set ∪ {X_recv}),
    /// the initial +∞ aside.
    fn maximize_set(&mut self, now: SimTime) {
        self.x_recv_set.retain(|e| e.1.is_finite());
        let max = self.x_recv_set.iter().fold(self.x_recv, |m, e| m.max(e.1));
        self.x_recv_set = vec![(now, max)];
    }

    fn set_max(&self) -> f64 {
        self.x_recv_set.iter().fold(0.0, |m, e| m.max(e.1))
    }

    /// §4.3 step (4): X = max(min(X_calc, limit), s/t_mbi) after a loss event; in slow
    /// start X doubles once per RTT up to the limit.
    /// With `additive` ([`SenderConfig::additive_increase`]) an increase is at most s/R
    /// per RTT since the last change, two at most, and the receive limit is at least s/R
    /// (tfrc.cc, `maximumrate = max(maxrate_, size_/rtt_)` in `increase_rate` and
    /// `decrease_rate`).
    fn update_rate(&mut self, now: SimTime, r: f64, limit: f64, additive: bool) {
        let floor = self.s() / self.cfg.t_mbi.as_secs_f64();
        if self.p > 0.0 {
            let limit = if additive {
                limit.max(self.s() / r)
            } else {
                limit
            };
            let target = self.x_calc.min(limit).max(floor);
            self.x = if additive && target > self.x {
                let rtts = (now.saturating_sub(self.last_change).as_secs_f64() / r).min(2.0);
                (self.x + self.s() / r * rtts).min(target)
            } else {
                target
            };
        } else if self
            .tld
            .is_none_or(|t| now.saturating_sub(t).as_secs_f64() >= r)
        {
            self.x = (2.0 * self.x).min(limit).max(self.initial_rate(r));
            self.tld = Some(now);
        }
    }

    fn restart_nofeedback(&mut self, now: SimTime, r: f64) {
        let t = (self.cfg.nofeedback_rtts * r).max(2.0 * self.s() / self.x);
        self.nofeedback_at = now + SimTime((t * 1e9).round() as u64);
        self.sent_since_timer = false;
    }

    /// The no-feedback timer expired (§4.4): the allowed rate is halved.
    pub fn handle_nofeedback_timer(&mut self, now: SimTime) {
        self.round += 1;
        let floor = self.s() / self.cfg.t_mbi.as_secs_f64();
        match (self.r, self.cfg.profile) {
            // No feedback yet: halve X; the timer restarts after max(2 s·…, 2s/X)
            // as before the first RTT.
            (None, _) => {
                self.x = (self.x / 2.0).max(floor);
                let t =
                    FIRST_NOFEEDBACK.max(SimTime((2.0 * self.s() / self.x * 1e9).round() as u64));
                self.nofeedback_at = now + t;
                self.sent_since_timer = false;
                self.reschedule();
                return;
            }
            (Some(_), _) if self.p == 0.0 && self.cfg.nofeedback == NofeedbackRule::HalveRate => {
                self.x = (self.x / 2.0).max(floor);
                self.x_recv = (self.x_recv / 2.0).max(floor / 2.0);
                for e in self.x_recv_set.iter_mut() {
                    e.1 = (e.1 / 2.0).max(floor / 2.0);
                }
            }
            (Some(r), Profile::Rfc3448) => {
                // RFC 3448 §4.4: "If the sender has been idle since this nofeedback timer
                // was set and X_recv is less than four packets per round-trip time, then
                // X_recv should not be halved in response to the timer expiration."
                let idle = !self.sent_since_timer;
                if !(idle && self.x_recv < 4.0 * self.s() / r) {
                    // Step (1); with p = 0 X_calc is undefined and the first branch applies
                    // (the published text; `NofeedbackRule::HalveReceiveRate`).
                    self.x_recv = if self.p == 0.0 || self.x_calc > 2.0 * self.x_recv {
                        (self.x_recv / 2.0).max(floor / 2.0)
                    } else {
                        self.x_calc / 4.0
                    };
                    // Step (2): X recomputed by §4.3 step (4).
                    self.update_rate(now, r, 2.0 * self.x_recv, false);
                }
            }
            (Some(r), Profile::Rfc5348) => {
                // §4.4: an idle sender whose X_recv is below four packets per RTT keeps it.
                let idle = !self.sent_since_timer;
                if !(idle && self.x_recv < 4.0 * self.s() / r) {
                    let timer_limit = if self.x_calc > 2.0 * self.x_recv {
                        self.x_recv
                    } else {
                        self.x_calc / 2.0
                    };
                    // update_limits(): at least s/t_mbi; X_recv_set = {timer_limit/2},
                    // which is X_recv at the next expiry.
                    let timer_limit = timer_limit.max(floor);
                    self.x_recv = timer_limit / 2.0;
                    self.x_recv_set = vec![(now, self.x_recv)];
                    self.update_rate(now, r, 2.0 * self.set_max(), false);
                }
            }
        }
        let r = self.r.expect("the no-RTT case returned");
        if self.cfg.additive_increase {
            // ns-2 sends a packet at every expiry (tfrc.cc, `reduce_rate_on_no_feedback`
            // ends in `nextpkt()`), the next one t_ipi after it.
            self.next_send = now;
        } else {
            self.reschedule();
        }
        self.restart_nofeedback(now, r);
    }
}

#[cfg(test)]
mod tests;
