//! HT-immediate Block Ack end to end: a stream of MPDUs goes Originator → lossy channel →
//! Recipient, with BlockAcks lost too, and what comes out of the reordering buffer is checked
//! against what went in.

use proptest::prelude::*;
use tern_sim::wifi::blockack::{sn_offset, Originator, Recipient};

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

/// What came out of one run.
struct Run {
    delivered: Vec<u64>,
    dropped: Vec<u64>,
}

/// Packets 0..mpdus arrive in random bursts; each round sends one A-MPDU (random byte
/// budget through `fits`), loses MPDUs and the BlockAck independently, and hands any
/// BlockAckReq to the recipient.
fn run(l: &Link, retry_limit: u32) -> Run {
    let mut draws = Draws(l.seed);
    let mut o = Originator::with_ssn(l.ssn, l.win_size, retry_limit);
    let mut r = Recipient::new(l.ssn);
    let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
    let mut arrived = 0;
    for _round in 0..1_000_000 {
        let burst = draws.upto(100).min(l.mpdus - arrived);
        for id in arrived..arrived + burst {
            o.enqueue(id);
        }
        arrived += burst;
        if o.is_empty() && arrived == l.mpdus {
            assert_eq!(r.buffered(), 0, "recipient still holds MPDUs");
            return Run { delivered, dropped };
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
            if !draws.chance(l.mpdu_loss) {
                delivered.extend(r.on_mpdu(sn, id));
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
            o.on_block_ack(start, r.block_ack(start))
        };
        assert_eq!(out.win_start, o.win_start());
        assert_eq!(o.in_flight(), 0);
        dropped.extend(out.dropped);
        if let Some(ssn) = out.bar {
            delivered.extend(r.on_bar(ssn));
        }
    }
    panic!("did not finish");
}

proptest! {
    /// Retries never run out: every packet is delivered exactly once, in order.
    #[test]
    fn blockack_delivers_everything_in_order(l in link()) {
        let out = run(&l, u32::MAX);
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
        let out = run(&l, retry_limit);
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
}
