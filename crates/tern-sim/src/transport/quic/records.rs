//! QUIC's trace records: each endpoint's path state (`quic`), and its qlog files (`qlog`, no table).

use crate::engine::SimTime;

crate::record! {
    /// A QUIC endpoint's path state from the stack's own statistics, whenever its congestion
    /// window, bytes in flight, smoothed RTT, PTO count or lost-packet count changed; keyed by
    /// path id from the start (0 for single-path QUIC).
    QuicRecord<'a> => "quic" {
        time: SimTime,
        flow: &'a str,
        /// "client" or "server".
        endpoint: &'a str,
        /// The path id (0 for single-path QUIC; with multipath, the index in `paths`).
        path: u64,
        /// Congestion window, bytes.
        cwnd: u64,
        /// Bytes of ack-eliciting packets sent and not yet acknowledged or declared lost
        /// (RFC 9002 §B.2 `bytes_in_flight`), as the stack reports it in its qlog
        /// (`recovery_metrics_updated`); its path statistics do not have it.
        bytes_in_flight: u64,
        /// Smoothed RTT (RFC 9002 §5.3).
        srtt: SimTime,
        /// Probe timeouts since the last acknowledgment (RFC 9002 §6.2.1: the PTO period is
        /// multiplied by 2^pto_count), as the stack reports it in its qlog
        /// (`recovery_metrics_updated`); it has no other way to tell.
        pto_count: u64,
        /// Packets sent so far.
        sent_packets: u64,
        /// Packets declared lost so far (RFC 9002 §6.1).
        lost_packets: u64,
        /// Congestion events so far (RFC 9002 §7.3.2).
        congestion_events: u64,
        /// Largest UDP payload the path carries (PMTUD, RFC 9000 §14.3).
        mtu: u64,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// QUIC: each endpoint's congestion window, smoothed RTT, PTO count (RFC 9002 §6.2.1,
                /// read from the stack's qlog, which it then writes) and sent/lost packet counts per path,
                /// at every change.
                Quic = "quic",
                /// QUIC: a qlog file per endpoint of every QUIC flow (`<flow>.client.sqlog`,
                /// `<flow>.server.sqlog`; JSON-SEQ, draft-ietf-quic-qlog-main-schema-13 §5, with the
                /// header fields and event names of qlog 0.3 that qvis reads), with simulated times,
                /// streamed into the output folder as the run goes.
                Qlog = "qlog",
            }
            tables {
                QuicRecord in transport::quic::records => Quic,
            }
        }
    };
}
pub(crate) use records;
