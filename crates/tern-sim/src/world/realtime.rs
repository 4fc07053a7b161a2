//! The real-time driver of an emulation (see [`crate::emu`]): the same events as a
//! simulation, each run when the monotonic clock reaches its due time, with the real
//! nodes' TUN devices read in between.
//!
//! Simulated time is wall time elapsed since the start. The loop alternates: read every
//! packet the real hosts have sent (each enters the world at the time it was read, at its
//! node, `Boundary::enter`), run every event now due, write the packets the port device
//! took for real nodes ([`crate::emu::Port`]) to their TUN devices, then sleep in
//! `ppoll(2)` until the next event is due or a TUN device has a packet.

use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::time::Instant;

use nix::libc;
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::time::TimeSpec;

use super::{Event, RunError, RunOutput, World};
use crate::emu::{Bounds, Control, Lateness, RealPort, Shared};
use crate::engine::SimTime;
use crate::summary::{EmulationSummary, LatenessSummary};

/// How often the caller is asked whether to go on (Ctrl-C, commands ended).
const CONTROL_EVERY: SimTime = SimTime::from_millis(50);
/// The largest IPv4 packet (RFC 791 §3.1: a 16-bit total length).
const MAX_PACKET: usize = 65_535;

/// The real hosts' side of an emulation: their TUN devices, by node, and what crossed them.
struct Ports {
    ports: Vec<RealPort>,
    /// What the port device and the interop flows share ([`World::open_port`]).
    boundary: Shared,
    /// Index into `ports` of each node's TUN device, if it is real.
    at_node: Vec<Option<usize>>,
    buf: Vec<u8>,
    packets_in: u64,
    bytes_in: u64,
    packets_out: u64,
    bytes_out: u64,
    ignored: u64,
}

impl Ports {
    fn tun_error(at: SimTime, node: &str, e: std::io::Error) -> RunError {
        RunError::Tun {
            at,
            error: format!("TUN device of real node {node:?}: {e}"),
        }
    }
}

impl World {
    /// Runs the world paced to the monotonic clock, the real nodes' packets crossing their
    /// TUN devices `ports`. `control` is asked every 50 ms; the run ends at the scenario's
    /// duration or when it says [`Control::End`]. Lateness past `bounds.warn` is reported,
    /// past `bounds.fail` stops the run with [`RunError::Behind`].
    pub fn run_realtime(
        mut self,
        ports: Vec<RealPort>,
        bounds: Bounds,
        control: &mut dyn FnMut(SimTime) -> Control,
    ) -> Result<RunOutput, RunError> {
        let mut at_node = vec![None; self.node_names.len()];
        for (k, p) in ports.iter().enumerate() {
            at_node[p.node.0 as usize] = Some(k);
        }
        let real = at_node.iter().map(Option::is_some).collect();
        let boundary = self.open_port(real).map_err(|error| RunError::Tun {
            at: SimTime::ZERO,
            error,
        })?;
        let mut real = Ports {
            ports,
            boundary,
            at_node,
            buf: vec![0; MAX_PACKET],
            packets_in: 0,
            bytes_in: 0,
            packets_out: 0,
            bytes_out: 0,
            ignored: 0,
        };
        let mut late = Lateness::default();
        // The kernel may delay a sleeping thread's wake-up by its timer slack (50 µs by
        // default, prctl(2) PR_SET_TIMERSLACK) to merge wake-ups: 1 ns asks for none.
        // Failing to set it only costs precision.
        let _ = nix::sys::prctl::set_timerslack(1);
        let priority = Priority::raise();
        let clock = Instant::now();
        let wall = || SimTime::from_nanos(clock.elapsed().as_nanos() as u64);
        let mut next_control = SimTime::ZERO;
        loop {
            let now = wall();
            if now >= next_control {
                next_control = now + CONTROL_EVERY;
                if let Some(packets) = self.memory_ran_out() {
                    self.discard_outputs();
                    return Err(RunError::Memory { at: now, packets });
                }
                self.count_memory();
                if let Some(error) = self.output_error() {
                    self.discard_outputs();
                    return Err(RunError::Trace { at: now, error });
                }
                match control(now) {
                    Control::Go => {}
                    Control::End => self.end = self.end.min(now),
                    Control::Stop => {
                        self.discard_outputs();
                        return Err(RunError::Interrupted { at: now });
                    }
                }
            }
            self.take_in(&mut real, &wall)?;
            let now = wall();
            while let Some(t) = self.queue.peek_time() {
                if t > now || t >= self.end {
                    break;
                }
                let lateness = wall().saturating_sub(t);
                late.add(lateness);
                if lateness > bounds.fail {
                    self.discard_outputs();
                    return Err(RunError::Behind {
                        at: t,
                        late: lateness,
                        bound: bounds.fail,
                    });
                }
                let (t, event) = self.queue.pop().expect("peeked");
                self.dispatch(t, event);
                self.give_out(&mut real, t)?;
            }
            if now >= self.end {
                break;
            }
            let due = self.queue.peek_time().unwrap_or(self.end);
            let due = due.min(self.end).min(next_control);
            wait(&real.ports, due.saturating_sub(wall()), now)?;
        }
        let wall_s = clock.elapsed().as_secs_f64();
        let realtime_priority = priority.raised();
        drop(priority);
        self.close();
        self.count_memory();
        let us = |t: SimTime| t.as_nanos() as f64 / 1e3;
        let emulation = EmulationSummary {
            deterministic: false,
            wall_s,
            lateness: LatenessSummary {
                events: late.count(),
                mean_us: us(late.mean()),
                p50_us: us(late.quantile(0.5)),
                p99_us: us(late.quantile(0.99)),
                max_us: us(late.max()),
                warn_us: us(bounds.warn),
                over_warn: late.over(bounds.warn),
                fail_us: us(bounds.fail),
            },
            behind: late.max() > bounds.warn,
            realtime_priority,
            packets_in: real.packets_in,
            bytes_in: real.bytes_in,
            packets_out: real.packets_out,
            bytes_out: real.bytes_out,
            ignored: real.ignored,
            unroutable: self.unroutable,
            interop: real
                .boundary
                .borrow()
                .summary(self.flows.iter().map(|f| f.name.to_string())),
        };
        self.finish(Some(emulation))
    }

    /// Reads every packet waiting on the TUN devices; each enters the world at its source
    /// node at the time it was read. Packets that are not IPv4, or neither for another real
    /// node nor a TCP segment for a Tern node an interop flow joins to the source, are
    /// counted and left out.
    fn take_in(&mut self, real: &mut Ports, wall: &dyn Fn() -> SimTime) -> Result<(), RunError> {
        for k in 0..real.ports.len() {
            let src = real.ports[k].node;
            loop {
                let n = match real.ports[k].tun.read(&mut real.buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let node = &self.node_names[src.0 as usize];
                        return Err(Ports::tun_error(wall(), node, e));
                    }
                };
                let at = wall();
                let entered = real.boundary.borrow().enter(src, &real.buf[..n]);
                let Some((flow, dst, body)) = entered else {
                    real.ignored += 1;
                    continue;
                };
                real.packets_in += 1;
                real.bytes_in += n as u64;
                // No memory left for it: dropped, and the run stops at the next control.
                if let Some(p) = self.pool.insert(flow, src, dst, body) {
                    self.queue.schedule(at, Event::Inject(p));
                }
            }
        }
        Ok(())
    }

    /// Writes the packets delivered to real nodes to their TUN devices.
    fn give_out(&mut self, real: &mut Ports, now: SimTime) -> Result<(), RunError> {
        let delivered = std::mem::take(&mut real.boundary.borrow_mut().delivered);
        for (node, bytes) in delivered {
            let k = real.at_node[node.0 as usize].expect("only real nodes get real packets");
            match real.ports[k].tun.write(&bytes) {
                Ok(_) => {
                    real.packets_out += 1;
                    real.bytes_out += bytes.len() as u64;
                }
                // The device's queue is full (the kernel drops it, as a NIC would).
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => {
                    let name = &self.node_names[node.0 as usize];
                    return Err(Ports::tun_error(now, name, e));
                }
            }
        }
        Ok(())
    }
}

/// Sleeps until `timeout` has passed or a TUN device has a packet (`ppoll(2)`, to the
/// nanosecond as the kernel's timers allow).
fn wait(ports: &[RealPort], timeout: SimTime, now: SimTime) -> Result<(), RunError> {
    if timeout == SimTime::ZERO {
        return Ok(());
    }
    let mut fds: Vec<PollFd<'_>> = ports
        .iter()
        .map(|p| PollFd::new(p.tun.as_fd(), PollFlags::POLLIN))
        .collect();
    let timeout = TimeSpec::from_duration(std::time::Duration::from_nanos(timeout.as_nanos()));
    match ppoll(&mut fds, Some(timeout), None) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(RunError::Tun {
            at: now,
            error: format!("waiting for the TUN devices: {e}"),
        }),
    }
}

/// The driver thread's scheduling while it runs: `SCHED_FIFO` (sched(7)), so that on a busy
/// machine it runs as soon as its timer or a TUN device wakes it rather than after other
/// processes' time slices; the old policy comes back when this is dropped. Only a
/// privileged process gets it (emulation runs as root); otherwise nothing changes. The
/// thread sleeps between events, and the kernel keeps 5 % of each second for the others
/// (`sched_rt_runtime_us`).
struct Priority(Option<(libc::c_int, libc::sched_param)>);

/// The `SCHED_FIFO` priority asked for: the lowest (1 to 99), above every normal thread.
const FIFO_PRIORITY: libc::c_int = 1;

impl Priority {
    fn raise() -> Priority {
        // SAFETY: plain system calls on the calling thread (pid 0) with valid pointers.
        unsafe {
            let policy = libc::sched_getscheduler(0);
            let mut old: libc::sched_param = std::mem::zeroed();
            if policy < 0 || libc::sched_getparam(0, &mut old) != 0 {
                return Priority(None);
            }
            let fifo = libc::sched_param {
                sched_priority: FIFO_PRIORITY,
            };
            if libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) != 0 {
                return Priority(None);
            }
            Priority(Some((policy, old)))
        }
    }

    fn raised(&self) -> bool {
        self.0.is_some()
    }
}

impl Drop for Priority {
    fn drop(&mut self) {
        if let Some((policy, old)) = self.0 {
            // SAFETY: as above; restoring what `raise` read.
            unsafe { libc::sched_setscheduler(0, policy, &old) };
        }
    }
}
