//! A sans-IO W-CDMA RLC Acknowledged Mode entity (3GPP TS 25.322).
//!
//! One [`RlcAm`] sits at each end of a radio bearer (UE and RNC). Its
//! transmitting side segments and concatenates the upper layer's SDUs into
//! AMD PDUs, keeps them until the peer acknowledges them, retransmits what
//! the peer reports missing and gives up on a PDU after MaxDAT - 1
//! transmissions (SDU discard with explicit signalling). Its receiving side
//! reassembles the peer's PDUs, delivers complete SDUs in order, and
//! answers polls and gaps with STATUS PDUs, which travel back on the same
//! radio as the entity's own data PDUs.
//!
//! Payload is abstract: an SDU is an opaque `u64` id and a length in
//! octets; PDUs record which SDU each run of octets belongs to. PDU sizes
//! are exact (header, length indicators, padding; STATUS PDUs are padded to
//! the transport block size), so the simulator can charge airtime from
//! [`Pdu::size`].
//!
//! Module map: [`pdu`] (formats, TS 25.322 §9.2), [`config`] (parameters,
//! §9.5 timers and §9.6 protocol parameters), `tx` (segmentation,
//! polling §9.7.1, retransmission), `discard` (SDU discard §9.7.3, MRW §11.6 sender)
//! and `rx` (reception, reassembly, STATUS reports §9.7.2, MRW receiver).
//!
//! # What is modelled
//!
//! - AMD PDUs with 12-bit SNs, the polling bit, HE and 7-bit LIs including
//!   LI = 0 (previous PDU exactly filled), padding LI and, optionally, the
//!   Release-5 special HE value; SDU concatenation in one PDU.
//! - State variables of §9.4: VT(S), VT(A), VT(MS), VT(DAT) (per PDU),
//!   VT(PDU), VR(R), VR(H), VR(MR).
//! - Polling (§9.7.1): last PDU in the transmission buffer, last PDU in the
//!   retransmission buffer, every Poll_PDU PDUs, every Poll_SDU SDUs,
//!   window-based, Timer_Poll; Timer_Poll_Prohibit (§9.5 b).
//! - STATUS (§9.7.2, §11.5): on a poll and on a detected gap ("Missing PDU
//!   Indicator"), rate-limited by Timer_Status_Prohibit; LIST or BITMAP
//!   SUFIs (whichever reports more, then whichever is shorter) and an ACK
//!   SUFI; a report that does not fit in one PDU is cut and its LSN set to
//!   the first missing SN left out.
//! - Selective-repeat retransmission with priority STATUS > retransmission
//!   > new data (within the window).
//! - SDU discard after MaxDAT with explicit signalling (§9.7.3, §11.6): MRW
//!   SUFI with one SN_MRW and N_LENGTH, Timer_MRW, MRW_ACK.
//!
//! # Simplifications
//!
//! - No RESET procedure (§11.4), so MaxRST / MaxMRW / "No_discard after
//!   MaxDAT" are not modelled; the MRW is resent until acknowledged.
//! - No piggybacked STATUS, WINDOW, RLIST or POLL SUFIs, Timer_Poll_Periodic
//!   ("Timer based" polling), Timer_Status_Periodic, Timer_EPC or
//!   timer-based SDU discard; no ciphering; no 15-bit LIs (PDU size ≤ 126
//!   octets).
//! - One STATUS PDU per report (no multi-PDU status report).
//! - SDU segmentation happens when a new PDU is first sent (not when the
//!   SDU arrives), so a PDU concatenates whatever SDUs are queued then. When
//!   a discarded SDU was only partly sent, its unsent tail is counted as one
//!   PDU (SN = VT(S)) discarded before transmission, and SN_MRW points past
//!   it: the receiver can then reach the next SDU only through the MRW, so
//!   it never glues the head of the dropped SDU to the next one.
//! - The receiver trusts the sender: out-of-range STATUS SNs (§10.1) make
//!   the report part of the STATUS be ignored (counted in
//!   [`Stats::erroneous_status`]) instead of triggering a reset.

pub mod config;
mod discard;
pub mod pdu;
mod rx;
mod tx;

use std::collections::VecDeque;

pub use config::{Config, ConfigError};
pub use pdu::{AmdPdu, Chunk, Li, Pdu, Sn, StatusPdu, Sufi};

use rx::RxState;
use tx::TxState;

use crate::time::SimTime;

/// An upper-layer packet: opaque id and length in octets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sdu {
    pub id: u64,
    pub len: u32,
}

/// Trace records, drained with [`RlcAm::poll_event`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A PDU was sent again; `transmission` is its VT(DAT) (2 for the first
    /// retransmission).
    Retransmit { sn: Sn, transmission: u32 },
    /// Timer_Poll expired without a STATUS covering the last poll.
    PollTimerExpired,
    /// A STATUS report (ACK and possibly LIST/BITMAP SUFIs) was sent.
    StatusSent { lsn: Sn, nacked: u32 },
    /// The SDU was dropped at the sender after MaxDAT (§9.7.3).
    SduDiscarded { id: u64, len: u32 },
    /// An MRW SUFI was sent (first time or on Timer_MRW expiry).
    MrwSent { sn_mrw: Sn, n_length: u8 },
    /// The MRW procedure ended with the peer's MRW_ACK.
    MrwAcked { sn_ack: Sn },
    /// The SDU did not fit into the sender buffer and was refused.
    SduRefused { id: u64, len: u32 },
}

/// Counters for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub sdus_accepted: u64,
    pub sdu_bytes_accepted: u64,
    pub sdus_refused: u64,
    /// AMD PDUs sent for the first time.
    pub data_pdus_sent: u64,
    pub pdus_retransmitted: u64,
    /// STATUS PDUs sent (reports, MRW and MRW_ACK).
    pub status_pdus_sent: u64,
    /// STATUS reports sent (those with an ACK SUFI).
    pub status_reports_sent: u64,
    pub polls_sent: u64,
    pub poll_timer_expiries: u64,
    /// Padding octets in sent AMD PDUs (first transmissions).
    pub padding_bytes_sent: u64,
    pub sdus_discarded: u64,
    pub sdu_bytes_discarded: u64,
    pub mrw_sent: u64,
    pub data_pdus_received: u64,
    /// Received AMD PDUs already held or already delivered.
    pub duplicate_pdus: u64,
    /// Received AMD PDUs outside the receiving window (duplicates of
    /// delivered PDUs included).
    pub pdus_outside_window: u64,
    pub status_pdus_received: u64,
    /// STATUS reports ignored for SNs outside VT(A)..VT(S) (§10.1).
    pub erroneous_status: u64,
    pub sdus_delivered: u64,
    pub sdu_bytes_delivered: u64,
    /// Reassembled SDU fragments the receiver dropped because of an MRW
    /// (the head and the tail of one discarded SDU count separately).
    pub fragments_dropped_by_mrw: u64,
}

/// One RLC AM entity: a transmitting side for its own SDUs and a receiving
/// side for the peer's PDUs.
///
/// # Driving an entity
///
/// Nothing here reads a clock: every call takes `now`, which must never
/// decrease. The radio is the caller's: it decides how many PDUs fit in a
/// TTI and which of them are lost.
///
/// - [`push_sdu`](Self::push_sdu) whenever the upper layer hands over a
///   packet;
/// - [`handle_pdu`](Self::handle_pdu) for every PDU from the peer that
///   survived the radio, at its arrival time;
/// - [`handle_timeout`](Self::handle_timeout) once
///   [`poll_timeout`](Self::poll_timeout) is reached (early or spurious
///   calls are harmless).
///
/// At each TTI boundary `now` (every 10 ms on a 10 ms TTI bearer), after
/// the calls above for events at `now`:
///
/// 1. `pdus = poll_tti(now, n)` with `n` the PDUs that fit in this TTI
///    (e.g. rate x TTI / PDU bits, carrying the fraction to the next TTI);
///    hand the PDUs to the radio in order (they arrive, or not, one TTI
///    plus the Iub/processing delay later);
/// 2. drain [`poll_delivered`](Self::poll_delivered) (SDUs for the upper
///    layer) and [`poll_event`](Self::poll_event) (trace records) — they
///    can also fill up after `handle_pdu`;
/// 3. if [`wants_transmit`](Self::wants_transmit), schedule the next TTI
///    boundary; re-read [`poll_timeout`](Self::poll_timeout).
///
/// An idle entity (`wants_transmit()` false, no timeout) needs no TTI
/// until one of the input calls.
#[derive(Debug)]
pub struct RlcAm {
    cfg: Config,
    now: SimTime,
    tx: TxState,
    rx: RxState,
    events: VecDeque<Event>,
    delivered: VecDeque<Sdu>,
    stats: Stats,
}

impl RlcAm {
    /// A new entity with all state variables at 0 (TS 25.322 §9.4).
    pub fn new(cfg: Config) -> Result<RlcAm, ConfigError> {
        cfg.validate()?;
        Ok(RlcAm {
            cfg,
            now: SimTime::ZERO,
            tx: TxState::default(),
            rx: RxState::default(),
            events: VecDeque::new(),
            delivered: VecDeque::new(),
            stats: Stats::default(),
        })
    }

    /// Queues an SDU of `len` octets for transmission. Returns false (and
    /// records [`Event::SduRefused`]) if `len` is 0 or the SDU buffer ahead
    /// of segmentation ([`Config::tx_buffer_bytes`]: the octets not yet
    /// placed in a PDU, [`unsent_bytes`](Self::unsent_bytes)) has no room
    /// for it.
    pub fn push_sdu(&mut self, now: SimTime, id: u64, len: u32) -> bool {
        self.now = now;
        let fits = self
            .cfg
            .tx_buffer_bytes
            .is_none_or(|cap| self.tx.unsent_bytes + u64::from(len) <= cap);
        if len == 0 || !fits {
            self.stats.sdus_refused += 1;
            self.events.push_back(Event::SduRefused { id, len });
            return false;
        }
        self.tx_push(id, len);
        self.stats.sdus_accepted += 1;
        self.stats.sdu_bytes_accepted += u64::from(len);
        true
    }

    /// Processes a PDU received from the peer.
    pub fn handle_pdu(&mut self, now: SimTime, pdu: &Pdu) {
        self.now = now;
        match pdu {
            Pdu::Data(d) => self.rx_on_data(d),
            Pdu::Status(s) => self.on_status(s),
        }
    }

    /// Fires every timer due at or before `now`.
    pub fn handle_timeout(&mut self, now: SimTime) {
        self.now = now;
        self.tx_on_timeout(now);
        if self.rx.prohibit_until.is_some_and(|d| d <= now) {
            self.rx.prohibit_until = None;
        }
    }

    /// The PDUs to send in the TTI starting at `now`, at most `max_pdus`:
    /// first one STATUS PDU if a report, MRW or MRW_ACK is due, then
    /// retransmissions (lowest SN first), then new PDUs while VT(S) <
    /// VT(MS). A poll with nothing else to carry it resends the highest
    /// unacknowledged PDU (§9.7.1).
    pub fn poll_tti(&mut self, now: SimTime, max_pdus: usize) -> Vec<Pdu> {
        self.now = now;
        let mut out = Vec::new();
        let mut control_sent = false;
        while out.len() < max_pdus {
            if !control_sent {
                if let Some(s) = self.build_control(now) {
                    control_sent = true;
                    out.push(Pdu::Status(s));
                    continue;
                }
            }
            if let Some(p) = self.tx_next_retransmission(now) {
                out.push(Pdu::Data(p));
                continue;
            }
            if self.tx_new_pdu_allowed() {
                let p = self.tx_next_new(now);
                out.push(Pdu::Data(p));
                continue;
            }
            if self.tx_poll_sendable(now) && self.tx_schedule_poll_carrier() {
                continue;
            }
            // A discard just triggered by the poll carrier queues an MRW.
            if !control_sent && self.control_due(now) {
                continue;
            }
            break;
        }
        out
    }

    /// True when [`poll_tti`](Self::poll_tti) would return a PDU now.
    pub fn wants_transmit(&self) -> bool {
        self.control_due(self.now)
            || !self.tx.retx.is_empty()
            || self.tx_new_pdu_allowed()
            || (self.tx_poll_sendable(self.now) && self.tx_has_live_outstanding())
    }

    /// Earliest pending timer: Timer_Poll, Timer_MRW, and
    /// Timer_Status_Prohibit and Timer_Poll_Prohibit while a report or a poll
    /// waits for them.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let prohibit = if self.rx.status_pending {
            self.rx.prohibit_until
        } else {
            None
        };
        let mrw = self.tx.mrw.as_ref().and_then(|m| m.deadline);
        let poll_prohibit = if self.tx.poll_pending {
            self.tx.poll_prohibit_until
        } else {
            None
        };
        [self.tx.poll_deadline, mrw, prohibit, poll_prohibit]
            .into_iter()
            .flatten()
            .min()
    }

    /// Next SDU delivered to the upper layer, in order.
    pub fn poll_delivered(&mut self) -> Option<Sdu> {
        self.delivered.pop_front()
    }

    /// Next trace record.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// SDU octets held by the sender: queued or sent but not yet
    /// acknowledged (an SDU leaves when VT(A) passes its last PDU), discarded
    /// SDUs excluded.
    pub fn buffered_bytes(&self) -> u64 {
        self.tx.buffered_bytes
    }

    /// SDUs held by the sender, as [`buffered_bytes`](Self::buffered_bytes).
    pub fn buffered_sdus(&self) -> u64 {
        self.tx.buffered_sdus
    }

    /// SDU octets not yet placed in any PDU.
    pub fn unsent_bytes(&self) -> u64 {
        self.tx.unsent_bytes
    }

    /// PDUs sent and not yet acknowledged: VT(S) - VT(A).
    pub fn unacked_pdus(&self) -> u64 {
        self.tx.vt_s - self.tx.vt_a
    }

    /// PDUs waiting for retransmission.
    pub fn pending_retransmissions(&self) -> usize {
        self.tx.retx.len()
    }

    /// VT(S): SN of the next new PDU.
    pub fn vt_s(&self) -> Sn {
        Sn::new(self.tx.vt_s)
    }

    /// VT(A): SN of the first unacknowledged PDU.
    pub fn vt_a(&self) -> Sn {
        Sn::new(self.tx.vt_a)
    }

    /// VT(MS) = VT(A) + Configured_Tx_Window_Size.
    pub fn vt_ms(&self) -> Sn {
        Sn::new(self.tx.vt_a + u64::from(self.cfg.tx_window))
    }

    /// VR(R): SN following the last in-sequence PDU received.
    pub fn vr_r(&self) -> Sn {
        Sn::new(self.rx.vr_r)
    }

    /// VR(H): SN following the highest SN received.
    pub fn vr_h(&self) -> Sn {
        Sn::new(self.rx.vr_h)
    }

    /// VR(MR) = VR(R) + Configured_Rx_Window_Size.
    pub fn vr_mr(&self) -> Sn {
        Sn::new(self.rx.vr_r + u64::from(self.cfg.rx_window))
    }

    /// A control PDU is due: MRW_ACK, MRW, or a report not held back by
    /// Timer_Status_Prohibit.
    fn control_due(&self, now: SimTime) -> bool {
        self.rx.mrw_ack.is_some()
            || self.tx.mrw.as_ref().is_some_and(|m| m.send)
            || (self.rx.status_pending && !self.rx.prohibited(now))
    }

    /// Builds the STATUS PDU due now (§9.2.1.6): MRW_ACK, MRW, then the
    /// receiver's report (LIST/BITMAP SUFIs and ACK), padded to the PDU
    /// size. Without a report, NO_MORE ends the SUFIs.
    fn build_control(&mut self, now: SimTime) -> Option<StatusPdu> {
        if !self.control_due(now) {
            return None;
        }
        let total = self.cfg.pdu_size * 8;
        let mut sufis = Vec::new();
        if let Some((sn_ack, n)) = self.rx.mrw_ack.take() {
            sufis.push(Sufi::MrwAck { n, sn_ack });
        }
        if let Some(mrw) = self.tx_take_mrw(now) {
            sufis.push(mrw);
        }
        let used = pdu::STATUS_HEADER_BITS + sufis.iter().map(Sufi::bits).sum::<u32>();
        if self.rx.status_pending && !self.rx.prohibited(now) {
            let ack_bits = Sufi::Ack { lsn: Sn::new(0) }.bits();
            let (report, lsn, nacked) = self.rx_report(total - used - ack_bits);
            sufis.extend(report);
            sufis.push(Sufi::Ack { lsn });
            self.rx.status_pending = false;
            self.rx.prohibit_until = self.cfg.timer_status_prohibit.map(|t| now + t);
            self.stats.status_reports_sent += 1;
            self.events.push_back(Event::StatusSent { lsn, nacked });
        } else if used + Sufi::NoMore.bits() <= total {
            sufis.push(Sufi::NoMore);
        }
        self.stats.status_pdus_sent += 1;
        let st = StatusPdu {
            sufis,
            size: self.cfg.pdu_size,
        };
        debug_assert!(st.used_bits() <= total);
        Some(st)
    }

    /// Dispatches the SUFIs of a received STATUS PDU: MRW to the receiving
    /// side, MRW_ACK and the report (LIST/BITMAP NACKs up to the ACK SUFI)
    /// to the transmitting side.
    fn on_status(&mut self, st: &StatusPdu) {
        self.stats.status_pdus_received += 1;
        let mut nacks = Vec::new();
        let mut lsn = None;
        let mut report = false;
        for sufi in &st.sufis {
            match sufi {
                Sufi::NoMore => break,
                Sufi::Mrw { sn_mrw, n_length } => self.rx_on_mrw(*sn_mrw, *n_length),
                Sufi::MrwAck { n, sn_ack } => self.tx_on_mrw_ack(*sn_ack, *n),
                Sufi::List(pairs) => {
                    report = true;
                    for &(sn, l) in pairs {
                        nacks.extend((0..=u32::from(l)).map(|k| sn + k));
                    }
                }
                Sufi::Bitmap { fsn, bits } => {
                    report = true;
                    for (k, &received) in bits.iter().enumerate() {
                        if !received {
                            nacks.push(*fsn + k as u32);
                        }
                    }
                }
                Sufi::Ack { lsn: l } => {
                    report = true;
                    lsn = Some(*l);
                    break;
                }
            }
        }
        if report {
            self.tx_on_report(&nacks, lsn);
        }
    }
}
