//! The client of a DCCP half-connection with CCID 3: the Request/Response/Ack handshake of
//! RFC 4340 §8.1 (REQUEST, then OPEN) and the TFRC sender (RFC 5348 §4; RFC 4342 §5)
//! pacing the application's data. Over UDP (RFC 5348 §3.2) it is open from its start.

use super::tfrc::{FeedbackIn, SenderConfig, TfrcSender};
use super::wire::{Body, DccpType, Packet, Payload, Wire, NO_LOSS};
use crate::time::SimTime;

/// The first DCCP-Request retransmission comes after about one second, backing off
/// exponentially to at most one per 64 s (RFC 4340 §8.1.1).
pub const REQUEST_TIMEOUT: SimTime = SimTime::from_secs(1);
pub const REQUEST_TIMEOUT_MAX: SimTime = SimTime::from_secs(64);

/// The client's connection state (RFC 4340 §8: REQUEST, then OPEN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A DCCP-Request is out; the next goes at `retry`, after `backoff`. `first` is when the
    /// first Request went (its Response is an RTT sample if no Request was repeated).
    Requesting {
        retry: SimTime,
        backoff: SimTime,
        first: Option<SimTime>,
    },
    Open,
}

/// What an input changed in the sender, for the caller's traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientEvent {
    /// A feedback packet was taken in (RFC 5348 §4.3).
    Feedback,
    /// The no-feedback timer expired (RFC 5348 §4.4).
    Nofeedback,
}

/// The sending end of a TFRC half-connection.
#[derive(Debug)]
pub struct Client {
    wire: Wire,
    state: State,
    sender: TfrcSender,
    /// The last DCCP (or TFRC data) sequence number used.
    seq: u64,
    /// A control packet to send: its type and Acknowledgement Number.
    control: Option<(DccpType, u64)>,
    opened: Option<SimTime>,
    data_sent: u64,
    data_bytes: u64,
    feedback_received: u64,
    nofeedback_expiries: u64,
    /// The window counter (RFC 4342 §8.1), unwrapped, and when it last moved.
    ccval: u64,
    ccval_at: Option<SimTime>,
}

impl Client {
    /// A client starting at `start`: over DCCP its first Request goes at `start`
    /// ([`Client::poll_timeout`]); over UDP it is open at once.
    pub fn new(wire: Wire, cfg: SenderConfig, start: SimTime) -> Client {
        Client {
            wire,
            state: match wire {
                Wire::Dccp => State::Requesting {
                    retry: start,
                    backoff: REQUEST_TIMEOUT,
                    first: None,
                },
                Wire::Udp => State::Open,
            },
            sender: TfrcSender::new(cfg, start),
            seq: 0,
            control: None,
            opened: (wire == Wire::Udp).then_some(start),
            data_sent: 0,
            data_bytes: 0,
            feedback_received: 0,
            nofeedback_expiries: 0,
            ccval: 0,
            ccval_at: None,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// A packet from the server: the handshake's Response (answered by an Ack, RFC 4340
    /// §8.1.3), or feedback (RFC 5348 §3.2.2; RFC 4342 §8: 1/p of the Loss Event Rate
    /// option, [`NO_LOSS`] for p = 0).
    pub fn handle_packet<M>(&mut self, now: SimTime, body: Body<M>) -> Option<ClientEvent> {
        match body {
            Body::Control {
                kind: DccpType::Response,
                seq,
                ..
            } => {
                if let State::Requesting { first, backoff, .. } = self.state {
                    self.state = State::Open;
                    self.opened = Some(now);
                    // TFRC starts with the connection; a Request answered without a repeat
                    // gives the first RTT sample (RFC 5348 §4.2; Karn's rule otherwise).
                    let cfg = self.sender.config();
                    self.sender = match first {
                        Some(sent) if backoff == REQUEST_TIMEOUT + REQUEST_TIMEOUT => {
                            TfrcSender::with_rtt(cfg, now, now - sent)
                        }
                        _ => TfrcSender::new(cfg, now),
                    };
                }
                self.control = Some((DccpType::Ack, seq));
                None
            }
            Body::Feedback {
                t_recvdata,
                t_delay,
                x_recv,
                p_inv,
                ..
            } => {
                self.feedback_received += 1;
                let p = if p_inv == NO_LOSS {
                    0.0
                } else {
                    1.0 / f64::from(p_inv)
                };
                let fb = FeedbackIn {
                    t_recvdata,
                    t_delay,
                    x_recv: f64::from(x_recv),
                    p,
                };
                self.sender.handle_feedback(now, fb);
                Some(ClientEvent::Feedback)
            }
            Body::Control { kind, .. } => unreachable!("the client receives no {kind:?}"),
            Body::Data { .. } => unreachable!("the client receives no data"),
        }
    }

    /// The timer of [`Client::poll_timeout`]: a Request to repeat (RFC 4340 §8.1.1), or
    /// TFRC's no-feedback timer (RFC 5348 §4.4).
    pub fn handle_timeout(&mut self, now: SimTime) -> Option<ClientEvent> {
        match self.state {
            State::Requesting {
                retry,
                backoff,
                first,
            } if retry <= now => {
                self.state = State::Requesting {
                    retry: now + backoff,
                    backoff: (backoff + backoff).min(REQUEST_TIMEOUT_MAX),
                    first: first.or(Some(now)),
                };
                self.control = Some((DccpType::Request, 0));
                None
            }
            State::Requesting { .. } => None,
            State::Open if self.sender.poll_nofeedback_timer() <= now => {
                self.nofeedback_expiries += 1;
                self.sender.handle_nofeedback_timer(now);
                Some(ClientEvent::Nofeedback)
            }
            State::Open => None,
        }
    }

    /// The application had nothing to send at `now`: if the sender could have sent, it
    /// was data-limited (RFC 5348 §4.3, §8.2.1).
    pub fn handle_no_data(&mut self, now: SimTime) {
        if self.sender.poll_send_time() < now {
            self.sender.handle_no_data();
        }
    }

    /// The control packet to send, if any (a Request or the handshake's Ack).
    pub fn poll_control<M>(&mut self) -> Option<Packet<M>> {
        let (kind, ack) = self.control.take()?;
        let seq = self.next_seq();
        Some(Packet {
            wire: self.wire,
            body: Body::Control { kind, seq, ack },
        })
    }

    /// The next data packet if TFRC's rate allows one now (RFC 5348 §4.6: one packet per
    /// t_ipi) and `take` gives the application's message; `in_handover` marks it with the
    /// handover notice ([`super::wire::HANDOVER_NOTICE`]).
    pub fn poll_data<M: Payload>(
        &mut self,
        now: SimTime,
        in_handover: bool,
        take: impl FnOnce() -> Option<M>,
    ) -> Option<Packet<M>> {
        if self.state != State::Open || self.sender.poll_send_time() > now {
            return None;
        }
        let msg = take()?;
        let seq = self.next_seq();
        let ccval = self.window_counter(now);
        let body = Body::Data {
            seq,
            ts: now,
            rtt: self.sender.rtt().into(),
            msg,
            in_handover,
            round: u32::try_from(self.sender.round()).unwrap_or(u32::MAX),
            ccval: u32::try_from(ccval).unwrap_or(u32::MAX),
        };
        self.sender.handle_sent(now);
        self.data_sent += 1;
        self.data_bytes += u64::from(msg.bytes());
        Some(Packet {
            wire: self.wire,
            body,
        })
    }

    /// The window counter for a data packet sent at `now` (RFC 4342 §8.1): once the sender
    /// has an RTT estimate R, it advances by the quarter RTTs elapsed since it last moved,
    /// at most 5 at a time (so a silence reads as just over one RTT); 0 before.
    fn window_counter(&mut self, now: SimTime) -> u64 {
        let Some(r) = self.sender.rtt().filter(|r| *r >= SimTime(4)) else {
            return self.ccval;
        };
        let Some(last) = self.ccval_at else {
            self.ccval_at = Some(now);
            return self.ccval;
        };
        let quarters = (now - last).as_nanos() / (r.as_nanos() / 4);
        if quarters > 0 {
            self.ccval += quarters.min(5);
            self.ccval_at = Some(now);
        }
        self.ccval
    }

    /// When [`Client::handle_timeout`] or [`Client::poll_data`] is due: the next Request;
    /// once open, the no-feedback timer and, if the application has data, the next send.
    pub fn poll_timeout(&self, has_data: bool) -> SimTime {
        match self.state {
            State::Requesting { retry, .. } => retry,
            State::Open if has_data => self
                .sender
                .poll_send_time()
                .min(self.sender.poll_nofeedback_timer()),
            State::Open => self.sender.poll_nofeedback_timer(),
        }
    }

    /// The framing.
    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Whether the connection is open (RFC 4340 §8: OPEN).
    pub fn is_open(&self) -> bool {
        self.state == State::Open
    }

    /// When it opened (the Response's arrival; over UDP, the start).
    pub fn opened(&self) -> Option<SimTime> {
        self.opened
    }

    /// The TFRC sender.
    pub fn sender(&self) -> &TfrcSender {
        &self.sender
    }

    /// The TFRC sender, for mechanisms that set its rate or RTT weighting.
    pub fn sender_mut(&mut self) -> &mut TfrcSender {
        &mut self.sender
    }

    /// Data packets sent and their payload bytes.
    pub fn data_sent(&self) -> (u64, u64) {
        (self.data_sent, self.data_bytes)
    }

    /// Feedback packets received.
    pub fn feedback_received(&self) -> u64 {
        self.feedback_received
    }

    /// No-feedback timer expiries.
    pub fn nofeedback_expiries(&self) -> u64 {
        self.nofeedback_expiries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp::tfrc::Profile;

    const MS: u64 = 1_000_000;

    /// RFC 4342 §8.1: with R = 100 ms the window counter moves by the quarter RTTs (25 ms)
    /// since it last moved, at most 5 at a time, and not before an RTT is known.
    #[test]
    fn window_counter_counts_quarter_rtts_up_to_five() {
        let mut c = Client::new(
            Wire::Udp,
            SenderConfig::new(Profile::Rfc5348, 1000),
            SimTime::ZERO,
        );
        let ccval_at = |c: &mut Client, ms: u64| {
            let p = c.poll_data(SimTime(ms * MS), false, || Some(1000u32));
            match p.expect("a packet").body {
                Body::Data { ccval, .. } => ccval,
                _ => unreachable!(),
            }
        };
        assert_eq!(ccval_at(&mut c, 0), 0, "no RTT yet");
        let fb: Body<u32> = Body::Feedback {
            ack: 1,
            t_recvdata: SimTime::ZERO,
            t_delay: SimTime::ZERO,
            x_recv: 1_000_000,
            p_inv: NO_LOSS,
            intervals: 0,
        };
        c.handle_packet(SimTime(100 * MS), fb);
        assert_eq!(c.sender().rtt(), Some(SimTime(100 * MS)));
        assert_eq!(ccval_at(&mut c, 200), 0, "the counter starts");
        assert_eq!(ccval_at(&mut c, 260), 2, "60 ms: two quarters");
        assert_eq!(ccval_at(&mut c, 1260), 7, "1 s: 40 quarters, at most 5");
    }
}
