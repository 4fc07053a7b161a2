//! Cellular link technologies, each in its folder with its `[[links]]` table and checks
//! (`spec.rs`), its device (`mod.rs`) and its builder (`link.rs`): the LTE cell bearer with
//! its handovers ([`lte`], `cell = { … }`) and the W-CDMA bearer with RLC acknowledged mode
//! ([`wcdma`], `rlc = { … }`). They are listed in [`crate::with_links`].

pub mod lte;
pub mod wcdma;
