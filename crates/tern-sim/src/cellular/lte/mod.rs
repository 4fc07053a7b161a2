//! An LTE cell bearer between a UE (`ends[0]`) and the network: a point-to-point link whose
//! two directions are the uplink and downlink bearers, and whose UE hands over between cells
//! (see [`CellSpec`]). Each handover is a burst-loss period (radio link failure and
//! re-establishment: the link's outage windows) ending when the handover completes; then the
//! new cell's rate and delay take effect (the link's scheduled changes) and the UE's
//! transports hear that its link is back and that it changed cell (the cell-id change the
//! lte-switch study watches), and the `handovers` trace records it.
//!
//! Loss (the burst and any random loss) is decided when a packet is sent over the air in the
//! serving cell ([`LossAt::Departure`]): a packet sent during the burst is lost even if its
//! one-way delay would bring it to the far end after the handover completed.

mod link;
pub mod records;
pub(crate) use records::records;
pub mod spec;

pub use spec::{BearerSpec, CellSpec, HandoverSpec, Lte, TrainSpec};

use crate::engine::SimTime;
use crate::net::device::{Action, Device, DeviceCx, Forward};
use crate::net::p2p::{LossAt, PointToPoint};
use crate::net::packet::NodeId;
use records::HandoverRecord;

/// The first wake-up token of a handover completion; below it, the link's own.
const HANDOVER: u32 = 2;

/// One handover of the cell link, known from the scenario.
pub struct Handover {
    pub at: SimTime,
    /// 1 for the first handover of the link (the UE starts in cell 0).
    pub cell: u32,
    pub loss_start: SimTime,
}

/// The cell link: its point-to-point directions and the UE's handovers.
pub struct LteCell {
    link: PointToPoint,
    name: String,
    ue: NodeId,
    ue_name: String,
    handovers: Vec<Handover>,
}

impl LteCell {
    pub fn new(
        link: PointToPoint,
        name: &str,
        ue: (NodeId, &str),
        handovers: Vec<Handover>,
    ) -> Self {
        LteCell {
            link: link.deciding_loss(LossAt::Departure),
            name: name.to_owned(),
            ue: ue.0,
            ue_name: ue.1.to_owned(),
            handovers,
        }
    }

    /// The wake-up of the `k`-th handover's completion, to queue when the world is built.
    pub fn completion(&self, k: usize) -> Action {
        Action::Wake {
            at: self.handovers[k].at,
            token: HANDOVER + k as u32,
        }
    }
}

/// The cell is its point-to-point link plus the handovers' completions: every other call
/// goes to the link.
impl Forward for LteCell {
    type Inner = PointToPoint;

    fn inner(&self) -> &PointToPoint {
        &self.link
    }

    fn inner_mut(&mut self) -> &mut PointToPoint {
        &mut self.link
    }

    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        let Some(k) = token.checked_sub(HANDOVER) else {
            return self.link.wake(now, token, cx);
        };
        let h = &self.handovers[k as usize];
        cx.push(Action::LinkUp(self.ue));
        cx.traces.record(&HandoverRecord {
            time: now,
            link: &self.name,
            ue: &self.ue_name,
            cell: h.cell,
            loss_start: h.loss_start,
        });
    }
}
