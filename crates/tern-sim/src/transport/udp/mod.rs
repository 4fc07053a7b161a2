//! UDP (RFC 768) carrying Tern's application messages: a message source at the client, and
//! at the server a sink (data: one-way delay) or an echo responder (ping).

pub mod capture;
pub mod wire;
pub use wire::OnWire;
pub mod spec;
pub mod summary;
pub use spec::{check, Spec, UdpSpec, STREAM};
pub mod records;
pub(crate) use records::records;

use super::{
    deliver, Arrival, Cmd, Io, Side, Transport, TransportReport, WireBody,
};
use crate::app::{MessageSink, MessageSource};
use crate::engine::SimTime;
use crate::net::body::PROTO_UDP;
use crate::net::packet::{Body, UdpKind, UdpMessage, UDP_HEADER};
use records::RttRecord;
use crate::transport::build_cx::{boxed, BuildCx};

/// A UDP flow: datagrams carry no state beyond the application's messages.
pub struct UdpTransport {
    source: MessageSource,
    /// Data: one-way delays at the receiver. Echo: round-trip times at the sender.
    sink: MessageSink,
}

impl UdpTransport {
    /// The flow, and its first command (the source's first message).
    pub fn new(source: MessageSource) -> (UdpTransport, Vec<Cmd>) {
        let first = source.schedule.next().map(Cmd::Tick).into_iter().collect();
        let t = UdpTransport {
            source,
            sink: MessageSink::default(),
        };
        (t, first)
    }
}

impl Transport for UdpTransport {
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        let msg = self.source.emit(now);
        if let Some(t) = self.source.schedule.next() {
            io.cmds.push(Cmd::Tick(t));
        }
        io.cmds.push(Cmd::Send {
            side: Side::Client,
            key: 0,
            body: Body::Udp(msg),
        });
    }

    fn handle_packet(&mut self, now: SimTime, _side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        let Body::Udp(msg) = *packet.body() else {
            unreachable!("a UDP flow carries datagrams")
        };
        match msg.kind {
            UdpKind::Data => deliver(&mut self.sink, now, &msg, io),
            UdpKind::EchoRequest => {
                // The far end answers with the same payload (RFC 792 echo semantics).
                let reply = UdpMessage {
                    kind: UdpKind::EchoReply,
                    ..msg
                };
                io.cmds.push(Cmd::Send {
                    side: Side::Server,
                    key: 0,
                    body: Body::Udp(reply),
                });
            }
            UdpKind::EchoReply => {
                let rtt = self.sink.receive(now, &msg);
                io.traces.record(&RttRecord {
                    time: now,
                    flow: io.flow,
                    seq: msg.seq,
                    rtt,
                });
            }
            UdpKind::Notice => unreachable!("notices belong to a mechanism's flow"),
        }
    }

    fn handle_timeout(&mut self, _now: SimTime, _side: Side, _key: u8, _io: &mut Io<'_>) {}

    fn poll_timeout(&mut self, _now: SimTime, _side: Side, _key: u8) -> Option<SimTime> {
        None
    }

    fn report(&self, _start: SimTime) -> TransportReport {
        TransportReport {
            kind: "udp",
            messages_sent: self.source.sent,
            bytes_sent: self.source.sent_bytes,
            sink: self.sink.clone(),
            bytes_delivered: self.sink.received_bytes,
            reliable: false,
            detail: None,
        }
    }
}



/// The flow's transport: its application's datagrams.
pub fn build(_: &UdpSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    boxed(UdpTransport::new(
        cx.source.expect("validated: UDP has a source"),
    ))
}


impl WireBody for UdpMessage {
    #[inline]
    fn transport_len(&self) -> u32 {
        UDP_HEADER + self.len
    }

    fn ip_proto(&self) -> u8 {
        PROTO_UDP
    }

    fn is_message(&self) -> bool {
        true
    }
}
