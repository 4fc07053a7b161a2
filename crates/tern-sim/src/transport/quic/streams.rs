//! Moving bytes through a QUIC connection's streams for Tern's applications: write a head and
//! then filler up to a length, read whatever has arrived (RFC 9000 §2-4).

use noq_proto::{Connection, StreamId, WriteError};

/// Zeros the applications write: only lengths matter to Tern.
static ZEROS: [u8; 16 * 1024] = [0; 16 * 1024];

/// Writes up to `want` bytes to stream `id`: those of `head`, then zeros; returns how many
/// the stream took.
pub(super) fn write(conn: &mut Connection, id: StreamId, head: &[u8], want: u64) -> u64 {
    let mut stream = conn.send_stream(id);
    let mut done = 0;
    while done < want {
        let rest = (want - done) as usize;
        let chunk = match head.get(done as usize..) {
            Some(h) if !h.is_empty() => &h[..h.len().min(rest)],
            _ => &ZEROS[..rest.min(ZEROS.len())],
        };
        match stream.write(chunk) {
            Ok(0) | Err(WriteError::Blocked) => break,
            Ok(k) => done += k as u64,
            Err(_) => break,
        }
    }
    done
}

/// Reads everything stream `id` has in order; returns the byte count. Reading hands the
/// peer new flow-control credit (RFC 9000 §4.2).
pub(super) fn read(conn: &mut Connection, id: StreamId) -> u64 {
    let mut stream = conn.recv_stream(id);
    let Ok(mut chunks) = stream.read(true) else {
        return 0;
    };
    let mut n = 0;
    // Until the stream is drained (`Blocked`), ended (`None`) or reset.
    while let Ok(Some(chunk)) = chunks.next(usize::MAX) {
        n += chunk.bytes.len() as u64;
    }
    // Whether to send credit now is the connection's affair: it is polled next anyway.
    let _ = chunks.finalize();
    n
}
