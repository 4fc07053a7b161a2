//! TCP's trace records: its endpoints' windows, RTT estimators, retransmissions and segments.

use crate::engine::SimTime;

crate::record! {
    /// A TCP endpoint's congestion window changed.
    CwndRecord<'a> => "cwnd" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Congestion window, bytes.
        cwnd: u64,
        /// Null until the first loss sets it (TCP starts with an "infinite" ssthresh).
        ssthresh: Option<u64>,
        /// Bytes sent and not yet acknowledged.
        in_flight: u64,
        /// Pacing rate, bytes per second; null when the endpoint does not pace (`pacing`).
        pacing_rate: Option<u64>,
    }
}

crate::record! {
    /// A TCP endpoint's RTT estimator after a sample (RFC 6298).
    RtoRecord<'a> => "rto" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Smoothed RTT (RFC 6298 §2).
        srtt: SimTime,
        /// RTT variation (RFC 6298 §2).
        rttvar: SimTime,
        /// The retransmission timeout after the sample.
        rto: SimTime,
    }
}

crate::record! {
    /// A TCP retransmission (`kind` fast, rto, sack, probe, speculative), an RTO expiry
    /// (`rto_expiry`) or a spurious RTO found (`spurious_rto`).
    RetransmitRecord<'a> => "retransmits" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        kind: &'a str,
        /// The first sequence number retransmitted; null for expiries and spurious RTOs.
        seq: Option<u32>,
        /// Bytes retransmitted; for `spurious_rto`, the restored congestion window; null
        /// for expiries.
        len: Option<u64>,
        /// For expiries: the back-off count; null otherwise.
        backoff: Option<u32>,
        /// For expiries: the timer's new value; null otherwise.
        rto: Option<SimTime>,
    }
}

crate::record! {
    /// A TCP segment an endpoint sent, for time-sequence graphs (sequence number against
    /// time, as tcptrace draws them from a capture). Sequence and acknowledgment numbers are
    /// offsets from the endpoint's and its peer's initial sequence numbers (the SYN is 0,
    /// the first data byte 1), so a transfer's bytes count from 1 whatever the ISNs.
    SegmentRecord<'a> => "segments" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Offset of the first byte (of the SYN or FIN for those flags).
        seq: u64,
        /// Payload bytes (0 for a pure ACK).
        len: u32,
        /// Offset of the acknowledgment; null on a segment without ACK (the first SYN).
        ack: Option<u64>,
        /// Whether the bytes had been sent before (a retransmission of any kind).
        retransmission: bool,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// TCP congestion window, ssthresh and bytes in flight at every change.
                Cwnd = "cwnd",
                /// TCP SRTT, RTTVAR and RTO at every RTT sample.
                Rto = "rto",
                /// Every TCP retransmission (fast, RTO, SACK recovery, probe) and RTO expiry.
                Retransmits = "retransmits",
                /// Every TCP segment sent, with its sequence and acknowledgment offsets and whether it
                /// is a retransmission (time-sequence graphs).
                Segments = "segments",
            }
            tables {
                CwndRecord in transport::tcp::records => Cwnd,
                RtoRecord in transport::tcp::records => Rto,
                RetransmitRecord in transport::tcp::records => Retransmits,
                SegmentRecord in transport::tcp::records => Segments,
            }
        }
    };
}
pub(crate) use records;
