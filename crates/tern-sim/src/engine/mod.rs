//! The discrete-event engine: simulated time, the single event queue and the
//! per-component random number streams.

pub mod queue;
pub mod rng;

pub use queue::EventQueue;
pub use rng::RngStream;
pub use tern_proto::time::SimTime;
