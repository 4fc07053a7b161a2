//! Point-to-point links: the base every `[[links]]` entry starts from. Each direction is a
//! [`Transmitter`] with the link's queue, rate (or trace of delivery opportunities), delay,
//! framing and loss models (see `net::p2p` for the model); a technology that runs on a
//! point-to-point link (the LTE cell) adds its own loss windows and service rate by
//! [`Extras`].

use super::Build;
use crate::engine::RngStream;
use crate::net::device::Dir;
use crate::net::loss::LossModel;
use crate::net::p2p::{PointToPoint, Transmitter};
use crate::net::qdisc::Qdisc;
use crate::net::service::ServiceRate;
use crate::scenario::units::DataRate;
use crate::scenario::{Direction, LinkSpec};
use crate::tracelink::service::TraceService;

/// What a technology adds to one direction of its point-to-point link.
#[derive(Default)]
pub(crate) struct Extras {
    /// A loss model after the link's own (an LTE cell's handover bursts).
    pub loss: Option<LossModel>,
    /// The rate the direction is served at over time, unless it has a trace (an LTE
    /// cell's granted rate).
    pub service: Option<ServiceRate>,
}

/// Whether direction `dir` is among `d`.
pub(crate) fn covers(d: Direction, dir: Dir) -> bool {
    match dir {
        Dir::Forward => d.covers_forward(),
        Dir::Reverse => d.covers_reverse(),
    }
}

/// The point-to-point device of `link`, each direction with what `extras` adds to it.
pub(crate) fn point_to_point(
    link: &LinkSpec,
    cx: &Build<'_>,
    mut extras: impl FnMut(Dir) -> Extras,
) -> PointToPoint {
    let forward = transmitter(link, Dir::Forward, cx, extras(Dir::Forward));
    let reverse = transmitter(link, Dir::Reverse, cx, extras(Dir::Reverse));
    PointToPoint::new(cx.first, forward, reverse)
}

/// One direction of a point-to-point link: its transmitter with its queue and loss models
/// (the link's own, then the technology's).
fn transmitter(link: &LinkSpec, dir: Dir, cx: &Build<'_>, extras: Extras) -> Transmitter {
    let mut loss: Vec<LossModel> = link
        .loss
        .iter()
        .filter(|l| covers(l.direction(), dir))
        .map(|l| {
            let stream = format!("link/{}/{}/loss", link.name, dir.as_str());
            LossModel::from_spec(l, RngStream::new(cx.seed, &stream), cx.mobility)
        })
        .collect();
    loss.extend(extras.loss);
    let reverse = link.reverse.as_ref().filter(|_| dir == Dir::Reverse);
    let queue = reverse
        .and_then(|r| r.queue.as_ref())
        .unwrap_or(&link.queue);
    let tx = Transmitter::new(
        link.rate_of(dir == Dir::Reverse),
        link.delay_of(dir == Dir::Reverse).0,
        Qdisc::from_spec(queue, link.mtu.0 as u32),
        loss,
    )
    .with_framing(link.framing.0 as u32);
    if let Some(spec) = link.trace_of(dir == Dir::Reverse) {
        let stream = format!("link/{}/{}/trace", link.name, dir.as_str());
        let trace = crate::tracelink::build(spec, cx.seed, &stream)
            .expect("a trace is checked when the scenario is loaded");
        return tx.with_trace(TraceService::new(std::sync::Arc::new(trace)));
    }
    match extras.service {
        Some(service) => tx.with_service(service),
        None => tx,
    }
}

/// The mean rate of a traced direction's delivery opportunities (what its utilisation is
/// counted against), `None` for a direction without a trace.
pub(crate) fn traced_rate(link: &LinkSpec, dir: Dir, seed: u64) -> Option<DataRate> {
    let spec = link.trace_of(dir == Dir::Reverse)?;
    let stream = format!("link/{}/{}/trace", link.name, dir.as_str());
    let trace = crate::tracelink::build(spec, seed, &stream).ok()?;
    Some(DataRate(trace.mean_rate()))
}
