//! `[[flows]]`: applications, transports (TCP settings) and the connection switcher.

use super::super::units::{Bytes, DataRate, Duration};
use super::defaults::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A TCP flow's settings, in its transport's folder.
pub use crate::transport::tcp::spec::*;
/// A flow's transport: one kind's settings, from the list of transports.
/// Makes [`TransportSpec`] from the transports' list ([`with_transports!`](crate::with_transports)):
/// a variant per kind holding its slice's `spec::Spec`, the first the default, and the
/// dispatch to the slices' `spec::STREAM` and `spec::check`. Each slice's spec.rs is of this
/// layer (it imports only `scenario`), so the scenario names no transport's model.
#[doc(hidden)]
#[macro_export]
macro_rules! transport_spec {
    (
        {}
        $(#[$first_doc:meta])* $first:ident => $first_slice:ident,
        $($(#[$doc:meta])* $kind:ident => $slice:ident,)*
    ) => {
        /// A flow's transport in a scenario: `transport = { kind = "…", … }` with its
        /// kind's settings.
        #[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
        pub enum TransportSpec {
            $(#[$first_doc])* $first($crate::transport::$first_slice::spec::Spec),
            $($(#[$doc])* $kind($crate::transport::$slice::spec::Spec),)*
        }

        impl Default for TransportSpec {
            fn default() -> Self {
                TransportSpec::$first(Default::default())
            }
        }

        impl TransportSpec {
            /// Whether the transport is a reliable byte stream (TCP, QUIC) rather than
            /// datagrams.
            pub fn is_stream(&self) -> bool {
                match self {
                    TransportSpec::$first(_) => $crate::transport::$first_slice::spec::STREAM,
                    $(TransportSpec::$kind(_) => $crate::transport::$slice::spec::STREAM,)*
                }
            }

            /// The checks of a flow's transport settings that their types do not make.
            pub(crate) fn check(
                &self,
                cx: &$crate::scenario::CheckCx<'_, '_>,
            ) -> Result<(), $crate::scenario::ScenarioError> {
                match self {
                    TransportSpec::$first(s) => $crate::transport::$first_slice::spec::check(s, cx),
                    $(TransportSpec::$kind(s) => $crate::transport::$slice::spec::check(s, cx),)*
                }
            }
        }
    };
}

crate::with_transports! { transport_spec {} }

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

pub use crate::trace::RecordKind;
