//! Tests of the TFRC receiver against hand-computed values of the RFCs.

use super::*;

const MS: u64 = 1_000_000;

fn rx() -> TfrcReceiver {
    TfrcReceiver::new(ReceiverConfig {
        receive_rate: ReceiveRate::SinceFeedback,
        s: 1000.0,
        discounting: false,
        ndupack: NDUPACK,
        handover_notice: false,
        recent: None,
        grouping: LossGrouping::Interpolated,
        first_interval: FirstInterval::Synthesized,
    })
}

/// Packet `seq` sent at `seq` ms with R = 100 ms, arriving 50 ms later.
fn data(seq: u64) -> (SimTime, DataInfo) {
    let sent = SimTime(seq * MS);
    let info = DataInfo {
        seq,
        sent,
        rtt: Some(SimTime(100 * MS)),
        size: 1000,
        in_handover: false,
        round: 0,
        ccval: 0,
    };
    (sent + SimTime(50 * MS), info)
}

/// The first packet is answered at once with X_recv = 0 and p = 0 (§6.3); then the
/// receiver waits one RTT, and reports the bytes of that RTT as X_recv (§6.2).
#[test]
fn feedback_once_per_rtt() {
    let mut r = rx();
    let (t, d) = data(0);
    let fb = r.handle_data(t, d).expect("first packet answered");
    assert_eq!((fb.x_recv, fb.p), (0.0, 0.0));
    assert_eq!(r.poll_timeout(), Some(SimTime(150 * MS)));
    for seq in 1..100 {
        let (t, d) = data(seq);
        assert_eq!(r.handle_data(t, d), None, "no feedback between timers");
    }
    // A duplicate is neither data received nor news.
    let (_, d) = data(50);
    assert_eq!(r.handle_data(SimTime(149 * MS), d), None);
    // 99 packets of 1000 B arrived in the 100 ms since the first feedback.
    let fb = r.handle_timeout(SimTime(150 * MS)).expect("timer feedback");
    assert_eq!(fb.x_recv, 990_000.0);
    assert_eq!(fb.t_recvdata, SimTime(99 * MS));
    assert_eq!(fb.t_delay, SimTime(MS));
    // No data since: the timer restarts and says nothing.
    assert_eq!(r.handle_timeout(SimTime(250 * MS)), None);
    assert_eq!(r.poll_timeout(), Some(SimTime(350 * MS)));
}

/// X_recv after a silence, by RFC 4342 §8.3 and by RFC 5348 §6.2. Packets 0-99 of
/// 1000 B arrive every ms from 50 ms (R_m = 100 ms); feedback at 50 ms (the first
/// packet) and at 150 ms. Then nothing for two seconds (the timer restarts every R_m
/// without feedback) and packets 100-109 arrive at 2105-2114 ms. The timer's feedback
/// at 2150 ms reports, since the last feedback, 10 000 B over 2.0 s = 5000 B/s (DCCP's
/// rule); over the most recent R_m, 10 000 B over 0.1 s = 100 000 B/s (TFRC's).
#[test]
fn receive_rate_after_a_silence() {
    let story = |rule: ReceiveRate| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            receive_rate: rule,
            ..rx().cfg
        });
        let mut reports = vec![];
        let arrivals = (0..100).map(data).chain((100..110).map(|seq| {
            let (_, mut d) = data(seq);
            d.sent = SimTime((2055 + seq - 100) * MS);
            (d.sent + SimTime(50 * MS), d)
        }));
        for (t, d) in arrivals {
            while r.poll_timeout().is_some_and(|at| at <= t) {
                let at = r.poll_timeout().unwrap();
                reports.extend(r.handle_timeout(at).map(|fb| (at, fb.x_recv)));
            }
            reports.extend(r.handle_data(t, d).map(|fb| (t, fb.x_recv)));
        }
        let at = r.poll_timeout().unwrap();
        assert_eq!(at, SimTime(2150 * MS));
        reports.extend(r.handle_timeout(at).map(|fb| (at, fb.x_recv)));
        reports
    };
    let dccp = story(ReceiveRate::SinceFeedback);
    let tfrc = story(ReceiveRate::LastRtt);
    assert_eq!(dccp.len(), 3, "{dccp:?}");
    assert_eq!(tfrc.len(), 3, "{tfrc:?}");
    assert_eq!(dccp[0], (SimTime(50 * MS), 0.0));
    assert_eq!(tfrc[0], (SimTime(50 * MS), 0.0));
    // At 150 ms: 99 packets since the feedback at 50 ms (51-149 ms), over 0.1 s; the
    // last R_m (50, 150] holds the same 99.
    assert_eq!(dccp[1], (SimTime(150 * MS), 990_000.0));
    assert_eq!(tfrc[1], (SimTime(150 * MS), 990_000.0));
    assert_eq!(dccp[2], (SimTime(2150 * MS), 5000.0));
    assert_eq!(tfrc[2], (SimTime(2150 * MS), 100_000.0));
}

/// A missing packet is lost only after three later ones (§5.1): reordered by two it
/// is not; the third later arrival declares it and the new loss event is reported
/// at once (§6.1).
#[test]
fn three_packet_reordering_allowance() {
    let mut r = rx();
    for seq in [0, 1, 3, 4, 2] {
        let (t, d) = data(seq);
        r.handle_data(t, d);
    }
    assert_eq!(r.lost, 0, "2 came late, within the allowance");
    for seq in [6, 7] {
        let (t, d) = data(seq);
        assert_eq!(r.handle_data(t, d), None);
    }
    let (t, d) = data(8);
    let fb = r.handle_data(t, d).expect("new loss event reported");
    assert_eq!((r.lost, r.loss_events), (1, 1));
    assert!(fb.p > 0.0);
}

/// Losses within one RTT of the event's first loss are one loss event (§5.2); the next
/// interval is counted from first loss to first loss (§5.3).
#[test]
fn losses_within_an_rtt_are_one_event() {
    let mut r = rx();
    // Packets every ms, R = 100 ms: 10 and 50 fall in one event, 200 starts the next.
    for seq in (0..400).filter(|s| ![10, 50, 200].contains(s)) {
        let (t, d) = data(seq);
        r.handle_data(t, d);
    }
    assert_eq!((r.lost, r.loss_events), (3, 2));
    // The first loss (10, found when 13 arrives at 63 ms) seeds the synthetic interval
    // from the 12 packets received since the first feedback at 50 ms (§6.3.1);
    // I_1 = 200 − 10 = 190 (§5.3), I_0 = 399 − 200 + 1 = 200. With I_0 the mean is
    // (200 + 190)/2 = 195; without it (190 + synthetic)/2, the larger (§5.4).
    let synthetic = 1.0 / equation::loss_rate_for(12_000.0 / 0.013, 1000.0, 0.1, 0.4, 1.0);
    let expect = ((190.0 + synthetic) / 2.0).max(195.0);
    let mean = r.mean_loss_interval().unwrap();
    assert!((mean - expect).abs() < 1e-6, "{mean} vs {expect}");
}

/// §6.3.1: the first interval is 1/p for the p at which the equation (R = 100 ms,
/// t_RTO = 4R = 0.4 s, b = 1, s = 1000 B) gives the X_recv measured when the first loss
/// event is found; checked by putting X_recv back through the equation. Packets arrive
/// every ms from 50 ms, `lost` is missing, the timer feedback comes at 150 ms or 151 ms
/// (the first arrival at or after the timer), and the third later arrival reveals the
/// loss at `found`.
fn first_interval_x_recv(rule: ReceiveRate, lost: u64) -> f64 {
    let mut r = TfrcReceiver::new(ReceiverConfig {
        receive_rate: rule,
        ..rx().cfg
    });
    for seq in (0..=lost + 3).filter(|&s| s != lost) {
        let (t, d) = data(seq);
        if let Some(fb) = r.handle_timeout(t) {
            assert!(fb.p == 0.0);
        }
        r.handle_data(t, d);
    }
    assert_eq!(r.loss_events, 1);
    equation::throughput(1000.0, 0.1, r.loss_event_rate(), 0.4, 1.0)
}

/// Linux's CCID 3 (ccid3.c, `ccid3_first_li`): the bytes received since the last
/// feedback over the time since then. 100 is lost; the timer feedback at 151 ms (at
/// the arrival of 101) is followed by 101, 102 and 103 (153 ms, the loss found):
/// 3000 B over 2 ms = 1 500 000 B/s (Linux: 3000 B · 10⁶ / 2000 µs).
#[test]
fn first_interval_from_the_bytes_since_the_last_feedback() {
    let x = first_interval_x_recv(ReceiveRate::SinceFeedback, 100);
    assert!((x - 1_500_000.0).abs() < 1e-6, "{x}");
}

/// Linux's CCID 3 falls back on the X_recv the last feedback reported when the rate
/// since it is zero. 97 is lost; the timer feedback at 150 ms reports the 98 packets of
/// (50, 150] ms: 98 000 B / 0.1 s = 980 000 B/s; the loss is found at the same instant
/// (100 arrives at 150 ms), no time has passed since the feedback and there is no rate,
/// so the stored 980 000 B/s is used (Linux would divide by 1 µs there).
#[test]
fn first_interval_from_the_reported_rate_when_none_since() {
    let x = first_interval_x_recv(ReceiveRate::SinceFeedback, 97);
    assert!((x - 980_000.0).abs() < 1e-6, "{x}");
}

/// ns-2.35's `est_thput` (tfrc-sink.cc), less than an RTT after the last report, and
/// RFC 5348 §6.3.1's "most recent round-trip time": the packets that arrived within
/// 100 ms of the newest arrival. Lost 100, found at 153 ms: (53, 153] ms holds 4-103
/// less 100, 99 packets, 99 000 B / 0.1 s; lost 97, found at 150 ms: (50, 150] ms
/// holds 1-100 less 97, again 99 packets.
#[test]
fn first_interval_from_the_last_rtt() {
    for rule in [ReceiveRate::SinceFeedbackOrLastRtt, ReceiveRate::LastRtt] {
        for lost in [100, 97] {
            let x = first_interval_x_recv(rule, lost);
            assert!((x - 990_000.0).abs() < 1e-6, "{rule:?}, {lost}: {x}");
        }
    }
}

/// Countermeasure B, as a story. Packets 0-99 arrive with one lost (50): one loss
/// event. Packets 100-149 are sent while the sender's link is down: 100-139 wait in
/// its MAC queue and arrive after the 2 s disconnection, 10 ms apart, 140-149 are
/// dropped there. Then 150-153 are sent and arrive after the handover. Without the
/// notice the held packets are reported (a feedback echoes one of them: an RTT sample
/// of about the disconnection) and the gap 140-149 is a second loss event. With it,
/// the marked packets are left out: no feedback, no loss; packet 150 is answered at
/// once (§6.3) with its own timestamp, no loss history (p = 0) and X_recv = 0, as for
/// a new connection.
#[test]
fn handover_notice_leaves_the_gap_out() {
    let story = |notice: bool| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            handover_notice: notice,
            ..rx().cfg
        });
        let mut answers = vec![];
        let mut after = None;
        let held = (100..140).map(|seq| (seq, SimTime((2100 + (seq - 100) * 10) * MS)));
        let before = (0..100).filter(|&s| s != 50).map(|seq| (seq, data(seq).0));
        let later = (150..154).map(|seq| (seq, SimTime((2550 + seq - 150) * MS)));
        for (seq, t) in before.chain(held).chain(later) {
            let (_, mut d) = data(seq);
            d.in_handover = (100..150).contains(&seq);
            if seq >= 150 {
                d.sent = t - SimTime(50 * MS);
            }
            if let Some(fb) = r.handle_timeout(t) {
                answers.push(fb);
            }
            match r.handle_data(t, d) {
                Some(fb) if seq == 150 => after = Some(fb),
                Some(fb) => answers.push(fb),
                None => {}
            }
        }
        (r, answers, after)
    };
    let (off, answers, _) = story(false);
    assert_eq!((off.loss_events, off.lost), (2, 11));
    let held = |fb: &Feedback| (100..140).any(|seq| fb.t_recvdata == data(seq).1.sent);
    assert!(answers.iter().any(held));

    let (on, answers, after) = story(true);
    assert_eq!((on.loss_events, on.lost), (1, 1));
    assert!(!answers.iter().any(held));
    let fb = after.expect("the first packet after the handover is answered at once");
    assert_eq!(fb.t_recvdata, SimTime(2500 * MS));
    assert_eq!((fb.x_recv, fb.p, fb.intervals), (0.0, 0.0, 0));
    assert_eq!(on.loss_event_rate(), 0.0);
}

/// Countermeasure C, as a story. Packets every ms (R = 100 ms), lost 100, 400 and 520
/// (more than an RTT apart): loss events close the synthetic first interval, then
/// I = 300 and I = 120 (§5.3). Packets 600-609 carry the handover notice, and 610, the
/// first without it, arrives at 660 ms: for 50 ms the receiver averages the newest
/// n = 2 intervals with weights 1, 0.5 (§5.4's rule for n = 2): (120·1 + 300·0.5)/1.5
/// = 180 packets; with the open interval (at most 660 − 520 + 1 = 141 packets then) it
/// would be (141 + 60)/1.5 = 134, lower, so it is not taken, and every feedback in the
/// window reports p = 1/180. Without C, and with C after the
/// window, p is that of the RFC's eight intervals, the synthetic one among them.
#[test]
fn recent_history_for_a_while_after_the_handover() {
    let story = |recent: Option<Recent>| {
        let mut r = TfrcReceiver::new(ReceiverConfig { recent, ..rx().cfg });
        let mut answers = vec![];
        for seq in (0..800).filter(|s| ![100, 400, 520].contains(s)) {
            let (t, mut d) = data(seq);
            d.in_handover = (600..610).contains(&seq);
            answers.extend(r.handle_timeout(t).map(|fb| (t, fb.p)));
            answers.extend(r.handle_data(t, d).map(|fb| (t, fb.p)));
        }
        assert_eq!(r.loss_events, 3);
        answers
    };
    let recent = Recent {
        window: SimTime(50 * MS),
        intervals: 2,
    };
    let off = story(None);
    let on = story(Some(recent));
    assert_eq!(off.len(), on.len());
    let window = SimTime(660 * MS)..SimTime(710 * MS);
    let mut within = 0;
    for (&(t, p_off), &(t_on, p_on)) in off.iter().zip(&on) {
        assert_eq!(t, t_on);
        if window.contains(&t) {
            within += 1;
            assert!((p_on - 1.0 / 180.0).abs() < 1e-15, "{p_on} at {t:?}");
            assert!((p_off - 1.0 / 180.0).abs() > 1e-4, "{p_off} at {t:?}");
        } else {
            assert_eq!(p_on, p_off, "at {t:?}");
        }
    }
    assert!(within > 0, "feedback within the window");
}

/// A hole of 300 packets (100-399, sent 1 ms apart, R = 100 ms) found at one arrival.
/// §5.2 interpolates packet s's loss at s + 50 ms between the arrivals of 99 (149 ms) and
/// 400 (450 ms): events open at 100, 201 (251 ms > 150 + 100) and 302 (352 > 251 + 100),
/// three in all. Grouped by round (ns-2's `PreciseLoss_ 1`), the one arrival that reveals
/// them makes them one loss event; a later hole, revealed by a packet of a later round and
/// more than an RTT after, is a second one. By DCCP's window counter (RFC 4342 §10.2; the
/// sender's counter moving every quarter RTT, 25 ms: packet s carries s/25) the hole's
/// losses share the packet before it, 99 (counter 3): one event; the loss of 700 follows
/// 699 (counter 27 > 3 + 4): a second.
#[test]
fn a_hole_is_one_loss_event_when_grouped_by_round() {
    let run = |grouping: LossGrouping| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            grouping,
            ..rx().cfg
        });
        for seq in (0..100).chain(400..700).chain(701..800) {
            let (t, mut d) = data(seq);
            d.round = seq / 600;
            d.ccval = seq / 25;
            r.handle_data(t, d);
        }
        (r.loss_events, r.lost)
    };
    assert_eq!(run(LossGrouping::Interpolated), (4, 301));
    assert_eq!(run(LossGrouping::Round), (2, 301));
    assert_eq!(run(LossGrouping::WindowCounter), (2, 301));
}

/// RFC 4342 §10.2: a second hole whose preceding packet is within one RTT (4 counts) of the
/// one before the current event belongs to that event; more than 4 counts later it opens a new one.
#[test]
fn window_counter_groups_losses_within_one_rtt() {
    // Packets 0..n with 100 and `second` lost; packet s carries the counter s/25.
    let run = |second: u64, n: u64| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            grouping: LossGrouping::WindowCounter,
            ..rx().cfg
        });
        for seq in (0..n).filter(|&s| s != 100 && s != second) {
            let (t, mut d) = data(seq);
            d.ccval = seq / 25;
            r.handle_data(t, d);
        }
        r.loss_events
    };
    // 99 carries 3; 149 carries 5 and 175 carries 7 (= 3 + 4): the same event.
    assert_eq!(run(150, 200), 1);
    assert_eq!(run(176, 200), 1);
    // 225 carries 9 > 3 + 4: a new event.
    assert_eq!(run(226, 300), 2);
}

/// Linux's CCID 3 (ccid3.c, `ccid3_hc_rx_send_feedback`, `CCID3_FBACK_PARAM_CHANGE`): a
/// feedback for a new loss event repeats the stored X_recv, unless that is 0. Packets
/// 0-99 arrive every ms from 50 ms: feedback at 50 ms (X_recv 0) and at 150 ms (99
/// packets over 0.1 s, 990 000 B/s). Packets 100-159 arrive at 150-209 ms, 160 is lost,
/// and 163 at 213 ms is the third later arrival (§5.1): a new loss event, reported at
/// once. Since the last feedback that is 63 packets over 63 ms, 1 000 000 B/s, what
/// RFC 4342 §8.3 reports; Linux reports the stored 990 000 B/s. Both restart there:
/// the timer's feedback at 313 ms counts packets 164-262 (214-312 ms), 990 000 B/s.
/// Had the loss come before any periodic feedback (packet 3 lost, 6 at 56 ms the third
/// later arrival), the stored X_recv is the first feedback's 0, and Linux too measures:
/// packets 1, 2, 4, 5, 6 over the 6 ms since 50 ms, 833 333 B/s.
#[test]
fn linux_repeats_the_stored_receive_rate_on_a_new_loss_event() {
    let story = |rule: ReceiveRate, lost: u64, until: u64| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            receive_rate: rule,
            ..rx().cfg
        });
        let mut reports = vec![];
        for (t, d) in (0..until).filter(|&s| s != lost).map(data) {
            while r.poll_timeout().is_some_and(|at| at <= t) {
                let at = r.poll_timeout().unwrap();
                reports.extend(r.handle_timeout(at).map(|fb| (at, fb.x_recv)));
            }
            reports.extend(r.handle_data(t, d).map(|fb| (t, fb.x_recv)));
        }
        reports
    };
    let ms = |t: u64| SimTime(t * MS);
    let linux = story(ReceiveRate::LinuxCcid3, 160, 264);
    let dccp = story(ReceiveRate::SinceFeedback, 160, 264);
    assert_eq!(
        linux,
        [
            (ms(50), 0.0),
            (ms(150), 990_000.0),
            (ms(213), 990_000.0),
            (ms(313), 990_000.0)
        ]
    );
    assert_eq!(dccp[2], (ms(213), 1_000_000.0));
    assert_eq!(dccp[3], (ms(313), 990_000.0));
    let early = story(ReceiveRate::LinuxCcid3, 3, 7);
    assert_eq!(early.len(), 2, "{early:?}");
    assert_eq!(early[1].0, ms(56));
    assert!((early[1].1 - 5000.0 / 0.006).abs() < 1e-6, "{early:?}");
}

/// [`FirstInterval::Counted`] (ns-2.35's TFRCSink with `AdjustHistoryAfterSS_ 0`): the
/// first interval counts the flow's own packets. The first packet received is 5; packets
/// 800-899 are lost (one event by the window counter: packet s carries s/25) and 902, the
/// third arrival after the hole (§5.1), reveals it. I_1 = 800 − 5 + 1 = 796 and I_0 =
/// 902 − 800 + 1 = 103, so with one closed interval I_mean = max(I_0, I_1) = 796 (§5.4:
/// I_tot0 = I_0, I_tot1 = I_1) and the feedback sent at once (§6.1) reports p = 1/796.
/// A second loss, 1100 (its predecessor 1099 carries 43 > 31 + 4), closes I_1 = 1100 −
/// 800 = 300 (§5.3), so at 1199 (I_0 = 100) I_mean = max((100 + 300)/2, (300 + 796)/2)
/// = 548. Synthesized from the same arrivals, the first interval is §6.3.1's, not 796.
#[test]
fn the_counted_first_interval_is_the_flow_s_packets_to_the_first_loss() {
    let run = |first_interval: FirstInterval| {
        let mut r = TfrcReceiver::new(ReceiverConfig {
            grouping: LossGrouping::WindowCounter,
            first_interval,
            ..rx().cfg
        });
        let mut at_902 = None;
        for seq in (5..1200).filter(|s| !(800..900).contains(s) && *s != 1100) {
            let (t, mut d) = data(seq);
            d.ccval = seq / 25;
            let fb = r.handle_data(t, d);
            if seq == 902 {
                at_902 = fb.map(|fb| fb.p);
            }
        }
        (at_902, r.loss_events, r.mean_loss_interval())
    };
    let (p, events, mean) = run(FirstInterval::Counted);
    assert_eq!(p, Some(1.0 / 796.0));
    assert_eq!(events, 2);
    assert_eq!(mean, Some(548.0));
    let (p, _, _) = run(FirstInterval::Synthesized);
    assert!(p.is_some_and(|p| p != 1.0 / 796.0 && p > 0.0), "{p:?}");
}
