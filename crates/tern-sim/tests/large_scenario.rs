//! A large scenario is read and checked in memory proportional to its file: 20,000 flows
//! (a 2.3 MB file) load under an address-space limit (`RLIMIT_AS`, setrlimit(2)) of 80
//! times the file's size above what the process maps before reading it. The parser
//! (`toml` 0.8 building `toml_edit`'s document) holds about 33 bytes per byte of file at
//! its peak (heaptrack, docs/hostile-input.md); a copy per flow or a structure that grows
//! faster than the file would break the bound.
//!
//! Without the test harness (`harness = false`): the limit is the process's.

mod common;

#[cfg(target_os = "linux")]
fn main() {
    use nix::sys::resource::{setrlimit, Resource};
    let flows = 20_000;
    let mut text = String::from(
        "[sim]\nduration = \"1s\"\n\n[[nodes]]\nname = \"a\"\n\n[[nodes]]\nname = \"b\"\n\n\
         [[links]]\nname = \"l\"\nends = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n",
    );
    for i in 0..flows {
        text.push_str(&format!(
            "\n[[flows]]\nname = \"f{i}\"\nfrom = \"a\"\nto = \"b\"\nstart = \"500ms\"\n\
             app = {{ kind = \"cbr\", rate = \"1kbps\", size = \"100B\" }}\n"
        ));
    }
    let limit = common::vm_size() + 80 * text.len() as u64;
    setrlimit(Resource::RLIMIT_AS, limit, limit).expect("setrlimit(RLIMIT_AS)");
    let scenario = tern_sim::load("flows.toml", &text, &[], None).expect("the scenario loads");
    assert_eq!(scenario.flows.len(), flows);
    // With an override the file is parsed once more, for editing.
    let set = [("sim.duration".to_owned(), "2s".to_owned())];
    let scenario = tern_sim::load("flows.toml", &text, &set, None).expect("it loads with --set");
    assert_eq!(scenario.flows.len(), flows);
    println!(
        "large_scenario: {flows} flows ({} bytes) loaded under RLIMIT_AS",
        text.len()
    );
}

#[cfg(not(target_os = "linux"))]
fn main() {}
