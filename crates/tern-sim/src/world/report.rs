//! The summary of a run, from what the transports and devices report.

use super::{Flow, World};
use crate::engine::SimTime;
use crate::summary::{
    ChannelSummary, Distribution, Drops, FlowSummary, Summary, LIST_EVERY_DIRECTION,
};
use indexmap::IndexMap;

fn flow_summary(w: &World, f: &Flow, flying: u64) -> FlowSummary {
    let end = w.end();
    let active = end.saturating_sub(f.start).as_secs_f64();
    let r = f.transport.report(f.start);
    let (sent, delivered) = (r.messages_sent, r.sink.received);
    // A message not delivered by the end never arrived: it counts as lost, wherever it
    // is (dropped, held in a queue or a reordering buffer, or, over a reliable stream,
    // still to be delivered). `flying` says how many of them were still on their way.
    let lost = sent.saturating_sub(delivered);
    let flying = if r.reliable { lost } else { flying.min(lost) };
    let echo = f.app == "ping";
    // A bounded transfer that finished counts over its own time; anything else over the
    // time from its start to the end of the run.
    let transfer = r
        .detail
        .as_ref()
        .and_then(crate::transport::TransportSummary::transfer_time_s);
    let rate = |secs: f64| {
        if secs > 0.0 {
            r.bytes_delivered as f64 * 8.0 / secs
        } else {
            0.0
        }
    };
    let dist = Distribution::of_nanos(&r.sink.delays);
    FlowSummary {
        app: f.app,
        transport: r.kind,
        from: w.node_names[f.src.0 as usize].clone(),
        to: w.node_names[f.dst.0 as usize].clone(),
        messages_sent: sent,
        messages_delivered: delivered,
        messages_lost: lost,
        messages_in_flight: flying,
        bytes_sent: r.bytes_sent,
        bytes_delivered: r.bytes_delivered,
        goodput_bps: rate(transfer.unwrap_or(active)),
        goodput_over_run_bps: rate(active),
        loss_rate: if sent > 0 {
            lost as f64 / sent as f64
        } else {
            0.0
        },
        delay_s: if echo { None } else { dist.clone() },
        rtt_s: if echo { dist } else { None },
        detail: r.detail,
    }
}

/// The summary of the run that ended (after `events` events).
pub(super) fn summary(w: &World, events: u64) -> Summary {
    let end = w.end();
    let mut in_flight = vec![0u64; w.flows.len()];
    for p in w.pool.live() {
        if p.body.is_message() {
            in_flight[p.flow.0 as usize] += 1;
        }
    }
    let flows = w
        .flows
        .iter()
        .zip(&in_flight)
        .map(|(f, &flying)| (f.name.to_string(), flow_summary(w, f, flying)))
        .collect();
    let mut links: IndexMap<String, IndexMap<&'static str, ChannelSummary>> = IndexMap::new();
    let span = end.as_nanos().max(1) as f64;
    let list_every = w.ifaces.len() <= LIST_EVERY_DIRECTION;
    let mut idle_directions = 0;
    for iface in &w.ifaces {
        let s = &iface.stats;
        let device = &w.devices[iface.device.0 as usize];
        let q = device.queue_stats(iface.port);
        let idle = s.tx_packets == 0
            && s.delivered_packets == 0
            && s.drops_queue + s.drops_aqm + s.drops_loss == 0
            && q.max_packets == 0;
        if idle && !list_every {
            idle_directions += 1;
            continue;
        }
        let busy = iface.rate.tx_time(s.tx_bytes).min(end);
        let mut row = ChannelSummary {
            from: w.node_names[iface.from.0 as usize].clone(),
            to: w.node_names[iface.to.0 as usize].clone(),
            tx_packets: s.tx_packets,
            tx_bytes: s.tx_bytes,
            delivered_packets: s.delivered_packets,
            drops: Drops {
                queue: s.drops_queue,
                aqm: s.drops_aqm,
                loss: s.drops_loss,
            },
            queue_mean_packets: q.packet_ns as f64 / span,
            queue_max_packets: q.max_packets as u64,
            queue_mean_bytes: q.byte_ns as f64 / span,
            queue_max_bytes: q.max_bytes,
            utilization: busy.as_nanos() as f64 / SimTime::max(end, SimTime(1)).as_nanos() as f64,
            detail: None,
        };
        device.report_port(iface.port, &mut row);
        links
            .entry(iface.link.clone())
            .or_default()
            .insert(iface.dir.as_str(), row);
    }
    let mut summary = Summary {
        tern_version: env!("CARGO_PKG_VERSION"),
        seed: w.seed(),
        duration_s: end.as_secs_f64(),
        events,
        packets: w.pool.created(),
        flows,
        links,
        idle_directions,
        wifi: IndexMap::new(),
        emulation: None,
    };
    for d in &w.devices {
        d.report(end, &mut summary);
    }
    summary
}
