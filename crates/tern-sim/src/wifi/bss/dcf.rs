//! The DCF frame exchange of 802.11b and 802.11g (IEEE 802.11-2016 §10.3.2): one Data MPDU
//! per transmit opportunity, answered by an Ack after SIFS (§10.3.2.11) at the
//! control-response rate (§10.6.6.5.2).
//!
//! The Data frame goes at the BSS's fixed rate or, for 802.11g without one, at the rate the
//! sender's rate control picks for the peer. Without an Ack the sender invokes backoff
//! when AckTimeout expires and retries the same frame until it has made the retry limit's
//! attempts (dot11ShortRetryLimit, 7, §10.3.4.4), then drops it.

use super::super::frames::dcf_mpdu_len;
use super::super::rate::{LegacyRateSet, RateControl};
use super::config::DcfRate;
use super::exchange::{expire_queue, Cx, FrameExchange, Ppdu, Tx};
use super::frame::Frame;
use super::outcome::{Outcome, TxRecord};
use crate::engine::SimTime;
use std::collections::VecDeque;

/// The data rate of each Data frame.
pub(crate) enum DcfRates {
    /// One rate for every frame (802.11b; 802.11g with `rate`).
    Fixed(DcfRate),
    /// Per sender and peer, the ERP-OFDM rate control (802.11g without a fixed rate).
    Adaptive(Vec<Vec<Option<RateControl<LegacyRateSet>>>>),
}

/// The DCF side of one MAC entity.
struct Entity {
    /// Frames not yet sent, in arrival order; the head is the one being sent or retried.
    queue: VecDeque<Frame>,
    /// Attempts of the head-of-line frame so far.
    attempts: u32,
    /// The Data frame on the air, its rate, and whether its Ack came.
    on_air: Option<(Frame, DcfRate, bool)>,
}

/// Data/Ack exchanges of every entity of a DCF BSS.
pub(crate) struct DcfExchange {
    entities: Vec<Entity>,
    rates: DcfRates,
    /// Transmission attempts of a frame before it is dropped.
    retry_limit: u32,
}

impl DcfExchange {
    /// The exchanges of `n` entities (the AP and its stations).
    pub fn new(n: usize, rates: DcfRates, retry_limit: u32) -> DcfExchange {
        DcfExchange {
            entities: (0..n)
                .map(|_| Entity {
                    queue: VecDeque::new(),
                    attempts: 0,
                    on_air: None,
                })
                .collect(),
            rates,
            retry_limit,
        }
    }
}

impl FrameExchange for DcfExchange {
    #[inline]
    fn queue(&mut self, i: usize) -> &mut VecDeque<Frame> {
        &mut self.entities[i].queue
    }

    #[inline]
    fn backlog(&self, i: usize) -> usize {
        self.entities[i].queue.len()
    }

    #[inline]
    fn has_traffic(&self, i: usize) -> bool {
        !self.entities[i].queue.is_empty()
    }

    /// The head-of-line frame after its first attempt is being retried: it stays.
    fn expire(&mut self, now: SimTime, lifetime: SimTime, cx: &mut Cx<'_>) -> SimTime {
        let mut next = SimTime::MAX;
        for (i, e) in self.entities.iter_mut().enumerate() {
            let skip = usize::from(e.attempts > 0);
            next = next.min(expire_queue(i, &mut e.queue, skip, (now, lifetime), cx));
        }
        next
    }

    /// The head-of-line frame, at the fixed rate or the one the rate control picks at the
    /// receiver's SNR.
    fn start(&mut self, now: SimTime, i: usize, cx: &mut Cx<'_>) -> Ppdu {
        let f = *self.entities[i].queue.front().expect("has traffic");
        let snr_db = cx.radio.snr_db(i, f.peer, now);
        let rate = match &mut self.rates {
            DcfRates::Fixed(rate) => *rate,
            DcfRates::Adaptive(rc) => rc[i][f.peer]
                .as_mut()
                .expect("a station talks to the AP")
                .select(now, Some(snr_db)),
        };
        self.entities[i].on_air = Some((f, rate, false));
        Ppdu {
            peer: f.peer,
            airtime: rate.txtime(dcf_mpdu_len(f.bytes)),
            snr_db,
            header_snr_db: snr_db,
        }
    }

    /// The receiver passes the frame up and acknowledges it if it arrived.
    fn receive(&mut self, tx: &Tx, cx: &mut Cx<'_>) -> Option<SimTime> {
        let (f, rate, acked) = self.entities[tx.entity].on_air.as_mut().expect("on air");
        let bits = u64::from(dcf_mpdu_len(f.bytes)) * 8;
        let snr_db = tx.snr_db;
        let rate = *rate;
        if cx.errors.arrives(snr_db, rate.cache_key(), bits, || {
            rate.success(snr_db, bits)
        }) {
            cx.out.delivered.push((tx.entity, tx.peer, f.packet));
            *acked = true;
            Some(rate.ack_txtime())
        } else {
            None
        }
    }

    /// The frame leaves the queue once acknowledged or after its last attempt.
    fn conclude(&mut self, now: SimTime, tx: &Tx, record: &mut TxRecord, cx: &mut Cx<'_>) -> bool {
        let i = tx.entity;
        let e = &mut self.entities[i];
        let (f, rate, success) = e.on_air.take().expect("on air");
        cx.counters.mpdus_sent += 1;
        record.rate_bps = rate.bps() as f64;
        if let DcfRates::Adaptive(rc) = &mut self.rates {
            if let Some(rc) = rc[i][tx.peer].as_mut() {
                record.probe = rc.last_choice().is_some_and(|c| c.sample);
                let last_try = !success && e.attempts + 1 >= self.retry_limit;
                rc.report(now, rate, 1, u32::from(success), u32::from(last_try));
            }
        }
        e.attempts += 1;
        if success {
            cx.out.acked.push((i, f.peer, f.packet));
        } else {
            cx.counters.mpdus_failed += 1;
        }
        if success || e.attempts >= self.retry_limit {
            e.queue.pop_front();
            e.attempts = 0;
        }
        if !success && e.attempts == 0 {
            record.dropped = 1;
            cx.counters.dropped_retry += 1;
            cx.out.dropped.push((i, f.peer, f.packet));
            return true;
        }
        success
    }

    /// The station keeps its frames (a frame being retried starts its attempts over); the
    /// AP discards those for the station.
    fn leave(&mut self, k: usize, out: &mut Outcome) {
        self.entities[k].attempts = 0;
        let ap = &mut self.entities[0];
        if ap.queue.front().is_some_and(|f| f.peer == k) {
            ap.attempts = 0;
        }
        ap.queue.retain(|f| {
            if f.peer == k {
                out.disassociated.push((0, k, f.packet));
            }
            f.peer != k
        });
    }

    fn next_timeout(&self) -> Option<SimTime> {
        None
    }

    fn run_timeouts(&mut self, _now: SimTime, _out: &mut Outcome) {}
}
