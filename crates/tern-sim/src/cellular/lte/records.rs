//! The LTE cell's trace records: its completed handovers.

use crate::engine::SimTime;

crate::record! {
    /// A cellular handover completed.
    HandoverRecord<'a> => "handovers" {
        time: SimTime,
        link: &'a str,
        /// The UE's node (`ends[0]` of the link).
        ue: &'a str,
        /// 1 for the first handover of the link (the UE starts in cell 0).
        cell: u32,
        /// Start of the handover's burst-loss period.
        loss_start: SimTime,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// Every completed handover of a cellular link.
                Handovers = "handovers",
            }
            tables {
                HandoverRecord in cellular::lte::records => Handovers,
            }
        }
    };
}
pub(crate) use records;
