//! Names are identifiers: they become `--set` keys, trace labels and file names (packet
//! captures are named after links), so path syntax is refused before anything runs.

mod common;

const QUEUE: &str = "{ kind = \"droptail\", limit = \"10pkt\" }";

#[test]
fn names_with_path_syntax_are_refused_naming_file_line_and_key() {
    for bad in [
        "../escape",
        "a/b",
        "/abs",
        "with.dot",
        "",
        "-dash-first",
        "spa ce",
        "é",
    ] {
        let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "")
            .replace("name = \"l\"", &format!("name = {bad:?}"));
        assert!(
            text.contains(&format!("name = {bad:?}")),
            "the link is renamed"
        );
        let err = tern_sim::load("bad.toml", &text, &[], None)
            .err()
            .unwrap_or_else(|| panic!("{bad:?} accepted"));
        let msg = err.to_string();
        assert!(msg.starts_with("bad.toml:"), "{msg}");
        assert!(msg.contains("links[0].name"), "{msg}");
        assert!(msg.contains("letters, digits, '_' or '-'"), "{msg}");
    }
    let long = "x".repeat(65);
    let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "")
        .replace("name = \"l\"", &format!("name = {long:?}"));
    assert!(tern_sim::load("bad.toml", &text, &[], None).is_err());
}

#[test]
fn identifiers_are_accepted() {
    for good in ["access", "wlan-0", "UE_1", "9lives"] {
        let text = common::p2p("10Mbps", "1ms", QUEUE, "1s", "")
            .replace("name = \"l\"", &format!("name = {good:?}"));
        tern_sim::load("ok.toml", &text, &[], None).unwrap_or_else(|e| panic!("{e}"));
    }
}
