//! DCCP with CCID 3 (RFC 4340, RFC 4342), and TFRC over UDP (RFC 5348 §3.2), as one sans-IO
//! protocol: a half-connection whose client sends data at TFRC's rate and whose server
//! answers with feedback.
//!
//! Module map: [`wire`] (packet types, wire sizes of RFC 4340 §5 and RFC 4342 §8, the
//! application payload as the caller's type), [`capture`] (the bytes of each packet for a
//! capture file), [`tfrc`] (the sender's and receiver's rules of RFC 5348 / RFC 3448),
//! `client` (the RFC 4340 §8.1 handshake's client and the TFRC sender: [`Client`]),
//! `server` (the handshake's server and the TFRC receiver: [`Server`]).
//!
//! Over UDP there is no handshake: the client is open from its start and the server from
//! its first packet. The window counter CCVal of RFC 4342 §8.1 is not modelled (sent as 0).
//!
//! # Call order
//! Every call gives the current time; time never goes backwards.
//! - Client: after each input — [`Client::handle_packet`] (Response, feedback),
//!   [`Client::handle_timeout`] (at [`Client::poll_timeout`]), [`Client::handle_no_data`]
//!   (the application had nothing when it could have sent) — the caller drains
//!   [`Client::poll_control`] until `None`, then [`Client::poll_data`] until `None`
//!   (each call takes one application message), then re-reads [`Client::poll_timeout`].
//! - Server: after [`Server::handle_packet`] or [`Server::handle_timeout`] (at
//!   [`Server::poll_timeout`]) the caller takes [`Server::poll_transmit`] (at most one
//!   packet per input) and re-reads [`Server::poll_timeout`].
//! - Mechanisms above the protocol (the tfrc-handover study's countermeasures) act through
//!   [`Client::sender_mut`] between inputs, then drain the client as after an input.

pub mod capture;
mod client;
mod server;
pub mod tfrc;
pub mod wire;

pub use client::{Client, ClientEvent, REQUEST_TIMEOUT, REQUEST_TIMEOUT_MAX};
pub use server::Server;
pub use wire::{Body, DccpType, Packet, Payload, Rtt, Wire, HANDOVER_NOTICE, NO_LOSS};
