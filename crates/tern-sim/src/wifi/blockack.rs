//! HT-immediate Block Ack for one (originator, recipient, TID) agreement (IEEE Std
//! 802.11-2020 §10.25, HT-immediate extensions §10.25.6): the originator's transmit window
//! and retransmission bookkeeping ([`Originator`], §10.25.6.7 and §10.25.6.8) and the
//! recipient's scoreboard and receive reordering buffer ([`Recipient`], §10.25.6.3 and
//! §10.25.6.6), with the 64-bit compressed BlockAck bitmap (§9.3.1.8).
//!
//! Sans-IO state machines: the MAC model tells them what happened (an A-MPDU is being built,
//! a BlockAck arrived or timed out, an MPDU arrived with a correct FCS, a BlockAckReq
//! arrived) and acts on what they return. Packets are opaque `u64` ids. The ADDBA
//! handshake, the frames themselves and all timing are the caller's business.
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
            queue: VecDeque::new(),
        }
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
            state: MpduState::New,
        });
        sn
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
                MpduState::InFlight => Self::fail(m, self.retry_limit, &mut out),
                _ => {}
            }
        }
        self.advance(out)
    }

    /// No BlockAck came back (BlockAck timeout): every in-flight MPDU failed one attempt,
    /// with the same retry-limit rule as [`Originator::on_block_ack`].
    pub fn on_no_block_ack(&mut self) -> BaOutcome {
        let mut out = BaOutcome::default();
        for m in self.queue.iter_mut().take(self.win_size as usize) {
            if m.state == MpduState::InFlight {
                Self::fail(m, self.retry_limit, &mut out);
            }
        }
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

    /// One failed attempt of an in-flight MPDU.
    fn fail(m: &mut Mpdu, retry_limit: u32, out: &mut BaOutcome) {
        if m.attempts >= retry_limit {
            m.state = MpduState::Dropped;
            out.dropped.push(m.id);
        } else {
            m.state = MpduState::Retry;
            out.retries += 1;
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

/// The receive side of an HT-immediate Block Ack agreement: the receive reordering buffer
/// (§10.25.6.6) with WinStartB and WinEndB = WinStartB + 63 (WinSizeB = 64), and the
/// scoreboard the BlockAck bitmap is built from (§10.25.6.3) with its own window WinStartR,
/// WinEndR = WinStartR + 63.
///
/// The two are kept apart the way a Wi-Fi chip and its driver keep them apart: the
/// scoreboard is the chip's, the reordering buffer the driver's. Both windows follow the
/// same rules (an SN beyond the window end moves it, a BlockAckReq moves it, and it slides
/// over the in-order run of received SNs), so WinStartR = WinStartB until the driver gives
/// up on an MPDU with [`Recipient::give_up`]: that moves WinStartB only, and WinStartR lags
/// behind it (never ahead) until the scoreboard's own rules catch up. The scoreboard adds a
/// record of which of the 2048 SNs behind WinStartR were received, so that
/// [`Recipient::block_ack`] can answer for any starting sequence number the originator may
/// still be asking about; see there for the exact rule.
#[derive(Clone, Debug)]
pub struct Recipient {
    /// WinStartB.
    win_start: u16,
    /// Buffered MPDU ids, SN `s` in slot `s % 64`; only SNs of the current window are held.
    buffer: [Option<u64>; RECIPIENT_WIN_SIZE as usize],
    /// How many slots of `buffer` are full.
    buffered: usize,
    /// WinStartR, the start of the scoreboard window.
    win_start_r: u16,
    /// The scoreboard, one bit per SN: received since the SN last entered the scoreboard
    /// window. Meaningful for that window and the 2048 SNs before WinStartR; cleared as an
    /// SN (re-)enters the window.
    received: [u64; SN_MODULO as usize / 64],
    /// MPDUs discarded as duplicates or as too old.
    duplicates: u64,
    /// MPDUs discarded because the driver had given up on their SN.
    ignored: u64,
}

impl Recipient {
    /// An agreement whose window starts at `ssn` (the Block Ack Starting Sequence Control of
    /// the ADDBA Request).
    ///
    /// # Panics
    /// If `ssn` ≥ 4096.
    pub fn new(ssn: u16) -> Self {
        assert!(ssn < SN_MODULO, "sequence number {ssn} is not 12-bit");
        Recipient {
            win_start: ssn,
            buffer: [None; RECIPIENT_WIN_SIZE as usize],
            buffered: 0,
            win_start_r: ssn,
            received: [0; SN_MODULO as usize / 64],
            duplicates: 0,
            ignored: 0,
        }
    }

    /// An MPDU with SN `sn` carrying packet `id` arrived with a correct FCS.
    ///
    /// The scoreboard records it first (§10.25.6.3), with d = (sn − WinStartR) mod 4096:
    /// d < 64 marks it received; 64 ≤ d < 2048 moves the scoreboard window so that
    /// WinEndR = `sn`, then marks it received; d ≥ 2048 leaves the scoreboard alone. Then
    /// WinStartR slides over the in-order run of received SNs.
    ///
    /// The reordering buffer then follows §10.25.6.6, with d = (sn − WinStartB) mod 4096:
    ///
    /// * d < 64 (within the window): buffered, or discarded if that SN is already buffered;
    /// * 64 ≤ d < 2048 (beyond WinEndB): the window moves so that WinEndB = `sn`, every
    ///   buffered MPDU now before WinStartB is passed up in SN order (gaps are skipped, the
    ///   missing MPDUs are given up on), then the MPDU is buffered;
    /// * d ≥ 2048 (before WinStartB): discarded. If the scoreboard has just recorded it, it
    ///   is the first intact copy of an SN the driver gave up on ([`Recipient::give_up`]) and
    ///   counts in [`Recipient::ignored`]; otherwise it is old or a duplicate and counts in
    ///   [`Recipient::duplicates`].
    ///
    /// Then the in-order run of buffered MPDUs from WinStartB is passed up and WinStartB
    /// moves past it. Returns the ids passed up, in SN order.
    pub fn on_mpdu(&mut self, sn: u16, id: u64) -> Vec<u64> {
        let newly_recorded = self.record(sn);
        let mut up = Vec::new();
        let d = sn_offset(self.win_start, sn);
        if d >= SN_HALF {
            if newly_recorded {
                self.ignored += 1;
            } else {
                self.duplicates += 1;
            }
            return up;
        }
        if d >= RECIPIENT_WIN_SIZE {
            self.move_window(sn_add(sn, SN_MODULO - (RECIPIENT_WIN_SIZE - 1)), &mut up);
        }
        let slot = &mut self.buffer[Self::slot(sn)];
        if slot.is_some() {
            self.duplicates += 1;
            return up;
        }
        *slot = Some(id);
        self.buffered += 1;
        self.release_in_order(&mut up);
        up
    }

    /// A BlockAckReq with Starting Sequence Number `ssn` arrived (§10.25.6.6): if `ssn` is
    /// after WinStartB, every buffered MPDU before `ssn` is passed up in SN order (gaps are
    /// given up on), WinStartB becomes `ssn`, then the in-order run from there is passed up.
    /// Otherwise the reordering buffer does not change. Returns the ids passed up, in SN
    /// order.
    ///
    /// The scoreboard follows the same rule with its own window (§10.25.6.3): if `ssn` is
    /// after WinStartR, WinStartR becomes `ssn` and slides over the in-order run of received
    /// SNs. Without [`Recipient::give_up`] the two windows are the same; after one, a
    /// BlockAckReq between WinStartR and WinStartB moves the scoreboard alone.
    pub fn on_bar(&mut self, ssn: u16) -> Vec<u64> {
        if sn_precedes(self.win_start_r, ssn) {
            self.move_scoreboard(ssn);
            self.advance_scoreboard();
        }
        let mut up = Vec::new();
        if sn_precedes(self.win_start, ssn) {
            self.move_window(ssn, &mut up);
            self.release_in_order(&mut up);
        }
        up
    }

    /// The driver declares the MPDU with SN `sn` lost. If `sn` lies in the reordering window
    /// [WinStartB, WinEndB] and is not buffered, this is a BlockAckReq with SSN `sn + 1` to
    /// the reordering buffer alone: every buffered MPDU before `sn` is passed up in SN order
    /// (the gaps before it are given up too), WinStartB becomes `sn + 1`, then the in-order
    /// run from there is passed up. Otherwise (`sn` before the window, already buffered, or
    /// beyond WinEndB) nothing changes. Returns the ids passed up, in SN order.
    ///
    /// This is the receiver-side countermeasure to bufferbloat of "AP-side countermeasure to
    /// bufferbloat in IEEE 802.11n upload TCP": an AP that has received an MPDU with a bad
    /// FCS too many times declares it lost, moves its reordering window past it and hands
    /// the MPDUs buffered behind it upward at once, instead of holding them until the
    /// station's retransmissions finally get through (or it gives up and sends a
    /// BlockAckReq). TCP then sees the loss and slows down, rather than the delay.
    ///
    /// The scoreboard is the chip's, not the driver's, so it does not see this decision:
    /// WinStartR and the scoreboard bits do not change, and [`Recipient::block_ack`] reports
    /// exactly what it would have had the driver never given up. If a given-up MPDU later
    /// arrives intact while the scoreboard window still covers it, the chip Block-Acks it (so
    /// the station stops retransmitting it) while the driver, its window past it, ignores
    /// it: [`Recipient::on_mpdu`] does not pass it up and counts it in
    /// [`Recipient::ignored`].
    pub fn give_up(&mut self, sn: u16) -> Vec<u64> {
        let mut up = Vec::new();
        let in_window = sn_offset(self.win_start, sn) < RECIPIENT_WIN_SIZE;
        if in_window && self.buffer[Self::slot(sn)].is_none() {
            self.move_window(sn_add(sn, 1), &mut up);
            self.release_in_order(&mut up);
        }
        up
    }

    /// The compressed BlockAck bitmap (§9.3.1.8) answering for `start_seq`: bit `i` is set
    /// when the scoreboard knows the MPDU with SN s = `start_seq + i` to have been received,
    /// that is when s is
    ///
    /// * in the scoreboard window [WinStartR, WinEndR] and was received since it entered
    ///   the window (without [`Recipient::give_up`], WinStartR = WinStartB and these are the
    ///   MPDUs held in the reordering buffer);
    /// * in the 2048 SNs before WinStartR and was received before the window moved past
    ///   it: an SN the window moved past without it having been received (a gap skipped by
    ///   a later MPDU or a BlockAckReq) reports 0, like an SN never seen since the agreement
    ///   began;
    ///
    /// and clear for SNs beyond WinEndR. Reporting received MPDUs behind the window keeps an
    /// originator whose previous BlockAck was lost from retransmitting what was already
    /// delivered; the bit of an SN never depends on the `start_seq` asked for. The bitmap
    /// never depends on [`Recipient::give_up`] either: an MPDU the driver gave up on but
    /// that arrived intact is reported, since the chip acknowledges it.
    pub fn block_ack(&self, start_seq: u16) -> u64 {
        (0..64u16)
            .filter(|&i| self.is_received(sn_add(start_seq, i)))
            .fold(0, |bitmap, i| bitmap | 1 << i)
    }

    /// WinStartB.
    pub fn win_start(&self) -> u16 {
        self.win_start
    }

    /// MPDUs held in the reordering buffer.
    pub fn buffered(&self) -> usize {
        self.buffered
    }

    /// MPDUs discarded so far, other than those counted by [`Recipient::ignored`]: SN already
    /// buffered, or before WinStartB (received again after being passed up, or arriving
    /// after the window gave up on it without the scoreboard recording it: skipped by a
    /// later MPDU or a BlockAckReq, or given up on by the driver and then passed by the
    /// scoreboard window too).
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// MPDUs discarded because the driver had given up on their SN ([`Recipient::give_up`],
    /// the SN itself or a gap before it) although the scoreboard records them, so that the
    /// BlockAck reports them: the first intact copy of such an SN arriving while the
    /// scoreboard window has not yet moved past it. Later copies count as duplicates.
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    fn slot(sn: u16) -> usize {
        (sn % RECIPIENT_WIN_SIZE) as usize
    }

    fn bit(&self, sn: u16) -> bool {
        (self.received[sn as usize / 64] >> (sn % 64)) & 1 == 1
    }

    fn is_received(&self, sn: u16) -> bool {
        let d = sn_offset(self.win_start_r, sn);
        let beyond_end = (RECIPIENT_WIN_SIZE..SN_HALF).contains(&d);
        !beyond_end && self.bit(sn)
    }

    /// The scoreboard's part of an arriving MPDU (§10.25.6.3). Returns whether it marked
    /// `sn` received when it was not before.
    fn record(&mut self, sn: u16) -> bool {
        let d = sn_offset(self.win_start_r, sn);
        if d >= SN_HALF {
            return false;
        }
        if d >= RECIPIENT_WIN_SIZE {
            self.move_scoreboard(sn_add(sn, SN_MODULO - (RECIPIENT_WIN_SIZE - 1)));
        }
        let new = !self.bit(sn);
        self.received[sn as usize / 64] |= 1 << (sn % 64);
        self.advance_scoreboard();
        new
    }

    /// Moves WinStartR forward to `new_start` (after it, less than 2048 ahead): the SNs that
    /// entered the scoreboard window, or jumped from beyond it to before it, are marked not
    /// received.
    fn move_scoreboard(&mut self, new_start: u16) {
        for k in 0..sn_offset(self.win_start_r, new_start) {
            let sn = sn_add(self.win_start_r, RECIPIENT_WIN_SIZE + k);
            self.received[sn as usize / 64] &= !(1 << (sn % 64));
        }
        self.win_start_r = new_start;
    }

    /// Moves WinStartR past the received SNs from WinStartR on until the first one missing.
    fn advance_scoreboard(&mut self) {
        // Each step clears the SN entering the window, so this stops within 64 steps.
        while self.bit(self.win_start_r) {
            self.move_scoreboard(sn_add(self.win_start_r, 1));
        }
    }

    /// Moves WinStartB forward to `new_start` (after it, less than 2048 ahead): buffered
    /// MPDUs now before the window are passed up into `up` in SN order.
    fn move_window(&mut self, new_start: u16, up: &mut Vec<u64>) {
        let d = sn_offset(self.win_start, new_start);
        for k in 0..d.min(RECIPIENT_WIN_SIZE) {
            if let Some(id) = self.buffer[Self::slot(sn_add(self.win_start, k))].take() {
                up.push(id);
                self.buffered -= 1;
            }
        }
        self.win_start = new_start;
    }

    /// Passes up the buffered MPDUs from WinStartB on until the first missing SN, moving
    /// WinStartB past them.
    fn release_in_order(&mut self, up: &mut Vec<u64>) {
        while self.buffer[Self::slot(self.win_start)].is_some() {
            self.move_window(sn_add(self.win_start, 1), up);
        }
    }
}

#[cfg(test)]
mod tests;
