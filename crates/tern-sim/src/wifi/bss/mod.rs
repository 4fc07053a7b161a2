//! One 802.11 BSS: an access point and its stations contending for one shared channel.
//! This file is channel access: the medium, each entity's backoff, deferral by DIFS/AIFS
//! or EIFS, collisions and airtime. What an entity does once it has the medium is its
//! frame exchange ([`exchange::FrameExchange`], chosen by PHY in [`by_phy`]): Data/Ack for
//! the DCF PHYs ([`dcf`]), A-MPDU/BlockAck for HT ([`ht`], receive side [`ht_rx`]). The
//! parameters are in [`config`], what the BSS reports in [`outcome`].
//!
//! The medium component of the design: every MAC entity of the BSS (entity 0 is the AP,
//! entity `i ≥ 1` station `i`) hears every other one (no hidden terminals), and all
//! arbitration, collisions and airtime are decided here.
//!
//! **Channel access** (DCF, IEEE 802.11-2016 §10.3.4.3; EDCA, §10.22.2): each entity counts
//! its backoff down in slots once the medium has been idle for DIFS (AIFS[AC] with EDCA)
//! after the last busy period, or EIFS after a frame it could not decode (§10.3.2.3.7). The
//! counter is drawn uniformly from `0..=CW` after every frame exchange of the entity
//! (post-backoff), CW starts at CWmin, doubles plus one after a failed exchange up to
//! CWmax, and returns to CWmin after a success or a drop (§10.22.2.2). An entity whose
//! counter has run out and which then gets a frame transmits at once (the medium has been
//! idle for at least DIFS). Entities whose counters end in the same slot transmit together:
//! a collision, in which every frame is lost (no capture). Rather than an event per slot,
//! the time each entity's counter ends is computed, and counters are decremented by the
//! whole slots that elapsed when the medium turns busy. Every entity hears every frame, so
//! the NAV a Data frame or A-MPDU sets with its Duration (SIFS and the response, §10.3.2.4)
//! is the busy period up to the end of the response. A sender left without a response
//! invokes backoff when AckTimeout (aSIFSTime + aSlotTime + aRxPHYStartDelay, §10.3.2.11)
//! expires.
//!
//! **Errors**: each MPDU is received or not independently, with probability (1 − the fixed
//! per-MPDU error rate) × the success rate of [`super::error_model`] at the SNR the
//! [`RadioChannel`] gives for the sender and receiver at the start of the PPDU. Control
//! frames (Ack, BlockAck, BlockAckReq) are not lost. Propagation delay is not modelled
//! (below 1 µs in a BSS).
//!
//! Not modelled: RTS/CTS (so no NAV set by them, §10.3.2.4), fragmentation, A-MSDU,
//! beacons and management frames, power saving, TXOP limits above one exchange, the NAV of
//! overlapping BSSs.

use super::bss_load::BssLoad;
use super::phy::PhyTiming;
use super::rate::{LegacyRateSet, RateControl};
use crate::engine::{RngStream, SimTime};
use crate::net::packet::PacketRef;
use crate::radio::RadioChannel;

mod by_phy;
pub(crate) mod config;
mod dcf;
mod exchange;
mod frame;
mod ht;
mod ht_rx;
pub mod misread;
mod outcome;

use by_phy::Exchange;
pub use config::{Config, DcfRate, Phy};
use dcf::{DcfExchange, DcfRates};
use exchange::{Cx, Errors, FrameExchange, Tx};
pub use frame::Frame;
use ht::HtExchange;
pub use ht::HtPhy;
pub use outcome::{Counters, Outcome, RxAmpdu, RxMpdu, TxRecord};

/// Why [`Bss::enqueue`] refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The sender's MAC queue is full.
    QueueFull,
    /// The AP has no association with the receiving station (it left).
    NotAssociated,
}

/// The channel-access state of one MAC entity (AP or station).
struct Access {
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

pub struct Bss {
    pub name: String,
    cfg: Config,
    timing: PhyTiming,
    aifs: SimTime,
    eifs: SimTime,
    ack_timeout: SimTime,
    access: Vec<Access>,
    exchange: Exchange,
    /// Transmissions on the air (more than one: a collision).
    on_air: Vec<Tx>,
    /// Scratch space of [`Bss::wake`], kept so that a wake-up allocates nothing: the
    /// entities whose backoff ends now, the transmissions that just ended, and their
    /// senders left without a response.
    winners: Vec<usize>,
    ended: Vec<Tx>,
    unanswered: Vec<usize>,
    /// No queued frame reaches its MSDU lifetime before this time: the frame exchange's
    /// [`FrameExchange::expire`] is not called before it. A frame queued at `t` lowers it
    /// to `t + lifetime` at most; a station that joins or leaves (its frames queued again,
    /// a retried frame's attempts started over) sets it back to zero.
    expire_from: SimTime,
    backoff_rng: RngStream,
    errors: Errors,
    /// Positions and path loss of the members (entity order), for the SNR of each frame.
    pub radio: RadioChannel,
    pub counters: Counters,
    /// Whether to report every received A-MPDU in [`Outcome::received`].
    pub observe_rx: bool,
    /// Whether to report every transmission in [`Outcome::transmissions`].
    pub observe_tx: bool,
}

/// Borrows what a frame exchange needs from a [`Bss`] (disjoint from its exchange).
macro_rules! cx {
    ($self:ident, $out:expr) => {
        Cx {
            radio: &mut $self.radio,
            errors: &mut $self.errors,
            counters: &mut $self.counters,
            out: $out,
            observe_rx: $self.observe_rx,
        }
    };
}

impl Bss {
    /// A BSS of `stations` stations plus the AP, with its random streams named after `name`.
    /// A sender that adapts its rate ([`Phy::adapts_rate`]) gets its rate control towards
    /// each peer from `ht_rates(entity, peer, phy)` (802.11n) or `erp_rates(entity, peer)`
    /// (802.11g without a fixed rate).
    pub fn new(
        name: &str,
        cfg: Config,
        stations: usize,
        seed: u64,
        radio: RadioChannel,
        ht_rates: impl FnMut(usize, usize, HtPhy) -> RateControl,
        mut erp_rates: impl FnMut(usize, usize) -> RateControl<LegacyRateSet>,
    ) -> Bss {
        let timing = cfg.phy.timing();
        let n = stations + 1;
        let access = (0..n)
            .map(|_| Access {
                cw: timing.cw_min,
                slots: 0,
                count_from: Some(SimTime::ZERO),
                ready_at: SimTime::ZERO,
                associated: true,
            })
            .collect();
        let dcf = |rates| Exchange::Dcf(DcfExchange::new(n, rates, cfg.retry_limit));
        let (exchange, eifs) = match cfg.phy {
            Phy::Dsss { rate, preamble } => (
                dcf(DcfRates::Fixed(DcfRate::Dsss(rate, preamble))),
                timing.eifs(cfg.phy.eifs_ack_txtime()),
            ),
            Phy::Erp { rate } => {
                let rates = match rate {
                    Some(rate) => DcfRates::Fixed(DcfRate::Ofdm(rate)),
                    // The AP talks to every station, a station to the AP only.
                    None => DcfRates::Adaptive(
                        (0..n)
                            .map(|e| {
                                (0..n)
                                    .map(|p| {
                                        (e != p && (e == 0 || p == 0)).then(|| erp_rates(e, p))
                                    })
                                    .collect()
                            })
                            .collect(),
                    ),
                };
                (dcf(rates), timing.eifs(cfg.phy.eifs_ack_txtime()))
            }
            Phy::Ht { band, width, gi } => (
                Exchange::Ht(HtExchange::new(
                    n,
                    HtPhy { band, width, gi },
                    &cfg,
                    ht_rates,
                )),
                timing.eifs_edca(cfg.phy.eifs_ack_txtime(), cfg.phy.aifsn()),
            ),
        };
        let aifs = timing.aifs(cfg.phy.aifsn());
        let ack_timeout = timing.sifs + timing.slot + cfg.phy.rx_phy_start_delay();
        Bss {
            name: name.to_owned(),
            timing,
            aifs,
            eifs,
            ack_timeout,
            access,
            exchange,
            on_air: Vec::new(),
            winners: Vec::new(),
            ended: Vec::new(),
            unanswered: Vec::new(),
            expire_from: SimTime::ZERO,
            backoff_rng: RngStream::new(seed, &format!("wifi/{name}/backoff")),
            errors: Errors::new(
                RngStream::new(seed, &format!("wifi/{name}/errors")),
                RngStream::new(seed, &format!("wifi/{name}/headers")),
                RngStream::new(seed, &format!("wifi/{name}/misread")),
                cfg.mpdu_error,
            ),
            counters: Counters::default(),
            observe_rx: false,
            observe_tx: false,
            radio,
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
        if !self.access[to].associated {
            return Err(Refused::NotAssociated);
        }
        if self.exchange.backlog(from) >= self.cfg.queue_limit {
            self.counters.dropped_queue += 1;
            return Err(Refused::QueueFull);
        }
        if !self.exchange.has_traffic(from) {
            self.access[from].ready_at = now;
        }
        if let Some(lifetime) = self.cfg.lifetime {
            self.expire_from = self.expire_from.min(now + lifetime);
        }
        self.exchange.queue(from).push_back(Frame {
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
        self.exchange.backlog(k) < self.cfg.queue_limit
    }

    /// What the AP's beacons tell a station about to join (countermeasure A of the
    /// tfrc-handover study): the BSS Load element's Station Count (IEEE 802.11-2020
    /// §9.4.2.27), and the 802.11b PHY; `None` for an 802.11n BSS (not modelled).
    pub fn bss_load(&self) -> Option<BssLoad> {
        let Phy::Dsss { rate, preamble } = self.cfg.phy else {
            return None;
        };
        let stations = self.access[1..].iter().filter(|e| e.associated).count();
        Some(BssLoad {
            stations: stations as u32,
            rate,
            preamble,
        })
    }

    /// Whether station `k` is associated with the AP.
    pub fn is_associated(&self, k: usize) -> bool {
        self.access[k].associated
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
        self.exchange.leave(k, &mut out);
        self.access[k].associated = false;
        self.expire_from = SimTime::ZERO;
        out
    }

    /// Countermeasure D of the tfrc-handover study: a departed station `k` discards (and
    /// returns, in order) the frames that entered its MAC more than `deadline` before
    /// `now`.
    pub fn discard_older(&mut self, k: usize, now: SimTime, deadline: SimTime) -> Vec<Frame> {
        assert!(
            !self.access[k].associated,
            "only a departed station's frames"
        );
        let queue = self.exchange.queue(k);
        let (stale, kept): (Vec<Frame>, Vec<Frame>) = queue
            .drain(..)
            .partition(|f| now.saturating_sub(f.since) > deadline);
        queue.extend(kept);
        stale
    }

    /// Takes the frames station `k` holds (in order), to carry them to the AP it joins.
    pub fn take_frames(&mut self, k: usize) -> Vec<Frame> {
        assert!(
            !self.access[k].associated,
            "only a departed station's frames"
        );
        self.exchange.queue(k).drain(..).collect()
    }

    /// Station `k` associates with the AP at `now`, bringing `frames` for it (from the AP
    /// it left): they are queued in their order up to the queue limit, the rest are
    /// returned (dropped). New Block Ack agreements start with the first frame (SN 0).
    pub fn associate(&mut self, now: SimTime, k: usize, frames: Vec<Frame>) -> Vec<Frame> {
        let limit = self.cfg.queue_limit;
        self.access[k].associated = true;
        self.expire_from = SimTime::ZERO;
        let mut overflow = Vec::new();
        for mut f in frames {
            f.peer = 0;
            if self.exchange.backlog(k) < limit {
                self.exchange.queue(k).push_back(f);
            } else {
                self.counters.dropped_queue += 1;
                overflow.push(f);
            }
        }
        if self.exchange.has_traffic(k) {
            self.access[k].ready_at = now;
        }
        overflow
    }

    /// The driver of entity `at` declares the MPDU with SN `sn` from entity `from` lost:
    /// its reordering buffer moves past it and passes up what it held behind it (in
    /// [`Outcome::delivered`]); the chip still acknowledges the MPDU if it arrives later.
    /// For a receiver-side mechanism acting on [`Outcome::received`]; nothing without a
    /// Block Ack agreement (a DCF BSS).
    pub fn give_up(&mut self, at: usize, from: usize, sn: u16) -> Outcome {
        let mut out = Outcome::default();
        if let Exchange::Ht(x) = &mut self.exchange {
            x.give_up(at, from, sn, &mut out);
        }
        out
    }

    /// WinStartB of entity `at`'s reordering buffer for MPDUs from entity `from`, if the
    /// two have a Block Ack agreement.
    pub fn reorder_start(&self, at: usize, from: usize) -> Option<u16> {
        match &self.exchange {
            Exchange::Ht(x) => x.reorder_start(at, from),
            Exchange::Dcf(_) => None,
        }
    }

    /// When the BSS next needs [`Bss::wake`]: the end of the transmissions on the air, or
    /// the earliest time an entity's backoff lets it transmit; or a receive-side timeout
    /// of its frame exchange, if earlier.
    pub fn next_wake(&self) -> Option<SimTime> {
        let medium = match self.on_air.iter().map(|t| t.end).max() {
            Some(end) => Some(end),
            None => match &self.exchange {
                Exchange::Dcf(x) => self.first_access(x),
                Exchange::Ht(x) => self.first_access(x),
            },
        };
        match (medium, self.exchange.next_timeout()) {
            (Some(m), Some(t)) => Some(m.min(t)),
            (m, t) => m.or(t),
        }
    }

    /// The earliest time an entity's backoff lets it transmit ([`Bss::access_time_of`]), the
    /// exchange's kind known once rather than per entity.
    #[inline]
    fn first_access(&self, x: &impl FrameExchange) -> Option<SimTime> {
        let mut first: Option<SimTime> = None;
        for (i, e) in self.access.iter().enumerate() {
            if let Some(t) = self.access_time_of(e, x.has_traffic(i)) {
                first = Some(first.map_or(t, |f| f.min(t)));
            }
        }
        first
    }

    /// When entity `e`'s backoff lets it transmit, if it has a frame (`has_traffic`) and
    /// may send.
    #[inline(always)]
    fn access_time_of(&self, e: &Access, has_traffic: bool) -> Option<SimTime> {
        if !has_traffic || !e.associated {
            return None;
        }
        let counted =
            e.count_from? + SimTime::from_nanos(self.timing.slot.as_nanos() * u64::from(e.slots));
        Some(counted.max(e.ready_at))
    }

    /// The entities whose backoff lets them transmit at `now`, into `winners`.
    #[inline]
    fn winners_at(&self, now: SimTime, x: &impl FrameExchange, winners: &mut Vec<usize>) {
        for (i, e) in self.access.iter().enumerate() {
            if self.access_time_of(e, x.has_traffic(i)) == Some(now) {
                winners.push(i);
            }
        }
    }

    /// Runs the BSS at `now` (a time [`Bss::next_wake`] gave): ends the exchange on the air,
    /// or starts the transmissions whose backoff ends now.
    pub fn wake(&mut self, now: SimTime) -> Outcome {
        let mut out = Outcome::default();
        self.wake_into(now, &mut out);
        out
    }

    /// [`Bss::wake`], adding what the BSS did to `out` (whose buffers a caller can keep
    /// from one wake-up to the next).
    pub fn wake_into(&mut self, now: SimTime, out: &mut Outcome) {
        self.exchange.run_timeouts(now, out);
        if !self.on_air.is_empty() {
            if self.on_air.iter().map(|t| t.end).max() == Some(now) {
                self.finish(now, out);
            }
            return;
        }
        if let Some(lifetime) = self.cfg.lifetime {
            if now >= self.expire_from {
                self.expire_from = self.exchange.expire(now, lifetime, &mut cx!(self, out));
            }
        }
        let mut winners = std::mem::take(&mut self.winners);
        winners.clear();
        match &self.exchange {
            Exchange::Dcf(x) => self.winners_at(now, x, &mut winners),
            Exchange::Ht(x) => self.winners_at(now, x, &mut winners),
        }
        if !winners.is_empty() {
            // `winners` is in entity order: one pass over both.
            let mut won = winners.iter().copied().peekable();
            for (i, e) in self.access.iter_mut().enumerate() {
                let winner = won.next_if_eq(&i).is_some();
                if let Some(from) = e.count_from.take() {
                    if !winner && now > from {
                        let elapsed = (now - from).as_nanos() / self.timing.slot.as_nanos();
                        e.slots -= e.slots.min(elapsed as u32);
                    }
                }
            }
            for &i in &winners {
                self.access[i].slots = 0;
                let ppdu = self.exchange.start(now, i, &mut cx!(self, out));
                self.on_air.push(Tx {
                    entity: i,
                    peer: ppdu.peer,
                    start: now,
                    end: now + ppdu.airtime,
                    snr_db: ppdu.snr_db,
                    header_snr_db: ppdu.header_snr_db,
                });
            }
        }
        self.winners = winners;
    }

    /// The transmissions on the air end at `now`.
    fn finish(&mut self, now: SimTime, out: &mut Outcome) {
        // The transmissions leave the air; `on_air` takes the spare buffer.
        let spare = std::mem::take(&mut self.ended);
        let mut txs = std::mem::replace(&mut self.on_air, spare);
        let mut unanswered = std::mem::take(&mut self.unanswered);
        unanswered.clear();
        let collision = txs.len() > 1;
        self.counters.ppdus += txs.len() as u64;
        if collision {
            self.counters.collisions += 1;
        }
        // When the medium is idle again, whether someone heard a frame it could not decode
        // (EIFS applies to them), and the senders left without a response.
        let mut idle_from = now;
        let mut heard_error = collision;
        for tx in &txs {
            self.counters.busy += tx.end - tx.start;
            let response = if collision {
                None
            } else {
                self.exchange.receive(tx, &mut cx!(self, out))
            };
            match response {
                Some(air) => {
                    idle_from = now + self.timing.sifs + air;
                    self.counters.busy += air;
                }
                None => {
                    heard_error = true;
                    unanswered.push(tx.entity);
                }
            }
            self.after_exchange(now, tx, response.is_some(), collision, out);
        }
        // `unanswered` is in entity order, as the transmissions are: one pass over both.
        let mut left = unanswered.iter().copied().peekable();
        for (i, e) in self.access.iter_mut().enumerate() {
            e.count_from = Some(if left.next_if_eq(&i).is_some() {
                // §10.3.2.11: backoff is invoked when AckTimeout expires (by then the medium
                // has been idle for more than DIFS/AIFS).
                (now + self.ack_timeout).max(idle_from + self.aifs)
            } else if heard_error {
                idle_from + self.eifs
            } else {
                idle_from + self.aifs
            });
        }
        txs.clear();
        self.ended = txs;
        self.unanswered = unanswered;
    }

    /// The sender's side of an exchange: its frame exchange concludes, then CW is updated
    /// and the next backoff drawn.
    fn after_exchange(
        &mut self,
        now: SimTime,
        tx: &Tx,
        answered: bool,
        collision: bool,
        out: &mut Outcome,
    ) {
        let i = tx.entity;
        let mut record = TxRecord {
            start: tx.start,
            entity: i,
            peer: tx.peer,
            kind: "data",
            rate_bps: 0.0,
            mcs: None,
            mpdus: 1,
            acked: u32::from(answered),
            collision,
            snr_db: tx.snr_db,
            probe: false,
            dropped: 0,
            series_end: true,
        };
        // §10.22.2.2: CW returns to CWmin after a success or a drop, else it widens.
        let reset_cw = self
            .exchange
            .conclude(now, tx, &mut record, &mut cx!(self, out));
        let e = &mut self.access[i];
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
