//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux
//! net/ipv4/tcp_rate.c): every segment sent carries a snapshot of how much had been
//! delivered and when ([`TxState`], the draft's per-packet `P.delivered`,
//! `P.delivered_time`, `P.first_sent_time`, `P.is_app_limited`); on each ACK the newest
//! segment it delivers gives a sample of `delivered / max(send interval, ACK interval)`.
//! Counted in bytes where Linux counts packets.
//!
//! The snapshot also keeps what BBRv3 reads of a packet (Google's v3 kernel, which adds to
//! `tcp_rate_skb_sent` `tx.in_flight`, set by `tcp_set_tx_in_flight`, and `tx.lost`): the
//! flight just after it left and how much the connection had marked lost then. The sample
//! of an ACK carries them for the newest delivered segment (`rs->tx_in_flight`, and
//! `rs->lost` = `tp->lost − rs->prior_lost`, in `tcp_rate_skb_delivered` and
//! `tcp_rate_gen`); a segment marked lost hands its own to the controller
//! ([`crate::cc::LostPacket`], `bbr_skb_marked_lost`).
//!
//! Call order, per connection: [`RateSampler::on_send`] for every (re)transmission of
//! data, [`RateSampler::on_delivered`] for every segment an ACK newly delivers (cumulative
//! or SACK), then [`RateSampler::generate`] once for the ACK; [`RateSampler::on_app_limited`]
//! when the sender has window to spare and nothing to send.

use crate::cc::RateSample;
use crate::time::SimTime;

/// The per-segment snapshot taken when it is sent (`tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxState {
    /// `C.delivered` when the segment was sent.
    pub delivered: u64,
    /// `C.delivered_time` then.
    pub delivered_time: SimTime,
    /// `C.first_sent_time` then: when the flight it belongs to began.
    pub first_sent_time: SimTime,
    /// Bytes in flight (RFC 6675 `pipe`) just after it left, itself included (`tx.in_flight`:
    /// `tcp_packets_in_flight` plus its own packets).
    pub in_flight: u64,
    /// Bytes the connection had ever marked lost when it left (`tx.lost` = `tp->lost`).
    pub lost: u64,
    /// Sent while the connection was application-limited.
    pub app_limited: bool,
    /// Not yet used by a sample (Linux clears `delivered_mstamp` once it is).
    pub pending: bool,
}

/// The sample being built from one ACK (`struct rate_sample` before `tcp_rate_gen`).
#[derive(Clone, Copy, Debug, Default)]
struct Building {
    prior_delivered: u64,
    prior_time: SimTime,
    /// Send interval of the newest delivered segment: its send time less its flight's start.
    send_elapsed: SimTime,
    app_limited: bool,
    /// That segment's `in_flight` and `lost` ([`TxState`]).
    tx_in_flight: u64,
    prior_lost: u64,
    found: bool,
}

/// The connection's delivery counters.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// `C.delivered`: bytes delivered (cumulatively acknowledged or SACKed) so far.
    pub delivered: u64,
    /// `C.delivered_time`: when `delivered` last grew.
    pub delivered_time: SimTime,
    /// `C.first_sent_time`: send time of the newest segment delivered so far.
    first_sent_time: SimTime,
    /// `C.app_limited`: nonzero while application-limited — the `delivered` value after
    /// which the bubble it left has been acknowledged.
    app_limited: u64,
    building: Building,
    /// Bytes delivered by the ACK being processed.
    acked_sacked: u64,
}

impl RateSampler {
    /// A segment is (re)sent at `now`; `nothing_outstanding` when no segment was out
    /// before it (`tp->packets_out == 0`: a new flight starts, draft §3.2); `in_flight`
    /// bytes are in flight with it and `lost` bytes were ever marked lost.
    pub fn on_send(
        &mut self,
        now: SimTime,
        nothing_outstanding: bool,
        in_flight: u64,
        lost: u64,
    ) -> TxState {
        if nothing_outstanding {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxState {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            in_flight,
            lost,
            app_limited: self.app_limited != 0,
            pending: true,
        }
    }

    /// An ACK newly delivered `bytes` at `now`, the newest-sent of its segments with a
    /// pending snapshot being `newest` (its send time and snapshot;
    /// `tcp_rate_skb_delivered`, which keeps the most recently sent).
    pub fn on_delivered(&mut self, now: SimTime, newest: Option<(SimTime, TxState)>, bytes: u64) {
        if bytes > 0 {
            self.delivered += bytes;
            self.delivered_time = now;
            self.acked_sacked += bytes;
        }
        let Some((sent_at, tx)) = newest else { return };
        self.building = Building {
            prior_delivered: tx.delivered,
            prior_time: tx.delivered_time,
            send_elapsed: sent_at.saturating_sub(tx.first_sent_time),
            app_limited: tx.app_limited,
            tx_in_flight: tx.in_flight,
            prior_lost: tx.lost,
            found: true,
        };
        self.first_sent_time = sent_at;
    }

    /// The sender has room in cwnd and nothing to send, with `in_flight` bytes out
    /// (`tcp_rate_check_app_limited`): samples are marked until that flight is delivered.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Whether the connection is application-limited now.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// Marks the connection application-limited whatever its window (BBR's PROBE_RTT does,
    /// to ignore its own low-rate samples).
    pub fn set_app_limited(&mut self, in_flight: u64) {
        self.on_app_limited(in_flight);
    }

    /// The sample of one ACK (`tcp_rate_gen`); its interval is zero (not valid) when the
    /// ACK delivered no segment with a snapshot, or over a shorter interval than the
    /// minimum RTT `ack.min_rtt` (ACK compression, draft §3.3). Its `tx_in_flight` and
    /// `lost` are the newest delivered segment's, zero without one (the kernel leaves them
    /// unset on a sample without timing). The other facts of the ACK are passed through.
    pub fn generate(&mut self, now: SimTime, ack: AckFacts) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let b = std::mem::take(&mut self.building);
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        let (delivered, interval) = if b.found {
            let ack_elapsed = self.delivered_time.saturating_sub(b.prior_time);
            let interval = b.send_elapsed.max(ack_elapsed);
            let valid = ack.min_rtt.is_none_or(|m| interval >= m);
            (
                self.delivered - b.prior_delivered,
                if valid { interval } else { SimTime::ZERO },
            )
        } else {
            (0, SimTime::ZERO)
        };
        RateSample {
            now,
            delivered,
            interval,
            rtt: ack.rtt.unwrap_or(SimTime::MAX),
            is_app_limited: b.app_limited,
            tx_in_flight: b.tx_in_flight,
            lost: if b.found {
                ack.total_lost.saturating_sub(b.prior_lost)
            } else {
                0
            },
            prior_delivered: b.prior_delivered,
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            acked_sacked,
            losses: ack.losses,
            prior_in_flight: ack.prior_in_flight,
            in_flight: ack.in_flight,
            in_recovery: ack.in_recovery,
            in_loss: ack.in_loss,
            total_lost: ack.total_lost,
            pacing_edt: ack.pacing_edt,
        }
    }
}

/// What the connection knows of an ACK besides its deliveries.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckFacts {
    /// The RTT sample the ACK gave, if any.
    pub rtt: Option<SimTime>,
    /// The smallest RTT seen so far.
    pub min_rtt: Option<SimTime>,
    /// Bytes newly marked lost while processing it.
    pub losses: u64,
    /// Bytes in flight before it, and after it.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// Fast recovery is under way after it.
    pub in_recovery: bool,
    /// Recovery from a timeout is under way after it.
    pub in_loss: bool,
    /// Bytes ever marked lost.
    pub total_lost: u64,
    /// The pacer's next departure.
    pub pacing_edt: SimTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// 1000 B segments sent 1 ms apart from an idle start, each acknowledged 50 ms after it
    /// was sent: once the pipe is full a sample is 1000 B per ms (draft §2.2).
    #[test]
    fn a_steady_flight_samples_its_own_rate() {
        let mut r = RateSampler::default();
        let mut sent = Vec::new();
        for i in 0..200u64 {
            sent.push((ms(i), r.on_send(ms(i), i == 0, 0, 0)));
            if i >= 50 {
                let (at, tx) = sent[(i - 50) as usize];
                r.on_delivered(ms(i), Some((at, tx)), 1000);
                let facts = AckFacts {
                    min_rtt: Some(ms(50)),
                    ..AckFacts::default()
                };
                let s = r.generate(ms(i), facts);
                if i == 199 {
                    // Segment 149 left before that millisecond's ACK: 99 segments had
                    // been delivered (the last at 148 ms, the newest of them sent at
                    // 98 ms). 51 more since, over 51 ms either way: 1000 B per ms.
                    assert_eq!(s.delivered, 51_000);
                    assert_eq!(s.interval, ms(51));
                }
            }
        }
    }

    /// `tx.in_flight` and `tx.lost` travel with the segment (`tcp_rate_skb_sent`): an ACK's
    /// sample carries the newest delivered segment's flight (`rs->tx_in_flight`) and the
    /// losses since it left, `tp->lost` now less `tx.lost` (`rs->lost`); none without a
    /// delivered snapshot.
    #[test]
    fn a_sample_carries_its_packet_s_flight_and_the_losses_since() {
        let mut r = RateSampler::default();
        let a = r.on_send(ms(0), true, 1000, 0);
        let b = r.on_send(ms(1), false, 2000, 500);
        assert_eq!(
            (a.in_flight, a.lost, b.in_flight, b.lost),
            (1000, 0, 2000, 500)
        );
        r.on_delivered(ms(50), Some((ms(0), a)), 1000);
        r.on_delivered(ms(50), Some((ms(1), b)), 1000);
        let lost_now = AckFacts {
            total_lost: 3500,
            ..AckFacts::default()
        };
        let s = r.generate(ms(50), lost_now);
        assert_eq!((s.tx_in_flight, s.lost), (2000, 3000));
        r.on_delivered(ms(60), None, 0);
        let s = r.generate(ms(60), lost_now);
        assert_eq!((s.tx_in_flight, s.lost), (0, 0));
    }

    /// A segment marked lost hands over its snapshot once, with `tp->lost` counting it
    /// (`tcp_notify_skb_loss_event`); one sent without a snapshot is not recorded.
    #[test]
    fn the_scoreboard_records_each_newly_lost_snapshot() {
        use crate::tcp::scoreboard::{Scoreboard, SentSeg};
        use crate::tcp::RetransmitKind;
        let mut sb = Scoreboard::default();
        sb.set_sampling();
        let mut r = RateSampler::default();
        for i in 0..3u64 {
            sb.push(SentSeg {
                start: i * 1000,
                len: 1000,
                fin: false,
                sent_at: ms(i),
                retransmitted: false,
                sacked: false,
                lost: None,
                probe: false,
            });
            if i > 0 {
                let tx = r.on_send(ms(i), i == 1, sb.pipe(), sb.marked_lost());
                sb.set_tx(i * 1000, tx);
            }
        }
        sb.mark_all_lost(RetransmitKind::Rto);
        let lost: Vec<_> = sb
            .take_lost()
            .map(|l| (l.bytes, l.tx.in_flight, l.total_lost))
            .collect();
        // Segment 0 has no snapshot; 1 left into 2000 B, 2 into 3000 B; `tp->lost` counts
        // segment 0 too.
        assert_eq!(lost, vec![(1000, 2000, 2000), (1000, 3000, 3000)]);
        sb.mark_all_lost(RetransmitKind::Rto);
        assert_eq!(sb.take_lost().count(), 0);
    }

    #[test]
    fn application_limited_marks_last_until_the_flight_is_delivered() {
        let mut r = RateSampler::default();
        let tx = r.on_send(ms(0), true, 0, 0);
        r.on_app_limited(1000);
        let marked = r.on_send(ms(1), false, 0, 0);
        assert!(!tx.app_limited && marked.app_limited);
        r.on_delivered(ms(10), Some((ms(0), tx)), 1000);
        let s = r.generate(ms(10), AckFacts::default());
        assert!(!s.is_app_limited);
        // 1000 B delivered = the mark (0 + 1000): still limited until more is.
        assert!(r.is_app_limited());
        r.on_delivered(ms(11), Some((ms(1), marked)), 1000);
        let s = r.generate(ms(11), AckFacts::default());
        assert!(s.is_app_limited);
        assert!(!r.is_app_limited());
    }
}
