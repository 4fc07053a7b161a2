use super::*;
use crate::scenario::TcpSpec;

/// Every key of every profile is a `TcpSpec` key with a value serde accepts, and has a
/// source; the name list serde reports is the profiles'.
#[test]
fn every_profile_is_a_valid_tcp_spec() {
    assert_eq!(
        PROFILES.iter().map(|p| p.name).collect::<Vec<_>>(),
        NAMES.to_vec()
    );
    for p in PROFILES {
        let keys = p.resolved_keys();
        assert!(!keys.is_empty(), "{}", p.name);
        let mut text = String::new();
        for k in &keys {
            assert!(!k.source.trim().is_empty(), "{}.{}", p.name, k.key);
            text.push_str(&format!("{} = {}\n", k.key, k.value));
        }
        let spec: TcpSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        assert!(spec.profile.is_none());
        if let Some(parent) = p.inherits {
            assert!(find(parent).is_some(), "{} inherits {parent}", p.name);
        }
    }
}

/// The `rfc` profile is Tern's defaults.
#[test]
fn rfc_is_the_default() {
    let mut text = String::new();
    for k in find("rfc").unwrap().resolved_keys() {
        text.push_str(&format!("{} = {}\n", k.key, k.value));
    }
    let spec: TcpSpec = toml::from_str(&text).unwrap();
    assert_eq!(spec, TcpSpec::default());
}

/// Inherited keys come first; a profile's own key replaces the inherited one in place.
#[test]
fn inheritance_replaces_in_place() {
    let android = find("android").unwrap().resolved_keys();
    let linux = find("linux-3.13").unwrap().resolved_keys();
    assert_eq!(android.len(), linux.len());
    let buf = |keys: &[ProfileKey]| keys.iter().find(|k| k.key == "recv_buffer").unwrap().value;
    assert_eq!(buf(&android), "\"2MiB\"");
    assert_eq!(buf(&linux), "\"6MiB\"");
}

/// Linux took RTT samples from packet timing first from 3.13 on (`tcp_ack_update_rtt`,
/// "tcp: prefer packet timing to TS-ECR for RTT"): the Linux profiles of 3.13 and 6.18 do,
/// Android's 3.10 and every other host take the timestamp echo first.
#[test]
fn linux_from_3_13_times_packets_first() {
    for p in PROFILES {
        let keys = p.resolved_keys();
        let source = keys.iter().find(|k| k.key == "rtt_source").unwrap().value;
        let want = match p.name {
            "linux-3.13" | "linux-6" => "\"packet_timing_first\"",
            _ => "\"ts_ecr_first\"",
        };
        assert_eq!(source, want, "{}", p.name);
    }
}
