//! What UDP adds to its flows' summaries: nothing.

use crate::summary::KindSummary;

/// UDP adds nothing to its flows' summaries.
#[derive(Clone, Debug, serde::Serialize)]
pub enum Summary {}

impl KindSummary for Summary {}
