//! Building an LTE cell link: a point-to-point link whose directions lose packets in the
//! handovers' burst-loss windows and drain at the rate the cell grants, and the wake-ups and
//! bearer changes at each handover's completion.

use super::spec::{CellSpec, Lte};
use super::{Handover, LteCell};
use crate::link::p2p::{self, covers, Extras};
use crate::link::{Build, Start, Technology};
use crate::net::device::{Action, Device, Dir, IfaceId};
use crate::net::loss::LossModel;
use crate::net::service::ServiceRate;
use crate::scenario::LinkSpec;

impl Technology for Lte {
    fn build(link: &LinkSpec, cell: &CellSpec, cx: &mut Build<'_>) -> Box<dyn Device> {
        let all = cell.all_handovers(cx.end);
        let extras = |dir: Dir| {
            let windows: Vec<_> = all
                .iter()
                .filter(|h| covers(h.loss_direction, dir))
                .map(|h| (h.at.0.saturating_sub(h.burst_loss.0), h.at.0))
                .collect();
            Extras {
                loss: (!windows.is_empty()).then_some(LossModel::Outage { windows }),
                service: Some(granted_rate(link, cell, dir, cx)),
            }
        };
        let p2p = p2p::point_to_point(link, cx, extras);
        let handovers = all
            .iter()
            .enumerate()
            .map(|(k, h)| Handover {
                at: h.at.0,
                cell: k as u32 + 1,
                loss_start: h.at.0.saturating_sub(h.burst_loss.0),
            })
            .collect();
        let cell_link = LteCell::new(p2p, &link.name, (cx.near, &link.ends[0]), handovers);
        for (k, h) in all.iter().enumerate() {
            // The new cell's bearers take effect at completion: uplink is the forward
            // interface, downlink the reverse one.
            for (d, bearer) in [&h.uplink, &h.downlink].into_iter().enumerate() {
                if let Some(b) = bearer {
                    cx.starts.push(Start::Change {
                        at: h.at.0,
                        iface: IfaceId(cx.first.0 + d as u32),
                        rate: b.rate,
                        delay: b.delay.map(|d| d.0),
                    });
                }
            }
            let Action::Wake { at, token } = cell_link.completion(k) else {
                unreachable!("a completion is a wake-up")
            };
            cx.starts.push(Start::Wake { at, token });
        }
        Box::new(cell_link)
    }
}

/// The rate an LTE cell's scheduler grants one direction of the bearer over time: the
/// link's rate, its scheduled changes of that direction, and each target cell's bearer rate
/// from its handover's completion (uplink forward, downlink reverse). See
/// [`ServiceRate`]: a change applies to the rest of the packet being sent.
fn granted_rate(link: &LinkSpec, cell: &CellSpec, dir: Dir, cx: &Build<'_>) -> ServiceRate {
    let forward = dir == Dir::Forward;
    let scheduled = link
        .schedule
        .iter()
        .filter(|c| covers(c.direction, dir))
        .filter_map(|c| Some((c.at.0, c.rate?)));
    let handovers = cell.all_handovers(cx.end).into_iter().filter_map(|h| {
        let bearer = if forward { h.uplink } else { h.downlink };
        Some((h.at.0, bearer?.rate?))
    });
    // Scheduled changes first, then handovers: at one instant the target cell's rate wins,
    // as the world applies the link's changes before the handovers' (build order).
    ServiceRate::new(
        link.rate_of(!forward),
        scheduled.chain(handovers).collect::<Vec<_>>(),
    )
}
