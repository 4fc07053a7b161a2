//! Unit tests of the retry-out index: the paper's worked example (Fig. 3) step by step with
//! the real reordering buffer, the EWMA and Table 1, and the rules on which MPDUs count.

use super::*;
use crate::wifi::ap_rx::SeenMpdu;
use crate::wifi::blockack::Recipient;

/// MCS 1 at 20 MHz, long GI: 13 Mbit/s (IEEE 802.11-2020 Table 19-27), below 25 Mbit/s.
const MCS1: f64 = 13e6;

/// A TCP-carrying MPDU `sn`, intact or not.
fn tcp(sn: u16, fcs_ok: bool) -> SeenMpdu {
    SeenMpdu {
        sn,
        fcs_ok,
        tcp: true,
        sent: (sn, true),
    }
}

/// Station 1's A-MPDU at `rate_bps`, the reordering window starting at `win_start`.
fn feed(
    idx: &mut RetryOutIndex,
    rate_bps: f64,
    win_start: u16,
    mpdus: &[SeenMpdu],
) -> Vec<Declared> {
    idx.on_ampdu(&ApAmpdu {
        station: 1,
        rate_bps,
        win_start,
        mpdus,
    })
}

/// The AP of Fig. 3: the reordering buffer of its agreement with one station (station 1,
/// first SN 1, MPDU ids equal to SNs) and the retry-out index.
struct Ap {
    recipient: Recipient,
    index: RetryOutIndex,
}

impl Ap {
    fn new(cfg: RetryOutConfig) -> Ap {
        Ap {
            recipient: Recipient::new(1),
            index: RetryOutIndex::new(cfg),
        }
    }

    /// One A-MPDU as the device handles it ([`crate::wifi::device`]): the intact MPDUs
    /// into the reordering buffer, then the strategy, then each declared MPDU given up.
    /// Returns the SNs passed up and those declared lost.
    fn receive(&mut self, rate_bps: f64, mpdus: &[(u16, bool)]) -> (Vec<u64>, Vec<u16>) {
        let seen: Vec<SeenMpdu> = mpdus.iter().map(|&(sn, ok)| tcp(sn, ok)).collect();
        self.receive_seen(rate_bps, &seen)
    }

    /// [`Ap::receive`] with MPDUs that may not carry TCP.
    fn receive_seen(&mut self, rate_bps: f64, seen: &[SeenMpdu]) -> (Vec<u64>, Vec<u16>) {
        let mut up = Vec::new();
        for m in seen.iter().filter(|m| m.fcs_ok) {
            up.extend(self.recipient.on_mpdu(m.sn, u64::from(m.sn)));
        }
        let win = self.recipient.win_start();
        let declared = feed(&mut self.index, rate_bps, win, seen);
        for d in &declared {
            up.extend(self.recipient.give_up(d.sn));
        }
        (up, declared.iter().map(|d| d.sn).collect())
    }
}

/// Fig. 3 of the paper (§3.3), index 2, step by step. "x" marks a bad FCS.
#[test]
fn the_papers_worked_example_fig3() {
    let mut ap = Ap::new(RetryOutConfig::paper());
    let none: [u16; 0] = [];
    // A-MPDU(1): 1, 2x, 3, 4x, 5. 1 goes up; 3 and 5 are held; 2 and 4 failed once.
    let (up, lost) = ap.receive(
        MCS1,
        &[(1, true), (2, false), (3, true), (4, false), (5, true)],
    );
    assert_eq!((up, lost), (vec![1], none.to_vec()));
    assert_eq!(ap.recipient.buffered(), 2);
    assert_eq!(ap.index.failures(1, 2), 1);
    assert_eq!(ap.index.failures(1, 4), 1);
    // A-MPDU(2): 6x, 7, 8. 7 and 8 are held; 6 failed once.
    let (up, lost) = ap.receive(MCS1, &[(6, false), (7, true), (8, true)]);
    assert_eq!((up, lost), (vec![], none.to_vec()));
    assert_eq!(ap.index.failures(1, 6), 1);
    // A-MPDU(3): the whole A-MPDU in error, 2x, 4x, 9x, 10x; the driver still reads the SNs.
    let (up, lost) = ap.receive(MCS1, &[(2, false), (4, false), (9, false), (10, false)]);
    assert_eq!((up, lost), (vec![], none.to_vec()));
    assert_eq!(
        [2, 4, 9, 10].map(|sn| ap.index.failures(1, sn)),
        [2, 2, 1, 1]
    );
    // A-MPDU(4), the timeout retransmission of (3): 2, 4x, 9, 10x. 2 arrives: 2 and 3 go
    // up. 4 has now failed three times (received 3 times = retried 2 times = the index):
    // declared lost, so 5, held behind it, goes up at once. 9 is held (6 is missing).
    let (up, lost) = ap.receive(MCS1, &[(2, true), (4, false), (9, true), (10, false)]);
    assert_eq!((up, lost), (vec![2, 3, 5], vec![4]));
    assert_eq!(ap.recipient.win_start(), 6);
    assert_eq!(ap.index.failures(1, 10), 2);
    // A-MPDU(5): 6 alone; 6 and the held 7, 8, 9 go up.
    let (up, lost) = ap.receive(MCS1, &[(6, true)]);
    assert_eq!((up, lost), (vec![6, 7, 8, 9], none.to_vec()));
    // A-MPDU(6): 4x, 10. 4 was declared lost (the window is past it: nothing to decide);
    // 10 goes up.
    let (up, lost) = ap.receive(MCS1, &[(4, false), (10, true)]);
    assert_eq!((up, lost), (vec![10], none.to_vec()));
    // A-MPDU(7): 4 arrives intact. The chip Block-Acks it (the station stops retrying),
    // the driver ignores it.
    let (up, lost) = ap.receive(MCS1, &[(4, true)]);
    assert_eq!((up, lost), (vec![], none.to_vec()));
    assert_eq!(ap.recipient.block_ack(4) & 1, 1);
    assert_eq!(ap.recipient.ignored(), 1);
}

/// The decision record carries the failures, the index and the smoothed rate.
#[test]
fn a_declaration_says_why() {
    let mut idx = RetryOutIndex::new(RetryOutConfig::paper());
    for _ in 0..2 {
        assert!(feed(&mut idx, MCS1, 0, &[tcp(0, false)]).is_empty());
    }
    let d = feed(&mut idx, MCS1, 0, &[tcp(0, false)]);
    assert_eq!(
        d,
        [Declared {
            sn: 0,
            failures: 3,
            index: 2,
            ewma_bps: MCS1
        }]
    );
    // Declared once: the count starts again.
    assert_eq!(idx.failures(1, 0), 0);
}

/// §3.2 (1): the EWMA starts at the first A-MPDU's rate and weighs each new one 0.25.
#[test]
fn the_rate_is_smoothed_with_weight_one_quarter() {
    let mut idx = RetryOutIndex::new(RetryOutConfig::paper());
    feed(&mut idx, 120e6, 0, &[]);
    assert_eq!(idx.ewma_bps(1), Some(120e6));
    feed(&mut idx, 40e6, 0, &[]);
    // 0.75 · 120 + 0.25 · 40 = 100 Mbit/s.
    assert!((idx.ewma_bps(1).unwrap() - 100e6).abs() < 1e-3);
    feed(&mut idx, 20e6, 0, &[]);
    // 0.75 · 100 + 0.25 · 20 = 80.
    assert!((idx.ewma_bps(1).unwrap() - 80e6).abs() < 1e-3);
    // Stations are smoothed apart.
    assert_eq!(idx.ewma_bps(2), None);
}

/// Table 1: < 25 Mbit/s → 2, 25–50 → 5, 50–100 → 8, ≥ 100 → not applied.
#[test]
fn table_1() {
    let t = IndexRule::paper();
    let cases = [
        (6.5e6, Some(2)),
        (24.9e6, Some(2)),
        (25e6, Some(5)),
        (49.9e6, Some(5)),
        (50e6, Some(8)),
        (99.9e6, Some(8)),
        (100e6, None),
        (300e6, None),
    ];
    for (bps, index) in cases {
        assert_eq!(t.index(bps), index, "{bps}");
    }
    assert_eq!(IndexRule::Fixed(5).index(300e6), Some(5));
}

/// Non-TCP MPDUs are left to the standard rules, however often they fail.
#[test]
fn mpdus_without_tcp_are_never_declared_lost() {
    let mut idx = RetryOutIndex::new(RetryOutConfig::paper());
    let ping = SeenMpdu {
        sn: 3,
        fcs_ok: false,
        tcp: false,
        sent: (3, false),
    };
    for _ in 0..10 {
        assert!(feed(&mut idx, MCS1, 0, &[ping]).is_empty());
    }
}

/// The study's ping case: the ping's MPDU (SN 1, no TCP) fails again and again, the TCP
/// MPDU behind it (SN 2) fails three times and is declared lost. Only SN 2 is skipped: the
/// window keeps waiting for the ping, SN 2 is not counted or declared again while the window
/// holds it, and when the ping arrives it goes up with what waited behind SN 2.
#[test]
fn a_ping_before_a_declared_tcp_mpdu_is_not_skipped() {
    let mut ap = Ap::new(RetryOutConfig::paper());
    let ping = |fcs_ok| SeenMpdu {
        sn: 1,
        fcs_ok,
        tcp: false,
        sent: (1, false),
    };
    let none: [u16; 0] = [];
    let (up, lost) = ap.receive_seen(MCS1, &[ping(false), tcp(2, false), tcp(3, true)]);
    assert_eq!((up, lost), (vec![], none.to_vec()));
    let (up, lost) = ap.receive_seen(MCS1, &[ping(false), tcp(2, false)]);
    assert_eq!((up, lost), (vec![], none.to_vec()));
    let (up, lost) = ap.receive_seen(MCS1, &[ping(false), tcp(2, false)]);
    assert_eq!((up, lost), (vec![], vec![2]));
    assert_eq!((ap.recipient.win_start(), ap.recipient.buffered()), (1, 1));
    for _ in 0..5 {
        let (up, lost) = ap.receive_seen(MCS1, &[ping(false), tcp(2, false)]);
        assert_eq!((up, lost), (vec![], none.to_vec()));
    }
    assert_eq!(ap.index.failures(1, 1), 8);
    assert_eq!(ap.index.failures(1, 2), 0);
    let (up, lost) = ap.receive_seen(MCS1, &[ping(true), tcp(2, false)]);
    assert_eq!((up, lost), (vec![1, 3], none.to_vec()));
    assert_eq!(ap.recipient.win_start(), 4);
}

/// At or above 100 Mbit/s the index does not apply; failures still count, and once the
/// rate falls the next failure past the index declares the MPDU lost.
#[test]
fn above_100_mbps_nothing_is_declared_until_the_rate_falls() {
    let mut idx = RetryOutIndex::new(RetryOutConfig::paper());
    for _ in 0..10 {
        assert!(feed(&mut idx, 300e6, 0, &[tcp(0, false)]).is_empty());
    }
    assert_eq!(idx.failures(1, 0), 10);
    // After n A-MPDUs at 60 Mbit/s the EWMA is 60 + 240 · 0.75^n, below 100 from n = 7 on.
    let mut n = 0;
    while feed(&mut idx, 60e6, 0, &[tcp(0, false)]).is_empty() {
        n += 1;
        assert!(n < 7, "still not declared");
    }
    assert_eq!(n, 6);
}

/// An SN outside the reordering window contradicts it: not counted. Counts of SNs the
/// window moved past are forgotten, and an intact copy clears its SN's count.
#[test]
fn sequence_numbers_are_trusted_only_within_the_window() {
    let mut idx = RetryOutIndex::new(RetryOutConfig::paper());
    // Window [100, 163]: 99 lies before it, 164 beyond it.
    feed(
        &mut idx,
        MCS1,
        100,
        &[tcp(99, false), tcp(164, false), tcp(163, false)],
    );
    assert_eq!(idx.failures(1, 99), 0);
    assert_eq!(idx.failures(1, 164), 0);
    assert_eq!(idx.failures(1, 163), 1);
    feed(&mut idx, MCS1, 100, &[tcp(120, false), tcp(121, false)]);
    feed(&mut idx, MCS1, 100, &[tcp(120, true)]);
    assert_eq!(idx.failures(1, 120), 0);
    assert_eq!(idx.failures(1, 121), 1);
    feed(&mut idx, MCS1, 122, &[]);
    assert_eq!(idx.failures(1, 121), 0);
    // Across the wrap of the 12-bit SN: window [4090, 57].
    feed(&mut idx, MCS1, 4090, &[tcp(5, false), tcp(4089, false)]);
    assert_eq!(idx.failures(1, 5), 1);
    assert_eq!(idx.failures(1, 4089), 0);
}

/// A failed MPDU whose SN was misread as that of an MPDU arriving intact in the same
/// A-MPDU: the intact copy clears the count, and nothing is declared.
#[test]
fn a_misread_sn_that_arrives_intact_in_the_same_ampdu_is_not_declared() {
    let mut cfg = RetryOutConfig::paper();
    cfg.rule = IndexRule::Fixed(0);
    let mut idx = RetryOutIndex::new(cfg);
    let declared = feed(&mut idx, MCS1, 100, &[tcp(120, false), tcp(120, true)]);
    assert!(declared.is_empty(), "{declared:?}");
    assert_eq!(idx.failures(1, 120), 0);
    // The same failure alone is declared at once under index 0.
    let declared = feed(&mut idx, MCS1, 100, &[tcp(121, false)]);
    assert_eq!(declared.iter().map(|d| d.sn).collect::<Vec<_>>(), [121]);
}

/// The driver counts a failed MPDU under the SN and protocol it reads; the idealised one
/// (`exact_headers`) under those sent.
#[test]
fn failures_count_under_the_header_as_read_unless_the_driver_reads_it_exactly() {
    // TCP MPDU 120 read as 130, TCP MPDU 121 read as not carrying TCP.
    let misread = [
        SeenMpdu {
            sn: 130,
            fcs_ok: false,
            tcp: true,
            sent: (120, true),
        },
        SeenMpdu {
            sn: 121,
            fcs_ok: false,
            tcp: false,
            sent: (121, true),
        },
    ];
    for exact_headers in [false, true] {
        let mut cfg = RetryOutConfig::paper();
        cfg.rule = IndexRule::Fixed(0);
        cfg.exact_headers = exact_headers;
        let mut idx = RetryOutIndex::new(cfg);
        let declared: Vec<u16> = feed(&mut idx, MCS1, 100, &misread)
            .iter()
            .map(|d| d.sn)
            .collect();
        if exact_headers {
            assert_eq!(declared, [120, 121]);
        } else {
            assert_eq!(declared, [130]);
            assert_eq!(idx.failures(1, 121), 1);
        }
    }
}

/// Several MPDUs passing the index in one A-MPDU are declared in SN order, from the window.
#[test]
fn declarations_come_in_sequence_number_order() {
    let cfg = RetryOutConfig {
        weight: PAPER_WEIGHT,
        rule: IndexRule::Fixed(0),
        exact_headers: false,
    };
    let mut idx = RetryOutIndex::new(cfg);
    let d = feed(&mut idx, MCS1, 4094, &[tcp(1, false), tcp(4095, false)]);
    let sns: Vec<u16> = d.iter().map(|d| d.sn).collect();
    assert_eq!(sns, [4095, 1]);
}
