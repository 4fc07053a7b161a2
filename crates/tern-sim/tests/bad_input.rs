//! Hostile and careless scenario input: each case is refused with a message naming the
//! file, the line and the key, in the user's words — never a panic.

mod common;
use common::error_of;

const QUEUE: &str = "{ kind = \"droptail\", limit = \"10pkt\" }";

#[test]
fn a_roaming_station_and_a_link_to_an_unknown_node() {
    let text = r#"
[sim]
duration = "1s"
[[nodes]]
name = "ap1"
[[nodes]]
name = "ap2"
[[nodes]]
name = "sta"
[[links]]
name = "wire"
ends = ["ap1", "nowhere"]
rate = "1Gbps"
delay = "1ms"
[[wifi]]
name = "b1"
ap = "ap1"
stations = ["sta"]
standard = "802.11b"
[[wifi]]
name = "b2"
ap = "ap2"
stations = ["sta"]
standard = "802.11b"
[[roaming]]
name = "r"
station = "sta"
at = "0.5s"
to = "b2"
disconnect = "50ms"
"#;
    let msg = common::error_of(text);
    assert!(
        msg.contains("links[0].ends") && msg.contains("\"nowhere\""),
        "{msg}"
    );
}

#[test]
fn numbers_are_described_in_words_not_rust_types() {
    let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"periodic\", size = \"100B\", interval = \"1s\", count = -1 }\ntransport = { kind = \"udp\" }");
    let msg = common::error_of(&text);
    assert!(msg.contains("flows[0].app"), "{msg}");
    assert!(!msg.contains("u64") && !msg.contains("u32"), "{msg}");
    assert!(msg.contains("whole number"), "{msg}");
}

#[test]
fn a_seed_that_toml_cannot_hold_is_refused() {
    let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "");
    let err = tern_sim::load("s.toml", &text, &[], Some(1 << 63)).expect_err("2^63");
    assert_eq!(err.key, "sim.seed");
    assert!(err.to_string().contains("9223372036854775807"), "{err}");
    tern_sim::load("s.toml", &text, &[], Some(i64::MAX as u64)).expect("the largest seed");
}

#[test]
fn a_cbr_faster_than_one_message_per_nanosecond_is_refused() {
    // 1 B every 8e-9 ns would never let simulated time advance.
    let flow = "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"10000Gbps\", size = \"1B\" }\ntransport = { kind = \"udp\" }";
    let msg = common::error_of(&common::p2p("10Mbps", "1ms", QUEUE, "1s", flow));
    assert!(msg.contains("flows[0].app.rate"), "{msg}");
}

#[test]
fn rlc_errors_name_the_rlc_key_and_the_value() {
    let text = common::p2p("384kbps", "10ms", QUEUE, "1s", "").replace(
        "[[links]]\nname = \"l\"",
        "[[links]]\nname = \"l\"\nrlc = { pdu_size = \"300B\" }",
    );
    let msg = common::error_of(&text);
    assert!(msg.contains("links[0].rlc.pdu_size"), "{msg}");
    assert!(msg.contains("300"), "{msg}");
}

#[test]
fn a_link_of_two_technologies_is_refused_at_the_second_table() {
    let text = common::p2p("384kbps", "10ms", QUEUE, "1s", "").replace(
        "[[links]]\nname = \"l\"",
        "[[links]]\nname = \"l\"\ncell = {}\nrlc = {}",
    );
    let err = tern_sim::load("s.toml", &text, &[], None).expect_err("cell and rlc");
    assert_eq!(err.key, "links[0].rlc");
    // The line of the second table, counted in the text itself.
    let line = text.lines().position(|l| l == "rlc = {}").unwrap() + 1;
    let tern_sim::scenario::Origin::File { line: at, .. } = &err.origin else {
        panic!("expected an error in the file, got {err}")
    };
    assert_eq!(*at, Some(line), "{err}");
    assert!(err.message.contains("`cell` and `rlc`"), "{err}");
}

#[test]
fn positions_are_shown_as_coordinates() {
    let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "").replace(
        "[[nodes]]\nname = \"a\"",
        "[[nodes]]\nname = \"a\"\nmoves = [{ walk_to = [nan, 0, 0], speed = 1 }]",
    );
    let msg = common::error_of(&text);
    assert!(!msg.contains("Position"), "{msg}");
    assert!(msg.contains("[NaN, 0, 0] m"), "{msg}");
    assert!(msg.contains("nodes[0].moves"), "{msg}");
}

#[test]
fn errors_in_overridden_values_blame_the_override_under_the_users_key() {
    let flow = "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"periodic\", size = \"100B\", interval = \"1s\" }\ntransport = { kind = \"udp\" }";
    let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", flow);
    let set = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
    // Refused by the scenario's own checks, by the checks that need the models (the path
    // MTU), and by the reader (a value of the wrong kind).
    for (key, value) in [
        ("links.l.rate", "0Mbps"),
        ("flows.f.app.size", "2000B"),
        ("links.l.delay", "fast"),
    ] {
        let err = tern_sim::load("o.toml", &text, &set(key, value), None).expect_err(key);
        assert_eq!(err.origin, tern_sim::scenario::Origin::Override, "{err}");
        assert_eq!(err.key, key, "{err}");
        assert!(
            err.to_string().starts_with(&format!("--set {key}: ")),
            "{err}"
        );
    }
}

#[test]
fn an_unknown_tcp_recovery_names_the_line_and_the_choices() {
    let flow = "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"bulk\" }\ntransport = { kind = \"tcp\", recovery = \"tahoe\" }";
    let msg = error_of(&common::p2p("10Mbps", "1ms", QUEUE, "1s", flow));
    assert!(msg.starts_with("bad.toml:"), "{msg}");
    assert!(msg.contains("transport"), "{msg}");
    assert!(msg.contains("tahoe"), "{msg}");
    assert!(msg.contains("`newreno` or `reno`"), "{msg}");
}

#[test]
fn multipath_quic_paths_must_be_interfaces_of_the_client() {
    // A QUIC flow with `keys` in its transport.
    let flow = |keys: &str| {
        let flow = format!(
            "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\" }}\n\
             transport = {{ kind = \"quic\", {keys} }}"
        );
        common::p2p("1Mbps", "1ms", QUEUE, "1s", &flow)
    };
    let e = error_of(&flow(r#"paths = [{ via = "l" }, { via = "lte" }]"#));
    assert!(e.starts_with("bad.toml:20: "), "{e}");
    assert!(
        e.contains("flows[0].transport.paths[1].via") && e.contains("\"lte\""),
        "{e}"
    );
    let e = error_of(&flow(r#"paths = [{ via = "l" }]"#));
    assert!(e.contains("expected 2 to 8 paths, got 1"), "{e}");
    let e = error_of(&flow(r#"paths = [{ via = "l" }, { via = "l" }]"#));
    assert!(e.contains("as an earlier path does"), "{e}");
    let e = error_of(&flow(
        r#"paths = [{ via = "l", status = "standby" }, { via = "l" }]"#,
    ));
    assert!(e.contains("standby"), "{e}");
    // The RSSI scheduler steers a Wi-Fi path: here the first path is a wire.
    let rssi = r#"rssi_scheduler = { t1 = -75, t2 = -90 }"#;
    let e = error_of(&flow(&format!(
        r#"paths = [{{ via = "l" }}, {{ via = "l" }}], {rssi}"#
    )));
    assert!(
        e.contains("needs two paths: the first via an 802.11 BSS"),
        "{e}"
    );
    let e = error_of(&flow(rssi));
    assert!(e.contains("needs two paths: add paths"), "{e}");
}

/// ns-3's rules that Tern's TCP can take are refused where they mean nothing: RFC 5681
/// eq. 3 growth is NewReno's (the shared upload's TCP is CUBIC), and RFC 6675's pipe needs
/// SACK.
#[test]
fn ns3_tcp_rules_are_refused_where_they_do_not_apply() {
    let text = common::wifi_upload("", "1s", "", "ca_increase = \"per_ack\"");
    let msg = error_of(&text);
    assert!(
        msg.contains("ca_increase") && msg.contains("cc = \"newreno\""),
        "{msg}"
    );
    let text = common::wifi_upload("", "1s", "", "sack = false\nloss_flight = \"pipe\"");
    let msg = error_of(&text);
    assert!(
        msg.contains("loss_flight") && msg.contains("sack = true"),
        "{msg}"
    );
    // A misspelt value: the line, what was given and what is accepted.
    let text = common::wifi_upload("", "1s", "", "ca_increase = \"each_ack\"");
    let msg = error_of(&text);
    assert!(
        msg.contains(".toml:") && msg.contains("`each_ack`") && msg.contains("`per_ack`"),
        "{msg}"
    );
}

#[test]
fn framing_larger_than_the_mtu_or_on_an_rlc_bearer_is_refused() {
    let link = |keys: &str| {
        common::p2p("384kbps", "10ms", QUEUE, "1s", "").replace(
            "[[links]]\nname = \"l\"",
            &format!("[[links]]\nname = \"l\"\n{keys}"),
        )
    };
    let msg = error_of(&link("framing = \"2000B\""));
    assert!(
        msg.contains("links[0].framing") && msg.contains("mtu"),
        "{msg}"
    );
    let msg = error_of(&link("framing = \"2B\"\nrlc = {}"));
    assert!(
        msg.contains("links[0].framing") && msg.contains("rlc"),
        "{msg}"
    );
    let msg = error_of(&link("framing = \"two bytes\""));
    assert!(msg.contains("framing"), "{msg}");
}
