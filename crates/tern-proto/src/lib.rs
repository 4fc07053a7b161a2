//! Sans-IO transport and link-layer protocol state machines for Tern.
//!
//! Every endpoint here is a plain struct: it is given the current time and
//! incoming segments, and it is polled for segments to send and for its next
//! timer deadline. Nothing here reads a clock, performs I/O or owns a random
//! number generator; values that need randomness (initial sequence numbers)
//! are passed in by the caller.

pub mod cc;
pub mod dccp;
pub mod rlc;
pub mod seq;
pub mod tcp;
pub mod time;
