//! What a connection that samples delivery rates keeps beside the scoreboard's queue: each
//! segment's rate snapshot, the deliveries since the last ACK's sample and the segments
//! newly marked lost (draft-cheng-iccrg-delivery-rate-estimation; Linux's `tcp_rate.c`).

use std::collections::VecDeque;

use crate::tcp::rate::TxState;
use crate::time::SimTime;

/// The rate-sampling state of a scoreboard, boxed: a connection that does not sample
/// carries one pointer for it.
#[derive(Clone, Debug, Default)]
pub(super) struct Sampled {
    /// The snapshot of each queued segment's latest transmission, index for index with
    /// the queue (`None`: sent without one).
    pub txs: VecDeque<Option<TxState>>,
    pub delivered: Delivered,
    /// Segments with a rate snapshot marked lost since `Scoreboard::take_lost` was last
    /// called.
    pub lost_tx: Vec<LostTx>,
}

/// What ACKs delivered since `Scoreboard::take_delivered` was last called: the bytes
/// newly acknowledged or SACKed, and the newest-sent delivered segment with a pending
/// rate snapshot (its send time and snapshot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    pub bytes: u64,
    pub newest: Option<(SimTime, TxState)>,
}

impl Delivered {
    /// `bytes` of a segment sent at `sent_at` with snapshot `tx` were delivered.
    #[inline]
    pub(super) fn add(&mut self, sent_at: SimTime, tx: Option<&TxState>, bytes: u64) {
        self.bytes += bytes;
        if let Some(tx) = tx.filter(|tx| tx.pending) {
            if self.newest.is_none_or(|(at, _)| sent_at >= at) {
                self.newest = Some((sent_at, *tx));
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

/// The recording part of `mark_lost` for the segment at queue index `i`, of `bytes`, out
/// of line: only a sampling connection runs it.
#[inline(never)]
pub(super) fn record_lost(sampled: &mut Sampled, i: usize, bytes: u64, total_lost: u64) {
    if let Some(tx) = sampled.txs[i] {
        sampled.lost_tx.push(LostTx {
            tx,
            bytes,
            total_lost,
        });
    }
}
