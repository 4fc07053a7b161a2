//! What an ACK removed from the queue or newly SACKed, with the send times an RTT sample
//! is taken from (`tcp::rtt_sample`).

use crate::time::SimTime;

/// What a cumulative ACK removed from the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    pub bytes: u64,
    /// `sent_at` of the newest fully acknowledged segment, SACKed or not (the Karn sample's
    /// send time, [`Acked::karn_sample_from`]).
    pub newest_sent: Option<SimTime>,
    /// Some fully acknowledged segment was ever retransmitted (Linux's
    /// `FLAG_RETRANS_DATA_ACKED`).
    pub retransmitted: bool,
    /// `sent_at` of the oldest and of the newest fully acknowledged segments that were
    /// neither retransmitted nor SACKed before (Linux's `first_ackt` and `last_ackt` in
    /// `tcp_clean_rtx_queue`).
    pub first_sent: Option<SimTime>,
    pub last_sent: Option<SimTime>,
}

impl Acked {
    /// The send time an RTT sample is taken from under Karn's rule (RFC 6298 §3): the
    /// newest fully acknowledged segment's, when none of them was ever retransmitted.
    /// Unlike [`Acked::last_sent`] it may be a segment SACKed before (the timestamp-first
    /// source's rate sample and its no-timestamp estimator, `tcp::rtt_sample`).
    pub fn karn_sample_from(&self) -> Option<SimTime> {
        self.newest_sent.filter(|_| !self.retransmitted)
    }
}

/// What [`super::Scoreboard::apply_sack_timed`] newly SACKed: bytes, and the send times of the
/// lowest and of the highest newly SACKed segments never retransmitted (Linux's
/// `first_sackt` and `last_sackt` in `tcp_sacktag_one`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    pub bytes: u64,
    pub first_sent: Option<SimTime>,
    pub last_sent: Option<SimTime>,
}
