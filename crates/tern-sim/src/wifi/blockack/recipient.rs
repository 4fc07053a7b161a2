//! The receive side of an HT-immediate Block Ack agreement: the scoreboard (the chip's,
//! IEEE Std 802.11-2020 §10.25.6.3) and the receive reordering buffer (the driver's,
//! §10.25.6.6), with the reorder-release timeout of Linux mac80211 and the driver's
//! declared losses.

use super::{sn_add, sn_offset, sn_precedes, RECIPIENT_WIN_SIZE, SN_HALF, SN_MODULO};
use crate::engine::SimTime;

/// A slot of the reordering buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Nothing received for this SN.
    Empty,
    /// An MPDU received intact at `at`, waiting to be passed up.
    Held { id: u64, at: SimTime },
    /// An SN the driver declared lost ([`Recipient::give_up`]): it no longer holds the
    /// window, and there is nothing to pass up for it.
    Declared,
}

/// The receive side of an HT-immediate Block Ack agreement: the receive reordering buffer
/// (§10.25.6.6) with WinStartB and WinEndB = WinStartB + 63 (WinSizeB = 64), and the
/// scoreboard the BlockAck bitmap is built from (§10.25.6.3) with its own window WinStartR,
/// WinEndR = WinStartR + 63.
///
/// The two are kept apart the way a Wi-Fi chip and its driver keep them apart: the
/// scoreboard is the chip's, the reordering buffer the driver's. Both windows follow the
/// same rules (an SN beyond the window end moves it, a BlockAckReq moves it, and it slides
/// over the in-order run of received SNs), so WinStartR = WinStartB until the driver moves
/// WinStartB by a rule of its own: the reorder-release timeout
/// ([`Recipient::with_reorder_timeout`]) or a declared loss ([`Recipient::give_up`]).
/// WinStartR then lags behind WinStartB (never ahead) until the scoreboard's own rules catch
/// up. The scoreboard adds a record of which of the 2048 SNs behind WinStartR were received,
/// so that [`Recipient::block_ack`] can answer for any starting sequence number the
/// originator may still be asking about; see there for the exact rule.
///
/// A gap in the reordering buffer (an SN not received) is released only by the standard's
/// rules (a BlockAckReq past it, an MPDU beyond WinEndB moving the window past it) or by
/// the reorder-release timeout; a declared loss fills its own SN and nothing else.
#[derive(Clone, Debug)]
pub struct Recipient {
    /// WinStartB.
    win_start: u16,
    /// The reordering buffer: SN `s` in slot `s % 64`; only SNs of the current window are
    /// in it.
    buffer: [Slot; RECIPIENT_WIN_SIZE as usize],
    /// How many slots of `buffer` hold an MPDU.
    buffered: usize,
    /// How long a held MPDU may wait behind a gap before the gap is given up on (Linux
    /// mac80211's HT_RX_REORDER_BUF_TIMEOUT); `None`: forever, as the standard's buffer.
    reorder_timeout: Option<SimTime>,
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
    /// the ADDBA Request), without a reorder-release timeout.
    ///
    /// # Panics
    /// If `ssn` ≥ 4096.
    pub fn new(ssn: u16) -> Self {
        assert!(ssn < SN_MODULO, "sequence number {ssn} is not 12-bit");
        Recipient {
            win_start: ssn,
            buffer: [Slot::Empty; RECIPIENT_WIN_SIZE as usize],
            buffered: 0,
            reorder_timeout: None,
            win_start_r: ssn,
            received: [0; SN_MODULO as usize / 64],
            duplicates: 0,
            ignored: 0,
        }
    }

    /// The same with Linux mac80211's reorder-release timeout (net/mac80211/rx.c,
    /// `ieee80211_sta_reorder_release`, HT_RX_REORDER_BUF_TIMEOUT = HZ/10, 100 ms): an MPDU
    /// held behind a gap for `timeout` releases the gap ([`Recipient::handle_timeout`]).
    /// `None` keeps the standard's buffer, which waits for a BlockAckReq.
    pub fn with_reorder_timeout(mut self, timeout: Option<SimTime>) -> Self {
        self.reorder_timeout = timeout;
        self
    }

    /// [`Recipient::on_mpdu_at`] for a recipient without a reorder-release timeout (the
    /// arrival time is not needed).
    pub fn on_mpdu(&mut self, sn: u16, id: u64) -> Vec<u64> {
        self.on_mpdu_at(SimTime::ZERO, sn, id)
    }

    /// An MPDU with SN `sn` carrying packet `id` arrived with a correct FCS at `now`.
    ///
    /// The scoreboard records it first (§10.25.6.3), with d = (sn − WinStartR) mod 4096:
    /// d < 64 marks it received; 64 ≤ d < 2048 moves the scoreboard window so that
    /// WinEndR = `sn`, then marks it received; d ≥ 2048 leaves the scoreboard alone. Then
    /// WinStartR slides over the in-order run of received SNs.
    ///
    /// The reordering buffer then follows §10.25.6.6, with d = (sn − WinStartB) mod 4096:
    ///
    /// * d < 64 (within the window): buffered; discarded if that SN is already buffered
    ///   (a duplicate) or was declared lost ([`Recipient::give_up`]: counted in
    ///   [`Recipient::ignored`] if the scoreboard has just recorded it);
    /// * 64 ≤ d < 2048 (beyond WinEndB): the window moves so that WinEndB = `sn`, every
    ///   buffered MPDU now before WinStartB is passed up in SN order (gaps are skipped, the
    ///   missing MPDUs are given up on), then the MPDU is buffered;
    /// * d ≥ 2048 (before WinStartB): discarded. If the scoreboard has just recorded it, it
    ///   is the first intact copy of an SN the driver moved past on its own (a declared
    ///   loss, or a gap the reorder-release timeout passed) and counts in
    ///   [`Recipient::ignored`]; otherwise it is old or a duplicate and counts in
    ///   [`Recipient::duplicates`].
    ///
    /// Then the in-order run of buffered or declared SNs from WinStartB is passed up and
    /// WinStartB moves past it. Returns the ids passed up, in SN order.
    pub fn on_mpdu_at(&mut self, now: SimTime, sn: u16, id: u64) -> Vec<u64> {
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
        match *slot {
            Slot::Held { .. } => self.duplicates += 1,
            Slot::Declared if newly_recorded => self.ignored += 1,
            Slot::Declared => self.duplicates += 1,
            Slot::Empty => {
                *slot = Slot::Held { id, at: now };
                self.buffered += 1;
                self.release_in_order(&mut up);
            }
        }
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
    /// SNs. While WinStartB is ahead of WinStartR, a BlockAckReq between them moves the
    /// scoreboard alone.
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
    /// [WinStartB, WinEndB] and nothing was received for it, its slot counts from now on as
    /// filled with nothing to pass up: if `sn` is WinStartB, the window moves past it and
    /// the in-order run behind it is passed up at once; if a gap lies before it, the window
    /// still waits for that gap under the buffer's own rules (the gap's MPDU arriving, a
    /// BlockAckReq, an MPDU beyond WinEndB, the reorder-release timeout) and then passes
    /// the declared SN with the rest. Otherwise (`sn` before the window, already buffered,
    /// or beyond WinEndB) nothing changes. Returns the ids passed up, in SN order.
    ///
    /// This is the receiver-side countermeasure to bufferbloat of "AP-side countermeasure to
    /// bufferbloat in IEEE 802.11n upload TCP" (§3.2 (2)): an AP that has received an MPDU
    /// carrying TCP with a bad FCS too many times declares that MPDU lost and moves on to
    /// the next one, handing up what it received behind it, instead of holding it until
    /// the station's retransmissions finally get through (or the station gives up and sends
    /// a BlockAckReq). TCP then sees the loss and slows down, rather than the delay. Only
    /// the declared MPDU is lost: another missing MPDU before it (one not carrying TCP, or
    /// one not yet over the limit) keeps the standard's treatment.
    ///
    /// The scoreboard is the chip's, not the driver's, so it does not see this decision:
    /// WinStartR and the scoreboard bits do not change, and [`Recipient::block_ack`] reports
    /// exactly what it would have had the driver never given up. If a given-up MPDU later
    /// arrives intact while the scoreboard window still covers it, the chip Block-Acks it (so
    /// the station stops retransmitting it) while the driver ignores it:
    /// [`Recipient::on_mpdu`] does not pass it up and counts it in [`Recipient::ignored`].
    pub fn give_up(&mut self, sn: u16) -> Vec<u64> {
        let mut up = Vec::new();
        let in_window = sn_offset(self.win_start, sn) < RECIPIENT_WIN_SIZE;
        let slot = &mut self.buffer[Self::slot(sn)];
        if in_window && *slot == Slot::Empty {
            *slot = Slot::Declared;
            self.release_in_order(&mut up);
        }
        up
    }

    /// When the reorder-release timeout next needs [`Recipient::handle_timeout`]: while
    /// WinStartB is a gap and MPDUs are held, the arrival of the first held MPDU after it
    /// plus the timeout (mac80211 arms its `reorder_timer` there). `None` without a timeout
    /// or with nothing waiting behind a gap.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let timeout = self.reorder_timeout?;
        if self.buffered == 0 || self.buffer[Self::slot(self.win_start)] != Slot::Empty {
            return None;
        }
        (1..RECIPIENT_WIN_SIZE).find_map(|k| match self.slot_at(k) {
            Slot::Held { at, .. } => Some(at + timeout),
            _ => None,
        })
    }

    /// The reorder-release timeout at `now` (mac80211 `ieee80211_sta_reorder_release`):
    /// walking the window from WinStartB (a gap), each held MPDU that has waited at least
    /// the timeout behind a gap is passed up, with every held MPDU before it, and the
    /// window moves past it (the gaps before it are given up on); a held MPDU in order
    /// after one passed up goes up too; the walk stops at the first held MPDU behind a gap
    /// that has not waited that long. Declared SNs neither open nor close a gap. Returns
    /// the ids passed up, in SN order. The kernel's timer has the granularity of a jiffy
    /// (it fires one jiffy after the deadline, 1-10 ms); here it fires at the deadline.
    pub fn handle_timeout(&mut self, now: SimTime) -> Vec<u64> {
        let mut up = Vec::new();
        let Some(timeout) = self.reorder_timeout else {
            return up;
        };
        if self.buffered == 0 || self.buffer[Self::slot(self.win_start)] != Slot::Empty {
            return up;
        }
        let base = self.win_start;
        let mut behind_gap = true;
        for k in 1..RECIPIENT_WIN_SIZE {
            let sn = sn_add(base, k);
            match self.buffer[Self::slot(sn)] {
                Slot::Empty => behind_gap = true,
                Slot::Declared => {}
                Slot::Held { at, .. } => {
                    if behind_gap && now < at + timeout {
                        break;
                    }
                    self.move_window(sn_add(sn, 1), &mut up);
                    behind_gap = false;
                }
            }
        }
        self.release_in_order(&mut up);
        up
    }

    /// The compressed BlockAck bitmap (§9.3.1.8) answering for `start_seq`: bit `i` is set
    /// when the scoreboard knows the MPDU with SN s = `start_seq + i` to have been received,
    /// that is when s is
    ///
    /// * in the scoreboard window [WinStartR, WinEndR] and was received since it entered
    ///   the window (while WinStartR = WinStartB, these are the MPDUs held in the
    ///   reordering buffer);
    /// * in the 2048 SNs before WinStartR and was received before the window moved past
    ///   it: an SN the window moved past without it having been received (a gap skipped by
    ///   a later MPDU or a BlockAckReq) reports 0, like an SN never seen since the agreement
    ///   began;
    ///
    /// and clear for SNs beyond WinEndR. Reporting received MPDUs behind the window keeps an
    /// originator whose previous BlockAck was lost from retransmitting what was already
    /// delivered; the bit of an SN never depends on the `start_seq` asked for. The bitmap
    /// never depends on the driver's own rules ([`Recipient::give_up`], the reorder-release
    /// timeout) either: an MPDU the driver gave up on but that arrived intact is reported,
    /// since the chip acknowledges it.
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
    /// later MPDU or a BlockAckReq, or moved past by the driver and then passed by the
    /// scoreboard window too).
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// MPDUs discarded because the driver had moved past their SN on its own rules
    /// ([`Recipient::give_up`], the reorder-release timeout) although the scoreboard
    /// records them, so that the BlockAck reports them: the first intact copy of such an
    /// SN arriving while the scoreboard window has not yet moved past it. Later copies
    /// count as duplicates.
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    fn slot(sn: u16) -> usize {
        (sn % RECIPIENT_WIN_SIZE) as usize
    }

    /// The slot `k` SNs after WinStartB.
    fn slot_at(&self, k: u16) -> Slot {
        self.buffer[Self::slot(sn_add(self.win_start, k))]
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
    /// MPDUs now before the window are passed up into `up` in SN order, declared SNs are
    /// forgotten.
    fn move_window(&mut self, new_start: u16, up: &mut Vec<u64>) {
        let d = sn_offset(self.win_start, new_start);
        for k in 0..d.min(RECIPIENT_WIN_SIZE) {
            let slot = &mut self.buffer[Self::slot(sn_add(self.win_start, k))];
            if let Slot::Held { id, .. } = *slot {
                up.push(id);
                self.buffered -= 1;
            }
            *slot = Slot::Empty;
        }
        self.win_start = new_start;
    }

    /// Passes up the buffered MPDUs from WinStartB on, and passes the declared SNs, until
    /// the first missing SN, moving WinStartB past them.
    fn release_in_order(&mut self, up: &mut Vec<u64>) {
        // At most 64 steps: each one empties a slot.
        while self.buffer[Self::slot(self.win_start)] != Slot::Empty {
            self.move_window(sn_add(self.win_start, 1), up);
        }
    }
}
