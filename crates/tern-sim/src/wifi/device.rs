//! The 802.11 BSSs of a scenario as one [`Device`]: each BSS is a medium shared by an AP
//! and its stations ([`Bss`]); each association is two interfaces (uplink, then downlink).
//! Roaming between the BSSs (IEEE 802.11-2020 §11.3.5.4, see [`super::roaming`]) happens
//! inside the device, which tells the world when a station's link goes down and comes back
//! and when routes must follow it.

use super::ap_rx::{ApAmpdu, ApRxStrategy, SeenMpdu};
use super::bss::{self, Bss, Refused};
use super::roaming::{Membership, Roam, Roamer, BEACON_INTERVAL};
use crate::engine::{SimTime, Wake};
use crate::net::device::{Action, Device, DeviceCx, DropKind, IfaceId, QueueMeter, QueueStats};
use crate::net::packet::{Body, NodeId, Packet, PacketRef};
use crate::net::qdisc::{Qdisc, Queued};
use crate::summary::{Summary, WifiSummary};
use crate::trace::{RetryOutRecord, RoamingRecord, RssiRecord, WifiRecord, WifiRxRecord};

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
                Ok(()) => cx.push(Action::Transmit { iface, p: q.packet }),
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
        cx.push(Action::LeftFirstHop { iface, p });
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
                .map(|m| SeenMpdu {
                    sn: m.sn,
                    fcs_ok: m.fcs_ok,
                    tcp: matches!(cx.pool.get(m.packet).body, Body::Tcp(_)),
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
    fn outcome(&mut self, now: SimTime, b: usize, mut out: bss::Outcome, cx: &mut DeviceCx<'_>) {
        self.ap_receive(now, b, &mut out, cx);
        let mut changed = Vec::new();
        for (from, to, p) in out.acked {
            let iface = self.iface(b, from, to);
            self.left_mac(now, iface, p, &mut changed, cx);
        }
        for (from, to, p) in out.delivered {
            let iface = self.iface(b, from, to);
            cx.push(Action::Arrive { at: now, iface, p });
        }
        let drops = [
            (out.dropped, "retry-limit"),
            (out.expired, "lifetime"),
            (out.disassociated, "disassociated"),
        ];
        for (packets, reason) in drops {
            for (from, to, p) in packets {
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
        for iface in changed {
            self.refill(now, iface, cx);
            cx.push(Action::QueueChanged { iface });
        }
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

    /// A station leaves its AP to roam (once no frame exchange of its own is on the air).
    fn roam_start(&mut self, now: SimTime, i: u32, cx: &mut DeviceCx<'_>) {
        let roam = self.roams[i as usize];
        let r = &self.roamers[roam.roamer];
        if r.joining.is_some() || r.current == roam.to {
            return; // Already roaming, or already there.
        }
        let from = r.memberships[r.current];
        if let Some(end) = self.bsses[from.bss].exchange_of(from.entity) {
            let token = Token::RoamStart(i).encode();
            cx.push(Action::Wake { at: end, token });
            return;
        }
        let rssi = self.bsses[from.bss].radio.rssi_dbm(0, from.entity, now);
        let out = self.bsses[from.bss].disassociate(from.entity);
        let target = r.memberships[roam.to].bss;
        let node = r.node;
        self.roamers[roam.roamer].joining = Some(roam.to);
        self.roamers[roam.roamer].deadline = roam.deadline;
        cx.push(Action::Wake {
            at: now + roam.disconnect,
            token: Token::RoamEnd(roam.roamer as u32).encode(),
        });
        let current = self.roamers[roam.roamer].current;
        self.trace_roam(now, roam.roamer, "left", (current, roam.to), rssi, cx);
        self.outcome(now, from.bss, out, cx);
        // The station has the BSS Load of the AP it joins from its beacons (it hears them:
        // it measures their RSSI, [`WifiDevice::beacon`]).
        if let Some(load) = self.bsses[target].bss_load() {
            cx.push(Action::BssLoad(node, load));
        }
        cx.push(Action::LinkDown(node));
    }

    /// A roaming station joins its new AP, bringing the frames it kept; routes follow it.
    fn roam_end(&mut self, now: SimTime, r: usize, cx: &mut DeviceCx<'_>) {
        let roamer = &mut self.roamers[r];
        let to = roamer.joining.take().expect("roaming");
        let left = roamer.current;
        let (old, new): (Membership, Membership) =
            (roamer.memberships[left], roamer.memberships[to]);
        roamer.current = to;
        if let Some(deadline) = roamer.deadline.take() {
            self.discard_stale(now, old, deadline, cx);
        }
        let frames = self.bsses[old.bss].take_frames(old.entity);
        let size = |p: PacketRef| u64::from(cx.pool.get(p).size());
        let (moved, moved_bytes) = (frames.len(), frames.iter().map(|f| size(f.packet())).sum());
        let overflow = self.bsses[new.bss].associate(now, new.entity, frames);
        let overflow_bytes: u64 = overflow.iter().map(|f| size(f.packet())).sum();
        let (old_iface, iface) = (
            self.iface(old.bss, old.entity, 0),
            self.iface(new.bss, new.entity, 0),
        );
        // The frames leave the old association's queue; those kept join the new one's.
        self.queue_mut(old_iface).remove(now, moved, moved_bytes);
        self.queue_mut(iface)
            .add(now, moved - overflow.len(), moved_bytes - overflow_bytes);
        cx.push(Action::QueueChanged { iface: old_iface });
        cx.push(Action::QueueChanged { iface });
        drop_frames(&overflow, iface, "queue", cx);
        self.active[old.association] = false;
        self.active[new.association] = true;
        cx.push(Action::Reroute);
        let rssi = self.bsses[new.bss].radio.rssi_dbm(0, new.entity, now);
        self.trace_roam(now, r, "joined", (left, to), rssi, cx);
        self.arm(now, new.bss, cx);
        cx.push(Action::LinkUp(self.roamers[r].node));
    }

    /// Beacons: every station measures the RSSI of each AP it may join; the `rssi` trace
    /// records it, and RSSI-triggered roams start.
    fn beacon(&mut self, now: SimTime, cx: &mut DeviceCx<'_>) {
        cx.push(Action::Wake {
            at: now + BEACON_INTERVAL,
            token: Token::Beacon.encode(),
        });
        if cx.traces.wants::<RssiRecord>() {
            for (b, bss) in self.bsses.iter_mut().enumerate() {
                for k in 1..self.names[b].len() {
                    let rssi_dbm = bss.radio.rssi_dbm(0, k, now);
                    cx.traces.record(&RssiRecord {
                        time: now,
                        station: &self.names[b][k],
                        bss: &bss.name,
                        rssi_dbm,
                        associated: bss.is_associated(k),
                    });
                }
            }
        }
        for r in 0..self.roamers.len() {
            let roamer = &self.roamers[r];
            let Some(trigger) = roamer.trigger else {
                continue;
            };
            if roamer.joining.is_some() {
                continue;
            }
            let current = roamer.current;
            let bsses = &mut self.bsses;
            let mut rssi = |m: &Membership| bsses[m.bss].radio.rssi_dbm(0, m.entity, now);
            let here = rssi(&roamer.memberships[current]);
            let others: Vec<(usize, f64)> = roamer
                .memberships
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != current)
                .map(|(i, m)| (i, rssi(m)))
                .collect();
            if let Some(to) = trigger.decide(here, &others) {
                self.roams.push(Roam {
                    roamer: r,
                    to,
                    disconnect: trigger.disconnect,
                    deadline: trigger.deadline,
                });
                self.roam_start(now, self.roams.len() as u32 - 1, cx);
            }
        }
    }

    /// Countermeasure D of the tfrc-handover study ([`crate::wifi::roaming::Roam::deadline`]):
    /// the departed station of membership `m` discards the frames that entered its MAC
    /// queue more than `deadline` ago (drop reason "deadline").
    fn discard_stale(
        &mut self,
        now: SimTime,
        m: Membership,
        deadline: SimTime,
        cx: &mut DeviceCx<'_>,
    ) {
        let stale = self.bsses[m.bss].discard_older(m.entity, now, deadline);
        if stale.is_empty() {
            return;
        }
        let iface = self.iface(m.bss, m.entity, 0);
        let bytes = stale
            .iter()
            .map(|f| u64::from(cx.pool.get(f.packet()).size()))
            .sum();
        self.queue_mut(iface).remove(now, stale.len(), bytes);
        cx.push(Action::QueueChanged { iface });
        drop_frames(&stale, iface, "deadline", cx);
    }

    /// A `roaming` trace row; `from` and `to` are memberships of roamer `r`.
    fn trace_roam(
        &self,
        now: SimTime,
        r: usize,
        event: &str,
        (from, to): (usize, usize),
        rssi_dbm: f64,
        cx: &mut DeviceCx<'_>,
    ) {
        let roamer = &self.roamers[r];
        let name = |m: usize| self.bsses[roamer.memberships[m].bss].name.as_str();
        cx.traces.record(&RoamingRecord {
            time: now,
            station: &roamer.name,
            event,
            from_bss: name(from),
            to_bss: name(to),
            rssi_dbm,
        });
    }
}

impl Device for WifiDevice {
    fn enqueue(
        &mut self,
        now: SimTime,
        iface: IfaceId,
        port: u32,
        p: PacketRef,
        pkt: &Packet,
        cx: &mut DeviceCx<'_>,
    ) -> Result<(), &'static str> {
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
        cx.push(Action::Transmit { iface, p });
        self.arm(now, b, cx);
        Ok(())
    }

    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        match Token::decode(token) {
            Token::Bss(b) => {
                let b = b as usize;
                if self.wakes[b].fire(now) {
                    let out = self.bsses[b].wake(now);
                    self.outcome(now, b, out, cx);
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

/// Frames a station's MAC let go of without sending them leave its first hop and are
/// dropped there for `reason`.
fn drop_frames(frames: &[bss::Frame], iface: IfaceId, reason: &'static str, cx: &mut DeviceCx<'_>) {
    for f in frames {
        let p = f.packet();
        cx.push(Action::LeftFirstHop { iface, p });
        cx.push(Action::Drop {
            iface,
            p,
            reason,
            kind: DropKind::Queue,
        });
    }
}
