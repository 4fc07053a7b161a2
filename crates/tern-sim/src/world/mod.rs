//! The world of one run: nodes and their interfaces, the devices behind them, the flows'
//! transports, the event queue, and the loop that drives them.
//!
//! The world knows devices only through [`Device`] and transports only through
//! [`Transport`]: it moves packets between them, runs their wake-ups, and records what
//! they report. Building a world from a scenario is [`build`]; the summary is [`report`].

pub mod build;
mod calls;
pub(crate) mod check;
mod forward;
#[cfg(target_os = "linux")]
mod realtime;
pub mod registry;
pub mod report;
pub mod topology;

use crate::engine::{EventQueue, SimTime};
use crate::net::device::{Action, DevId, Device, Iface, IfaceId};
use crate::net::packet::{FlowId, NodeId, PacketPool, PacketRef};
use crate::net::route::Routes;
use crate::scenario::units::DataRate;
use crate::scenario::RecordKind;
use crate::summary::{EmulationSummary, Summary};
use crate::trace::{Captures, QlogFiles, Table, TraceConfig, TraceError, Traces};
use crate::transport::small_queues::HostQueues;
use crate::transport::{Cmd, Side, Transport};

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
/// nodes, whether it is pinned, its endpoints' TCP Small Queues rooms) comes first and the
/// flow is aligned to a cache line; what the summary, the traces and pinned flows read
/// follows. A packet leaving its sender's first hop gives its room back there
/// ([`HostQueues`]), with no call of the transport unless an endpoint held back has room
/// again.
#[repr(C, align(64))]
pub(crate) struct Flow {
    pub transport: Box<dyn Transport>,
    pub src: NodeId,
    pub dst: NodeId,
    /// The station whose RSSI its transport samples ([`Cmd::SampleRssi`]): the client, or
    /// the RSSI scheduler's `station`.
    pub radio: NodeId,
    /// Whether `via` names interfaces.
    pub pinned: bool,
    /// Its endpoints' TCP Small Queues account on their hosts (none counts for a transport
    /// without, [`Transport::small_queues`]).
    pub queues: HostQueues,
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
    /// The devices' actions and the transports' commands not yet carried out, as stacks:
    /// calls nest (a device's action can make a transport send, whose packet enters another
    /// device), and each call carries out and pops what it pushed before it returns.
    actions: Vec<Action>,
    cmds: Vec<Cmd>,
    /// Whether a flow counts TCP Small Queues ([`Transport::small_queues`]): if none does,
    /// a packet leaving its first hop ([`Action::LeftFirstHop`]) has no account to give
    /// room back to.
    small_queues: bool,
    /// Whether a flow's TSQ charge ends when a driver's queue takes the packet: if none's
    /// does, [`Action::EnteredDriver`] ends no charge and is not looked up.
    small_queues_at_driver: bool,
    /// Per node, the device through which packets for it leave the world, if it is outside
    /// (a real node of an emulation, [`crate::emu::Port`]); empty in a simulation.
    outside: Vec<Option<DevId>>,
    /// Packets with no route: only a real host's can have none (flows' routes are checked
    /// before the run).
    unroutable: u64,
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
        while let Some((now, event)) = self.queue.pop_before(self.end) {
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
}
