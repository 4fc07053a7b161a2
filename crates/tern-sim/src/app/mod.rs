//! Applications: message sources and sinks over UDP (periodic, cbr, ping), and messages over
//! a byte stream (TCP, QUIC).

mod schedule;
mod stream;
mod udp;

pub use schedule::SendSchedule;
pub use stream::{Delivered, MessageStream};
pub use udp::{MessageSink, MessageSource, SourceKind};
