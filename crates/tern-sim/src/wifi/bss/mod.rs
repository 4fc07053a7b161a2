//! One 802.11 BSS: an access point and its stations contending for one shared channel.
//! This file is the medium and the senders (channel access, exchanges, retries); the
//! receiving side is [`rx`], the parameters [`config`], what it reports [`records`].
//!
//! The medium component of the design: every MAC entity of the BSS (entity 0 is the AP,
//! entity `i ≥ 1` station `i`) hears every other one (no hidden terminals), and all
//! arbitration, collisions and airtime are decided here.
//!
//! **Channel access** (DCF §10.3.4.3, EDCA §10.22.2): each entity counts its backoff down in
//! slots once the medium has been idle for DIFS (AIFS[AC] with EDCA) after the last busy
//! period, or EIFS after a frame it could not decode (§10.3.2.3.7). The counter is drawn
//! uniformly from `0..=CW` after every frame exchange of the entity (post-backoff), CW starts
//! at CWmin, doubles plus one after a failed exchange up to CWmax, and returns to CWmin after
//! a success or a drop (§10.22.2.2). An entity whose counter has run out and which then
//! gets a frame transmits at once (the medium has been idle for at least DIFS). Entities
//! whose counters end in the same slot transmit together: a collision, in which every frame
//! is lost (no capture). Rather than an event per slot, the time each entity's counter
//! ends is computed, and counters are decremented by the whole slots that elapsed when the
//! medium turns busy.
//!
//! **Frame exchanges**: 802.11b and 802.11g (the DCF PHYs, [`DcfRate`]) send one Data MPDU
//! and expect an Ack after SIFS (§10.3.2.11), at a fixed rate or, for 802.11g, at the rate
//! the sender's rate control picks for the peer ([`PeerRate::Erp`]);
//! without it, the sender invokes backoff when AckTimeout (aSIFSTime + aSlotTime +
//! aRxPHYStartDelay) expires and retries up to the retry limit (dot11ShortRetryLimit, 7).
//! 802.11n sends an A-MPDU (§10.12) of QoS Data MPDUs under an HT-immediate Block Ack
//! agreement and gets a compressed BlockAck after SIFS (§10.25.6); MPDUs not acknowledged are
//! retransmitted selectively up to a per-MPDU retry limit, after which they are dropped and a
//! BlockAckReq moves the recipient's window (§10.25.6.6). If no MPDU of an A-MPDU arrives,
//! no BlockAck comes back and the whole A-MPDU is retried after the timeout.
//!
//! **Errors**: each MPDU is received or not independently, with probability (1 − the fixed
//! per-MPDU error rate) × the success rate of [`super::error_model`] at the SNR the
//! [`RadioChannel`] gives for the sender and receiver at the start of the PPDU. Control
//! frames (Ack, BlockAck, BlockAckReq) are not lost. Propagation delay is not modelled
//! (below 1 µs in a BSS).
//!
//! Not modelled: RTS/CTS, fragmentation, A-MSDU, beacons and management frames, power
//! saving, TXOP limits above one exchange, the NAV of overlapping BSSs.

use super::blockack::{sn_add, Originator, Recipient, RECIPIENT_WIN_SIZE};
use super::bss_load::BssLoad;
use super::esm::effective_snr;
use super::frames::{
    ampdu_capacity, ampdu_len, dcf_mpdu_len, mpdu_len, BLOCK_ACK_COMPRESSED,
    BLOCK_ACK_REQ_COMPRESSED, MAX_AMPDU_MPDUS,
};
use super::phy::{
    ht_control_response_rate, ofdm_txtime, HtMcs, HtTxVector, Modulation, OfdmRate, PhyTiming,
};
use crate::engine::{RngStream, SimTime};
use crate::net::packet::PacketRef;
use crate::radio::RadioChannel;
use std::collections::{BTreeMap, VecDeque};

pub(crate) mod config;
mod records;
mod rx;

pub use config::{Config, DcfRate, PeerRate, Phy};
pub use records::{Counters, Outcome, RxAmpdu, RxMpdu, TxRecord};
use rx::{Response, SuccessCache};

/// A packet waiting in, or carried by, a MAC.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    peer: usize,
    packet: PacketRef,
    uid: u64,
    /// IP bytes.
    bytes: u32,
    /// When it entered the MAC (a station that roams keeps the time it entered the MAC of
    /// its first AP: the MSDU lifetime counts from there).
    since: SimTime,
}

impl Frame {
    pub fn packet(&self) -> PacketRef {
        self.packet
    }
}

/// Why [`Bss::enqueue`] refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The sender's MAC queue is full.
    QueueFull,
    /// The AP has no association with the receiving station (it left).
    NotAssociated,
}

/// A Block Ack recipient with the BSS's reorder-release timeout.
fn new_recipient(cfg: &Config) -> Recipient {
    Recipient::new(0).with_reorder_timeout(cfg.reorder_timeout)
}

/// One MAC entity (AP or station) of the BSS.
struct Entity {
    /// Frames not yet handed to a Block Ack originator (802.11n) or not yet sent (802.11b),
    /// in arrival order.
    queue: VecDeque<Frame>,
    /// 802.11n: frames held by an originator, by uid.
    held: BTreeMap<u64, Frame>,
    /// 802.11n: frames received and waiting in a recipient's reordering buffer, by uid.
    reorder: BTreeMap<u64, Frame>,
    /// 802.11n: per peer entity, the Block Ack originator and recipient.
    originators: Vec<Option<Originator>>,
    recipients: Vec<Option<Recipient>>,
    /// Per peer, the rate control (802.11n, and 802.11g without a fixed rate), and
    /// (802.11n) a BlockAckReq to send (its starting SN).
    rates: Vec<Option<PeerRate>>,
    pending_bar: Vec<Option<u16>>,
    /// The peer served last (the AP serves its stations round-robin).
    last_peer: usize,
    /// 802.11b: attempts of the head-of-line frame so far.
    attempts: u32,
    cw: u32,
    /// Backoff slots left.
    slots: u32,
    /// When the current count-down starts (after DIFS/AIFS/EIFS); `None` while the medium is
    /// busy.
    count_from: Option<SimTime>,
    /// When the entity last got a frame while it had none (it may send from then on).
    ready_at: SimTime,
    /// A station: whether it is associated with the AP (the AP always is). A station that
    /// is not keeps its queue but does not contend, and the AP refuses frames for it.
    associated: bool,
}

impl Entity {
    fn backlog(&self) -> usize {
        self.queue.len() + self.held.len()
    }

    fn has_traffic(&self) -> bool {
        self.backlog() > 0 || self.pending_bar.iter().any(Option::is_some)
    }
}

/// One transmission on the medium.
struct Tx {
    entity: usize,
    peer: usize,
    start: SimTime,
    end: SimTime,
    /// The receiver's SNR for this PPDU, dB.
    snr_db: f64,
    what: Payload,
}

enum Payload {
    /// 802.11b, 802.11g: the head-of-line frame, at a rate.
    Single { frame: Frame, rate: DcfRate },
    /// 802.11n: an A-MPDU (SN, uid) at an MCS.
    Ampdu { mpdus: Vec<(u16, u64)>, mcs: HtMcs },
    /// 802.11n: a BlockAckReq with this starting SN.
    Bar(u16),
}

pub struct Bss {
    pub name: String,
    cfg: Config,
    timing: PhyTiming,
    aifs: SimTime,
    eifs: SimTime,
    ack_timeout: SimTime,
    entities: Vec<Entity>,
    /// Transmissions on the air (more than one: a collision).
    on_air: Vec<Tx>,
    backoff_rng: RngStream,
    error_rng: RngStream,
    /// Positions and path loss of the members (entity order), for the SNR of each frame.
    pub radio: RadioChannel,
    success: SuccessCache,
    pub counters: Counters,
    /// Whether to report every received A-MPDU in [`Outcome::received`].
    pub observe_rx: bool,
    /// Whether to report every transmission in [`Outcome::transmissions`].
    pub observe_tx: bool,
}

impl Bss {
    /// A BSS of `stations` stations plus the AP, with its random streams named after `name`.
    /// `rates(entity, peer)` builds the rate control an entity uses towards each peer, if
    /// its PHY adapts rates ([`Phy::adapts_rate`]).
    pub fn new(
        name: &str,
        cfg: Config,
        stations: usize,
        seed: u64,
        radio: RadioChannel,
        mut rates: impl FnMut(usize, usize) -> PeerRate,
    ) -> Bss {
        let timing = cfg.phy.timing();
        let n = stations + 1;
        let ht = matches!(cfg.phy, Phy::Ht { .. });
        // The AP talks to every station, a station to the AP only.
        let linked = |e: usize, p: usize| e != p && (e == 0 || p == 0);
        let entities = (0..n)
            .map(|e| Entity {
                queue: VecDeque::new(),
                held: BTreeMap::new(),
                reorder: BTreeMap::new(),
                originators: (0..n)
                    .map(|p| {
                        (ht && linked(e, p))
                            .then(|| Originator::new(MAX_AMPDU_MPDUS as u16, cfg.retry_limit))
                    })
                    .collect(),
                recipients: (0..n)
                    .map(|p| (ht && linked(e, p)).then(|| new_recipient(&cfg)))
                    .collect(),
                rates: (0..n)
                    .map(|p| (cfg.phy.adapts_rate() && linked(e, p)).then(|| rates(e, p)))
                    .collect(),
                pending_bar: vec![None; n],
                last_peer: 0,
                attempts: 0,
                cw: timing.cw_min,
                slots: 0,
                count_from: Some(SimTime::ZERO),
                ready_at: SimTime::ZERO,
                associated: true,
            })
            .collect();
        let aifs = timing.aifs(cfg.phy.aifsn());
        let eifs = match &cfg.phy {
            Phy::Dsss { .. } | Phy::Erp { .. } => timing.eifs(cfg.phy.eifs_ack_txtime()),
            Phy::Ht { .. } => timing.eifs_edca(cfg.phy.eifs_ack_txtime(), cfg.phy.aifsn()),
        };
        let ack_timeout = timing.sifs + timing.slot + cfg.phy.rx_phy_start_delay();
        Bss {
            name: name.to_owned(),
            timing,
            aifs,
            eifs,
            ack_timeout,
            entities,
            on_air: Vec::new(),
            backoff_rng: RngStream::new(seed, &format!("wifi/{name}/backoff")),
            error_rng: RngStream::new(seed, &format!("wifi/{name}/errors")),
            counters: Counters::default(),
            observe_rx: false,
            observe_tx: false,
            radio,
            success: SuccessCache::default(),
            cfg,
        }
    }

    /// Hands a packet of `bytes` IP bytes to entity `from` for entity `to`, or says why not
    /// (and takes nothing). A station that is not associated keeps what it is given.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        from: usize,
        to: usize,
        packet: PacketRef,
        uid: u64,
        bytes: u32,
    ) -> Result<(), Refused> {
        if !self.entities[to].associated {
            return Err(Refused::NotAssociated);
        }
        let e = &mut self.entities[from];
        if e.backlog() >= self.cfg.queue_limit {
            self.counters.dropped_queue += 1;
            return Err(Refused::QueueFull);
        }
        if !e.has_traffic() {
            e.ready_at = now;
        }
        e.queue.push_back(Frame {
            peer: to,
            packet,
            uid,
            bytes,
            since: now,
        });
        Ok(())
    }

    /// Whether entity `k`'s MAC queue has room for another frame.
    pub fn has_room(&self, k: usize) -> bool {
        self.entities[k].backlog() < self.cfg.queue_limit
    }

    /// What the AP's beacons tell a station about to join (countermeasure A of the
    /// tfrc-handover study): the BSS Load element's Station Count (IEEE 802.11-2020
    /// §9.4.2.27), and the 802.11b PHY; `None` for an 802.11n BSS (not modelled).
    pub fn bss_load(&self) -> Option<BssLoad> {
        let Phy::Dsss { rate, preamble } = self.cfg.phy else {
            return None;
        };
        let stations = self.entities[1..].iter().filter(|e| e.associated).count();
        Some(BssLoad {
            stations: stations as u32,
            rate,
            preamble,
        })
    }

    /// Whether station `k` is associated with the AP.
    pub fn is_associated(&self, k: usize) -> bool {
        self.entities[k].associated
    }

    /// The end of the frame exchange on the air that station `k` takes part in, if any.
    pub fn exchange_of(&self, k: usize) -> Option<SimTime> {
        self.on_air
            .iter()
            .filter(|t| t.entity == k || t.peer == k)
            .map(|t| t.end)
            .max()
    }

    /// Station `k` leaves the AP (disassociation, §11.3.5.9, or the start of a roam): it
    /// stops contending and keeps its frames, queued again in their order (an A-MPDU's
    /// unacknowledged MPDUs lose their sequence numbers); the AP discards the frames it
    /// held for the station (Linux mac80211 frees a departing station's frames); the Block
    /// Ack agreements of the pair end (§11.5.3), each recipient passing up what its
    /// reordering buffer held. Must not be called while `k` is in an exchange
    /// ([`Bss::exchange_of`]).
    pub fn disassociate(&mut self, k: usize) -> Outcome {
        assert!(k != 0, "the AP does not leave its own BSS");
        assert!(self.exchange_of(k).is_none(), "station in an exchange");
        let mut out = Outcome::default();
        for (from, to) in [(k, 0), (0, k)] {
            if let Some(r) = self.entities[to].recipients[from].as_mut() {
                // A BlockAckReq a window ahead passes up the whole buffer, in SN order.
                let released = r.on_bar(sn_add(r.win_start(), RECIPIENT_WIN_SIZE));
                self.entities[to].recipients[from] = Some(new_recipient(&self.cfg));
                self.pass_up(from, to, released, &mut out);
            }
            if let Some(o) = self.entities[from].originators[to].as_mut() {
                *o = Originator::new(MAX_AMPDU_MPDUS as u16, self.cfg.retry_limit);
            }
            self.entities[from].pending_bar[to] = None;
        }
        let sta = &mut self.entities[k];
        let mut held: Vec<Frame> = std::mem::take(&mut sta.held).into_values().collect();
        held.sort_by_key(|f| (f.since, f.uid));
        for f in held.into_iter().rev() {
            sta.queue.push_front(f);
        }
        sta.attempts = 0;
        sta.associated = false;
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
        if ap.queue.front().is_some_and(|f| f.peer == k) {
            ap.attempts = 0;
        }
        ap.queue.retain(|f| {
            if f.peer == k {
                out.disassociated.push((0, k, f.packet));
            }
            f.peer != k
        });
        out
    }

    /// Countermeasure D of the tfrc-handover study: a departed station `k` discards (and
    /// returns, in order) the frames that entered its MAC more than `deadline` before
    /// `now`.
    pub fn discard_older(&mut self, k: usize, now: SimTime, deadline: SimTime) -> Vec<Frame> {
        assert!(
            !self.entities[k].associated,
            "only a departed station's frames"
        );
        let queue = &mut self.entities[k].queue;
        let (stale, kept): (Vec<Frame>, Vec<Frame>) = queue
            .drain(..)
            .partition(|f| now.saturating_sub(f.since) > deadline);
        queue.extend(kept);
        stale
    }

    /// Takes the frames station `k` holds (in order), to carry them to the AP it joins.
    pub fn take_frames(&mut self, k: usize) -> Vec<Frame> {
        assert!(
            !self.entities[k].associated,
            "only a departed station's frames"
        );
        self.entities[k].queue.drain(..).collect()
    }

    /// Station `k` associates with the AP at `now`, bringing `frames` for it (from the AP
    /// it left): they are queued in their order up to the queue limit, the rest are
    /// returned (dropped). New Block Ack agreements start with the first frame (SN 0).
    pub fn associate(&mut self, now: SimTime, k: usize, frames: Vec<Frame>) -> Vec<Frame> {
        let limit = self.cfg.queue_limit;
        let sta = &mut self.entities[k];
        sta.associated = true;
        let mut overflow = Vec::new();
        for mut f in frames {
            f.peer = 0;
            if sta.backlog() < limit {
                sta.queue.push_back(f);
            } else {
                self.counters.dropped_queue += 1;
                overflow.push(f);
            }
        }
        if sta.has_traffic() {
            sta.ready_at = now;
        }
        overflow
    }

    /// When the BSS next needs [`Bss::wake`]: the end of the transmissions on the air, or
    /// the earliest time an entity's backoff lets it transmit; or a reordering buffer's
    /// reorder-release timeout, if earlier.
    pub fn next_wake(&self) -> Option<SimTime> {
        let medium = match self.on_air.iter().map(|t| t.end).max() {
            Some(end) => Some(end),
            None => self
                .entities
                .iter()
                .filter_map(|e| self.access_time(e))
                .min(),
        };
        let reorder = self
            .entities
            .iter()
            .flat_map(|e| e.recipients.iter().flatten())
            .filter_map(Recipient::poll_timeout)
            .min();
        medium.into_iter().chain(reorder).min()
    }

    fn access_time(&self, e: &Entity) -> Option<SimTime> {
        if !e.has_traffic() || !e.associated {
            return None;
        }
        let counted =
            e.count_from? + SimTime::from_nanos(self.timing.slot.as_nanos() * u64::from(e.slots));
        Some(counted.max(e.ready_at))
    }

    /// Runs the BSS at `now` (a time [`Bss::next_wake`] gave): ends the exchange on the air,
    /// or starts the transmissions whose backoff ends now.
    pub fn wake(&mut self, now: SimTime) -> Outcome {
        let mut out = Outcome::default();
        self.reorder_timeouts(now, &mut out);
        if !self.on_air.is_empty() {
            if self.on_air.iter().map(|t| t.end).max() == Some(now) {
                self.finish(now, &mut out);
            }
            return out;
        }
        self.expire(now, &mut out);
        let winners: Vec<usize> = (0..self.entities.len())
            .filter(|&i| self.access_time(&self.entities[i]) == Some(now))
            .collect();
        if winners.is_empty() {
            return out;
        }
        for (i, e) in self.entities.iter_mut().enumerate() {
            if let Some(from) = e.count_from.take() {
                if !winners.contains(&i) && now > from {
                    let elapsed = (now - from).as_nanos() / self.timing.slot.as_nanos();
                    e.slots -= e.slots.min(elapsed as u32);
                }
            }
        }
        for i in winners {
            let tx = self.build_tx(now, i);
            self.on_air.push(tx);
        }
        out
    }

    /// Discards the frames that have waited in a MAC queue for their lifetime (never one
    /// being retried: 802.11b's head-of-line frame after its first attempt).
    fn expire(&mut self, now: SimTime, out: &mut Outcome) {
        let Some(lifetime) = self.cfg.lifetime else {
            return;
        };
        for (i, e) in self.entities.iter_mut().enumerate() {
            let skip = usize::from(e.attempts > 0);
            while let Some(f) = e.queue.get(skip) {
                if now.saturating_sub(f.since) < lifetime {
                    break;
                }
                let f = e.queue.remove(skip).expect("present");
                self.counters.dropped_lifetime += 1;
                out.expired.push((i, f.peer, f.packet));
            }
        }
    }

    /// The frame entity `i` sends now.
    fn build_tx(&mut self, now: SimTime, i: usize) -> Tx {
        self.entities[i].slots = 0;
        if self.cfg.phy.is_dcf() {
            let f = *self.entities[i].queue.front().expect("has traffic");
            let snr_db = self.radio.snr_db(i, f.peer, now);
            let rate = DcfRate::of(&self.cfg.phy).unwrap_or_else(|| {
                let rc = self.entities[i].rates[f.peer].as_mut().expect("adapted");
                rc.erp().select(now, Some(snr_db))
            });
            let air = rate.txtime(dcf_mpdu_len(f.bytes));
            return Tx {
                entity: i,
                peer: f.peer,
                start: now,
                snr_db,
                end: now + air,
                what: Payload::Single { frame: f, rate },
            };
        }
        match self.cfg.phy.clone() {
            Phy::Dsss { .. } | Phy::Erp { .. } => unreachable!("DCF PHYs are handled above"),
            Phy::Ht { band, width, gi } => {
                let e = &mut self.entities[i];
                if let Some(peer) = (0..e.pending_bar.len()).find(|&p| e.pending_bar[p].is_some()) {
                    let ssn = e.pending_bar[peer].take().expect("found");
                    let air = ofdm_txtime(BLOCK_ACK_REQ_COMPRESSED, OfdmRate::Mbps6, band);
                    return Tx {
                        entity: i,
                        peer,
                        start: now,
                        end: now + air,
                        snr_db: self.radio.snr_db_mapped(i, peer, now, 1, &|s: &[f64]| {
                            effective_snr(Modulation::Bpsk, s)
                        }),
                        what: Payload::Bar(ssn),
                    };
                }
                let peer = self.next_peer(i);
                // The SNR per stream depends on the MCS's streams with receive diversity
                // (radio/fading.rs): the oracle rate control sees it for each candidate.
                let radio = &mut self.radio;
                let rc = self.entities[i].rates[peer].as_mut().expect("HT peer").ht();
                // Over a frequency-selective channel (radio/tgn.rs) the oracle judges every
                // candidate by the effective SNR for its modulation (wifi/esm.rs).
                let mcs = rc.select_by_streams(now, &mut |m: HtMcs| {
                    let modulation = m.modulation();
                    radio.snr_db_mapped(i, peer, now, m.n_ss(), &|s: &[f64]| {
                        effective_snr(modulation, s)
                    })
                });
                // ath9k (drivers/net/wireless/ath/ath9k/xmit.c, `ath_lookup_rate`,
                // `ath_tx_form_aggr`): an A-MPDU is sized to 4 ms at the slowest rate of the
                // frame's rate series, and a rate-control probe is not aggregated.
                let probe = rc.last_choice().is_some_and(|c| c.sample);
                let sizing = HtTxVector::new(rc.sizing_rate().unwrap_or(mcs), width, gi);
                // One effective SNR per PPDU from its subcarriers' SNRs for the MCS's
                // modulation (wifi/esm.rs); frequency-flat fading gives the PPDU's own SNR.
                let modulation = mcs.modulation();
                let snr_db = self
                    .radio
                    .snr_db_mapped(i, peer, now, mcs.n_ss(), &|s: &[f64]| {
                        effective_snr(modulation, s)
                    });
                let e = &mut self.entities[i];
                let tx = HtTxVector::new(mcs, width, gi);
                // Hand the peer's oldest queued frames to its originator (it numbers them),
                // only as many as the next A-MPDU can carry with the retries pending: the
                // rest stay queued and keep ageing towards their MSDU lifetime (as in ns-3's
                // WifiMacQueue, where a packet ages until it is first sent).
                let limits = self.cfg.ampdu;
                let orig = e.originators[peer].as_mut().expect("HT peer");
                let mut k = 0;
                // (packet size, A-MPDU capacity for it): frames in a row are mostly one size.
                let mut capacity = (u32::MAX, 0);
                while k < e.queue.len() {
                    let f = e.queue[k];
                    if f.peer != peer {
                        k += 1;
                        continue;
                    }
                    if capacity.0 != f.bytes {
                        let fit = ampdu_capacity(f.bytes, sizing, band, &limits).max(1);
                        capacity = (f.bytes, if probe { 1 } else { fit });
                    }
                    let fit = capacity.1;
                    if orig.queued() >= fit as usize {
                        break;
                    }
                    e.queue.remove(k);
                    orig.enqueue(f.uid);
                    e.held.insert(f.uid, f);
                }
                let held = &e.held;
                let mut lens: Vec<u32> = Vec::new();
                let max_mpdus = if probe { 1 } else { limits.mpdus as usize };
                let mpdus = orig.next_batch(max_mpdus, |uid| {
                    lens.push(mpdu_len(held[&uid].bytes));
                    let psdu = ampdu_len(&lens);
                    let fits = lens.len() == 1
                        || (psdu <= limits.bytes && sizing.txtime(psdu, band) <= limits.ppdu);
                    if !fits {
                        lens.pop();
                    }
                    fits
                });
                let air = tx.txtime(ampdu_len(&lens), band);
                Tx {
                    entity: i,
                    peer,
                    start: now,
                    end: now + air,
                    snr_db,
                    what: Payload::Ampdu { mpdus, mcs },
                }
            }
        }
    }

    /// The peer an 802.11n entity serves next: round-robin from the one after the last
    /// served, among peers with frames queued or held.
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

    /// The transmissions on the air end at `now`.
    fn finish(&mut self, now: SimTime, out: &mut Outcome) {
        let txs = std::mem::take(&mut self.on_air);
        let collision = txs.len() > 1;
        self.counters.ppdus += txs.len() as u64;
        if collision {
            self.counters.collisions += 1;
        }
        // When the medium is idle again, whether someone heard a frame it could not decode
        // (EIFS applies to them), and the senders left without a response.
        let mut idle_from = now;
        let mut heard_error = collision;
        let mut unanswered: Vec<usize> = Vec::new();
        for tx in txs {
            self.counters.busy += tx.end - tx.start;
            let response = if collision {
                Response::None
            } else {
                self.receive(&tx, out)
            };
            match self.response_airtime(&tx, &response) {
                Some(air) => {
                    idle_from = now + self.timing.sifs + air;
                    self.counters.busy += air;
                }
                None => {
                    heard_error = true;
                    unanswered.push(tx.entity);
                }
            }
            self.after_exchange(now, &tx, response, collision, out);
        }
        for (i, e) in self.entities.iter_mut().enumerate() {
            e.count_from = Some(if unanswered.contains(&i) {
                // §10.3.2.11: backoff is invoked when AckTimeout expires (by then the medium
                // has been idle for more than DIFS/AIFS).
                (now + self.ack_timeout).max(idle_from + self.aifs)
            } else if heard_error {
                idle_from + self.eifs
            } else {
                idle_from + self.aifs
            });
        }
    }

    /// The airtime of the Ack or BlockAck answering `tx`, if one is sent.
    fn response_airtime(&self, tx: &Tx, response: &Response) -> Option<SimTime> {
        match (response, &self.cfg.phy) {
            (Response::None, _) => None,
            (Response::Ack, _) => match &tx.what {
                Payload::Single { rate, .. } => Some(rate.ack_txtime()),
                _ => unreachable!("an Ack answers a single MPDU"),
            },
            (Response::BlockAck { .. }, Phy::Ht { band, .. }) => {
                // The BlockAck answering a BlockAckReq (sent at 6 Mbit/s) comes at 6 Mbit/s.
                let rate = match &tx.what {
                    Payload::Ampdu { mcs, .. } => {
                        // The BSSBasicRateSet: the mandatory 6, 12 and 24 Mbit/s.
                        ht_control_response_rate(*mcs, &OfdmRate::MANDATORY)
                    }
                    _ => OfdmRate::Mbps6,
                };
                Some(ofdm_txtime(BLOCK_ACK_COMPRESSED, rate, *band))
            }
            _ => unreachable!("responses match the PHY"),
        }
    }

    /// The sender's side of an exchange, given the response it got: updates CW, retries,
    /// the originator, and draws the next backoff.
    fn after_exchange(
        &mut self,
        now: SimTime,
        tx: &Tx,
        response: Response,
        collision: bool,
        out: &mut Outcome,
    ) {
        let i = tx.entity;
        let success = !matches!(response, Response::None);
        let mut record = TxRecord {
            start: tx.start,
            entity: i,
            peer: tx.peer,
            kind: "data",
            rate_bps: 0.0,
            mcs: None,
            mpdus: 1,
            acked: u32::from(success),
            collision,
            snr_db: tx.snr_db,
        };
        // §10.22.2.2: CW returns to CWmin after a success or a drop, else it widens.
        let mut reset_cw = success;
        match &tx.what {
            Payload::Single { frame: f, rate } => {
                self.counters.mpdus_sent += 1;
                record.rate_bps = rate.bps() as f64;
                let e = &mut self.entities[i];
                if let Some(rc) = e.rates[tx.peer].as_mut() {
                    rc.erp().report(now, *rate, 1, u32::from(success));
                }
                e.attempts += 1;
                if success {
                    out.acked.push((i, f.peer, f.packet));
                } else {
                    self.counters.mpdus_failed += 1;
                }
                if success || e.attempts >= self.cfg.retry_limit {
                    e.queue.pop_front();
                    e.attempts = 0;
                }
                if !success && e.attempts == 0 {
                    reset_cw = true;
                    self.counters.dropped_retry += 1;
                    out.dropped.push((i, f.peer, f.packet));
                }
            }
            Payload::Bar(_) => {
                record.kind = "bar";
                record.mpdus = 0;
                record.rate_bps = OfdmRate::Mbps6.bps() as f64;
            }
            Payload::Ampdu { mpdus, mcs } => {
                record.kind = "ampdu";
                record.mcs = Some(mcs.index());
                record.mpdus = mpdus.len() as u32;
                if let Phy::Ht { width, gi, .. } = self.cfg.phy {
                    record.rate_bps = HtTxVector::new(*mcs, width, gi).data_rate_bps();
                }
                let e = &mut self.entities[i];
                let orig = e.originators[tx.peer].as_mut().expect("HT peer");
                let result = match response {
                    Response::BlockAck { start, bitmap } => orig.on_block_ack(start, bitmap),
                    _ => orig.on_no_block_ack(),
                };
                record.acked = result.acked.len() as u32;
                self.counters.mpdus_sent += mpdus.len() as u64;
                self.counters.mpdus_failed += (mpdus.len() - result.acked.len()) as u64;
                e.rates[tx.peer].as_mut().expect("HT peer").ht().report(
                    now,
                    *mcs,
                    record.mpdus,
                    record.acked,
                );
                for uid in result.acked {
                    let f = e.held.remove(&uid).expect("held");
                    out.acked.push((i, f.peer, f.packet));
                }
                if let Some(ssn) = result.bar {
                    e.pending_bar[tx.peer] = Some(ssn);
                }
                for uid in result.dropped {
                    let f = e.held.remove(&uid).expect("held");
                    self.counters.dropped_retry += 1;
                    out.dropped.push((i, f.peer, f.packet));
                }
            }
        }
        let e = &mut self.entities[i];
        e.cw = if reset_cw {
            self.timing.cw_min
        } else {
            (2 * e.cw + 1).min(self.timing.cw_max)
        };
        // CW + 1 is a power of two, so the remainder is exactly uniform on 0..=CW.
        let cw = u64::from(e.cw);
        e.slots = (self.backoff_rng.next_u64() % (cw + 1)) as u32;
        if self.observe_tx {
            out.transmissions.push(record);
        }
    }
}
