//! On-the-wire view of a TCP segment (RFC 9293 §3.1) with abstract payload.
//!
//! Payload bytes are never materialised: a [`Segment`] carries only the
//! number of payload bytes. Header sizes are exact so the simulator can
//! account for every byte that crosses a link.

use crate::seq::Seq;

/// A 32-bit TCP sequence number with modular ordering (RFC 9293 §3.4):
/// serial-number arithmetic per RFC 1982 with SERIAL_BITS = 32.
///
/// `a < b` means `b` lies less than 2^31 ahead of `a` on the circle; this
/// ordering is only meaningful for numbers within half the space of each
/// other, which always holds inside one window.
pub type SeqNum = Seq<32>;

/// Builds a [`SeqNum`](type@SeqNum) from its raw value, written like the tuple-struct
/// constructor (`SeqNum(x)`) that callers use; the type itself is the
/// generic [`Seq`] of [`crate::seq`].
#[allow(non_snake_case)]
pub const fn SeqNum(raw: u32) -> SeqNum {
    Seq(raw)
}

/// Control bits (RFC 9293 §3.1). URG is not modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    pub syn: bool,
    pub ack: bool,
    pub fin: bool,
    pub rst: bool,
    pub psh: bool,
}

/// Maximum number of SACK blocks that fit in the option space: 4 without
/// timestamps, 3 with them (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The SACK blocks `[left, right)` of a segment (RFC 2018 §3), kept inline: at most
/// [`MAX_SACK_BLOCKS`] fit in the option space, so a segment never allocates for them (it was
/// the one allocation per packet left on the TCP path). Reads as a slice.
#[derive(Clone, Copy, Default)]
pub struct SackBlocks {
    blocks: [(SeqNum, SeqNum); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// Appends a block. Panics past [`MAX_SACK_BLOCKS`]: more would not fit in a TCP header.
    pub fn push(&mut self, block: (SeqNum, SeqNum)) {
        assert!(
            usize::from(self.len) < MAX_SACK_BLOCKS,
            "at most {MAX_SACK_BLOCKS} SACK blocks fit in the TCP option space"
        );
        self.blocks[usize::from(self.len)] = block;
        self.len += 1;
    }
}

impl std::ops::Deref for SackBlocks {
    type Target = [(SeqNum, SeqNum)];
    fn deref(&self) -> &Self::Target {
        &self.blocks[..usize::from(self.len)]
    }
}

impl FromIterator<(SeqNum, SeqNum)> for SackBlocks {
    fn from_iter<I: IntoIterator<Item = (SeqNum, SeqNum)>>(iter: I) -> Self {
        let mut out = SackBlocks::default();
        for b in iter {
            out.push(b);
        }
        out
    }
}

impl PartialEq for SackBlocks {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for SackBlocks {}

impl std::hash::Hash for SackBlocks {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl std::fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// TCP options carried by a segment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpOptions {
    /// Maximum segment size (RFC 9293 §3.7.1); SYN only.
    pub mss: Option<u16>,
    /// Window scale shift count (RFC 7323 §2.2); SYN only.
    pub window_scale: Option<u8>,
    /// SACK-permitted (RFC 2018 §2); SYN only.
    pub sack_permitted: bool,
    /// SACK blocks `[left, right)` (RFC 2018 §3); at most [`MAX_SACK_BLOCKS`].
    pub sack_blocks: SackBlocks,
    /// Timestamps `(TSval, TSecr)` (RFC 7323 §3).
    pub timestamps: Option<(u32, u32)>,
}

impl TcpOptions {
    /// Bytes the options occupy, laid out as Linux does (NOP padding
    /// included), always a multiple of 4:
    /// MSS 4; window scale NOP+3 = 4; SACK-permitted with timestamps
    /// 2+10 = 12, timestamps alone NOP NOP+10 = 12, SACK-permitted alone
    /// NOP NOP+2 = 4; SACK blocks NOP NOP+2+8n.
    pub fn len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 4;
        }
        n += match (self.timestamps.is_some(), self.sack_permitted) {
            (true, _) => 12,
            (false, true) => 4,
            (false, false) => 0,
        };
        if !self.sack_blocks.is_empty() {
            n += 4 + 8 * self.sack_blocks.len() as u32;
        }
        n
    }

    /// True when no option is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A TCP segment as it appears on the wire, without payload bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Segment {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: SeqNum,
    pub ack: SeqNum,
    pub flags: Flags,
    /// Raw 16-bit window field, already right-shifted by the sender's window
    /// scale (never scaled in a SYN, RFC 7323 §2.2).
    pub window: u16,
    pub options: TcpOptions,
    /// Number of payload bytes.
    pub payload_len: u32,
}

impl Segment {
    /// TCP header length: 20 bytes plus options (RFC 9293 §3.1).
    pub fn header_len(&self) -> u32 {
        20 + self.options.len()
    }

    /// Header plus payload (the IP header is added by the simulator).
    pub fn wire_len(&self) -> u32 {
        self.header_len() + self.payload_len
    }

    /// Sequence space occupied: payload plus one for each of SYN and FIN
    /// (RFC 9293 §3.4).
    pub fn seq_len(&self) -> u32 {
        self.payload_len + u32::from(self.flags.syn) + u32::from(self.flags.fin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_modular_ordering() {
        assert!(SeqNum(u32::MAX) < SeqNum(0));
        assert!(SeqNum(5) > SeqNum(u32::MAX - 5));
        assert_eq!(SeqNum(u32::MAX) + 2, SeqNum(1));
        assert_eq!(SeqNum(1).diff(SeqNum(u32::MAX)), 2);
    }

    #[test]
    fn option_sizes_match_linux_layout() {
        let syn = TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((1, 0)),
            ..Default::default()
        };
        assert_eq!(syn.len(), 20); // Linux SYN: 40 B TCP header
        let ts = TcpOptions {
            timestamps: Some((1, 2)),
            ..Default::default()
        };
        assert_eq!(ts.len(), 12);
        let sack3 = TcpOptions {
            timestamps: Some((1, 2)),
            sack_blocks: [(SeqNum(1), SeqNum(2)); 3].into_iter().collect(),
            ..Default::default()
        };
        assert_eq!(sack3.len(), 40);
        let sack4 = TcpOptions {
            sack_blocks: [(SeqNum(1), SeqNum(2)); 4].into_iter().collect(),
            ..Default::default()
        };
        assert_eq!(sack4.len(), 36);
        let seg = Segment {
            options: ts,
            payload_len: 1448,
            ..Default::default()
        };
        assert_eq!(seg.header_len(), 32);
        assert_eq!(seg.wire_len(), 1480);
    }
}
