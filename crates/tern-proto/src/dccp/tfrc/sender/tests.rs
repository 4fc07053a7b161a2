//! Tests of the TFRC sender against hand-computed values of the RFCs.

use super::*;

const MS: u64 = 1_000_000;

/// A sender of 1000-byte segments starting at 0.
fn sender(profile: Profile) -> TfrcSender {
    TfrcSender::new(SenderConfig::new(profile, 1000), SimTime::ZERO)
}

/// Feedback at `at_ms` echoing the data packet sent 100 ms before (R_sample = 100 ms).
fn feed(tx: &mut TfrcSender, at_ms: u64, x_recv: f64, p: f64) {
    let info = FeedbackIn {
        t_recvdata: SimTime((at_ms - 100) * MS),
        t_delay: SimTime::ZERO,
        x_recv,
        p,
    };
    tx.handle_feedback(SimTime(at_ms * MS), info);
}

/// A sender after its first feedback (R = 100 ms) and a first loss report of p = 1 %.
fn after_first_loss(profile: Profile) -> TfrcSender {
    let mut tx = sender(profile);
    feed(&mut tx, 100, 0.0, 0.0);
    feed(&mut tx, 200, 1e6, 0.01);
    tx
}

/// §4.2: one packet per second before any feedback, the no-feedback timer at 2 s
/// halving it, and W_init/R = min(4s, max(2s, 4380))/R at the first feedback:
/// 4000 B / 0.1 s = 40 000 B/s for s = 1000.
#[test]
fn starts_slowly_then_at_the_initial_window() {
    let mut tx = sender(Profile::Rfc5348);
    assert_eq!(tx.rate(), 1000.0);
    tx.handle_sent(SimTime::ZERO);
    assert_eq!(tx.poll_send_time(), SimTime::from_secs(1));
    assert_eq!(tx.poll_nofeedback_timer(), SimTime::from_secs(2));
    feed(&mut tx, 100, 0.0, 0.0);
    assert_eq!(tx.rtt(), Some(SimTime(100 * MS)));
    assert_eq!(tx.rate(), 40_000.0);
    // The next packet follows the new rate: 1000 B at 40 000 B/s, 25 ms after the first.
    assert_eq!(tx.poll_send_time(), SimTime(25 * MS));
    // RFC 3448: s/R = 10 000 B/s.
    let mut old = sender(Profile::Rfc3448);
    feed(&mut old, 100, 0.0, 0.0);
    assert_eq!(old.rate(), 10_000.0);
}

/// §4.3: slow start doubles X at most once per RTT, up to twice the receive rate.
#[test]
fn slow_start_doubles_per_rtt_up_to_twice_x_recv() {
    let mut tx = sender(Profile::Rfc5348);
    feed(&mut tx, 100, 0.0, 0.0);
    feed(&mut tx, 150, 40_000.0, 0.0);
    assert_eq!(
        tx.rate(),
        40_000.0,
        "less than one RTT since the last doubling"
    );
    feed(&mut tx, 200, 40_000.0, 0.0);
    assert_eq!(tx.rate(), 80_000.0);
    feed(&mut tx, 300, 30_000.0, 0.0);
    // X_recv_set holds 40 000 (from 200 ms, within 2 RTTs): the limit is 80 000.
    assert_eq!(tx.rate(), 80_000.0);
}

/// §4.3 after a loss: X = min(X_calc, 2·X_recv); X_calc by §3.1 for R = 100 ms,
/// p = 1 %, t_RTO = 4R is 112 332 B/s.
#[test]
fn rate_follows_the_equation() {
    let mut tx = after_first_loss(Profile::Rfc3448);
    assert!((tx.rate() - 112_332.2).abs() < 0.1, "{}", tx.rate());
    feed(&mut tx, 300, 40_000.0, 0.01);
    assert_eq!(tx.rate(), 80_000.0, "capped at 2·X_recv");
}

/// §4.4: without feedback the timer halves X each time, down to s/t_mbi, restarting
/// after max(4R, 2s/X).
#[test]
fn nofeedback_timer_halves_the_rate() {
    let mut tx = after_first_loss(Profile::Rfc3448);
    let x = tx.rate();
    // 4R = 0.4 s > 2s/X = 17.8 ms.
    assert_eq!(tx.poll_nofeedback_timer(), SimTime(600 * MS));
    tx.handle_sent(SimTime(210 * MS));
    tx.handle_nofeedback_timer(SimTime(600 * MS));
    // X_calc (112 332) < 2·X_recv (2e6): RFC 3448 sets X_recv = X_calc/4, X = 2·X_recv.
    assert!((tx.rate() - x / 2.0).abs() < 1e-6, "{} vs {x}", tx.rate());
    assert_eq!(tx.poll_nofeedback_timer(), SimTime(1000 * MS));
    // A sender that goes on sending (§4.4's idle rule aside).
    for k in 0..40 {
        tx.handle_sent(SimTime((1010 + 400 * k) * MS));
        tx.handle_nofeedback_timer(SimTime((1400 + 400 * k) * MS));
    }
    assert_eq!(tx.rate(), 1000.0 / 64.0, "s/t_mbi");
}

/// RFC 3448 §4.4: "If the sender has been idle since this nofeedback timer was set and
/// X_recv is less than four packets per round-trip time, then X_recv should not be halved
/// in response to the timer expiration." R = 100 ms, s = 1000 B: four packets per RTT is
/// 40 000 B/s. After a first loss (p = 1 %) a report of p = 0.1 % and X_recv = 10 000 B/s
/// sets X = 2·X_recv = 20 000 B/s and the timer max(4R, 2s/X) = 0.4 s later, at 700 ms.
/// An expiry with no packet sent since keeps X_recv and X; one after a packet halves
/// X_recv (X_calc > 2·X_recv: X_recv/2 = 5000 B/s) and X = 2·X_recv = 10 000 B/s.
#[test]
fn nofeedback_timer_spares_an_idle_sender_s_low_receive_rate() {
    let mut tx = after_first_loss(Profile::Rfc3448);
    feed(&mut tx, 300, 10_000.0, 0.001);
    assert_eq!(tx.rate(), 20_000.0);
    assert_eq!(tx.poll_nofeedback_timer(), SimTime(700 * MS));
    tx.handle_nofeedback_timer(SimTime(700 * MS));
    assert_eq!((tx.rate(), tx.x_recv()), (20_000.0, 10_000.0));
    assert_eq!(tx.poll_nofeedback_timer(), SimTime(1100 * MS));
    tx.handle_sent(SimTime(800 * MS));
    tx.handle_nofeedback_timer(SimTime(1100 * MS));
    assert_eq!((tx.rate(), tx.x_recv()), (10_000.0, 5000.0));
    // X_recv at or above four packets per RTT is halved, idle or not.
    let mut busy = after_first_loss(Profile::Rfc3448);
    feed(&mut busy, 300, 40_000.0, 0.001);
    busy.handle_nofeedback_timer(SimTime(700 * MS));
    assert_eq!((busy.rate(), busy.x_recv()), (40_000.0, 20_000.0));
}

/// §4.4 with p = 0, RFC 3448 as published against its erratum 1458. A sender in slow
/// start (R = 100 ms, s = 1000 B) at X = 40 000 B/s after reports of X_recv = 10 000
/// and 20 000 B/s. Published text: each expiry halves X_recv (20 000 → 10 000 → 5000
/// → 2500) and recomputes X = max(min(2X, 2·X_recv), s/R): 20 000, then 10 000 = s/R,
/// where it stays. Erratum 1458 (and RFC 5348): X halves at each expiry, 40 000/2^k,
/// down to s/t_mbi = 15.625 B/s. The timer runs max(4R, 2s/X): expiries at 0.7, 1.1,
/// 1.5 and 1.9 s in both; the next at 2.3 s with X = s/R, at 2.7 s with X = 2500 B/s.
#[test]
fn nofeedback_with_no_loss_published_text_and_erratum() {
    let story = |rule: NofeedbackRule| {
        let cfg = SenderConfig {
            nofeedback: rule,
            ..SenderConfig::new(Profile::Rfc3448, 1000)
        };
        let mut tx = TfrcSender::new(cfg, SimTime::ZERO);
        feed(&mut tx, 100, 0.0, 0.0);
        feed(&mut tx, 200, 10_000.0, 0.0);
        feed(&mut tx, 300, 20_000.0, 0.0);
        assert_eq!(tx.rate(), 40_000.0);
        assert_eq!(tx.poll_nofeedback_timer(), SimTime(700 * MS));
        let mut rates = vec![];
        for _ in 0..4 {
            let at = tx.poll_nofeedback_timer();
            tx.handle_sent(at);
            tx.handle_nofeedback_timer(at);
            rates.push((tx.rate(), tx.x_recv()));
        }
        let next = tx.poll_nofeedback_timer();
        for _ in 0..40 {
            let at = tx.poll_nofeedback_timer();
            tx.handle_nofeedback_timer(at);
        }
        (rates, next, tx.rate())
    };
    let (published, next, last) = story(NofeedbackRule::HalveReceiveRate);
    assert_eq!(next, SimTime(2300 * MS));
    assert_eq!(
        published,
        [
            (20_000.0, 10_000.0),
            (10_000.0, 5000.0),
            (10_000.0, 2500.0),
            (10_000.0, 1250.0)
        ]
    );
    assert_eq!(last, 10_000.0, "s/R while p = 0");
    let (erratum, next, last) = story(NofeedbackRule::HalveRate);
    let x: Vec<f64> = erratum.iter().map(|e| e.0).collect();
    assert_eq!(x, [20_000.0, 10_000.0, 5000.0, 2500.0]);
    assert_eq!(next, SimTime(2700 * MS), "1.9 s + 2s/X = 0.8 s");
    assert_eq!(last, 1000.0 / 64.0, "s/t_mbi");
    assert_eq!(
        SenderConfig::new(Profile::Rfc3448, 1000).nofeedback,
        NofeedbackRule::HalveReceiveRate
    );
    assert_eq!(
        SenderConfig::new(Profile::Rfc5348, 1000).nofeedback,
        NofeedbackRule::HalveRate
    );
}

/// §4.4 in RFC 5348, the same halving through update_limits(X_calc/2).
#[test]
fn nofeedback_timer_rfc5348() {
    let mut tx = after_first_loss(Profile::Rfc5348);
    let x = tx.rate();
    tx.handle_sent(SimTime(210 * MS));
    tx.handle_nofeedback_timer(SimTime(600 * MS));
    assert!((tx.rate() - x / 2.0).abs() < 1e-6, "{} vs {x}", tx.rate());
    // A sender that kept sending is halved again at the next expiry (X_recv is now
    // X_calc/4, below X_calc/2)…
    tx.handle_sent(SimTime(700 * MS));
    let next = tx.poll_nofeedback_timer();
    tx.handle_nofeedback_timer(next);
    assert!((tx.rate() - x / 4.0).abs() < 1e-6, "{} vs {x}", tx.rate());
    // …but an idle one whose X_recv is below 4 packets per RTT (40 000 B/s) is not.
    let next = tx.poll_nofeedback_timer();
    tx.handle_nofeedback_timer(next);
    assert!((tx.rate() - x / 4.0).abs() < 1e-6, "{} vs {x}", tx.rate());
}

/// §4.2: with an RTT from the set-up the sender starts at W_init/R at once (4000 B over
/// 40 ms = 100 000 B/s); the first feedback averages R (0.9·40 + 0.1·100 = 46 ms) and,
/// reporting X_recv = 0 while the initial +∞ of X_recv_set is older than 2R, limits slow
/// start to the initial rate of the new R: X = max(min(2X, 0), W_init/R) (§4.3).
/// RFC 3448 starts at 1 packet/s.
#[test]
fn starts_at_the_initial_window_with_a_setup_rtt() {
    let cfg = SenderConfig::new(Profile::Rfc5348, 1000);
    let mut tx = TfrcSender::with_rtt(cfg, SimTime::ZERO, SimTime(40 * MS));
    assert_eq!(tx.rate(), 100_000.0);
    assert_eq!(tx.rtt(), Some(SimTime(40 * MS)));
    feed(&mut tx, 100, 0.0, 0.0);
    assert_eq!(tx.rtt(), Some(SimTime(46 * MS)));
    assert!((tx.rate() - 4000.0 / 0.046).abs() < 1e-6, "{}", tx.rate());
    let cfg = SenderConfig::new(Profile::Rfc3448, 1000);
    let old = TfrcSender::with_rtt(cfg, SimTime::ZERO, SimTime(40 * MS));
    assert_eq!(old.rate(), 1000.0);
}

/// Before any feedback the timer halves the 1 packet/s rate (§4.2, §4.4).
#[test]
fn nofeedback_before_any_feedback() {
    let mut tx = sender(Profile::Rfc5348);
    tx.handle_nofeedback_timer(SimTime::from_secs(2));
    assert_eq!(tx.rate(), 500.0);
    // 2s/X = 4 s now exceeds 2 s.
    assert_eq!(tx.poll_nofeedback_timer(), SimTime::from_secs(6));
}

/// Countermeasure C's RTT half, as a story: R = 100 ms from the first feedback; the
/// handover's held packets then give a sample of 2.1 s. With §4.3's q = 0.9 the
/// estimate becomes 0.9·0.1 + 0.1·2.1 = 0.3 s and, with samples of 100 ms after it,
/// decays by a tenth of the excess per feedback: 0.28 s at the next. With a gain of
/// 0.5 for 1 s after the handover: 0.5·0.1 + 0.5·2.1 = 1.1 s, then 0.6 s, then (the
/// window over, 1 s after it began) 0.9·0.6 + 0.1·0.1 = 0.55 s.
#[test]
fn recent_rtt_samples_weigh_more_for_a_while() {
    let at = |tx: &mut TfrcSender, at_ms: u64, sample_ms: u64| {
        let info = FeedbackIn {
            t_recvdata: SimTime((at_ms - sample_ms) * MS),
            t_delay: SimTime::ZERO,
            x_recv: 1e5,
            p: 0.01,
        };
        tx.handle_feedback(SimTime(at_ms * MS), info);
        tx.rtt().unwrap().as_secs_f64()
    };
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    let mut rfc = sender(Profile::Rfc3448);
    at(&mut rfc, 100, 100);
    close(at(&mut rfc, 2400, 2100), 0.3);
    close(at(&mut rfc, 2500, 100), 0.28);
    let mut c = sender(Profile::Rfc3448);
    at(&mut c, 100, 100);
    c.weight_recent_rtt(SimTime(2300 * MS), SimTime::from_secs(1), 0.5);
    close(at(&mut c, 2400, 2100), 1.1);
    close(at(&mut c, 2500, 100), 0.6);
    close(at(&mut c, 3400, 100), 0.55);
}

/// Countermeasure A after the handover: the sender of [`set_rate_from_an_estimate`]
/// set to 47 500 B/s at 2010 ms. The first feedback, at 2041 ms, echoes a packet sent
/// at 1990 ms (before the estimate) and reports X_recv = 212.5 B/s, the rate averaged
/// over the silence (1.7 kbit/s): it measured the old path, so the cached X_recv stays
/// at 47 500/2 and X = min(X_calc, 2·X_recv) = 47 500 (X_calc at R = 0.9·100 + 0.1·51 =
/// 95.1 ms is above 112 332). Without the estimate the same report gives 2·212.5 = 425
/// B/s. The next feedback, at 2100 ms, echoes a packet sent at 2050 ms at the new rate
/// and reports 40 000 B/s: X = min(X_calc, 80 000) = 80 000 (X_calc at R = 90.59 ms is
/// 112 332·0.1/0.09059 ≈ 124 000, t_RTO = 4R scaling with R).
#[test]
fn estimate_stands_until_reports_on_its_packets() {
    let fb = |t_recvdata_ms: u64, x_recv: f64| FeedbackIn {
        t_recvdata: SimTime(t_recvdata_ms * MS),
        t_delay: SimTime::ZERO,
        x_recv,
        p: 0.01,
    };
    let throttled = || {
        let mut tx = after_first_loss(Profile::Rfc3448);
        for k in 0..4 {
            tx.handle_nofeedback_timer(SimTime((600 + 400 * k) * MS));
        }
        tx.handle_sent(SimTime(2000 * MS));
        tx
    };
    let mut a = throttled();
    a.set_rate(SimTime(2010 * MS), 47_500.0);
    a.handle_feedback(SimTime(2041 * MS), fb(1990, 212.5));
    assert!((a.rtt().unwrap().as_secs_f64() - 0.0951).abs() < 1e-9);
    assert_eq!(a.rate(), 47_500.0);
    assert_eq!(a.x_recv(), 23_750.0);
    a.handle_feedback(SimTime(2100 * MS), fb(2050, 40_000.0));
    assert_eq!(a.rate(), 80_000.0);
    assert_eq!(a.x_recv(), 40_000.0);
    let mut none = throttled();
    none.handle_feedback(SimTime(2041 * MS), fb(1990, 212.5));
    assert_eq!(none.rate(), 425.0);
    // RFC 5348's limit from X_recv_set: the estimate's entry, within 2R, holds it too.
    let mut b = after_first_loss(Profile::Rfc5348);
    b.set_rate(SimTime(2010 * MS), 47_500.0);
    b.handle_feedback(SimTime(2041 * MS), fb(1990, 212.5));
    assert_eq!(b.rate(), 47_500.0);
}

/// Countermeasure A, as a story: a sender throttled by four no-feedback expiries to
/// 112 332/16 = 7021 B/s is set to an estimate of 47 500 B/s: X is the estimate, the
/// next packet goes s/X = 21.05 ms after the last one, and the no-feedback timer runs
/// max(4R, 2s/X) = 0.4 s from now; an estimate below s/t_mbi gives s/t_mbi.
#[test]
fn set_rate_from_an_estimate() {
    let mut tx = after_first_loss(Profile::Rfc3448);
    for k in 0..4 {
        tx.handle_sent(SimTime((210 + 400 * k) * MS));
        tx.handle_nofeedback_timer(SimTime((600 + 400 * k) * MS));
    }
    assert!((tx.rate() - 112_332.2 / 16.0).abs() < 0.1, "{}", tx.rate());
    tx.handle_sent(SimTime(2000 * MS));
    tx.set_rate(SimTime(2010 * MS), 47_500.0);
    assert_eq!(tx.rate(), 47_500.0);
    assert_eq!(tx.poll_send_time(), SimTime(2000 * MS + 21_052_632));
    assert_eq!(tx.poll_nofeedback_timer(), SimTime(2410 * MS));
    tx.set_rate(SimTime(2010 * MS), 1.0);
    assert_eq!(tx.rate(), 1000.0 / 64.0);
}

/// ns-2.35's `increase_rate` (tfrc.cc): after the first loss event, a feedback allowing
/// more than X raises it by s/R per RTT since the last feedback, at most two: with R =
/// 100 ms and s = 1000 B that is 10 000 B/s per RTT, 20 000 at most; a decrease is
/// immediate. The first loss report itself leaves slow start at the equation's rate as
/// RFC 3448 does (ns-2: `oldrate_ = rate_ = rcvrate`).
#[test]
fn ns2_additive_increase_after_the_first_loss() {
    let mut tx = TfrcSender::new(
        SenderConfig {
            additive_increase: true,
            ..SenderConfig::new(Profile::Rfc3448, 1000)
        },
        SimTime::ZERO,
    );
    feed(&mut tx, 100, 0.0, 0.0);
    feed(&mut tx, 200, 1e6, 0.01);
    // §3.1 at R = 100 ms, p = 1 %: 112 332 B/s, as without the option.
    assert!((tx.rate() - 112_332.2).abs() < 0.1, "{}", tx.rate());
    // A report of p = 0.1 % allows far more; one RTT later X grows by s/R = 10 000 B/s.
    feed(&mut tx, 300, 1e6, 0.001);
    assert!((tx.rate() - 122_332.2).abs() < 0.1, "{}", tx.rate());
    // Five RTTs later: two RTTs' worth at most, 20 000 B/s.
    feed(&mut tx, 800, 1e6, 0.001);
    assert!((tx.rate() - 142_332.2).abs() < 0.1, "{}", tx.rate());
    // Half an RTT later: 5 000 B/s.
    feed(&mut tx, 850, 1e6, 0.001);
    assert!((tx.rate() - 147_332.2).abs() < 0.1, "{}", tx.rate());
    // A decrease to 2·X_recv = 60 000 B/s is immediate.
    feed(&mut tx, 950, 30_000.0, 0.001);
    assert_eq!(tx.rate(), 60_000.0);
}

/// ns-2.35's receive limit is never below one packet per RTT (tfrc.cc: `maximumrate =
/// max(maxrate_, size_/rtt_)` in `increase_rate`, and in `decrease_rate` with the default
/// `maxHeavyRounds_ 0`): a report of a receive rate far below s/R, as the first one after
/// an outage averages over the silence, leaves X at s/R, and the increase goes on from
/// there by s/R per RTT.
#[test]
fn ns2_receive_limit_is_at_least_one_packet_per_rtt() {
    let mut tx = TfrcSender::new(
        SenderConfig {
            additive_increase: true,
            ..SenderConfig::new(Profile::Rfc3448, 1000)
        },
        SimTime::ZERO,
    );
    feed(&mut tx, 100, 0.0, 0.0);
    feed(&mut tx, 200, 1e6, 0.01);
    // X_recv = 500 B/s: 2·X_recv = 1 000 B/s, below s/R = 1000 B / 0.1 s = 10 000 B/s.
    feed(&mut tx, 300, 500.0, 0.001);
    assert!((tx.rate() - 10_000.0).abs() < 1e-6, "{}", tx.rate());
    feed(&mut tx, 400, 500.0, 0.001);
    assert!((tx.rate() - 10_000.0).abs() < 1e-6, "{}", tx.rate());
    // 2·X_recv = 40 000 B/s allows more: one RTT's s/R on top, 20 000 B/s.
    feed(&mut tx, 500, 20_000.0, 0.001);
    assert!((tx.rate() - 20_000.0).abs() < 1e-6, "{}", tx.rate());
    // RFC 3448 §4.3 (4) has no such floor: X = 2·X_recv = 1 000 B/s.
    let mut rfc = after_first_loss(Profile::Rfc3448);
    feed(&mut rfc, 300, 500.0, 0.001);
    assert!((rfc.rate() - 1_000.0).abs() < 1e-6, "{}", rfc.rate());
}

/// ns-2.35's send timer (tfrc.cc): out of slow start a feedback leaves the packet already
/// scheduled where it is (`recv` calls `nextpkt()` only in slow start), and a no-feedback
/// expiry sends one at once (`reduce_rate_on_no_feedback` ends in `nextpkt()`). RFC 5348
/// §4.6 recomputes t_ipi = s/X from the last packet with every change of X.
#[test]
fn ns2_send_timer_moves_only_in_slow_start_and_at_expiries() {
    let cfg = SenderConfig {
        additive_increase: true,
        ..SenderConfig::new(Profile::Rfc3448, 1000)
    };
    let mut tx = TfrcSender::new(cfg, SimTime::ZERO);
    feed(&mut tx, 100, 0.0, 0.0);
    feed(&mut tx, 200, 1e6, 0.01);
    // X = 112 332 B/s: the packet sent at 200 ms is followed s/X = 8.90 ms later.
    tx.handle_sent(SimTime(200 * MS));
    let next = tx.poll_send_time();
    assert_eq!(
        next,
        SimTime(200 * MS) + SimTime((1000.0 / tx.rate() * 1e9).round() as u64)
    );
    // X falls to s/R = 10 000 B/s (2·X_recv = 1 000 B/s, below s/R): the next packet stays.
    feed(&mut tx, 300, 500.0, 0.001);
    assert!((tx.rate() - 10_000.0).abs() < 1e-6, "{}", tx.rate());
    assert_eq!(tx.poll_send_time(), next);
    // The no-feedback timer expires: a packet may go at once.
    let at = tx.poll_nofeedback_timer();
    tx.handle_nofeedback_timer(at);
    assert_eq!(tx.poll_send_time(), at);
    // Without the option the feedback moves it: X = 2·X_recv = 1 000 B/s, s/X = 1 s
    // after the packet at 200 ms.
    let mut rfc = after_first_loss(Profile::Rfc3448);
    rfc.handle_sent(SimTime(200 * MS));
    feed(&mut rfc, 300, 500.0, 0.001);
    assert_eq!(rfc.poll_send_time(), SimTime(1200 * MS));
}

/// ns-2.35's RTT average (tfrc.cc, `update_rtt`, with ns-default.tcl's `df_ 0.95`): the
/// first sample sets R, each later one moves it by 5 %, and the square-root average of
/// the oscillation prevention alike. Samples 100 ms then 300 ms: R = 0.95·0.1 + 0.05·0.3 =
/// 0.110 s and R_sqmean = 0.95·√0.1 + 0.05·√0.3 = 0.327 803 (RFC 5348 §4.3's q = 0.9:
/// 0.120 s and 0.339 377).
#[test]
fn ns2_rtt_filter_moves_by_five_percent() {
    let samples = |q: f64| {
        let cfg = SenderConfig {
            rtt_filter: q,
            ..SenderConfig::new(Profile::Rfc3448, 1000)
        };
        let mut tx = TfrcSender::new(cfg, SimTime::ZERO);
        feed(&mut tx, 100, 0.0, 0.0);
        assert_eq!(tx.rtt(), Some(SimTime(100 * MS)));
        let info = FeedbackIn {
            t_recvdata: SimTime(700 * MS),
            t_delay: SimTime::ZERO,
            x_recv: 10_000.0,
            p: 0.0,
        };
        tx.handle_feedback(SimTime(1000 * MS), info);
        (tx.rtt().unwrap(), tx.r_sqmean)
    };
    let (r, sq) = samples(0.95);
    assert_eq!(r, SimTime(110 * MS));
    assert!((sq - 0.327_803).abs() < 1e-6, "{sq}");
    let (r, sq) = samples(Q);
    assert_eq!(r, SimTime(120 * MS));
    assert!((sq - 0.339_377).abs() < 1e-6, "{sq}");
}
