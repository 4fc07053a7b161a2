//! The LTE cell's table in `[[links]]` (`cell = { … }`): its handovers, and its checks.

use crate::scenario::schema::defaults::s3;
use crate::scenario::units::{DataRate, Duration};
use crate::scenario::{Direction, LinkCheck, LinkSpec, LinkTable, NoDetail, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The LTE cell bearer technology (`cell = { … }`).
pub struct Lte;

impl LinkTable for Lte {
    type Spec = CellSpec;
    type Detail = NoDetail;

    fn check(
        _link: &LinkSpec,
        cell: &CellSpec,
        cx: &LinkCheck<'_, '_>,
    ) -> Result<(), ScenarioError> {
        use crate::scenario::PathSeg::{Index, Key};
        let at = |segs: &[crate::scenario::PathSeg]| [&[Key("cell".to_owned())], segs].concat();
        let k = |s: &str| Key(s.to_owned());
        let zero_rate =
            |b: &Option<BearerSpec>| b.as_ref().is_some_and(|b| b.rate.is_some_and(|r| r.0 == 0));
        if let Some(t) = &cell.train {
            if t.every.0.as_nanos() == 0 {
                return Err(cx.error(
                    &["cell", "train", "every"],
                    "expected a handover interval above zero",
                ));
            }
            for (name, bearer) in [("uplink", &t.uplink), ("downlink", &t.downlink)] {
                if zero_rate(bearer) {
                    return Err(cx.error(
                        &["cell", "train", name, "rate"],
                        "expected a rate above zero",
                    ));
                }
            }
        }
        for (j, h) in cell.handovers.iter().enumerate() {
            if h.burst_loss.0 > h.at.0 {
                return Err(cx.error_at(
                    &at(&[k("handovers"), Index(j), k("burst_loss")]),
                    format!(
                        "the burst-loss period would start before 0 s (handover at {})",
                        h.at.0
                    ),
                ));
            }
            for (name, bearer) in [("uplink", &h.uplink), ("downlink", &h.downlink)] {
                if zero_rate(bearer) {
                    return Err(cx.error_at(
                        &at(&[k("handovers"), Index(j), k(name), k("rate")]),
                        "expected a rate above zero",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// An LTE cell bearer between a UE (`ends[0]`) and the network (`ends[1]`):
/// the uplink and downlink bearers are the link's two directions, and the UE
/// hands over between cells. Each handover is a burst-loss period (radio link
/// failure and re-establishment, in which every packet of the affected
/// directions is lost) ending when the handover completes; at completion the
/// new cell's rate and delay take effect and the UE gets a "handover
/// complete" event (the cell-id change the lte-switch study watches).
///
/// Each direction is a scheduled bearer: its queue (`queue`, `reverse.queue`; for the
/// uplink, the UE's buffer) drains at the rate the cell's scheduler grants — the link's
/// `rate` (`reverse.rate`), its `schedule` changes, and each target cell's `uplink.rate`
/// / `downlink.rate` from its handover's completion. A change of rate applies to the rest
/// of the packet being sent, as a UE fills each subframe's grant from its buffer and
/// segments a packet across grants (3GPP TS 36.321 §5.4.3.1, TS 36.322 §4.2.1.2): the
/// buffer is a FIFO server with a time-varying rate, so a packet that finds `Q` bytes
/// ahead of it waits `Q · 8 / rate` at a constant rate, and a crowded cell's delay builds
/// while the grant is below what the UE offers and drains when it is above (see
/// `net/service.rs`). The grant is the UE's share of the cell: the standard leaves the
/// scheduler to the vendor (TS 36.300 §11), and a proportional-fair one with N backlogged
/// UEs of similar channel quality gives each about 1/N of the cell's uplink over time
/// (Jalali, Padovani, Pankaj, VTC 2000). Loss in a handover's burst is decided when a
/// packet's last byte leaves, so the burst takes the packets that reach the head of the
/// buffer then, not those sent then.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handovers: Vec<HandoverSpec>,
    /// A train passing cells: handovers at `first`, `first + every`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<TrainSpec>,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoverSpec {
    /// When the handover completes.
    pub at: Duration,
    /// Length of the burst-loss period that ends at `at` (default 3 s, the
    /// loss period measured on a train in the lte-switch study, Fig. 2).
    #[serde(default = "s3")]
    pub burst_loss: Duration,
    /// Directions that lose packets during the burst (default both).
    #[serde(default)]
    pub loss_direction: Direction,
    /// The target cell's uplink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<BearerSpec>,
    /// The target cell's downlink bearer, where it differs (a congested
    /// target cell has a large delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<BearerSpec>,
}

/// Rate and/or delay of a bearer in a new cell.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BearerSpec {
    /// The rate the new cell grants the bearer (bit/s), from completion on, until a later
    /// `schedule` change or handover: the rest of a packet being sent goes at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    /// The new cell's one-way radio delay, for packets that leave from completion on.
    /// It is the same for every packet: a congested cell's waiting is its queue at a low
    /// `rate`, which builds and drains, not a larger delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
}

/// Handovers at regular intervals, as on a train passing cells.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrainSpec {
    /// Completion time of the first handover.
    pub first: Duration,
    pub every: Duration,
    /// Number of handovers (default: until the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Burst-loss period before each completion (default 3 s, as `handovers`).
    #[serde(default = "s3")]
    pub burst_loss: Duration,
    #[serde(default)]
    pub loss_direction: Direction,
    /// Every target cell's uplink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<BearerSpec>,
    /// Every target cell's downlink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<BearerSpec>,
}

impl CellSpec {
    /// Every handover, from the list and the train, in order of completion;
    /// the train's stop at the first whose burst loss starts at or after `end`.
    pub fn all_handovers(&self, end: tern_proto::time::SimTime) -> Vec<HandoverSpec> {
        let mut all = self.handovers.clone();
        if let Some(t) = &self.train {
            let count = t.count.map_or(u64::MAX, u64::from);
            let mut at = t.first.0;
            let mut k = 0;
            while k < count && at.saturating_sub(t.burst_loss.0) < end {
                all.push(HandoverSpec {
                    at: Duration(at),
                    burst_loss: t.burst_loss,
                    loss_direction: t.loss_direction,
                    uplink: t.uplink.clone(),
                    downlink: t.downlink.clone(),
                });
                at += t.every.0;
                k += 1;
            }
        }
        all.sort_by_key(|h| h.at.0);
        all
    }
}
