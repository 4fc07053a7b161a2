//! The frame exchange of a BSS chosen by its PHY: one type over the two implementations of
//! [`FrameExchange`], so the BSS holds either without a trait object. It sits above both, so
//! the trait's module names neither.

use super::dcf::DcfExchange;
use super::exchange::{Cx, FrameExchange, Ppdu, Tx};
use super::frame::Frame;
use super::ht::HtExchange;
use super::outcome::{Outcome, TxRecord};
use crate::engine::SimTime;
use std::collections::VecDeque;

/// The frame exchange of a BSS, by PHY: the DCF's Data/Ack (802.11b, 802.11g) or HT's
/// A-MPDU/BlockAck (802.11n).
pub(crate) enum Exchange {
    Dcf(DcfExchange),
    Ht(HtExchange),
}

macro_rules! forward {
    ($self:ident, $x:ident => $e:expr) => {
        match $self {
            Exchange::Dcf($x) => $e,
            Exchange::Ht($x) => $e,
        }
    };
}

impl FrameExchange for Exchange {
    #[inline]
    fn queue(&mut self, i: usize) -> &mut VecDeque<Frame> {
        forward!(self, x => x.queue(i))
    }

    #[inline]
    fn backlog(&self, i: usize) -> usize {
        forward!(self, x => x.backlog(i))
    }

    #[inline]
    fn has_traffic(&self, i: usize) -> bool {
        forward!(self, x => x.has_traffic(i))
    }

    fn expire(&mut self, now: SimTime, lifetime: SimTime, cx: &mut Cx<'_>) -> SimTime {
        forward!(self, x => x.expire(now, lifetime, cx))
    }

    fn start(&mut self, now: SimTime, i: usize, cx: &mut Cx<'_>) -> Ppdu {
        forward!(self, x => x.start(now, i, cx))
    }

    fn receive(&mut self, tx: &Tx, cx: &mut Cx<'_>) -> Option<SimTime> {
        forward!(self, x => x.receive(tx, cx))
    }

    fn conclude(&mut self, now: SimTime, tx: &Tx, record: &mut TxRecord, cx: &mut Cx<'_>) -> bool {
        forward!(self, x => x.conclude(now, tx, record, cx))
    }

    fn leave(&mut self, k: usize, out: &mut Outcome) {
        forward!(self, x => x.leave(k, out))
    }

    #[inline]
    fn next_timeout(&self) -> Option<SimTime> {
        forward!(self, x => x.next_timeout())
    }

    #[inline]
    fn run_timeouts(&mut self, now: SimTime, out: &mut Outcome) {
        forward!(self, x => x.run_timeouts(now, out))
    }
}
