//! Minstrel's statistics under ath9k's status rule (`super::super::minstrel`'s `status`).

use super::*;

/// ath9k reports a submission's status to minstrel_ht only when one of its frames
/// completes, acknowledged or given up (`ath_tx_complete_aggr`'s `rc_update`): a series
/// that fails from max_tp to max_prob with every frame kept for a software retry is not
/// counted. MCS 0 delivers 2 of 2 at 0 ms; at 10 ms a series of A-MPDUs of 2 MPDUs fails
/// through the whole chain; at 60 ms MCS 0 delivers 2 of 2 again and the 50 ms update
/// runs. Unreported, MCS 0's probability is 4 / 4; with the last try giving a frame up,
/// the series' tries at MCS 0 count too: 4 / (4 + 2 × tries at MCS 0).
#[test]
fn linux_3_learns_nothing_from_a_series_that_completes_no_frame() {
    let set = HtRateSet::up_to(mcs(15), ChannelWidth::Mhz20, GuardInterval::Long);
    let run = |give_up: bool| {
        let mut mi = MinstrelHt::new(
            MinstrelConfig {
                sampling: Sampling::Fraction(0.0),
                ..MinstrelConfig::linux_3(set.clone(), Band::Ghz5)
            },
            RngStream::new(1, "unit"),
        );
        let rate = mi.select(SimTime::ZERO).rate;
        assert_eq!(rate, mcs(0));
        mi.report(SimTime::ZERO, rate, 2, 2, 0);
        // The series' tries, counted on a copy: max_tp to max_prob, each its count.
        let t = SimTime(10 * MS);
        let mut copy = mi.clone();
        let mut series = Vec::new();
        while series.is_empty() || !copy.at_chain_head() {
            let rate = copy.select(t).rate;
            series.push(rate);
            copy.report(t, rate, 2, 0, 0);
            assert!(series.len() < 20, "the chain never wrapped");
        }
        for (k, &expected) in series.iter().enumerate() {
            let rate = mi.select(t).rate;
            assert_eq!(rate, expected);
            let last = k + 1 == series.len();
            // The submission ends with the series' last try (ath9k's software retry next).
            assert_eq!(mi.failure_ends_series(rate), last, "try {k}");
            mi.report(t, rate, 2, 0, u32::from(give_up && last));
        }
        let at_mcs0 = series.iter().filter(|&&r| r == mcs(0)).count() as u32;
        let rate = mi.select(SimTime(60 * MS)).rate;
        mi.report(SimTime(60 * MS), rate, 2, 2, 0);
        (mi.success_prob(mcs(0)), at_mcs0)
    };
    let (p, _) = run(false);
    assert_eq!(p, Some(1.0), "a series completing no frame is not counted");
    let (p, at_mcs0) = run(true);
    assert!(at_mcs0 > 0);
    let expected = 4.0 / f64::from(4 + 2 * at_mcs0);
    assert_eq!(p, Some(expected), "a frame given up reports the series");
}
