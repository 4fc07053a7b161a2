//! Linux's internal TCP pacing (net/ipv4/tcp_output.c: `tcp_pacing_check`,
//! `tcp_update_skb_after_send`; `tcp_update_pacing_rate` in tcp_input.c): each data segment
//! sent moves the earliest departure time of the next (`tp->tcp_wstamp_ns`) by its length
//! at the pacing rate, and the sender holds data until then, on a timer.
//!
//! Call order: [`Pacer::may_send`] before a data segment (false: wait for
//! [`Pacer::next_departure`]), [`Pacer::on_sent`] after it, [`Pacer::set_rate`] after each
//! ACK.

use crate::time::SimTime;

/// Segments sent before pacing starts (`tp->data_segs_out >= 10` in
/// `tcp_update_skb_after_send`).
const UNPACED_SEGMENTS: u64 = 10;

/// The pacing state of a connection.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// `sk_pacing_rate`, bytes per second; `None`: unlimited (`~0UL`).
    rate: Option<u64>,
    /// `tp->tcp_wstamp_ns`.
    wstamp: SimTime,
    /// `tp->data_segs_out`.
    segs_out: u64,
}

impl Pacer {
    /// Whether a data segment may leave at `now` (`tcp_pacing_check`).
    pub fn may_send(&self, now: SimTime) -> bool {
        self.wstamp <= now
    }

    /// When the next data segment may leave.
    pub fn next_departure(&self) -> SimTime {
        self.wstamp
    }

    /// The pacing rate, bytes per second.
    pub fn rate(&self) -> Option<u64> {
        self.rate
    }

    pub fn set_rate(&mut self, rate: Option<u64>) {
        self.rate = rate;
    }

    /// A data segment of `len` payload bytes left at `now` (`tcp_transmit_skb` sets
    /// `tcp_wstamp_ns = max(tcp_wstamp_ns, now)`; `tcp_update_skb_after_send` adds its
    /// time at the pacing rate, less up to half of it when the sender was late, "to take
    /// into account OS jitter").
    pub fn on_sent(&mut self, now: SimTime, len: u32) {
        let prior = self.wstamp;
        self.wstamp = self.wstamp.max(now);
        self.segs_out += 1;
        let Some(rate) = self.rate.filter(|&r| r > 0) else {
            return;
        };
        if self.segs_out < UNPACED_SEGMENTS {
            return;
        }
        let len_ns = u64::from(len) * 1_000_000_000 / rate;
        let credit = (self.wstamp - prior).0;
        self.wstamp += SimTime(len_ns - (len_ns / 2).min(credit));
    }
}

/// `tcp_update_pacing_rate`: a controller without its own rate paces at `cwnd / srtt`
/// times 200 % in slow start (`cwnd < ssthresh / 2`) and 120 % after
/// (`sysctl_tcp_pacing_ss_ratio`, `sysctl_tcp_pacing_ca_ratio`), `cwnd` no less than what
/// is out; in bytes per second.
pub fn default_rate(cwnd: u64, ssthresh: u64, out: u64, srtt: Option<SimTime>) -> Option<u64> {
    let srtt = srtt.filter(|s| s.0 > 0)?;
    let ratio: u128 = if cwnd < ssthresh / 2 { 200 } else { 120 };
    let window = u128::from(cwnd.max(out));
    Some((window * ratio * 1_000_000_000 / (100 * u128::from(srtt.0))) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After the first ten segments, back-to-back segments of 1448 B at 1 448 000 B/s
    /// leave 1 ms apart.
    #[test]
    fn segments_leave_their_length_at_the_rate_apart() {
        let mut p = Pacer::default();
        p.set_rate(Some(1_448_000));
        let now = SimTime::ZERO;
        for _ in 0..9 {
            assert!(p.may_send(now));
            p.on_sent(now, 1448);
        }
        p.on_sent(now, 1448);
        assert_eq!(p.next_departure(), SimTime::from_millis(1));
        assert!(!p.may_send(now));
        p.on_sent(SimTime::from_millis(1), 1448);
        assert_eq!(p.next_departure(), SimTime::from_millis(2));
        // Sent 0.4 ms late: the next gap is shortened by those 0.4 ms (less than half).
        p.on_sent(SimTime::from_micros(2400), 1448);
        assert_eq!(p.next_departure(), SimTime::from_micros(3000));
    }

    /// A paced connection (CUBIC, `pacing = true`) with a large window: after its first
    /// ten segments it sends the next only when the pacer's timer says so, and
    /// `poll_timeout` gives that instant; an unpaced one sends the whole window at once.
    #[test]
    fn a_paced_connection_holds_data_for_the_pacing_timer() {
        use super::super::{Config, Connection};
        let sent_at_once = |pacing: bool| {
            let cfg = Config {
                timestamps: false,
                pacing,
                cc: crate::cc::CcKind::Cubic,
                initial_window: super::super::InitialWindow::Segments(40),
                ..Config::default()
            };
            let t0 = SimTime::ZERO;
            let mut client = Connection::connect(cfg.clone(), 1, t0);
            let mut server = Connection::listen(cfg, 2);
            let rtt = SimTime::from_millis(100);
            let pass = |from: &mut Connection, to: &mut Connection, at: SimTime| {
                while let Some(seg) = from.poll_transmit(at) {
                    to.handle_segment(at, &seg);
                }
            };
            pass(&mut client, &mut server, t0);
            pass(&mut server, &mut client, rtt);
            client.write(1 << 20);
            let mut n = 0;
            while client.poll_transmit(rtt).is_some() {
                n += 1;
            }
            (n, client.poll_timeout(), client.pacing_rate())
        };
        let (unpaced, _, none) = sent_at_once(false);
        assert_eq!((unpaced, none), (40, None));
        let (paced, timer, rate) = sent_at_once(true);
        // An ACK of the SYN-ACK is not data and is not held.
        assert_eq!(paced, 10);
        // 200 % of 40 · 1460 B per 100 ms (slow start) = 1 168 000 B/s: 1460 B take 1.25 ms.
        assert_eq!(rate, Some(1_168_000));
        assert_eq!(timer, Some(SimTime::from_millis(100) + SimTime(1_250_000)));
    }

    #[test]
    fn the_default_rate_is_linux_s_ratio_of_cwnd_over_srtt() {
        let srtt = Some(SimTime::from_millis(100));
        // 10 × 1448 B per 100 ms is 144 800 B/s; doubled in slow start.
        assert_eq!(default_rate(14_480, u64::MAX, 0, srtt), Some(289_600));
        assert_eq!(default_rate(14_480, 14_480, 0, srtt), Some(173_760));
        assert_eq!(default_rate(14_480, 14_480, 0, None), None);
    }
}
