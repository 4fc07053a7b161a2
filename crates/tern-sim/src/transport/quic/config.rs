//! The QUIC stack's configuration from a flow's [`QuicSpec`], with every random input the stack
//! lets a user set taken from the flow's named random streams (docs/design.md, dependency notes).

use super::qlog::Qlog;
use super::tls::{self, KeyLogLines, SimClock, TokenKey};
use crate::engine::RngStream;
use crate::net::packet::{IPV4_HEADER, UDP_HEADER};
use super::spec::{QuicCcSpec, QuicScheduler, QuicSpec};
use noq_proto::congestion::{Bbr3Config, ControllerFactory, CubicConfig, NewRenoConfig};
use noq_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use noq_proto::{
    AckFrequencyConfig, ClientConfig, ConnectionId, ConnectionIdGenerator, EndpointConfig,
    IdleTimeout, MtuDiscoveryConfig, PathScheduler, ServerConfig, TransportConfig, VarInt,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Length of the connection ids Tern's endpoints issue: 8 bytes, as the stack's default
/// generator (RFC 9000 §5.1 allows 0 to 20).
const CID_LEN: usize = 8;

/// The random stream `flow/<name>/quic/<side>/<what>` of a flow.
pub fn stream(seed: u64, flow: &str, side: &str, what: &str) -> RngStream {
    RngStream::new(seed, &format!("flow/{flow}/quic/{side}/{what}"))
}

fn fill(rng: &mut RngStream, buf: &mut [u8]) {
    for chunk in buf.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
    }
}

/// Connection ids (RFC 9000 §5.1) drawn from a named stream instead of the thread's RNG.
struct SeededCids(RngStream);

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut id = [0u8; CID_LEN];
        fill(&mut self.0, &mut id);
        ConnectionId::new(&id)
    }

    fn cid_len(&self) -> usize {
        CID_LEN
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// Largest UDP payload on a path of MTU `mtu` (IPv4 without options).
pub fn max_udp_payload(spec: &QuicSpec, mtu: u32) -> u16 {
    let most = mtu - IPV4_HEADER - UDP_HEADER;
    spec.max_udp_payload.map_or(most, |b| b.0 as u32) as u16
}

/// One endpoint's configuration: its stack RNG seed (packet-number skips, spin bit, GREASE
/// transport parameter, its connections' seeds), stateless-reset key (RFC 9000 §10.3) and
/// connection ids all from `flow/<name>/quic/<side>/…` streams.
pub fn endpoint(seed: u64, flow: &str, side: &str, max_udp: u16) -> EndpointConfig {
    let mut key = [0u8; 64];
    fill(&mut stream(seed, flow, side, "reset-key"), &mut key);
    let mut rng_seed = [0u8; 32];
    fill(&mut stream(seed, flow, side, "stack"), &mut rng_seed);
    let cids = stream(seed, flow, side, "cid");
    let mut c = EndpointConfig::new(Arc::new(ring::hmac::Key::new(
        ring::hmac::HMAC_SHA256,
        &key,
    )));
    c.rng_seed(Some(rng_seed))
        .cid_generator(Arc::new(move || Box::new(SeededCids(cids.clone()))))
        .max_udp_payload_size(max_udp)
        .expect("checked: at least 1200 B");
    c
}

/// The transport parameters and recovery settings both ends use, and their qlog if asked.
pub fn transport(spec: &QuicSpec, mtu: u32, qlog: Option<&Qlog>) -> TransportConfig {
    let max_udp = max_udp_payload(spec, mtu);
    let mut t = TransportConfig::default();
    let cc: Arc<dyn ControllerFactory + Send + Sync> = match spec.cc {
        QuicCcSpec::Newreno => {
            let mut c = NewRenoConfig::default();
            if let Some(w) = spec.initial_window {
                c.initial_window(w.0);
            }
            Arc::new(c)
        }
        QuicCcSpec::Cubic => {
            let mut c = CubicConfig::default();
            if let Some(w) = spec.initial_window {
                c.initial_window(w.0);
            }
            Arc::new(c)
        }
        QuicCcSpec::Bbr => {
            let mut c = Bbr3Config::default();
            if let Some(w) = spec.initial_window {
                c.initial_window(w.0);
            }
            Arc::new(c)
        }
    };
    t.congestion_controller_factory(cc)
        .initial_mtu(spec.initial_mtu.0 as u16)
        .mtu_discovery_config(spec.mtu_discovery.then(|| {
            let mut m = MtuDiscoveryConfig::default();
            m.upper_bound(max_udp);
            m
        }))
        .ack_frequency_config(spec.ack_frequency.then(AckFrequencyConfig::default))
        .stream_receive_window(VarInt::from_u64(spec.stream_window.0).unwrap_or(VarInt::MAX))
        .receive_window(VarInt::from_u64(spec.connection_window.0).unwrap_or(VarInt::MAX))
        .send_window(spec.send_buffer.0)
        // RFC 9000 §10.1 and §18.2: an idle timeout of 0 disables it.
        .max_idle_timeout(match spec.idle_timeout.0.as_nanos() {
            0 => None,
            nanos => IdleTimeout::try_from(Duration::from_nanos(nanos)).ok(),
        })
        // One datagram per transmit: the world sends packets one at a time.
        .enable_segmentation_offload(false);
    if let Some(q) = qlog {
        t.qlog_factory(Arc::new(q.clone()));
    }
    if spec.paths.len() > 1 {
        // draft-ietf-quic-multipath-21: the initial_max_path_id transport parameter allows
        // this many concurrent paths.
        t.max_concurrent_multipath_paths(spec.paths.len() as u32)
            .path_scheduler(match spec.scheduler {
                QuicScheduler::LowestId => PathScheduler::LowestId,
                QuicScheduler::MinRtt => PathScheduler::MinRtt,
                QuicScheduler::RoundRobin => PathScheduler::RoundRobin,
            });
    }
    t
}

/// What a flow's two endpoint configurations are made from.
pub struct Setup<'a> {
    pub spec: &'a QuicSpec,
    /// The path MTU.
    pub mtu: u32,
    pub seed: u64,
    pub flow: &'a str,
    pub clock: Arc<SimClock>,
    pub qlog: Option<&'a Qlog>,
    /// The application protocol the client offers and the server accepts in the TLS
    /// handshake (ALPN, RFC 7301; RFC 9001 §8.1), if any.
    pub alpn: Option<&'static [u8]>,
}

/// The client's configuration: TLS trusting Tern's test CA, and its first destination
/// connection id (RFC 9000 §7.2) from the flow's stream.
pub fn client(s: &Setup, keys: Arc<KeyLogLines>) -> ClientConfig {
    let tls = QuicClientConfig::try_from(tls::client_config(s.clock.clone(), keys, s.alpn))
        .expect("ring offers TLS_AES_128_GCM_SHA256 for Initial packets");
    let mut c = ClientConfig::new(Arc::new(tls));
    let dcid = Mutex::new(stream(s.seed, s.flow, "client", "initial-dcid"));
    c.transport_config(Arc::new(transport(s.spec, s.mtu, s.qlog)))
        .initial_dst_cid_provider(Arc::new(move || {
            // RFC 9000 §7.2: at least 8 unpredictable bytes.
            let mut id = [0u8; CID_LEN];
            fill(&mut dcid.lock().expect("not poisoned"), &mut id);
            ConnectionId::new(&id)
        }));
    c
}

/// The server's configuration: the shipped certificate, a token key and the simulated clock.
pub fn server(s: &Setup) -> ServerConfig {
    let tls = QuicServerConfig::try_from(tls::server_config(s.clock.clone(), s.alpn))
        .expect("ring offers TLS_AES_128_GCM_SHA256 for Initial packets");
    let key = TokenKey::new(&mut stream(s.seed, s.flow, "server", "token-key"));
    let mut c = ServerConfig::new(Arc::new(tls), Arc::new(key));
    c.transport_config(Arc::new(transport(s.spec, s.mtu, s.qlog)))
        .time_source(s.clock.clone());
    c
}
