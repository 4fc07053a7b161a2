//! A host with two interfaces: flows pinned to one of them (`via`) leave and arrive by it
//! whatever the routes say; the others follow the routes.

mod common;

/// `ue` reaches `router` over a 10 Mbit/s, 10 ms link `wlan` and a 5 Mbit/s, 40 ms link
/// `cell`; `router` reaches `server` over 100 Mbit/s, 1 ms. Routes prefer `wlan` (listed
/// first, same hop count).
fn two_homed(via: &str) -> String {
    common::two_homed(
        "10.5s",
        "",
        [
            "rate = \"10Mbps\"\ndelay = \"10ms\"",
            "rate = \"5Mbps\"\ndelay = \"40ms\"",
            "rate = \"100Mbps\"\ndelay = \"1ms\"",
        ],
        &format!(
            r#"[[flows]]
name = "ping"
from = "ue"
to = "server"
app = {{ kind = "ping", size = "56B", interval = "1s" }}
transport = {{ kind = "udp" }}
{via}"#
        ),
    )
}

/// Round-trip time of an 84-byte ping (56 B + 8 B UDP + 20 B IPv4) over the access link of
/// `rate` bit/s and `delay` s and the core link, both ways: propagation plus serialization
/// on each hop (the queues are empty).
fn rtt(rate: f64, delay: f64) -> f64 {
    let bits = 84.0 * 8.0;
    2.0 * (delay + 1e-3) + 2.0 * (bits / rate + bits / 100e6)
}

#[test]
fn a_flow_pinned_to_an_interface_uses_it_both_ways() {
    let routed = common::run(&two_homed(""));
    let pinned = common::run(&two_homed("via = \"cell\""));
    let p50 = |out: &tern_sim::RunOutput| {
        out.summary.flows["ping"]
            .rtt_s
            .as_ref()
            .expect("replies")
            .p50
    };
    assert!(
        (p50(&routed) - rtt(10e6, 10e-3)).abs() < 1e-9,
        "{}",
        p50(&routed)
    );
    assert!(
        (p50(&pinned) - rtt(5e6, 40e-3)).abs() < 1e-9,
        "{}",
        p50(&pinned)
    );
    let sent =
        |out: &tern_sim::RunOutput, link: &str, dir: &str| out.summary.links[link][dir].tx_packets;
    // Ten requests out and ten replies back, all on the pinned link.
    for (out, used, unused) in [(&routed, "wlan", "cell"), (&pinned, "cell", "wlan")] {
        assert_eq!(sent(out, used, "forward"), 11);
        assert_eq!(sent(out, used, "reverse"), 11);
        assert_eq!(
            sent(out, unused, "forward") + sent(out, unused, "reverse"),
            0
        );
    }
}

#[test]
fn via_must_name_an_interface_of_the_source() {
    let err = tern_sim::load("two.toml", &two_homed("via = \"core\""), &[], None)
        .expect_err("core is not on ue");
    let text = err.to_string();
    assert!(text.contains("flows[0].via"), "{text}");
    assert!(text.contains("\"ue\""), "{text}");
}
