//! When the receiver acknowledges: RFC 1122 §4.2.3.2 / RFC 5681 §4.2's fixed delayed-ACK
//! timer, or Linux's adaptive one.
//!
//! # Linux's rule ([`DelayedAckRule::Linux`])
//!
//! After net/ipv4/tcp_input.c and tcp_output.c, Linux 3.10-3.13 (unchanged in what is
//! modelled here up to 4.x). Per connection the receiver keeps the ACK timeout `ato`, the
//! time of the last in-order data (`lrcvtime`), the count of quick ACKs still owed
//! (`quick`), the interactive flag (`pingpong`), the estimated peer segment size
//! (`rcv_mss`) and whether a segment shorter than it arrived since the last ACK
//! (`ICSK_ACK_PUSHED`).
//!
//! - In-order data (`tcp_event_data_recv`): `tcp_measure_rcv_mss` first; then, on the
//!   first data, `tcp_incr_quickack` and `ato = TCP_ATO_MIN` (40 ms); later, with `m` the
//!   time since `lrcvtime`: `m ≤ 20 ms` ⇒ `ato = ato/2 + 20 ms`; `m < ato` ⇒ `ato =
//!   min(ato/2 + m, rto)`; `m > rto` ⇒ `tcp_incr_quickack`. Then `lrcvtime = now`.
//! - `tcp_incr_quickack`: `quick = max(quick, min(rcv_wnd / (2·rcv_mss) or 2 if that is 0,
//!   TCP_MAX_QUICKACKS = 16))`. `tcp_enter_quickack_mode` (out-of-order data, a duplicate
//!   or out-of-window segment, `tcp_data_queue`): that, `pingpong = 0`, `ato = 40 ms`.
//! - `__tcp_ack_snd_check`: ACK now when more than one full frame (`rcv_nxt − rcv_wup >
//!   rcv_mss`) is unacknowledged, or in quick-ACK mode (`quick > 0 && !pingpong`);
//!   otherwise `tcp_send_delayed_ack`: if `ato > TCP_DELACK_MIN` (40 ms) it is bounded by
//!   `max_ato` = 500 ms (HZ/2), or TCP_DELACK_MAX (200 ms, `max_delay`) when `pingpong`
//!   or PUSHED, and by `max(srtt, 40 ms)` once an RTT is known; a pending timer that
//!   expires within `ato/4` sends the ACK now, and a pending earlier deadline is kept.
//! - The delayed-ACK timer (`tcp_delack_timer_handler`): `ato = min(2·ato, rto)` if not
//!   `pingpong`, else `pingpong = 0, ato = 40 ms`; the ACK goes out.
//! - Every segment carrying an ACK (`tcp_event_ack_sent` → `tcp_dec_quickack_mode`, one
//!   packet per segment): `quick −= 1`, and when it reaches 0, `ato = 40 ms`; the timer
//!   and PUSHED are cleared (`inet_csk_clear_xmit_timer`).
//! - Data sent within `ato` of `lrcvtime` (`tcp_event_data_sent`) sets `pingpong`.
//!
//! Not modelled: the ACK that `tcp_cleanup_rbuf` sends when the application reads a short
//! segment (Tern's applications read at once, and the segments of its studies are full or
//! PUSHED only between full ones), the window-advance condition of `__tcp_ack_snd_check`
//! (the right edge is taken to advance: applications read at once), ECN's CE-triggered
//! quick ACKs (`TCP_ECN_check_ce`; Tern's TCP does not negotiate ECN), and jiffies (times
//! are exact).

use super::config::{DelayedAck, DelayedAckRule};
use crate::time::SimTime;

/// TCP_ATO_MIN = TCP_DELACK_MIN = HZ/25 (include/net/tcp.h).
pub const TCP_ATO_MIN: SimTime = SimTime::from_millis(40);
/// The bound on `ato` outside interactive mode: `HZ / 2` (tcp_send_delayed_ack).
const MAX_ATO_BULK: SimTime = SimTime::from_millis(500);
/// TCP_MAX_QUICKACKS (include/net/tcp.h).
pub const TCP_MAX_QUICKACKS: u32 = 16;
/// TCP_MSS_DEFAULT (include/net/tcp.h): the initial `rcv_mss` bound
/// (`tcp_initialize_rcv_mss`) and, with a TCP header, the smallest size
/// `tcp_measure_rcv_mss` adopts from two equal short segments.
const TCP_MSS_DEFAULT: u32 = 536;
/// The TCP header without options (`sizeof(struct tcphdr)`).
const TCP_HDR: u32 = 20;

/// What the connection knows when a segment arrives or a timer fires.
#[derive(Clone, Copy, Debug)]
pub struct RecvCtx {
    /// Smoothed RTT, once measured (`tp->srtt`).
    pub srtt: Option<SimTime>,
    /// Current retransmission timeout (`icsk_rto`).
    pub rto: SimTime,
    /// The window last advertised (`tp->rcv_wnd`), bytes.
    pub rcv_wnd: u64,
}

/// Linux's receiver state (see the module docs).
#[derive(Clone, Debug)]
struct LinuxAto {
    /// `icsk_ack.ato`; zero before the first data.
    ato: SimTime,
    lrcvtime: SimTime,
    quick: u32,
    pingpong: bool,
    /// `ICSK_ACK_PUSHED`.
    pushed: bool,
    rcv_mss: u32,
    /// `icsk_ack.last_seg_size`: a short segment's size with its header.
    last_seg_size: u32,
}

/// Delayed-ACK bookkeeping. Call order: [`on_in_order_segment`](Self::on_in_order_segment)
/// or [`on_out_of_order`](Self::on_out_of_order) per data segment received, then
/// [`on_ack_sent`](Self::on_ack_sent) for each segment that carries the ACK,
/// [`on_timeout`](Self::on_timeout) when [`deadline`](Self::deadline) passes, and
/// [`on_data_sent`](Self::on_data_sent) for each data segment sent.
#[derive(Clone, Debug)]
pub struct AckPolicy {
    cfg: Option<DelayedAck>,
    linux: Option<Box<LinuxAto>>,
    /// In-order segments received since the last ACK we sent.
    unacked_segs: u32,
    /// In-order bytes received since the last ACK we sent (`rcv_nxt − rcv_wup`).
    unacked_bytes: u64,
    /// Delayed-ACK deadline.
    pub deadline: Option<SimTime>,
    /// An ACK must go out with the next transmission opportunity.
    pub ack_now: bool,
}

impl AckPolicy {
    /// `mss` is our own MSS: Linux's `rcv_mss` starts at min(it, 536)
    /// (`tcp_initialize_rcv_mss`).
    pub fn new(cfg: Option<DelayedAck>, mss: u32) -> Self {
        let linux = cfg.filter(|c| c.rule == DelayedAckRule::Linux).map(|_| {
            Box::new(LinuxAto {
                ato: SimTime::ZERO,
                lrcvtime: SimTime::ZERO,
                quick: 0,
                pingpong: false,
                pushed: false,
                rcv_mss: mss.clamp(1, TCP_MSS_DEFAULT),
                last_seg_size: 0,
            })
        });
        AckPolicy {
            cfg,
            linux,
            unacked_segs: 0,
            unacked_bytes: 0,
            deadline: None,
            ack_now: false,
        }
    }

    /// An in-order data segment of `len` payload bytes arrived. RFC 1122's rule: ACK
    /// every `every`-th segment, otherwise within `max_delay`; Linux's: the module docs.
    pub fn on_in_order_segment(&mut self, now: SimTime, len: u32, ctx: RecvCtx) {
        let Some(cfg) = self.cfg else {
            self.ack_now = true;
            return;
        };
        self.unacked_segs += 1;
        self.unacked_bytes += u64::from(len);
        let Some(l) = self.linux.as_deref_mut() else {
            if self.unacked_segs >= cfg.every {
                self.ack_now = true;
            } else if self.deadline.is_none() {
                self.deadline = Some(now + cfg.max_delay);
            }
            return;
        };
        l.data_recv(now, len, ctx);
        let full = self.unacked_bytes > u64::from(l.rcv_mss);
        if full || (l.quick > 0 && !l.pingpong) {
            self.ack_now = true;
            return;
        }
        // tcp_send_delayed_ack
        let mut ato = l.ato;
        if ato > TCP_ATO_MIN {
            let mut max_ato = if l.pingpong || l.pushed {
                cfg.max_delay
            } else {
                MAX_ATO_BULK
            };
            if let Some(srtt) = ctx.srtt {
                max_ato = max_ato.min(srtt.max(TCP_ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        let mut timeout = now + ato;
        if let Some(d) = self.deadline {
            if d <= now + SimTime::from_nanos(ato.as_nanos() / 4) {
                self.ack_now = true;
                return;
            }
            timeout = timeout.min(d);
        }
        self.deadline = Some(timeout);
    }

    /// Out-of-order, duplicate or out-of-window data: an immediate ACK, and Linux's
    /// `tcp_enter_quickack_mode`.
    pub fn on_out_of_order(&mut self, ctx: RecvCtx) {
        self.ack_now = true;
        if let Some(l) = self.linux.as_deref_mut() {
            l.incr_quickack(ctx.rcv_wnd);
            l.pingpong = false;
            l.ato = TCP_ATO_MIN;
        }
    }

    /// Delayed-ACK timer fired (`tcp_delack_timer_handler` for Linux's rule).
    pub fn on_timeout(&mut self, now: SimTime, rto: SimTime) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.deadline = None;
            self.ack_now = true;
            if let Some(l) = self.linux.as_deref_mut() {
                if l.pingpong {
                    l.pingpong = false;
                    l.ato = TCP_ATO_MIN;
                } else {
                    l.ato = l.ato.saturating_mul(2).min(rto);
                }
            }
        }
    }

    /// Any segment carrying our current ACK was sent (`tcp_event_ack_sent`).
    pub fn on_ack_sent(&mut self) {
        self.unacked_segs = 0;
        self.unacked_bytes = 0;
        self.deadline = None;
        self.ack_now = false;
        if let Some(l) = self.linux.as_deref_mut() {
            l.pushed = false;
            if l.quick > 0 {
                l.quick -= 1;
                if l.quick == 0 {
                    l.ato = TCP_ATO_MIN;
                }
            }
        }
    }

    /// A data segment left (`tcp_event_data_sent`): a reply within `ato` of the last data
    /// received makes Linux's receiver interactive (`pingpong`).
    #[inline]
    pub fn on_data_sent(&mut self, now: SimTime) {
        if let Some(l) = self.linux.as_deref_mut() {
            if now.saturating_sub(l.lrcvtime) < l.ato {
                l.pingpong = true;
            }
        }
    }

    /// Linux's current `ato`, quick-ACK count and `pingpong`.
    #[cfg(test)]
    fn linux_state(&self) -> Option<(SimTime, u32, bool)> {
        self.linux.as_deref().map(|l| (l.ato, l.quick, l.pingpong))
    }
}

impl LinuxAto {
    /// `tcp_measure_rcv_mss`, then the ato update of `tcp_event_data_recv`.
    fn data_recv(&mut self, now: SimTime, len: u32, ctx: RecvCtx) {
        let lss = self.last_seg_size;
        self.last_seg_size = 0;
        if len >= self.rcv_mss {
            self.rcv_mss = len;
        } else {
            // With its header (options left out), as `skb->len` plus the header length.
            let with_hdr = len + TCP_HDR;
            let adopted = with_hdr >= TCP_MSS_DEFAULT + TCP_HDR && {
                self.last_seg_size = with_hdr;
                with_hdr == lss
            };
            if adopted {
                self.rcv_mss = with_hdr;
            } else {
                self.pushed = true;
            }
        }
        if self.ato == SimTime::ZERO {
            self.incr_quickack(ctx.rcv_wnd);
            self.ato = TCP_ATO_MIN;
        } else {
            let m = now.saturating_sub(self.lrcvtime);
            let half_min = SimTime::from_nanos(TCP_ATO_MIN.as_nanos() / 2);
            let half_ato = SimTime::from_nanos(self.ato.as_nanos() / 2);
            if m <= half_min {
                self.ato = half_ato + half_min;
            } else if m < self.ato {
                self.ato = (half_ato + m).min(ctx.rto);
            } else if m > ctx.rto {
                self.incr_quickack(ctx.rcv_wnd);
            }
        }
        self.lrcvtime = now;
    }

    /// `tcp_incr_quickack`.
    fn incr_quickack(&mut self, rcv_wnd: u64) {
        let q = rcv_wnd / (2 * u64::from(self.rcv_mss.max(1)));
        let q = if q == 0 {
            2
        } else {
            q.min(u64::from(u32::MAX)) as u32
        };
        if q > self.quick {
            self.quick = q.min(TCP_MAX_QUICKACKS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn fixed_rule_every_second_segment() {
        let ctx = RecvCtx {
            srtt: None,
            rto: ms(1000),
            rcv_wnd: 65535,
        };
        let mut p = AckPolicy::new(Some(DelayedAck::default()), 1460);
        p.on_in_order_segment(SimTime::ZERO, 1460, ctx);
        assert!(!p.ack_now);
        assert_eq!(p.deadline, Some(ms(200)));
        p.on_in_order_segment(ms(10), 1460, ctx);
        assert!(p.ack_now);
    }

    fn linux() -> AckPolicy {
        AckPolicy::new(
            Some(DelayedAck {
                rule: DelayedAckRule::Linux,
                ..DelayedAck::default()
            }),
            1460,
        )
    }

    /// One 1000 B message every 100 ms, the receiver's SRTT 120 ms and RTO 300 ms, a
    /// 65535 B window. By the kernel's rule (module docs), hand-computed:
    /// - first data: rcv_mss 536 → 1000, quick = min(65535 / 2000 = 32, 16) = 16, ato 40;
    ///   segments 0-15 are ACKed at once, the 16th ACK ends quick mode (ato 40 ms).
    /// - t = 1.6 s: m = 100 ms ≥ ato: ato stays 40 ms, not above TCP_DELACK_MIN, so the
    ///   timer is 40 ms; it fires: ato = min(80, 300) = 80 ms.
    /// - 1.7 s: m = 100 ≥ 80: unchanged; delayed by min(80, max_ato = min(500, 120)) = 80
    ///   ms; fires at 1.78 s: ato = 160 ms.
    /// - 1.8 s: m = 100 < 160: ato = 80 + 100 = 180 ms; timer min(180, 120) = 120 ms
    ///   (1.92 s).
    /// - 1.9 s: ato = 90 + 100 = 190 ms; two full frames unacknowledged: ACK at once.
    /// - 2.0 s: ato = 95 + 100 = 195 ms, timer 2.12 s; 2.1 s: ACK at once; and so on.
    #[test]
    fn linux_ato_for_a_message_every_100ms() {
        let ctx = RecvCtx {
            srtt: Some(ms(120)),
            rto: ms(300),
            rcv_wnd: 65535,
        };
        let mut p = linux();
        for i in 0..16 {
            p.on_in_order_segment(ms(100 * i), 1000, ctx);
            assert!(p.ack_now, "segment {i} is quick-ACKed");
            p.on_ack_sent();
        }
        assert_eq!(p.linux_state(), Some((ms(40), 0, false)));
        p.on_in_order_segment(ms(1600), 1000, ctx);
        assert!(!p.ack_now);
        assert_eq!(p.deadline, Some(ms(1640)));
        p.on_timeout(ms(1640), ctx.rto);
        assert!(p.ack_now);
        p.on_ack_sent();
        assert_eq!(p.linux_state(), Some((ms(80), 0, false)));
        p.on_in_order_segment(ms(1700), 1000, ctx);
        assert_eq!(p.deadline, Some(ms(1780)));
        p.on_timeout(ms(1780), ctx.rto);
        p.on_ack_sent();
        assert_eq!(p.linux_state(), Some((ms(160), 0, false)));
        p.on_in_order_segment(ms(1800), 1000, ctx);
        assert_eq!(p.linux_state(), Some((ms(180), 0, false)));
        assert_eq!(p.deadline, Some(ms(1920)));
        p.on_in_order_segment(ms(1900), 1000, ctx);
        assert!(p.ack_now, "the second full frame is ACKed at once");
        assert_eq!(p.linux_state(), Some((ms(190), 0, false)));
        p.on_ack_sent();
        p.on_in_order_segment(ms(2000), 1000, ctx);
        assert_eq!(p.linux_state(), Some((ms(195), 0, false)));
        assert_eq!(p.deadline, Some(ms(2120)));
    }

    /// Closely spaced segments (m ≤ 20 ms): ato = ato/2 + 20 ms, and the timer never
    /// exceeds the RTT bound; the timer in quick-ACK-free mode, its back-off capped at the
    /// RTO.
    #[test]
    fn linux_fast_arrivals_and_timer_backoff() {
        let ctx = RecvCtx {
            srtt: None,
            rto: ms(300),
            rcv_wnd: 1000,
        };
        let mut p = linux();
        // rcv_wnd / (2 · 1000) = 0 → 2 quick ACKs.
        p.on_in_order_segment(SimTime::ZERO, 1000, ctx);
        assert_eq!(p.linux_state(), Some((ms(40), 2, false)));
        p.on_ack_sent();
        p.on_in_order_segment(ms(10), 1000, ctx);
        // m = 10 ≤ 20: ato = 20 + 20 = 40.
        assert!(p.ack_now);
        p.on_ack_sent();
        assert_eq!(p.linux_state(), Some((ms(40), 0, false)));
        // Timer back-off without an RTT estimate, each segment 1 ms more than ato after the
        // last (m > ato: ato unchanged on arrival): 40 → 80 → 160 → 300 (the RTO).
        let mut t = ms(100);
        for want in [80, 160, 300] {
            p.on_in_order_segment(t, 1000, ctx);
            assert!(!p.ack_now);
            let d = p.deadline.expect("delayed");
            p.on_timeout(d, ctx.rto);
            p.on_ack_sent();
            assert_eq!(p.linux_state().map(|s| s.0), Some(ms(want)));
            t += ms(want + 1);
        }
        // m = 301 ms > RTO: quick-ACK mode again (2 ACKs: a small window).
        p.on_in_order_segment(t, 1000, ctx);
        assert!(p.ack_now);
        assert_eq!(p.linux_state(), Some((ms(300), 2, false)));
    }

    /// Out-of-order data: an immediate ACK and quick-ACK mode with ato back at 40 ms; a
    /// reply within ato of the data makes the connection interactive, which suspends quick
    /// ACKs and bounds the timer by TCP_DELACK_MAX.
    #[test]
    fn linux_out_of_order_and_pingpong() {
        let ctx = RecvCtx {
            srtt: Some(ms(300)),
            rto: ms(1000),
            rcv_wnd: 8000,
        };
        let mut p = linux();
        p.on_in_order_segment(SimTime::ZERO, 1000, ctx);
        for _ in 0..4 {
            p.on_ack_sent();
        }
        assert_eq!(p.linux_state(), Some((ms(40), 0, false)));
        p.on_out_of_order(ctx);
        assert!(p.ack_now);
        // 8000 / 2000 = 4 quick ACKs.
        assert_eq!(p.linux_state(), Some((ms(40), 4, false)));
        p.on_ack_sent();
        p.on_in_order_segment(ms(100), 1000, ctx);
        p.on_ack_sent();
        p.on_data_sent(ms(120));
        assert_eq!(p.linux_state(), Some((ms(40), 2, true)));
        // Interactive: no quick ACK; m = 100 ≥ 40: ato 40, a 40 ms timer.
        p.on_in_order_segment(ms(200), 1000, ctx);
        assert!(!p.ack_now);
        assert_eq!(p.deadline, Some(ms(240)));
        // The timer in interactive mode leaves it and deflates ato.
        p.on_timeout(ms(240), ctx.rto);
        assert_eq!(p.linux_state(), Some((ms(40), 2, false)));
    }
}
