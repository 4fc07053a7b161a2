//! Cellular link models, each a device: the LTE cell bearer with its handovers ([`lte`])
//! and the W-CDMA bearer with RLC acknowledged mode ([`wcdma`]).

pub mod lte;
pub mod wcdma;
