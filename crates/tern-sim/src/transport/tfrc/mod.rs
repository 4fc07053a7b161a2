//! TFRC flows: the DCCP/TFRC half-connection of `tern_proto::dccp` (RFC 4340 with CCID 3 of
//! RFC 4342, or TFRC over UDP, RFC 5348 §3.2) carrying the application's messages as
//! unreliable datagrams. A mechanism above it may hear of the client's link through the
//! [`Aid`] seam (the tfrc-handover study's countermeasures, `mech::tfrc_handover`).
//!
//! The sending application writes into a send buffer of a few packets in the transport
//! (Linux DCCP's `tx_qlen`), which TFRC's rate drains; a message that finds it full is
//! dropped. The receiving application gets every data packet that arrives, with its
//! one-way delay.

pub mod capture;
pub mod wire;
pub use wire::OnWire;
pub mod records;
pub(crate) use records::records;
pub mod spec;
pub mod summary;
mod setup;

use std::collections::VecDeque;

use super::{
    deliver, Arrival, Cmd, Io, LinkObserver, Side, Transport, TransportReport, WireBody,
};
use crate::app::{MessageSink, MessageSource};
use crate::engine::{SimTime, Wake};
use crate::net::body::{PROTO_DCCP, PROTO_UDP};
use crate::net::packet::{Body, UdpKind, UdpMessage};
use spec::{
    TfrcFirstIntervalSpec, TfrcLossGroupingSpec, TfrcNofeedbackRuleSpec, TfrcProfileSpec, TfrcReceiveRateSpec, TfrcSpec,
    TfrcWireSpec,
};
pub use summary::{Summary, TfrcSummary};
use records::TfrcRecord;
use crate::wifi::bss_load::BssLoad;
use tern_proto::dccp::tfrc::{
    FirstInterval, LossGrouping, NofeedbackRule, Profile, ReceiveRate, ReceiverConfig, Recent, SenderConfig,
};
use tern_proto::dccp::{Body as DccpBody, Client, ClientEvent, Packet, Server, Wire};

/// The wire of a scenario's TFRC settings.
pub fn tfrc_wire(w: TfrcWireSpec) -> Wire {
    match w {
        TfrcWireSpec::Dccp => Wire::Dccp,
        TfrcWireSpec::Udp => Wire::Udp,
    }
}

/// What the sending application is.
pub enum TfrcApp {
    /// Messages on the source's schedule, queued in the send buffer.
    Messages(MessageSource),
    /// Always something to send: segments of `segment` bytes, `total` bytes in all (or
    /// unbounded).
    Bulk { total: Option<u64>, segment: u32 },
}

/// What a mechanism above a TFRC flow's sending station does, called by the flow in this
/// order: [`Aid::on_bss_load`] whenever the station reads a BSS Load, [`Aid::on_link`] on
/// each change of the station's link, [`Aid::in_handover`] before each round of data sent.
pub trait Aid {
    /// Whether a data packet sent now carries the handover notice.
    fn in_handover(&self) -> bool;
    /// The station's link went down or came back at `now`; returns whether the aid set the
    /// sender's rate.
    fn on_link(&mut self, now: SimTime, up: bool, client: &mut Client) -> bool;
    /// The station read the BSS Load of the AP it is about to join.
    fn on_bss_load(&mut self, load: &BssLoad, client: &Client);
}

/// A TFRC flow: the client (sender) and the server (receiver) of one half-connection.
pub struct TfrcTransport {
    app: TfrcApp,
    buffer: VecDeque<UdpMessage>,
    buffer_limit: usize,
    buffer_drops: u64,
    client: Client,
    server: Server,
    aid: Option<Box<dyn Aid>>,
    sink: MessageSink,
    wakes: [Wake; 2],
    start: SimTime,
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
            nofeedback_rtts: spec.nofeedback_rtts,
            additive_increase: spec.additive_increase,
            rtt_filter: spec.rtt_filter,
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
        let receiver = ReceiverConfig {
            receive_rate: match spec.receive_rate() {
                TfrcReceiveRateSpec::SinceLastFeedback => ReceiveRate::SinceFeedback,
                TfrcReceiveRateSpec::LastRtt => ReceiveRate::LastRtt,
                TfrcReceiveRateSpec::SinceLastFeedbackOrLastRtt => {
                    ReceiveRate::SinceFeedbackOrLastRtt
                }
                TfrcReceiveRateSpec::LinuxCcid3 => ReceiveRate::LinuxCcid3,
            },
            s: f64::from(s),
            discounting: spec.history_discounting,
            ndupack: spec.ndupack,
            handover_notice: spec.handover_notice,
            recent,
            grouping: match spec.loss_grouping() {
                TfrcLossGroupingSpec::Interpolated => LossGrouping::Interpolated,
                TfrcLossGroupingSpec::Round => LossGrouping::Round,
                TfrcLossGroupingSpec::WindowCounter => LossGrouping::WindowCounter,
            },
            first_interval: match spec.first_interval {
                TfrcFirstIntervalSpec::Synthesized => FirstInterval::Synthesized,
                TfrcFirstIntervalSpec::Counted => FirstInterval::Counted,
            },
        };
        let t = TfrcTransport {
            app,
            buffer: VecDeque::new(),
            buffer_limit: spec.send_buffer as usize,
            buffer_drops: 0,
            client: Client::new(wire, cfg, start),
            server: Server::new(wire, receiver),
            aid: None,
            sink: MessageSink::default(),
            wakes: [Wake::default(); 2],
            start,
        };
        (t, first)
    }

    /// The flow with `aid` above its sending station.
    pub fn with_aid(mut self, aid: Box<dyn Aid>) -> TfrcTransport {
        self.aid = Some(aid);
        self
    }

    fn send(side: Side, packet: Packet<UdpMessage>, io: &mut Io<'_>) {
        let body = Body::Tfrc(packet);
        io.cmds.push(Cmd::Send { side, key: 0, body });
    }

    /// Whether the application has a packet for the sender now.
    fn has_data(&self) -> bool {
        match &self.app {
            TfrcApp::Messages(_) => !self.buffer.is_empty(),
            TfrcApp::Bulk { total, .. } => total.is_none_or(|t| self.client.data_sent().1 < t),
        }
    }

    /// Sends what the client has: control packets, then the data TFRC's rate allows now.
    fn pump(&mut self, now: SimTime, io: &mut Io<'_>) {
        while let Some(p) = self.client.poll_control() {
            Self::send(Side::Client, p, io);
        }
        let in_handover = self.aid.as_ref().is_some_and(|a| a.in_handover());
        loop {
            let (sent, bytes) = self.client.data_sent();
            let buffer = &mut self.buffer;
            let take = || match &self.app {
                TfrcApp::Messages(_) => buffer.pop_front(),
                &TfrcApp::Bulk { total, segment } => {
                    let left = total.map_or(u64::from(segment), |t| t - bytes);
                    (left > 0).then(|| UdpMessage {
                        kind: UdpKind::Data,
                        seq: sent,
                        sent_at: now,
                        len: segment.min(left as u32),
                    })
                }
            };
            let Some(p) = self.client.poll_data(now, in_handover, take) else {
                break;
            };
            Self::send(Side::Client, p, io);
        }
    }

    fn trace(&self, now: SimTime, event: &str, io: &mut Io<'_>) {
        let sender = self.client.sender();
        io.traces.record(&TfrcRecord {
            time: now,
            flow: io.flow,
            event,
            x_bps: sender.rate() * 8.0,
            x_recv_bps: sender.x_recv() * 8.0,
            p: sender.p(),
            rtt: sender.rtt(),
        });
    }

    fn client_event(&self, now: SimTime, event: Option<ClientEvent>, io: &mut Io<'_>) {
        match event {
            Some(ClientEvent::Feedback) => self.trace(now, "feedback", io),
            Some(ClientEvent::Nofeedback) => self.trace(now, "nofeedback", io),
            None => {}
        }
    }

    /// A packet at the server: data is delivered to the application, then the server takes
    /// it in; its answer (a Response, feedback) goes out.
    fn at_server(&mut self, now: SimTime, body: DccpBody<UdpMessage>, io: &mut Io<'_>) {
        if let DccpBody::Data { msg, .. } = &body {
            deliver(&mut self.sink, now, msg, io);
        }
        self.server.handle_packet(now, body);
        if let Some(p) = self.server.poll_transmit() {
            Self::send(Side::Server, p, io);
        }
    }
}

impl Transport for TfrcTransport {
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        let TfrcApp::Messages(source) = &mut self.app else {
            unreachable!("only a message source ticks")
        };
        let msg = source.emit(now);
        if let Some(t) = source.schedule.next() {
            io.cmds.push(Cmd::Tick(t));
        }
        if self.buffer.is_empty() {
            self.client.handle_no_data(now);
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

    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        let Body::Tfrc(packet) = packet.into_body() else {
            unreachable!("a TFRC flow carries TFRC packets")
        };
        match side {
            Side::Client => {
                let event = self.client.handle_packet(now, packet.body);
                self.client_event(now, event, io);
                self.pump(now, io);
            }
            Side::Server => self.at_server(now, packet.body, io),
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    fn handle_timeout(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.wakes[side.index()].fire(now);
        match side {
            Side::Client => {
                let event = self.client.handle_timeout(now);
                self.client_event(now, event, io);
                self.pump(now, io);
            }
            Side::Server => {
                self.server.handle_timeout(now);
                if let Some(p) = self.server.poll_transmit() {
                    Self::send(Side::Server, p, io);
                }
            }
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    fn poll_timeout(&mut self, now: SimTime, side: Side, _key: u8) -> Option<SimTime> {
        let at = match side {
            Side::Client => self.client.poll_timeout(self.has_data()),
            Side::Server => self.server.poll_timeout()?,
        };
        self.wakes[side.index()].arm(now, at)
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        Some(self)
    }

    fn report(&self, _start: SimTime) -> TransportReport {
        let (data_sent, data_bytes) = self.client.data_sent();
        let (sent, bytes) = match &self.app {
            TfrcApp::Messages(source) => (source.sent, source.sent_bytes),
            TfrcApp::Bulk { .. } => (data_sent, data_bytes),
        };
        let wire = self.client.wire();
        let sender = self.client.sender();
        let receiver = self.server.receiver();
        TransportReport {
            kind: match wire {
                Wire::Dccp => "dccp",
                Wire::Udp => "tfrc",
            },
            messages_sent: sent,
            bytes_sent: bytes,
            sink: self.sink.clone(),
            bytes_delivered: self.sink.received_bytes,
            reliable: false,
            detail: Some(
                Summary {
                    tfrc: TfrcSummary {
                wire: match wire {
                    Wire::Dccp => "dccp",
                    Wire::Udp => "udp",
                },
                handshake_time_s: self
                    .client
                    .opened()
                    .map(|t| t.saturating_sub(self.start).as_secs_f64()),
                data_packets_sent: data_sent,
                send_buffer_drops: self.buffer_drops,
                feedback_received: self.client.feedback_received(),
                nofeedback_expiries: self.client.nofeedback_expiries(),
                data_bytes_sent: data_bytes,
                final_rate_bps: sender.rate() * 8.0,
                final_p: receiver.loss_event_rate(),
                loss_events: receiver.loss_events,
                lost_packets: receiver.lost,
                final_rtt_s: sender.rtt().map(SimTime::as_secs_f64),
                    },
                }
                .into(),
            ),
        }
    }
}

/// The aid above the flow, if any, hears of the client's link ([`Aid`]).
impl LinkObserver for TfrcTransport {
    /// The client's link went down or came back: the aid acts ([`Aid::on_link`]).
    fn handle_link(&mut self, now: SimTime, side: Side, up: bool, io: &mut Io<'_>) {
        if side != Side::Client {
            return;
        }
        let estimated = match self.aid.as_mut() {
            Some(aid) => aid.on_link(now, up, &mut self.client),
            None => false,
        };
        if !self.client.is_open() {
            return;
        }
        if estimated {
            self.trace(now, "estimate", io);
        }
        self.pump(now, io);
        io.cmds.push(Cmd::Arm {
            side: Side::Client,
            key: 0,
        });
    }

    /// The aid reads the BSS Load of the AP the station is about to join.
    fn handle_bss_load(&mut self, _now: SimTime, side: Side, load: &BssLoad, _io: &mut Io<'_>) {
        if let (Side::Client, Some(aid)) = (side, self.aid.as_mut()) {
            aid.on_bss_load(load, &self.client);
        }
    }
}

pub use setup::{build, transport};
pub use spec::{check, Spec, STREAM};

/// The TFRC settings of a flow, for a TFRC flow.
impl super::TransportSpec {
    pub fn tfrc(&self) -> Option<&TfrcSpec> {
        match self {
            super::TransportSpec::Tfrc(spec) => Some(spec),
            _ => None,
        }
    }
}


impl WireBody for Packet<UdpMessage> {
    #[inline]
    fn transport_len(&self) -> u32 {
        Packet::transport_len(self)
    }

    /// DCCP's, or UDP's when TFRC runs over UDP.
    fn ip_proto(&self) -> u8 {
        match self.wire {
            Wire::Udp => PROTO_UDP,
            Wire::Dccp => PROTO_DCCP,
        }
    }

    /// A data packet carries a message.
    fn is_message(&self) -> bool {
        self.is_data()
    }
}
