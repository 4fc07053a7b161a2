//! The packet path: a packet handed to a node is delivered there or sent on by the
//! interface its route names; arrivals, drops, captures and queue records.

use super::World;
use crate::engine::SimTime;
use crate::net::device::{DevId, DeviceCx, IfaceId, Outgoing};
use crate::net::packet::{NodeId, PacketRef, Pin};
use crate::net::qdisc::OUT_OF_MEMORY;
use crate::trace::{DropRecord, QueueRecord};
use crate::transport::small_queues::Passage;
use crate::transport::{Arrival, Side};

/// The interface of a packet enqueued on a port to the real world: none of the scenario's
/// (a port never refuses a packet nor names an interface in its actions).
const OUTSIDE: IfaceId = IfaceId(u32::MAX);

impl World {
    /// Hands packet `p` to node `at`: delivers it there or sends it on by the interface its
    /// route names. Returns whether the packet was accepted (not refused at a full queue).
    ///
    /// A packet for a node outside the world (a real node of an emulation) is enqueued at
    /// its destination on the node's port ([`crate::emu::Port`]), as on the device of a
    /// link; one for any other node goes to its flow's transport there.
    pub(super) fn forward(&mut self, now: SimTime, at: NodeId, p: PacketRef) -> bool {
        let pkt = self.pool.get(p);
        if pkt.dst == at {
            if let Some(&Some(d)) = self.outside.get(at.0 as usize) {
                self.leave(now, d, at, p);
                return true;
            }
            let flow = &self.flows[pkt.flow.0 as usize];
            let side = if pkt.dst == flow.dst {
                Side::Server
            } else {
                Side::Client
            };
            self.transport_call_with(now, pkt.flow, |t, io, pool| {
                t.handle_packet(now, side, Arrival::pooled(pool, p), io);
                // Freed before the commands are carried out, unless moved out.
                pool.discard(p);
            });
            return true;
        }
        let i = match pkt.pin {
            Pin { first: Some(i), .. } if at == pkt.src => Some(i),
            Pin { last: Some(i), .. } if at == self.ifaces[i.0 as usize].from => Some(i),
            Pin { last: Some(i), .. } => self.routes.next_hop(at, self.ifaces[i.0 as usize].from),
            _ => self.routes.next_hop(at, pkt.dst),
        };
        let Some(i) = i else {
            self.pool.take(p);
            self.unroutable += 1;
            return false;
        };
        let (d, port) = {
            let iface = &self.ifaces[i.0 as usize];
            (iface.device, iface.port)
        };
        let start = self.actions.len();
        let mut cx = DeviceCx {
            actions: &mut self.actions,
            traces: &mut self.traces,
            pool: &self.pool,
        };
        let out = Outgoing {
            iface: i,
            port,
            p,
            pkt,
        };
        let result = self.devices[d.0 as usize].enqueue(now, out, &mut cx);
        self.act(now, d, start);
        match result {
            Ok(()) => true,
            Err(OUT_OF_MEMORY) => {
                // Not a drop of the scenario's: the run stops at the next check.
                self.pool.mark_exhausted();
                self.pool.release(p);
                false
            }
            Err(reason) => {
                self.ifaces[i.0 as usize].stats.drops_queue += 1;
                self.drop_packet(now, i, p, reason);
                false
            }
        }
    }

    /// Packet `p` reached node `at`, which is outside the world: it is enqueued on the node's
    /// port `d`, as on any device, the node's index naming the port (a port never refuses a
    /// packet).
    #[inline(never)]
    fn leave(&mut self, now: SimTime, d: DevId, at: NodeId, p: PacketRef) {
        self.device_call(now, d, |port, cx| {
            let pool = cx.pool;
            let out = Outgoing {
                iface: OUTSIDE,
                port: at.0,
                p,
                pkt: pool.get(p),
            };
            let taken = port.enqueue(now, out, cx);
            debug_assert!(taken.is_ok(), "a port never refuses a packet");
        });
    }

    /// TCP Small Queues: a packet passed `passage` in its sender's first-hop device (left it
    /// serialized, acknowledged or dropped there, or entered or left its 802.11 MAC queue).
    /// Its sender's account gives its room back if its charge ends there and says whether
    /// the transport may send more (Linux `tcp_wfree` scheduling `tcp_tsq_handler` for a
    /// throttled socket).
    pub(super) fn first_hop_passage(
        &mut self,
        now: SimTime,
        i: IfaceId,
        p: PacketRef,
        passage: Passage,
    ) {
        let pkt = self.pool.get(p);
        let (f, key) = (pkt.flow, pkt.key);
        // A real host's packet between real nodes is of no flow.
        let Some(flow) = self.flows.get_mut(f.0 as usize) else {
            return;
        };
        if self.ifaces[i.0 as usize].from != pkt.src {
            return;
        }
        let side = if pkt.src == flow.src {
            Side::Client
        } else {
            Side::Server
        };
        if flow.queues.passed(key, side, pkt.size(), passage) {
            self.transport_call(now, f, |t, io| t.first_hop_room(now, side, key, io));
        }
    }

    pub(super) fn arrive(&mut self, now: SimTime, i: IfaceId, p: PacketRef) {
        let iface = &self.ifaces[i.0 as usize];
        let (d, port, to) = (iface.device, iface.port, iface.to);
        if iface.arrival_loss && self.devices[d.0 as usize].lost_on_arrival(now, port) {
            self.ifaces[i.0 as usize].stats.drops_loss += 1;
            self.drop_packet(now, i, p, "loss");
            return;
        }
        self.ifaces[i.0 as usize].stats.delivered_packets += 1;
        self.forward(now, to, p);
    }

    pub(super) fn drop_packet(&mut self, now: SimTime, i: IfaceId, p: PacketRef, reason: &str) {
        let pkt = self.pool.take(p);
        if self.traces.wants::<DropRecord>() {
            let iface = &self.ifaces[i.0 as usize];
            self.traces.record(&DropRecord {
                time: now,
                link: &iface.link,
                direction: iface.dir.as_str(),
                reason,
                flow: match self.flows.get(pkt.flow.0 as usize) {
                    Some(f) => &f.name,
                    None => "emulated",
                },
                uid: pkt.uid,
                size: pkt.size(),
            });
        }
    }

    /// Writes a packet that starts leaving by interface `i` into its capture.
    pub(super) fn capture(&mut self, now: SimTime, i: IfaceId, p: PacketRef) {
        // Sizes and times were checked when the scenario was loaded, so encoding cannot
        // fail; a file that cannot be written stops the run at the next progress check.
        self.captures.write(i.0 as usize, now, self.pool.get(p));
    }

    /// Records interface `i`'s queue length (a device reports a change only when the
    /// `queue` trace is recorded). Out of line: inlined into [`World::act`]'s loop, the
    /// record's time in seconds was computed before every loop, whatever its actions.
    #[inline(never)]
    pub(super) fn trace_queue(&mut self, now: SimTime, i: IfaceId) {
        if self.traces.wants::<QueueRecord>() {
            let iface = &self.ifaces[i.0 as usize];
            let (packets, bytes) = self.devices[iface.device.0 as usize].queue_len(iface.port);
            self.traces.record(&QueueRecord {
                time: now,
                link: &iface.link,
                direction: iface.dir.as_str(),
                packets: packets as u64,
                bytes,
            });
        }
    }
}
