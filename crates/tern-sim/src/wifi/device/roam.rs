//! Roaming inside the Wi-Fi device (IEEE 802.11-2020 §11.3.5.4, see
//! [`super::super::roaming`]): a station leaves its AP (scheduled or on an RSSI trigger at a
//! beacon), is without an association for the disconnection period, then joins the new AP
//! with the frames it kept; the world hears when its link goes down and comes back.

use super::super::bss;
use super::super::roaming::{Membership, Roam, BEACON_INTERVAL};
use super::{Token, WifiDevice};
use crate::engine::SimTime;
use crate::net::device::{Action, DeviceCx, DropKind, IfaceId};
use crate::net::packet::PacketRef;
use crate::wifi::records::{RoamingRecord, RssiRecord};

impl WifiDevice {
    /// A station leaves its AP to roam (once no frame exchange of its own is on the air).
    pub(super) fn roam_start(&mut self, now: SimTime, i: u32, cx: &mut DeviceCx<'_>) {
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
        let mut out = self.bsses[from.bss].disassociate(from.entity);
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
        self.outcome(now, from.bss, &mut out, cx);
        // The station has the BSS Load of the AP it joins from its beacons (it hears them:
        // it measures their RSSI, [`WifiDevice::beacon`]).
        if let Some(load) = self.bsses[target].bss_load() {
            cx.push(Action::BssLoad(node, load.into()));
        }
        cx.push(Action::LinkDown(node));
    }

    /// A roaming station joins its new AP, bringing the frames it kept; routes follow it.
    pub(super) fn roam_end(&mut self, now: SimTime, r: usize, cx: &mut DeviceCx<'_>) {
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
    pub(super) fn beacon(&mut self, now: SimTime, cx: &mut DeviceCx<'_>) {
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
    pub(super) fn discard_stale(
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

/// Frames a station's MAC let go of without sending them leave its first hop and are
/// dropped there for `reason`.
fn drop_frames(frames: &[bss::Frame], iface: IfaceId, reason: &'static str, cx: &mut DeviceCx<'_>) {
    for f in frames {
        let p = f.packet();
        cx.push(Action::LeftDriver { iface, p });
        cx.push(Action::Drop {
            iface,
            p,
            reason,
            kind: DropKind::Queue,
        });
    }
}
