//! The applications of a QUIC flow, on one stream each (RFC 9000 §2):
//!
//! - `bulk`: the client (the flow's source) writes to a unidirectional stream as fast as the
//!   stream accepts, `bytes` of it or without end; the server reads. Data goes source →
//!   destination, as Tern's TCP bulk transfer.
//! - `periodic`, `cbr`: the client writes each message into one unidirectional stream; the
//!   server maps stream offsets back to messages, so their one-way delay shows QUIC's
//!   head-of-line blocking within the stream, as for TCP.
//! - `file`: an HTTP/3 GET (see [`super::h3`]): each endpoint writes SETTINGS on its control
//!   stream; the client writes the request's HEADERS frame (for a `:path` of `request`
//!   bytes) on a bidirectional stream and ends it; the server answers on the same stream with
//!   a HEADERS frame and one DATA frame of `size` bytes, and ends it. Every frame's bytes are
//!   counted on the wire; the flow's delivered bytes are the `size` bytes of the body.
//!
//! The applications are like programs on a blocking socket: they write only once the
//! handshake is complete (no 0-RTT data).

use super::h3::Get;
use super::streams::{read, write};
use crate::app::{Delivered, MessageSink, MessageSource, MessageStream};
use crate::engine::SimTime;
use crate::scenario::AppSpec;
use noq_proto::{Connection, Dir, StreamId};

/// What the flow's application does.
#[derive(Debug)]
pub enum QuicApp {
    /// Writes `total` bytes (or without end) as fast as the stream takes them.
    Bulk { total: Option<u64> },
    /// Writes a message per tick of its source.
    Messages(MessageStream),
    /// An HTTP/3 GET of a body of a set size.
    File(Get),
}

impl QuicApp {
    /// The application a flow's `app` describes; `source` is its message source, if it has
    /// one (every app but bulk and file).
    pub fn new(app: &AppSpec, source: Option<MessageSource>) -> QuicApp {
        match (app, source) {
            (AppSpec::Bulk { bytes }, _) => QuicApp::Bulk {
                total: bytes.map(|b| b.0),
            },
            (AppSpec::File { size, request }, _) => QuicApp::File(Get::new(request.0, size.0)),
            (_, Some(source)) => QuicApp::Messages(MessageStream::new(source)),
            (_, None) => unreachable!("every app but bulk and file has a source"),
        }
    }

    /// The application protocol negotiated in TLS (ALPN): "h3" for the HTTP/3 GET (RFC 9114
    /// §3.1), none otherwise.
    pub fn alpn(&self) -> Option<&'static [u8]> {
        match self {
            QuicApp::File(_) => Some(b"h3"),
            QuicApp::Bulk { .. } | QuicApp::Messages(_) => None,
        }
    }
}

/// The application at both ends of a flow, and what it measured.
#[derive(Debug)]
pub struct AppState {
    pub app: QuicApp,
    /// The stream at the client and at the server, once opened / accepted.
    stream: [Option<StreamId>; 2],
    /// Bytes the sending application handed to QUIC (the request's HEADERS frame for a file
    /// transfer).
    pub written: u64,
    /// Bytes the server's application read.
    pub read: u64,
    /// Response bytes (HEADERS and DATA frames) the server handed to QUIC, and the client
    /// read (file transfers).
    pub answered: u64,
    pub received: u64,
    /// When the receiving application got its first byte (the response's, for a file).
    pub first_byte_at: Option<SimTime>,
    /// When the last byte of a bounded transfer (or file response) was read.
    pub completed_at: Option<SimTime>,
    /// File transfers: when the client handed the whole request to QUIC.
    requested_at: Option<SimTime>,
    pub sink: MessageSink,
}

impl AppState {
    pub fn new(app: QuicApp) -> AppState {
        AppState {
            app,
            stream: [None, None],
            written: 0,
            read: 0,
            answered: 0,
            received: 0,
            first_byte_at: None,
            completed_at: None,
            requested_at: None,
            sink: MessageSink::default(),
        }
    }

    fn dir(&self) -> Dir {
        match self.app {
            QuicApp::File(_) => Dir::Bi,
            QuicApp::Bulk { .. } | QuicApp::Messages { .. } => Dir::Uni,
        }
    }

    /// The application's next message (message apps): written now.
    pub fn tick(&mut self, now: SimTime) {
        if let QuicApp::Messages(m) = &mut self.app {
            let msg = m.source.emit(now);
            m.write(now, msg.seq, msg.len);
        }
    }

    /// Messages sent by the application (message apps), or 0.
    pub fn messages_sent(&self) -> u64 {
        match &self.app {
            QuicApp::Messages(m) => m.source.sent,
            QuicApp::Bulk { .. } | QuicApp::File(_) => 0,
        }
    }

    /// The client application's I/O once the connection is established: it opens its stream,
    /// writes what the stream takes and, for a file transfer, reads the response: each read
    /// goes to `delivered` (seq: the response offset it starts at; sent: when the request
    /// was handed over; len: the bytes read), so the `delay` trace shows the download's
    /// progress.
    pub fn client_io(
        &mut self,
        now: SimTime,
        conn: &mut Connection,
        mut delivered: impl FnMut(Delivered),
    ) {
        let id = match self.stream[0] {
            Some(id) => id,
            None => match conn.streams().open(self.dir()) {
                Some(id) => *self.stream[0].insert(id),
                None => return,
            },
        };
        let (want, ends, head) = match &mut self.app {
            QuicApp::Bulk { total } => (
                total.map_or(u64::MAX, |t| t - self.written),
                total.is_some(),
                &[][..],
            ),
            QuicApp::Messages(m) => (m.backlog(), false, &[][..]),
            QuicApp::File(get) => {
                get.control_io(0, conn);
                let request = &get.request[self.written as usize..];
                (request.len() as u64, true, request)
            }
        };
        if want > 0 {
            let n = write(conn, id, head, want);
            self.written += n;
            if let QuicApp::Messages(m) = &mut self.app {
                m.taken(n);
            }
            if ends && n == want {
                // All data handed over: end the stream (a FIN bit, RFC 9000 §19.8).
                let _ = conn.send_stream(id).finish();
                self.requested_at.get_or_insert(now);
            }
        }
        if let QuicApp::File(get) = &self.app {
            let n = read(conn, id);
            if n > 0 {
                self.first_byte_at.get_or_insert(now);
                delivered(Delivered {
                    seq: self.received,
                    sent_at: self.requested_at.unwrap_or(now),
                    len: u32::try_from(n).unwrap_or(u32::MAX),
                });
                self.received += n;
                if self.received >= get.response_len() {
                    self.completed_at.get_or_insert(now);
                }
            }
        }
    }

    /// The server application's I/O: it accepts the client's stream, reads what arrived
    /// (messages completed by the read go to `delivered`) and answers a complete request.
    pub fn server_io(
        &mut self,
        now: SimTime,
        conn: &mut Connection,
        delivered: impl FnMut(Delivered),
    ) {
        if let QuicApp::File(get) = &mut self.app {
            get.control_io(1, conn);
        }
        let id = match self.stream[1] {
            Some(id) => id,
            None => match conn.streams().accept(self.dir()) {
                Some(id) => *self.stream[1].insert(id),
                None => return,
            },
        };
        let n = read(conn, id);
        if n > 0 {
            self.read += n;
            if !matches!(self.app, QuicApp::File(_)) {
                self.first_byte_at.get_or_insert(now);
            }
        }
        match &mut self.app {
            QuicApp::Bulk { total } => {
                if total.is_some_and(|t| self.read >= t) {
                    self.completed_at.get_or_insert(now);
                }
            }
            QuicApp::Messages(m) => m.read_up_to(self.read, now, &mut self.sink, delivered),
            QuicApp::File(get) => {
                let total = get.response_len();
                if self.read >= get.request.len() as u64 && self.answered < total {
                    let head = get.head.get(self.answered as usize..).unwrap_or(&[]);
                    self.answered += write(conn, id, head, total - self.answered);
                    if self.answered == total {
                        let _ = conn.send_stream(id).finish();
                    }
                }
            }
        }
    }

    /// Application bytes delivered: the response's body for a file transfer, the data the
    /// server read otherwise.
    pub fn delivered_bytes(&self) -> u64 {
        match &self.app {
            QuicApp::File(get) => get.body_received(self.received),
            _ => self.read,
        }
    }
}
