//! The paths of a QUIC connection: multipath QUIC (draft-ietf-quic-multipath-21, as noq-proto
//! 1.4 implements it) over the client's interfaces, one path per interface.
//!
//! - **Addresses.** Path k's client address is `10.0.k.1:49152` (the address of the client's
//!   k-th interface, as the stack sees it); the server has one, `10.0.0.2:443`. A datagram
//!   carries its path index (the simulator's stand-in for the address in its IP header), and
//!   is sent as the flow's endpoint key k, which the world pins to the k-th interface.
//! - **Opening.** Path 0 carries the handshake. Once connected, the client opens the others
//!   with their configured status (`Connection::open_path`; the stack validates each with
//!   PATH_CHALLENGE / PATH_RESPONSE, RFC 9000 §8.2), retrying while the server has not yet
//!   issued connection ids for them.
//! - **Status.** The client's status of a path is signalled with PATH_STATUS_AVAILABLE /
//!   PATH_STATUS_BACKUP frames. noq schedules packets by the *sending* endpoint's own
//!   (local) status only and leaves it to the application to adopt the peer's ("the local
//!   status is not changed because of this event", `PathEvent::RemoteStatus`); the server
//!   application here adopts the client's, so the client's choice governs downloads too.
//! - **Scheduler** (noq's `Connection::poll_transmit` and `scheduling_info`, read from its
//!   source): each transmission goes to the first path in path-id order that has something
//!   to send and room in its congestion window and pacer. A path may carry stream data if it
//!   is validated and either available, or backup while no validated available path exists
//!   at all (a blocked or full available path does not count as missing: backup paths then
//!   stay idle). So available paths fill in id order, the lowest first, and share a bulk
//!   transfer once each is window-limited. The order is the flow's `transport.scheduler`:
//!   that id order (noq's own), lowest smoothed RTT first, or round robin (Tern's patch
//!   `0003-path-scheduler.patch`, `TransportConfig::path_scheduler`).

use crate::engine::SimTime;
use super::spec::{QuicPathSpec, QuicPathStatus};
use noq_proto::{Connection, FourTuple, PathError, PathId, PathStats, PathStatus, VarInt};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Instant;

/// The client's address on path `k`.
pub fn client_addr(k: u8) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, k, 1)), 49152)
}

/// The server's one address.
pub fn server_addr() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), 443)
}

/// The path index of client address `ip` (0 for anything else).
pub fn index_of(ip: IpAddr) -> u8 {
    match ip {
        IpAddr::V4(v4) if v4.octets()[..2] == [10, 0] && v4.octets()[3] == 1 => v4.octets()[2],
        _ => 0,
    }
}

/// The stack's path status for the scenario's.
pub fn status(s: QuicPathStatus) -> PathStatus {
    match s {
        QuicPathStatus::Available => PathStatus::Available,
        QuicPathStatus::Backup => PathStatus::Backup,
    }
}

/// The path index of the stack's path `id` at an endpoint: from its client address.
pub fn index(conn: &Connection, id: PathId, client: bool) -> Option<u8> {
    let tuple = conn.network_path(id).ok()?;
    let ip = match client {
        true => tuple.local_ip().unwrap_or(client_addr(0).ip()),
        false => tuple.remote().ip(),
    };
    Some(index_of(ip))
}

/// The client's paths beyond the first: which are opened, and what is asked of them.
#[derive(Debug)]
pub struct Paths {
    /// Each path's interface (for the summary) and wanted status, by index.
    pub specs: Vec<QuicPathSpec>,
    /// The stack's id of each path once opened (path 0: `PathId::ZERO`).
    opened: Vec<Option<PathId>>,
    /// Whether each path has been abandoned.
    abandoned: Vec<bool>,
    /// The last statistics of each path at each end (client, server), kept when the stack
    /// discards a path.
    pub last: [Vec<Option<PathStats>>; 2],
    /// The client's latest signalled status of each path id, as the server heard it.
    peer_status: Vec<(PathId, PathStatus)>,
    /// The index of each of the stack's paths at each end, as learnt from their addresses
    /// (a discarded path has none left).
    known: [Vec<(PathId, u8)>; 2],
}

impl Paths {
    pub fn new(specs: &[QuicPathSpec]) -> Paths {
        let n = specs.len().max(1);
        let mut opened = vec![None; n];
        opened[0] = Some(PathId::ZERO);
        Paths {
            specs: specs.to_vec(),
            opened,
            abandoned: vec![false; n],
            last: [vec![None; n], vec![None; n]],
            known: [Vec::new(), Vec::new()],
            peer_status: Vec::new(),
        }
    }

    pub fn multipath(&self) -> bool {
        self.specs.len() > 1
    }

    /// The server heard the client's status of path `id`.
    pub fn peer_status(&mut self, id: PathId, status: PathStatus) {
        match self.peer_status.iter_mut().find(|(i, _)| *i == id) {
            Some(entry) => entry.1 = status,
            None => self.peer_status.push((id, status)),
        }
    }

    /// The server adopts the client's status of each of its paths, which may have come
    /// before the path itself (the frames travel on any path).
    pub fn adopt(&self, conn: &mut Connection) {
        for &(id, status) in &self.peer_status {
            if conn.path_status(id).is_ok_and(|s| s != status) {
                let _ = conn.set_path_status(id, status);
            }
        }
    }

    /// When the client must act on its paths regardless of the stack: their `abandon_at`.
    pub fn wake_ups(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.specs.iter().filter_map(|p| p.abandon_at.map(|d| d.0))
    }

    /// The client abandons the open paths whose `abandon_at` has come (`sim_now`).
    pub fn abandon(&mut self, conn: &mut Connection, sim_now: SimTime, now: Instant) {
        for k in 0..self.specs.len() {
            let due = self.specs[k].abandon_at.is_some_and(|d| d.0 <= sim_now);
            if let (true, false, Some(id)) = (due, self.abandoned[k], self.opened[k]) {
                // Application error code 0: no error (the draft leaves codes to applications).
                // The stack refuses to abandon the last open path; then it is kept.
                self.abandoned[k] = conn.close_path(now, id, VarInt::from_u32(0)).is_ok();
            }
        }
    }

    /// The client is to abandon path `k` now (`sim_now`), unless an earlier `abandon_at` is set
    /// (carried out at its next input, as `abandon_at` is).
    pub fn abandon_from(&mut self, k: usize, sim_now: SimTime) {
        let at = &mut self.specs[k].abandon_at;
        if at.is_none_or(|d| d.0 > sim_now) {
            *at = Some(crate::scenario::units::Duration(sim_now));
        }
    }

    /// Path `k` is to have status `s` from now on (signalled at the client's next input).
    pub fn want(&mut self, k: usize, s: QuicPathStatus) {
        self.specs[k].status = s;
    }

    /// The client, connected, opens the paths not yet open, and signals the status of the
    /// open ones where it changed.
    pub fn open(&mut self, conn: &mut Connection, now: Instant) {
        for k in 0..self.specs.len() {
            let want = status(self.specs[k].status);
            if let Some(id) = self.opened[k] {
                if !self.abandoned[k] && conn.path_status(id).is_ok_and(|s| s != want) {
                    let _ = conn.set_path_status(id, want);
                }
                continue;
            }
            let tuple = FourTuple::new(server_addr(), Some(client_addr(k as u8).ip()));
            // Opened available, then set to its status: noq signals a status only when it
            // changes (`set_path_status`), not a path's initial one, and the server adopts only
            // what is signalled.
            match conn.open_path(tuple, PathStatus::Available, now) {
                Ok(id) => {
                    self.opened[k] = Some(id);
                    if want != PathStatus::Available {
                        let _ = conn.set_path_status(id, want);
                    }
                }
                // Not negotiated (yet): nothing more can open now.
                Err(PathError::MultipathNotNegotiated) => return,
                // The server has not issued ids for it yet, or its path-id limit: retried at
                // the next input.
                Err(_) => return,
            }
        }
    }

    /// Endpoint `side` (0: client, 1: server): its paths' statistics now, by path index,
    /// with the previous ones (which this replaces).
    pub fn update_stats(
        &mut self,
        side: usize,
        conn: &mut Connection,
    ) -> Vec<(u8, Option<PathStats>, PathStats)> {
        let mut out = Vec::new();
        for id in conn.paths() {
            let k = match self.known[side].iter().find(|(i, _)| *i == id) {
                Some(&(_, k)) => k,
                None => match index(conn, id, side == 0) {
                    Some(k) => {
                        self.known[side].push((id, k));
                        k
                    }
                    None => continue,
                },
            };
            let (Some(s), Some(slot)) =
                (conn.path_stats(id), self.last[side].get_mut(usize::from(k)))
            else {
                continue;
            };
            out.push((k, slot.replace(s), s));
        }
        out
    }

    /// The final statistics of path `id`, which the stack discarded at endpoint `side`.
    pub fn discarded(&mut self, side: usize, id: PathId, stats: PathStats) {
        let Some(&(_, k)) = self.known[side].iter().find(|(i, _)| *i == id) else {
            return;
        };
        if let Some(slot) = self.last[side].get_mut(usize::from(k)) {
            *slot = Some(stats);
        }
    }
}
