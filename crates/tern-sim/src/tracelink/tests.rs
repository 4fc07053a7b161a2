use super::service::TraceService;
use super::shapes::{opportunities, parse_rate};
use super::*;
use std::sync::Arc;

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

#[test]
fn mahimahi_files_are_checked_as_mm_link_checks_them() {
    let t = DeliveryTrace::parse_mahimahi("1\n1\n3\n", 1504).unwrap();
    assert_eq!(t.times_ms, [1, 1, 3]);
    assert_eq!(t.period_ms, 3);
    for (text, line) in [("1\n\n3\n", Some(2)), ("2\n1\n", Some(2)), ("a\n", Some(1))] {
        assert_eq!(
            DeliveryTrace::parse_mahimahi(text, 1504).unwrap_err().0,
            line
        );
    }
    assert!(DeliveryTrace::parse_mahimahi("0\n0\n", 1504).is_err());
    assert!(DeliveryTrace::parse_mahimahi("", 1504).is_err());
}

/// The trace repeats with the last line as its period (`base_timestamp_ += schedule_.back()`):
/// `0, 5` gives opportunities at 0, 5, 5, 10, 10, 15, …
#[test]
fn the_trace_repeats_shifted_by_its_last_instant() {
    let t = DeliveryTrace::parse_mahimahi("0\n5\n", 1504).unwrap();
    let times: Vec<u64> = (0..6).map(|n| t.time_of(n).0 / 1_000_000).collect();
    assert_eq!(times, [0, 5, 5, 10, 10, 15]);
    // Strictly after: an opportunity at the instant of arrival is not the packet's.
    assert_eq!(t.first_after(ms(0)), 1);
    assert_eq!(t.first_after(ms(5)), 3);
    assert_eq!(t.first_after(SimTime(ms(5).0 - 1)), 1);
}

/// mahimahi's `rationalize`: 1504 B per opportunity, packets split across them in order.
#[test]
fn packets_share_and_straddle_opportunities() {
    let t = Arc::new(DeliveryTrace::parse_mahimahi("1\n2\n3\n4\n", 1504).unwrap());
    let mut s = TraceService::new(t);
    // Three 1000 B packets waiting from time 0: the first ends in opportunity 1 (504 B
    // left), the second takes those and 496 B of opportunity 2, the third 1000 of the
    // 1008 left in 2.
    assert_eq!(s.finish(ms(0), 1000), ms(1));
    assert_eq!(s.finish(ms(0), 1000), ms(2));
    assert_eq!(s.finish(ms(0), 1000), ms(2));
    // 8 B of opportunity 2 are left, but a packet arriving at 2 ms cannot use them: its
    // bytes go in opportunity 3.
    assert_eq!(s.finish(ms(2), 100), ms(3));
    // An idle link wastes its opportunities: a packet arriving at 9.5 ms leaves at 12
    // (period 4: opportunities at 9, 10, 11, 12, …).
    assert_eq!(s.finish(SimTime(9_500_000), 1504), ms(10));
    assert_eq!(s.finish(SimTime(9_500_000), 1505), ms(12));
}

#[test]
fn a_constant_rate_gives_evenly_spread_opportunities() {
    // 12.032 Mbit/s is exactly one 1504 B opportunity per ms.
    let t = opportunities(&[(SimTime::ZERO, 12_032_000)], ms(10), 1504).unwrap();
    assert_eq!(t.times_ms, (1..=10).collect::<Vec<_>>());
    // Half that: one every other millisecond, the first when 1504 B have been earned.
    let t = opportunities(&[(SimTime::ZERO, 6_016_000)], ms(10), 1504).unwrap();
    assert_eq!(t.times_ms, [2, 4, 6, 8, 10]);
    assert_eq!(t.mean_rate(), 6_016_000);
    // On/off: 1 ms of 24.064 Mbit/s then 1 ms off: two opportunities at 1, none at 2.
    let t = opportunities(&[(SimTime::ZERO, 24_064_000), (ms(1), 0)], ms(2), 1504).unwrap();
    assert_eq!(t.times_ms, [1, 1]);
    assert_eq!(t.period_ms, 2);
    assert!(opportunities(&[(SimTime::ZERO, 1000)], ms(10), 1504).is_err());
    assert!(opportunities(&[(SimTime::ZERO, 1000)], SimTime(1_500_000), 1504).is_err());
}

#[test]
fn rate_files_are_read_with_their_lines_in_errors() {
    let (steps, length) = parse_rate("# t,rate\n0,12Mbps\n1.5, 6000000\n3,0\n").unwrap();
    assert_eq!(steps, [(SimTime::ZERO, 12_000_000), (ms(1500), 6_000_000)]);
    assert_eq!(length, ms(3000));
    assert_eq!(parse_rate("1,5Mbps\n2,0\n").unwrap_err().0, Some(1));
    assert_eq!(parse_rate("0,5Mbps\n0,1Mbps\n").unwrap_err().0, Some(2));
    assert_eq!(parse_rate("0,5 parsecs\n1,0\n").unwrap_err().0, Some(1));
    assert!(parse_rate("0,5Mbps\n").is_err());
}

#[test]
fn a_random_walk_is_the_same_for_the_same_seed_and_stays_in_bounds() {
    let spec = TraceSpec::RandomWalk {
        start: crate::scenario::units::DataRate(6_000_000),
        step: crate::scenario::units::DataRate(1_000_000),
        every: crate::scenario::units::Duration(ms(100)),
        min: crate::scenario::units::DataRate(1_000_000),
        max: crate::scenario::units::DataRate(12_000_000),
        length: crate::scenario::units::Duration(ms(20_000)),
        opportunity: crate::scenario::units::Bytes(1504),
    };
    let a = build(&spec, 7, "link/x/forward/trace").unwrap();
    let b = build(&spec, 7, "link/x/forward/trace").unwrap();
    let c = build(&spec, 8, "link/x/forward/trace").unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Every millisecond has at most ⌈12 Mbit/s · 1 ms / 12032 bit⌉ = 1 opportunity.
    assert!(a.times_ms.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(a.period_ms, 20_000);
}
