//! The real-time driver (`World::run_realtime`) with datagram socket pairs standing for the
//! real nodes' TUN devices (one packet per read and write, as a TUN device gives): no root
//! needed. Expected delays follow from the link: propagation plus serialisation.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_sim::emu::{Bounds, Control, RealPort};
use tern_sim::engine::SimTime;
use tern_sim::net::packet::NodeId;
use tern_sim::trace::pcap::internet_checksum;
use tern_sim::World;

/// Two real nodes, `ue` (node 0) and `server` (node 1), on a 10 Mbit/s, 20 ms link named
/// `access`.
const SCENARIO: &str = include_str!("../../../scenarios/examples/emulate-ping.toml");

/// An IPv4 datagram (RFC 791 §3.1) of `total` bytes from `src` to `dst`, protocol UDP, with
/// a valid header checksum and a patterned payload.
fn ipv4(src: [u8; 4], dst: [u8; 4], total: u16) -> Vec<u8> {
    let mut p = vec![0u8; usize::from(total)];
    p[0] = 0x45;
    p[2..4].copy_from_slice(&total.to_be_bytes());
    p[8] = 64;
    p[9] = 17;
    p[12..16].copy_from_slice(&src);
    p[16..20].copy_from_slice(&dst);
    let sum = internet_checksum(&p[..20]);
    p[10..12].copy_from_slice(&sum.to_be_bytes());
    for (i, b) in p[20..].iter_mut().enumerate() {
        *b = i as u8;
    }
    p
}

fn port(node: u32) -> (RealPort, UnixDatagram) {
    let (engine, host) = UnixDatagram::pair().unwrap();
    engine.set_nonblocking(true).unwrap();
    let tun = File::from(OwnedFd::from(engine));
    (
        RealPort {
            node: NodeId(node),
            tun,
        },
        host,
    )
}

#[test]
fn a_real_packet_crosses_the_link_intact_after_propagation_and_serialisation() {
    let s = tern_sim::load("emulate-ping.toml", SCENARIO, &[], None).unwrap();
    let (pa, a) = port(0);
    let (pb, b) = port(1);
    let stop = Arc::new(AtomicBool::new(false));
    let stop_driver = Arc::clone(&stop);
    let bounds = Bounds {
        warn: SimTime::from_millis(1),
        fail: SimTime::from_millis(500),
    };
    let driver = std::thread::spawn(move || {
        World::build(&s).run_realtime(vec![pa, pb], bounds, &mut |_| {
            if stop_driver.load(Ordering::Relaxed) {
                Control::End
            } else {
                Control::Go
            }
        })
    });
    // 198.18.0.1 is node 0 (ue), 198.18.0.2 node 1 (server) (RFC 2544 range, index + 1).
    let packet = ipv4([198, 18, 0, 1], [198, 18, 0, 2], 1028);
    a.send(&ipv4([198, 18, 0, 1], [198, 18, 0, 9], 100))
        .unwrap(); // no such node
    a.send(&[0x60; 40]).unwrap(); // IPv6: not taken in
    let sent = Instant::now();
    a.send(&packet).unwrap();
    b.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 2048];
    let n = b.recv(&mut buf).unwrap();
    let took = sent.elapsed();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(&buf[..n], &packet[..], "the bytes cross intact");
    // 20 ms propagation + 1028 B × 8 / 10 Mbit/s = 822.4 µs serialisation.
    let expected = Duration::from_micros(20_822);
    assert!(took >= expected, "{took:?} < {expected:?}");
    let out = driver.join().unwrap().unwrap();
    let e = out.summary.emulation.expect("an emulation's summary");
    // Not later than the engine's own lateness explains, plus this thread's wake-up and two
    // socket hops, which a busy machine's scheduler may delay by a few time slices.
    let late = Duration::from_secs_f64(e.lateness.max_us / 1e6);
    let slack = Duration::from_millis(100);
    assert!(
        took < expected + late + slack,
        "{took:?}, engine late by {late:?}"
    );
    assert!(!e.deterministic);
    assert_eq!((e.packets_in, e.packets_out, e.ignored), (1, 1, 2));
    assert_eq!((e.bytes_in, e.bytes_out), (1028, 1028));
    assert_eq!(out.summary.links["access"]["forward"].tx_bytes, 1028);
    assert!(e.lateness.events >= 3 && e.lateness.max_us < 500_000.0);
    assert!(e.wall_s < 10.0, "ended when asked, not at the duration");
}

#[test]
fn a_simulation_with_real_nodes_has_no_emulation_summary() {
    let out = tern_sim::run_text("emulate-ping.toml", SCENARIO, &[], None).unwrap();
    assert!(out.summary.emulation.is_none());
    assert_eq!(out.summary.packets, 0);
}
