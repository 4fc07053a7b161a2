//! UDP's trace records: a ping's round-trip times.

use crate::engine::SimTime;

crate::record! {
    /// A ping reply came back `rtt` after its request left.
    RttRecord<'a> => "rtt" {
        time: SimTime,
        flow: &'a str,
        seq: u64,
        /// Round-trip time of the echo request.
        rtt: SimTime,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// Round-trip times of ping replies.
                Rtt = "rtt",
            }
            tables {
                RttRecord in transport::udp::records => Rtt,
            }
        }
    };
}
pub(crate) use records;
