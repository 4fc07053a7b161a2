//! The discrete-event engine: simulated time, the single event queue, the per-component
//! random number streams and the one-pending-wake-up rule.

pub mod queue;
pub mod rng;
pub mod wake;

pub use queue::EventQueue;
pub use rng::RngStream;
pub use tern_proto::time::SimTime;
pub use wake::Wake;
