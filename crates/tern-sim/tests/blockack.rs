//! HT-immediate Block Ack end to end: a stream of MPDUs goes Originator → lossy channel →
//! Recipient, with BlockAcks lost too, and what comes out of the reordering buffer is checked
//! against what went in; with and without the recipient's driver giving up on MPDUs
//! ([`Recipient::give_up`]), which is also unit-tested here.

use proptest::prelude::*;
use tern_sim::engine::SimTime;
use tern_sim::wifi::blockack::{sn_add, sn_offset, Originator, Recipient};

/// SplitMix64: the channel's loss draws, reproducible from the proptest-chosen seed.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// Uniform in 1..=n.
    fn upto(&mut self, n: u64) -> u64 {
        1 + self.next() % n
    }
}

#[derive(Clone, Debug)]
struct Link {
    mpdus: u64,
    ssn: u16,
    win_size: u16,
    max_batch: usize,
    mpdu_loss: u64,
    ba_loss: u64,
    seed: u64,
}

fn link() -> impl Strategy<Value = Link> {
    (
        1..=2000u64,
        0..4096u16,
        1..=64u16,
        1..=64usize,
        0..=50u64,
        0..=50u64,
        any::<u64>(),
    )
        .prop_map(
            |(mpdus, ssn, win_size, max_batch, mpdu_loss, ba_loss, seed)| Link {
                mpdus,
                ssn,
                win_size,
                max_batch,
                mpdu_loss,
                ba_loss,
                seed,
            },
        )
}

/// When the recipient's driver gives up on an MPDU.
#[derive(Clone, Copy, Debug)]
struct GiveUps {
    /// Give up on an MPDU once it was lost (received with a bad FCS) more than this many
    /// times: the AP-side countermeasure to bufferbloat.
    after: u32,
    /// Chance in percent, per MPDU of each A-MPDU whether lost or not, of also giving up
    /// on it: exercises the calls that must change nothing (SN already buffered or already
    /// passed up).
    random: u64,
}

fn give_ups() -> impl Strategy<Value = GiveUps> {
    (0..=3u32, 0..=20u64).prop_map(|(after, random)| GiveUps { after, random })
}

/// What came out of one run.
struct Run {
    delivered: Vec<u64>,
    dropped: Vec<u64>,
    /// Ids the driver declared lost ([`Recipient::give_up`] while nothing had arrived for
    /// them and their SN was in the reordering window), in order.
    given_up: Vec<u64>,
    /// The recipient's `ignored()` and `duplicates()` at the end, and those of its twin
    /// that never gives up.
    ignored: u64,
    duplicates: u64,
    twin_delivered: Vec<u64>,
    twin_duplicates: u64,
}

/// Packets 0..mpdus arrive in random bursts; each round sends one A-MPDU (random byte
/// budget through `fits`), loses MPDUs and the BlockAck independently, and hands any
/// BlockAckReq to the recipient. With `give_ups`, the recipient's driver gives up on MPDUs
/// as described there; a twin recipient gets the same MPDUs and BlockAckReqs but never
/// gives up, and its BlockAck bitmaps must be the same (the scoreboard is the chip's, it does
/// not see the driver's decisions).
///
/// Packet `id` has SN `ssn + id`, so the absolute position of WinStartB counts in ids.
fn run(l: &Link, retry_limit: u32, give_ups: Option<GiveUps>) -> Run {
    let mut draws = Draws(l.seed);
    let mut o = Originator::with_ssn(l.ssn, l.win_size, retry_limit);
    let mut r = Recipient::new(l.ssn);
    let mut twin = Recipient::new(l.ssn);
    let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
    let mut twin_delivered = Vec::new();
    // Bad-FCS receptions per id; whether an intact copy reached the recipient; whether the
    // driver declared it lost.
    let mut corrupted = vec![0u32; l.mpdus as usize];
    let mut intact = vec![false; l.mpdus as usize];
    let mut declared = vec![false; l.mpdus as usize];
    // The id whose SN is WinStartB, and how far WinStartB moved from there.
    let mut win_start_id = 0u64;
    let advance = |win_start_id: u64, r: &Recipient| {
        let sn = sn_add(l.ssn, (win_start_id % 4096) as u16);
        u64::from(sn_offset(sn, r.win_start()))
    };
    let mut arrived = 0;
    for _round in 0..1_000_000 {
        let burst = draws.upto(100).min(l.mpdus - arrived);
        for id in arrived..arrived + burst {
            o.enqueue(id);
        }
        arrived += burst;
        if o.is_empty() && arrived == l.mpdus {
            assert_eq!(r.buffered(), 0, "recipient still holds MPDUs");
            assert_eq!(twin.buffered(), 0, "twin recipient still holds MPDUs");
            return Run {
                delivered,
                dropped,
                given_up: (0..l.mpdus).filter(|&i| declared[i as usize]).collect(),
                ignored: r.ignored(),
                duplicates: r.duplicates(),
                twin_delivered,
                twin_duplicates: twin.duplicates(),
            };
        }

        let queued = o.queued();
        let mut budget = draws.upto(64);
        let batch = o.next_batch(l.max_batch, |_| {
            let fits = budget > 0;
            budget = budget.saturating_sub(1);
            fits
        });
        assert_eq!(o.in_flight(), batch.len());
        assert_eq!(queued - o.queued(), batch.len());
        assert!(!batch.is_empty(), "queued MPDUs but nothing sent");
        // Everything in flight lies in [WinStartO, WinStartO + WinSizeO), in SN order.
        let offsets: Vec<u16> = batch
            .iter()
            .map(|&(sn, _)| sn_offset(o.win_start(), sn))
            .collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]));
        assert!(*offsets.last().unwrap() < l.win_size);

        for &(sn, id) in &batch {
            let lost = draws.chance(l.mpdu_loss);
            if !lost {
                intact[id as usize] = true;
                delivered.extend(r.on_mpdu(sn, id));
                twin_delivered.extend(twin.on_mpdu(sn, id));
                win_start_id += advance(win_start_id, &r);
            }
            let Some(g) = give_ups else { continue };
            if lost {
                corrupted[id as usize] += 1;
            }
            if corrupted[id as usize] > g.after || draws.chance(g.random) {
                // Effective only for an SN in the window with nothing received for it.
                let from = win_start_id;
                let effective = (from..from + 64).contains(&id)
                    && !intact[id as usize]
                    && !declared[id as usize];
                let up = r.give_up(sn);
                let moved = advance(win_start_id, &r);
                win_start_id += moved;
                if effective {
                    declared[id as usize] = true;
                    // The window moves only if the declared SN was WinStartB: never past
                    // an earlier gap.
                    assert_eq!(
                        moved > 0,
                        id == from,
                        "give_up({sn}) moved WinStartB by {moved}"
                    );
                    assert!(!up.contains(&id), "given-up id {id} passed up");
                } else {
                    assert_eq!((moved, up.len()), (0, 0), "give_up({sn}) had an effect");
                }
                delivered.extend(up);
            }
        }
        let out = if draws.chance(l.ba_loss) {
            o.on_no_block_ack()
        } else {
            // The BlockAck may start at the batch's first SN or at WinStartO.
            let start = if draws.chance(50) {
                batch[0].0
            } else {
                o.win_start()
            };
            assert_eq!(
                r.block_ack(start),
                twin.block_ack(start),
                "giving up changed the BlockAck"
            );
            o.on_block_ack(start, r.block_ack(start))
        };
        assert_eq!(out.win_start, o.win_start());
        assert_eq!(o.in_flight(), 0);
        dropped.extend(out.dropped);
        if let Some(ssn) = out.bar {
            delivered.extend(r.on_bar(ssn));
            twin_delivered.extend(twin.on_bar(ssn));
            win_start_id += advance(win_start_id, &r);
        }
    }
    panic!("did not finish");
}

proptest! {
    /// Retries never run out: every packet is delivered exactly once, in order.
    #[test]
    fn blockack_delivers_everything_in_order(l in link()) {
        let out = run(&l, u32::MAX, None);
        prop_assert!(out.dropped.is_empty());
        prop_assert_eq!(out.delivered, (0..l.mpdus).collect::<Vec<_>>());
    }

    /// With few retries: delivered packets are an increasing subsequence, and every packet
    /// is delivered or reported dropped. A packet is both only when the BlockAcks that would
    /// have acknowledged it were all lost, so never on a link without BlockAck loss.
    #[test]
    fn blockack_small_retry_limit_loses_packets_in_order(
        l in link(),
        retry_limit in 1..=4u32,
        lossless_ba in any::<bool>(),
    ) {
        let l = Link { ba_loss: if lossless_ba { 0 } else { l.ba_loss }, ..l };
        let out = run(&l, retry_limit, None);
        prop_assert!(out.delivered.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(out.dropped.windows(2).all(|w| w[0] < w[1]));
        let mut seen = vec![0u8; l.mpdus as usize];
        for &id in &out.delivered {
            seen[id as usize] |= 1;
        }
        for &id in &out.dropped {
            seen[id as usize] |= 2;
        }
        prop_assert!(seen.iter().all(|&s| s != 0), "a packet was neither delivered nor dropped");
        if l.ba_loss == 0 {
            prop_assert!(seen.iter().all(|&s| s != 3), "a packet was delivered and dropped");
        }
    }

    /// The driver gives up on MPDUs (after more than `after` bad-FCS receptions, and at
    /// random) while retries never run out. The chip's scoreboard does not see it, so the
    /// originator gets the bitmaps of a recipient that never gives up and behaves the same:
    /// the twin gets everything in order. The recipient passes up each packet at most once,
    /// in order, and never one it declared lost; every packet is either passed up or
    /// declared lost, so a missing MPDU before a declared one is never skipped with it.
    /// Each declared MPDU is retransmitted until it arrives intact and the chip
    /// acknowledges it, so it is ignored exactly once.
    #[test]
    fn give_up_skips_packets_the_chip_still_acknowledges(l in link(), g in give_ups()) {
        let out = run(&l, u32::MAX, Some(g));
        let all: Vec<u64> = (0..l.mpdus).collect();
        prop_assert!(out.dropped.is_empty());
        prop_assert_eq!(&out.twin_delivered, &all);
        prop_assert!(out.delivered.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(out.given_up.windows(2).all(|w| w[0] < w[1]));
        let mut either: Vec<u64> = out.delivered.iter().chain(&out.given_up).copied().collect();
        either.sort_unstable();
        prop_assert_eq!(either, all);
        prop_assert_eq!(out.ignored, out.given_up.len() as u64);
        prop_assert_eq!(out.duplicates, out.twin_duplicates);
    }

    /// Give-ups with few retries: passed-up packets still increase, a declared packet is
    /// never passed up, and every packet is passed up, dropped or declared lost. The scoreboard
    /// records the same MPDUs as the twin's: those the twin buffers, the recipient buffers
    /// (and passes up) or ignores, and both discard the same duplicates.
    #[test]
    fn give_up_with_small_retry_limit(
        l in link(),
        retry_limit in 1..=4u32,
        g in give_ups(),
    ) {
        let out = run(&l, retry_limit, Some(g));
        prop_assert!(out.delivered.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(out.given_up.windows(2).all(|w| w[0] < w[1]));
        let mut seen = vec![0u8; l.mpdus as usize];
        for &id in &out.delivered {
            seen[id as usize] |= 1;
        }
        for &id in &out.dropped {
            seen[id as usize] |= 2;
        }
        for &id in &out.given_up {
            seen[id as usize] |= 4;
        }
        prop_assert!(seen.iter().all(|&s| s != 0), "a packet was neither passed up, dropped nor given up");
        prop_assert!(seen.iter().all(|&s| s & 5 != 5), "a given-up packet was passed up");
        prop_assert_eq!(out.duplicates, out.twin_duplicates);
        prop_assert_eq!(
            out.delivered.len() as u64 + out.ignored,
            out.twin_delivered.len() as u64
        );
    }
}

// ---------------------------------------------------------------------------------------
// Recipient::give_up, by hand
// ---------------------------------------------------------------------------------------

/// Giving up on WinStartB moves the window past it and passes up the in-order run behind
/// it. The bitmap does not change: the chip's scoreboard still waits for SNs 0 and 3.
#[test]
fn give_up_at_the_window_start_releases_the_run_behind_it() {
    let mut r = Recipient::new(0);
    for (sn, id) in [(1, 11), (2, 12), (4, 14)] {
        assert!(r.on_mpdu(sn, id).is_empty());
    }
    assert_eq!(r.block_ack(0), 0b1_0110);
    assert_eq!(r.give_up(0), [11, 12]);
    assert_eq!((r.win_start(), r.buffered()), (3, 1));
    assert_eq!(r.give_up(3), [14]);
    assert_eq!((r.win_start(), r.buffered()), (5, 0));
    assert_eq!(r.block_ack(0), 0b1_0110);
    assert_eq!((r.duplicates(), r.ignored()), (0, 0));
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

/// The reordering buffer of the wlan-bufferbloat case: SN 0 is a ping's MPDU not received
/// yet, SN 1 an MPDU carrying TCP that the driver declares lost, SNs 2 and 3 arrived (at
/// 0 and 1 ms). Declaring SN 1 lost skips SN 1 alone: the window still waits for SN 0.
fn ping_gap_then_declared_tcp() -> Recipient {
    let mut r = Recipient::new(0).with_reorder_timeout(Some(ms(100)));
    assert!(r.on_mpdu_at(ms(0), 2, 12).is_empty());
    assert!(r.on_mpdu_at(ms(1), 3, 13).is_empty());
    assert!(r.give_up(1).is_empty());
    assert_eq!((r.win_start(), r.buffered()), (0, 2));
    // The chip's scoreboard knows nothing of the declaration.
    assert_eq!(r.block_ack(0), 0b1100);
    r
}

/// Each of the reordering buffer's own rules releases the ping's gap (IEEE 802.11-2020
/// §10.25.6.6, and mac80211's reorder-release timeout); the declared SN goes with it,
/// passed up by none.
#[test]
fn a_declared_mpdu_behind_a_gap_is_skipped_alone() {
    // The ping's MPDU arrives: it goes up first, then what waited behind the declared SN.
    let mut r = ping_gap_then_declared_tcp();
    assert_eq!(r.on_mpdu_at(ms(5), 0, 10), [10, 12, 13]);
    assert_eq!((r.win_start(), r.buffered()), (4, 0));
    // The declared MPDU's late copy is acknowledged, not passed up.
    assert!(r.on_mpdu_at(ms(6), 1, 11).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (0, 1));
    assert_eq!(r.block_ack(0), 0b1111);

    // The station gives the ping up after its retry limit: its BlockAckReq (SSN 1).
    let mut r = ping_gap_then_declared_tcp();
    assert_eq!(r.on_bar(1), [12, 13]);
    assert_eq!(r.win_start(), 4);

    // No BlockAckReq: SN 2 has waited 100 ms behind the gap (mac80211's timer).
    let mut r = ping_gap_then_declared_tcp();
    assert_eq!(r.poll_timeout(), Some(ms(100)));
    assert!(r.handle_timeout(ms(99)).is_empty());
    assert_eq!(r.win_start(), 0);
    assert_eq!(r.handle_timeout(ms(100)), [12, 13]);
    assert_eq!((r.win_start(), r.poll_timeout()), (4, None));
    // The ping's copy after that is acknowledged by the chip and dropped by the driver.
    assert!(r.on_mpdu_at(ms(120), 0, 10).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (0, 1));

    // An MPDU a window ahead (SN 64) moves WinStartB to 1, past the ping's gap.
    let mut r = ping_gap_then_declared_tcp();
    assert_eq!(r.on_mpdu_at(ms(5), 64, 164), [12, 13]);
    assert_eq!((r.win_start(), r.buffered()), (4, 1));
}

/// mac80211's reorder release (net/mac80211/rx.c, `ieee80211_sta_reorder_release`): a held
/// MPDU behind a gap goes up once it has waited the timeout, with the gaps before it; the
/// walk stops at the first held MPDU behind a gap that has not, even if MPDUs after that
/// one have.
#[test]
fn reorder_timeout_releases_gaps_in_order() {
    let mut r = Recipient::new(0).with_reorder_timeout(Some(ms(100)));
    assert!(r.on_mpdu_at(ms(0), 1, 11).is_empty());
    assert!(r.on_mpdu_at(ms(0), 4, 14).is_empty());
    assert!(r.on_mpdu_at(ms(50), 3, 13).is_empty());
    assert!(r.on_mpdu_at(ms(60), 7, 17).is_empty());
    assert!(r.give_up(6).is_empty());
    // The first held MPDU after WinStartB (SN 1) sets the timer.
    assert_eq!(r.poll_timeout(), Some(ms(100)));
    // SN 1 goes up; SN 3 (50 ms) is behind the gap at SN 2 and has waited 50 ms only:
    // SN 4, which has waited 100 ms too, waits with it.
    assert_eq!(r.handle_timeout(ms(100)), [11]);
    assert_eq!((r.win_start(), r.poll_timeout()), (2, Some(ms(150))));
    // SNs 3 and 4 in order, then the gap at SN 5 stops the run. SN 6 is declared: it
    // does not open a gap, so SN 7 (60 ms) goes up behind SN 5's gap at 160 ms.
    assert_eq!(r.handle_timeout(ms(150)), [13, 14]);
    assert_eq!((r.win_start(), r.poll_timeout()), (5, Some(ms(160))));
    assert_eq!(r.handle_timeout(ms(160)), [17]);
    assert_eq!(
        (r.win_start(), r.buffered(), r.poll_timeout()),
        (8, 0, None)
    );
    // Without a timeout the buffer waits.
    let mut r = Recipient::new(0);
    assert!(r.on_mpdu_at(ms(0), 1, 11).is_empty());
    assert_eq!(r.poll_timeout(), None);
    assert!(r.handle_timeout(ms(1000)).is_empty());
}

/// A declared SN (or a gap released by a later rule) arriving intact later is not passed
/// up, but the chip records it: its bit is set, and WinStartR moves over the in-order run
/// so that a later BlockAck still reports it.
#[test]
fn given_up_mpdu_arriving_intact_is_ignored_but_acknowledged() {
    let mut r = Recipient::new(0);
    for (sn, id) in [(1, 11), (3, 13)] {
        r.on_mpdu(sn, id);
    }
    assert_eq!(r.give_up(0), [11]);
    assert_eq!(r.give_up(2), [13]);
    assert_eq!(r.win_start(), 4);
    // SN 2, declared lost.
    assert!(r.on_mpdu(2, 12).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (0, 1));
    assert_eq!(r.block_ack(0), 0b1110);
    // SN 0, declared lost.
    assert!(r.on_mpdu(0, 10).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (0, 2));
    assert_eq!(r.block_ack(0), 0b1111);
    // A second copy of SN 2 is a duplicate.
    assert!(r.on_mpdu(2, 12).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (1, 2));
    assert_eq!(r.on_mpdu(4, 14), [14]);
    assert_eq!(r.block_ack(0), 0b1_1111);
    assert_eq!(r.block_ack(2), 0b111);
}

/// Before the window, already buffered, or beyond WinEndB: nothing changes.
#[test]
fn give_up_outside_the_window_or_of_a_buffered_mpdu_changes_nothing() {
    let mut r = Recipient::new(0);
    assert_eq!(r.on_mpdu(0, 10), [10]);
    assert!(r.on_mpdu(2, 12).is_empty());
    // WinStartB = 1, WinEndB = 64.
    for sn in [0, 4095, 2049, 2, 65, 2048] {
        assert!(r.give_up(sn).is_empty(), "give_up({sn})");
        assert_eq!((r.win_start(), r.buffered()), (1, 1));
        assert_eq!(r.block_ack(0), 0b101);
    }
    assert_eq!((r.duplicates(), r.ignored()), (0, 0));
    // WinEndB itself is in the window, but SN 1 is missing before it: nothing moves.
    assert!(r.give_up(64).is_empty());
    assert_eq!((r.win_start(), r.buffered()), (1, 1));
    // SN 1 arrives: it goes up with SN 2; the window stops at SN 3.
    assert_eq!(r.on_mpdu(1, 11), [11, 12]);
    assert_eq!(r.win_start(), 3);
    // SN 64 was declared; the chip still waits for it.
    assert_eq!(r.block_ack(64), 0);
    assert_eq!((r.duplicates(), r.ignored()), (0, 0));

    // An SN a BlockAckReq moved both windows past is no longer recorded: giving up on it
    // does nothing, and a late copy is a duplicate with its bit clear.
    let mut r = Recipient::new(0);
    assert!(r.on_bar(10).is_empty());
    assert!(r.give_up(5).is_empty());
    assert_eq!(r.win_start(), 10);
    assert!(r.on_mpdu(5, 15).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (1, 0));
    assert_eq!(r.block_ack(0), 0);
}

/// The scoreboard window moves by its own rules (§10.25.6.3): an SN beyond WinEndR moves it
/// past a given-up SN that never arrived, which is then no longer recorded.
#[test]
fn scoreboard_passes_a_given_up_mpdu_after_64_later_ones() {
    let mut r = Recipient::new(0);
    assert!(r.give_up(0).is_empty());
    assert_eq!(r.win_start(), 1);
    for sn in 1..64u16 {
        assert_eq!(r.on_mpdu(sn, u64::from(sn)), [u64::from(sn)]);
    }
    // WinStartR is still 0: SN 0 could still be acknowledged.
    assert_eq!(r.block_ack(0), u64::MAX << 1);
    // SN 64 is beyond WinEndR = 63: WinStartR moves to 1, then past the run 1..=64.
    assert_eq!(r.on_mpdu(64, 64), [64]);
    assert_eq!(r.win_start(), 65);
    assert_eq!(r.block_ack(0), u64::MAX << 1);
    assert_eq!(r.block_ack(1), u64::MAX);
    assert!(r.on_mpdu(0, 0).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (1, 0));
    assert_eq!(r.block_ack(0), u64::MAX << 1);
}

/// A BlockAckReq between WinStartR and WinStartB moves the scoreboard alone.
#[test]
fn block_ack_req_behind_the_reordering_window_moves_the_scoreboard() {
    let mut r = Recipient::new(0);
    assert!(r.on_mpdu(2, 12).is_empty());
    assert!(r.give_up(1).is_empty());
    assert_eq!(r.give_up(0), [12]);
    assert_eq!(r.win_start(), 3);
    assert_eq!(r.block_ack(0), 0b100);
    // WinStartR 0 → 1; WinStartB stays 3.
    assert!(r.on_bar(1).is_empty());
    assert_eq!(r.win_start(), 3);
    // SN 0 is now before WinStartR: a duplicate, not recorded.
    assert!(r.on_mpdu(0, 10).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (1, 0));
    assert_eq!(r.block_ack(0), 0b100);
    // SN 1 is in the scoreboard window: ignored, recorded.
    assert!(r.on_mpdu(1, 11).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (1, 1));
    assert_eq!(r.block_ack(0), 0b110);
    assert_eq!(r.on_mpdu(3, 13), [13]);
    assert_eq!(r.block_ack(0), 0b1110);
}

/// Across the wrap of the sequence space.
#[test]
fn give_up_wraps_around() {
    let mut r = Recipient::new(4094);
    for (sn, id) in [(4095, 1), (0, 2), (2, 4)] {
        assert!(r.on_mpdu(sn, id).is_empty());
    }
    assert_eq!(r.give_up(4094), [1, 2]);
    assert_eq!(r.win_start(), 1);
    assert_eq!(r.give_up(1), [4]);
    assert_eq!(r.win_start(), 3);
    assert!(r.on_mpdu(4094, 0).is_empty());
    assert_eq!((r.duplicates(), r.ignored()), (0, 1));
    // 4094, 4095, 0 and 2 received; 1 not.
    assert_eq!(r.block_ack(4094), 0b1_0111);
}
