//! The W-CDMA bearer's trace records: RLC AM per TTI and every SDU's delay across the RLC.

use crate::engine::SimTime;

crate::record! {
    /// RLC AM in one TTI and direction: sender buffer, PDUs sent and retransmitted.
    RlcRecord<'a> => "rlc" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        /// Bytes waiting in the RLC sender's buffer.
        buffer_bytes: u64,
        /// PDUs sent in the TTI.
        pdus_sent: u64,
        /// PDUs of those that were retransmissions.
        pdus_retransmitted: u64,
    }
}

crate::record! {
    /// An SDU reassembled by RLC AM: its delay across the RLC.
    RlcSduRecord<'a> => "rlc_sdu" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        uid: u64,
        /// The SDU's delay across the RLC.
        delay: SimTime,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// RLC AM per TTI and direction: sender buffer, PDUs sent and retransmitted;
                /// and (table `rlc_sdu`) every SDU's delay across the RLC.
                Rlc = "rlc",
            }
            tables {
                RlcRecord in cellular::wcdma::records => Rlc,
                RlcSduRecord in cellular::wcdma::records => Rlc,
            }
        }
    };
}
pub(crate) use records;
