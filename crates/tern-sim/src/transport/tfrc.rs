//! TFRC flows: the sans-IO TFRC sender and receiver of `tern_proto::tfrc` (RFC 5348, or
//! RFC 3448's rules) carrying the application's messages as unreliable datagrams, either
//! over UDP with RFC 5348 §3.2's header fields or as DCCP with CCID 3 (RFC 4340, RFC 4342),
//! whose connection opens with the Request/Response/Ack handshake of RFC 4340 §8.1.
//!
//! The sending application writes into a send buffer of a few packets in the transport
//! (Linux DCCP's `tx_qlen`), which TFRC's rate drains; a message that finds it full is
//! dropped. The receiving application gets every data packet that arrives, with its
//! one-way delay.

use std::collections::VecDeque;

use super::{deliver, Cmd, Io, Side, Transport, TransportReport};
use crate::app::{MessageSink, MessageSource};
use crate::engine::{SimTime, Wake};
use crate::net::packet::IPV4_HEADER;
use crate::net::packet::{Body, UdpKind, UdpMessage};
use crate::net::tfrc::{DccpType, TfrcBody, TfrcPacket, Wire, NO_LOSS};
use crate::scenario::{
    TfrcNofeedbackRuleSpec, TfrcProfileSpec, TfrcReceiveRateSpec, TfrcSpec, TfrcWireSpec,
};
use crate::summary::TfrcSummary;
use crate::trace::TfrcRecord;
use crate::wifi::bss_load::BssLoad;
use tern_proto::tfrc::{
    DataInfo, Feedback, FeedbackIn, NofeedbackRule, Profile, ReceiveRate, ReceiverConfig, Recent,
    SenderConfig, TfrcReceiver, TfrcSender,
};

/// The wire of a scenario's TFRC settings.
pub fn tfrc_wire(w: TfrcWireSpec) -> Wire {
    match w {
        TfrcWireSpec::Dccp => Wire::Dccp,
        TfrcWireSpec::Udp => Wire::Udp,
    }
}

/// The first DCCP-Request retransmission comes after about one second, backing off
/// exponentially to at most one per 64 s (RFC 4340 §8.1.1).
const REQUEST_TIMEOUT: SimTime = SimTime::from_secs(1);
const REQUEST_TIMEOUT_MAX: SimTime = SimTime::from_secs(64);

/// What the sending application is.
pub enum TfrcApp {
    /// Messages on the source's schedule, queued in the send buffer.
    Messages(MessageSource),
    /// Always something to send: segments of `segment` bytes, `total` bytes in all (or
    /// unbounded).
    Bulk { total: Option<u64>, segment: u32 },
}

/// The client's connection state (RFC 4340 §8: REQUEST, then OPEN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Client {
    /// A DCCP-Request is out; the next goes at `retry`, after `backoff`. `first` is when the
    /// first Request went (its Response is an RTT sample if no Request was repeated).
    Requesting {
        retry: SimTime,
        backoff: SimTime,
        first: Option<SimTime>,
    },
    Open,
}

/// A TFRC flow: the sender at the client, the receiver at the server.
pub struct TfrcTransport {
    wire: Wire,
    app: TfrcApp,
    buffer: VecDeque<UdpMessage>,
    buffer_limit: usize,
    buffer_drops: u64,
    client: Client,
    /// The server answered a Request, or has seen the connection open.
    server_open: bool,
    sender: TfrcSender,
    receiver: TfrcReceiver,
    sink: MessageSink,
    /// The client's next DCCP (or TFRC data) sequence number.
    seq: u64,
    wakes: [Wake; 2],
    start: SimTime,
    opened: Option<SimTime>,
    data_sent: u64,
    data_bytes: u64,
    feedback_received: u64,
    /// Countermeasures B and C: mark the data sent while the client's link is down.
    handover_notice: bool,
    /// The client's link is down (between [`Transport::on_link`] down and the handover).
    link_down: bool,
    /// Countermeasure A: on, and the rate estimated for the AP being joined (bytes/s).
    rate_from_bss_load: bool,
    estimate: Option<f64>,
    /// Countermeasure C's sender half: window and weight of the newest RTT sample.
    recent_rtt: Option<(SimTime, f64)>,
    nofeedback_expiries: u64,
}

impl TfrcTransport {
    /// The flow starting at `start`, and its first commands: the opening (a DCCP-Request,
    /// or TFRC's first packet) and the source's first message.
    pub fn new(spec: &TfrcSpec, app: TfrcApp, start: SimTime) -> (TfrcTransport, Vec<Cmd>) {
        let s = match &app {
            TfrcApp::Messages(source) => source.size,
            TfrcApp::Bulk { segment, .. } => *segment,
        };
        let profile = match spec.profile {
            TfrcProfileSpec::Rfc5348 => Profile::Rfc5348,
            TfrcProfileSpec::Rfc3448 => Profile::Rfc3448,
        };
        let cfg = SenderConfig {
            nofeedback: match spec.nofeedback_rule() {
                TfrcNofeedbackRuleSpec::Erratum1458 => NofeedbackRule::HalveRate,
                TfrcNofeedbackRuleSpec::Rfc3448Original => NofeedbackRule::HalveReceiveRate,
            },
            min_rto: spec.min_rto.0,
            oscillation_prevention: spec.oscillation_prevention,
            ..SenderConfig::new(profile, s)
        };
        let mut first = vec![Cmd::WakeAt {
            at: start,
            side: Side::Client,
            key: 0,
        }];
        if let TfrcApp::Messages(source) = &app {
            first.extend(source.schedule.next().map(Cmd::Tick));
        }
        let wire = tfrc_wire(spec.wire);
        let recent = (spec.recent_window.0 > SimTime::ZERO).then_some(Recent {
            window: spec.recent_window.0,
            intervals: spec.recent_intervals as usize,
        });
        let t = TfrcTransport {
            wire,
            app,
            buffer: VecDeque::new(),
            buffer_limit: spec.send_buffer as usize,
            buffer_drops: 0,
            client: match wire {
                Wire::Dccp => Client::Requesting {
                    retry: start,
                    backoff: REQUEST_TIMEOUT,
                    first: None,
                },
                Wire::Udp => Client::Open,
            },
            server_open: wire == Wire::Udp,
            sender: TfrcSender::new(cfg, start),
            receiver: TfrcReceiver::new(ReceiverConfig {
                receive_rate: match spec.receive_rate() {
                    TfrcReceiveRateSpec::SinceLastFeedback => ReceiveRate::SinceFeedback,
                    TfrcReceiveRateSpec::LastRtt => ReceiveRate::LastRtt,
                },
                s: f64::from(s),
                discounting: spec.history_discounting,
                ndupack: spec.ndupack,
                handover_notice: spec.handover_notice,
                recent,
            }),
            handover_notice: spec.handover_notice || recent.is_some(),
            link_down: false,
            rate_from_bss_load: spec.rate_from_bss_load,
            estimate: None,
            recent_rtt: recent.map(|r| (r.window, spec.recent_rtt_gain)),
            sink: MessageSink::default(),
            seq: 0,
            wakes: [Wake::default(); 2],
            start,
            opened: (wire == Wire::Udp).then_some(start),
            data_sent: 0,
            data_bytes: 0,
            feedback_received: 0,
            nofeedback_expiries: 0,
        };
        (t, first)
    }

    fn send(&mut self, side: Side, body: TfrcBody, io: &mut Io<'_>) {
        let body = Body::Tfrc(TfrcPacket {
            wire: self.wire,
            body,
        });
        io.cmds.push(Cmd::Send { side, key: 0, body });
    }

    /// A DCCP control packet from `side`.
    fn control(&mut self, side: Side, kind: DccpType, ack: u64, io: &mut Io<'_>) {
        let seq = match side {
            Side::Client => self.next_seq(),
            Side::Server => 0,
        };
        self.send(side, TfrcBody::Control { kind, seq, ack }, io);
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Whether the application has a packet for the sender now.
    fn has_data(&self) -> bool {
        match &self.app {
            TfrcApp::Messages(_) => !self.buffer.is_empty(),
            TfrcApp::Bulk { total, .. } => total.is_none_or(|t| self.data_bytes < t),
        }
    }

    /// The application's next packet.
    fn take(&mut self, now: SimTime) -> Option<UdpMessage> {
        match &self.app {
            TfrcApp::Messages(_) => self.buffer.pop_front(),
            &TfrcApp::Bulk { total, segment } => {
                let left = total.map_or(u64::from(segment), |t| t - self.data_bytes);
                (left > 0).then(|| UdpMessage {
                    kind: UdpKind::Data,
                    seq: self.data_sent,
                    sent_at: now,
                    len: segment.min(left as u32),
                })
            }
        }
    }

    /// Sends what TFRC's rate allows now (RFC 5348 §4.6: one packet per t_ipi).
    fn pump(&mut self, now: SimTime, io: &mut Io<'_>) {
        if self.client != Client::Open {
            return;
        }
        while self.sender.next_send() <= now {
            let Some(msg) = self.take(now) else { break };
            let seq = self.next_seq();
            let rtt = self.sender.rtt();
            self.send(
                Side::Client,
                TfrcBody::Data {
                    seq,
                    ts: now,
                    rtt,
                    msg,
                    in_handover: self.handover_notice && self.link_down,
                },
                io,
            );
            self.sender.on_send(now);
            self.data_sent += 1;
            self.data_bytes += u64::from(msg.len);
        }
    }

    fn trace(&self, now: SimTime, event: &str, io: &mut Io<'_>) {
        io.traces.record(&TfrcRecord {
            time: now,
            flow: io.flow,
            event,
            x_bps: self.sender.rate() * 8.0,
            x_recv_bps: self.sender.x_recv() * 8.0,
            p: self.sender.p(),
            rtt: self.sender.rtt(),
        });
    }

    /// A packet at the client: the handshake's Response, or feedback.
    fn at_client(&mut self, now: SimTime, body: TfrcBody, io: &mut Io<'_>) {
        match body {
            TfrcBody::Control {
                kind: DccpType::Response,
                seq,
                ..
            } => {
                if let Client::Requesting { first, backoff, .. } = self.client {
                    self.client = Client::Open;
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
                self.control(Side::Client, DccpType::Ack, seq, io);
            }
            TfrcBody::Feedback {
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
                self.sender.on_feedback(now, fb);
                self.trace(now, "feedback", io);
            }
            other => unreachable!("the client receives no {other:?}"),
        }
        self.pump(now, io);
    }

    /// A packet at the server: a Request, the handshake's Ack, or data.
    fn at_server(&mut self, now: SimTime, body: TfrcBody, io: &mut Io<'_>) {
        match body {
            TfrcBody::Control {
                kind: DccpType::Request,
                seq,
                ..
            } => self.control(Side::Server, DccpType::Response, seq, io),
            TfrcBody::Control {
                kind: DccpType::Ack,
                ..
            } => self.server_open = true,
            TfrcBody::Data {
                seq,
                ts,
                rtt,
                msg,
                in_handover,
            } => {
                // A data packet opens a server whose Ack was lost (RFC 4340 §8.1.5).
                self.server_open = true;
                deliver(&mut self.sink, now, &msg, io);
                let info = DataInfo {
                    seq,
                    sent: ts,
                    rtt,
                    size: msg.len,
                    in_handover,
                };
                if let Some(fb) = self.receiver.on_data(now, info) {
                    self.feedback(fb, io);
                }
            }
            other => unreachable!("the server receives no {other:?}"),
        }
    }

    /// Sends the receiver's feedback (RFC 5348 §6.2; a DCCP-Ack with CCID 3's options).
    fn feedback(&mut self, fb: Feedback, io: &mut Io<'_>) {
        let p_inv = if fb.p > 0.0 {
            (1.0 / fb.p).round().clamp(1.0, f64::from(NO_LOSS - 1)) as u32
        } else {
            NO_LOSS
        };
        let body = TfrcBody::Feedback {
            ack: self.receiver.highest().unwrap_or(0),
            t_recvdata: fb.t_recvdata,
            t_delay: fb.t_delay,
            x_recv: fb.x_recv.round().min(f64::from(u32::MAX)) as u32,
            p_inv,
            intervals: fb.intervals as u32,
        };
        self.send(Side::Server, body, io);
    }

    /// The client's wake-up: a Request to repeat, the no-feedback timer, or the next packet.
    fn client_wake(&mut self, now: SimTime, io: &mut Io<'_>) {
        match self.client {
            Client::Requesting {
                retry,
                backoff,
                first,
            } if retry <= now => {
                self.control(Side::Client, DccpType::Request, 0, io);
                self.client = Client::Requesting {
                    retry: now + backoff,
                    backoff: (backoff + backoff).min(REQUEST_TIMEOUT_MAX),
                    first: first.or(Some(now)),
                };
            }
            Client::Requesting { .. } => {}
            Client::Open => {
                if self.sender.nofeedback_at() <= now {
                    self.nofeedback_expiries += 1;
                    self.sender.on_nofeedback(now);
                    self.trace(now, "nofeedback", io);
                }
                self.pump(now, io);
            }
        }
    }
}

impl Transport for TfrcTransport {
    fn on_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        let TfrcApp::Messages(source) = &mut self.app else {
            unreachable!("only a message source ticks")
        };
        let msg = source.emit(now);
        if let Some(t) = source.schedule.next() {
            io.cmds.push(Cmd::Tick(t));
        }
        if self.buffer.is_empty() && self.sender.next_send() < now {
            // The sender could have sent but had nothing: data-limited (RFC 5348 §4.3).
            self.sender.on_no_data();
        }
        if self.buffer.len() < self.buffer_limit {
            self.buffer.push_back(msg);
        } else {
            self.buffer_drops += 1;
        }
        self.pump(now, io);
        io.cmds.push(Cmd::Arm {
            side: Side::Client,
            key: 0,
        });
    }

    fn on_packet(&mut self, now: SimTime, side: Side, body: Body, io: &mut Io<'_>) {
        let Body::Tfrc(packet) = body else {
            unreachable!("a TFRC flow carries TFRC packets")
        };
        match side {
            Side::Client => self.at_client(now, packet.body, io),
            Side::Server => self.at_server(now, packet.body, io),
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    fn on_wake(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.wakes[side.index()].fire(now);
        match side {
            Side::Client => self.client_wake(now, io),
            Side::Server => {
                if let Some(fb) = self.receiver.on_timeout(now) {
                    self.feedback(fb, io);
                }
            }
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    /// The client's link went down or came back: countermeasures B and C mark what is sent
    /// in between; A sets the estimated rate at both moments; C's RTT window starts when
    /// the link is back.
    fn on_link(&mut self, now: SimTime, side: Side, up: bool, io: &mut Io<'_>) {
        if side != Side::Client {
            return;
        }
        self.link_down = !up;
        if self.client != Client::Open {
            return;
        }
        if let Some(x) = self.estimate.filter(|_| self.rate_from_bss_load) {
            self.sender.set_rate(now, x);
            self.trace(now, "estimate", io);
        }
        if let (true, Some((window, gain))) = (up, self.recent_rtt) {
            self.sender.weight_recent_rtt(now, window, gain);
        }
        self.pump(now, io);
        io.cmds.push(Cmd::Arm {
            side: Side::Client,
            key: 0,
        });
    }

    /// Countermeasure A: the station read the BSS Load of the AP it is about to join; the
    /// fair share of its IP packets there is scaled to TFRC's payload rate (s of every
    /// IPv4 + transport header + s bytes).
    fn on_bss_load(&mut self, _now: SimTime, side: Side, load: &BssLoad, _io: &mut Io<'_>) {
        if side != Side::Client || !self.rate_from_bss_load {
            return;
        }
        let s = self.sender.config().s;
        let ip = IPV4_HEADER + self.wire.data_header() + s;
        self.estimate = load
            .fair_share(ip)
            .map(|x| x * f64::from(s) / f64::from(ip));
    }

    fn arm(&mut self, now: SimTime, side: Side, _key: u8) -> Option<SimTime> {
        let at = match side {
            Side::Client => match self.client {
                Client::Requesting { retry, .. } => retry,
                Client::Open if self.has_data() => {
                    self.sender.next_send().min(self.sender.nofeedback_at())
                }
                Client::Open => self.sender.nofeedback_at(),
            },
            Side::Server => self.receiver.poll_timeout()?,
        };
        self.wakes[side.index()].arm(now, at)
    }

    fn report(&self, _start: SimTime) -> TransportReport {
        let (sent, bytes) = match &self.app {
            TfrcApp::Messages(source) => (source.sent, source.sent_bytes),
            TfrcApp::Bulk { .. } => (self.data_sent, self.data_bytes),
        };
        TransportReport {
            kind: match self.wire {
                Wire::Dccp => "dccp",
                Wire::Udp => "tfrc",
            },
            messages_sent: sent,
            bytes_sent: bytes,
            sink: self.sink.clone(),
            bytes_delivered: self.sink.received_bytes,
            reliable: false,
            tcp: None,
            quic: None,
            tfrc: Some(TfrcSummary {
                wire: match self.wire {
                    Wire::Dccp => "dccp",
                    Wire::Udp => "udp",
                },
                handshake_time_s: self
                    .opened
                    .map(|t| t.saturating_sub(self.start).as_secs_f64()),
                data_packets_sent: self.data_sent,
                send_buffer_drops: self.buffer_drops,
                feedback_received: self.feedback_received,
                nofeedback_expiries: self.nofeedback_expiries,
                data_bytes_sent: self.data_bytes,
                final_rate_bps: self.sender.rate() * 8.0,
                final_p: self.receiver.loss_event_rate(),
                loss_events: self.receiver.loss_events,
                lost_packets: self.receiver.lost,
                final_rtt_s: self.sender.rtt().map(SimTime::as_secs_f64),
            }),
            switcher: None,
        }
    }
}
