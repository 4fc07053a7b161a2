//! RLC AM PDU formats (TS 25.322 §9.2) with abstract payload.
//!
//! Payload bytes are never materialised: an [`AmdPdu`] records which SDU
//! (by opaque id) each run of data octets belongs to. Header fields, length
//! indicators and SUFIs are kept as typed values whose sizes are exact, so
//! the simulator can charge airtime for every bit. With the fixed-size
//! transport blocks of a Release-99 DCH, every PDU (data or STATUS) has the
//! configured size; what does not carry information is padding.

use crate::seq::Seq12;

/// Modulus of AM sequence numbers: the SN field is 12 bits (TS 25.322
/// §9.2.2.3).
pub const SN_MODULUS: u16 = Sn::MODULUS as u16;

/// Octets of the fixed AMD PDU header: D/C (1 bit), SN (12), P (1), HE (2)
/// (TS 25.322 §9.2.1.4).
pub const AMD_HEADER_LEN: u32 = 2;

/// Largest AMD PDU for which 7-bit length indicators are used (TS 25.322
/// §9.2.2.8: "AMD PDU size ≤ 126 octets").
pub const MAX_PDU_SIZE_7BIT_LI: u32 = 126;

/// Bits of the STATUS PDU header: D/C (1) and PDU type (3) (TS 25.322
/// §9.2.1.6).
pub const STATUS_HEADER_BITS: u32 = 4;

/// A 12-bit AM sequence number (TS 25.322 §9.2.2.3), arithmetic modulo
/// [`SN_MODULUS`] (serial-number arithmetic, RFC 1982).
pub type Sn = Seq12;

/// A 7-bit length indicator with its extension bit, one octet on the wire
/// (TS 25.322 §9.2.2.8 LI, §9.2.2.5 E bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Li {
    /// `0000000`: the previous PDU was exactly filled with the last segment
    /// of an SDU and carried no LI for it.
    PreviousPduEnded,
    /// The SDU in progress ends here: the value counts the data octets from
    /// the first octet after the LIs up to and including the SDU's last
    /// octet (1..=123).
    End(u8),
    /// `1111111`: the rest of the PDU is padding.
    Padding,
}

impl Li {
    /// The 7-bit field value.
    pub fn value(self) -> u8 {
        match self {
            Li::PreviousPduEnded => 0,
            Li::End(v) => v,
            Li::Padding => 0x7f,
        }
    }
}

/// A run of data octets belonging to one SDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// Opaque id given with the SDU.
    pub sdu: u64,
    pub len: u32,
}

/// An Acknowledged Mode Data PDU (TS 25.322 §9.2.1.4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdPdu {
    pub sn: Sn,
    /// Polling bit (§9.2.2.4): the sender requests a STATUS report.
    pub poll: bool,
    /// HE = `10` (§9.2.2.7, "Use special value of the HE field"): no LI
    /// follows and the last octet of the PDU is the last octet of an SDU.
    pub sdu_ends_at_pdu_end: bool,
    pub lis: Vec<Li>,
    /// Data field contents in order (padding excluded).
    pub data: Vec<Chunk>,
    /// Size of the whole PDU in octets (header, LIs, data and padding).
    pub size: u32,
}

impl AmdPdu {
    /// Header Extension field (§9.2.2.7): 0 = data follows, 1 = an LI
    /// follows, 2 = data follows and an SDU ends at the end of the PDU.
    pub fn he(&self) -> u8 {
        if self.sdu_ends_at_pdu_end {
            2
        } else if self.lis.is_empty() {
            0
        } else {
            1
        }
    }

    /// RLC header: the two fixed octets plus one octet per LI.
    pub fn header_len(&self) -> u32 {
        AMD_HEADER_LEN + self.lis.len() as u32
    }

    /// Octets after the header: data plus padding.
    pub fn data_area(&self) -> u32 {
        self.size - self.header_len()
    }

    /// SDU data octets carried.
    pub fn data_len(&self) -> u32 {
        self.data.iter().map(|c| c.len).sum()
    }

    pub fn padding_len(&self) -> u32 {
        self.data_area() - self.data_len()
    }

    /// Id of the SDU whose data occupies data-field offset `pos`.
    pub fn sdu_at(&self, pos: u32) -> Option<u64> {
        let mut start = 0;
        for c in &self.data {
            if pos < start + c.len {
                return Some(c.sdu);
            }
            start += c.len;
        }
        None
    }
}

/// A super-field (SUFI) of a STATUS PDU (TS 25.322 §9.2.2.11; the
/// subclause of each SUFI is named after it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sufi {
    /// NO_MORE: end of the SUFIs, the rest is padding.
    NoMore,
    /// ACK: every PDU with SN < LSN not reported as missing
    /// earlier in the same STATUS PDU was received. Always the last SUFI.
    Ack { lsn: Sn },
    /// LIST: pairs (SN_i, L_i), SN_i missing together with the
    /// L_i (0..=15) PDUs that follow it. 1..=15 pairs.
    List(Vec<(Sn, u8)>),
    /// BITMAP: bit i describes SN = FSN + i, `true` =
    /// received, `false` = missing. 8..=128 bits, a multiple of 8.
    Bitmap { fsn: Sn, bits: Vec<bool> },
    /// Move Receiving Window with one SN_MRW field (LENGTH = 1, i.e. "Send
    /// MRW" not configured): the receiver discards every PDU below `sn_mrw`
    /// and, in PDU `sn_mrw`, the SDUs ending at its first `n_length` LIs;
    /// `n_length` = 0 means the first data octet of PDU `sn_mrw` starts the
    /// next SDU to reassemble.
    Mrw { sn_mrw: Sn, n_length: u8 },
    /// MRW_ACK: the receiver's VR(R) after the window move, and N =
    /// N_LENGTH if SN_ACK = SN_MRW, else 0.
    MrwAck { n: u8, sn_ack: Sn },
}

impl Sufi {
    /// Size on the wire in bits: a 4-bit type followed by the fields.
    pub fn bits(&self) -> u32 {
        match self {
            Sufi::NoMore => 4,
            // type 4 + LSN 12
            Sufi::Ack { .. } => 16,
            // type 4 + LENGTH 4 + LENGTH x (SN 12 + L 4)
            Sufi::List(pairs) => 8 + 16 * pairs.len() as u32,
            // type 4 + LENGTH 4 + FSN 12 + bitmap
            Sufi::Bitmap { bits, .. } => 20 + bits.len() as u32,
            // type 4 + LENGTH 4 + SN_MRW 12 + N_LENGTH 4
            Sufi::Mrw { .. } => 24,
            // type 4 + N 4 + SN_ACK 12
            Sufi::MrwAck { .. } => 20,
        }
    }
}

/// A STATUS PDU (TS 25.322 §9.2.1.6): SUFIs, then padding to `size`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StatusPdu {
    pub sufis: Vec<Sufi>,
    /// Size of the PDU in octets, padding included.
    pub size: u32,
}

impl StatusPdu {
    /// Header and SUFI bits, padding excluded.
    pub fn used_bits(&self) -> u32 {
        STATUS_HEADER_BITS + self.sufis.iter().map(Sufi::bits).sum::<u32>()
    }

    pub fn padding_bits(&self) -> u32 {
        self.size * 8 - self.used_bits()
    }
}

/// Any PDU an AM entity exchanges with its peer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pdu {
    Data(AmdPdu),
    Status(StatusPdu),
}

impl Pdu {
    /// Size in octets as charged on the radio.
    pub fn size(&self) -> u32 {
        match self {
            Pdu::Data(d) => d.size,
            Pdu::Status(s) => s.size,
        }
    }

    pub fn size_bits(&self) -> u32 {
        self.size() * 8
    }

    pub fn as_data(&self) -> Option<&AmdPdu> {
        match self {
            Pdu::Data(d) => Some(d),
            Pdu::Status(_) => None,
        }
    }

    pub fn as_status(&self) -> Option<&StatusPdu> {
        match self {
            Pdu::Status(s) => Some(s),
            Pdu::Data(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sn_wraps_modulo_4096() {
        assert_eq!(Sn::new(4096), Sn::new(0));
        assert_eq!(Sn::new(4095) + 2, Sn::new(1));
        assert_eq!(Sn::new(1).offset_from(Sn::new(4095)), 2);
        assert_eq!(Sn::new(4095).offset_from(Sn::new(1)), 4094);
    }

    #[test]
    fn sufi_sizes_follow_ts_25_322() {
        // ACK: 4 + 12; LIST with 2 pairs: 4 + 4 + 2 * 16; BITMAP 2 octets:
        // 4 + 4 + 12 + 16; MRW (1 SN): 4 + 4 + 12 + 4; MRW_ACK: 4 + 4 + 12.
        assert_eq!(Sufi::Ack { lsn: Sn::new(3) }.bits(), 16);
        assert_eq!(
            Sufi::List(vec![(Sn::new(1), 0), (Sn::new(9), 3)]).bits(),
            40
        );
        let bm = Sufi::Bitmap {
            fsn: Sn::new(0),
            bits: vec![true; 16],
        };
        assert_eq!(bm.bits(), 36);
        let mrw = Sufi::Mrw {
            sn_mrw: Sn::new(3),
            n_length: 1,
        };
        assert_eq!(mrw.bits(), 24);
        let ack = Sufi::MrwAck {
            n: 0,
            sn_ack: Sn::new(7),
        };
        assert_eq!(ack.bits(), 20);
        let st = StatusPdu {
            sufis: vec![
                Sufi::List(vec![(Sn::new(1), 0)]),
                Sufi::Ack { lsn: Sn::new(4) },
            ],
            size: 42,
        };
        assert_eq!(st.used_bits(), 4 + 24 + 16);
        assert_eq!(st.padding_bits(), 336 - 44);
    }

    #[test]
    fn amd_pdu_accounting() {
        // 2 header octets, one LI ending a 30-octet SDU tail, a padding LI,
        // 30 data octets and 8 padding octets: 42 octets.
        let p = AmdPdu {
            sn: Sn::new(3),
            poll: true,
            sdu_ends_at_pdu_end: false,
            lis: vec![Li::End(30), Li::Padding],
            data: vec![Chunk { sdu: 7, len: 30 }],
            size: 42,
        };
        assert_eq!(p.he(), 1);
        assert_eq!(p.header_len(), 4);
        assert_eq!(p.data_area(), 38);
        assert_eq!(p.data_len(), 30);
        assert_eq!(p.padding_len(), 8);
        assert_eq!(p.sdu_at(29), Some(7));
        assert_eq!(p.sdu_at(30), None);
        assert_eq!(Li::Padding.value(), 127);
    }
}
