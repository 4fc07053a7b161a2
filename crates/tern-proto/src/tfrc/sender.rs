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

/// Filter constant of the RTT average (§4.3: q = 0.9) and of §4.5's R_sqmean (q2 = 0.9).
const Q: f64 = 0.9;
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
    pub fn next_send(&self) -> SimTime {
        self.next_send
    }

    /// When the no-feedback timer expires (§4.4).
    pub fn nofeedback_at(&self) -> SimTime {
        self.nofeedback_at
    }

    /// A packet goes out at `now` (no earlier than [`TfrcSender::next_send`]): the next may
    /// go one inter-packet interval t_ipi = s/X later (§4.6). A sender that was idle sends
    /// at once and keeps no credit, so there is no burst.
    pub fn on_send(&mut self, now: SimTime) {
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
    pub fn on_no_data(&mut self) {
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

    /// A feedback packet arrived (§4.3).
    pub fn on_feedback(&mut self, now: SimTime, fb: FeedbackIn) {
        // (1)–(2) RTT sample and its moving average (with countermeasure C's weight for a
        // while after a handover).
        let sample = now
            .saturating_sub(fb.t_recvdata)
            .saturating_sub(fb.t_delay)
            .as_secs_f64()
            .max(1e-9);
        let gain = match self.recent_rtt {
            Some((until, gain)) if now < until => gain,
            _ => 1.0 - Q,
        };
        let r = match self.r {
            None => sample,
            Some(r) => (1.0 - gain) * r + gain * sample,
        };
        self.r = Some(r);
        self.r_sample = sample;
        self.r_sqmean = if self.r_sqmean > 0.0 {
            Q * self.r_sqmean + (1.0 - Q) * sample.sqrt()
        } else {
            sample.sqrt()
        };
        let loss_up = fb.p > self.p;
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
        self.update_rate(now, r, limit);
        self.limited_since_feedback = false;
        self.reschedule();
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
    fn update_rate(&mut self, now: SimTime, r: f64, limit: f64) {
        let floor = self.s() / self.cfg.t_mbi.as_secs_f64();
        if self.p > 0.0 {
            self.x = self.x_calc.min(limit).max(floor);
        } else if self
            .tld
            .is_none_or(|t| now.saturating_sub(t).as_secs_f64() >= r)
        {
            self.x = (2.0 * self.x).min(limit).max(self.initial_rate(r));
            self.tld = Some(now);
        }
    }

    fn restart_nofeedback(&mut self, now: SimTime, r: f64) {
        let t = (4.0 * r).max(2.0 * self.s() / self.x);
        self.nofeedback_at = now + SimTime((t * 1e9).round() as u64);
        self.sent_since_timer = false;
    }

    /// The no-feedback timer expired (§4.4): the allowed rate is halved.
    pub fn on_nofeedback(&mut self, now: SimTime) {
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
                // RFC 3448 §4.4 step (1); with p = 0 X_calc is undefined and the first
                // branch applies (the published text; `NofeedbackRule::HalveReceiveRate`).
                self.x_recv = if self.p == 0.0 || self.x_calc > 2.0 * self.x_recv {
                    (self.x_recv / 2.0).max(floor / 2.0)
                } else {
                    self.x_calc / 4.0
                };
                // Step (2): X recomputed by §4.3 step (4).
                self.update_rate(now, r, 2.0 * self.x_recv);
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
                    self.update_rate(now, r, 2.0 * self.set_max());
                }
            }
        }
        let r = self.r.expect("the no-RTT case returned");
        self.reschedule();
        self.restart_nofeedback(now, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A sender of 1000-byte segments starting at 0.
    fn sender(profile: Profile) -> TfrcSender {
        TfrcSender::new(SenderConfig::new(profile, 1000), SimTime::ZERO)
    }

    /// Feedback at `at_ms` echoing the data packet sent 100 ms before (R_sample = 100 ms).
    fn feed(tx: &mut TfrcSender, at_ms: u64, x_recv: f64, p: f64) {
        let info = FeedbackIn {
            t_recvdata: SimTime((at_ms - 100) * MS),
            t_delay: SimTime::ZERO,
            x_recv,
            p,
        };
        tx.on_feedback(SimTime(at_ms * MS), info);
    }

    /// A sender after its first feedback (R = 100 ms) and a first loss report of p = 1 %.
    fn after_first_loss(profile: Profile) -> TfrcSender {
        let mut tx = sender(profile);
        feed(&mut tx, 100, 0.0, 0.0);
        feed(&mut tx, 200, 1e6, 0.01);
        tx
    }

    /// §4.2: one packet per second before any feedback, the no-feedback timer at 2 s
    /// halving it, and W_init/R = min(4s, max(2s, 4380))/R at the first feedback:
    /// 4000 B / 0.1 s = 40 000 B/s for s = 1000.
    #[test]
    fn starts_slowly_then_at_the_initial_window() {
        let mut tx = sender(Profile::Rfc5348);
        assert_eq!(tx.rate(), 1000.0);
        tx.on_send(SimTime::ZERO);
        assert_eq!(tx.next_send(), SimTime::from_secs(1));
        assert_eq!(tx.nofeedback_at(), SimTime::from_secs(2));
        feed(&mut tx, 100, 0.0, 0.0);
        assert_eq!(tx.rtt(), Some(SimTime(100 * MS)));
        assert_eq!(tx.rate(), 40_000.0);
        // The next packet follows the new rate: 1000 B at 40 000 B/s, 25 ms after the first.
        assert_eq!(tx.next_send(), SimTime(25 * MS));
        // RFC 3448: s/R = 10 000 B/s.
        let mut old = sender(Profile::Rfc3448);
        feed(&mut old, 100, 0.0, 0.0);
        assert_eq!(old.rate(), 10_000.0);
    }

    /// §4.3: slow start doubles X at most once per RTT, up to twice the receive rate.
    #[test]
    fn slow_start_doubles_per_rtt_up_to_twice_x_recv() {
        let mut tx = sender(Profile::Rfc5348);
        feed(&mut tx, 100, 0.0, 0.0);
        feed(&mut tx, 150, 40_000.0, 0.0);
        assert_eq!(
            tx.rate(),
            40_000.0,
            "less than one RTT since the last doubling"
        );
        feed(&mut tx, 200, 40_000.0, 0.0);
        assert_eq!(tx.rate(), 80_000.0);
        feed(&mut tx, 300, 30_000.0, 0.0);
        // X_recv_set holds 40 000 (from 200 ms, within 2 RTTs): the limit is 80 000.
        assert_eq!(tx.rate(), 80_000.0);
    }

    /// §4.3 after a loss: X = min(X_calc, 2·X_recv); X_calc by §3.1 for R = 100 ms,
    /// p = 1 %, t_RTO = 4R is 112 332 B/s.
    #[test]
    fn rate_follows_the_equation() {
        let mut tx = after_first_loss(Profile::Rfc3448);
        assert!((tx.rate() - 112_332.2).abs() < 0.1, "{}", tx.rate());
        feed(&mut tx, 300, 40_000.0, 0.01);
        assert_eq!(tx.rate(), 80_000.0, "capped at 2·X_recv");
    }

    /// §4.4: without feedback the timer halves X each time, down to s/t_mbi, restarting
    /// after max(4R, 2s/X).
    #[test]
    fn nofeedback_timer_halves_the_rate() {
        let mut tx = after_first_loss(Profile::Rfc3448);
        let x = tx.rate();
        // 4R = 0.4 s > 2s/X = 17.8 ms.
        assert_eq!(tx.nofeedback_at(), SimTime(600 * MS));
        tx.on_send(SimTime(210 * MS));
        tx.on_nofeedback(SimTime(600 * MS));
        // X_calc (112 332) < 2·X_recv (2e6): RFC 3448 sets X_recv = X_calc/4, X = 2·X_recv.
        assert!((tx.rate() - x / 2.0).abs() < 1e-6, "{} vs {x}", tx.rate());
        assert_eq!(tx.nofeedback_at(), SimTime(1000 * MS));
        for k in 0..40 {
            tx.on_nofeedback(SimTime((1400 + 400 * k) * MS));
        }
        assert_eq!(tx.rate(), 1000.0 / 64.0, "s/t_mbi");
    }

    /// §4.4 with p = 0, RFC 3448 as published against its erratum 1458. A sender in slow
    /// start (R = 100 ms, s = 1000 B) at X = 40 000 B/s after reports of X_recv = 10 000
    /// and 20 000 B/s. Published text: each expiry halves X_recv (20 000 → 10 000 → 5000
    /// → 2500) and recomputes X = max(min(2X, 2·X_recv), s/R): 20 000, then 10 000 = s/R,
    /// where it stays. Erratum 1458 (and RFC 5348): X halves at each expiry, 40 000/2^k,
    /// down to s/t_mbi = 15.625 B/s. The timer runs max(4R, 2s/X): expiries at 0.7, 1.1,
    /// 1.5 and 1.9 s in both; the next at 2.3 s with X = s/R, at 2.7 s with X = 2500 B/s.
    #[test]
    fn nofeedback_with_no_loss_published_text_and_erratum() {
        let story = |rule: NofeedbackRule| {
            let cfg = SenderConfig {
                nofeedback: rule,
                ..SenderConfig::new(Profile::Rfc3448, 1000)
            };
            let mut tx = TfrcSender::new(cfg, SimTime::ZERO);
            feed(&mut tx, 100, 0.0, 0.0);
            feed(&mut tx, 200, 10_000.0, 0.0);
            feed(&mut tx, 300, 20_000.0, 0.0);
            assert_eq!(tx.rate(), 40_000.0);
            assert_eq!(tx.nofeedback_at(), SimTime(700 * MS));
            let mut rates = vec![];
            for _ in 0..4 {
                let at = tx.nofeedback_at();
                tx.on_send(at);
                tx.on_nofeedback(at);
                rates.push((tx.rate(), tx.x_recv()));
            }
            let next = tx.nofeedback_at();
            for _ in 0..40 {
                let at = tx.nofeedback_at();
                tx.on_nofeedback(at);
            }
            (rates, next, tx.rate())
        };
        let (published, next, last) = story(NofeedbackRule::HalveReceiveRate);
        assert_eq!(next, SimTime(2300 * MS));
        assert_eq!(
            published,
            [
                (20_000.0, 10_000.0),
                (10_000.0, 5000.0),
                (10_000.0, 2500.0),
                (10_000.0, 1250.0)
            ]
        );
        assert_eq!(last, 10_000.0, "s/R while p = 0");
        let (erratum, next, last) = story(NofeedbackRule::HalveRate);
        let x: Vec<f64> = erratum.iter().map(|e| e.0).collect();
        assert_eq!(x, [20_000.0, 10_000.0, 5000.0, 2500.0]);
        assert_eq!(next, SimTime(2700 * MS), "1.9 s + 2s/X = 0.8 s");
        assert_eq!(last, 1000.0 / 64.0, "s/t_mbi");
        assert_eq!(
            SenderConfig::new(Profile::Rfc3448, 1000).nofeedback,
            NofeedbackRule::HalveReceiveRate
        );
        assert_eq!(
            SenderConfig::new(Profile::Rfc5348, 1000).nofeedback,
            NofeedbackRule::HalveRate
        );
    }

    /// §4.4 in RFC 5348, the same halving through update_limits(X_calc/2).
    #[test]
    fn nofeedback_timer_rfc5348() {
        let mut tx = after_first_loss(Profile::Rfc5348);
        let x = tx.rate();
        tx.on_send(SimTime(210 * MS));
        tx.on_nofeedback(SimTime(600 * MS));
        assert!((tx.rate() - x / 2.0).abs() < 1e-6, "{} vs {x}", tx.rate());
        // A sender that kept sending is halved again at the next expiry (X_recv is now
        // X_calc/4, below X_calc/2)…
        tx.on_send(SimTime(700 * MS));
        let next = tx.nofeedback_at();
        tx.on_nofeedback(next);
        assert!((tx.rate() - x / 4.0).abs() < 1e-6, "{} vs {x}", tx.rate());
        // …but an idle one whose X_recv is below 4 packets per RTT (40 000 B/s) is not.
        let next = tx.nofeedback_at();
        tx.on_nofeedback(next);
        assert!((tx.rate() - x / 4.0).abs() < 1e-6, "{} vs {x}", tx.rate());
    }

    /// §4.2: with an RTT from the set-up the sender starts at W_init/R at once (4000 B over
    /// 40 ms = 100 000 B/s); the first feedback averages R (0.9·40 + 0.1·100 = 46 ms) and,
    /// reporting X_recv = 0 while the initial +∞ of X_recv_set is older than 2R, limits slow
    /// start to the initial rate of the new R: X = max(min(2X, 0), W_init/R) (§4.3).
    /// RFC 3448 starts at 1 packet/s.
    #[test]
    fn starts_at_the_initial_window_with_a_setup_rtt() {
        let cfg = SenderConfig::new(Profile::Rfc5348, 1000);
        let mut tx = TfrcSender::with_rtt(cfg, SimTime::ZERO, SimTime(40 * MS));
        assert_eq!(tx.rate(), 100_000.0);
        assert_eq!(tx.rtt(), Some(SimTime(40 * MS)));
        feed(&mut tx, 100, 0.0, 0.0);
        assert_eq!(tx.rtt(), Some(SimTime(46 * MS)));
        assert!((tx.rate() - 4000.0 / 0.046).abs() < 1e-6, "{}", tx.rate());
        let cfg = SenderConfig::new(Profile::Rfc3448, 1000);
        let old = TfrcSender::with_rtt(cfg, SimTime::ZERO, SimTime(40 * MS));
        assert_eq!(old.rate(), 1000.0);
    }

    /// Before any feedback the timer halves the 1 packet/s rate (§4.2, §4.4).
    #[test]
    fn nofeedback_before_any_feedback() {
        let mut tx = sender(Profile::Rfc5348);
        tx.on_nofeedback(SimTime::from_secs(2));
        assert_eq!(tx.rate(), 500.0);
        // 2s/X = 4 s now exceeds 2 s.
        assert_eq!(tx.nofeedback_at(), SimTime::from_secs(6));
    }

    /// Countermeasure C's RTT half, as a story: R = 100 ms from the first feedback; the
    /// handover's held packets then give a sample of 2.1 s. With §4.3's q = 0.9 the
    /// estimate becomes 0.9·0.1 + 0.1·2.1 = 0.3 s and, with samples of 100 ms after it,
    /// decays by a tenth of the excess per feedback: 0.28 s at the next. With a gain of
    /// 0.5 for 1 s after the handover: 0.5·0.1 + 0.5·2.1 = 1.1 s, then 0.6 s, then (the
    /// window over, 1 s after it began) 0.9·0.6 + 0.1·0.1 = 0.55 s.
    #[test]
    fn recent_rtt_samples_weigh_more_for_a_while() {
        let at = |tx: &mut TfrcSender, at_ms: u64, sample_ms: u64| {
            let info = FeedbackIn {
                t_recvdata: SimTime((at_ms - sample_ms) * MS),
                t_delay: SimTime::ZERO,
                x_recv: 1e5,
                p: 0.01,
            };
            tx.on_feedback(SimTime(at_ms * MS), info);
            tx.rtt().unwrap().as_secs_f64()
        };
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        let mut rfc = sender(Profile::Rfc3448);
        at(&mut rfc, 100, 100);
        close(at(&mut rfc, 2400, 2100), 0.3);
        close(at(&mut rfc, 2500, 100), 0.28);
        let mut c = sender(Profile::Rfc3448);
        at(&mut c, 100, 100);
        c.weight_recent_rtt(SimTime(2300 * MS), SimTime::from_secs(1), 0.5);
        close(at(&mut c, 2400, 2100), 1.1);
        close(at(&mut c, 2500, 100), 0.6);
        close(at(&mut c, 3400, 100), 0.55);
    }

    /// Countermeasure A after the handover: the sender of [`set_rate_from_an_estimate`]
    /// set to 47 500 B/s at 2010 ms. The first feedback, at 2041 ms, echoes a packet sent
    /// at 1990 ms (before the estimate) and reports X_recv = 212.5 B/s, the rate averaged
    /// over the silence (1.7 kbit/s): it measured the old path, so the cached X_recv stays
    /// at 47 500/2 and X = min(X_calc, 2·X_recv) = 47 500 (X_calc at R = 0.9·100 + 0.1·51 =
    /// 95.1 ms is above 112 332). Without the estimate the same report gives 2·212.5 = 425
    /// B/s. The next feedback, at 2100 ms, echoes a packet sent at 2050 ms at the new rate
    /// and reports 40 000 B/s: X = min(X_calc, 80 000) = 80 000 (X_calc at R = 90.59 ms is
    /// 112 332·0.1/0.09059 ≈ 124 000, t_RTO = 4R scaling with R).
    #[test]
    fn estimate_stands_until_reports_on_its_packets() {
        let fb = |t_recvdata_ms: u64, x_recv: f64| FeedbackIn {
            t_recvdata: SimTime(t_recvdata_ms * MS),
            t_delay: SimTime::ZERO,
            x_recv,
            p: 0.01,
        };
        let throttled = || {
            let mut tx = after_first_loss(Profile::Rfc3448);
            for k in 0..4 {
                tx.on_nofeedback(SimTime((600 + 400 * k) * MS));
            }
            tx.on_send(SimTime(2000 * MS));
            tx
        };
        let mut a = throttled();
        a.set_rate(SimTime(2010 * MS), 47_500.0);
        a.on_feedback(SimTime(2041 * MS), fb(1990, 212.5));
        assert!((a.rtt().unwrap().as_secs_f64() - 0.0951).abs() < 1e-9);
        assert_eq!(a.rate(), 47_500.0);
        assert_eq!(a.x_recv(), 23_750.0);
        a.on_feedback(SimTime(2100 * MS), fb(2050, 40_000.0));
        assert_eq!(a.rate(), 80_000.0);
        assert_eq!(a.x_recv(), 40_000.0);
        let mut none = throttled();
        none.on_feedback(SimTime(2041 * MS), fb(1990, 212.5));
        assert_eq!(none.rate(), 425.0);
        // RFC 5348's limit from X_recv_set: the estimate's entry, within 2R, holds it too.
        let mut b = after_first_loss(Profile::Rfc5348);
        b.set_rate(SimTime(2010 * MS), 47_500.0);
        b.on_feedback(SimTime(2041 * MS), fb(1990, 212.5));
        assert_eq!(b.rate(), 47_500.0);
    }

    /// Countermeasure A, as a story: a sender throttled by four no-feedback expiries to
    /// 112 332/16 = 7021 B/s is set to an estimate of 47 500 B/s: X is the estimate, the
    /// next packet goes s/X = 21.05 ms after the last one, and the no-feedback timer runs
    /// max(4R, 2s/X) = 0.4 s from now; an estimate below s/t_mbi gives s/t_mbi.
    #[test]
    fn set_rate_from_an_estimate() {
        let mut tx = after_first_loss(Profile::Rfc3448);
        for k in 0..4 {
            tx.on_nofeedback(SimTime((600 + 400 * k) * MS));
        }
        assert!((tx.rate() - 112_332.2 / 16.0).abs() < 0.1, "{}", tx.rate());
        tx.on_send(SimTime(2000 * MS));
        tx.set_rate(SimTime(2010 * MS), 47_500.0);
        assert_eq!(tx.rate(), 47_500.0);
        assert_eq!(tx.next_send(), SimTime(2000 * MS + 21_052_632));
        assert_eq!(tx.nofeedback_at(), SimTime(2410 * MS));
        tx.set_rate(SimTime(2010 * MS), 1.0);
        assert_eq!(tx.rate(), 1000.0 / 64.0);
    }
}
