//! HT-immediate Block Ack for one (originator, recipient, TID) agreement (IEEE Std
//! 802.11-2020 §10.25, HT-immediate extensions §10.25.6): the originator's transmit window
//! and retransmission bookkeeping ([`Originator`], §10.25.6.7 and §10.25.6.8) and the
//! recipient's scoreboard and receive reordering buffer ([`Recipient`], §10.25.6.3 and
//! §10.25.6.6), with the 64-bit compressed BlockAck bitmap (§9.3.1.8).
//!
//! Sans-IO state machines: the MAC model tells them what happened (an A-MPDU is being built,
//! a BlockAck arrived or timed out, an MPDU arrived with a correct FCS, a BlockAckReq
//! arrived, the reorder-release timeout expired) and acts on what they return. Packets are
//! opaque `u64` ids. The ADDBA handshake, the frames themselves and the timers are the
//! caller's business.
//!
//! Sequence numbers are the 12-bit Sequence Number field (§9.2.4.4.2), counted modulo 4096
//! (§10.3.2.14) with [`Seq12`]'s serial-number arithmetic (RFC 1982), carried as `u16`
//! values below 4096: see [`sn_add`], [`sn_offset`] and [`sn_precedes`].

use std::collections::VecDeque;
use tern_proto::seq::Seq12;

/// Sequence numbers are counted modulo 2^12 (§9.2.4.4.2).
pub const SN_MODULO: u16 = Seq12::MODULUS as u16;

/// Half the sequence number space, 2^11: how far ahead "after" reaches in SN comparisons.
const SN_HALF: u16 = SN_MODULO / 2;

/// WinSizeB, the recipient's reordering buffer and scoreboard size: 64 MPDUs, the size of the
/// compressed BlockAck bitmap (§9.3.1.8) and the largest HT buffer size.
pub const RECIPIENT_WIN_SIZE: u16 = 64;

/// `sn + n` modulo 4096.
pub const fn sn_add(sn: u16, n: u16) -> u16 {
    Seq12::new(sn as u64).wrapping_add(n as u32).value() as u16
}

/// `(to − from)` modulo 4096: how many sequence numbers `to` lies after `from`.
pub const fn sn_offset(from: u16, to: u16) -> u16 {
    Seq12::new(to as u64).offset_from(Seq12::new(from as u64)) as u16
}

/// Whether `a` comes strictly before `b` in the circular sequence space (RFC 1982 §3.2):
/// 0 < (b − a) mod 4096 < 2048.
pub const fn sn_precedes(a: u16, b: u16) -> bool {
    Seq12::new(a as u64).precedes(Seq12::new(b as u64))
}

// ---------------------------------------------------------------------------------------
// Originator
// ---------------------------------------------------------------------------------------

/// Where an MPDU of the originator's queue stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MpduState {
    /// Has a sequence number, never sent.
    New,
    /// Sent in the last batch, outcome not known yet.
    InFlight,
    /// Sent, not acknowledged, waiting for a retransmission.
    Retry,
    /// Acknowledged by a BlockAck (stays queued until the window passes it).
    Acked,
    /// Given up after `retry_limit` failed attempts (stays queued until the window passes it).
    Dropped,
}

#[derive(Clone, Copy, Debug)]
struct Mpdu {
    id: u64,
    attempts: u32,
    /// Attempts in the hardware submission under way ([`Originator::per_submission`]).
    series_tries: u32,
    state: MpduState,
}

/// What a BlockAck (or its absence) did to the originator's window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BaOutcome {
    /// Ids acknowledged by this BlockAck, in SN order: the MPDUs of the batch whose bit is
    /// set, plus any MPDU still waiting for a retransmission whose bit is set (its earlier
    /// BlockAck was lost).
    pub acked: Vec<u64>,
    /// Ids of the batch given up on, in SN order: not acknowledged after their
    /// `retry_limit`-th attempt.
    pub dropped: Vec<u64>,
    /// MPDUs of the batch not acknowledged and queued for a retransmission.
    pub retries: usize,
    /// WinStartO after this outcome.
    pub win_start: u16,
    /// `Some(WinStartO)` when the window moved past at least one dropped MPDU: the
    /// originator then sends a BlockAckReq (§9.3.1.7) with this Starting Sequence Number so
    /// that the recipient stops waiting for the dropped MPDUs; hand it to
    /// [`Recipient::on_bar`]. The BlockAckReq is modelled as reliable.
    pub bar: Option<u16>,
}

/// The transmit side of an HT-immediate Block Ack agreement (§10.25.6.7, §10.25.6.8):
/// assigns sequence numbers, picks the MPDUs of each A-MPDU within the transmit window
/// [WinStartO, WinStartO + WinSizeO) and keeps track of acknowledgements and retries.
///
/// One batch (A-MPDU) is outstanding at a time: after [`Originator::next_batch`] the caller
/// reports the BlockAck with [`Originator::on_block_ack`] or its timeout with
/// [`Originator::on_no_block_ack`] before asking for the next batch.
#[derive(Clone, Debug)]
pub struct Originator {
    /// WinStartO: the SN of `queue[0]`, the oldest MPDU neither acknowledged nor dropped
    /// (or the next SN to assign if the queue is empty).
    win_start: u16,
    /// WinSizeO, 1..=64.
    win_size: u16,
    /// Most transmissions of one MPDU.
    retry_limit: u32,
    /// The limit checked once per hardware submission, as ath9k does (see
    /// [`Originator::per_submission`]).
    per_submission: bool,
    /// `queue[i]` has SN `win_start + i`. Its front is never `Acked` or `Dropped`; the MPDUs
    /// ever sent form a prefix of it, all inside the window.
    queue: VecDeque<Mpdu>,
}

impl Originator {
    /// An agreement whose first MPDU gets SN 0, with transmit window WinSizeO = `win_size`
    /// and at most `retry_limit` transmissions per MPDU.
    ///
    /// # Panics
    /// If `win_size` is not in 1..=64 or `retry_limit` is 0.
    pub fn new(win_size: u16, retry_limit: u32) -> Self {
        Self::with_ssn(0, win_size, retry_limit)
    }

    /// Like [`Originator::new`], with the first MPDU getting SN `ssn` (the Block Ack
    /// Starting Sequence Control of the ADDBA Request).
    ///
    /// # Panics
    /// If `ssn` ≥ 4096, `win_size` is not in 1..=64 or `retry_limit` is 0.
    pub fn with_ssn(ssn: u16, win_size: u16, retry_limit: u32) -> Self {
        assert!(ssn < SN_MODULO, "sequence number {ssn} is not 12-bit");
        assert!(
            (1..=RECIPIENT_WIN_SIZE).contains(&win_size),
            "WinSizeO {win_size} not in 1..=64"
        );
        assert!(retry_limit >= 1, "retry limit must allow one transmission");
        Originator {
            win_start: ssn,
            win_size,
            retry_limit,
            per_submission: false,
            queue: VecDeque::new(),
        }
    }

    /// The retry limit as ath9k applies it (`ath_tx_complete_aggr`, drivers/net/wireless/
    /// ath/ath9k/xmit.c): when a hardware submission ends (a Block Ack came, or the rate
    /// series is spent), an MPDU not acknowledged is given up if the tries it had *before*
    /// that submission reach the limit (ATH_MAX_SW_RETRIES), else it goes back for a
    /// software retry with the submission's tries added. An MPDU is thus given up after
    /// between `retry_limit` and `retry_limit` plus one series' tries. Without it, an
    /// MPDU is given up at its `retry_limit`-th failed attempt (802.11's per-MPDU retry
    /// counter). The submission ends with every Block Ack, and without one where the
    /// caller says so ([`Originator::on_no_block_ack_ending`]).
    pub fn per_submission(mut self) -> Self {
        self.per_submission = true;
        self
    }

    /// Queues a new MPDU carrying packet `id` and returns its sequence number: the SN after
    /// that of the previously queued MPDU, modulo 4096 (§10.3.2.14).
    pub fn enqueue(&mut self, id: u64) -> u16 {
        // The queue may be longer than the SN space; only its first 64 entries are ever
        // looked at by SN, so the ambiguity never matters.
        let sn = sn_add(
            self.win_start,
            (self.queue.len() % SN_MODULO as usize) as u16,
        );
        self.queue.push_back(Mpdu {
            id,
            attempts: 0,
            series_tries: 0,
            state: MpduState::New,
        });
        sn
    }

    /// The `(sn, id)` of an MPDU sent alone: `id` if it is in the window and waits for a
    /// (re)transmission, else the first new MPDU in the window, else the first MPDU
    /// [`Originator::next_batch`] would send; empty if none may go. A rate-control probe
    /// is a frame the driver has just been handed (ath9k), and its retries are of that frame.
    /// The MPDU returned is in flight and has one more attempt.
    pub fn next_lone(&mut self, id: Option<u64>) -> Vec<(u16, u64)> {
        let waiting = |m: &Mpdu| matches!(m.state, MpduState::New | MpduState::Retry);
        let window = self.window_len();
        let chosen = id
            .and_then(|id| (0..window).find(|&i| self.queue[i].id == id && waiting(&self.queue[i])))
            .or_else(|| (0..window).find(|&i| self.queue[i].state == MpduState::New));
        let Some(i) = chosen else {
            return self.next_batch(1, |_| true);
        };
        // The first new MPDU follows every MPDU ever sent, so those still form a prefix.
        let m = &mut self.queue[i];
        m.state = MpduState::InFlight;
        m.attempts += 1;
        m.series_tries += 1;
        vec![(sn_add(self.win_start, i as u16), m.id)]
    }

    /// Whether a new MPDU (never sent) lies in the window.
    pub fn has_new(&self) -> bool {
        self.count_in_window(|s| s == MpduState::New) > 0
    }

    /// The `(sn, id)` pairs of the next A-MPDU, in SN order: the MPDUs waiting for a
    /// retransmission first, then new ones, all with SN in [WinStartO, WinStartO + WinSizeO)
    /// (§10.25.6.7); an MPDU outside the window waits. Stops after `max_mpdus` MPDUs or at
    /// the first MPDU for which `fits(id)` is false (the caller's byte and duration limits).
    /// Each MPDU returned is in flight and has one more attempt.
    pub fn next_batch(
        &mut self,
        max_mpdus: usize,
        mut fits: impl FnMut(u64) -> bool,
    ) -> Vec<(u16, u64)> {
        let mut batch = Vec::new();
        // Sent MPDUs form a prefix of the queue, so SN order puts retransmissions first.
        for i in 0..self.window_len() {
            if batch.len() >= max_mpdus {
                break;
            }
            let m = &mut self.queue[i];
            if !matches!(m.state, MpduState::New | MpduState::Retry) {
                continue;
            }
            if !fits(m.id) {
                break;
            }
            m.state = MpduState::InFlight;
            m.attempts += 1;
            m.series_tries += 1;
            batch.push((sn_add(self.win_start, i as u16), m.id));
        }
        batch
    }

    /// A BlockAck arrived whose bitmap bit `i` acknowledges SN `start_seq + i` (§9.3.1.8,
    /// §10.25.6.8):
    ///
    /// * an in-flight or retry-waiting MPDU whose bit is set is done;
    /// * an in-flight MPDU whose bit is clear, or which lies outside the 64 SNs the bitmap
    ///   covers, failed one attempt: it waits for a retransmission, or is dropped if it has
    ///   had `retry_limit` attempts;
    ///
    /// then WinStartO moves to the oldest MPDU neither acknowledged nor dropped.
    pub fn on_block_ack(&mut self, start_seq: u16, bitmap: u64) -> BaOutcome {
        let mut out = BaOutcome::default();
        for i in 0..self.window_len() {
            let off = sn_offset(start_seq, sn_add(self.win_start, i as u16));
            let acked = off < 64 && (bitmap >> off) & 1 == 1;
            let m = &mut self.queue[i];
            match m.state {
                MpduState::InFlight | MpduState::Retry if acked => {
                    m.state = MpduState::Acked;
                    out.acked.push(m.id);
                }
                MpduState::InFlight => self.fail(i, true, &mut out),
                _ => {}
            }
        }
        self.end_submission(true);
        self.advance(out)
    }

    /// No BlockAck came back (BlockAck timeout): every in-flight MPDU failed one attempt,
    /// with the same retry-limit rule as [`Originator::on_block_ack`]; the submission ends
    /// ([`Originator::on_no_block_ack_ending`]).
    pub fn on_no_block_ack(&mut self) -> BaOutcome {
        self.on_no_block_ack_ending(true)
    }

    /// No BlockAck came back, and the hardware submission ends with this try if `ends`
    /// (its rate series is spent): with [`Originator::per_submission`] only then is an
    /// MPDU given up; otherwise as [`Originator::on_no_block_ack`].
    pub fn on_no_block_ack_ending(&mut self, ends: bool) -> BaOutcome {
        let mut out = BaOutcome::default();
        for i in 0..self.window_len() {
            if self.queue[i].state == MpduState::InFlight {
                self.fail(i, ends, &mut out);
            }
        }
        self.end_submission(ends);
        self.advance(out)
    }

    /// WinStartO: the SN of the oldest MPDU neither acknowledged nor dropped.
    pub fn win_start(&self) -> u16 {
        self.win_start
    }

    /// MPDUs waiting to be sent: new ones plus those waiting for a retransmission.
    pub fn queued(&self) -> usize {
        self.queue.len() - self.count_in_window(|s| !matches!(s, MpduState::New | MpduState::Retry))
    }

    /// MPDUs waiting for a retransmission.
    pub fn pending_retries(&self) -> usize {
        self.count_in_window(|s| s == MpduState::Retry)
    }

    /// MPDUs of the outstanding batch.
    pub fn in_flight(&self) -> usize {
        self.count_in_window(|s| s == MpduState::InFlight)
    }

    /// Whether every MPDU queued so far has been acknowledged or dropped.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// How many queue entries lie inside the transmit window.
    fn window_len(&self) -> usize {
        self.queue.len().min(self.win_size as usize)
    }

    /// Entries of the window in a state matching `pred` (entries past the window are all
    /// `New`).
    fn count_in_window(&self, pred: impl Fn(MpduState) -> bool) -> usize {
        self.queue
            .iter()
            .take(self.win_size as usize)
            .filter(|m| pred(m.state))
            .count()
    }

    /// One failed attempt of the in-flight MPDU `queue[i]`, in a submission that `ends`.
    fn fail(&mut self, i: usize, ends: bool, out: &mut BaOutcome) {
        let m = &mut self.queue[i];
        let give_up = if self.per_submission {
            ends && m.attempts - m.series_tries >= self.retry_limit
        } else {
            m.attempts >= self.retry_limit
        };
        if give_up {
            m.state = MpduState::Dropped;
            out.dropped.push(m.id);
        } else {
            m.state = MpduState::Retry;
            out.retries += 1;
        }
    }

    /// A hardware submission ended if `ends`: its tries now count as tries before the next.
    fn end_submission(&mut self, ends: bool) {
        if ends {
            for m in self.queue.iter_mut().take(self.win_size as usize) {
                m.series_tries = 0;
            }
        }
    }

    /// Moves WinStartO past the acknowledged and dropped MPDUs at the front and completes
    /// `out` with the new window start (and the BlockAckReq SSN if a drop was passed).
    fn advance(&mut self, mut out: BaOutcome) -> BaOutcome {
        let mut passed_drop = false;
        while let Some(m) = self.queue.front() {
            match m.state {
                MpduState::Acked => {}
                MpduState::Dropped => passed_drop = true,
                _ => break,
            }
            self.queue.pop_front();
            self.win_start = sn_add(self.win_start, 1);
        }
        out.win_start = self.win_start;
        out.bar = passed_drop.then_some(self.win_start);
        out
    }
}

// ---------------------------------------------------------------------------------------
// Recipient
// ---------------------------------------------------------------------------------------

mod recipient;
pub use recipient::Recipient;

#[cfg(test)]
mod tests;
