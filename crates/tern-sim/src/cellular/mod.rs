//! Cellular link models. LTE cell bearers are point-to-point channels with a
//! handover schedule (see `scenario::CellSpec` and the world); the W-CDMA
//! bearer with RLC acknowledged mode is a device of its own.

pub mod wcdma;
