//! Messages written into a byte stream (a TCP connection, RFC 9293 §3.9; a QUIC stream, RFC
//! 9000 §2.2): the stream keeps no message boundaries, so the sender remembers where each
//! message ends and the receiver's reads map stream offsets back to messages. A message is
//! delivered when its last byte has been read, so its one-way delay includes the stream's
//! head-of-line blocking.

use super::{MessageSink, MessageSource};
use crate::engine::SimTime;
use crate::trace::DelayRecord;
use std::collections::VecDeque;

/// A message delivered to the receiving application.
pub struct Delivered {
    pub seq: u64,
    pub sent_at: SimTime,
    pub len: u32,
}

impl Delivered {
    /// Its `delay` trace row, read at `now` from connection `conn` of `flow` (1 = the first).
    pub fn record<'a>(&self, now: SimTime, flow: &'a str, conn: u64) -> DelayRecord<'a> {
        DelayRecord {
            time: now,
            flow,
            seq: self.seq,
            sent: self.sent_at,
            delay: now.saturating_sub(self.sent_at),
            size: self.len,
            conn,
        }
    }
}

/// A message source writing into a stream, and the message boundaries in it.
#[derive(Debug)]
pub struct MessageStream {
    pub source: MessageSource,
    /// Bytes the application wrote that the transport has not taken yet.
    backlog: u64,
    /// Messages not yet fully read: (end offset, seq, sent at, length).
    pending: VecDeque<(u64, u64, SimTime, u32)>,
    /// Stream offset after the last message written.
    end: u64,
}

impl MessageStream {
    pub fn new(source: MessageSource) -> MessageStream {
        MessageStream {
            source,
            backlog: 0,
            pending: VecDeque::new(),
            end: 0,
        }
    }

    /// Message `seq` of `len` bytes is written into the stream at `now`.
    pub fn write(&mut self, now: SimTime, seq: u64, len: u32) {
        self.end += u64::from(len);
        self.backlog += u64::from(len);
        self.pending.push_back((self.end, seq, now, len));
    }

    /// Bytes written that the transport has not taken yet.
    pub fn backlog(&self) -> u64 {
        self.backlog
    }

    /// The transport took `n` bytes of the backlog.
    pub fn taken(&mut self, n: u64) {
        self.backlog -= n;
    }

    /// The receiver has read the stream up to offset `read` at `now`: the messages this
    /// completes go into `sink` and to `delivered`, in order.
    pub fn read_up_to(
        &mut self,
        read: u64,
        now: SimTime,
        sink: &mut MessageSink,
        mut delivered: impl FnMut(Delivered),
    ) {
        while let Some(&(end, seq, sent_at, len)) = self.pending.front() {
            if end > read {
                break;
            }
            self.pending.pop_front();
            sink.received += 1;
            sink.received_bytes += u64::from(len);
            sink.delays.push(now.saturating_sub(sent_at).as_nanos());
            delivered(Delivered { seq, sent_at, len });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_delivered_once_its_last_byte_is_read() {
        let mut m = MessageStream::new(MessageSource::silent());
        let t = SimTime::from_millis;
        m.write(t(0), 0, 100);
        m.write(t(10), 1, 50);
        assert_eq!(m.backlog(), 150);
        m.taken(120);
        assert_eq!(m.backlog(), 30);
        let mut sink = MessageSink::default();
        let mut seqs = Vec::new();
        // 99 bytes read: not even the first message is whole.
        m.read_up_to(99, t(20), &mut sink, |d| seqs.push(d.seq));
        assert!(seqs.is_empty());
        m.read_up_to(149, t(30), &mut sink, |d| seqs.push(d.seq));
        assert_eq!(seqs, [0]);
        m.read_up_to(150, t(40), &mut sink, |d| seqs.push(d.seq));
        assert_eq!(seqs, [0, 1]);
        assert_eq!((sink.received, sink.received_bytes), (2, 150));
        // Delays from each message's write to the read that completed it.
        assert_eq!(sink.delays, [30_000_000, 30_000_000]);
    }
}
