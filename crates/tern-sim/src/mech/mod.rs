//! Mechanisms proposed by the studies, named for what they do. Each is a
//! plain state machine: the world feeds it events with the current time and
//! acts on what it returns.

pub mod switcher;
