//! What a connection that samples delivery rates collects from the scoreboard: the
//! deliveries since the last ACK's sample and the segments newly marked lost
//! (draft-cheng-iccrg-delivery-rate-estimation; Linux's `tcp_rate.c`).

use super::SentSeg;
use crate::tcp::rate::TxState;
use crate::time::SimTime;

/// What ACKs delivered since [`Scoreboard::take_delivered`] was last called: the bytes
/// newly acknowledged or SACKed, and the newest-sent delivered segment with a pending
/// rate snapshot (its send time and snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub bytes: u64,
    pub newest: Option<(SimTime, TxState)>,
}

impl Delivered {
    #[inline]
    pub(super) fn add(&mut self, s: &SentSeg, bytes: u64) {
        self.bytes += bytes;
        if let Some(tx) = s.tx.as_deref().filter(|tx| tx.pending) {
            if self.newest.is_none_or(|(at, _)| s.sent_at >= at) {
                self.newest = Some((s.sent_at, *tx));
            }
        }
    }
}

/// A segment newly marked lost that carries a rate snapshot (a connection that samples
/// delivery rates): the snapshot, the segment's size and the bytes ever marked lost with it
/// counted (Linux's `tp->lost` as `tcp_notify_skb_loss_event` leaves it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostTx {
    pub tx: TxState,
    pub bytes: u64,
    pub total_lost: u64,
}

/// The recording part of `mark_lost`, out of line: only a sampling connection runs it.
#[inline(never)]
pub(super) fn record_lost(lost_tx: &mut Vec<LostTx>, s: &SentSeg, total_lost: u64) {
    if let Some(tx) = s.tx.as_deref() {
        lost_tx.push(LostTx {
            tx: *tx,
            bytes: s.size(),
            total_lost,
        });
    }
}
