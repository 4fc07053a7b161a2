//! TCP Small Queues (TSQ) as Linux counts it: what an endpoint's packets below TCP count
//! against its limit, and the limit itself.
//!
//! Linux charges every skb handed below TCP to the socket's `sk_wmem_alloc` with its
//! *truesize* (`tcp_transmit_skb` → `skb_set_owner_w`, net/ipv4/tcp_output.c and
//! net/core/sock.c: `atomic_add(skb->truesize, &sk->sk_wmem_alloc)`), the buffer as
//! allocated (`__alloc_skb` sizes it with `ksize()`, i.e. the kmalloc slab it came from)
//! plus the `sk_buff` itself, and gives it back when the skb is freed (`tcp_wfree`). A
//! clone keeps its original's truesize (`__skb_clone`). Linux 3.12-3.x's `tcp_write_xmit`
//! (net/ipv4/tcp_output.c) stops handing segments down once
//!
//! ```text
//! sk_wmem_alloc > max(sysctl_tcp_limit_output_bytes, sk_pacing_rate >> 10)
//! ```
//!
//! (the second term from "tcp: TSQ can use a dynamic limit", 3.12), where
//! `tcp_update_pacing_rate` (net/ipv4/tcp_input.c, called from `tcp_ack` whenever srtt
//! changed) sets `sk_pacing_rate = 2 · mss · max(snd_cwnd, packets_out) · (HZ << 3) / srtt`
//! bytes per second, srtt in jiffies << 3; an srtt of at most 10 (1.25 jiffies) is taken as
//! 1 (the division is skipped), and the rate is capped by `sk_max_pacing_rate`, ~0U, which
//! is also `sk_pacing_rate`'s value before the first RTT sample (`sock_init_data`,
//! net/core/sock.c). So the limit is the bytes the pacing rate sends in 1/1024 s when that
//! exceeds `tcp_limit_output_bytes`.
//!
//! Approximations, stated: Tern's cwnd and flight are in bytes (the kernel's `mss ·
//! snd_cwnd` and `mss · packets_out`; the flight is RFC 6675's pipe, which leaves out SACKed
//! segments that `packets_out` keeps), and its srtt is not rounded to jiffies before the
//! 1.25-jiffy test and the division.

use super::{small_queue_limit, Side, SmallQueueRoom, SMALL_QUEUE_KEYS};
use tern_proto::tcp::Connection;

/// The kernel's tick rate for srtt's unit: CONFIG_HZ = 250, the generic kernels of the
/// distributions that shipped Linux 3.13 (Ubuntu 14.04's `CONFIG_HZ_250`).
pub const HZ: u64 = 250;

/// `sk_max_pacing_rate`'s default, ~0U (bytes per second; `sock_init_data`).
pub const MAX_PACING_RATE: u64 = u32::MAX as u64;

/// TCP Small Queues of one endpoint as a scenario sets it (`tsq`, `tsq_truesize`,
/// `tsq_pacing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallQueues {
    /// `tcp_limit_output_bytes`, bytes.
    pub limit: u64,
    /// What each packet below TCP counts, bytes (Linux: its skb's truesize); 0: its IP bytes.
    pub truesize: u32,
    /// Whether the limit is raised to `sk_pacing_rate >> 10` (Linux 3.12-3.x).
    pub pacing: bool,
    /// Whether a packet's charge ends when an 802.11 MAC (driver) queue takes it, as Linux up
    /// to 3.4 orphaned the skb in `dev_hard_start_xmit` (net/core/dev.c, `skb_orphan_try`),
    /// rather than at its transmit status (`ieee80211_tx_status`, Linux 3.5 on).
    pub at_driver: bool,
}

/// Where a packet below TCP is when its device tells the account of it ([`Action`]s
/// `LeftFirstHop`, `EnteredDriver`, `LeftDriver`).
///
/// [`Action`]: crate::net::device::Action
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    /// It left its first-hop device without a driver's queue holding it (serialized on a
    /// link, dropped by the qdisc): its charge ends under either rule.
    Left,
    /// An 802.11 MAC (driver) queue took it: its charge ends if it ends at the driver.
    EnteredDriver,
    /// It left the MAC queue (transmit status, dropped there): its charge ends unless it
    /// ended when the queue took it.
    LeftDriver,
}

impl Passage {
    /// Whether the charge ends at this passage under `rule`.
    #[inline]
    pub fn ends_charge(self, rule: &SmallQueues) -> bool {
        match self {
            Passage::Left => true,
            Passage::EnteredDriver => rule.at_driver,
            Passage::LeftDriver => !rule.at_driver,
        }
    }
}

impl SmallQueues {
    /// What a packet of `ip_bytes` counts against the limit.
    pub fn charge(&self, ip_bytes: u32) -> SmallQueueRoom {
        SmallQueueRoom::from(if self.truesize > 0 {
            self.truesize
        } else {
            ip_bytes
        })
    }

    /// How far the limit lies above `limit` for `conn` now: `(sk_pacing_rate >> 10) −
    /// limit` when pacing counts and that is positive, else 0. Added to the world's room
    /// (which counts against `limit`), it gives the room against the kernel's limit.
    pub fn raise(&self, conn: &Connection) -> SmallQueueRoom {
        if !self.pacing {
            return 0;
        }
        let window = conn.cwnd().max(conn.bytes_in_flight());
        let rate = pacing_rate(window, conn.srtt().map(|s| s.as_nanos()));
        let above = (rate >> 10).saturating_sub(self.limit);
        SmallQueueRoom::try_from(above).unwrap_or(SmallQueueRoom::MAX)
    }
}

/// The Small Queues account of one flow's endpoints on their hosts: each endpoint's room
/// ([`SmallQueueRoom`]) under its flow's rule, taken when its host hands a packet to the
/// endpoint's first-hop device and given back when the packet leaves it (Linux
/// `skb_set_owner_w` and `tcp_wfree`). The world only says when those happen; the
/// arithmetic, and whether the transport must hear of new room, is here.
///
/// On an 802.11 station the charge ends at the frame's transmit status by default, not when
/// the MAC queue takes it ([`Passage`]), so the driver's frames count as the qdisc's do. Linux 3.13 keeps the
/// skb's owner through the qdisc, `dev_hard_start_xmit` (net/core/dev.c, which no longer
/// orphans early: `skb_orphan_try` went after 3.4), `ieee80211_subif_start_xmit`
/// (net/mac80211/tx.c: TCP's cloned skb gets its 802.11 header room from
/// `pskb_expand_head`, which keeps the owner) and ath9k's software and hardware queues
/// (`ath_tx_start`, drivers/net/wireless/ath/ath9k/xmit.c), until `ath_txq_unlock_complete`
/// hands the completed frame to `ieee80211_tx_status` (net/mac80211/status.c), which
/// orphans or frees it, running `tcp_wfree`. A rule with `at_driver` ends it when the MAC
/// queue takes the frame instead: Linux 3.x up to 3.4 orphaned the skb as the qdisc handed it
/// to the driver (`dev_hard_start_xmit` → `skb_orphan_try`, net/core/dev.c, for skbs that
/// asked for no transmit timestamp), so TSQ bounded the qdisc alone and the driver's frames
/// waited uncharged below it.
///
/// Endpoint `key` at `side` counts when `key` is below the flow's keys
/// ([`super::Transport::small_queues`]); its room is `rooms()[2 * key + side.index()]`.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct HostQueues {
    rooms: [SmallQueueRoom; 2 * SMALL_QUEUE_KEYS as usize],
    rule: SmallQueues,
    keys: u8,
}

/// A packet handed to its sender's first-hop device, as [`HostQueues::hand_down`] counted
/// it: the endpoint's slot and the packet's charge, to give back if the device refuses it.
#[derive(Clone, Copy, Debug)]
pub struct Charged {
    slot: usize,
    charge: SmallQueueRoom,
}

impl HostQueues {
    /// The account of a flow whose transport declares `declared` (its rule and how many keys
    /// count), every room full; none counts without a declaration.
    pub fn new(declared: Option<(SmallQueues, u8)>) -> Self {
        let (rule, keys) = declared.unwrap_or((
            SmallQueues {
                limit: 0,
                truesize: 0,
                pacing: false,
                at_driver: false,
            },
            0,
        ));
        assert!(keys <= SMALL_QUEUE_KEYS, "a flow's Small Queues keys fit");
        HostQueues {
            rooms: [small_queue_limit(rule.limit); 2 * SMALL_QUEUE_KEYS as usize],
            rule,
            keys,
        }
    }

    /// Whether a charge here ends when a driver's queue takes the packet
    /// ([`Passage::EnteredDriver`]); with none counted, no charge ends anywhere.
    pub fn ends_at_driver(&self) -> bool {
        self.keys > 0 && self.rule.at_driver
    }

    /// The rooms of the endpoints that count, for the transport's [`super::Io`].
    pub fn rooms(&self) -> &[SmallQueueRoom] {
        &self.rooms[..2 * usize::from(self.keys)]
    }

    /// The slot of endpoint `key` at `side`, if it counts.
    #[inline]
    fn slot(&self, key: u8, side: Side) -> Option<usize> {
        (key < self.keys).then(|| 2 * usize::from(key) + side.index())
    }

    /// Endpoint `key` at `side` hands a packet of `ip_bytes` to its first-hop device: its
    /// room shrinks by the packet's charge (Linux `skb_set_owner_w` in `tcp_transmit_skb`).
    /// The charge is returned, to give back with [`HostQueues::refused`] if the device
    /// refuses the packet; `None` when the endpoint does not count.
    #[inline]
    pub fn hand_down(&mut self, key: u8, side: Side, ip_bytes: u32) -> Option<Charged> {
        let slot = self.slot(key, side)?;
        let charge = self.rule.charge(ip_bytes);
        self.rooms[slot] -= charge;
        Some(Charged { slot, charge })
    }

    /// The first-hop device refused the packet [`HostQueues::hand_down`] counted: it is
    /// freed at once, its charge given back (`tcp_wfree` on the dropped skb).
    pub fn refused(&mut self, charged: Charged) {
        self.rooms[charged.slot] += charged.charge;
    }

    /// A packet of `ip_bytes` of endpoint `key` at `side` passed `passage` in its first-hop
    /// device: if its charge ends there ([`Passage::ends_charge`]), its room grows by it.
    /// Returns whether the transport must hear of it ([`super::Transport::first_hop_room`]):
    /// the endpoint was held back (no room) and now has room, or, with a moving limit
    /// (pacing), on every packet freed while it was over its limit, as `tcp_wfree` schedules
    /// `tcp_tsq_handler` for a throttled socket.
    #[inline]
    pub fn passed(&mut self, key: u8, side: Side, ip_bytes: u32, passage: Passage) -> bool {
        let Some(slot) = self.slot(key, side) else {
            return false;
        };
        if !passage.ends_charge(&self.rule) {
            return false;
        }
        let room = &mut self.rooms[slot];
        let held_back = *room < 0;
        *room += self.rule.charge(ip_bytes);
        held_back && (*room >= 0 || self.rule.pacing)
    }
}

/// Linux 3.12-3.x's `sk_pacing_rate`, bytes per second, for a window of `window` bytes
/// (mss · max(snd_cwnd, packets_out)) and a smoothed RTT of `srtt_ns` (none before the
/// first sample): 2 · window · (HZ << 3) / srtt, srtt in units of 1/(8·HZ) s, not divided
/// when srtt is at most 10 units, capped at [`MAX_PACING_RATE`].
pub fn pacing_rate(window: u64, srtt_ns: Option<u64>) -> u64 {
    let Some(srtt_ns) = srtt_ns else {
        return MAX_PACING_RATE;
    };
    let units = u128::from(srtt_ns) * u128::from(HZ << 3) / 1_000_000_000;
    let mut rate = u128::from(window) * 2 * u128::from(HZ << 3);
    if units > 10 {
        rate /= units;
    }
    u64::try_from(rate.min(u128::from(MAX_PACING_RATE))).unwrap_or(MAX_PACING_RATE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux 3.13 with the study's station: 1448 B segments, no GSO, so each skb is one
    /// linear buffer of mss + MAX_TCP_HEADER + skb_shared_info ≈ 2.1 KB from the 4096 B
    /// slab plus the 256 B sk_buff: truesize 4352 B. Against tcp_limit_output_bytes =
    /// 131072 the kernel hands down segments while sk_wmem_alloc ≤ 131072: after 30 it
    /// holds 130560 ≤ 131072, so a 31st goes (134912 > 131072) and then it stops.
    #[test]
    fn truesize_limit_is_the_kernels_arithmetic() {
        let tsq = SmallQueues {
            limit: 131_072,
            truesize: 4352,
            pacing: false,
            at_driver: false,
        };
        let mut room = 131_072i64;
        let mut sent = 0;
        while room >= 0 {
            room -= tsq.charge(1500);
            sent += 1;
        }
        assert_eq!(sent, 131_072 / 4352 + 1);
        assert_eq!(sent, 31);
        // Counted in IP bytes (1500 B each) the same limit lets 88 through.
        let ip = SmallQueues { truesize: 0, ..tsq };
        let (mut room, mut sent) = (131_072i64, 0);
        while room >= 0 {
            room -= ip.charge(1500);
            sent += 1;
        }
        assert_eq!(sent, 131_072 / 1500 + 1);
    }

    /// The account keeps Linux's rule through a hand-down, a refusal and a packet leaving:
    /// with a 3000 B limit in IP bytes, two 1500 B packets take the room to 0 (still
    /// within the limit: `sk_wmem_alloc` ≤ limit), a third to −1500 (held back); a refused
    /// packet gives its charge back; the transport hears of room only when a packet leaving
    /// takes a held-back endpoint back to 0 or more, and a key past the declared ones does
    /// not count.
    #[test]
    fn host_queues_count_as_the_kernel() {
        let rule = SmallQueues {
            limit: 3000,
            truesize: 0,
            pacing: false,
            at_driver: false,
        };
        let mut q = HostQueues::new(Some((rule, 1)));
        assert_eq!(q.rooms(), [3000, 3000]);
        q.hand_down(0, Side::Client, 1500);
        q.hand_down(0, Side::Client, 1500);
        assert_eq!(q.rooms()[0], 0);
        let third = q.hand_down(0, Side::Client, 1500).expect("counted");
        assert_eq!(q.rooms()[0], -1500);
        q.refused(third);
        assert_eq!(q.rooms()[0], 0);
        q.hand_down(0, Side::Client, 1500);
        // −1500 + 1500 = 0: held back, and within the limit again.
        assert!(q.passed(0, Side::Client, 1500, Passage::Left));
        assert!(!q.passed(0, Side::Client, 1500, Passage::Left));
        assert!(q.hand_down(1, Side::Client, 1500).is_none());
        assert!(!q.passed(1, Side::Client, 1500, Passage::Left));
        // With pacing the limit moves: every packet freed while over it is heard of.
        let paced = SmallQueues {
            pacing: true,
            ..rule
        };
        let mut q = HostQueues::new(Some((paced, 1)));
        for _ in 0..4 {
            q.hand_down(0, Side::Client, 1500);
        }
        assert_eq!(q.rooms()[0], -3000);
        assert!(q.passed(0, Side::Client, 1500, Passage::Left));
        assert_eq!(q.rooms()[0], -1500);
        assert!(HostQueues::new(None).rooms().is_empty());
    }

    /// tcp_update_pacing_rate at HZ = 250: srtt 40 ms is 40 · 250 · 8 / 1000 = 80 units;
    /// cwnd 100 segments of 1448 B: 2 · 144800 · 2000 / 80 = 7 240 000 B/s, >> 10 = 7070.
    #[test]
    fn pacing_rate_is_the_kernels_arithmetic() {
        assert_eq!(pacing_rate(144_800, Some(40_000_000)), 7_240_000);
        assert_eq!(7_240_000u64 >> 10, 7070);
        // srtt at or below 1.25 jiffies (5 ms at HZ = 250): no division.
        assert_eq!(pacing_rate(14_480, Some(5_000_000)), 2 * 14_480 * 2000);
        // 5.5 ms is 11 units: divided.
        assert_eq!(pacing_rate(14_480, Some(5_500_000)), 2 * 14_480 * 2000 / 11);
        // Before the first sample, and a huge window: ~0U.
        assert_eq!(pacing_rate(14_480, None), u64::from(u32::MAX));
        assert_eq!(pacing_rate(1 << 40, Some(40_000_000)), u64::from(u32::MAX));
        // The limit is raised only above tcp_limit_output_bytes: 131072 needs
        // 2 · window / srtt > 131072 · 1024 B/s, at 20 ms a window over 1342 KB.
        assert!(pacing_rate(1_300_000, Some(20_000_000)) >> 10 < 131_072);
        assert!(pacing_rate(1_400_000, Some(20_000_000)) >> 10 > 131_072);
    }

    /// Where the charge ends: a packet leaving without a driver's queue (a qdisc drop, a
    /// wired link) always gives it back; one an 802.11 MAC queue took gives it back once,
    /// when the queue took it under Linux ≤ 3.4's early orphaning (`at_driver`), at its
    /// transmit status otherwise (Linux 3.13). With a 3000 B limit two 1500 B packets fill
    /// the room: under `at_driver` the MAC queue taking one frees 1500 B and its transmit
    /// status nothing; under the transmit-status rule the reverse.
    #[test]
    fn the_charge_ends_once_where_the_rule_says() {
        let status = SmallQueues {
            limit: 3000,
            truesize: 0,
            pacing: false,
            at_driver: false,
        };
        let driver = SmallQueues {
            at_driver: true,
            ..status
        };
        for (rule, at_entry, at_status) in [(status, 0, 1500), (driver, 1500, 0)] {
            let mut q = HostQueues::new(Some((rule, 1)));
            q.hand_down(0, Side::Client, 1500);
            q.hand_down(0, Side::Client, 1500);
            q.passed(0, Side::Client, 1500, Passage::EnteredDriver);
            assert_eq!(q.rooms()[0], at_entry);
            q.passed(0, Side::Client, 1500, Passage::LeftDriver);
            assert_eq!(q.rooms()[0], at_entry + at_status);
            assert_eq!(at_entry + at_status, 1500, "given back exactly once");
            q.passed(0, Side::Client, 1500, Passage::Left);
            assert_eq!(q.rooms()[0], 3000);
        }
    }
}
