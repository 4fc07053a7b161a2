//! Named TCP host profiles (`transport = { kind = "tcp", profile = … }`): a written key
//! overrides the profile, an unwritten one takes the profile's value or else the default;
//! the resolved scenario keeps the name and every value; a bad name is refused by key.

mod common;

use tern_sim::scenario::{resolved_toml, tcp_profile, CcSpec, Scenario, TcpSpec};

/// A 10 Mbit/s, 20 ms link with one bulk flow over `transport` (an inline table's body).
fn bulk(transport: &str, duration: &str) -> String {
    common::p2p(
        "10Mbps",
        "20ms",
        "{ kind = \"droptail\", limit = \"100pkt\" }",
        duration,
        &format!(
            "[[flows]]\nname = \"bulk\"\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\" }}\n\
             transport = {{ kind = \"tcp\", {transport} }}"
        ),
    )
}

fn load(text: &str) -> Scenario {
    tern_sim::load("p.toml", text, &[], None).unwrap()
}

fn tcp(s: &Scenario) -> TcpSpec {
    s.flows[0].transport.tcp().unwrap().clone()
}

/// `linux-6` with `min_rto` written: the written value wins, the profile fills in the rest
/// (its TSQ limit, CUBIC, the Linux undo), and a key it does not set (`rlci`) keeps the
/// default.
#[test]
fn a_written_key_overrides_the_profile() {
    let spec = tcp(&load(&bulk(
        "profile = \"linux-6\", min_rto = \"1s\"",
        "1s",
    )));
    assert_eq!(spec.min_rto.0.as_secs_f64(), 1.0);
    assert_eq!(spec.tsq.0, 4 << 20);
    assert_eq!(spec.cc, CcSpec::Cubic);
    assert_eq!(spec.max_rto.0.as_secs_f64(), 120.0);
    assert_eq!(spec.recv_buffer.0, 32 << 20);
    assert!(spec.frto && !spec.rlci);
    assert_eq!(spec.profile.map(|p| p.0), Some("linux-6"));
}

/// An override from the command line (`--set`) is a written key too, and `--set` can name
/// the profile.
#[test]
fn overrides_name_profiles_and_win_over_them() {
    let text = bulk("cc = \"newreno\"", "1s");
    let set = |k: &str, v: &str| (k.to_string(), v.to_string());
    let sets = [
        set("flows.bulk.transport.profile", "android"),
        set("flows.bulk.transport.recv_buffer", "64KiB"),
    ];
    let spec = tcp(&tern_sim::load("p.toml", &text, &sets, None).unwrap());
    assert_eq!(spec.recv_buffer.0, 64 << 10);
    assert_eq!(
        spec.send_buffer.0,
        1 << 20,
        "android's LTE tcp_wmem maximum"
    );
    assert_eq!(spec.cc, CcSpec::Newreno, "written in the file");
    assert_eq!(spec.min_rto.0.as_secs_f64(), 0.2);
}

/// The resolved scenario names the profile and writes every value out; reading it again
/// gives the same scenario.
#[test]
fn the_resolved_scenario_keeps_the_name_and_the_values() {
    let first = load(&bulk("profile = \"windows10-1607\"", "1s"));
    let resolved = resolved_toml(&first);
    assert!(
        resolved.contains("profile = \"windows10-1607\""),
        "{resolved}"
    );
    assert!(resolved.contains("cc = \"ctcp\""), "{resolved}");
    assert!(resolved.contains("min_rto = \"300ms\""), "{resolved}");
    let again = load(&resolved);
    assert_eq!(tcp(&again), tcp(&first));
    assert_eq!(resolved_toml(&again), resolved);
}

/// A name that is no profile is refused with the file, the line, the key and the names.
#[test]
fn an_unknown_profile_is_refused_by_key_with_the_names() {
    let msg = common::error_of(&bulk("profile = \"android-14\"", "1s"));
    assert!(msg.starts_with("bad.toml:"), "{msg}");
    assert!(msg.contains("flows[0].transport.profile"), "{msg}");
    assert!(msg.contains("android-14"), "{msg}");
    for name in tcp_profile::NAMES {
        assert!(msg.contains(name), "{name}: {msg}");
    }
    let msg = common::error_of(&bulk("profile = 6", "1s"));
    assert!(msg.contains("flows[0].transport.profile"), "{msg}");
}

/// TFRC's own `profile` key is not a TCP profile.
#[test]
fn the_tfrc_profile_key_is_left_alone() {
    let text = bulk("profile = \"ns3\"", "1s").replace(
        "transport = { kind = \"tcp\", profile = \"ns3\" }",
        "transport = { kind = \"tfrc\", profile = \"rfc3448\" }",
    );
    let s = load(&text.replace(
        "{ kind = \"bulk\" }",
        "{ kind = \"cbr\", rate = \"1Mbps\", size = \"1000B\" }",
    ));
    assert!(s.flows[0].transport.tfrc().is_some());
}

/// Every profile resolves and runs 3 s of bulk transfer, moving data.
#[test]
fn every_profile_runs() {
    for p in tcp_profile::PROFILES {
        let text = bulk(&format!("profile = \"{}\"", p.name), "3s");
        let out = tern_sim::run_text("p.toml", &text, &[], None).unwrap();
        let json = serde_json::to_value(&out.summary).unwrap();
        let delivered = json["flows"]["bulk"]["bytes_delivered"].as_u64().unwrap();
        assert!(delivered > 100_000, "{}: {delivered} B", p.name);
    }
}

/// The default TCP grows cwnd only while cwnd limits it. A bulk flow on a 10 Mbit/s, 60 ms
/// link with a 1000-packet queue: TCP Small Queues (128 KiB below TCP) holds the flight
/// near 128 KiB + the 75 kB on the wire, so the queue never overflows and no loss stops
/// the window. Growth on every ACK (RFC 5681 §3.1, `cwnd_limited_growth = false`) takes
/// cwnd far past that flight; the default keeps it within Linux's slack of 3 segments
/// (plus one ACK's growth) of the most ever in flight.
#[test]
fn the_default_cwnd_stays_near_the_flight() {
    let run = |extra: &str| {
        let text = common::p2p(
            "10Mbps",
            "60ms",
            "{ kind = \"droptail\", limit = \"1000pkt\" }",
            "30s",
            &format!(
                "[[flows]]\nname = \"bulk\"\nfrom = \"a\"\nto = \"b\"\n\
                 app = {{ kind = \"bulk\" }}\ntransport = {{ kind = \"tcp\"{extra} }}"
            ),
        )
        .replace("record = [", "record = [\"cwnd\", ");
        let out = tern_sim::run_text("p.toml", &text, &[], None).unwrap();
        let t = common::table(&out, "cwnd");
        let cwnd = *common::u64s(t, "cwnd").iter().max().unwrap();
        let flight = *common::u64s(t, "in_flight").iter().max().unwrap();
        (cwnd, flight)
    };
    let (cwnd, flight) = run("");
    assert!(flight < 300_000, "in flight {flight} B");
    assert!(
        cwnd <= flight + 5 * 1460,
        "cwnd {cwnd} B, flight {flight} B"
    );
    let (cwnd, flight) = run(", cwnd_limited_growth = false");
    assert!(
        cwnd > 4 * flight,
        "growth on every ACK: cwnd {cwnd} B, flight {flight} B"
    );
}

/// TCP Small Queues of `linux-3.13`: each segment below TCP counts its skb's truesize,
/// 4352 B, against tcp_limit_output_bytes = 131072, and the kernel hands one down while
/// sk_wmem_alloc ≤ 131072 (tcp_write_xmit): 30 segments hold 130560 B, so a 31st goes and
/// then no more. On a 10 Mbit/s, 20 ms link (the pacing term, 2 · cwnd / srtt / 1024, stays
/// far below 128 KiB: the window is at most the 25-segment path plus the 31) the link's
/// queue then holds at most 30 waiting behind the one being sent. Counted in IP bytes
/// (1500 B, `tsq_truesize = "0B"`), 131072 / 1500 = 87.4: 88 go, 87 wait.
#[test]
fn linux_3_13_small_queues_count_truesize() {
    let max_queue = |extra: &str| {
        let text = common::p2p(
            "10Mbps",
            "20ms",
            "{ kind = \"droptail\", limit = \"1000pkt\" }",
            "5s",
            &format!(
                "[[flows]]\nname = \"bulk\"\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\" }}\n\
                 transport = {{ kind = \"tcp\", profile = \"linux-3.13\"{extra} }}"
            ),
        );
        common::run(&text).summary.links["l"]["forward"].queue_max_packets
    };
    assert_eq!(max_queue(""), 131_072 / 4352 + 1 - 1);
    assert_eq!(max_queue(", tsq_truesize = \"0B\""), 131_072 / 1500 + 1 - 1);
}
