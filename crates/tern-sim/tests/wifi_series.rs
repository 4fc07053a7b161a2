//! The `wifi` trace's submissions: which tries a sender's hardware makes of one handing of
//! its frames, and what it gives up, as ath9k's rules under Linux 3.x Minstrel-HT say
//! (drivers/net/wireless/ath/ath9k/xmit.c, `ath_tx_complete_aggr`).

mod common;

/// The station's A-MPDU tries at the far end of the wlan-bufferbloat study
/// ([`common::wlan_far_end`]) with `rate_control` as given: per try, MPDUs acknowledged,
/// MPDUs given up, whether it ended its submission, and MPDUs.
fn far_end(rate_control: &str) -> (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) {
    let out = common::wlan_far_end(&[("wifi.wlan.rate_control", rate_control)]);
    let wifi = common::table(&out, "wifi");
    let (kind, from) = (common::texts(wifi, "kind"), common::texts(wifi, "from"));
    let sta: Vec<usize> = (0..kind.len())
        .filter(|&i| kind[i] == "ampdu" && from[i] == "sta")
        .collect();
    let pick = |name: &str| {
        let all = common::u64s(wifi, name);
        sta.iter().map(|&i| all[i]).collect::<Vec<u64>>()
    };
    (
        pick("acked"),
        pick("dropped"),
        pick("series_end"),
        pick("mpdus"),
    )
}

/// ath9k hands the hardware an A-MPDU with its rate series; the hardware retries it along
/// the series until a Block Ack comes or the series is spent, and only then does the driver
/// see the submission again. So a try that gets a Block Ack ends its submission, the tries
/// before it in the same submission got none, and ath9k gives a frame up (30 tries) only
/// when a submission ends. In the fades some submissions end with no frame acknowledged.
/// With a rate control of another kind each try is a submission of its own.
#[test]
fn a_submission_ends_at_its_block_ack_or_its_spent_series() {
    let (acked, dropped, end, mpdus) = far_end("{ kind = \"minstrel\" }");
    let n = acked.len();
    assert!(n > 1000, "{n} station A-MPDUs");
    for i in 0..n {
        if acked[i] > 0 || dropped[i] > 0 {
            assert_eq!(
                end[i], 1,
                "try {i} acknowledged {} and gave up {}",
                acked[i], dropped[i]
            );
        }
        assert!(acked[i] + dropped[i] <= mpdus[i], "try {i}");
    }
    let mut lengths = Vec::new();
    let (mut start, mut empty) = (0, 0);
    for i in 0..n {
        if end[i] == 1 {
            lengths.push(i + 1 - start);
            if acked[i] == 0 && dropped[i] == 0 {
                empty += 1;
            }
            start = i + 1;
        }
    }
    let longest = *lengths.iter().max().unwrap();
    let multi = lengths.iter().filter(|&&l| l > 1).count();
    assert!(
        multi > 0 && empty > 0,
        "{multi} submissions of more than one try, {empty} that completed no frame"
    );
    // The series is three entries (max_tp, max_tp2, max_prob), each of at most the
    // hardware's 10 tries (ath9k's hw->max_rate_tries; wifi/rate/retry_chain.rs).
    assert!(longest <= 3 * 10, "a submission of {longest} tries");
    let dropped_total: u64 = dropped.iter().sum();
    assert!(dropped_total > 0, "no frame given up at 95 m");

    let (_, _, end, _) = far_end("{ kind = \"ideal\" }");
    assert!(
        end.iter().all(|&e| e == 1),
        "an oracle's try is a submission of its own"
    );
}
