//! The summary of a run: per flow and per link direction, written as `summary.json`.

use crate::engine::SimTime;
use crate::net::packet::Body;
use crate::transport::tcp::{Side, TcpFlow};
use crate::world::{Flow, Transport, World};
use indexmap::IndexMap;
use serde::Serialize;

/// Percentiles of a sample by the nearest-rank method: the p-th percentile
/// is the smallest value with at least p % of the sample at or below it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    /// Summarises durations in nanoseconds, reported in seconds.
    pub fn of_nanos(values: &[u64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let rank = |p: u64| v[((p as usize * n).div_ceil(100)).clamp(1, n) - 1] as f64 / 1e9;
        let sum: u128 = v.iter().map(|&x| u128::from(x)).sum();
        Some(Distribution {
            count: n as u64,
            mean: (sum as f64 / n as f64) / 1e9,
            min: v[0] as f64 / 1e9,
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: v[n - 1] as f64 / 1e9,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub app: &'static str,
    pub transport: &'static str,
    pub from: String,
    pub to: String,
    pub messages_sent: u64,
    pub messages_delivered: u64,
    /// Sent, not delivered, and no longer in the network at the end.
    pub messages_lost: u64,
    /// Still queued or propagating when the run ended.
    pub messages_in_flight: u64,
    pub bytes_sent: u64,
    pub bytes_delivered: u64,
    /// Application bytes delivered × 8 / (end of run − flow start).
    pub goodput_bps: f64,
    /// messages_lost / (messages_sent − messages_in_flight).
    pub loss_rate: f64,
    /// One-way delay of delivered messages (data flows), in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_s: Option<Distribution>,
    /// Round-trip times (ping), in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_s: Option<Distribution>,
    /// The sending TCP endpoint's counters (TCP flows; the first connection).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSummary>,
    /// What a `ConnectionSwitcher` did (switched flows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switcher: Option<SwitcherSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SwitcherSummary {
    /// When the UE moved new messages to the spare connection.
    pub switched_at_s: Option<f64>,
    pub notices_sent: u64,
    pub notices_received: u64,
    pub handovers_seen: u64,
    /// The spare connection's sending endpoint, once opened.
    pub spare_tcp: Option<TcpSummary>,
}

/// Counters of a flow's sending TCP endpoint.
#[derive(Clone, Debug, Serialize)]
pub struct TcpSummary {
    /// When the last byte of a bounded bulk transfer (or of a file response)
    /// reached the receiving application.
    pub completion_time_s: Option<f64>,
    /// `completion_time_s` less the flow's start: the transfer time,
    /// connection set-up included.
    pub transfer_time_s: Option<f64>,
    pub segments_sent: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub retransmits_sack: u64,
    /// Duplicate ACKs the sender received (RFC 5681 §2 definition).
    pub dupacks_received: u64,
    pub rto_expiries: u64,
    /// Timeouts F-RTO found spurious (RFC 5682).
    pub spurious_rtos: u64,
    pub final_cwnd: u64,
    pub final_srtt_s: Option<f64>,
    /// Connection state at the end of the run.
    pub state: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Drops {
    /// Arrivals to a full queue.
    pub queue: u64,
    /// Dropped by the queue discipline (CoDel).
    pub aqm: u64,
    /// Lost to the link's loss model.
    pub loss: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ChannelSummary {
    pub from: String,
    pub to: String,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub delivered_packets: u64,
    pub drops: Drops,
    /// Time-averaged number of packets waiting (not counting the one in service).
    pub queue_mean_packets: f64,
    pub queue_max_packets: u64,
    pub queue_mean_bytes: f64,
    pub queue_max_bytes: u64,
    /// Fraction of the run the transmitter was busy (an upper bound when the
    /// rate changed during the run; not meaningful on an RLC bearer).
    pub utilization: f64,
    /// The sending RLC entity's counters (W-CDMA bearers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rlc: Option<RlcSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RlcSummary {
    /// AMD and STATUS PDUs sent on this direction's radio.
    pub pdus_sent: u64,
    /// Of those, lost on the radio.
    pub pdus_lost: u64,
    pub pdus_retransmitted: u64,
    pub status_pdus_sent: u64,
    pub polls_sent: u64,
    /// SDUs dropped after MaxDAT.
    pub sdus_discarded: u64,
    pub max_buffer_bytes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub tern_version: &'static str,
    pub seed: u64,
    pub duration_s: f64,
    /// Events executed by the engine.
    pub events: u64,
    /// Packets created (every IP packet, whatever became of it).
    pub packets: u64,
    pub flows: IndexMap<String, FlowSummary>,
    /// Per link, per direction (`forward` = ends[0] → ends[1]).
    pub links: IndexMap<String, IndexMap<&'static str, ChannelSummary>>,
    /// Per 802.11 BSS.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub wifi: IndexMap<String, WifiSummary>,
}

fn flow_summary(w: &World, f: &Flow, flying: u64) -> FlowSummary {
    let end = w.end();
    let active = end.saturating_sub(f.start).as_secs_f64();
    let (transport, sent, sent_bytes, sink, tcp) = match &f.transport {
        Transport::Udp { source, sink } => {
            ("udp", source.sent, source.sent_bytes, sink.clone(), None)
        }
        Transport::Tcp(t) => (
            "tcp",
            t.messages_sent(),
            t.written(),
            t.sink(),
            Some(tcp_summary(&t.conns[0], f.start)),
        ),
    };
    let delivered = sink.received;
    let lost = sent.saturating_sub(delivered + flying);
    // Over TCP a message is never lost: what is not delivered is still on its way.
    let (lost, flying) = if tcp.is_some() {
        (0, sent - delivered)
    } else {
        (lost, flying)
    };
    let echo = f.app == "ping";
    let dist = Distribution::of_nanos(&sink.delays);
    let bytes_delivered = match &f.transport {
        Transport::Udp { sink, .. } => sink.received_bytes,
        Transport::Tcp(t) => t.delivered_bytes(),
    };
    FlowSummary {
        app: f.app,
        transport,
        from: w.node_names[f.src.0 as usize].clone(),
        to: w.node_names[f.dst.0 as usize].clone(),
        messages_sent: sent,
        messages_delivered: delivered,
        messages_lost: lost,
        messages_in_flight: flying,
        bytes_sent: sent_bytes,
        bytes_delivered,
        goodput_bps: if active > 0.0 {
            bytes_delivered as f64 * 8.0 / active
        } else {
            0.0
        },
        loss_rate: if sent > flying {
            lost as f64 / (sent - flying) as f64
        } else {
            0.0
        },
        delay_s: if echo { None } else { dist.clone() },
        rtt_s: if echo { dist } else { None },
        tcp,
        switcher: match &f.transport {
            Transport::Tcp(t) => t.switcher.as_ref().map(|sw| SwitcherSummary {
                switched_at_s: sw.mech.switched_at().map(SimTime::as_secs_f64),
                notices_sent: sw.mech.notices_sent,
                notices_received: sw.mech.notices_received,
                handovers_seen: sw.mech.handovers_seen,
                spare_tcp: t.conns.get(1).map(|c| tcp_summary(c, f.start)),
            }),
            Transport::Udp { .. } => None,
        },
    }
}

fn tcp_summary(t: &TcpFlow, start: SimTime) -> TcpSummary {
    let client = &t.ends[Side::Client.index()].conn;
    let st = client.stats();
    TcpSummary {
        completion_time_s: t.completed_at.map(SimTime::as_secs_f64),
        transfer_time_s: t
            .completed_at
            .map(|c| c.saturating_sub(start).as_secs_f64()),
        segments_sent: st.segments_sent,
        retransmits_fast: st.retransmits_fast,
        retransmits_rto: st.retransmits_rto,
        retransmits_sack: st.retransmits_sack,
        dupacks_received: st.dupacks_received,
        rto_expiries: st.rto_expiries,
        spurious_rtos: st.spurious_rtos,
        final_cwnd: client.cwnd(),
        final_srtt_s: client.srtt().map(SimTime::as_secs_f64),
        state: format!("{:?}", client.state()),
    }
}

pub(crate) fn build(w: &World, events: u64) -> Summary {
    let end = w.end();
    let secs = end.as_secs_f64();
    let mut in_flight = vec![0u64; w.flows.len()];
    for p in w.pool.live() {
        if let Body::Udp(_) = p.body {
            in_flight[p.flow.0 as usize] += 1;
        }
    }
    let flows = w
        .flows
        .iter()
        .zip(&in_flight)
        .map(|(f, &flying)| (f.name.clone(), flow_summary(w, f, flying)))
        .collect();
    let mut links: IndexMap<String, IndexMap<&'static str, ChannelSummary>> = IndexMap::new();
    for (i, ch) in w.channels.iter().enumerate() {
        let s = &ch.stats;
        let rlc = w.bearers.get(i / 2).and_then(Option::as_ref).map(|b| {
            let dir = i % 2;
            let (c, st) = (b.counters(dir), b.entities[dir].stats());
            RlcSummary {
                pdus_sent: c.pdus_sent,
                pdus_lost: c.pdus_lost,
                pdus_retransmitted: st.pdus_retransmitted,
                status_pdus_sent: st.status_pdus_sent,
                polls_sent: st.polls_sent,
                sdus_discarded: st.sdus_discarded,
                max_buffer_bytes: c.max_buffer_bytes,
            }
        });
        let busy = ch.rate.tx_time(s.tx_bytes).min(end);
        let span = end.as_nanos().max(1) as f64;
        let c = ChannelSummary {
            from: w.node_names[ch.from.0 as usize].clone(),
            to: w.node_names[ch.to.0 as usize].clone(),
            tx_packets: s.tx_packets,
            tx_bytes: s.tx_bytes,
            delivered_packets: s.delivered_packets,
            drops: Drops {
                queue: s.drops_queue,
                aqm: s.drops_aqm,
                loss: s.drops_loss,
            },
            queue_mean_packets: s.queue_packet_ns as f64 / span,
            queue_max_packets: s.max_queue_packets as u64,
            queue_mean_bytes: s.queue_byte_ns as f64 / span,
            queue_max_bytes: s.max_queue_bytes,
            utilization: busy.as_nanos() as f64 / SimTime::max(end, SimTime(1)).as_nanos() as f64,
            rlc,
        };
        links
            .entry(ch.link.clone())
            .or_default()
            .insert(ch.dir.as_str(), c);
    }
    Summary {
        tern_version: env!("CARGO_PKG_VERSION"),
        seed: w.seed(),
        duration_s: secs,
        events,
        packets: w.pool.created(),
        flows,
        links,
        wifi: w
            .wifi
            .iter()
            .map(|b| {
                let c = &b.counters;
                let summary = WifiSummary {
                    ppdus: c.ppdus,
                    collisions: c.collisions,
                    mpdus_sent: c.mpdus_sent,
                    mpdus_failed: c.mpdus_failed,
                    dropped_retry_limit: c.dropped_retry,
                    dropped_queue_full: c.dropped_queue,
                    dropped_lifetime: c.dropped_lifetime,
                    airtime: c.busy.min(end).as_nanos() as f64 / end.as_nanos().max(1) as f64,
                };
                (b.name.clone(), summary)
            })
            .collect(),
    }
}

/// The counters of one 802.11 BSS.
#[derive(Clone, Debug, Serialize)]
pub struct WifiSummary {
    /// PPDUs sent (each of the senders in a collision counts).
    pub ppdus: u64,
    /// Slots in which two or more members started sending.
    pub collisions: u64,
    /// MPDU transmissions (first attempts and retries) and those not acknowledged.
    pub mpdus_sent: u64,
    pub mpdus_failed: u64,
    pub dropped_retry_limit: u64,
    pub dropped_queue_full: u64,
    pub dropped_lifetime: u64,
    /// Fraction of the run the medium carried a PPDU or an Ack/BlockAck.
    pub airtime: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        // 1..=100 ns: p50 = 50, p90 = 90, p99 = 99 (nearest rank).
        let v: Vec<u64> = (1..=100).collect();
        let d = Distribution::of_nanos(&v).unwrap();
        assert_eq!(d.p50, 50e-9);
        assert_eq!(d.p90, 90e-9);
        assert_eq!(d.p99, 99e-9);
        assert_eq!(d.min, 1e-9);
        assert_eq!(d.max, 100e-9);
        assert!((d.mean - 50.5e-9).abs() < 1e-18);
        let one = Distribution::of_nanos(&[7]).unwrap();
        assert_eq!((one.p50, one.p99), (7e-9, 7e-9));
    }
}
