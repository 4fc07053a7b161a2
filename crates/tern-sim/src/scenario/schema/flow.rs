//! `[[flows]]`: applications, transports (TCP settings) and the connection switcher.

use super::super::units::{Bytes, DataRate, Duration};
use super::defaults::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A TCP flow's settings, in its transport's folder.
pub use crate::transport::tcp::spec::*;
/// A flow's transport: one kind's settings, from the list of transports.
pub use crate::transport::TransportSpec;

/// An application talking from one node to another over a transport.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    pub app: AppSpec,
    #[serde(default)]
    pub transport: TransportSpec,
    /// When the application starts (default 0 s).
    #[serde(default = "zero")]
    pub start: Duration,
    /// When the application stops sending (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Send the messages over two TCP connections and switch to the spare one
    /// after a handover's burst loss (`ConnectionSwitcher`; TCP periodic flows
    /// from the UE of an LTE cell link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switcher: Option<SwitcherSpec>,
    /// Pins the flow to one interface of a host with several: the name of a link or an
    /// 802.11 BSS that `from` is on. The client's packets leave by it and the server's
    /// arrive by it, whatever the routes say (a host's address on that interface, as a
    /// socket bound to it). Default: the routes decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// `ConnectionSwitcher` settings. Defaults are the lte-switch study's trial
/// parameters (§4: T_recvinterval 3 s, T_switch 10 s, 100 ms message period).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitcherSpec {
    /// "notice": switch on the server's loss-start notice (the mechanism);
    /// "oracle": switch exactly when the handover completes (the ideal);
    /// "never": one connection, no notices (the baseline).
    #[serde(default)]
    pub policy: SwitchPolicy,
    /// T_recvinterval: receive gap after which the server sends loss-start notices.
    #[serde(default = "s3")]
    pub recv_interval: Duration,
    /// T_switch: a notice switches only if it arrives within this long after a handover.
    #[serde(default = "s10")]
    pub switch_window: Duration,
    /// Period of repeated notices (the study's downlink message period, 100 ms).
    #[serde(default = "ms100")]
    pub notice_interval: Duration,
    /// UDP payload of a notice (the study's 50-byte downlink messages).
    #[serde(default = "b50")]
    pub notice_size: Bytes,
    /// Whether the spare connection is opened at the start (the study) or
    /// only when switching (an ablation: the cost of the handshake).
    #[serde(default)]
    pub spare: SpareSpec,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SwitchPolicy {
    #[default]
    Notice,
    Oracle,
    Never,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SpareSpec {
    #[default]
    PreEstablished,
    OnDemand,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum AppSpec {
    /// A message of `size` every `interval`; each carries its send time and a
    /// sequence number, and the receiver records its one-way delay.
    Periodic {
        size: Bytes,
        interval: Duration,
        /// Stop after this many messages (default: until `stop` or the end).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// Constant bit rate: messages of `size` spaced `size * 8 / rate` apart
    /// (the rate counts application payload, as iperf does).
    Cbr { rate: DataRate, size: Bytes },
    /// Bulk transfer over TCP (like iperf): `bytes` in all, or unlimited.
    /// The completion time is recorded.
    Bulk {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<Bytes>,
    },
    /// A page download: the client sends a request, the server answers with
    /// `size` bytes and closes. Over QUIC it is an HTTP/3 GET (RFC 9114 frames,
    /// QPACK with the static table only, ALPN "h3"). The transfer time runs
    /// from the flow's start (connection set-up included) to the last byte read.
    File {
        size: Bytes,
        /// Request size (default 100 B, a short HTTP/1.0 GET line; no study gives one);
        /// over QUIC the length of the GET's `:path`, its HEADERS frame around it.
        #[serde(default = "request_size")]
        request: Bytes,
    },
    /// Echo request every `interval`, answered by the far end; RTTs are recorded.
    Ping {
        /// Payload size (default 56 B, as iputils ping).
        #[serde(default = "ping_size")]
        size: Bytes,
        /// Default 1 s, as iputils ping.
        #[serde(default = "ping_interval")]
        interval: Duration,
    },
}

/// Trace tables a run can record.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// Queue length (packets, bytes) of every link direction at every change.
    Queue,
    /// One-way delay of every message delivered to an application.
    Delay,
    /// Every dropped packet, with where and why.
    Drops,
    /// Round-trip times of ping replies.
    Rtt,
    /// TCP congestion window, ssthresh and bytes in flight at every change.
    Cwnd,
    /// TCP SRTT, RTTVAR and RTO at every RTT sample.
    Rto,
    /// Every TCP retransmission (fast, RTO, SACK recovery, probe) and RTO expiry.
    Retransmits,
    /// Every completed handover of a cellular link.
    Handovers,
    /// `ConnectionSwitcher` events: notices sent and received, switches.
    Switcher,
    /// RLC AM per TTI and direction: sender buffer, PDUs sent and retransmitted;
    /// and (table `rlc_sdu`) every SDU's delay across the RLC.
    Rlc,
    /// 802.11: every PPDU on the air (sender, receiver, kind, rate and MCS, MPDUs sent and
    /// acknowledged, collision, the receiver's SNR).
    Wifi,
    /// 802.11: every MPDU a receiver's PHY delivered, with a good or a bad FCS, and its
    /// sequence number (what a receiver's driver sees).
    #[serde(rename = "wifi_rx")]
    WifiRx,
    /// 802.11n: every MPDU an AP's retry-out index declared lost (`wifi.retry_out`), with
    /// its failed receptions, the index and the station's smoothed data rate.
    #[serde(rename = "retry_out")]
    RetryOut,
    /// 802.11 roaming: every time a station leaves an AP or joins one.
    Roaming,
    /// 802.11: the RSSI of every AP's beacons at each of its stations, every beacon
    /// interval (102.4 ms).
    Rssi,
    /// TFRC: the sender's allowed rate X, the reported receive rate X_recv, the loss event
    /// rate p and the RTT estimate, at every feedback and no-feedback timeout.
    Tfrc,
    /// QUIC: each endpoint's congestion window, smoothed RTT, PTO count (RFC 9002 §6.2.1,
    /// read from the stack's qlog, which it then writes) and sent/lost packet counts per path,
    /// at every change.
    Quic,
    /// Every TCP segment sent, with its sequence and acknowledgment offsets and whether it
    /// is a retransmission (time-sequence graphs).
    Segments,
    /// Multipath QUIC with the RSSI-threshold scheduler: every change of class, with the RSSI
    /// and each path's old and new status.
    #[serde(rename = "path_status")]
    PathStatus,
    /// QUIC: a qlog file per endpoint of every QUIC flow (`<flow>.client.sqlog`,
    /// `<flow>.server.sqlog`; JSON-SEQ, draft-ietf-quic-qlog-main-schema-13 §5, with the
    /// header fields and event names of qlog 0.3 that qvis reads), with simulated times,
    /// streamed into the output folder as the run goes.
    Qlog,
    /// A packet capture per link direction (`<link>.<direction>.pcap`), taken
    /// as each packet starts leaving its interface, with real IPv4/TCP/UDP headers.
    Pcap,
}
