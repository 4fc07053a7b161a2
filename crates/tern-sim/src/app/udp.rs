//! Message sources and sinks over UDP.

use super::SendSchedule;
use crate::engine::SimTime;
use crate::net::packet::{UdpKind, UdpMessage};

/// What a source sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Data messages (periodic, cbr), recorded by the receiver's sink.
    Data,
    /// Echo requests (ping); the receiver answers each.
    Echo,
}

/// Sends a message of a fixed size on a [`SendSchedule`].
#[derive(Clone, Debug)]
pub struct MessageSource {
    pub kind: SourceKind,
    pub size: u32,
    pub schedule: SendSchedule,
    pub sent: u64,
    pub sent_bytes: u64,
}

impl MessageSource {
    pub fn new(kind: SourceKind, size: u32, schedule: SendSchedule) -> Self {
        MessageSource {
            kind,
            size,
            schedule,
            sent: 0,
            sent_bytes: 0,
        }
    }

    /// A source that never sends: the spare connection of a switched flow,
    /// which is written to by the flow's own source.
    pub fn silent() -> Self {
        let never =
            SendSchedule::every(SimTime::ZERO, SimTime::from_secs(1), SimTime::ZERO, Some(0));
        MessageSource::new(SourceKind::Data, 0, never)
    }

    /// The message due now; the caller then asks [`SendSchedule::next`] for the next wake-up.
    pub fn emit(&mut self, now: SimTime) -> UdpMessage {
        let seq = self.schedule.advance();
        self.sent += 1;
        self.sent_bytes += u64::from(self.size);
        UdpMessage {
            kind: match self.kind {
                SourceKind::Data => UdpKind::Data,
                SourceKind::Echo => UdpKind::EchoRequest,
            },
            seq,
            sent_at: now,
            len: self.size,
        }
    }
}

/// Receives messages and keeps their one-way delays (or, for ping, round-trip times).
#[derive(Clone, Debug, Default)]
pub struct MessageSink {
    pub received: u64,
    pub received_bytes: u64,
    /// Delay of every message, in nanoseconds, in arrival order.
    pub delays: Vec<u64>,
}

impl MessageSink {
    /// Records `msg` arriving at `now`; returns its delay.
    pub fn receive(&mut self, now: SimTime, msg: &UdpMessage) -> SimTime {
        let delay = now.saturating_sub(msg.sent_at);
        self.received += 1;
        self.received_bytes += u64::from(msg.len);
        self.delays.push(delay.as_nanos());
        delay
    }
}
