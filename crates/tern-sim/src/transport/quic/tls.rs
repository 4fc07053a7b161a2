//! Everything random or timed that the QUIC stack and TLS 1.3 (RFC 9001) would otherwise take
//! from the machine, taken from Tern instead: random bytes from a flow's named random stream,
//! the time from the simulated clock, and a fixed test certificate shipped with Tern.
//!
//! - **Random bytes.** rustls asks its `CryptoProvider` for randomness (ClientHello and
//!   ServerHello randoms, session ticket ids) through a `&'static dyn SecureRandom`, and the
//!   key exchange draws its ephemeral key itself. [`SimRandom`] and [`X25519`] are those two,
//!   drawing from the stream an endpoint installs with [`with_entropy`] for the duration of
//!   each call into the stack; outside such a call they fail, so nothing can fall back to the
//!   operating system's randomness unseen. X25519 (RFC 7748) is the one key exchange group
//!   offered: its shares are always 32 bytes.
//! - **Time.** [`SimClock`] is the wall clock TLS checks certificates against and the QUIC
//!   server stamps address-validation tokens with: a fixed date ([`CLOCK_BASE_UNIX_S`]) plus
//!   the simulated time.
//! - **Certificate.** `certs/` holds a CA and a server certificate, both Ed25519 (RFC 8032:
//!   signatures are deterministic and always 64 bytes, so the handshake's size and bytes
//!   repeat), made once by `scripts/gen-quic-cert.sh`. The client verifies the server's
//!   certificate against that CA with rustls' WebPKI verifier, as a real client would.

use crate::engine::RngStream;
use noq_proto::crypto::{CryptoError, HandshakeTokenKey};
use ring::{aead, hkdf};
use rustls::crypto::{
    ActiveKeyExchange, CryptoProvider, GetRandomFailed, SecureRandom, SharedSecret,
    SupportedKxGroup,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::time_provider::TimeProvider;
use rustls::{NamedGroup, PeerMisbehaved, RootCertStore};
use std::cell::RefCell;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// The name the server's certificate is for, and the client asks for (SNI).
pub const SERVER_NAME: &str = "server.tern.test";
/// The simulated wall clock at simulated time zero: 2027-01-01T00:00:00Z, within the test
/// certificates' validity (2026-11-25 to 2126).
pub const CLOCK_BASE_UNIX_S: u64 = 1_798_761_600;

const CA_DER: &[u8] = include_bytes!("../../../certs/ca.der");
const SERVER_CERT_DER: &[u8] = include_bytes!("../../../certs/server.der");
const SERVER_KEY_DER: &[u8] = include_bytes!("../../../certs/server.key.der");

thread_local! {
    /// The random stream of the endpoint the stack is running for (see [`with_entropy`]).
    static ENTROPY: RefCell<Option<RngStream>> = const { RefCell::new(None) };
}

/// Runs `f` (a call into one endpoint's QUIC stack) with `rng` as the source of every random
/// byte TLS draws during it.
pub fn with_entropy<R>(rng: &mut RngStream, f: impl FnOnce() -> R) -> R {
    let placeholder = RngStream::new(0, "");
    ENTROPY.with(|e| *e.borrow_mut() = Some(std::mem::replace(rng, placeholder)));
    let out = f();
    *rng = ENTROPY
        .with(|e| e.borrow_mut().take())
        .expect("the entropy scope is left as it was entered");
    out
}

/// Fills `buf` from the installed stream; fails outside [`with_entropy`].
fn draw(buf: &mut [u8]) -> Result<(), GetRandomFailed> {
    ENTROPY.with(|e| match e.borrow_mut().as_mut() {
        Some(rng) => {
            for chunk in buf.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
            }
            Ok(())
        }
        None => Err(GetRandomFailed),
    })
}

/// rustls' source of random bytes: the installed stream.
#[derive(Debug)]
pub struct SimRandom;

impl SecureRandom for SimRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        draw(buf)
    }
}

/// The X25519 key exchange (RFC 7748 §6.1, RFC 8446 §4.2.8.2) with its ephemeral secret
/// drawn from the installed stream.
#[derive(Debug)]
pub struct X25519;

struct X25519Exchange {
    secret: x25519_dalek::StaticSecret,
    public: x25519_dalek::PublicKey,
}

impl SupportedKxGroup for X25519 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let mut secret = [0u8; 32];
        draw(&mut secret).map_err(|_| rustls::Error::FailedToGetRandomBytes)?;
        let secret = x25519_dalek::StaticSecret::from(secret);
        let public = x25519_dalek::PublicKey::from(&secret);
        Ok(Box::new(X25519Exchange { secret, public }))
    }

    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

impl ActiveKeyExchange for X25519Exchange {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, rustls::Error> {
        let peer: [u8; 32] = peer_pub_key
            .try_into()
            .map_err(|_| PeerMisbehaved::InvalidKeyShare)?;
        let shared = self.secret.diffie_hellman(&peer.into());
        // RFC 7748 §6.1: an all-zero shared secret means a low-order point; abort.
        if !shared.was_contributory() {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        Ok(SharedSecret::from(&shared.as_bytes()[..]))
    }

    fn pub_key(&self) -> &[u8] {
        self.public.as_bytes()
    }

    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

/// *ring*'s ciphers and signatures with Tern's randomness and key exchange.
fn provider() -> Arc<CryptoProvider> {
    static RANDOM: SimRandom = SimRandom;
    static KX: X25519 = X25519;
    Arc::new(CryptoProvider {
        secure_random: &RANDOM,
        kx_groups: vec![&KX],
        ..rustls::crypto::ring::default_provider()
    })
}

/// The simulated wall clock, set to the simulated time before each call into the stack.
#[derive(Debug, Default)]
pub struct SimClock {
    nanos: AtomicU64,
}

impl SimClock {
    pub fn set(&self, sim_nanos: u64) {
        self.nanos.store(sim_nanos, Ordering::Relaxed);
    }

    fn since_epoch(&self) -> Duration {
        Duration::from_secs(CLOCK_BASE_UNIX_S)
            + Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

impl TimeProvider for SimClock {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(self.since_epoch()))
    }
}

impl noq_proto::TimeSource for SimClock {
    fn now(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + self.since_epoch()
    }
}

/// The client's TLS secrets in the NSS key log format (`SSLKEYLOGFILE`), with which Wireshark
/// decrypts the captured QUIC packets (RFC 9001 §5: their keys derive from these secrets).
#[derive(Debug, Default)]
pub struct KeyLogLines(Mutex<String>);

impl KeyLogLines {
    pub fn text(&self) -> String {
        self.0.lock().expect("not poisoned").clone()
    }
}

impl rustls::KeyLog for KeyLogLines {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let mut s = self.0.lock().expect("not poisoned");
        s.push_str(label);
        for bytes in [client_random, secret] {
            s.push(' ');
            for b in bytes {
                write!(s, "{b:02x}").expect("writing to a String");
            }
        }
        s.push('\n');
    }
}

/// The client's TLS 1.3 configuration: it trusts Tern's test CA only, offers `alpn` (RFC
/// 7301) if given, and logs its secrets to `keys`.
pub fn client_config(
    clock: Arc<SimClock>,
    keys: Arc<KeyLogLines>,
    alpn: Option<&[u8]>,
) -> rustls::ClientConfig {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(CA_DER))
        .expect("the shipped CA certificate parses");
    let mut c = rustls::ClientConfig::builder_with_details(provider(), clock)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    c.key_log = keys;
    c.alpn_protocols.extend(alpn.map(<[u8]>::to_vec));
    c
}

/// The server's TLS 1.3 configuration: the shipped certificate and key, accepting `alpn`
/// (RFC 7301) if given.
pub fn server_config(clock: Arc<SimClock>, alpn: Option<&[u8]>) -> rustls::ServerConfig {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SERVER_KEY_DER));
    let mut c = rustls::ServerConfig::builder_with_details(provider(), clock)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(SERVER_CERT_DER)], key)
        .expect("the shipped certificate and key match");
    c.alpn_protocols.extend(alpn.map(<[u8]>::to_vec));
    c
}

/// The key a server seals its address-validation tokens with (RFC 9000 §8.1.3–8.1.4), drawn
/// from the flow's stream: AES-256-GCM under a key derived per token nonce by HKDF-SHA256
/// (RFC 5869), so each token's key is used once and its AEAD nonce can be fixed.
pub struct TokenKey(hkdf::Prk);

impl TokenKey {
    pub fn new(rng: &mut RngStream) -> TokenKey {
        let mut master = [0u8; 32];
        for chunk in master.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        TokenKey(hkdf::Salt::new(hkdf::HKDF_SHA256, &[]).extract(&master))
    }

    fn aead(&self, token_nonce: u128) -> aead::LessSafeKey {
        let nonce = token_nonce.to_be_bytes();
        let info = [&nonce[..]];
        let okm = self
            .0
            .expand(&info, &aead::AES_256_GCM)
            .expect("32 bytes is within HKDF's limit");
        aead::LessSafeKey::new(aead::UnboundKey::from(okm))
    }
}

impl HandshakeTokenKey for TokenKey {
    fn seal(&self, token_nonce: u128, data: &mut Vec<u8>) -> Result<(), CryptoError> {
        let nonce = aead::Nonce::assume_unique_for_key([0; 12]);
        self.aead(token_nonce)
            .seal_in_place_append_tag(nonce, aead::Aad::empty(), data)
            .map_err(|_| CryptoError)
    }

    fn open<'a>(&self, token_nonce: u128, data: &'a mut [u8]) -> Result<&'a [u8], CryptoError> {
        let nonce = aead::Nonce::assume_unique_for_key([0; 12]);
        self.aead(token_nonce)
            .open_in_place(nonce, aead::Aad::empty(), data)
            .map(|plain| &*plain)
            .map_err(|_| CryptoError)
    }
}
