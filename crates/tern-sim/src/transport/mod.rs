//! Transports as the world drives them: the glue between applications, the
//! sans-IO protocol state machines of `tern-proto`, and packets.

pub mod tcp;
