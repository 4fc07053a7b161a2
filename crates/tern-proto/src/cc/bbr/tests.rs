use super::*;

const SMSS: u64 = 1448;

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// The gains of tcp_bbr.c in its fixed point: 2/ln 2 ≈ 2.885 → 739/256, its inverse
/// 88/256; and `bbr_init_pacing_rate_from_rtt` before any RTT: 10 packets per nominal
/// 1 ms, times 739/256, less 1 %: ⌊14 480 000 · 739 / 256⌋ = 41 799 687 B/s, · 0.99 =
/// 41 381 690 B/s.
#[test]
fn gains_and_the_initial_pacing_rate_are_the_kernel_s() {
    assert_eq!((HIGH_GAIN, DRAIN_GAIN), (739, 88));
    let b = Bbr::new(SMSS as u32, 10 * SMSS);
    assert_eq!(b.pacing_rate(), Some(41_381_690));
    assert_eq!(b.cwnd(), 10 * SMSS);
    assert_eq!(b.mode(), Mode::Startup);
}

/// A path of 1.25 MB/s (10 Mbit/s) and 40 ms: each ACK delivers one packet, spaced at
/// the bottleneck rate, and every sample measures that rate exactly (the BDP,
/// 50 000 B, over 40 ms); the sender puts in flight what its pacing rate allows between
/// ACKs, within cwnd. BBR's model takes the path's rate and RTT, STARTUP ends after
/// three rounds without 25 % growth, DRAIN ends once the flight is down to the BDP, and PROBE_BW
/// cruises at the rate less 1 %. Its window is `2 · BDP` = ⌈100 000 / 1448⌉ = 70 packets
/// plus the quantization budget (3 · 2 segments, even: 76), +2 in the probing phase and
/// the ACK-aggregation allowance (under 2 packets with evenly spaced ACKs). The RTT then
/// rises to 45 ms (a standing queue): 10 s after the 40 ms minimum was taken, PROBE_RTT
/// holds the window at 4 packets for 200 ms and a round, then PROBE_BW resumes, and the
/// next PROBE_RTT comes 10 s after that.
#[test]
fn a_steady_path_is_modelled_and_probe_rtt_comes_every_ten_seconds() {
    let mut b = Bbr::new(SMSS as u32, 10 * SMSS);
    b.reseed(1);
    let rate = 1_250_000u64;
    let bdp = 50_000u64;
    let mut path = steady_path::SteadyPath::new(rate, bdp, SMSS);
    let gap = path.gap;
    let mut probe_rtt: Vec<(SimTime, Option<SimTime>)> = Vec::new();
    let mut checked_cruise = false;
    while path.now < SimTime::from_secs(21) {
        b.on_rate_sample(&path.ack());
        path.send(b.pacing_rate().unwrap(), b.cwnd());
        let now = path.now;
        match (b.mode(), probe_rtt.last_mut()) {
            (Mode::ProbeRtt, Some((_, None))) => assert!(b.cwnd() <= 4 * SMSS),
            (Mode::ProbeRtt, _) => probe_rtt.push((now, None)),
            (_, Some(last @ (_, None))) => last.1 = Some(now),
            _ => {}
        }
        if now > ms(3000) && now < ms(9000) {
            assert_eq!(b.mode(), Mode::ProbeBw);
            assert_eq!(b.bw(), rate);
            assert_eq!(b.min_rtt(), Some(ms(40)));
            let cwnd = b.cwnd() / SMSS;
            assert!((76..=80).contains(&cwnd), "cwnd {cwnd} packets");
            if b.pacing_gain == UNIT {
                assert_eq!(b.pacing_rate(), Some(rate * 99 / 100));
                checked_cruise = true;
            }
        }
    }
    assert!(checked_cruise);
    assert_eq!(probe_rtt.len(), 2, "{probe_rtt:?}");
    let (enter, exit) = (probe_rtt[0].0, probe_rtt[0].1.unwrap());
    // The first minimum is taken with the first sample, one packet time in.
    assert!(enter > gap + SimTime::from_secs(10) && enter <= gap + gap + SimTime::from_secs(10));
    assert!(exit >= enter + PROBE_RTT_TIME && exit < enter + PROBE_RTT_TIME + ms(100));
    let next = probe_rtt[1].0;
    assert!(
        next > exit + SimTime::from_secs(10) && next <= exit + SimTime::from_secs(10) + gap + gap
    );
}
