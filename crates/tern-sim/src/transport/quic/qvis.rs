//! What Tern changes in the stack's qlog records so that qvis, the qlog visualiser
//! (quiclog/qvis), opens the files and finds their events.
//!
//! The stack writes qlog as draft-ietf-quic-qlog-main-schema-13 (§5, JSON-SEQ) and
//! draft-ietf-quic-qlog-quic-events-12 define it. qvis predates those drafts; its loader
//! (`FileLoader.ts`, `TextSequenceJSONToQlog`, `QlogLoaderV2`, `QlogSchema02.ts`) reads a
//! `.sqlog` file as JSON-SEQ (RFC 7464: each record is RS, a JSON text, LF) and:
//!
//! - rejects a file whose first record lacks `qlog_version`, `qlog_format` = "JSON-SEQ" or
//!   `trace`; and loads only the versions "draft-02", "draft-02-RC1", "qlog-03-WIP" and
//!   "0.3". Draft-13's header has `file_schema` and `serialization_format` instead, so
//!   [`header`] adds `qlog_version` = "0.3" and `qlog_format` = "JSON-SEQ" beside them
//!   (a draft-13 reader ignores fields it does not know). It also puts right three header
//!   fields the stack leaves as draft-13 does not allow: `serialization_format` is
//!   "application/qlog+json-seq" (draft-13 §11.2, not "JSON-SEQ"), `event_schemas` names
//!   the events' schema (§5.1: at least one URI; quic-events-12 §2.1: a draft's URI ends
//!   in its number), and `common_fields.reference_time` is a monotonic clock with an
//!   "unknown" epoch (draft-13 §7.1: the stack gave both as empty strings; the times are
//!   simulated, from the run's start, which no wall clock dates);
//! - looks events up by "category:type", with the categories of qlog 0.3 (draft-ietf-quic-
//!   qlog-quic-events-01: connectivity, security, transport, recovery; http for HTTP/3):
//!   its sequence diagram and congestion graph ask for `transport:packet_sent`,
//!   `transport:packet_received`, `transport:parameters_set`, `recovery:metrics_updated`
//!   and `recovery:packet_lost`. Draft-13 puts every QUIC event under `quic:` (and renames
//!   a few), so [`write_event`] gives each event that 0.3 has its 0.3 name
//!   ([`qlog_03_name`]); an event 0.3 does not define (multipath's `tuple_assigned`,
//!   `mtu_updated`, …) keeps its draft-13 name, which qvis lists as it is. The
//!   events' data are the stack's: their fields kept the same names from 0.3 to draft-13
//!   for what qvis draws (packet headers and frames, the recovery metrics), except a
//!   packet's size, which qvis reads from `raw.length` (added, see [`write_event`]), and a
//!   key update's count, 0.3's `generation` (added beside draft-13's `key_phase`).
//!
//! Times stay as the stack writes them: milliseconds from simulated time zero (qvis's default
//! unit). With no `time_format` but a `common_fields.reference_time` (draft-13's struct), qvis
//! takes them as relative times and the reference, which it cannot parse, as 0
//! (`DirectEventParser.init`, `parseReferenceTime`): it shows the simulated milliseconds.

use serde_json::Value;

/// The JSON-SEQ record separator (RFC 7464 §2.1).
pub const RS: u8 = 0x1e;

/// The qlog version and serialisation qvis asks for in the header.
const QLOG_VERSION: &str = "0.3";
const QLOG_FORMAT: &str = "JSON-SEQ";
/// Draft-13's media type of a JSON-SEQ file (draft-ietf-quic-qlog-main-schema-13 §11.2).
const SERIALIZATION_FORMAT: &str = "application/qlog+json-seq";
/// The URI of the QUIC event schema of draft-ietf-quic-qlog-quic-events-12 (its §2.1).
const QUIC_EVENTS: &str = "urn:ietf:params:qlog:events:quic-12";

/// The header record `record` (the stack's), with the fields qvis asks for and draft-13's
/// fields the stack leaves empty filled in.
pub fn header(record: &[u8]) -> Vec<u8> {
    let json = record.strip_prefix(&[RS]).unwrap_or(record);
    let mut out = vec![RS];
    match serde_json::from_slice::<Value>(json) {
        Ok(Value::Object(mut fields)) => {
            fields.insert("qlog_version".into(), QLOG_VERSION.into());
            fields.insert("qlog_format".into(), QLOG_FORMAT.into());
            fields.insert("serialization_format".into(), SERIALIZATION_FORMAT.into());
            if let Some(Value::Object(trace)) = fields.get_mut("trace") {
                trace.insert("event_schemas".into(), serde_json::json!([QUIC_EVENTS]));
                let common = trace
                    .entry("common_fields")
                    .or_insert_with(|| serde_json::json!({}));
                if let Value::Object(common) = common {
                    common.insert(
                        "reference_time".into(),
                        serde_json::json!({ "clock_type": "monotonic", "epoch": "unknown" }),
                    );
                }
            }
            serde_json::to_writer(&mut out, &fields).expect("a JSON value serialises");
            out.push(b'\n');
        }
        // Not the stack's header: passed on as it is.
        _ => return record.to_vec(),
    }
    out
}

/// The name of the event in `record`: the stack writes `time` first, then `name`.
pub fn event_name(record: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"name\":\"";
    let start = record.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = record[start..].iter().position(|&b| b == b'"')?;
    Some(&record[start..start + len])
}

/// Writes event `record`, whose name is `name`, under its qlog 0.3 name; a packet event
/// also gets the packet's size as `raw.length`, where qvis reads it.
pub fn write_event(record: &[u8], name: Option<&[u8]>, mut write: impl FnMut(&[u8])) {
    let Some((name, new)) =
        name.and_then(|n| Some((n, qlog_03_name(std::str::from_utf8(n).ok()?)?)))
    else {
        return write(record);
    };
    if new == "transport:packet_sent" || new == "transport:packet_received" {
        if let Some(event) = with_raw_length(record, &new) {
            return write(&event);
        }
    }
    if new == "security:key_updated" {
        if let Some(event) = with_generation(record, &new) {
            return write(&event);
        }
    }
    // `name` is a slice of `record`.
    let start = name.as_ptr() as usize - record.as_ptr() as usize;
    let mut out = Vec::with_capacity(record.len() + 8);
    out.extend_from_slice(&record[..start]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&record[start + name.len()..]);
    write(&out);
}

/// Event `record` under the name `name`, its `data` changed by `change` (`None`: not an
/// event of the expected shape, left to be written as it is).
fn with_data(
    record: &[u8],
    name: &str,
    change: impl FnOnce(&mut serde_json::Map<String, Value>) -> Option<()>,
) -> Option<Vec<u8>> {
    let json = record.strip_prefix(&[RS]).unwrap_or(record);
    let Value::Object(mut event) = serde_json::from_slice::<Value>(json).ok()? else {
        return None;
    };
    event.insert("name".into(), name.into());
    change(event.get_mut("data")?.as_object_mut()?)?;
    let mut out = vec![RS];
    serde_json::to_writer(&mut out, &event).expect("a JSON value serialises");
    out.push(b'\n');
    Some(out)
}

/// Packet event `record` named `name`, with `data.raw.length`: the stack gives the packet's
/// whole size (its header and protected payload) as `data.header.length`, where qvis's
/// congestion graph and packet statistics read it from `data.raw.length` (qlog 0.3's
/// RawInfo, whose `length` draft-13 keeps for the same).
fn with_raw_length(record: &[u8], name: &str) -> Option<Vec<u8>> {
    with_data(record, name, |data| {
        let length = data.get("header")?.get("length")?.clone();
        if !data.contains_key("raw") {
            data.insert("raw".into(), serde_json::json!({ "length": length }));
        }
        Some(())
    })
}

/// Key-update event `record` named `name`, with 0.3's `data.generation` (draft-ietf-quic-
/// qlog-quic-events-01 §3.2.1) from draft-13's `data.key_phase`, the same count of updates
/// (quic-events-12 §6.1 renamed it).
fn with_generation(record: &[u8], name: &str) -> Option<Vec<u8>> {
    with_data(record, name, |data| {
        let phase = data.get("key_phase")?.clone();
        data.insert("generation".into(), phase);
        Some(())
    })
}

/// The qlog 0.3 name of a draft-13 event (draft-ietf-quic-qlog-quic-events-12's event
/// table, §3, against the events of draft-ietf-quic-qlog-quic-events-01 §3.1–3.4; draft-ietf-
/// quic-qlog-h3-events-01 for HTTP/3), or `None` where 0.3 has no such event (multipath,
/// MTU, migration, blocked-data and ECN events came later): those keep their draft-13 name.
pub fn qlog_03_name(name: &str) -> Option<String> {
    if let Some(event) = name.strip_prefix("http3:") {
        return Some(format!("http:{event}"));
    }
    let event = name.strip_prefix("quic:")?;
    let (category, event) = match event {
        "server_listening"
        | "connection_started"
        | "connection_closed"
        | "connection_id_updated"
        | "spin_bit_updated"
        | "connection_state_updated" => ("connectivity", event),
        "version_information"
        | "alpn_information"
        | "parameters_set"
        | "parameters_restored"
        | "packet_sent"
        | "packet_received"
        | "packet_dropped"
        | "packet_buffered"
        | "packets_acked"
        | "stream_state_updated"
        | "frames_processed" => ("transport", event),
        // Draft-13 added the UDP prefix and split data_moved by what moves.
        "udp_datagrams_sent" => ("transport", "datagrams_sent"),
        "udp_datagrams_received" => ("transport", "datagrams_received"),
        "udp_datagram_dropped" => ("transport", "datagram_dropped"),
        "stream_data_moved" | "datagram_data_moved" => ("transport", "data_moved"),
        "key_updated" => ("security", event),
        "key_discarded" => ("security", "key_retired"),
        // Draft-13 prefixed the two recovery events whose type clashes with a transport one.
        "recovery_parameters_set" => ("recovery", "parameters_set"),
        "recovery_metrics_updated" => ("recovery", "metrics_updated"),
        "timer_updated" => ("recovery", "loss_timer_updated"),
        "congestion_state_updated" | "packet_lost" | "marked_for_retransmit" => ("recovery", event),
        _ => return None,
    };
    Some(format!("{category}:{event}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_qvis_draws_get_its_names() {
        // The names qvis's renderers look up (CongestionGraphD3Renderer.ts,
        // SequenceDiagramD3Renderer.ts), from the draft-13 names the stack writes.
        for (draft13, qlog03) in [
            ("quic:packet_sent", "transport:packet_sent"),
            ("quic:packet_received", "transport:packet_received"),
            ("quic:parameters_set", "transport:parameters_set"),
            ("quic:recovery_metrics_updated", "recovery:metrics_updated"),
            ("quic:packet_lost", "recovery:packet_lost"),
            ("http3:frame_created", "http:frame_created"),
        ] {
            assert_eq!(qlog_03_name(draft13).as_deref(), Some(qlog03));
        }
        assert_eq!(qlog_03_name("loglevel:warning"), None);
    }

    #[test]
    fn events_qlog_03_lacks_keep_their_draft_13_names() {
        // Not in draft-ietf-quic-qlog-quic-events-01's event list.
        for draft13 in [
            "quic:tuple_assigned",
            "quic:mtu_updated",
            "quic:ecn_state_updated",
        ] {
            assert_eq!(qlog_03_name(draft13), None);
        }
        assert_eq!(
            qlog_03_name("quic:key_discarded").as_deref(),
            Some("security:key_retired")
        );
    }

    /// Event `record` as [`write_event`] writes it, and its JSON.
    fn written(record: &[u8]) -> (Vec<u8>, Value) {
        let mut out = Vec::new();
        write_event(record, event_name(record), |b| out.extend_from_slice(b));
        let event = serde_json::from_slice(&out[1..]).unwrap();
        (out, event)
    }

    #[test]
    fn a_key_update_gets_its_generation() {
        let record = b"\x1e{\"time\":2.0,\"name\":\"quic:key_updated\",\"data\":{\"key_type\":\"server_1rtt_secret\",\"key_phase\":1,\"trigger\":\"local_update\"}}\n";
        let (_, event) = written(record);
        assert_eq!(event["name"], "security:key_updated");
        assert_eq!(
            (&event["data"]["generation"], &event["data"]["key_phase"]),
            (&1.into(), &1.into())
        );
    }

    #[test]
    fn the_header_names_its_schema_and_clock() {
        let record = b"\x1e{\"file_schema\":\"urn:ietf:params:qlog:file:sequential\",\"serialization_format\":\"JSON-SEQ\",\"trace\":{\"common_fields\":{\"reference_time\":{\"clock_type\":\"\",\"epoch\":\"\"}},\"event_schemas\":[]}}\n";
        let out = header(record);
        let h: Value = serde_json::from_slice(&out[1..]).unwrap();
        assert_eq!(h["serialization_format"], "application/qlog+json-seq");
        assert_eq!(
            h["trace"]["event_schemas"],
            serde_json::json!([QUIC_EVENTS])
        );
        let reference = &h["trace"]["common_fields"]["reference_time"];
        assert_eq!(
            (&reference["clock_type"], &reference["epoch"]),
            (&"monotonic".into(), &"unknown".into())
        );
        assert_eq!(h["qlog_version"], "0.3");
    }

    #[test]
    fn a_packet_event_gets_its_raw_length() {
        let record = b"\x1e{\"time\":1.5,\"name\":\"quic:packet_sent\",\"data\":{\"header\":{\"length\":1200}}}\n";
        let (out, event) = written(record);
        assert_eq!(event["name"], "transport:packet_sent");
        assert_eq!(event["data"]["raw"]["length"], 1200);
        assert_eq!(event["time"], 1.5);
        assert_eq!((out[0], out.last()), (RS, Some(&b'\n')));
    }

    #[test]
    fn an_event_is_renamed_in_place() {
        let record = b"\x1e{\"time\":1.5,\"name\":\"quic:packet_lost\",\"data\":{}}\n";
        let mut out = Vec::new();
        write_event(record, event_name(record), |b| out.extend_from_slice(b));
        assert_eq!(
            out,
            b"\x1e{\"time\":1.5,\"name\":\"recovery:packet_lost\",\"data\":{}}\n"
        );
    }
}
