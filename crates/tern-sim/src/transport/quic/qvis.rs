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
//!   (a draft-13 reader ignores fields it does not know);
//! - looks events up by "category:type", with the categories of qlog 0.3 (draft-ietf-quic-
//!   qlog-quic-events-01: connectivity, security, transport, recovery; http for HTTP/3):
//!   its sequence diagram and congestion graph ask for `transport:packet_sent`,
//!   `transport:packet_received`, `transport:parameters_set`, `recovery:metrics_updated`
//!   and `recovery:packet_lost`. Draft-13 puts every QUIC event under `quic:` (and renames
//!   a few), so [`write_event`] gives each event its 0.3 name ([`qlog_03_name`]). The
//!   events' data are the stack's: their fields kept the same names from 0.3 to draft-13
//!   for what qvis draws (packet headers and frames, the recovery metrics), except a
//!   packet's size, which qvis reads from `raw.length` (added, see [`write_event`]).
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

/// The header record `record` (the stack's), with the fields qvis asks for.
pub fn header(record: &[u8]) -> Vec<u8> {
    let json = record.strip_prefix(&[RS]).unwrap_or(record);
    let mut out = vec![RS];
    match serde_json::from_slice::<Value>(json) {
        Ok(Value::Object(mut fields)) => {
            fields.insert("qlog_version".into(), QLOG_VERSION.into());
            fields.insert("qlog_format".into(), QLOG_FORMAT.into());
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
    // `name` is a slice of `record`.
    let start = name.as_ptr() as usize - record.as_ptr() as usize;
    let mut out = Vec::with_capacity(record.len() + 8);
    out.extend_from_slice(&record[..start]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&record[start + name.len()..]);
    write(&out);
}

/// Packet event `record` named `name`, with `data.raw.length`: the stack gives the packet's
/// whole size (its header and protected payload) as `data.header.length`, where qvis's
/// congestion graph and packet statistics read it from `data.raw.length` (qlog 0.3's
/// RawInfo, whose `length` draft-13 keeps for the same).
fn with_raw_length(record: &[u8], name: &str) -> Option<Vec<u8>> {
    let json = record.strip_prefix(&[RS]).unwrap_or(record);
    let Value::Object(mut event) = serde_json::from_slice::<Value>(json).ok()? else {
        return None;
    };
    event.insert("name".into(), name.into());
    let data = event.get_mut("data")?.as_object_mut()?;
    let length = data.get("header")?.get("length")?.clone();
    if !data.contains_key("raw") {
        data.insert("raw".into(), serde_json::json!({ "length": length }));
    }
    let mut out = vec![RS];
    serde_json::to_writer(&mut out, &event).expect("a JSON value serialises");
    out.push(b'\n');
    Some(out)
}

/// The qlog 0.3 name of a draft-13 event (draft-ietf-quic-qlog-quic-events-01 §4–§7 for
/// QUIC, draft-ietf-quic-qlog-h3-events-01 for HTTP/3), or `None` to keep it.
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
        | "connection_state_updated"
        | "tuple_assigned"
        | "mtu_updated"
        | "migration_state_updated" => ("connectivity", event),
        "key_updated" | "key_retired" => ("security", event),
        // Draft-13 prefixed the two recovery events whose type clashes with a transport one.
        "recovery_parameters_set" => ("recovery", "parameters_set"),
        "recovery_metrics_updated" => ("recovery", "metrics_updated"),
        "timer_updated" => ("recovery", "loss_timer_updated"),
        "congestion_state_updated"
        | "packet_lost"
        | "marked_for_retransmit"
        | "ecn_state_updated" => ("recovery", event),
        _ => ("transport", event),
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
    fn a_packet_event_gets_its_raw_length() {
        let record = b"\x1e{\"time\":1.5,\"name\":\"quic:packet_sent\",\"data\":{\"header\":{\"length\":1200}}}\n";
        let mut out = Vec::new();
        write_event(record, event_name(record), |b| out.extend_from_slice(b));
        let event: Value = serde_json::from_slice(&out[1..]).unwrap();
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
