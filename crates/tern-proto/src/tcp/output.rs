//! Segment emission: what to send next and how it is framed.

use super::scoreboard::{Resend, SentSeg};
use super::wire::{Flags, SackBlocks, Segment, TcpOptions, MAX_SACK_BLOCKS};
use super::{Connection, Event, RetransmitKind, State};
use crate::cc::AppLimitedEvent;
use crate::time::SimTime;

impl Connection {
    /// The next segment to send at `now`, or `None`.
    ///
    /// Priority: RST reply, SYN/SYN-ACK, forced retransmission (fast
    /// retransmit / partial ACK / RTO / speculative retransmission on
    /// restored connectivity), F-RTO's new segments (RFC 5682
    /// step 2b), zero-window probe, lost segments within
    /// cwnd (NextSeg rule 1), new data within cwnd and the peer's window
    /// (rule 2), FIN, then a pure ACK if one is due.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Segment> {
        let mut seg = Segment::default();
        self.poll_transmit_into(now, &mut seg).then_some(seg)
    }

    /// [`poll_transmit`](Self::poll_transmit), framing the segment in `out`, a slot of the
    /// caller's (a packet buffer): every field of `out` is written when it returns `true`,
    /// none when it returns `false` (nothing to send). A driver that sends from its own
    /// buffer then neither copies the segment nor reads it back right after its fields were
    /// written one by one.
    pub fn poll_transmit_into(&mut self, now: SimTime, out: &mut Segment) -> bool {
        self.now = now;
        if let Some(bad) = self.rst_reply.take() {
            *out = Self::rst_for(&bad);
            return true;
        }
        if matches!(self.state, State::Closed | State::Listen) {
            return false;
        }
        if self.syn_pending {
            self.emit_syn(now, out);
            return true;
        }
        if self.state == State::SynSent || self.state == State::SynReceived {
            return false;
        }
        if let Some(next) = self
            .pacer()
            .filter(|p| !p.may_send(now))
            .map(|p| p.next_departure())
        {
            // `tcp_pacing_check`: data waits for the pacing timer; an ACK does not.
            if self.force_retx || self.sb.has_lost() || self.has_data_to_send() {
                if let Some(s) = self.sampling.as_deref_mut() {
                    s.pacing_deadline = Some(next);
                }
            }
            return self.emit_due_ack(now, out);
        }
        if std::mem::take(&mut self.force_retx) && self.retransmit_lost(now, out) {
            self.prr_sent(out);
            return true;
        }
        // F-RTO step 2b (RFC 5682): up to two new segments, outside cwnd.
        if self.frto_take_new_quota() {
            if self.emit_frto_new(now, out) {
                return true;
            }
            self.frto_drop_new_quota();
        }
        if std::mem::take(&mut self.probe_pending) && self.emit_probe(now, out) {
            return true;
        }
        let pipe = self.sb.pipe();
        let room = if let Some(allowed) = self.recovery.prr_allowance() {
            // In recovery with PRR: what the latest ACK allows (RFC 9937).
            allowed
        } else if pipe > 0 || self.sb.has_lost() || self.has_data_to_send() {
            self.cwnd().saturating_sub(pipe)
        } else {
            // Nothing in flight, lost or to send (a receiver's usual state): the window
            // only decides whether the sender is application-limited, and with nothing in
            // flight it has room, as cwnd is at least one segment. Its controller, which
            // may be out of the caches when there are many flows, is not read.
            u64::from(self.smss)
        };
        // `has_lost` first: a count read inline, where a connection without losses stops.
        if self.sb.has_lost()
            && self
                .sb
                .next_lost()
                .is_some_and(|s| room >= u64::from(s.len.max(1)))
        {
            let sent = self.retransmit_lost(now, out);
            if sent {
                self.prr_sent(out);
            }
            return sent;
        }
        if self.emit_new_data(now, room, out) {
            self.prr_sent(out);
            return true;
        }
        if room > 0 && self.send.unsent() == 0 && !self.send.fin_pending() {
            // Application-limited (RFC 7661 §2): window to spare, nothing to send.
            self.cc.on_app_limited(&AppLimitedEvent {
                now,
                in_flight: self.sb.pipe(),
            });
            if let Some(s) = self.sampling.as_deref_mut() {
                s.sampler.on_app_limited(self.sb.pipe());
            }
        }
        self.emit_due_ack(now, out)
    }

    /// A pure ACK, if one is due; into `out`, whether it sent.
    fn emit_due_ack(&mut self, now: SimTime, out: &mut Segment) -> bool {
        if self.ack.ack_now {
            let seq = self.local_seq(self.send.snd_nxt);
            self.frame(now, seq, 0, Flags::default(), out);
            return true;
        }
        false
    }

    /// A data segment `[start, start + len)` (or a FIN) left at `now`, `first` if nothing
    /// was outstanding before it: its delivery-rate snapshot, the controller's
    /// `CA_EVENT_TX_START`, and the pacer's next departure. Out of line: only a sampling or
    /// pacing connection calls it (every connection tells its ACK policy, `tcp_event_data_sent`).
    #[inline(never)]
    fn on_data_sent(&mut self, now: SimTime, start: u64, len: u32, first: bool) {
        if let Some(s) = self.sampling.as_deref_mut() {
            if first {
                self.cc.on_tx_start(now, s.sampler.is_app_limited());
            }
            // The segment is in `pipe` already: the flight with it (`tcp_set_tx_in_flight`).
            let tx = s
                .sampler
                .on_send(now, first, self.sb.pipe(), self.sb.marked_lost());
            self.sb.set_tx(start, tx);
        }
        if self.pacer().is_some_and(|p| p.rate().is_none()) {
            // Before the first ACK of data: from the handshake's RTT, or the controller's
            // initial rate.
            self.update_pacing_rate();
        }
        if let Some(p) = self.sampling.as_deref_mut().and_then(|s| s.pacer.as_mut()) {
            p.on_sent(now, len);
        }
    }

    /// Counts data segment `seg`, sent during recovery, in PRR's `prr_out` (RFC 9937 §4).
    fn prr_sent(&mut self, seg: &Segment) {
        if let Some(prr) = self.recovery.prr() {
            prr.on_sent(u64::from(seg.payload_len));
        }
    }

    fn rst_for(bad: &Segment) -> Segment {
        let mut seg = Segment {
            src_port: bad.dst_port,
            dst_port: bad.src_port,
            ..Segment::default()
        };
        seg.flags.rst = true;
        if bad.flags.ack {
            seg.seq = bad.ack;
        } else {
            seg.flags.ack = true;
            seg.ack = bad.seq + bad.seq_len();
        }
        seg
    }

    /// SYN or SYN-ACK with our options (RFC 9293 §3.5). A SYN-ACK carries
    /// an option only if the peer's SYN did.
    fn emit_syn(&mut self, now: SimTime, out: &mut Segment) {
        self.syn_pending = false;
        let active = self.state == State::SynSent;
        let cfg = &self.cfg;
        let options = TcpOptions {
            mss: Some(cfg.own_mss().min(65535) as u16),
            window_scale: (if active { cfg.window_scale } else { self.ws_ok })
                .then(|| cfg.own_window_shift()),
            sack_permitted: if active { cfg.sack } else { self.sack_ok },
            timestamps: (if active { cfg.timestamps } else { self.ts_ok })
                .then(|| (self.ts_now(now), if active { 0 } else { self.ts_recent })),
            sack_blocks: SackBlocks::default(),
        };
        *out = Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.local_seq(0),
            flags: Flags {
                syn: true,
                ack: !active,
                ..Flags::default()
            },
            window: self.recv.window().min(65535) as u16,
            options,
            ..Segment::default()
        };
        if !active {
            out.ack = self.remote_seq(self.recv.rcv_nxt());
            self.last_ack_sent = self.recv.rcv_nxt();
        }
        self.adv_right = self.recv.rcv_nxt() + u64::from(out.window);
        if self.syn_sent_at.is_none() {
            self.syn_sent_at = Some(now);
            self.rto_deadline = Some(now + self.rtt.rto());
        } else {
            self.note_retransmit(RetransmitKind::Rto, out.seq, 0);
        }
        self.stats.segments_sent += 1;
    }

    /// Resends the lowest segment marked lost, into `out`; whether there was one.
    fn retransmit_lost(&mut self, now: SimTime, out: &mut Segment) -> bool {
        let Some(Resend {
            kind,
            start,
            len,
            fin,
        }) = self.sb.retransmit_next(now)
        else {
            return false;
        };
        let seq = self.local_seq(start);
        self.note_retransmit(kind, seq, len);
        self.ack.on_data_sent(now);
        if self.sampling.is_some() {
            self.on_data_sent(now, start, len, false);
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.frame(
            now,
            seq,
            len,
            Flags {
                fin,
                ..Flags::default()
            },
            out,
        );
        true
    }

    fn note_retransmit(&mut self, kind: RetransmitKind, seq: super::SeqNum, len: u32) {
        let counter = match kind {
            RetransmitKind::Fast => &mut self.stats.retransmits_fast,
            RetransmitKind::Rto => &mut self.stats.retransmits_rto,
            RetransmitKind::SackRecovery => &mut self.stats.retransmits_sack,
            RetransmitKind::Probe => &mut self.stats.retransmits_probe,
            RetransmitKind::Speculative => &mut self.stats.retransmits_speculative,
        };
        *counter += 1;
        self.events.push_back(Event::Retransmit { kind, seq, len });
    }

    /// Zero-window probe (RFC 9293 §3.8.6.1): resend the outstanding probe
    /// byte, or send one new byte beyond the closed window; into `out`, whether it did.
    fn emit_probe(&mut self, now: SimTime, out: &mut Segment) -> bool {
        if self.sb.first().is_some_and(|s| s.probe) {
            self.sb.mark_first_lost(RetransmitKind::Probe);
            return self.retransmit_lost(now, out);
        }
        if self.send.unsent() == 0 || !self.sb.is_empty() {
            return false;
        }
        self.stats.window_probes += 1;
        let seq = self.local_seq(self.send.snd_nxt);
        self.events.push_back(Event::WindowProbe { seq });
        self.send_new(now, 1, false, true, out);
        true
    }

    /// Whether [`Connection::emit_new_data`] has something to send if the windows allow.
    fn has_data_to_send(&self) -> bool {
        self.state.is_synchronized() && (self.send.fin_pending() || self.send.unsent() > 0)
    }

    /// New data (and possibly the FIN) within cwnd `room` and the peer's
    /// window. Small segments are sent only when they carry the last of the
    /// data, or when nothing is in flight (sender SWS avoidance, RFC 9293
    /// §3.8.6.2.1, without Nagle: the application writes whole chunks). Into `out`,
    /// whether it sent.
    fn emit_new_data(&mut self, now: SimTime, room: u64, out: &mut Segment) -> bool {
        if !self.has_data_to_send() {
            return false;
        }
        let unsent = self.send.unsent();
        if unsent == 0 {
            // Bare FIN: needs no window space.
            self.send_new(now, 0, true, false, out);
            return true;
        }
        let wnd_room = (self.send.snd_una + self.snd_wnd).saturating_sub(self.send.snd_nxt);
        let want = unsent.min(u64::from(self.smss));
        let len = want.min(wnd_room).min(room);
        let idle = self.sb.is_empty();
        if len == 0 || (len < want && !idle && (room < want || wnd_room < self.max_snd_wnd / 2)) {
            return false;
        }
        let fin = self.send.fin_queued && len == unsent;
        self.send_new(now, len as u32, fin, false, out);
        true
    }

    /// One new segment for F-RTO step 2b (RFC 5682 §2): previously unsent
    /// data within the peer's window, or the FIN, regardless of cwnd (the
    /// segments conventional recovery would resend in slow start are
    /// replaced by new ones) and of sender SWS avoidance (the RFC lets the
    /// sender override Nagle here). Into `out`, whether it sent.
    fn emit_frto_new(&mut self, now: SimTime, out: &mut Segment) -> bool {
        let unsent = self.send.unsent();
        let (len, fin) = if unsent == 0 {
            if !self.send.fin_pending() {
                return false;
            }
            (0, true)
        } else {
            let wnd_room = (self.send.snd_una + self.snd_wnd).saturating_sub(self.send.snd_nxt);
            let len = unsent.min(u64::from(self.smss)).min(wnd_room);
            if len == 0 {
                return false;
            }
            (len, self.send.fin_queued && len == unsent)
        };
        self.send_new(now, len as u32, fin, false, out);
        true
    }

    /// Sends `len` new bytes (and the FIN if `fin`) from `snd_nxt`, framed in `out`.
    #[inline]
    fn send_new(&mut self, now: SimTime, len: u32, fin: bool, probe: bool, out: &mut Segment) {
        let start = self.send.snd_nxt;
        let first = self.sb.is_empty();
        self.sb.push(SentSeg {
            start,
            len,
            fin,
            sent_at: now,
            retransmitted: false,
            sacked: false,
            lost: None,
            probe,
        });
        self.ack.on_data_sent(now);
        if self.sampling.is_some() {
            self.on_data_sent(now, start, len, first);
        }
        self.send.snd_nxt += u64::from(len) + u64::from(fin);
        // RFC 6298 §5.1 (probes are timed by the persist timer instead).
        if self.rto_deadline.is_none() && !probe {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        let seq = self.local_seq(start);
        self.frame(
            now,
            seq,
            len,
            Flags {
                fin,
                ..Flags::default()
            },
            out,
        );
    }

    /// Frames a synchronized-state segment: ACK, window, timestamps and
    /// SACK blocks (3 with timestamps, else 4; RFC 2018 §3). Written into `out`, every field.
    #[inline]
    fn frame(
        &mut self,
        now: SimTime,
        seq: super::SeqNum,
        len: u32,
        mut flags: Flags,
        out: &mut Segment,
    ) {
        flags.ack = true;
        flags.psh = len > 0;
        let rcv_nxt = self.recv.rcv_nxt();
        let wnd = (self.advertised_right_edge() - rcv_nxt) >> self.rcv_wscale;
        let max_blocks = if self.ts_ok {
            MAX_SACK_BLOCKS - 1
        } else {
            MAX_SACK_BLOCKS
        };
        let sack_blocks = if self.sack_ok && self.recv.has_out_of_order() {
            let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
            let n = self.recv.sack_blocks(&mut blocks[..max_blocks]);
            blocks[..n]
                .iter()
                .map(|&(l, r)| (self.remote_seq(l), self.remote_seq(r)))
                .collect()
        } else {
            SackBlocks::default()
        };
        *out = Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq,
            ack: self.remote_seq(rcv_nxt),
            flags,
            window: wnd as u16,
            options: TcpOptions {
                timestamps: self.ts_ok.then(|| (self.ts_now(now), self.ts_recent)),
                sack_blocks,
                ..TcpOptions::default()
            },
            payload_len: len,
        };
        self.last_ack_sent = rcv_nxt;
        self.adv_right = rcv_nxt + (wnd << self.rcv_wscale);
        self.ack.on_ack_sent();
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += u64::from(len);
    }
}
