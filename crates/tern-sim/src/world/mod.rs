//! The world of one run: nodes and their interfaces, the devices behind them, the flows'
//! transports, the event queue, and the loop that drives them.
//!
//! The world knows devices only through [`Device`] and transports only through
//! [`Transport`]: it moves packets between them, runs their wake-ups, and records what
//! they report. Building a world from a scenario is [`build`]; the summary is [`report`].

pub mod build;
pub(crate) mod check;
#[cfg(target_os = "linux")]
mod realtime;
pub mod registry;
pub mod report;
pub mod topology;

use crate::emu::{Boundary, Outbox, EMULATED};
use crate::engine::{EventQueue, SimTime};
use crate::net::device::{Action, DevId, Device, DeviceCx, DropKind, Iface, IfaceId};
use crate::net::packet::{Body, FlowId, NodeId, PacketPool, PacketRef, Pin};
use crate::net::qdisc::OUT_OF_MEMORY;
use crate::net::route::Routes;
use crate::scenario::units::DataRate;
use crate::scenario::RecordKind;
use crate::summary::{EmulationSummary, Summary};
use crate::trace::{
    Captures, DropRecord, QlogFiles, QueueRecord, Table, TraceConfig, TraceError, Traces,
};
use crate::transport::small_queues::SmallQueues;
use crate::transport::{
    Arrival, Cmd, Io, LinkObserver, Side, SmallQueueRoom, Transport, SMALL_QUEUE_KEYS,
};

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A device's wake-up, with the device's own token.
    Device(DevId, u32),
    /// A packet's last bit reaches the far end of an interface.
    Arrive(IfaceId, PacketRef),
    /// A flow's application source is due.
    Tick(FlowId),
    /// A transport endpoint's wake-up: flow, endpoint key, side.
    Transport(FlowId, u8, Side),
    /// A scheduled change of an interface (index into `World::changes`).
    Change(u32),
    /// A flow's transport reads its client's RSSI.
    Rssi(FlowId),
    /// A real host's packet enters the world at its source node (emulation).
    Inject(PacketRef),
}

/// A scheduled change of one interface.
struct Change {
    iface: IfaceId,
    rate: Option<DataRate>,
    delay: Option<SimTime>,
}

/// A flow: its two nodes, its application's name, and its transport.
///
/// Laid out for the packet path: what every packet of the flow reads (its transport, its
/// nodes, whether it is pinned, its endpoints' TCP Small Queues room) is in the first cache
/// line of the flow, aligned to one; what the summary, the traces and pinned flows read
/// follows. A packet leaving its sender's first hop updates that room there, with no call
/// of the transport unless an endpoint held back has room again.
#[repr(C, align(64))]
pub(crate) struct Flow {
    pub transport: Box<dyn Transport>,
    pub src: NodeId,
    pub dst: NodeId,
    /// The station whose RSSI its transport samples ([`Cmd::SampleRssi`]): the client, or
    /// the RSSI scheduler's `station`.
    ///
    /// [`Cmd::SampleRssi`]: crate::transport::Cmd::SampleRssi
    pub radio: NodeId,
    /// How many endpoint keys count their TCP Small Queues room
    /// ([`Transport::small_queues`], asked once; 0 for a transport without).
    pub keys: u8,
    /// Whether `via` names interfaces.
    pub pinned: bool,
    /// The room of endpoint `key` at `side`, at `2 * key + side.index()`, for keys below
    /// `keys`.
    pub small_queues: [SmallQueueRoom; 2 * SMALL_QUEUE_KEYS as usize],
    /// Its endpoints' Small Queues rule (what a packet counts; whether the limit moves).
    pub tsq: SmallQueues,
    pub name: String,
    /// The interfaces the flow is pinned to, out of the client and into it: endpoint key
    /// k's are `via[k]` (a multipath QUIC flow's paths), or `via[0]` for every key when
    /// there is one (the flow's `via`); none: the routes decide.
    pub via: Box<[(IfaceId, IfaceId)]>,
    pub app: &'static str,
    pub start: SimTime,
}

impl Flow {
    /// The side whose node is `node`, if the flow has an endpoint there.
    fn side_at(&self, node: NodeId) -> Option<Side> {
        if self.src == node {
            Some(Side::Client)
        } else if self.dst == node {
            Some(Side::Server)
        } else {
            None
        }
    }
}

/// How a run ended early.
#[derive(Debug, PartialEq, Eq)]
pub enum RunError {
    /// The progress callback asked to stop (Ctrl-C).
    Interrupted { at: SimTime },
    /// The traces could not be kept: too large for memory, or a file could not be written.
    Trace { at: SimTime, error: TraceError },
    /// An emulation fell too far behind the wall clock: an event ran `late` after its due
    /// time, past the bound `bound`.
    Behind {
        at: SimTime,
        late: SimTime,
        bound: SimTime,
    },
    /// An emulation could not read or write a real node's TUN device.
    Tun { at: SimTime, error: String },
    /// The memory ran out for one more packet, `packets` being alive (queued, in service
    /// or propagating).
    Memory { at: SimTime, packets: usize },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Interrupted { at } => write!(f, "run stopped at {at}"),
            RunError::Trace { at, error } => write!(f, "run stopped at {at}: {error}"),
            RunError::Behind { at, late, bound } => write!(
                f,
                "emulation stopped at {at}: an event ran {late} late, past the bound of \
                 {bound}; the numbers of such a run would be distorted"
            ),
            RunError::Tun { at, error } => write!(f, "emulation stopped at {at}: {error}"),
            RunError::Memory { at, packets } => write!(
                f,
                "run stopped at {at}: out of memory with {packets} packets in the network; \
                 a queue whose limit is larger than the memory can hold filled up (give \
                 `queue.limit` a bound the machine can hold, or send more slowly)"
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// What a run produces.
pub struct RunOutput {
    pub summary: Summary,
    /// The trace tables, when the run kept them in memory (no output folder).
    pub tables: Vec<Table>,
    /// The trace files written, when the run had an output folder: `<table>.parquet`.
    pub trace_files: Vec<std::path::PathBuf>,
    /// The most bytes the trace tables held in memory at once.
    pub trace_peak_bytes: u64,
    /// Packet captures as pcap file contents, named `<link>.<direction>.pcap`, when the run
    /// kept them in memory (no output folder), and with them the TLS key log
    /// ([`TLS_KEY_LOG`]) that decrypts their QUIC packets; then the QUIC flows' qlog files
    /// (`<flow>.<client|server>.sqlog`), when kept in memory too.
    pub captures: Vec<(String, Vec<u8>)>,
    /// The capture files, then the qlog files, written when the run had an output folder.
    pub capture_files: Vec<std::path::PathBuf>,
}

/// The name of the key log file among a run's captures: the secrets of every QUIC flow's TLS
/// session in the NSS key log format (Wireshark's `tls.keylog_file`).
pub const TLS_KEY_LOG: &str = "tls-keys.log";

/// Progress is reported every this many events.
const PROGRESS_EVERY: u64 = 1 << 16;

pub struct World {
    seed: u64,
    end: SimTime,
    node_names: Vec<String>,
    ifaces: Vec<Iface>,
    devices: Vec<Box<dyn Device>>,
    routes: Routes,
    flows: Vec<Flow>,
    pool: PacketPool,
    queue: EventQueue<Event>,
    traces: Traces,
    /// The kinds the scenario records (for [`World::trace_to`]).
    recorded: Vec<RecordKind>,
    changes: Vec<Change>,
    /// One capture per interface, when `record` asks for "pcap".
    captures: Captures,
    /// One qlog per QUIC endpoint, when `record` asks for "qlog".
    qlogs: QlogFiles,
    /// Spare action and command buffers (calls nest: a device's action can make a
    /// transport send, whose packet enters another device).
    spare_actions: Vec<Vec<Action>>,
    spare_cmds: Vec<Vec<Cmd>>,
    /// Real hosts' packets for real nodes (emulation; untouched in a simulation).
    outbox: Outbox,
    /// Which nodes are real, and the TCP flows between Tern and real nodes (emulation;
    /// empty in a simulation).
    boundary: Boundary,
}

impl World {
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    pub fn end(&self) -> SimTime {
        self.end
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Sends the run's traces where `config` says (by default they stay in memory, up to
    /// [`DEFAULT_MAX_TRACE_MEMORY`](crate::trace::DEFAULT_MAX_TRACE_MEMORY)); with a
    /// folder, creates it and the trace files (and the capture and qlog files, which then
    /// stream into it).
    pub fn trace_to(&mut self, config: &TraceConfig) -> Result<(), TraceError> {
        let traces = Traces::new(&self.recorded, config)?;
        std::mem::replace(&mut self.traces, traces).discard();
        if let Some(dir) = &config.dir {
            self.captures.to_folder(dir)?;
            self.qlogs.to_folder(dir)?;
        }
        Ok(())
    }

    /// Runs events due in `[0, duration)`. `progress` is called now and then with the
    /// simulated time; returning `false` stops the run. A run that stops early leaves no
    /// trace file behind.
    pub fn run(mut self, progress: &mut dyn FnMut(SimTime) -> bool) -> Result<RunOutput, RunError> {
        while let Some(t) = self.queue.peek_time() {
            if t >= self.end {
                break;
            }
            let (now, event) = self.queue.pop().expect("peeked");
            self.dispatch(now, event);
            if self.queue.events_popped().is_multiple_of(PROGRESS_EVERY) {
                if let Some(packets) = self.memory_ran_out() {
                    self.discard_outputs();
                    return Err(RunError::Memory { at: now, packets });
                }
                self.count_memory();
                if let Some(error) = self.output_error() {
                    self.discard_outputs();
                    return Err(RunError::Trace { at: now, error });
                }
                if !progress(now) {
                    self.discard_outputs();
                    return Err(RunError::Interrupted { at: now });
                }
            }
        }
        self.close();
        if !progress(self.end) {
            self.discard_outputs();
            return Err(RunError::Interrupted { at: self.end });
        }
        // A run shorter than one progress check is measured once, at its end.
        self.count_memory();
        self.finish(None)
    }

    /// The packets alive when an allocation the run needs was refused (the packet pool,
    /// a link's queue or the event queue could not grow), if one was: the run must stop,
    /// its network no longer what the scenario describes.
    fn memory_ran_out(&mut self) -> Option<usize> {
        if self.queue.exhausted() {
            self.pool.mark_exhausted();
        }
        self.pool.exhausted()
    }

    /// Tells the devices the run ends at `self.end`.
    fn close(&mut self) {
        for d in &mut self.devices {
            d.close(self.end);
        }
    }

    /// The output of a run that ended at `self.end`; an emulation adds its own summary.
    fn finish(mut self, emulation: Option<EmulationSummary>) -> Result<RunOutput, RunError> {
        let mut summary = report::summary(&self, self.queue.events_popped());
        summary.emulation = emulation;
        let end = self.end;
        let failed = |error| RunError::Trace { at: end, error };
        let streamed = std::mem::replace(&mut self.captures, Captures::none())
            .finish()
            .map_err(failed)?;
        let qlogs = std::mem::take(&mut self.qlogs).finish().map_err(failed)?;
        let mut captures = streamed.in_memory;
        let traces = self
            .traces
            .finish()
            .map_err(|error| RunError::Trace { at: end, error })?;
        let keys: String = self
            .flows
            .iter()
            .map(|f| f.transport.tls_key_log())
            .collect();
        // Packets were captured, in memory or streamed to files: their key log goes with them.
        let captured = !captures.is_empty() || !streamed.files.is_empty();
        if captured && !keys.is_empty() {
            captures.push((TLS_KEY_LOG.to_owned(), keys.into_bytes()));
        }
        captures.extend(qlogs.in_memory);
        Ok(RunOutput {
            summary,
            tables: traces.tables,
            trace_files: traces.files,
            trace_peak_bytes: traces.peak_bytes,
            captures,
            capture_files: [streamed.files, qlogs.files].concat(),
        })
    }

    /// Measures the traces, captures and qlogs held in memory against their cap (a run
    /// without an output folder).
    fn count_memory(&mut self) {
        let outside = self.captures.memory_bytes() + self.qlogs.memory_bytes();
        self.traces.count_memory(outside);
    }

    /// The first failure to keep the run's outputs: traces over their memory cap, or a trace,
    /// capture or qlog file that could not be written.
    fn output_error(&self) -> Option<TraceError> {
        let error = self.traces.error().or(self.captures.error()).cloned();
        error.or_else(|| self.qlogs.error())
    }

    /// Removes what a run that stops early had written (trace, capture and qlog files).
    fn discard_outputs(&mut self) {
        std::mem::replace(&mut self.traces, Traces::in_memory(&[])).discard();
        std::mem::replace(&mut self.captures, Captures::none()).discard();
        std::mem::take(&mut self.qlogs).discard();
    }

    /// The RSSI (dBm) at a station of the beacons of the AP it is associated with, or
    /// `None` if it is in no BSS or between APs: what a mechanism on the station reads.
    pub fn rssi_dbm(&mut self, station: NodeId, now: SimTime) -> Option<f64> {
        self.devices
            .iter_mut()
            .find_map(|d| d.rssi_dbm(station, now))
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::Device(d, token) => self.device_call(now, d, |dev, cx| dev.wake(now, token, cx)),
            Event::Arrive(i, p) => self.arrive(now, i, p),
            Event::Tick(f) => self.transport_call(now, f, |t, io| t.handle_tick(now, io)),
            Event::Rssi(f) => {
                let rssi = self.rssi_dbm(self.flows[f.0 as usize].radio, now);
                self.observer_call(now, f, |o, io| o.handle_rssi(now, rssi, io));
            }
            Event::Transport(f, key, side) => {
                self.transport_call(now, f, |t, io| t.handle_timeout(now, side, key, io))
            }
            Event::Change(i) => {
                let c = &self.changes[i as usize];
                let iface = &mut self.ifaces[c.iface.0 as usize];
                if let Some(r) = c.rate {
                    iface.rate = r;
                }
                self.devices[iface.device.0 as usize].reconfigure(iface.port, c.rate, c.delay);
            }
            Event::Inject(p) => {
                let src = self.pool.get(p).src;
                self.forward(now, src, p);
            }
        }
    }

    /// Calls device `d` and carries out the actions it asked for, in order.
    fn device_call(
        &mut self,
        now: SimTime,
        d: DevId,
        call: impl FnOnce(&mut dyn Device, &mut DeviceCx<'_>),
    ) {
        let mut actions = self.spare_actions.pop().unwrap_or_default();
        let mut cx = DeviceCx {
            actions: &mut actions,
            traces: &mut self.traces,
            pool: &self.pool,
        };
        call(self.devices[d.0 as usize].as_mut(), &mut cx);
        self.act(now, d, &mut actions);
        self.spare_actions.push(actions);
    }

    /// Carries out a device's actions.
    fn act(&mut self, now: SimTime, d: DevId, actions: &mut Vec<Action>) {
        for a in actions.drain(..) {
            match a {
                Action::Wake { at, token } => self.queue.schedule(at, Event::Device(d, token)),
                Action::Transmit { iface, p } => {
                    let size = self.pool.get(p).size();
                    let stats = &mut self.ifaces[iface.0 as usize].stats;
                    stats.tx_packets += 1;
                    stats.tx_bytes += u64::from(size);
                    self.capture(now, iface, p);
                }
                Action::Arrive { at, iface, p } => self.queue.schedule(at, Event::Arrive(iface, p)),
                Action::LeftFirstHop { iface, p } => self.left_first_hop(now, iface, p),
                Action::Drop {
                    iface,
                    p,
                    reason,
                    kind,
                } => {
                    let stats = &mut self.ifaces[iface.0 as usize].stats;
                    match kind {
                        DropKind::Queue => stats.drops_queue += 1,
                        DropKind::Aqm => stats.drops_aqm += 1,
                        DropKind::Loss => stats.drops_loss += 1,
                    }
                    self.drop_packet(now, iface, p, reason);
                }
                Action::QueueChanged { iface } => self.trace_queue(now, iface),
                Action::LinkDown(node) => self.link_event(now, node, false),
                Action::BssLoad(node, load) => self.bss_load(now, node, load),
                Action::LinkUp(node) => self.link_back(now, node),
                Action::Reroute => {
                    self.routes = topology::reroute(&self.routes, &self.ifaces, &self.devices)
                }
            }
        }
    }

    /// Calls flow `f`'s transport and carries out the commands it gave, in order.
    fn transport_call(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn Transport, &mut Io<'_>),
    ) {
        self.transport_call_with(now, f, |t, io, _| call(t, io));
    }

    /// [`World::transport_call`], the call given the packet pool too (to read a packet
    /// where it lies and free it before the transport's commands are carried out).
    fn transport_call_with(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn Transport, &mut Io<'_>, &mut PacketPool),
    ) {
        let mut cmds = self.spare_cmds.pop().unwrap_or_default();
        let flow = &mut self.flows[f.0 as usize];
        let mut io = Io {
            cmds: &mut cmds,
            traces: &mut self.traces,
            flow: &flow.name,
            small_queues: &flow.small_queues[..2 * usize::from(flow.keys)],
        };
        call(flow.transport.as_mut(), &mut io, &mut self.pool);
        self.obey(now, f, &mut cmds);
        self.spare_cmds.push(cmds);
    }

    /// Carries out a transport's commands.
    fn obey(&mut self, now: SimTime, f: FlowId, cmds: &mut Vec<Cmd>) {
        for c in cmds.drain(..) {
            match c {
                // An endpoint on a real node: the kernel's stands in for it (emulation).
                Cmd::Send { side, .. } | Cmd::Arm { side, .. } | Cmd::WakeAt { side, .. }
                    if self.boundary.silent(f, side) => {}
                Cmd::Send { side, key, body } => {
                    let flow = &mut self.flows[f.0 as usize];
                    let (from, to) = match side {
                        Side::Client => (flow.src, flow.dst),
                        Side::Server => (flow.dst, flow.src),
                    };
                    // `via` is on the flow's second line: read for pinned flows only.
                    let via = match flow.pinned.then(|| &flow.via[..]) {
                        None => None,
                        Some([one]) => Some(*one),
                        Some(many) => many.get(usize::from(key)).copied(),
                    };
                    // No memory left for it: the run stops at the next check (`run`).
                    let Some(p) = self.pool.insert_keyed(f, key, from, to, body) else {
                        continue;
                    };
                    if self.boundary.is_real(to) {
                        // Tern's TCP to a kernel's: real bytes from here on (emulation).
                        if let Some(bytes) = self.boundary.encode_sent(f, self.pool.get(p)) {
                            self.pool.set_body(p, Body::Raw(bytes));
                        }
                    }
                    let size = flow.tsq.charge(self.pool.get(p).size());
                    // Its sender's Small Queues room, if it counts one: the packet is in its
                    // first-hop device from here, unless refused there.
                    let count = (key < flow.keys).then(|| 2 * usize::from(key) + side.index());
                    if let Some(c) = count {
                        flow.small_queues[c] -= size;
                    }
                    if let Some((up, down)) = via {
                        let pin = match side {
                            Side::Client => Pin {
                                first: Some(up),
                                last: None,
                            },
                            Side::Server => Pin {
                                first: None,
                                last: Some(down),
                            },
                        };
                        self.pool.pin(p, pin);
                    }
                    if let (false, Some(c)) = (self.forward(now, from, p), count) {
                        self.flows[f.0 as usize].small_queues[c] += size;
                    }
                }
                Cmd::Arm { side, key } => {
                    if let Some(at) = self.flows[f.0 as usize]
                        .transport
                        .poll_timeout(now, side, key)
                    {
                        self.queue.schedule(at, Event::Transport(f, key, side));
                    }
                }
                Cmd::WakeAt { at, side, key } => {
                    self.queue.schedule(at, Event::Transport(f, key, side))
                }
                Cmd::Tick(at) => self.queue.schedule(at, Event::Tick(f)),
                Cmd::SampleRssi(at) => self.queue.schedule(at, Event::Rssi(f)),
            }
        }
    }

    /// [`World::transport_call`] on flow `f`'s link observer, if it has one.
    fn observer_call(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn LinkObserver, &mut Io<'_>),
    ) {
        self.transport_call(now, f, |t, io| {
            if let Some(o) = t.observer() {
                call(o, io);
            }
        });
    }

    /// Calls `call` on the link observers of the transports with an endpoint on `node`, with
    /// that endpoint's side (flows not started yet are left out).
    fn at_node(
        &mut self,
        now: SimTime,
        node: NodeId,
        call: impl Fn(&mut dyn LinkObserver, Side, &mut Io<'_>),
    ) {
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            if flow.start > now {
                continue;
            }
            let Some(side) = flow.side_at(node) else {
                continue;
            };
            self.observer_call(now, FlowId(f as u32), |o, io| call(o, side, io));
        }
    }

    /// Tells the transports with an endpoint on `node` that its link went down or came
    /// back.
    fn link_event(&mut self, now: SimTime, node: NodeId, up: bool) {
        self.at_node(now, node, |o, side, io| o.handle_link(now, side, up, io));
    }

    /// The transports with an endpoint on `node` hear the BSS Load of the AP it joins.
    fn bss_load(&mut self, now: SimTime, node: NodeId, load: crate::wifi::bss_load::BssLoad) {
        self.at_node(now, node, |o, side, io| {
            o.handle_bss_load(now, side, &load, io)
        });
    }

    /// A host's link is back after a cellular handover or an 802.11 roam: its transports
    /// hear of it, then of the handover (the cell-id or BSSID change).
    fn link_back(&mut self, now: SimTime, node: NodeId) {
        self.link_event(now, node, true);
        for f in 0..self.flows.len() {
            if self.flows[f].src == node {
                let id = FlowId(f as u32);
                self.observer_call(now, id, |o, io| o.handle_handover(now, Side::Client, io));
            }
        }
    }

    /// Hands packet `p` to node `at`: delivers it there or sends it on by the interface its
    /// route names. Returns whether the packet was accepted (not refused at a full queue).
    fn forward(&mut self, now: SimTime, at: NodeId, p: PacketRef) -> bool {
        let pkt = self.pool.get(p);
        if pkt.dst == at {
            if matches!(pkt.body, Body::Raw(_)) {
                self.deliver_raw(now, at, p);
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
            // Flows' routes are checked before the run; a real host may send anywhere.
            assert!(
                matches!(pkt.body, Body::Raw(_)),
                "routes checked before the run"
            );
            self.pool.take(p);
            self.outbox.unroutable += 1;
            return false;
        };
        let (d, port) = {
            let iface = &self.ifaces[i.0 as usize];
            (iface.device, iface.port)
        };
        let mut actions = self.spare_actions.pop().unwrap_or_default();
        let mut cx = DeviceCx {
            actions: &mut actions,
            traces: &mut self.traces,
            pool: &self.pool,
        };
        let result = self.devices[d.0 as usize].enqueue(now, i, port, p, pkt, &mut cx);
        self.act(now, d, &mut actions);
        self.spare_actions.push(actions);
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

    /// Delivers packet `p`, a real host's bytes, at node `at`: to the real node, or to the
    /// Tern endpoint it is a kernel's segment for (emulation).
    fn deliver_raw(&mut self, now: SimTime, at: NodeId, p: PacketRef) {
        let pkt = self.pool.take(p);
        let Body::Raw(bytes) = pkt.body else {
            unreachable!("a real host's packet")
        };
        if pkt.flow == EMULATED || self.boundary.is_real(at) {
            self.outbox.delivered.push((at, bytes));
        } else if let Some(seg) = self.boundary.parse_received(pkt.flow, &bytes) {
            // A kernel's segment for a Tern endpoint (emulation).
            let side = if at == self.flows[pkt.flow.0 as usize].dst {
                Side::Server
            } else {
                Side::Client
            };
            let packet = Arrival::owned(Body::Tcp(seg));
            self.transport_call(now, pkt.flow, |t, io| {
                t.handle_packet(now, side, packet, io)
            });
        }
    }

    /// TCP Small Queues: a packet left its sender's first-hop device (serialized,
    /// acknowledged or dropped there). Its sender's room grows by its size; an endpoint that
    /// was held back (no room) and now has room may send more (Linux `tcp_wfree` scheduling
    /// `tcp_tsq_handler` for a throttled socket).
    fn left_first_hop(&mut self, now: SimTime, i: IfaceId, p: PacketRef) {
        let pkt = self.pool.get(p);
        if pkt.flow == EMULATED || self.ifaces[i.0 as usize].from != pkt.src {
            return;
        }
        let (f, key) = (pkt.flow, pkt.key);
        let flow = &mut self.flows[f.0 as usize];
        if key >= flow.keys {
            return;
        }
        let side = if pkt.src == flow.src {
            Side::Client
        } else {
            Side::Server
        };
        let charge = flow.tsq.charge(pkt.size());
        let room = &mut flow.small_queues[2 * usize::from(key) + side.index()];
        let held_back = *room < 0;
        *room += charge;
        // With a moving limit (pacing) the transport re-checks on every packet freed while
        // it was over `tsq`, as `tcp_wfree` schedules `tcp_tsq_handler` for a throttled
        // socket; otherwise only once it is back within `tsq`.
        if held_back && (*room >= 0 || flow.tsq.pacing) {
            self.transport_call(now, f, |t, io| t.first_hop_room(now, side, key, io));
        }
    }

    fn arrive(&mut self, now: SimTime, i: IfaceId, p: PacketRef) {
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

    fn drop_packet(&mut self, now: SimTime, i: IfaceId, p: PacketRef, reason: &str) {
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
    fn capture(&mut self, now: SimTime, i: IfaceId, p: PacketRef) {
        // Sizes and times were checked when the scenario was loaded, so encoding cannot
        // fail; a file that cannot be written stops the run at the next progress check.
        self.captures.write(i.0 as usize, now, self.pool.get(p));
    }

    fn trace_queue(&mut self, now: SimTime, i: IfaceId) {
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
