//! DropTail: first in, first out; an arrival that does not fit is dropped.

use super::{Fifo, Queued};
use crate::scenario::units::QueueLimit;

#[derive(Debug)]
pub struct DropTail {
    pub(super) fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            fifo: Fifo::new(limit),
        }
    }

    pub fn dequeue(&mut self) -> Option<Queued> {
        self.fifo.pop()
    }
}
