//! What a packet carries past its IPv4 header: `Body`, made from the transports' list
//! (`with_transports!`), a variant per kind holding its slice's wire type
//! (`transport/<kind>/wire.rs`, which imports only `net` and `tern-proto`), and `Raw`, a
//! real host's bytes in an emulation. Its capture bytes are the trace's
//! (`trace::pcap::WireEncode`, implemented in each slice's capture.rs).

use super::packet::IPV4_HEADER;

/// IP protocol numbers (IANA, "Assigned Internet Protocol Numbers"): TCP (RFC 9293).
pub const PROTO_TCP: u8 = 6;
/// UDP (RFC 768).
pub const PROTO_UDP: u8 = 17;
/// DCCP (RFC 4340 §19.1).
pub const PROTO_DCCP: u8 = 33;

/// What a kind of transport puts in its packets: its variant of [`Body`] and its size on
/// the wire.
pub trait WireBody {
    /// Transport header plus payload, in bytes.
    fn transport_len(&self) -> u32;

    /// Its IP protocol number (the IPv4 header's Protocol field).
    fn ip_proto(&self) -> u8;

    /// Whether it is one of the application's messages that may still arrive (a datagram):
    /// the summary counts those in the network at the end as in flight.
    fn is_message(&self) -> bool {
        false
    }
}

/// Makes [`Body`] from the transports' list (see the module doc).
#[doc(hidden)]
#[macro_export]
macro_rules! packet_body {
    ( {} $($(#[$doc:meta])* $kind:ident => $slice:ident,)* ) => {
        /// What a packet carries past its IPv4 header: one transport's packet, or a real
        /// host's bytes.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Body {
            $($(#[$doc])* $kind($crate::transport::$slice::wire::OnWire),)*
            /// A whole IPv4 packet of a real host (emulation, [`$crate::emu`]), header
            /// included, exactly as its kernel wrote it to its TUN device; it crosses Tern
            /// intact.
            Raw(Vec<u8>),
        }

        impl Body {
            /// Transport header plus payload, in bytes.
            #[inline]
            pub fn transport_len(&self) -> u32 {
                match self {
                    $(Body::$kind(b) => WireBody::transport_len(b),)*
                    // The size on the link is the real packet's; injection accepts none
                    // shorter than an IPv4 header.
                    Body::Raw(b) => (b.len() as u32).saturating_sub(IPV4_HEADER),
                }
            }

            /// Its IP protocol number ([`WireBody::ip_proto`]; a real host's from its IPv4
            /// header).
            pub fn ip_proto(&self) -> u8 {
                match self {
                    $(Body::$kind(b) => WireBody::ip_proto(b),)*
                    Body::Raw(b) => b.get(9).copied().unwrap_or(0),
                }
            }

            /// Whether it is one of the application's messages that may still arrive
            /// ([`WireBody::is_message`]).
            pub fn is_message(&self) -> bool {
                match self {
                    $(Body::$kind(b) => WireBody::is_message(b),)*
                    Body::Raw(_) => false,
                }
            }
        }
    };
}

crate::with_transports! { packet_body {} }
