//! The bytes of an HTTP/3 GET (RFC 9114) with QPACK's static table only (RFC 9204), as the
//! `file` application writes them on its QUIC streams:
//!
//! - each endpoint's control stream (§6.2.1): the stream type 0x00, then a SETTINGS frame
//!   (§7.2.4). It is empty: every setting keeps its default (§7.2.4.1), among them a dynamic
//!   table of capacity 0 and no blocked streams (RFC 9204 §5), so neither endpoint opens
//!   QPACK's encoder or decoder stream (RFC 9204 §4.2 allows leaving them out);
//! - the request (§4.1) on a bidirectional stream: one HEADERS frame (§7.2.2) with
//!   `:method GET`, `:scheme https`, `:authority`, `:path` (§4.3.1);
//! - the response on the same stream: a HEADERS frame with `:status 200` and
//!   `content-length`, then the body in one DATA frame (§7.2.1).
//!
//! Field sections are QPACK-encoded against the static table (RFC 9204 Appendix A): the
//! prefix (Required Insert Count 0, Base 0: §4.5.1), an indexed field line (§4.5.2) for a
//! whole entry, a literal with a name reference (§4.5.4) otherwise. Literal values are not
//! Huffman-coded (H = 0, which §4.1.2 allows); a browser's would be about a fifth shorter.
//! Unlike a full HTTP/3 stack there is no ALPN "h3" in the TLS handshake (RFC 9114 §3.1), no
//! GREASE, no server push and no further header fields.

use super::streams::{read, write};
use super::tls::SERVER_NAME;
use noq_proto::{Connection, Dir, StreamId};

/// The HTTP/3 GET of a `file` flow: its frames' bytes, and each endpoint's control streams.
#[derive(Debug)]
pub struct Get {
    /// The request's HEADERS frame.
    pub request: Vec<u8>,
    /// The response's HEADERS frame and its DATA frame's header.
    pub head: Vec<u8>,
    /// The body's size.
    pub size: u64,
    /// Each endpoint's own control stream and how much of it is written (client, server).
    control: [Option<(StreamId, usize)>; 2],
    /// The peer's control stream, once accepted, at each endpoint.
    peer_control: [Option<StreamId>; 2],
}

impl Get {
    /// A GET of a `:path` of `path_len` bytes, answered by a body of `size` bytes.
    pub fn new(path_len: u64, size: u64) -> Get {
        Get {
            request: request(SERVER_NAME, path_len),
            head: response_head(size),
            size,
            control: [None, None],
            peer_control: [None, None],
        }
    }

    /// Bytes of the response on its stream: HEADERS, then the DATA frame.
    pub fn response_len(&self) -> u64 {
        self.head.len() as u64 + self.size
    }

    /// Body bytes among the first `received` bytes of the response.
    pub fn body_received(&self, received: u64) -> u64 {
        received.saturating_sub(self.head.len() as u64)
    }

    /// Endpoint `side` (0: client, 1: server) opens its control stream and writes its
    /// SETTINGS (RFC 9114 §6.2.1: first thing, never closed), and reads the peer's.
    pub fn control_io(&mut self, side: usize, conn: &mut Connection) {
        let bytes = control_stream();
        if self.control[side].is_none() {
            self.control[side] = conn.streams().open(Dir::Uni).map(|id| (id, 0));
        }
        if let Some((id, done)) = &mut self.control[side] {
            let rest = &bytes[*done..];
            *done += write(conn, *id, rest, rest.len() as u64) as usize;
        }
        if self.peer_control[side].is_none() {
            self.peer_control[side] = conn.streams().accept(Dir::Uni);
        }
        if let Some(id) = self.peer_control[side] {
            read(conn, id);
        }
    }
}

/// QPACK static table indices (RFC 9204 Appendix A).
const STATIC_AUTHORITY: u64 = 0;
const STATIC_PATH: u64 = 1;
const STATIC_CONTENT_LENGTH: u64 = 4;
const STATIC_METHOD_GET: u64 = 17;
const STATIC_SCHEME_HTTPS: u64 = 23;
const STATIC_STATUS_200: u64 = 25;

/// Frame types (RFC 9114 §7.2) and the control stream's type (§6.2.1).
const FRAME_DATA: u64 = 0x00;
const FRAME_HEADERS: u64 = 0x01;
const FRAME_SETTINGS: u64 = 0x04;
const STREAM_CONTROL: u64 = 0x00;

/// A QUIC variable-length integer (RFC 9000 §16).
fn varint(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=0x3f => out.push(v as u8),
        0x40..=0x3fff => out.extend_from_slice(&(0x4000 | v as u16).to_be_bytes()),
        0x4000..=0x3fff_ffff => out.extend_from_slice(&(0x8000_0000 | v as u32).to_be_bytes()),
        _ => out.extend_from_slice(&(0xc000_0000_0000_0000 | v).to_be_bytes()),
    }
}

/// An integer with an `n`-bit prefix (RFC 7541 §5.1, used by RFC 9204 §4.1.1); `flags` are
/// the first byte's bits above the prefix.
fn prefixed(out: &mut Vec<u8>, flags: u8, n: u32, v: u64) {
    let max = (1u64 << n) - 1;
    if v < max {
        out.push(flags | v as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut rest = v - max;
    while rest >= 128 {
        out.push((rest % 128) as u8 | 0x80);
        rest /= 128;
    }
    out.push(rest as u8);
}

/// An indexed field line of the static table (RFC 9204 §4.5.2: `1 T=1 index`).
fn indexed(out: &mut Vec<u8>, index: u64) {
    prefixed(out, 0b1100_0000, 6, index);
}

/// A literal field line with a static name reference (RFC 9204 §4.5.4: `0 1 N=0 T=1 index`,
/// then the value's length with `H = 0` and a 7-bit prefix, then the value).
fn literal(out: &mut Vec<u8>, name_index: u64, value: &[u8]) {
    prefixed(out, 0b0101_0000, 4, name_index);
    prefixed(out, 0, 7, value.len() as u64);
    out.extend_from_slice(value);
}

/// A frame of `kind` around `payload` (RFC 9114 §7.1: type, length, payload).
fn frame(kind: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 9);
    varint(&mut out, kind);
    varint(&mut out, payload.len() as u64);
    out.extend_from_slice(payload);
    out
}

/// A HEADERS frame around the field `lines`, after the field section prefix (Required
/// Insert Count 0 and Base 0: two zero bytes, RFC 9204 §4.5.1).
fn headers(lines: &[u8]) -> Vec<u8> {
    let mut section = vec![0, 0];
    section.extend_from_slice(lines);
    frame(FRAME_HEADERS, &section)
}

/// What an endpoint writes first on its control stream.
pub fn control_stream() -> Vec<u8> {
    let mut out = Vec::new();
    varint(&mut out, STREAM_CONTROL);
    out.extend(frame(FRAME_SETTINGS, &[]));
    out
}

/// The request: `GET https://<authority>/<path>` where the path is `path_len` bytes, `/`
/// and then `x`s.
pub fn request(authority: &str, path_len: u64) -> Vec<u8> {
    let mut lines = Vec::new();
    indexed(&mut lines, STATIC_METHOD_GET);
    indexed(&mut lines, STATIC_SCHEME_HTTPS);
    literal(&mut lines, STATIC_AUTHORITY, authority.as_bytes());
    let mut path = vec![b'x'; path_len.max(1) as usize];
    path[0] = b'/';
    literal(&mut lines, STATIC_PATH, &path);
    headers(&lines)
}

/// The response's HEADERS frame and its DATA frame's header, for a body of `size` bytes.
pub fn response_head(size: u64) -> Vec<u8> {
    let mut lines = Vec::new();
    indexed(&mut lines, STATIC_STATUS_200);
    literal(
        &mut lines,
        STATIC_CONTENT_LENGTH,
        size.to_string().as_bytes(),
    );
    let mut out = headers(&lines);
    varint(&mut out, FRAME_DATA);
    varint(&mut out, size);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_encode_as_the_rfcs_examples() {
        // RFC 9000 Appendix A.1: 151 288 809 941 952 652 in 8 bytes, 494 878 333 in 4,
        // 15 293 in 2, 37 in 1.
        let enc = |v| {
            let mut out = Vec::new();
            varint(&mut out, v);
            out
        };
        assert_eq!(
            enc(151_288_809_941_952_652),
            [0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c]
        );
        assert_eq!(enc(494_878_333), [0x9d, 0x7f, 0x3e, 0x7d]);
        assert_eq!(enc(15_293), [0x7b, 0xbd]);
        assert_eq!(enc(37), [0x25]);
        // RFC 7541 Appendix C.1.1-C.1.2: 10 in a 5-bit prefix; 1337 in a 5-bit prefix.
        let mut out = Vec::new();
        prefixed(&mut out, 0, 5, 10);
        prefixed(&mut out, 0, 5, 1337);
        assert_eq!(out, [0x0a, 0x1f, 0x9a, 0x0a]);
    }

    #[test]
    fn frames_have_the_sizes_rfc_9114_and_9204_give() {
        // Stream type (1 B), SETTINGS type (1 B), length 0 (1 B).
        assert_eq!(control_stream(), [0x00, 0x04, 0x00]);
        // HEADERS: type 1 B, length 1 B; prefix 2 B; GET and https 1 B each; authority:
        // 1 B name reference + 1 B length + 16 B; path of 100 B: 1 + 1 + 100 (100 < 127).
        let r = request("server.tern.test", 100);
        // The field section is 2 + 1 + 1 + 18 + 102 = 124 B, a length of 2 B (124 ≥ 64).
        assert_eq!(r.len(), 1 + 2 + 124);
        assert_eq!(&r[..3], [0x01, 0x40, 124]);
        assert_eq!(&r[3..8], [0x00, 0x00, 0xc0 | 17, 0xc0 | 23, 0x50]);
        // Response: HEADERS (type 1 B, length 1 B, prefix 2 B, :status 200 1 B,
        // content-length: 1 B name reference, 1 B length, 8 digits) = 15 B; DATA type 1 B +
        // length 4 B (2^14 ≤ 10^7 < 2^30).
        let h = response_head(10_000_000);
        assert_eq!(h.len(), 15 + 5);
        assert_eq!(&h[..6], [0x01, 13, 0x00, 0x00, 0xc0 | 25, 0x54]);
        assert_eq!(&h[15..], [0x00, 0x80, 0x98, 0x96, 0x80]);
    }
}
