//! Segment arrival (RFC 9293 §3.10.7).

use super::config::{LossFlight, CWND_LIMITED_SLACK_SEGMENTS};
use super::delack::RecvCtx;
use super::frto::{AckInfo, AckKind};
use super::rate::AckFacts;
use super::recovery::{PartialAck, Recovery};
use super::scoreboard::Sacked;
use super::{pacing, unwrap_offset, Connection, Event, Segment, State};
use crate::cc::{AckEvent, LossEvent, LostPacket, RttSample};
use crate::time::SimTime;

impl Connection {
    /// Processes one incoming segment.
    pub fn handle_segment(&mut self, now: SimTime, seg: &Segment) {
        self.now = now;
        self.stats.segments_received += 1;
        match self.state {
            State::Closed => {
                // RFC 9293 §3.10.7.1: answer anything but a RST with a RST.
                if !seg.flags.rst {
                    self.rst_reply = Some(Box::new(seg.clone()));
                }
            }
            State::Listen => {
                if seg.flags.syn && !seg.flags.ack && !seg.flags.rst {
                    self.irs = seg.seq.0;
                    self.remote_port = seg.src_port;
                    if self.local_port == 0 {
                        self.local_port = seg.dst_port;
                    }
                    self.negotiate(seg);
                    self.syn_pending = true;
                    self.set_state(State::SynReceived);
                }
            }
            State::SynSent => self.on_syn_sent(now, seg),
            _ => self.on_synchronized(now, seg),
        }
        self.update_persist(now);
        self.report_cc();
    }

    /// Adopts the peer's SYN options: an option is used only if both sides
    /// offered it (RFC 7323 §2.2/§3.2, RFC 2018 §2); the send MSS is the
    /// smaller of ours and the peer's (536 if absent, RFC 9293 §3.7.1),
    /// minus the timestamp option carried on every segment (RFC 6691).
    fn negotiate(&mut self, seg: &Segment) {
        let o = &seg.options;
        self.sack_ok = self.cfg.sack && o.sack_permitted;
        self.ts_ok = self.cfg.timestamps && o.timestamps.is_some();
        if let (true, Some(ws)) = (self.cfg.window_scale, o.window_scale) {
            self.ws_ok = true;
            self.snd_wscale = ws.min(14);
            self.rcv_wscale = self.cfg.own_window_shift();
        }
        if let Some((tsval, _)) = o.timestamps {
            self.ts_recent = tsval;
        }
        let peer_mss = o.mss.map_or(536, u32::from);
        let ts_len = if self.ts_ok { 12 } else { 0 };
        self.smss = self
            .cfg
            .own_mss()
            .min(peer_mss)
            .saturating_sub(ts_len)
            .max(1);
        let prr = self.cfg.prr && !self.cc.wants_rate_samples();
        self.recovery = Recovery::new(self.sack_ok, self.cfg.recovery, prr);
        // The window of a SYN is never scaled (RFC 7323 §2.2).
        self.snd_wnd = u64::from(seg.window);
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = 0;
    }

    fn on_syn_sent(&mut self, now: SimTime, seg: &Segment) {
        let acks_syn = seg.flags.ack && seg.ack == self.local_seq(1);
        if seg.flags.rst {
            if acks_syn {
                self.abort();
            }
            return;
        }
        // Simultaneous open (SYN without ACK) is not supported.
        if !(seg.flags.syn && acks_syn) {
            return;
        }
        self.irs = seg.seq.0;
        self.negotiate(seg);
        self.snd_wl2 = 1;
        self.handshake_rtt_sample(now, seg);
        self.establish();
        self.ack.ack_now = true;
    }

    /// RTT sample from the handshake ([`Self::handshake_rtt`]).
    fn handshake_rtt_sample(&mut self, now: SimTime, seg: &Segment) {
        if let Some(r) = self.handshake_rtt(now, seg) {
            self.take_rtt_sample(r);
        }
    }

    pub(super) fn ts_sample(&self, now: SimTime, tsecr: u32) -> SimTime {
        SimTime::from_millis(u64::from(self.ts_now(now).wrapping_sub(tsecr)))
    }

    pub(super) fn take_rtt_sample(&mut self, r: SimTime) {
        self.rtt
            .on_sample_at(r, self.send.snd_una, self.send.snd_nxt);
        self.report_rtt(r);
    }

    /// Handshake complete: build the controller for the negotiated MSS and
    /// apply RFC 6298 §5.7 (RTO of 3 s after a SYN or SYN-ACK timeout).
    fn establish(&mut self) {
        self.cc = self.cfg.controller(self.smss);
        if self.syn_retries > 0 {
            self.rtt.reinit_after_syn_timeout();
        }
        self.rto_deadline = None;
        self.rto_retries = 0;
        self.recover = 1;
        self.set_state(if self.send.fin_queued {
            State::FinWait1
        } else {
            State::Established
        });
    }

    fn on_synchronized(&mut self, now: SimTime, seg: &Segment) {
        if seg.flags.rst {
            self.abort();
            return;
        }
        if seg.flags.syn {
            if self.state == State::SynReceived && !seg.flags.ack {
                // Our SYN-ACK was lost: send it again, echoing this SYN.
                if let Some((tsval, _)) = seg.options.timestamps {
                    self.ts_recent = tsval;
                }
                self.syn_pending = true;
            } else {
                // Retransmitted SYN-ACK: our ACK was lost.
                self.ack.ack_now = true;
            }
            return;
        }
        let start = self.unwrap_remote(seg.seq);
        if let (true, Some((tsval, _))) = (self.ts_ok, seg.options.timestamps) {
            // TSval is a 32-bit clock compared as serial numbers (RFC 7323 §5.2).
            let newer = tsval.wrapping_sub(self.ts_recent) as i32 >= 0;
            // PAWS (RFC 7323 §5.3 R1): an older TSval than TS.Recent marks an old duplicate:
            // acknowledge it and drop it (RSTs are handled above; TS.Recent never goes
            // stale in a run, so §5.5's 24-day invalidation never applies).
            if !newer {
                self.ack.ack_now = true;
                self.stats.paws_dropped += 1;
                return;
            }
            // RFC 7323 §4.3 (2): TS.Recent from segments at or left of Last.ACK.sent whose
            // TSval is not older.
            if start <= self.last_ack_sent as i64 {
                self.ts_recent = tsval;
            }
        }
        if !seg.flags.ack {
            return;
        }
        if self.state == State::SynReceived {
            if seg.ack != self.local_seq(1) {
                return;
            }
            self.snd_wl2 = 1;
            self.handshake_rtt_sample(now, seg);
            self.establish();
        }
        if !self.process_ack(now, seg, start) {
            return;
        }
        self.process_data(now, seg, start);
        self.after_fin_exchange(now);
    }

    /// ACK processing (RFC 9293 §3.10.7.4 fifth check) with window update,
    /// SACK scoreboard update, RTT sampling and loss detection. Returns
    /// false when the segment must be dropped.
    fn process_ack(&mut self, now: SimTime, seg: &Segment, seg_start: i64) -> bool {
        let ack = self.unwrap_local(seg.ack);
        if ack > self.send.snd_nxt as i64 {
            self.ack.ack_now = true;
            return false;
        }
        if ack < self.send.snd_una as i64 {
            return true; // old duplicate ACK: ignore the ACK, keep the data
        }
        let ack = ack as u64;
        let in_flight = self.sb.pipe();
        let lost_before_ack = self.sb.marked_lost();
        if let Some(s) = self.sampling.as_deref_mut() {
            s.ack_rtt = None;
        }
        // Window update (RFC 9293 §3.10.7.4): SND.WL1/SND.WL2 ordering.
        let wnd = u64::from(seg.window) << self.snd_wscale;
        let mut window_changed = false;
        if self.snd_wl1 < seg_start || (self.snd_wl1 == seg_start && self.snd_wl2 <= ack) {
            window_changed = wnd != self.snd_wnd;
            self.snd_wnd = wnd;
            self.max_snd_wnd = self.max_snd_wnd.max(wnd);
            self.snd_wl1 = seg_start;
            self.snd_wl2 = ack;
        }
        // A segment without SACK blocks (most: every in-order ACK) leaves the scoreboard as
        // it is.
        let (sacked, sack_high) = if self.sack_ok && !seg.options.sack_blocks.is_empty() {
            let (una, una_seq) = (self.send.snd_una, self.local_seq(self.send.snd_una));
            let nxt = self.send.snd_nxt as i64;
            let mut high = 0;
            let blocks = seg.options.sack_blocks.iter().filter_map(|&(l, r)| {
                let (l, r) = (
                    unwrap_offset(una, una_seq, l),
                    unwrap_offset(una, una_seq, r),
                );
                let valid = l >= ack as i64 && l < r && r <= nxt;
                if valid {
                    high = high.max(r as u64);
                }
                valid.then_some((l as u64, r as u64))
            });
            let sacked = self.sb.apply_sack_timed(blocks);
            (sacked, high)
        } else {
            (Sacked::default(), 0)
        };
        let newly_sacked = sacked.bytes;
        let prev_una = self.send.snd_una;
        let (sacked_before, lost_before) = (
            self.sb.sacked_bytes() - newly_sacked,
            self.sb.lost_segments(),
        );
        let kind = if ack > self.send.snd_una {
            self.on_new_ack(now, seg, ack, in_flight, &sacked);
            AckKind::New
        } else if !self.sb.is_empty()
            && seg.payload_len == 0
            && !seg.flags.fin
            && (!window_changed || newly_sacked > 0)
        {
            // Duplicate ACK (RFC 5681 §2; with SACK, RFC 6675 §2).
            self.dupacks += 1;
            self.stats.dupacks_received += 1;
            if self.in_recovery {
                self.recovery
                    .on_dupack(&mut self.sb, self.cfg.dupack_threshold, self.smss);
            }
            AckKind::Dup
        } else {
            AckKind::Other
        };
        if kind != AckKind::New {
            self.sack_only_rtt(now, &sacked);
        }
        // F-RTO steps 2 and 3 (RFC 5682).
        self.frto_on_ack(
            now,
            &AckInfo {
                kind,
                prev_una,
                ack,
                newly_sacked,
                sack_high,
            },
        );
        // RFC 6582 §3.2 step 1 / RFC 6675 §5: enter recovery only once
        // HighACK has passed the previous recovery point ("careful" variant;
        // Reno has no such point). Not while F-RTO waits for its two ACKs
        // (RFC 5682 §3 step 2).
        if !self.in_recovery
            && !self.frto_active()
            && (self.send.snd_una >= self.recover || !self.recovery.guards_recover_point())
            && self.recovery.should_enter(
                self.dupacks,
                &self.sb,
                self.cfg.dupack_threshold,
                self.smss,
            )
        {
            self.enter_recovery(now);
        }
        if let Some(prr) = self.recovery.prr() {
            // RFC 9937 §4: DeliveredData = change in SND.UNA + change in SACKed bytes; a
            // safe ACK advances SND.UNA and marks no further loss.
            let delivered = (self.send.snd_una - prev_una + self.sb.sacked_bytes())
                .saturating_sub(sacked_before);
            let safe = self.send.snd_una > prev_una && self.sb.lost_segments() <= lost_before;
            let (pipe, ssthresh) = (self.sb.pipe(), self.cc.ssthresh());
            prr.on_ack(delivered, pipe, ssthresh, u64::from(self.smss), safe);
        }
        if self.sampling.is_some() {
            self.on_rate_sample(now, in_flight, lost_before_ack);
        }
        true
    }

    /// Delivery-rate sample of this ACK (`tcp::rate`) for the controller, then the pacing
    /// rate it leaves (`tcp_ack` → `tcp_cong_control` → `tcp_update_pacing_rate`). Out of
    /// line, as is [`Self::report_losses`]: only a sampling connection calls them.
    #[inline(never)]
    fn on_rate_sample(&mut self, now: SimTime, prior_in_flight: u64, lost_before: u64) {
        self.report_losses(now);
        let delivered = self.sb.take_delivered();
        let Some(s) = self.sampling.as_deref_mut() else {
            return;
        };
        let facts = AckFacts {
            rtt: s.ack_rtt,
            min_rtt: s.min_rtt,
            losses: self.sb.marked_lost() - lost_before,
            prior_in_flight,
            in_flight: self.sb.pipe(),
            in_recovery: self.in_recovery,
            in_loss: self.rto_recovery,
            total_lost: self.sb.marked_lost(),
            pacing_edt: s.pacer.as_ref().map_or(now, |p| p.next_departure()),
        };
        s.sampler
            .on_delivered(now, delivered.newest, delivered.bytes);
        let rs = s.sampler.generate(now, facts);
        self.cc.on_rate_sample(&rs);
        if self.cc.holds_app_limited() {
            s.sampler.set_app_limited(self.sb.pipe());
        }
        self.update_pacing_rate();
    }

    /// Each segment marked lost since the last call, to the controller in the order marked
    /// (`tcp_notify_skb_loss_event` → `skb_marked_lost`), with its snapshot's flight and the
    /// losses since it was sent.
    #[inline(never)]
    pub(super) fn report_losses(&mut self, now: SimTime) {
        for l in self.sb.take_lost() {
            self.cc.on_packet_lost(&LostPacket {
                now,
                bytes: l.bytes,
                tx_in_flight: l.tx.in_flight,
                lost: l.total_lost - l.tx.lost,
                is_app_limited: l.tx.app_limited,
                has_snapshot: l.tx.pending,
            });
        }
    }

    /// The pacing rate: the controller's, else `tcp_update_pacing_rate`'s.
    pub(super) fn update_pacing_rate(&mut self) {
        if let Some(p) = self.sampling.as_deref_mut().and_then(|s| s.pacer.as_mut()) {
            let rate = self.cc.pacing_rate().or_else(|| {
                pacing::default_rate(
                    self.cc.cwnd(),
                    self.cc.ssthresh(),
                    self.sb.flight_size(),
                    self.rtt.srtt(),
                )
            });
            p.set_rate(rate);
        }
    }

    fn on_new_ack(
        &mut self,
        now: SimTime,
        seg: &Segment,
        ack: u64,
        in_flight: u64,
        sacked: &Sacked,
    ) {
        let acked = self.sb.ack_to(ack);
        let bytes = ack - self.send.snd_una;
        self.send.snd_una = ack;
        self.stats.bytes_acked += bytes;
        self.dupacks = 0;
        self.rto_retries = 0;
        if self.rto_recovery && ack >= self.recover {
            self.rto_recovery = false;
        }
        // RTT samples by the configured source (`rtt_sample`).
        let rtts = self.new_ack_rtt(now, seg, &acked, sacked);
        let sample = rtts.estimator;
        if let Some(s) = self.sampling.as_deref_mut() {
            s.ack_rtt = rtts.rate;
            if let Some(r) = s.ack_rtt {
                s.min_rtt = Some(s.min_rtt.map_or(r, |m| m.min(r)));
            }
        }
        if let Some(r) = sample {
            // After a spurious timeout, the Eifel response re-initialises
            // the RTO from the first sample of new data (RFC 4015 §2).
            if !self.eifel_rtt_sample(ack, r) {
                self.take_rtt_sample(r);
            }
        }
        if let Some(r) = rtts.controller {
            self.cc.on_rtt_sample(&RttSample {
                now,
                rtt: r,
                srtt: self.rtt.srtt().unwrap_or(r),
            });
        }
        if self.in_recovery {
            if ack >= self.recover {
                self.exit_recovery();
            } else {
                match self.recovery.on_partial_ack(
                    &mut self.sb,
                    bytes,
                    self.cfg.dupack_threshold,
                    self.smss,
                ) {
                    PartialAck::Retransmit => self.force_retx = true,
                    PartialAck::Stay => {}
                    PartialAck::Exit => self.exit_recovery(),
                }
            }
        } else if self.cwnd_may_grow(in_flight) {
            self.cc.on_ack(&AckEvent {
                now,
                bytes_acked: bytes,
                rtt: rtts.controller,
                srtt: self.rtt.srtt(),
                in_flight,
            });
        }
        // RFC 6298 §5.2 / §5.3.
        self.rearm_rto(now);
    }

    /// Whether this ACK may grow cwnd: always (RFC 5681 §3.1), or with
    /// [`Config::cwnd_limited_growth`] only if the `in_flight` bytes before it
    /// filled cwnd to within the Linux slack.
    fn cwnd_may_grow(&self, in_flight: u64) -> bool {
        let slack = CWND_LIMITED_SLACK_SEGMENTS * u64::from(self.smss);
        !self.cfg.cwnd_limited_growth || in_flight + slack >= self.cc.cwnd()
    }

    fn enter_recovery(&mut self, now: SimTime) {
        // PRR's RecoverFS (RFC 9937 §4): in flight, not counting what is SACKed already.
        let recover_fs = self.sb.flight_size() - self.sb.sacked_bytes();
        // Losses marked first: the controller may halve the pipe they leave.
        self.recovery.on_enter(
            &mut self.sb,
            self.cfg.dupack_threshold,
            self.smss,
            recover_fs,
        );
        if self.sampling.is_some() {
            self.report_losses(now);
        }
        self.cc.on_congestion_event(&LossEvent {
            now,
            flight_size: self.loss_flight(),
            hold_ssthresh: false,
        });
        self.recover = self.send.snd_nxt;
        self.in_recovery = true;
        self.force_retx = true;
        self.events.push_back(Event::RecoveryStarted {
            recover: self.local_seq(self.recover),
        });
    }

    /// The flight a loss halves (RFC 5681 eq. 4): FlightSize, or RFC 6675's pipe
    /// ([`LossFlight`]).
    pub(super) fn loss_flight(&self) -> u64 {
        match self.cfg.loss_flight {
            LossFlight::FlightSize => self.sb.flight_size(),
            LossFlight::Pipe => self.sb.pipe(),
        }
    }

    pub(super) fn exit_recovery(&mut self) {
        if self.in_recovery {
            self.in_recovery = false;
            self.recovery.on_exit();
            self.events.push_back(Event::RecoveryEnded);
        }
    }

    /// Payload and FIN (RFC 9293 §3.10.7.4 seventh and eighth checks), with
    /// the ACK policy of RFC 5681 §4.2: immediate ACK for out-of-order
    /// data, for a segment filling a hole, for duplicates and for a FIN.
    fn process_data(&mut self, now: SimTime, seg: &Segment, start: i64) {
        if seg.payload_len == 0 && !seg.flags.fin {
            return;
        }
        let can_receive = matches!(
            self.state,
            State::Established | State::FinWait1 | State::FinWait2
        );
        if !can_receive {
            // Retransmitted data or FIN after we already have everything.
            let ctx = self.recv_ctx();
            self.ack.on_out_of_order(ctx);
            if self.state == State::TimeWait {
                self.tw_deadline = Some(now + self.cfg.time_wait);
            }
            return;
        }
        // A segment starting before offset 1 can only be a stale one.
        let (start, len) = if start < 1 {
            let cut = (1 - start).min(i64::from(seg.payload_len));
            (1u64, seg.payload_len - cut as u32)
        } else {
            (start as u64, seg.payload_len)
        };
        let fin_before = self.recv.fin_done();
        let out = self.recv.on_data(start, len, seg.flags.fin);
        let ctx = self.recv_ctx();
        if out.nothing_new || out.out_of_order {
            // Linux: `tcp_data_queue` enters quick-ACK mode for both.
            self.ack.on_out_of_order(ctx);
        } else if out.filled_hole || self.recv.fin_done() != fin_before {
            self.ack.ack_now = true;
        } else if len > 0 {
            self.ack.on_in_order_segment(now, len, ctx);
        }
    }

    /// What the delayed-ACK policy reads of the connection.
    pub(super) fn recv_ctx(&self) -> RecvCtx {
        RecvCtx {
            srtt: self.rtt.srtt(),
            rto: self.rtt.rto(),
            rcv_wnd: self.adv_right.saturating_sub(self.recv.rcv_nxt()),
        }
    }

    /// State transitions driven by FINs (RFC 9293 §3.10.7.4).
    fn after_fin_exchange(&mut self, now: SimTime) {
        let peer_fin = self.recv.fin_done();
        let our_fin_acked = self.send.fin_acked();
        let next = match self.state {
            State::Established if peer_fin => State::CloseWait,
            State::FinWait1 if peer_fin && our_fin_acked => State::TimeWait,
            State::FinWait1 if peer_fin => State::Closing,
            State::FinWait1 if our_fin_acked => State::FinWait2,
            State::FinWait2 if peer_fin => State::TimeWait,
            State::Closing if our_fin_acked => State::TimeWait,
            State::LastAck if our_fin_acked => State::Closed,
            s => s,
        };
        if next == State::TimeWait && self.state != State::TimeWait {
            self.tw_deadline = Some(now + self.cfg.time_wait);
        }
        self.set_state(next);
    }
}
