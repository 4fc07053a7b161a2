//! Send side: the application's byte stream as offsets (payload is abstract).
//!
//! Offsets are relative to our ISS: offset 0 is the SYN, stream byte `i` is
//! offset `1 + i`, and the FIN takes offset `1 + written`.

/// Send buffer accounting (RFC 9293 §3.3.1 SND.UNA / SND.NXT).
#[derive(Clone, Debug)]
pub struct SendBuf {
    capacity: u64,
    /// Total bytes accepted from the application.
    written: u64,
    /// Next offset never sent before (SND.NXT == SND.MAX here: resends are
    /// driven by the scoreboard, not by rewinding).
    pub snd_nxt: u64,
    /// Oldest unacknowledged offset (SND.UNA).
    pub snd_una: u64,
    /// The application called close().
    pub fin_queued: bool,
}

impl SendBuf {
    pub fn new(capacity: u64) -> Self {
        SendBuf {
            capacity,
            written: 0,
            snd_nxt: 1,
            snd_una: 1,
            fin_queued: false,
        }
    }

    /// Appends up to `n` bytes; returns how many fit.
    pub fn write(&mut self, n: u64) -> u64 {
        if self.fin_queued {
            return 0;
        }
        let buffered = self.fin_offset() - self.snd_una.min(self.fin_offset());
        let n = n.min(self.capacity.saturating_sub(buffered));
        self.written += n;
        n
    }

    /// Offset the FIN occupies once the application closes.
    pub fn fin_offset(&self) -> u64 {
        1 + self.written
    }

    /// Stream bytes written but never sent.
    pub fn unsent(&self) -> u64 {
        self.fin_offset().saturating_sub(self.snd_nxt)
    }

    /// The FIN should be sent and has not been.
    pub fn fin_pending(&self) -> bool {
        self.fin_queued && self.snd_nxt <= self.fin_offset()
    }

    /// Our FIN has been acknowledged.
    pub fn fin_acked(&self) -> bool {
        self.fin_queued && self.snd_una > self.fin_offset()
    }
}
