//! Packet captures checked by an independent reader: Wireshark's `tshark`
//! must read every frame, find every IPv4/TCP/UDP checksum good and nothing
//! malformed, and decode the fields we put in.
//!
//! Without `tshark` on the PATH the tshark checks are skipped with a note,
//! unless `TERN_REQUIRE_TSHARK=1`, when they fail. Debian:
//! `DEBIAN_FRONTEND=noninteractive apt-get install -y tshark`.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use tern_proto::tcp::{Flags, Segment, SeqNum, TcpOptions};
use tern_sim::engine::SimTime;
use tern_sim::net::packet::{Body, FlowId, NodeId, Packet, UdpKind, UdpMessage};
use tern_sim::trace::pcap::{node_addr, Capture, PcapWriter};
use tern_sim::transport::quic::capture::quic_ports;
use tern_sim::transport::udp::capture::udp_ports;

const CLIENT: NodeId = NodeId(0);
const SERVER: NodeId = NodeId(1);
const MSS: u32 = 1448;

fn tcp(uid: u64, to_server: bool, seg: Segment) -> Packet {
    let (src, dst) = if to_server {
        (CLIENT, SERVER)
    } else {
        (SERVER, CLIENT)
    };
    Packet::new(uid, FlowId(0), 0, src, dst, Body::Tcp(seg))
}

fn seg(
    to_server: bool,
    seq: u32,
    ack: u32,
    flags: Flags,
    options: TcpOptions,
    payload_len: u32,
) -> Segment {
    let (src_port, dst_port) = if to_server {
        (40_000, 5_201)
    } else {
        (5_201, 40_000)
    };
    Segment {
        src_port,
        dst_port,
        seq: SeqNum(seq),
        ack: SeqNum(ack),
        flags,
        window: if flags.syn { 64_240 } else { 501 },
        options,
        payload_len,
    }
}

fn ts(tsval: u32, tsecr: u32) -> TcpOptions {
    TcpOptions {
        timestamps: Some((tsval, tsecr)),
        ..Default::default()
    }
}

fn syn_options(tsval: u32, tsecr: u32) -> TcpOptions {
    TcpOptions {
        mss: Some(1460),
        window_scale: Some(7),
        sack_permitted: true,
        timestamps: Some((tsval, tsecr)),
        ..Default::default()
    }
}

const ACK: Flags = Flags {
    syn: false,
    ack: true,
    fin: false,
    rst: false,
    psh: false,
};

/// A short connection whose second and fourth data segments were lost
/// upstream of the capture point, then two UDP flows (a message and a ping).
fn packets() -> Vec<(SimTime, Packet)> {
    let (c, s) = (1_000u32, 5_000u32); // initial sequence numbers
    let ms = SimTime::from_millis;
    let syn = Flags {
        syn: true,
        ..Default::default()
    };
    let data = Flags { psh: true, ..ACK };
    let fin = Flags { fin: true, ..ACK };
    let d = |i: u32| c + 1 + i * MSS; // start of data segment i
    let sack = TcpOptions {
        sack_blocks: [(SeqNum(d(4)), SeqNum(d(5))), (SeqNum(d(2)), SeqNum(d(3)))]
            .into_iter()
            .collect(),
        ..ts(230, 104)
    };
    let msg = |flow, kind, seq, len| {
        let (src, dst) = if kind == UdpKind::EchoReply {
            (SERVER, CLIENT)
        } else {
            (CLIENT, SERVER)
        };
        Packet::new(
            100 + seq,
            FlowId(flow),
            0,
            src,
            dst,
            Body::Udp(UdpMessage {
                kind,
                seq,
                sent_at: ms(300),
                len,
            }),
        )
    };
    vec![
        (
            ms(0),
            tcp(0, true, seg(true, c, 0, syn, syn_options(100, 0), 0)),
        ),
        (
            ms(40),
            tcp(
                1,
                false,
                seg(
                    false,
                    s,
                    c + 1,
                    Flags { ack: true, ..syn },
                    syn_options(200, 100),
                    0,
                ),
            ),
        ),
        (
            ms(80),
            tcp(2, true, seg(true, c + 1, s + 1, ACK, ts(101, 200), 0)),
        ),
        (
            ms(81),
            tcp(3, true, seg(true, d(0), s + 1, data, ts(101, 200), MSS)),
        ),
        // d(1) lost.
        (
            ms(82),
            tcp(5, true, seg(true, d(2), s + 1, data, ts(102, 200), MSS)),
        ),
        // d(3) lost.
        (
            ms(83),
            tcp(7, true, seg(true, d(4), s + 1, data, ts(103, 200), MSS)),
        ),
        (
            ms(125),
            tcp(8, false, seg(false, s + 1, d(1), ACK, sack, 0)),
        ),
        (
            ms(200),
            tcp(9, true, seg(true, d(5), s + 1, fin, ts(120, 230), 0)),
        ),
        (ms(300), msg(1, UdpKind::Data, 0, 160)),
        (ms(301), msg(2, UdpKind::EchoRequest, 1, 56)),
        (ms(341), msg(2, UdpKind::EchoReply, 1, 56)),
        (ms(342), msg(3, UdpKind::Data, 2, 10)), // too short for the app header
    ]
}

fn write(path: &Path, capture: Capture) -> Vec<(SimTime, Packet)> {
    let pkts = packets();
    let out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = PcapWriter::with_capture(out, capture).unwrap();
    for (t, p) in &pkts {
        w.write(*t, p).unwrap();
    }
    assert_eq!(w.packets(), pkts.len() as u64);
    w.into_inner().unwrap();
    pkts
}

fn out_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Runs tshark on `file` with checksum verification on and returns one row
/// of fields per frame, or `None` (after a note) when tshark is missing.
fn tshark(file: &Path, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(file);
    for pref in [
        "tcp.check_checksum:TRUE",
        "udp.check_checksum:TRUE",
        "ip.check_checksum:TRUE",
        "tcp.relative_sequence_numbers:FALSE",
    ] {
        cmd.args(["-o", pref]);
    }
    cmd.args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
    cmd.args(["-E", "aggregator=,"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::env::var("TERN_REQUIRE_TSHARK").as_deref() == Ok("1") {
                panic!("tshark is not on the PATH and TERN_REQUIRE_TSHARK=1");
            }
            eprintln!("note: tshark not found, skipping the tshark checks (TERN_REQUIRE_TSHARK=1 makes this fail)");
            return None;
        }
        Err(e) => panic!("running tshark: {e}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    // tshark warns when run as root; anything else on stderr is a problem.
    for line in stderr.lines() {
        assert!(
            line.starts_with("Running as user") || line.trim().is_empty(),
            "tshark: {stderr}"
        );
    }
    let text = String::from_utf8(out.stdout).unwrap();
    println!(
        "tshark -r {} -e {}\n{text}",
        file.display(),
        fields.join(" -e ")
    );
    Some(
        text.lines()
            .map(|l| l.split('\t').map(str::to_owned).collect())
            .collect(),
    )
}

/// `_ws.expert.severity` values (epan/proto.h).
const PI_WARN: u32 = 0x0060_0000;
const PI_ERROR: u32 = 0x0080_0000;
/// `*.checksum.status`: 0 Bad, 1 Good, 2 Unverified, 3 Not present, 4 Illegal.
const GOOD: &str = "1";
const UNVERIFIED: &str = "2";

const FIELDS: &[&str] = &[
    "frame.number",
    "ip.checksum.status",
    "tcp.checksum.status",
    "udp.checksum.status",
    "tcp.options.sack_le",
    "tcp.options.mss_val",
    "_ws.malformed",
    "_ws.expert.severity",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "tcp.len",
    "tcp.hdr_len",
    "tcp.options.sack_re",
    "tcp.options.wscale.shift",
    "tcp.options.timestamp.tsval",
    "udp.srcport",
    "udp.dstport",
    "udp.length",
    "ip.src",
    "ip.id",
    "frame.len",
    "frame.cap_len",
    "_ws.expert.message",
];

fn col(row: &[String], name: &str) -> String {
    let i = FIELDS.iter().position(|f| *f == name).unwrap();
    row[i].clone()
}

fn check_common(rows: &[Vec<String>], pkts: &[(SimTime, Packet)]) {
    assert_eq!(rows.len(), pkts.len(), "tshark read every frame");
    for (i, (row, (_, p))) in rows.iter().zip(pkts).enumerate() {
        assert_eq!(col(row, "frame.number"), (i + 1).to_string());
        assert_eq!(col(row, "_ws.malformed"), "", "frame {} malformed", i + 1);
        for sev in col(row, "_ws.expert.severity")
            .split(',')
            .filter(|s| !s.is_empty())
        {
            let sev: u32 = sev.parse().unwrap();
            assert!(sev < PI_ERROR, "frame {}: {:?}", i + 1, row);
        }
        assert_eq!(col(row, "ip.checksum.status"), GOOD, "frame {}", i + 1);
        assert_eq!(col(row, "frame.len"), p.size().to_string());
        let [a, b, c, d] = node_addr(p.src);
        assert_eq!(col(row, "ip.src"), format!("{a}.{b}.{c}.{d}"));
        assert_eq!(col(row, "ip.id"), format!("0x{:04x}", p.uid as u16));
        match &p.body {
            Body::Tcp(s) => {
                assert_eq!(col(row, "tcp.seq_raw"), s.seq.0.to_string());
                assert_eq!(col(row, "tcp.ack_raw"), s.ack.0.to_string());
                assert_eq!(col(row, "tcp.len"), s.payload_len.to_string());
                assert_eq!(col(row, "tcp.hdr_len"), s.header_len().to_string());
                let join = |v: Vec<u32>| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
                let blocks = &s.options.sack_blocks;
                assert_eq!(
                    col(row, "tcp.options.sack_le"),
                    join(blocks.iter().map(|b| b.0 .0).collect())
                );
                assert_eq!(
                    col(row, "tcp.options.sack_re"),
                    join(blocks.iter().map(|b| b.1 .0).collect())
                );
                let opt = |v: Option<String>| v.unwrap_or_default();
                assert_eq!(
                    col(row, "tcp.options.mss_val"),
                    opt(s.options.mss.map(|m| m.to_string()))
                );
                assert_eq!(
                    col(row, "tcp.options.wscale.shift"),
                    opt(s.options.window_scale.map(|m| m.to_string()))
                );
                assert_eq!(
                    col(row, "tcp.options.timestamp.tsval"),
                    opt(s.options.timestamps.map(|t| t.0.to_string()))
                );
            }
            Body::Udp(m) => {
                let (sp, dp) = udp_ports(p.flow, m.kind);
                assert_eq!(col(row, "udp.srcport"), sp.to_string());
                assert_eq!(col(row, "udp.dstport"), dp.to_string());
                assert_eq!(col(row, "udp.length"), (8 + m.len).to_string());
            }
            Body::Quic(d) => {
                let (sp, dp) = quic_ports(p.flow, d.from_client);
                assert_eq!(col(row, "udp.srcport"), sp.to_string());
                assert_eq!(col(row, "udp.dstport"), dp.to_string());
                assert_eq!(col(row, "udp.length"), (8 + d.bytes.len()).to_string());
            }
            Body::Tfrc(_) | Body::Raw(_) => {
                unreachable!("TFRC captures are checked in tests/tfrc.rs; no real host here")
            }
        }
    }
}

#[test]
fn tshark_reads_full_capture_with_good_checksums() {
    let path = out_path("full.pcap");
    let pkts = write(&path, Capture::Full);
    let Some(rows) = tshark(&path, FIELDS) else {
        return;
    };
    check_common(&rows, &pkts);
    // The only warnings are tshark's notes on the two holes left by the
    // segments lost upstream of the capture point.
    let warned: Vec<String> = rows
        .iter()
        .filter(|r| col(r, "_ws.expert.severity").contains(&PI_WARN.to_string()))
        .map(|r| col(r, "frame.number"))
        .collect();
    assert_eq!(warned, ["5", "6"]);
    for (row, (_, p)) in rows.iter().zip(&pkts) {
        assert_eq!(col(row, "frame.cap_len"), p.size().to_string());
        let (tcp, udp) = match p.body {
            Body::Tcp(_) => (GOOD, ""),
            Body::Udp(_) | Body::Quic(_) => ("", GOOD),
            Body::Tfrc(_) | Body::Raw(_) => {
                unreachable!("TFRC captures are checked in tests/tfrc.rs; no real host here")
            }
        };
        assert_eq!(col(row, "tcp.checksum.status"), tcp, "{row:?}");
        assert_eq!(col(row, "udp.checksum.status"), udp, "{row:?}");
    }
}

#[test]
fn tshark_reads_headers_only_capture() {
    let path = out_path("headers.pcap");
    let pkts = write(&path, Capture::Headers);
    let Some(rows) = tshark(&path, FIELDS) else {
        return;
    };
    check_common(&rows, &pkts);
    for (row, (_, p)) in rows.iter().zip(&pkts) {
        let caplen = match &p.body {
            Body::Tcp(s) => 20 + s.header_len(),
            Body::Udp(m) if m.len >= 20 => 48,
            Body::Udp(_) => 28,
            Body::Quic(d) => 28 + d.bytes.len() as u32,
            Body::Tfrc(_) | Body::Raw(_) => {
                unreachable!("TFRC captures are checked in tests/tfrc.rs; no real host here")
            }
        };
        assert_eq!(col(row, "frame.cap_len"), caplen.to_string());
        // A transport checksum cannot be verified without the whole segment,
        // except where nothing was cut off (a bare TCP header).
        let status = if caplen == p.size() { GOOD } else { UNVERIFIED };
        let (tcp, udp) = match p.body {
            Body::Tcp(_) => (status, ""),
            Body::Udp(_) | Body::Quic(_) => ("", status),
            Body::Tfrc(_) | Body::Raw(_) => {
                unreachable!("TFRC captures are checked in tests/tfrc.rs; no real host here")
            }
        };
        assert_eq!(col(row, "tcp.checksum.status"), tcp, "{row:?}");
        assert_eq!(col(row, "udp.checksum.status"), udp, "{row:?}");
    }
}

#[test]
fn app_header_is_in_udp_payload() {
    let path = out_path("app.pcap");
    let pkts = write(&path, Capture::Full);
    let Some(rows) = tshark(&path, &["frame.number", "udp.payload"]) else {
        return;
    };
    // Frame 11: the echo reply (kind 2, seq 1, sent at 0.3 s), 56 bytes.
    let (_, p) = &pkts[10];
    assert!(matches!(
        p.body,
        Body::Udp(UdpMessage {
            kind: UdpKind::EchoReply,
            ..
        })
    ));
    let mut expected = String::from("02000000");
    expected += &format!("{:016x}{:016x}", 1, 300_000_000u64);
    expected += &"00".repeat(56 - 20);
    assert_eq!(rows[10][1].replace(':', ""), expected);
}
