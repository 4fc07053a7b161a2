//! The HT frame exchange of 802.11n (IEEE 802.11-2016 §10.24): an A-MPDU of QoS
//! Data MPDUs under an HT-immediate Block Ack agreement, answered after SIFS by a
//! compressed BlockAck (§10.24.7.5) at the control-response rate (§10.6.6.5.2). MPDUs not
//! acknowledged are retransmitted selectively up to a per-MPDU retry limit, after which
//! they are dropped and a BlockAckReq moves the recipient's window (§10.24.7). If no MPDU
//! of an A-MPDU arrives, no BlockAck comes back and every MPDU counts as unacknowledged.
//!
//! The exchange owns both ends of each agreement: per sender and peer the Block Ack
//! originator, and per receiver and peer the recipient with its reordering buffer (the
//! receive side is in [`super::ht_rx`]).

use super::super::blockack::{sn_add, Originator, Recipient, RECIPIENT_WIN_SIZE};
use super::super::esm::effective_snr;
use super::super::frames::{
    ampdu_capacity, ampdu_len, mpdu_len, AmpduLimits, BLOCK_ACK_REQ_COMPRESSED, MAX_AMPDU_MPDUS,
};
use super::super::phy::{
    ofdm_txtime, Band, ChannelWidth, GuardInterval, HtMcs, HtTxVector, Modulation, OfdmRate,
};
use super::super::rate::RateControl;
use super::config::Config;
use super::exchange::{expire_queue, Cx, FrameExchange, Ppdu, Tx};
use super::frame::Frame;
use super::outcome::{Outcome, TxRecord};
use crate::engine::SimTime;
use std::collections::{BTreeMap, VecDeque};

/// The HT PHY of a BSS (Clause 19, HT-mixed format).
#[derive(Clone, Copy, Debug)]
pub struct HtPhy {
    pub band: Band,
    pub width: ChannelWidth,
    pub gi: GuardInterval,
}

/// What an HT entity has on the air.
pub(super) enum HtPpdu {
    /// An A-MPDU of (SN, uid) at an MCS; `probe` if the rate control chose the MCS to
    /// probe it.
    Ampdu {
        mpdus: Vec<(u16, u64)>,
        mcs: HtMcs,
        probe: bool,
    },
    /// A BlockAckReq with this starting SN.
    Bar(u16),
}

/// The HT side of one MAC entity.
pub(super) struct Entity {
    /// Frames not yet handed to a Block Ack originator, in arrival order.
    pub queue: VecDeque<Frame>,
    /// Frames held by an originator, by uid.
    pub held: BTreeMap<u64, Frame>,
    /// Frames received and waiting in a recipient's reordering buffer, by uid.
    pub reorder: BTreeMap<u64, Frame>,
    /// Per peer entity, the Block Ack originator and recipient.
    originators: Vec<Option<Originator>>,
    pub recipients: Vec<Option<Recipient>>,
    /// Per peer, the rate control and a BlockAckReq to send (its starting SN).
    rates: Vec<Option<RateControl>>,
    /// Per peer, the frame (uid) of the rate-control probe being tried along its series.
    probe_frame: Vec<Option<u64>>,
    pending_bar: Vec<Option<u16>>,
    /// The peer served last (the AP serves its stations round-robin).
    last_peer: usize,
    /// The PPDU on the air and the BlockAck it got (starting SN, bitmap).
    pub on_air: Option<(HtPpdu, Option<(u16, u64)>)>,
}

/// A-MPDU/BlockAck exchanges of every entity of an HT BSS.
pub(crate) struct HtExchange {
    pub(super) phy: HtPhy,
    pub(super) entities: Vec<Entity>,
    ampdu: AmpduLimits,
    /// Per-MPDU transmission attempts before it is dropped.
    retry_limit: u32,
    reorder_timeout: Option<SimTime>,
}

impl HtExchange {
    /// The exchanges of `n` entities (the AP and its stations): agreements between the AP
    /// and each station, each sender's rate control towards each peer from `rates`.
    pub fn new(
        n: usize,
        phy: HtPhy,
        cfg: &Config,
        mut rates: impl FnMut(usize, usize, HtPhy) -> RateControl,
    ) -> HtExchange {
        // The AP talks to every station, a station to the AP only.
        let linked = |e: usize, p: usize| e != p && (e == 0 || p == 0);
        let mut x = HtExchange {
            phy,
            entities: Vec::with_capacity(n),
            ampdu: cfg.ampdu,
            retry_limit: cfg.retry_limit,
            reorder_timeout: cfg.reorder_timeout,
        };
        for e in 0..n {
            let rates: Vec<Option<RateControl>> = (0..n)
                .map(|p| linked(e, p).then(|| rates(e, p, phy)))
                .collect();
            let entity = Entity {
                queue: VecDeque::new(),
                held: BTreeMap::new(),
                reorder: BTreeMap::new(),
                originators: rates
                    .iter()
                    .map(|rc| rc.as_ref().map(|rc| x.originator(rc)))
                    .collect(),
                recipients: (0..n)
                    .map(|p| linked(e, p).then(|| x.recipient()))
                    .collect(),
                rates,
                pending_bar: vec![None; n],
                probe_frame: vec![None; n],
                last_peer: 0,
                on_air: None,
            };
            x.entities.push(entity);
        }
        x
    }

    /// A Block Ack originator with the BSS's retry limit, applied per hardware submission
    /// as ath9k does when `rc` runs ath9k's rate series ([`RateControl::ath9k_series`]).
    fn originator(&self, rc: &RateControl) -> Originator {
        let o = Originator::new(MAX_AMPDU_MPDUS as u16, self.retry_limit);
        if rc.ath9k_series() {
            o.per_submission()
        } else {
            o
        }
    }

    /// A Block Ack recipient with the BSS's reorder-release timeout.
    pub(super) fn recipient(&self) -> Recipient {
        Recipient::new(0).with_reorder_timeout(self.reorder_timeout)
    }

    /// The peer entity `i` serves next: round-robin from the one after the last served,
    /// among peers with frames queued or held.
    fn next_peer(&mut self, i: usize) -> usize {
        let e = &mut self.entities[i];
        let n = e.originators.len();
        // One pass over the queue, not one per peer.
        let mut waiting = vec![false; n];
        for f in &e.queue {
            waiting[f.peer] = true;
        }
        let peer = (1..=n)
            .map(|k| (e.last_peer + k) % n)
            .find(|&p| waiting[p] || e.originators[p].as_ref().is_some_and(|o| !o.is_empty()))
            .expect("has traffic");
        e.last_peer = peer;
        peer
    }

    /// The BlockAckReq entity `i` owes a peer, if any (§10.24.7).
    fn bar(&mut self, now: SimTime, i: usize, cx: &mut Cx<'_>) -> Option<Ppdu> {
        let e = &mut self.entities[i];
        let peer = (0..e.pending_bar.len()).find(|&p| e.pending_bar[p].is_some())?;
        let ssn = e.pending_bar[peer].take().expect("found");
        e.on_air = Some((HtPpdu::Bar(ssn), None));
        let snr_db = cx.radio.snr_db_mapped(i, peer, now, 1, &|s: &[f64]| {
            effective_snr(Modulation::Bpsk, s)
        });
        Some(Ppdu {
            peer,
            airtime: ofdm_txtime(BLOCK_ACK_REQ_COMPRESSED, OfdmRate::Mbps6, self.phy.band),
            snr_db,
            header_snr_db: snr_db,
        })
    }

    /// Entity `i`'s next A-MPDU to `peer`.
    fn ampdu(&mut self, now: SimTime, i: usize, peer: usize, cx: &mut Cx<'_>) -> Ppdu {
        let HtPhy { band, width, gi } = self.phy;
        // The SNR per stream depends on the MCS's streams with receive diversity
        // (radio/fading.rs): the oracle rate control sees it for each candidate.
        let radio = &mut *cx.radio;
        let rc = self.entities[i].rates[peer].as_mut().expect("linked peer");
        // Over a frequency-selective channel (radio/tgn.rs) the oracle judges every
        // candidate by the effective SNR for its modulation (wifi/esm.rs).
        let mcs = rc.select_by_streams(now, &mut |m: HtMcs| {
            let modulation = m.modulation();
            radio.snr_db_mapped(i, peer, now, m.n_ss(), &|s: &[f64]| {
                effective_snr(modulation, s)
            })
        });
        // ath9k (drivers/net/wireless/ath/ath9k/xmit.c, `ath_lookup_rate`): an A-MPDU is
        // sized to 4 ms at the slowest rate of its first frame's rate series, and a frame
        // flagged as a rate-control probe gets a limit of 0: `ath_tx_form_aggr` adds no
        // frame behind it (nor appends a probe to an aggregate it holds frames in), and the
        // hardware retries that lone frame along the probe's series. The probe frame is one
        // mac80211 has just handed over (the rate control flags it as it does), so it is
        // the first new frame, not a retransmission waiting before it.
        let sizing = HtTxVector::new(rc.sizing_rate().unwrap_or(mcs), width, gi);
        let probe = rc.last_choice().is_some_and(|c| c.sample);
        let alone = rc.probe_alone();
        let reprobe = rc.retries_probe_frame();
        // One effective SNR per PPDU from its subcarriers' SNRs for the MCS's
        // modulation (wifi/esm.rs); frequency-flat fading gives the PPDU's own SNR.
        let modulation = mcs.modulation();
        let snr_db = cx
            .radio
            .snr_db_mapped(i, peer, now, mcs.n_ss(), &|s: &[f64]| {
                effective_snr(modulation, s)
            });
        // The PHY header (L-SIG, HT-SIG) is one stream at BPSK ½ for every MCS.
        let header_snr_db = if mcs.n_ss() == 1 && modulation == Modulation::Bpsk {
            snr_db
        } else {
            cx.radio.snr_db_mapped(i, peer, now, 1, &|s: &[f64]| {
                effective_snr(Modulation::Bpsk, s)
            })
        };
        let e = &mut self.entities[i];
        let tx = HtTxVector::new(mcs, width, gi);
        // Hand the peer's oldest queued frames to its originator (it numbers them), only
        // as many as the next A-MPDU can carry with the retries pending: the rest stay
        // queued and keep ageing towards their MSDU lifetime (as in ns-3's WifiMacQueue,
        // where a packet ages until it is first sent).
        let limits = self.ampdu;
        let orig = e.originators[peer].as_mut().expect("linked peer");
        let mut k = 0;
        // (packet size, A-MPDU capacity for it): frames in a row are mostly one size.
        let mut capacity = (u32::MAX, 0);
        let mut new_frames = 0;
        while k < e.queue.len() {
            let f = e.queue[k];
            if f.peer != peer {
                k += 1;
                continue;
            }
            if capacity.0 != f.bytes {
                let fit = ampdu_capacity(f.bytes, sizing, band, &limits).max(1);
                capacity = (f.bytes, if alone { 1 } else { fit });
            }
            let fit = capacity.1;
            // A probe needs one new frame (one at most: a full window keeps it out); a
            // probe frame's retry along its series again (`Minstrel::retries_probe_frame`)
            // needs none.
            let full = if probe {
                reprobe || orig.has_new() || new_frames > 0
            } else {
                orig.queued() >= fit as usize
            };
            if full {
                break;
            }
            e.queue.remove(k);
            orig.enqueue(f.uid);
            e.held.insert(f.uid, f);
            new_frames += 1;
        }
        e.rates[peer]
            .as_mut()
            .expect("linked peer")
            .frames_queued(new_frames);
        let held = &e.held;
        let mut lens: Vec<u32> = Vec::new();
        let mpdus = if alone {
            let lone = orig.next_lone(if probe && !reprobe {
                None
            } else {
                e.probe_frame[peer]
            });
            e.probe_frame[peer] = lone.first().map(|&(_, uid)| uid);
            lens.extend(lone.iter().map(|&(_, uid)| mpdu_len(held[&uid].bytes)));
            lone
        } else {
            e.probe_frame[peer] = None;
            orig.next_batch(limits.mpdus as usize, |uid| {
                lens.push(mpdu_len(held[&uid].bytes));
                let psdu = ampdu_len(&lens);
                let fits = lens.len() == 1
                    || (psdu <= limits.bytes && sizing.txtime(psdu, band) <= limits.ppdu);
                if !fits {
                    lens.pop();
                }
                fits
            })
        };
        e.on_air = Some((HtPpdu::Ampdu { mpdus, mcs, probe }, None));
        Ppdu {
            peer,
            airtime: tx.txtime(ampdu_len(&lens), band),
            snr_db,
            header_snr_db,
        }
    }
}

impl FrameExchange for HtExchange {
    #[inline]
    fn queue(&mut self, i: usize) -> &mut VecDeque<Frame> {
        &mut self.entities[i].queue
    }

    #[inline]
    fn backlog(&self, i: usize) -> usize {
        let e = &self.entities[i];
        e.queue.len() + e.held.len()
    }

    #[inline]
    fn has_traffic(&self, i: usize) -> bool {
        self.backlog(i) > 0 || self.entities[i].pending_bar.iter().any(Option::is_some)
    }

    /// Only frames not yet handed to an originator age out (retries are the originator's).
    fn expire(&mut self, now: SimTime, lifetime: SimTime, cx: &mut Cx<'_>) -> SimTime {
        let mut next = SimTime::MAX;
        for (i, e) in self.entities.iter_mut().enumerate() {
            next = next.min(expire_queue(i, &mut e.queue, 0, (now, lifetime), cx));
        }
        next
    }

    /// A BlockAckReq owed to a peer first, else an A-MPDU to the next peer round-robin.
    fn start(&mut self, now: SimTime, i: usize, cx: &mut Cx<'_>) -> Ppdu {
        if let Some(bar) = self.bar(now, i, cx) {
            return bar;
        }
        let peer = self.next_peer(i);
        self.ampdu(now, i, peer, cx)
    }

    fn receive(&mut self, tx: &Tx, cx: &mut Cx<'_>) -> Option<SimTime> {
        self.receive_ppdu(tx, cx)
    }

    /// The originator learns from the BlockAck (or its absence) which MPDUs to retry and
    /// which to drop; a drop leaves a BlockAckReq to send.
    fn conclude(&mut self, now: SimTime, tx: &Tx, record: &mut TxRecord, cx: &mut Cx<'_>) -> bool {
        let i = tx.entity;
        let (ppdu, block_ack) = self.entities[i].on_air.take().expect("on air");
        let (mpdus, mcs) = match ppdu {
            HtPpdu::Bar(_) => {
                record.kind = "bar";
                record.mpdus = 0;
                record.rate_bps = OfdmRate::Mbps6.bps() as f64;
                return block_ack.is_some();
            }
            HtPpdu::Ampdu { mpdus, mcs, probe } => {
                record.probe = probe;
                (mpdus, mcs)
            }
        };
        record.kind = "ampdu";
        record.mcs = Some(mcs.index());
        record.mpdus = mpdus.len() as u32;
        record.rate_bps = HtTxVector::new(mcs, self.phy.width, self.phy.gi).data_rate_bps();
        let e = &mut self.entities[i];
        let orig = e.originators[tx.peer].as_mut().expect("linked peer");
        let rc = e.rates[tx.peer].as_ref().expect("linked peer");
        let ends = block_ack.is_some() || rc.failure_ends_series(mcs);
        let result = match block_ack {
            Some((start, bitmap)) => orig.on_block_ack(start, bitmap),
            None => orig.on_no_block_ack_ending(ends),
        };
        record.acked = result.acked.len() as u32;
        record.dropped = result.dropped.len() as u32;
        record.series_end = ends;
        cx.counters.mpdus_sent += mpdus.len() as u64;
        cx.counters.mpdus_failed += (mpdus.len() - result.acked.len()) as u64;
        e.rates[tx.peer].as_mut().expect("linked peer").report(
            now,
            mcs,
            record.mpdus,
            record.acked,
            result.dropped.len() as u32,
        );
        if let Some(uid) = e.probe_frame[tx.peer] {
            if result.acked.contains(&uid) || result.dropped.contains(&uid) {
                e.probe_frame[tx.peer] = None;
                let rc = e.rates[tx.peer].as_mut().expect("linked peer");
                rc.probe_frame_done();
            }
        }
        for uid in result.acked {
            let f = e.held.remove(&uid).expect("held");
            cx.out.acked.push((i, f.peer, f.packet));
        }
        if let Some(ssn) = result.bar {
            e.pending_bar[tx.peer] = Some(ssn);
        }
        for uid in result.dropped {
            let f = e.held.remove(&uid).expect("held");
            cx.counters.dropped_retry += 1;
            cx.out.dropped.push((i, f.peer, f.packet));
        }
        block_ack.is_some()
    }

    /// The Block Ack agreements of the pair end (§11.5.3), each recipient passing up what
    /// its reordering buffer held; the station queues again, in their order, the frames
    /// its originator held (they lose their sequence numbers); the AP discards the frames
    /// it held or queued for the station.
    fn leave(&mut self, k: usize, out: &mut Outcome) {
        for (from, to) in [(k, 0), (0, k)] {
            if let Some(r) = self.entities[to].recipients[from].as_mut() {
                // A BlockAckReq a window ahead passes up the whole buffer, in SN order.
                let released = r.on_bar(sn_add(r.win_start(), RECIPIENT_WIN_SIZE));
                self.entities[to].recipients[from] = Some(self.recipient());
                self.pass_up(from, to, released, out);
            }
            if let Some(rc) = self.entities[from].rates[to].as_ref() {
                let fresh = self.originator(rc);
                self.entities[from].originators[to] = Some(fresh);
            }
            self.entities[from].pending_bar[to] = None;
            self.entities[from].probe_frame[to] = None;
            if let Some(rc) = self.entities[from].rates[to].as_mut() {
                rc.probe_frame_done();
            }
        }
        let sta = &mut self.entities[k];
        let mut held: Vec<Frame> = std::mem::take(&mut sta.held).into_values().collect();
        held.sort_by_key(|f| (f.since, f.uid));
        for f in held.into_iter().rev() {
            sta.queue.push_front(f);
        }
        let ap = &mut self.entities[0];
        let held: Vec<u64> = ap
            .held
            .iter()
            .filter(|(_, f)| f.peer == k)
            .map(|(&uid, _)| uid)
            .collect();
        for uid in held {
            let f = ap.held.remove(&uid).expect("listed");
            out.disassociated.push((0, k, f.packet));
        }
        ap.queue.retain(|f| {
            if f.peer == k {
                out.disassociated.push((0, k, f.packet));
            }
            f.peer != k
        });
    }

    fn next_timeout(&self) -> Option<SimTime> {
        self.entities
            .iter()
            .flat_map(|e| e.recipients.iter().flatten())
            .filter_map(Recipient::poll_timeout)
            .min()
    }

    fn run_timeouts(&mut self, now: SimTime, out: &mut Outcome) {
        self.reorder_timeouts(now, out);
    }
}
