//! The link queue and the event queue under an address-space limit (`RLIMIT_AS`,
//! setrlimit(2)): when the allocator refuses them room, they refuse the one item they had
//! no room for and stay consistent, so that the run stops with `RunError::Memory` ("out of
//! memory with N packets in the network", exit code 2) instead of the process aborting as
//! `Vec::push` does (`handle_alloc_error`). The packet pool's own case, through a whole
//! run, is `tests/test_bounded_memory.py`.
//!
//! Without the test harness (`harness = false`): the limit is the process's, so the cases
//! run one after the other on the main thread, after it is set.

mod common;

#[cfg(target_os = "linux")]
fn main() {
    use nix::sys::resource::{setrlimit, Resource};
    // Room for about 10 million events or queued packets above what the process maps now:
    // the queues' doublings reach it within seconds, even in a debug build.
    let limit = common::vm_size() + (256 << 20);
    setrlimit(Resource::RLIMIT_AS, limit, limit).expect("setrlimit(RLIMIT_AS)");
    an_event_queue_refuses_what_it_has_no_room_for();
    a_link_queue_refuses_what_it_has_no_room_for();
    println!("out_of_memory: both queues refused cleanly under RLIMIT_AS");
}

#[cfg(not(target_os = "linux"))]
fn main() {}

/// Most items either queue can be given before the limit: 256 MiB over 16-byte items.
#[cfg(target_os = "linux")]
const AT_MOST: u64 = 1 << 25;

/// Events scheduled at ever later times until one is refused: the queue says so, holds
/// exactly the events it took, and pops them in time order.
#[cfg(target_os = "linux")]
fn an_event_queue_refuses_what_it_has_no_room_for() {
    use tern_sim::engine::{EventQueue, SimTime};
    let mut q: EventQueue<u64> = EventQueue::new();
    let mut taken = 0u64;
    // Times spread over every digit level of the radix heap: an odd multiplier permutes
    // the low 40 bits, so events land in lists and vectors alike.
    let time = |k: u64| SimTime((k.wrapping_mul(0x9E37_79B9) & ((1 << 40) - 1)) + 1);
    while !q.exhausted() {
        assert!(taken < AT_MOST, "no refusal after {taken} events");
        q.schedule(time(taken), taken);
        taken += 1;
    }
    let kept = taken - 1;
    assert_eq!(q.len() as u64, kept, "the refused event is not counted");
    assert!(kept > 1 << 16, "refused after only {kept} events");
    // Popping moves events between buckets, which may need room the allocator still
    // refuses: such an event is lost and counted out (the run stops at its next check);
    // every other one comes out, in time order.
    let mut previous = SimTime::ZERO;
    let (mut popped, mut lost) = (0u64, 0u64);
    loop {
        let before = q.len() as u64;
        let Some((at, k)) = q.pop() else {
            lost += before;
            break;
        };
        lost += before - 1 - q.len() as u64;
        assert!(at >= previous, "popped out of time order");
        assert_eq!(at, time(k), "an event popped with another's time");
        previous = at;
        popped += 1;
    }
    assert_eq!(popped + lost, kept);
    assert!(
        lost < kept / 1000,
        "{lost} of {kept} events lost while popping"
    );
}

/// Packets offered to a DropTail queue whose limit no memory holds: once the allocator
/// refuses room, the offer is refused as out of memory (not as a tail drop), and the
/// queue holds the packets it took.
#[cfg(target_os = "linux")]
fn a_link_queue_refuses_what_it_has_no_room_for() {
    use tern_sim::engine::SimTime;
    use tern_sim::net::packet::{Body, FlowId, NodeId, PacketPool, UdpKind, UdpMessage};
    use tern_sim::net::qdisc::{Qdisc, Queued, OUT_OF_MEMORY};
    use tern_sim::scenario::units::QueueLimit;
    let mut pool = PacketPool::default();
    let body = Body::Udp(UdpMessage {
        kind: UdpKind::Data,
        seq: 0,
        sent_at: SimTime::ZERO,
        len: 100,
    });
    // The queue never reads its handles: one packet, offered again and again.
    let packet = pool
        .insert(FlowId(0), NodeId(0), NodeId(1), body)
        .expect("an empty pool has room");
    let mut qdisc = Qdisc::DropTail(tern_sim::net::qdisc::DropTail::new(QueueLimit::Packets(
        4_000_000_000_000,
    )));
    let mut taken = 0u64;
    let refused = loop {
        assert!(taken < AT_MOST, "no refusal after {taken} packets");
        let q = Queued {
            packet,
            size: 128,
            enqueued_at: SimTime::ZERO,
        };
        match qdisc.enqueue(q) {
            Ok(()) => taken += 1,
            Err(why) => break why,
        }
    };
    assert_eq!(refused, OUT_OF_MEMORY);
    assert!(taken > 1 << 16, "refused after only {taken} packets");
    assert_eq!(qdisc.packets() as u64, taken);
    assert_eq!(qdisc.bytes(), 128 * taken);
}
