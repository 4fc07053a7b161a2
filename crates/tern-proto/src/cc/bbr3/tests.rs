use super::*;

const SMSS: u64 = 1448;
/// The test path: 1.25 MB/s (10 Mbit/s) and 40 ms, a BDP of 50 000 B, ⌈50 000 / 1448⌉ = 35
/// packets.
const RATE: u64 = 1_250_000;
const BDP: u64 = 50_000;

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// The gains of the draft's states in the v3 kernel's fixed point (1/256): STARTUP paces
/// at ⌊2.77 · 256⌋ + 1 = 710 with cwnd gain 2 = 512; DRAIN at ⌊256 / 2.885⌋ = 88; PROBE_BW
/// UP at 1.25 · 256 = 320 with cwnd gain 2.25 = 576, DOWN at ⌊0.91 · 256⌋ = 232, CRUISE and
/// REFILL at 256, all with cwnd gain 512; PROBE_RTT 1.0 and 1.0. The loss threshold is
/// ⌊0.02 · 256⌋ = 5, the loss cut 256 − ⌊0.3 · 256⌋ = 180 (0.703), the headroom ⌊0.15 · 256⌋
/// = 38.
#[test]
fn the_gains_and_thresholds_are_the_draft_s_in_the_kernel_s_fixed_point() {
    assert_eq!(
        (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN, DRAIN_GAIN),
        (710, 512, 88)
    );
    assert_eq!((UP_GAIN, CWND_GAIN + PROBE_UP_CWND_GAIN_EXTRA), (320, 576));
    assert_eq!((DOWN_GAIN, CWND_GAIN), (232, 512));
    assert_eq!((LOSS_THRESH, LOSS_CUT, HEADROOM), (5, 180, 38));
    let b = Bbr3::new(SMSS as u32, 10 * SMSS);
    assert_eq!(b.gains(), (710, 512));
    assert_eq!(b.mode(), Mode::Startup);
}

/// A controller in PROBE_BW's UP phase on the test path, probing (its samples reflect the
/// probe), with a window of 80 packets.
fn probing() -> Bbr3 {
    let mut b = Bbr3::new(SMSS as u32, 10 * SMSS);
    b.min_rtt = Some(ms(40));
    b.bw_hi = [RATE, RATE];
    b.pacing_rate = RATE;
    b.full_bw_reached = true;
    b.mode = Mode::ProbeBw;
    b.phase = Phase::Up;
    b.bw_probe_samples = true;
    b.cwnd = 80;
    b
}

/// Packet `n` of a flight, `bytes` long, marked lost: `tx_in_flight` bytes were in flight
/// just after it left, and `lost` bytes (itself included) marked lost since.
fn lost_packet(tx_in_flight: u64, lost: u64, bytes: u64) -> LostPacket {
    LostPacket {
        now: SimTime::from_secs(5),
        bytes,
        tx_in_flight,
        lost,
        is_app_limited: false,
        has_snapshot: true,
    }
}

/// draft "Updating the Model Upon Packet Loss" (`BBRHandleLostPacket`, `IsInflightTooHigh`,
/// `BBRInflightLongtermFromLostPacket`) in the v3 kernel's fixed point
/// (`bbr_skb_marked_lost`, `bbr_is_inflight_too_high`, `bbr_inflight_hi_from_lost_skb`;
/// `loss_thresh` = 5/256). A packet lost out of a flight of 100 with one loss before it: the
/// threshold is ⌊100 · 5 / 256⌋ = 1 packet and 2 > 1, too high. Before it 99 packets and 1
/// loss, a budget of ⌈99 · 5 / 256⌉ = ⌊(495 + 255) / 256⌋ = 2 losses, so `lost_prefix` =
/// ⌊(2 − 1) · 256 / (256 − 5)⌋ = 1 more packet fits: `inflight_hi` = 99 + 1 = 100, above
/// 0.7 × the target flight (35 + 2 in UP = 37; ⌊37 · 180 / 256⌋ = 26). PROBE_UP ends
/// (DOWN). Alone in its flight of 100 (1 ≤ 1) the loss changes nothing. Out of 300 with 6
/// before it: threshold ⌊1500 / 256⌋ = 5 < 7; budget ⌊(299 · 5 + 255) / 256⌋ = 6 = the 6
/// lost before, so the threshold was crossed already: `lost_prefix` = 0, `inflight_hi` =
/// 299. With 5 before it: 6 > 5, budget 6, prefix ⌊1 · 256 / 251⌋ = 1: 300. With a flight of
/// 20 and one loss: 1 > ⌊100 / 256⌋ = 0, prefix ⌊(⌈19 · 5 / 256⌉ − 0) · 256 / 251⌋ = 1, 20,
/// below 26: `inflight_hi` = 26. Only one cut per probe: a second packet lost leaves it.
#[test]
fn a_lost_packet_sets_inflight_hi_where_its_flight_s_loss_rate_crossed_two_percent() {
    assert!(!is_inflight_too_high(1, 100));
    assert!(is_inflight_too_high(2, 100));
    assert_eq!(inflight_hi_from_lost(100, 2, 1), 100);
    assert_eq!(inflight_hi_from_lost(300, 7, 1), 299);
    assert_eq!(inflight_hi_from_lost(300, 6, 1), 300);
    assert_eq!(inflight_hi_from_lost(20, 1, 1), 20);
    // A two-packet segment's flight before it: 198, budget ⌈990 / 256⌉ = 4, 3 lost before
    // it, prefix ⌊256 / 251⌋ = 1.
    assert_eq!(inflight_hi_from_lost(200, 5, 2), 199);

    let mut b = probing();
    b.on_packet_lost(&lost_packet(100 * SMSS, SMSS, SMSS));
    assert_eq!(b.inflight_hi(), None);
    assert_eq!(b.phase(), Some(Phase::Up));
    assert!(b.loss_in_round);

    let mut b = probing();
    b.on_packet_lost(&lost_packet(100 * SMSS, 2 * SMSS, SMSS));
    assert_eq!(b.inflight_hi(), Some(100));
    assert_eq!(b.phase(), Some(Phase::Down));

    for (lost, hi) in [(7, 299), (6, 300)] {
        let mut b = probing();
        b.on_packet_lost(&lost_packet(300 * SMSS, lost * SMSS, SMSS));
        assert_eq!(b.inflight_hi(), Some(hi));
    }

    let mut b = probing();
    b.on_packet_lost(&lost_packet(20 * SMSS, SMSS, SMSS));
    assert_eq!(b.inflight_hi(), Some(26));
    b.on_packet_lost(&lost_packet(20 * SMSS, 5 * SMSS, SMSS));
    assert_eq!(b.inflight_hi(), Some(26));
}

/// `bbr_skb_marked_lost` looks at a lost packet's flight only while the samples reflect a
/// probe (`bw_probe_samples`) and when its snapshot is unused (`tx.delivered_mstamp`); an
/// application-limited one ends the probe without setting `inflight_hi`
/// (`bbr_handle_inflight_too_high`).
#[test]
fn a_lost_packet_counts_only_from_a_probe_with_its_snapshot() {
    let mut b = probing();
    b.bw_probe_samples = false;
    b.on_packet_lost(&lost_packet(100 * SMSS, 10 * SMSS, SMSS));
    assert_eq!((b.inflight_hi(), b.phase()), (None, Some(Phase::Up)));
    assert!(b.loss_in_round && b.loss_in_cycle);

    let mut b = probing();
    let mut p = lost_packet(100 * SMSS, 10 * SMSS, SMSS);
    p.has_snapshot = false;
    b.on_packet_lost(&p);
    assert_eq!((b.inflight_hi(), b.phase()), (None, Some(Phase::Up)));

    let mut b = probing();
    p.has_snapshot = true;
    p.is_app_limited = true;
    b.on_packet_lost(&p);
    assert_eq!((b.inflight_hi(), b.phase()), (None, Some(Phase::Down)));
    assert!(b.prev_probe_too_high && !b.bw_probe_samples);
}

/// An ACK whose newest delivered packet left into `tx_in_flight` packets, `lost` of them
/// (and of later ones) lost since, with a flight of 40 packets before the ACK: not
/// cwnd-limited (80), above the BDP (35: DOWN does not turn to CRUISE).
fn ack(tx_in_flight: u64, lost: u64) -> RateSample {
    RateSample {
        now: SimTime::from_secs(5),
        delivered: BDP,
        interval: ms(40),
        rtt: ms(40),
        prior_delivered: 1_000_000,
        total_delivered: 1_000_000 + BDP,
        delivered_time: SimTime::from_secs(5),
        acked_sacked: SMSS,
        tx_in_flight: tx_in_flight * SMSS,
        lost: lost * SMSS,
        prior_in_flight: 40 * SMSS,
        in_flight: 39 * SMSS,
        total_lost: lost * SMSS,
        pacing_edt: SimTime::from_secs(5),
        ..RateSample::default()
    }
}

/// `bbr_adapt_upper_bounds` on an ACK reads the delivered packet's own `rs->tx_in_flight`
/// and `rs->lost`: in PROBE_UP, 3 of its flight of 100 lost is over ⌊500 / 256⌋ = 1, and
/// `inflight_hi` = max(`tx_in_flight`, 26) = 100, the flight itself (no prefix on this
/// path); 1 of 100 is not. Outside probing a loss-free packet that left into a larger flight
/// than `inflight_hi` raises it to that flight (draft `BBRAdaptLongtermModel`).
#[test]
fn an_ack_bounds_inflight_hi_by_its_packet_s_flight() {
    let mut b = probing();
    b.on_rate_sample(&ack(100, 3));
    assert_eq!(b.inflight_hi(), Some(100));
    assert_eq!(b.phase(), Some(Phase::Down));

    let mut b = probing();
    b.on_rate_sample(&ack(100, 1));
    assert_eq!(b.inflight_hi(), None);

    let mut b = probing();
    b.phase = Phase::Cruise;
    b.bw_probe_samples = false;
    b.inflight_hi = 40;
    b.on_rate_sample(&ack(48, 0));
    assert_eq!(b.inflight_hi(), Some(48));
    b.on_rate_sample(&ack(45, 0));
    assert_eq!(b.inflight_hi(), Some(48));
}

/// draft "ProbeRTT": the window is `BBRProbeRTTCwndGain` · BDP = ⌈25 000 / 1448⌉ = 18
/// packets on the test path, never under 4; "Time Scale for Bandwidth Probing": the wall-clock
/// wait is 2 s plus under 1 s, the rounds already counted 0 or 1, and the Reno bound is the
/// target flight in packets (35 here), at most 63 (a 100 Mbit/s path's 346).
#[test]
fn probe_rtt_window_and_probe_wait_bounds() {
    let mut b = probing();
    b.phase = Phase::Down;
    assert_eq!(b.probe_rtt_cwnd(), 18);
    b.bw_hi = [100, 100];
    assert_eq!(b.probe_rtt_cwnd(), 4);
    b.bw_hi = [RATE, RATE];
    let mut waits = Vec::new();
    for seed in 0..200 {
        b.reseed(seed);
        b.pick_probe_wait();
        assert!(b.probe_wait() >= ms(2000) && b.probe_wait() < ms(3000));
        assert!(b.rounds_since_probe <= 1);
        waits.push(b.probe_wait());
    }
    // The draws spread over the second: some in each third of it.
    for k in 0..3 {
        let third = |w: &SimTime| (w.0 - 2_000_000_000) / 333_333_334 == k;
        assert!(waits.iter().any(third), "{k}");
    }
    b.rounds_since_probe = 34;
    assert!(!b.is_reno_coexistence_probe_time());
    b.rounds_since_probe = 35;
    assert!(b.is_reno_coexistence_probe_time());
    b.bw_hi = [10 * RATE, 10 * RATE];
    b.cwnd = 1000;
    b.rounds_since_probe = 62;
    assert!(!b.is_reno_coexistence_probe_time());
    b.rounds_since_probe = 63;
    assert!(b.is_reno_coexistence_probe_time());
}

/// A state and when it began.
type Change = (SimTime, Mode, Option<Phase>);

/// The test path for 13 s, each ACK delivering one packet spaced at the bottleneck rate
/// and each sample measuring that rate over one BDP; the sender puts in flight what its
/// pacing rate allows between ACKs, within cwnd. The RTT is 40 ms for the first second,
/// 45 ms after (a standing queue). Returns the state changes.
fn steady_path() -> Vec<Change> {
    let mut b = Bbr3::new(SMSS as u32, 10 * SMSS);
    b.reseed(1);
    let mut path = super::super::bbr::steady_path::SteadyPath::new(RATE, BDP, SMSS);
    let mut changes: Vec<Change> = vec![(SimTime::ZERO, b.mode(), b.phase())];
    while path.now < SimTime::from_secs(13) {
        b.on_rate_sample(&path.ack());
        path.send(b.pacing_rate().unwrap(), b.cwnd());
        let now = path.now;
        let state = (b.mode(), b.phase());
        if changes.last().is_none_or(|c| (c.1, c.2) != state) {
            changes.push((now, state.0, state.1));
        }
        let expected = match state {
            (Mode::Startup, _) => (710, 512),
            (Mode::Drain, _) => (88, 512),
            (Mode::ProbeBw, Some(Phase::Up)) => (320, 576),
            (Mode::ProbeBw, Some(Phase::Down)) => (232, 512),
            (Mode::ProbeBw, _) => (256, 512),
            (Mode::ProbeRtt, _) => (256, 256),
        };
        assert_eq!(b.gains(), expected, "{state:?} at {now:?}");
        if b.mode() == Mode::ProbeRtt {
            // Half the BDP: ⌈1.25 MB/s · 40 ms / 2 / 1448⌉ = 18 packets while the 40 ms
            // minimum holds, ⌈… 45 ms …⌉ = 20 once the 10 s filter has taken the 45 ms one.
            let half_bdp = if b.min_rtt() == Some(ms(40)) { 18 } else { 20 };
            assert!(b.cwnd() <= half_bdp * SMSS, "{} at {now:?}", b.cwnd());
        }
        if state == (Mode::ProbeBw, Some(Phase::Cruise)) {
            assert_eq!(b.pacing_rate(), Some(RATE * 99 / 100));
        }
    }
    changes
}

/// The draft's state sequence: STARTUP, DRAIN, then PROBE_BW cycling DOWN → CRUISE →
/// REFILL (one round) → UP (until the rate plateaus: three rounds without 25 % growth) →
/// DOWN. The next probe comes after `min(63, target flight)` = 35 rounds, less the 0 or 1
/// drawn (34–35 rounds of 40 ms, 1.36–1.40 s), before the 2–3 s wall-clock wait. PROBE_RTT
/// comes when the 5 s PROBE_RTT filter's minimum is 5 s old (its first sample is the first
/// ACK's; the RTT never falls below it), lasts 200 ms plus the round that ends after it,
/// and comes again 5 s after it ends.
#[test]
fn a_steady_path_runs_the_draft_s_state_sequence() {
    let changes = steady_path();
    let states: Vec<_> = changes.iter().map(|c| (c.1, c.2)).collect();
    use Mode::*;
    assert_eq!(
        states[..7],
        [
            (Startup, None),
            (Drain, None),
            (ProbeBw, Some(Phase::Down)),
            (ProbeBw, Some(Phase::Cruise)),
            (ProbeBw, Some(Phase::Refill)),
            (ProbeBw, Some(Phase::Up)),
            (ProbeBw, Some(Phase::Down)),
        ],
        "{changes:?}"
    );
    let at = |i: usize| changes[i].0;
    // REFILL lasts one round; the probe starts 34–35 rounds after DOWN began.
    assert!(
        at(5) - at(4) >= ms(39) && at(5) - at(4) <= ms(42),
        "{changes:?}"
    );
    let wait = at(4) - at(2);
    assert!(
        wait >= ms(34 * 40 - 2) && wait <= ms(35 * 40 + 2),
        "{wait:?}"
    );
    // UP ends after the round it starts in and three flat rounds.
    assert!(at(6) - at(5) >= ms(3 * 40) && at(6) - at(5) <= ms(4 * 40 + 2));
    let probe_rtt: Vec<(SimTime, SimTime)> = changes
        .windows(2)
        .filter(|w| w[0].1 == ProbeRtt)
        .map(|w| (w[0].0, w[1].0))
        .collect();
    assert_eq!(probe_rtt.len(), 2, "{changes:?}");
    let gap = SimTime(SMSS * 1_000_000_000 / RATE);
    let (enter, exit) = probe_rtt[0];
    assert!(
        enter > gap + ms(5000) && enter <= gap + gap + ms(5000),
        "{enter:?}"
    );
    assert!(
        exit >= enter + ms(200) && exit <= enter + ms(200 + 2 * 45),
        "{exit:?}"
    );
    let next = probe_rtt[1].0;
    assert!(next > exit + ms(5000) && next <= exit + ms(5000) + gap + gap);
    // PROBE_RTT hands back to PROBE_BW's CRUISE.
    let after = changes.iter().find(|c| c.0 == exit).unwrap();
    assert_eq!((after.1, after.2), (ProbeBw, Some(Phase::Cruise)));
}
