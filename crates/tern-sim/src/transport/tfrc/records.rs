//! TFRC's trace records: the sender's rate after every feedback.

use crate::engine::SimTime;

crate::record! {
    /// A TFRC sender's state after every feedback packet and every no-feedback timeout
    /// (RFC 5348 §4.3–4.4).
    TfrcRecord<'a> => "tfrc" {
        time: SimTime,
        flow: &'a str,
        /// "feedback" or "nofeedback".
        event: &'a str,
        /// The allowed sending rate X, bit/s.
        x_bps: f64,
        /// The receive rate X_recv the receiver reported last, bit/s.
        x_recv_bps: f64,
        /// The loss event rate p reported last.
        p: f64,
        /// The RTT estimate R (§4.3), once there is one.
        rtt: Option<SimTime>,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// TFRC: the sender's allowed rate X, the reported receive rate X_recv, the loss event
                /// rate p and the RTT estimate, at every feedback and no-feedback timeout.
                Tfrc = "tfrc",
            }
            tables {
                TfrcRecord in transport::tfrc::records => Tfrc,
            }
        }
    };
}
pub(crate) use records;
