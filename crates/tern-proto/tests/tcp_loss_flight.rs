//! What a loss halves (RFC 5681 eq. 4, `ssthresh = max(flight/2, 2*SMSS)`): FlightSize by
//! default, or RFC 6675 §4's pipe with [`LossFlight::Pipe`], the rule ns-3's `TcpSocketBase`
//! follows with SACK (`EnterRecovery` passes `BytesInFlight()` to `GetSsThresh`).

mod util;

use tern_proto::tcp::{Config, LossFlight};
use util::{ack, drain, drain_data, hand_config, seg_seq, Pair};

const SMSS: u64 = 1460;

/// Segments 0..10 go out and segment 0 is lost; SACKs for 1, 2 and 3 start SACK recovery
/// (RFC 6675 §5, IsLost(HighACK+1) with DupThresh = 3). The first two SACKs each let a new
/// segment out first (§5 step 3), so 12 segments are outstanding. Returns ssthresh after
/// the third.
fn ssthresh_at_recovery(loss_flight: LossFlight) -> u64 {
    let mut p = Pair::established(Config {
        loss_flight,
        ..hand_config(true)
    });
    p.client.write(100 * SMSS);
    assert_eq!(drain(&mut p.client, p.now).len(), 10);
    let now = p.now + tern_proto::time::SimTime::from_millis(100);
    let c = &mut p.client;
    for k in 1..=3 {
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(1), seg_seq(k + 1))]));
        drain_data(c, now);
    }
    assert!(c.in_recovery());
    c.ssthresh()
}

#[test]
fn flight_size_is_halved_by_default() {
    // FlightSize: the 12 segments outstanding.
    assert_eq!(ssthresh_at_recovery(LossFlight::FlightSize), 12 * SMSS / 2);
}

#[test]
fn pipe_leaves_out_what_is_sacked_and_lost() {
    // pipe (RFC 6675 §4): 12 outstanding, less 3 SACKed (1-3), less segment 0, lost and
    // not yet resent when recovery begins: 8 segments.
    assert_eq!(ssthresh_at_recovery(LossFlight::Pipe), 8 * SMSS / 2);
}
