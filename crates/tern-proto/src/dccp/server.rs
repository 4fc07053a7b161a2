//! The server of a DCCP half-connection with CCID 3: the handshake's server side (RFC 4340
//! §8.1: a Response to each Request, OPEN on the Ack or on the first data packet) and the
//! TFRC receiver (RFC 5348 §5–6; RFC 4342 §6, §8) answering data with feedback.

use super::tfrc::{DataInfo, Feedback, ReceiverConfig, TfrcReceiver};
use super::wire::{Body, DccpType, Packet, Payload, Wire, NO_LOSS};
use crate::time::SimTime;

/// What the server has to send.
#[derive(Clone, Copy, Debug)]
enum Reply {
    /// A DCCP-Response acknowledging the Request `ack`.
    Response {
        ack: u64,
    },
    Feedback(Feedback),
}

/// The receiving end of a TFRC half-connection.
#[derive(Debug)]
pub struct Server {
    wire: Wire,
    /// The server answered a Request, or has seen the connection open.
    open: bool,
    receiver: TfrcReceiver,
    reply: Option<Reply>,
}

impl Server {
    /// A server listening (over UDP: ready for data).
    pub fn new(wire: Wire, cfg: ReceiverConfig) -> Server {
        Server {
            wire,
            open: wire == Wire::Udp,
            receiver: TfrcReceiver::new(cfg),
            reply: None,
        }
    }

    /// A packet from the client: a Request (answered by a Response), the handshake's Ack,
    /// or data, which goes to the TFRC receiver (RFC 5348 §6.1) and may call for feedback.
    pub fn handle_packet<M: Payload>(&mut self, now: SimTime, body: Body<M>) {
        match body {
            Body::Control {
                kind: DccpType::Request,
                seq,
                ..
            } => self.reply = Some(Reply::Response { ack: seq }),
            Body::Control {
                kind: DccpType::Ack,
                ..
            } => self.open = true,
            Body::Data {
                seq,
                ts,
                rtt,
                msg,
                in_handover,
                round,
                ccval,
            } => {
                // A data packet opens a server whose Ack was lost (RFC 4340 §8.1.5).
                self.open = true;
                let info = DataInfo {
                    seq,
                    sent: ts,
                    rtt: rtt.get(),
                    size: msg.bytes(),
                    in_handover,
                    round: u64::from(round),
                    ccval: u64::from(ccval),
                };
                self.reply = self.receiver.handle_data(now, info).map(Reply::Feedback);
            }
            Body::Control { kind, .. } => unreachable!("the server receives no {kind:?}"),
            Body::Feedback { .. } => unreachable!("the server receives no feedback"),
        }
    }

    /// The feedback timer of [`Server::poll_timeout`] (RFC 5348 §6.2).
    pub fn handle_timeout(&mut self, now: SimTime) {
        self.reply = self.receiver.handle_timeout(now).map(Reply::Feedback);
    }

    /// The packet the last input calls for: a Response (RFC 4340 §8.1.2), or feedback (RFC
    /// 5348 §6.2; over DCCP a DCCP-Ack with CCID 3's options, RFC 4342 §8: X_recv in bytes
    /// per second and 1/p rounded, [`NO_LOSS`] for p = 0).
    pub fn poll_transmit<M>(&mut self) -> Option<Packet<M>> {
        let body = match self.reply.take()? {
            Reply::Response { ack } => Body::Control {
                kind: DccpType::Response,
                seq: 0,
                ack,
            },
            Reply::Feedback(fb) => {
                let p_inv = if fb.p > 0.0 {
                    (1.0 / fb.p).round().clamp(1.0, f64::from(NO_LOSS - 1)) as u32
                } else {
                    NO_LOSS
                };
                Body::Feedback {
                    ack: self.receiver.highest().unwrap_or(0),
                    t_recvdata: fb.t_recvdata,
                    t_delay: fb.t_delay,
                    x_recv: fb.x_recv.round().min(f64::from(u32::MAX)) as u32,
                    p_inv,
                    intervals: fb.intervals as u32,
                }
            }
        };
        Some(Packet {
            wire: self.wire,
            body,
        })
    }

    /// When [`Server::handle_timeout`] is due (the next feedback, RFC 5348 §6.2).
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.receiver.poll_timeout()
    }

    /// Whether the server has seen the connection open.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The TFRC receiver.
    pub fn receiver(&self) -> &TfrcReceiver {
        &self.receiver
    }
}
