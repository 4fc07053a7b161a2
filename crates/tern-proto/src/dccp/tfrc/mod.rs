//! TCP-Friendly Rate Control (TFRC, RFC 5348; RFC 3448 as a profile), the congestion control
//! of DCCP's CCID 3 (RFC 4342) and of TFRC over UDP (RFC 5348 §3.2).
//!
//! [`TfrcSender`] turns the receiver's feedback into an allowed sending rate and an
//! inter-packet interval; [`TfrcReceiver`] turns data packets into loss events, the loss
//! event rate and feedback. Both are driven by the caller with the current time
//! ([`super::Client`] and [`super::Server`] drive them on a DCCP or UDP half-connection).

pub mod equation;
pub mod loss;
pub mod receiver;
pub mod sender;

pub use receiver::{
    DataInfo, Feedback, FirstInterval, LossGrouping, ReceiveRate, ReceiverConfig, Recent,
    TfrcReceiver, NDUPACK,
};
pub use sender::{FeedbackIn, NofeedbackRule, Profile, SenderConfig, TfrcSender};
