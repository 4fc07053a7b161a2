//! TCP-Friendly Rate Control (TFRC, RFC 5348; RFC 3448 as a profile), sans-IO.
//!
//! [`TfrcSender`] turns the receiver's feedback into an allowed sending rate and an
//! inter-packet interval; [`TfrcReceiver`] turns data packets into loss events, the loss
//! event rate and feedback. Both are driven by the caller with the current time, so they
//! serve TFRC over UDP (RFC 5348 §3.2) and DCCP's CCID 3 (RFC 4342) alike.

pub mod equation;
pub mod loss;
pub mod receiver;
pub mod sender;

pub use receiver::{
    DataInfo, Feedback, ReceiveRate, ReceiverConfig, Recent, TfrcReceiver, NDUPACK,
};
pub use sender::{FeedbackIn, NofeedbackRule, Profile, SenderConfig, TfrcSender};
