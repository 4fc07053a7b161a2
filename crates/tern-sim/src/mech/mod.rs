//! Mechanisms proposed by the studies, named for what they do. Each is a plain state
//! machine ([`switcher`]) fed events with the current time; where it sits above transports
//! ([`switched`]) the glue is a [`crate::transport::Transport`] of its own.

pub mod records;
pub mod rssi_quic;
pub(crate) use records::records;
pub mod rssi_scheduler;
pub mod summary;
pub mod switched;
pub mod switcher;
pub mod tfrc_handover;
