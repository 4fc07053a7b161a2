//! The 802.11 BSSs of a scenario as one [`Device`]: each BSS is a medium shared by an AP
//! and its stations ([`Bss`]); each association is two interfaces (uplink, then downlink).
//! Roaming between the BSSs (IEEE 802.11-2020 §11.3.5.4, see [`super::roaming`]) happens
//! inside the device, which tells the world when a station's link goes down and comes back
//! and when routes must follow it.

use super::ap_rx::{ApAmpdu, ApRxStrategy, SeenMpdu};
use super::bss::{self, Bss, Refused};
use super::records::{RetryOutRecord, WifiRecord, WifiRxRecord};
use super::roaming::{Membership, Roam, Roamer};
use crate::engine::{SimTime, Wake};
use crate::net::body::PROTO_TCP;
use crate::net::device::{
    Action, Device, DeviceCx, DropKind, Enqueued, IfaceId, Outgoing, QueueMeter, QueueStats,
};
use crate::net::packet::{NodeId, PacketRef};
use crate::net::qdisc::{Qdisc, Queued};
use crate::summary::{Summary, WifiSummary};

mod roam;

/// The device's wake-ups: `kind | index << 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// BSS `.0` may have a transmission to start or to end.
    Bss(u32),
    /// A station starts a roam (index into `roams`).
    RoamStart(u32),
    /// A roaming station (index into `roamers`) joins its new AP.
    RoamEnd(u32),
    /// Every AP sends a beacon: stations measure RSSI (and may roam).
    Beacon,
}

impl Token {
    fn encode(self) -> u32 {
        match self {
            Token::Bss(i) => i << 2,
            Token::RoamStart(i) => (i << 2) | 1,
            Token::RoamEnd(i) => (i << 2) | 2,
            Token::Beacon => 3,
        }
    }

    fn decode(t: u32) -> Token {
        match t & 3 {
            0 => Token::Bss(t >> 2),
            1 => Token::RoamStart(t >> 2),
            2 => Token::RoamEnd(t >> 2),
            _ => Token::Beacon,
        }
    }
}

/// Every BSS of the scenario, its associations and its roaming stations.
pub struct WifiDevice {
    /// The first interface (association 0's uplink).
    first: IfaceId,
    bsses: Vec<Bss>,
    /// Per BSS, the AP's receive strategy, if any ([`super::ap_rx`]).
    ap_rx: Vec<Option<Box<dyn ApRxStrategy>>>,
    wakes: Vec<Wake>,
    /// Per BSS, the member names and nodes (AP first).
    names: Vec<Vec<String>>,
    nodes: Vec<Vec<NodeId>>,
    /// Per BSS, the index of its first association.
    base: Vec<u32>,
    /// Per association: (BSS, station entity from 1) and whether routes use it now.
    associations: Vec<(usize, usize)>,
    active: Vec<bool>,
    roamers: Vec<Roamer>,
    roams: Vec<Roam>,
    /// Per interface (port), what its sender holds for that peer: in its qdisc, queued in
    /// its MAC, or held by its Block Ack originator until acknowledged or dropped.
    queues: Vec<QueueMeter>,
    /// Per interface (port), the sender's qdisc in front of its MAC queue, if any.
    qdiscs: Vec<Option<Qdisc>>,
    /// Buffers kept from one wake-up to the next, so that a BSS's wake-up allocates
    /// nothing: its outcome, and the interfaces whose queue changed.
    spare: bss::Outcome,
    changed: Vec<IfaceId>,
}

/// Where the device starts: its BSSs, their member names, the associations in interface
/// order with the station's starting one flagged, roamers and scheduled roams.
pub struct WifiSetup {
    pub first: IfaceId,
    pub bsses: Vec<Bss>,
    /// Per BSS, the AP's receive strategy, if any (its BSS must observe what it receives:
    /// [`Bss::observe_rx`]).
    pub ap_rx: Vec<Option<Box<dyn ApRxStrategy>>>,
    pub names: Vec<Vec<String>>,
    pub nodes: Vec<Vec<NodeId>>,
    pub associations: Vec<(usize, usize)>,
    pub active: Vec<bool>,
    pub roamers: Vec<Roamer>,
    pub scheduled: Vec<(SimTime, Roam)>,
    /// Whether beacons run (the `rssi` trace is recorded or a station roams on RSSI).
    pub beacons: bool,
    /// Per interface, in interface order, the sender's qdisc, if any.
    pub qdiscs: Vec<Option<Qdisc>>,
}

impl WifiDevice {
    /// The device, and its first wake-ups (scheduled roams, the first beacon).
    pub fn new(setup: WifiSetup) -> (WifiDevice, Vec<Action>) {
        let mut base = Vec::with_capacity(setup.bsses.len());
        for (a, &(b, k)) in setup.associations.iter().enumerate() {
            if k == 1 {
                debug_assert_eq!(base.len(), b);
                base.push(a as u32);
            }
        }
        let mut actions = Vec::new();
        let mut roams = Vec::with_capacity(setup.scheduled.len());
        for (at, roam) in setup.scheduled {
            let token = Token::RoamStart(roams.len() as u32).encode();
            actions.push(Action::Wake { at, token });
            roams.push(roam);
        }
        if setup.beacons {
            actions.push(Action::Wake {
                at: SimTime::ZERO,
                token: Token::Beacon.encode(),
            });
        }
        let setup_associations = setup.associations.len();
        let mut bsses = setup.bsses;
        for (&(b, k), &starts_here) in setup.associations.iter().zip(&setup.active) {
            if !starts_here {
                bsses[b].disassociate(k);
            }
        }
        let device = WifiDevice {
            first: setup.first,
            wakes: vec![Wake::default(); bsses.len()],
            bsses,
            ap_rx: setup.ap_rx,
            names: setup.names,
            nodes: setup.nodes,
            base,
            associations: setup.associations,
            active: setup.active,
            roamers: setup.roamers,
            roams,
            queues: vec![QueueMeter::default(); 2 * setup_associations],
            qdiscs: setup.qdiscs,
            spare: bss::Outcome::default(),
            changed: Vec::new(),
        };
        (device, actions)
    }

    /// The interface from member `from` to member `to` of BSS `b`.
    fn iface(&self, b: usize, from: usize, to: usize) -> IfaceId {
        let a = self.base[b] + (from.max(to) as u32 - 1);
        IfaceId(self.first.0 + 2 * a + u32::from(from == 0))
    }

    /// BSS, sender and receiver of interface `port` (uplink ports are even).
    fn ends(&self, port: u32) -> (usize, usize, usize) {
        let (b, k) = self.associations[port as usize / 2];
        if port.is_multiple_of(2) {
            (b, k, 0)
        } else {
            (b, 0, k)
        }
    }

    /// Moves packets from the qdisc of interface `iface` into its sender's MAC queue while
    /// that has room, as a Linux driver dequeues from the interface's qdisc when it wakes
    /// its queue; a packet the qdisc's AQM drops on the way (CoDel, RFC 8289 §5.5) leaves
    /// the device.
    fn refill(&mut self, now: SimTime, iface: IfaceId, cx: &mut DeviceCx<'_>) {
        let port = iface.0 - self.first.0;
        let (b, from, to) = self.ends(port);
        let Some(qdisc) = self.qdiscs[port as usize].as_mut() else {
            return;
        };
        let (mut dropped, mut dropped_too) = (Vec::new(), Vec::new());
        while self.bsses[b].has_room(from) {
            let Some(q) = qdisc.dequeue(now, &mut dropped) else {
                break;
            };
            let uid = cx.pool.get(q.packet).uid;
            match self.bsses[b].enqueue(now, from, to, q.packet, uid, q.size) {
                Ok(()) => {
                    cx.push(Action::EnteredDriver { iface, p: q.packet });
                    cx.push(Action::Transmit { iface, p: q.packet });
                }
                // The peer left: the packet cannot be sent (as `enqueue` refuses it).
                Err(_) => dropped_too.push(q),
            }
        }
        let aqm = dropped.into_iter().map(|q| (q, "aqm", DropKind::Aqm));
        let gone = dropped_too
            .into_iter()
            .map(|q| (q, "disassociated", DropKind::Loss));
        for (q, reason, kind) in aqm.chain(gone) {
            self.queues[port as usize].remove(now, 1, u64::from(q.size));
            cx.push(Action::LeftFirstHop { iface, p: q.packet });
            cx.push(Action::Drop {
                iface,
                p: q.packet,
                reason,
                kind,
            });
        }
    }

    /// What the sender of interface `iface` holds for its peer.
    fn queue_mut(&mut self, iface: IfaceId) -> &mut QueueMeter {
        &mut self.queues[(iface.0 - self.first.0) as usize]
    }

    /// Packet `p` left the MAC of interface `iface` at `now` (acknowledged, dropped or moved
    /// away); `changed` collects the interfaces whose queue trace must hear of it.
    fn left_mac(
        &mut self,
        now: SimTime,
        iface: IfaceId,
        p: PacketRef,
        changed: &mut Vec<IfaceId>,
        cx: &mut DeviceCx<'_>,
    ) {
        let bytes = u64::from(cx.pool.get(p).size());
        self.queue_mut(iface).remove(now, 1, bytes);
        if !changed.contains(&iface) {
            changed.push(iface);
        }
        cx.push(Action::LeftDriver { iface, p });
    }

    /// The AP's receive strategy of BSS `b` looks at the A-MPDUs its stations sent; each
    /// MPDU it declares lost is given up (traced), and what that releases is delivered
    /// after what the BSS delivered.
    fn ap_receive(
        &mut self,
        now: SimTime,
        b: usize,
        out: &mut bss::Outcome,
        cx: &mut DeviceCx<'_>,
    ) {
        let Some(strategy) = self.ap_rx[b].as_mut() else {
            return;
        };
        let bss = &mut self.bsses[b];
        for a in out.received.iter().filter(|a| a.to == 0) {
            let Some(win_start) = bss.reorder_start(0, a.from) else {
                continue;
            };
            let mpdus: Vec<SeenMpdu> = a
                .mpdus
                .iter()
                .map(|m| {
                    let protocol = cx.pool.get(m.packet).body.ip_proto();
                    SeenMpdu {
                        sn: m.sn_read(),
                        fcs_ok: m.fcs_ok,
                        tcp: m.protocol_read(protocol) == PROTO_TCP,
                        sent: (m.sn, protocol == PROTO_TCP),
                    }
                })
                .collect();
            let declared = strategy.on_ampdu(&ApAmpdu {
                station: a.from,
                rate_bps: a.rate_bps,
                win_start,
                mpdus: &mpdus,
            });
            for d in declared {
                cx.traces.record(&RetryOutRecord {
                    time: now,
                    bss: &bss.name,
                    station: &self.names[b][a.from],
                    sn: u32::from(d.sn),
                    failures: d.failures,
                    index: d.index,
                    ewma_mbps: d.ewma_bps / 1e6,
                });
                out.delivered.extend(bss.give_up(0, a.from, d.sn).delivered);
            }
        }
    }

    /// Acts on what a BSS did: the AP's receive strategy first, then MAC-acknowledged
    /// packets free their sender's TCP Small Queues budget, received ones go on from the
    /// receiver, dropped ones are dropped.
    fn outcome(&mut self, now: SimTime, b: usize, out: &mut bss::Outcome, cx: &mut DeviceCx<'_>) {
        self.ap_receive(now, b, out, cx);
        let mut changed = std::mem::take(&mut self.changed);
        changed.clear();
        for &(from, to, p) in &out.acked {
            let iface = self.iface(b, from, to);
            self.left_mac(now, iface, p, &mut changed, cx);
        }
        for &(from, to, p) in &out.delivered {
            let iface = self.iface(b, from, to);
            cx.push(Action::Arrive { at: now, iface, p });
        }
        let drops = [
            (&out.dropped, "retry-limit"),
            (&out.expired, "lifetime"),
            (&out.disassociated, "disassociated"),
        ];
        for (packets, reason) in drops {
            for &(from, to, p) in packets {
                let iface = self.iface(b, from, to);
                self.left_mac(now, iface, p, &mut changed, cx);
                cx.push(Action::Drop {
                    iface,
                    p,
                    reason,
                    kind: DropKind::Loss,
                });
            }
        }
        for &iface in &changed {
            self.refill(now, iface, cx);
            cx.push(Action::QueueChanged { iface });
        }
        self.changed = changed;
        let names = &self.names[b];
        let bss = &self.bsses[b];
        for r in &out.transmissions {
            cx.traces.record(&WifiRecord {
                time: r.start,
                bss: &bss.name,
                from: &names[r.entity],
                to: &names[r.peer],
                kind: r.kind,
                rate_mbps: r.rate_bps / 1e6,
                mcs: r.mcs.map(f64::from),
                mpdus: r.mpdus,
                acked: r.acked,
                collision: r.collision,
                snr_db: r.snr_db,
                probe: r.probe,
                dropped: r.dropped,
                series_end: r.series_end,
            });
        }
        if cx.traces.wants::<WifiRxRecord>() {
            for a in &out.received {
                for m in &a.mpdus {
                    cx.traces.record(&WifiRxRecord {
                        time: a.start,
                        bss: &bss.name,
                        from: &names[a.from],
                        to: &names[a.to],
                        sn: u32::from(m.sn),
                        sn_read: u32::from(m.sn_read()),
                        fcs_ok: m.fcs_ok,
                        rate_mbps: a.rate_bps / 1e6,
                    });
                }
            }
        }
        self.arm(now, b, cx);
    }

    /// Keeps one wake-up queued for BSS `b` at the time it next needs one.
    fn arm(&mut self, now: SimTime, b: usize, cx: &mut DeviceCx<'_>) {
        if let Some(t) = self.bsses[b].next_wake() {
            if let Some(at) = self.wakes[b].arm(now, t) {
                let token = Token::Bss(b as u32).encode();
                cx.push(Action::Wake { at, token });
            }
        }
    }
}

impl Device for WifiDevice {
    fn enqueue(&mut self, now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued {
        let (iface, port, p, pkt) = (out.iface, out.port, out.p, out.pkt);
        let (b, from, to) = self.ends(port);
        if from != 0 && !self.bsses[b].is_associated(from) {
            // A roaming station with countermeasure D discards its stale frames first.
            let m = Membership {
                bss: b,
                entity: from,
                association: port as usize / 2,
            };
            let roaming = self
                .roamers
                .iter()
                .find(|r| r.joining.is_some() && r.memberships[r.current] == m);
            if let Some(deadline) = roaming.and_then(|r| r.deadline) {
                self.discard_stale(now, m, deadline, cx);
            }
        }
        if let Some(qdisc) = self.qdiscs[port as usize].as_mut() {
            // Behind packets already waiting, or in front of a full MAC queue: the qdisc.
            if qdisc.packets() > 0 || !self.bsses[b].has_room(from) {
                let size = pkt.size();
                qdisc.enqueue(Queued {
                    packet: p,
                    size,
                    enqueued_at: now,
                })?;
                self.queues[port as usize].add(now, 1, u64::from(size));
                cx.push(Action::QueueChanged { iface });
                return Ok(());
            }
        }
        self.bsses[b]
            .enqueue(now, from, to, p, pkt.uid, pkt.size())
            .map_err(|why| match why {
                Refused::QueueFull => "queue",
                Refused::NotAssociated => "disassociated",
            })?;
        self.queues[port as usize].add(now, 1, u64::from(pkt.size()));
        cx.push(Action::QueueChanged { iface });
        cx.push(Action::EnteredDriver { iface, p });
        cx.push(Action::Transmit { iface, p });
        self.arm(now, b, cx);
        Ok(())
    }

    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        match Token::decode(token) {
            Token::Bss(b) => {
                let b = b as usize;
                if self.wakes[b].fire(now) {
                    let mut out = std::mem::take(&mut self.spare);
                    self.bsses[b].wake_into(now, &mut out);
                    self.outcome(now, b, &mut out, cx);
                    out.clear();
                    // What `take` left in its place holds no buffer: dropping it would
                    // only cost the checks.
                    std::mem::forget(std::mem::replace(&mut self.spare, out));
                }
            }
            Token::RoamStart(i) => self.roam_start(now, i, cx),
            Token::RoamEnd(r) => self.roam_end(now, r as usize, cx),
            Token::Beacon => self.beacon(now, cx),
        }
    }

    fn queue_len(&self, port: u32) -> (usize, u64) {
        let q = &self.queues[port as usize];
        (q.packets, q.bytes)
    }

    fn queue_stats(&self, port: u32) -> QueueStats {
        self.queues[port as usize].stats.clone()
    }

    fn close(&mut self, end: SimTime) {
        for q in &mut self.queues {
            q.account(end);
        }
    }

    fn usable(&self, port: u32) -> bool {
        self.active[port as usize / 2]
    }

    fn rssi_dbm(&mut self, node: NodeId, now: SimTime) -> Option<f64> {
        let (b, k) = self.nodes.iter().enumerate().find_map(|(b, nodes)| {
            let k = nodes.iter().skip(1).position(|&n| n == node)? + 1;
            self.bsses[b].is_associated(k).then_some((b, k))
        })?;
        Some(self.bsses[b].radio.rssi_dbm(0, k, now))
    }

    fn report(&self, end: SimTime, summary: &mut Summary) {
        for b in &self.bsses {
            let c = &b.counters;
            let row = WifiSummary {
                ppdus: c.ppdus,
                collisions: c.collisions,
                mpdus_sent: c.mpdus_sent,
                mpdus_failed: c.mpdus_failed,
                dropped_retry_limit: c.dropped_retry,
                dropped_queue_full: c.dropped_queue,
                dropped_lifetime: c.dropped_lifetime,
                airtime: c.busy.min(end).as_nanos() as f64 / end.as_nanos().max(1) as f64,
            };
            summary.wifi.insert(b.name.clone(), row);
        }
    }
}
