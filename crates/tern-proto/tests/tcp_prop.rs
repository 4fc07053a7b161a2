//! Property: over random impairments (loss, duplication, reordering,
//! outages, delay spikes), with F-RTO (RFC 5682) on or off and with Reno or
//! NewReno recovery when SACK is off (odd seeds: Reno), a transfer
//! is delivered exactly once and in order, both sides finish, and nothing
//! deadlocks.

mod util;

use proptest::prelude::*;
use tern_proto::tcp::{CcKind, Config, DelayedAck, RecoveryKind, State};
use tern_proto::time::SimTime;
use util::{Pair, Side, Wire};

fn config(sack: bool, cc: CcKind, timestamps: bool) -> Config {
    Config {
        sack,
        cc,
        timestamps,
        min_rto: SimTime::from_millis(200),
        send_buffer: 64 * 1024,
        recv_buffer: 32 * 1024,
        time_wait: SimTime::from_secs(2),
        delayed_ack: Some(DelayedAck::default()),
        ..Config::default()
    }
}

/// Runs one transfer; returns an error message on a violated property.
#[allow(clippy::too_many_arguments)]
pub fn transfer(
    seed: u64,
    bytes: u64,
    back: u64,
    wire: Wire,
    sack: bool,
    cc: CcKind,
    ts: bool,
    stall: SimTime,
) -> Result<(), String> {
    transfer_with(seed, bytes, back, wire, sack, cc, ts, false, stall)
}

/// [`transfer`] with F-RTO (RFC 5682) on or off at both ends.
#[allow(clippy::too_many_arguments)]
pub fn transfer_with(
    seed: u64,
    bytes: u64,
    back: u64,
    wire: Wire,
    sack: bool,
    cc: CcKind,
    ts: bool,
    frto: bool,
    stall: SimTime,
) -> Result<(), String> {
    let recovery = if seed % 2 == 1 {
        RecoveryKind::Reno
    } else {
        RecoveryKind::NewReno
    };
    let cfg = Config {
        frto,
        recovery,
        ..config(sack, cc, ts)
    };
    let mut p = Pair::new(cfg.clone(), cfg, wire, seed);
    let (mut to_write, mut back_to_write) = (bytes, back);
    let (mut client_closed, mut server_closed) = (false, false);
    for _ in 0..2_000_000 {
        if p.client.state().is_synchronized() && to_write > 0 {
            to_write -= p.client.write(to_write);
        }
        if p.client.state().is_synchronized() && to_write == 0 && !client_closed {
            p.client.close();
            client_closed = true;
        }
        if p.server.state().is_synchronized() && back_to_write > 0 {
            back_to_write -= p.server.write(back_to_write);
        }
        if p.server.peer_closed() && back_to_write == 0 && !server_closed {
            p.server.close();
            server_closed = true;
        }
        // The server application stops reading until `stall` (zero window).
        p.auto_read = p.now >= stall;
        p.client_read += p.client.read(u64::MAX);
        p.drive();
        // No deadlock: outstanding data implies a timer or a segment on the wire.
        for c in [&p.client, &p.server] {
            if c.state() != State::Closed
                && c.unacked_bytes() > 0
                && c.poll_timeout().is_none()
                && p.wire_is_empty()
            {
                return Err(format!("deadlock at {}: {:?}", p.now, c.state()));
            }
        }
        if p.client.state() == State::Closed && p.server.state() == State::Closed {
            break;
        }
        if p.client.state() == State::Closed && !client_closed {
            return gave_up_connecting(&p);
        }
        if !p.step() {
            return Err(format!(
                "idle at {} in {:?}/{:?}",
                p.now,
                p.client.state(),
                p.server.state()
            ));
        }
    }
    // Data stays readable after the connection closed.
    p.server_read += p.server.read(u64::MAX);
    if p.server_read != bytes || p.server.stats().bytes_delivered != bytes {
        return Err(format!(
            "server read {} delivered {} of {bytes}",
            p.server_read,
            p.server.stats().bytes_delivered
        ));
    }
    if p.client_read != back || p.client.stats().bytes_delivered != back {
        return Err(format!("client read {} of {back}", p.client_read));
    }
    if p.client.state() != State::Closed || p.server.state() != State::Closed {
        return Err(format!(
            "not closed: {:?}/{:?}",
            p.client.state(),
            p.server.state()
        ));
    }
    Ok(())
}

/// The client may abort only by giving up its active open (RFC 9293
/// §3.8.3 R2 for SYNs): after `syn_retries` retransmissions, every one of
/// its SYNs having been lost, with the server still listening.
fn gave_up_connecting(p: &Pair) -> Result<(), String> {
    let syns = p
        .sent
        .iter()
        .filter(|(_, side, seg)| *side == Side::Client && seg.flags.syn)
        .count();
    let expected = Config::default().syn_retries as usize + 1;
    if syns == expected && p.server.state() == State::Listen {
        Ok(())
    } else {
        Err(format!(
            "client closed at {} after {syns} SYNs (expected {expected}), server {:?}",
            p.now,
            p.server.state()
        ))
    }
}

fn arb_wire() -> impl Strategy<Value = Wire> {
    (
        1u64..100,
        0u64..30,
        0.0f64..0.25,
        0.0f64..0.05,
        prop::option::of((0u64..3000, 0u64..4000)),
        prop::option::of((0u64..3000, 0u64..3000, 0u64..2000)),
    )
        .prop_map(|(delay, jitter, loss, dup, outage, spike)| Wire {
            delay: SimTime::from_millis(delay),
            jitter: SimTime::from_millis(jitter),
            loss,
            duplicate: dup,
            outage: outage.map(|(a, d)| (SimTime::from_millis(a), SimTime::from_millis(a + d))),
            // Delay spikes make the RTO fire spuriously (F-RTO's case).
            spike: spike.map(|(a, d, x)| {
                (
                    SimTime::from_millis(a),
                    SimTime::from_millis(a + d),
                    SimTime::from_millis(x),
                )
            }),
        })
}

proptest! {
    // Every byte exactly once, in order, over at least 10 000 random loss
    // patterns, outages and delay spikes (each case is bounded: see `transfer_with`).
    #![proptest_config(util::proptest_config(10_000, 0x7e51))]

    #[test]
    fn transfer_is_exact_and_terminates(
        seed in any::<u64>(),
        bytes in 0u64..200_000,
        back in 0u64..20_000,
        wire in arb_wire(),
        sack in any::<bool>(),
        cubic in any::<bool>(),
        ts in any::<bool>(),
        frto in any::<bool>(),
        stall in 0u64..4000,
    ) {
        let cc = if cubic { CcKind::Cubic } else { CcKind::NewReno };
        let stall = SimTime::from_millis(stall);
        if let Err(e) = transfer_with(seed, bytes, back, wire, sack, cc, ts, frto, stall) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// A delay spike past the RTO under every variant, with and without
/// F-RTO, plus loss: exact, terminating transfers.
#[test]
fn delay_spike_transfer_all_variants_frto() {
    for frto in [false, true] {
        for (i, (sack, cc)) in [
            (false, CcKind::NewReno),
            (true, CcKind::NewReno),
            (false, CcKind::Cubic),
            (true, CcKind::Cubic),
        ]
        .into_iter()
        .enumerate()
        {
            for loss in [0.0, 0.05] {
                let wire = Wire {
                    loss,
                    jitter: SimTime::from_millis(5),
                    spike: Some((
                        SimTime::from_millis(300),
                        SimTime::from_millis(1500),
                        SimTime::from_millis(1300),
                    )),
                    ..Wire::default()
                };
                transfer_with(
                    i as u64,
                    300_000,
                    5_000,
                    wire,
                    sack,
                    cc,
                    i % 2 == 0,
                    frto,
                    SimTime::ZERO,
                )
                .unwrap_or_else(|e| panic!("frto={frto} sack={sack} {cc:?} loss={loss}: {e}"));
            }
        }
    }
}

#[test]
fn clean_transfer_all_variants() {
    for sack in [false, true] {
        for cc in [CcKind::NewReno, CcKind::Cubic] {
            transfer(
                1,
                500_000,
                10_000,
                Wire::default(),
                sack,
                cc,
                true,
                SimTime::ZERO,
            )
            .unwrap();
        }
    }
}

#[test]
fn lossy_transfer_all_variants() {
    for (i, (sack, cc)) in [
        (false, CcKind::NewReno),
        (true, CcKind::NewReno),
        (false, CcKind::Cubic),
        (true, CcKind::Cubic),
    ]
    .into_iter()
    .enumerate()
    {
        let wire = Wire {
            loss: 0.1,
            jitter: SimTime::from_millis(20),
            duplicate: 0.02,
            outage: Some((SimTime::from_millis(500), SimTime::from_millis(2500))),
            ..Wire::default()
        };
        transfer(
            i as u64,
            300_000,
            5_000,
            wire,
            sack,
            cc,
            i % 2 == 0,
            SimTime::from_secs(3),
        )
        .unwrap();
    }
}

/// Found by the property test: seven SYNs in a row lost on a 19 % loss wire.
#[test]
fn syn_loss_gives_up_after_retries() {
    let wire = Wire {
        delay: SimTime::from_millis(1),
        loss: 0.1908917108890314,
        ..Wire::default()
    };
    let cc = CcKind::NewReno;
    transfer(
        13601455008002350239,
        0,
        0,
        wire,
        false,
        cc,
        false,
        SimTime::ZERO,
    )
    .unwrap();
}
