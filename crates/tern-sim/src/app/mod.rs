//! Applications: message sources and sinks over UDP (periodic, cbr, ping).

mod schedule;
mod udp;

pub use schedule::SendSchedule;
pub use udp::{MessageSink, MessageSource, SourceKind};
