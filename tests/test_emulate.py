"""Emulation (`tern emulate`): real Linux hosts in network namespaces through Tern's links.

The tests that make namespaces need root (CI runs as root); elsewhere they are skipped with
the reason. After every test no namespace with Tern's prefix may remain.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

import polars as pl
import pytest

import tern
from conftest import EXAMPLES, tshark_fields
from tern import emulation, interop

LINUX = sys.platform == "linux"
ROOT_HERE = LINUX and os.geteuid() == 0 and shutil.which("ip") is not None
needs_root = pytest.mark.skipif(
    not ROOT_HERE, reason="emulation makes network namespaces: needs root on Linux and `ip`"
)
needs_ping = pytest.mark.skipif(
    shutil.which("ping") is None, reason="ping missing (scripts/test installs iputils-ping)"
)

RATE_BPS = 10e6
DELAY_S = 0.020

TWO_HOSTS = """\
[sim]
duration = "{duration}"

[[nodes]]
name = "a"
real = true

[[nodes]]
name = "b"
real = true

[[links]]
name = "wire"
ends = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
"""


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    if ROOT_HERE:
        assert emulation.namespaces() == [], "an emulation left a namespace behind"


def _ping_rtts_ms(log: str) -> list[float]:
    return [float(m) for m in re.findall(r"time=([0-9.]+) ms", log)]


@needs_root
@needs_ping
def test_ping_through_a_p2p_link_reads_two_delays_plus_serialisation(tmp_path):
    # ping's default 56 data bytes: ICMP echo 8 + 56 = 64 B, IPv4 84 B (RFC 792, RFC 791).
    size_bits = (20 + 8 + 56) * 8
    expected_ms = 1e3 * (2 * DELAY_S + 2 * size_bits / RATE_BPS)  # 40.134 ms
    r = tern.emulate(
        text=TWO_HOSTS.format(duration="20s"),
        out=tmp_path,
        commands={"a": ["ping -n -c 20 -i 0.2 {b}"]},
    )
    rtts = _ping_rtts_ms((tmp_path / "commands" / "a.0.log").read_text())
    assert len(rtts) == 20
    assert abs(statistics.median(rtts) - expected_ms) < 1.0, (rtts, expected_ms)
    e = r.summary["emulation"]
    assert e["deterministic"] is False
    assert e["commands"][0]["exit_code"] == 0
    # 20 requests and 20 replies crossed the link, each way once.
    assert (e["packets_in"], e["packets_out"]) == (40, 40)
    assert r.summary["links"]["wire"]["forward"]["tx_packets"] == 20
    assert r.summary["links"]["wire"]["reverse"]["tx_packets"] == 20
    late = e["lateness"]
    assert late["events"] > 0 and 0 <= late["p50_us"] <= late["p99_us"] <= late["max_us"]
    # The run ended when ping did (about 20 pings 0.2 s apart), not at the 20 s duration.
    assert e["wall_s"] < 10
    assert (tmp_path / "wire.forward.pcap").exists() is False  # pcap not recorded


@needs_root
def test_an_engine_behind_its_bound_stops_and_removes_everything(tmp_path):
    # A bound of 1 µs: the first event is later than that (waking up takes longer).
    with pytest.raises(tern.EmulationError, match="late, past the bound"):
        tern.emulate(
            text=TWO_HOSTS.format(duration="2s"),
            out=tmp_path,
            commands={"a": ["ping -n -c 5 -i 0.2 {b}"]},
            fail_us=1,
        )


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_the_run_and_removes_everything(tmp_path, sig):
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_HOSTS.format(duration="60s"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tern", "emulate", str(scenario), "--out", str(tmp_path / "run")],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(emulation.namespaces()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(emulation.namespaces()) == 2
        time.sleep(0.5)  # running: its namespaces are set up and the engine is paced
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()  # (if an assertion failed first; nothing once it has ended)
        proc.wait()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr


@needs_root
def test_cleanup_removes_a_dead_runs_namespaces_only():
    # pid 99999999 exceeds Linux's largest pid_max (2^22): that run cannot be alive.
    dead = f"{emulation.PREFIX}99999999-abcd-a"
    live = f"{emulation.PREFIX}{os.getpid()}-abcd-a"
    for ns in (dead, live):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        assert emulation.cleanup() == [dead]
        assert emulation.namespaces() == [live]
    finally:
        # Only the two made here: another emulation on this machine keeps its own.
        for ns in set(emulation.namespaces()) & {dead, live}:
            subprocess.run(["ip", "netns", "delete", ns], check=True)


@pytest.mark.skipif(not LINUX, reason="emulation is Linux only")
def test_without_privileges_it_stops_before_doing_anything(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(emulation, "_capabilities", lambda: 0)
    before = emulation.namespaces() if ROOT_HERE else []
    with pytest.raises(tern.EmulationError, match="needs root"):
        tern.emulate(text=TWO_HOSTS.format(duration="1s"), out=tmp_path / "run")
    assert not (tmp_path / "run").exists()
    if ROOT_HERE:
        assert emulation.namespaces() == before


def test_commands_on_a_node_that_is_not_real_are_refused():
    text = TWO_HOSTS.format(duration="1s").replace(
        'name = "b"\nreal = true', 'name = "b"\ncommands = ["ping {a}"]'
    )
    with pytest.raises(tern.ScenarioError) as e:
        tern.validate(text=text)
    assert e.value.key == "nodes[1].commands"
    assert "real = true" in e.value.message


def test_a_simulation_ignores_real_and_stays_identical():
    """`real` and `commands` change nothing in a simulation (bit-identical summaries), a TCP
    flow that an emulation would make an interop flow (Tern node ↔ real node) included."""
    base = TWO_HOSTS.format(duration="3s").replace("real = true\n", "") + (
        '\n[[flows]]\nname = "p"\nfrom = "a"\nto = "b"\napp = { kind = "ping" }\n'
        '\n[[flows]]\nname = "t"\nfrom = "b"\nto = "a"\napp = { kind = "bulk" }\n'
        'transport = { kind = "tcp" }\n'
    )
    marked = base.replace('name = "a"\n', 'name = "a"\nreal = true\ncommands = ["true"]\n', 1)
    plain, real = tern.run(text=base), tern.run(text=marked)
    assert "emulation" not in real.summary
    assert plain.summary == real.summary
    assert real.summary["flows"]["t"]["bytes_delivered"] > 0


needs_iperf3 = pytest.mark.skipif(
    shutil.which("iperf3") is None, reason="iperf3 missing (scripts/test installs it)"
)


@needs_root
@needs_iperf3
def test_linux_tcp_fills_a_10_mbit_link_as_terns_tcp_does(tmp_path):
    """iperf3 (the kernel's TCP, CUBIC asked for with -C: a namespace takes the host's default,
    which may be another) through 10 Mbit/s, 20 ms with a 100-packet queue (above the 50 kB
    bandwidth-delay product): its goodput reaches the link's payload rate, and Tern's TCP with
    the kernel's profile gets the same in simulation."""
    text = 'record = ["pcap"]\n' + TWO_HOSTS.format(duration="20s")
    text += 'queue = { kind = "droptail", limit = "100pkt" }\n'
    r = tern.emulate(
        text=text,
        out=tmp_path,
        commands={"a": ["sleep 0.5; iperf3 -c {b} -t 5 -J -C cubic"], "b": ["iperf3 -s -1"]},
    )
    report = json.loads((tmp_path / "commands" / "a.0.log").read_text())
    mss = report["start"]["tcp_mss_default"]
    # Payload rate: MSS bytes per MSS + 20 (TCP) + 12 (timestamps) + 20 (IPv4) on the wire.
    payload_bps = RATE_BPS * mss / (mss + 52)
    goodput = report["end"]["sum_received"]["bits_per_second"]
    # Slow start to the 33-packet BDP takes about 6 RTTs (0.25 s) of the 5 s: at most 10 %
    # below; iperf3's own interval timing allows 1 % above.
    assert 0.9 * payload_bps < goodput < 1.01 * payload_bps, (goodput, payload_bps)
    e = r.summary["emulation"]
    assert e["packets_in"] > 4000 and e["unroutable"] == 0
    # (CUBIC's slow start overshoots BDP + queue, 33 + 100 packets, so the queue drops a few:
    # the goodput above counts them.)
    # Tern's own TCP with the kernel's profile (CUBIC, SACK, timestamps, IW 10 of RFC 6928,
    # 200 ms minimum RTO, F-RTO), simulated on the same link for the same 5 s: the two
    # goodputs agree within 5 %, both set by the link's payload rate.
    sim = text.replace("real = true\n", "") + (
        '[[flows]]\nname = "bulk"\nfrom = "a"\nto = "b"\napp = { kind = "bulk" }\n'
        'stop = "5s"\ntransport = { kind = "tcp", cc = "cubic", initial_window = 10, '
        'min_rto = "200ms", frto = true }\n'
    )
    tern_goodput = tern.run(text=sim).summary["flows"]["bulk"]["goodput_bps"]
    assert abs(tern_goodput - goodput) < 0.05 * goodput, (tern_goodput, goodput)
    # The captures hold the kernels' own bytes: Wireshark finds them whole, checksums good.
    for direction in ("forward", "reverse"):
        pcap = tmp_path / f"wire.{direction}.pcap"
        # A TCP checksum of 0xFFFF is one's-complement -0, the same sum as 0x0000, which
        # incremental updates (RFC 1624 §3) can leave and receivers accept; Linux sends one
        # now and then, and Wireshark flags it. Any other error fails.
        minus_zero = 'tcp.checksum == 0xffff && _ws.expert.message contains "instead of 0x0000"'
        bad = f"_ws.malformed || (_ws.expert.severity >= error && !({minus_zero}))"
        assert tshark_fields(pcap, bad, "frame.number", "_ws.expert.message") == []
        sent = r.summary["links"]["wire"][direction]["tx_packets"]
        good = f"ip.checksum.status == 1 && (tcp.checksum.status == 1 || {minus_zero})"  # 1: Good
        assert len(tshark_fields(pcap, good, "frame.number")) == sent


@needs_root
@needs_iperf3
def test_rto_instants_through_an_outage_match_the_kernels(tmp_path):
    """The kernel's CUBIC and Tern's TCP with the kernel's profile (its RTO rule,
    `rto_rule = "linux"`: `tcp_rtt_estimator` / `__tcp_set_rto`) through the same 3 s outage
    of the forward direction resend the first lost segment at the same instants, within one
    round trip (the smoothed RTT Tern measured just before the outage: both fill the 100-packet
    queue, so the path's round trip is about 150 ms, not the 40 ms base). That holds for the
    three resends inside the outage; the one after it comes 2 + 4 + 8 = 14 RTO bases after the
    first, so it carries 14 times any difference in the base: the kernel's own SRTT at 4 s varies
    from run to run, and its fourth resend with it (9.64-9.85 s in three runs here, against
    Tern's 9.79 s), so for that one only the count is checked."""
    link = TWO_HOSTS.format(duration="14s") + (
        'queue = { kind = "droptail", limit = "100pkt" }\n'
        'loss = { kind = "outage", direction = "forward", windows = [{ at = "4s", for = "3s" }] }\n'
    )
    tern.emulate(
        text='record = ["pcap"]\n' + link,
        out=tmp_path,
        commands={"a": ["sleep 0.5; iperf3 -c {b} -t 10 -C cubic"], "b": ["iperf3 -s -1"]},
        fail_us=100_000,
    )
    rows = tshark_fields(
        tmp_path / "wire.forward.pcap",
        "tcp.analysis.retransmission && frame.time_epoch > 3.9",
        "frame.time_epoch",
        "tcp.seq",
    )
    kernel = [float(t) for t, seq in rows if seq == rows[0][1]]
    sim = (
        'record = ["retransmits", "rto"]\n'
        + link.replace("real = true\n", "")
        + (
            '[[flows]]\nname = "bulk"\nfrom = "a"\nto = "b"\napp = { kind = "bulk" }\n'
            'start = "0.5s"\nstop = "10.5s"\ntransport = { kind = "tcp", cc = "cubic", '
            'initial_window = 10, min_rto = "200ms", frto = true, rto_rule = "linux" }\n'
        )
    )
    run = tern.run(text=sim)
    expiries = run.series("retransmits").filter(pl.col("kind") == "rto_expiry")["time"]
    rto = run.series("rto").filter((pl.col("endpoint") == "client") & (pl.col("time") < 4.0))
    rtt = rto["srtt"][-1]
    assert len(kernel) == len(expiries), (kernel, expiries.to_list())
    during = [(k, t) for k, t in zip(kernel, expiries, strict=True) if t < 7.0]
    assert len(during) == 3
    for k, t in during:
        assert abs(k - t) < rtt, (kernel, expiries.to_list(), rtt)


@needs_root
@needs_iperf3
def test_the_kernels_tcp_gets_over_100_mbit_s_through_a_link_model(tmp_path):
    """At least 100 Mbit/s of iperf3 through a p2p link model on
    this 2-core machine, the engine's lateness p99 under 1 ms. The link (200 Mbit/s, 1 ms, 100
    packets of queue, three times the 33-packet bandwidth-delay product) does not hold the
    kernels' TCP below 100 Mbit/s: its payload rate is 200 x 1448 / 1500 = 193 Mbit/s. A rare
    late event of a few ms on a shared machine is not what is measured here (p99 is), so the
    stopping bound is raised as for the interop tests."""
    text = TWO_HOSTS.format(duration="20s").replace('"10Mbps"', '"200Mbps"')
    text = text.replace('"20ms"', '"1ms"') + 'queue = { kind = "droptail", limit = "100pkt" }\n'
    r = tern.emulate(
        text=text,
        out=tmp_path,
        commands={"a": ["sleep 0.5; iperf3 -c {b} -t 4 -J"], "b": ["iperf3 -s -1"]},
        fail_us=100_000,
    )
    report = json.loads((tmp_path / "commands" / "a.0.log").read_text())
    goodput = report["end"]["sum_received"]["bits_per_second"]
    late = r.summary["emulation"]["lateness"]
    assert goodput >= 100e6, (goodput, late)
    assert late["p99_us"] < 1_000, late


@needs_root
@needs_ping
def test_ping_behind_an_lte_handover_loses_the_burst_loss_period(tmp_path):
    """The LTE example's handover loses every packet for its last 2 s (`burst_loss`): pings
    0.2 s apart lose 2 / 0.2 = 10, give or take the one whose request or reply straddles an
    edge of the period; the others read the 100 ms base RTT (twice 20 + 30 ms) or more."""
    r = tern.emulate(
        EXAMPLES / "emulate-lte-handover.toml",
        out=tmp_path,
        set={
            "nodes.ue.commands": '["ping -n -c 40 -i 0.2 {server}"]',
            "nodes.server.commands": "[]",
        },
    )
    rtts = _ping_rtts_ms((tmp_path / "commands" / "ue.0.log").read_text())
    assert 40 - 11 <= len(rtts) <= 40 - 9, rtts
    # 100 ms plus 0.17 ms of serialisation, which ping rounds away (3 digits above 100 ms).
    assert min(rtts) >= 100.0
    assert r.summary["emulation"]["lateness"]["max_us"] < 10_000


# Tern's TCP and the kernel's ("Interop"): a flow between a Tern node and a real
# node. Whatever either side sends is the stream pattern (byte i = i mod 251, tern.interop);
# the kernel's end is `tern/interop.py` run as a file (no package import: it listens before
# Tern's client connects at 1 s).
PEER = f"{sys.executable} {interop.__file__}"
INTEROP_BYTES = 10_000_000
# Node a is Tern's, b the kernel's; a 100-packet queue, as in the iperf3 test above.
INTEROP = (
    'record = ["pcap"]\n'
    + TWO_HOSTS.format(duration="60s").replace('name = "a"\nreal = true\n', 'name = "a"\n')
    + 'queue = {{ kind = "droptail", limit = "100pkt" }}\n{loss}\n'
    + """[[flows]]
name = "bulk"
from = "{client}"
to = "{server}"
start = "{start}"
app = {{ kind = "bulk", bytes = "{bytes}B" }}
transport = {{ kind = "tcp", cc = "cubic", sack = true, timestamps = true, window_scale = true }}
"""
)


def _transfer(tmp_path, sender, nbytes, loss=""):
    """`nbytes` from Tern's TCP client at a to the kernel's server at b (`sender` "tern"),
    or from the kernel's client at b to Tern's server at a ("linux"). A Tern client connects
    at 1 s (the kernel's server listens by then); a kernel's client when its command starts,
    at 0 s, from which the flow's goodput counts."""
    if sender == "tern":
        client, server, start, command = "a", "b", "1s", f"{PEER} serve"
    else:
        client, server, start = "b", "a", "0s"
        command = f"{PEER} send {{a}} --bytes {nbytes}"
    text = INTEROP.format(client=client, server=server, bytes=nbytes, loss=loss, start=start)
    # These tests check bytes, not timing: a bound of 100 ms (not 10 ms) keeps a loaded
    # machine's late wake-up from stopping them.
    r = tern.emulate(text=text, out=tmp_path, commands={"b": [command]}, fail_us=100_000)
    peer = json.loads((tmp_path / "commands" / "b.0.log").read_text().splitlines()[-1])
    wire = r.summary["emulation"]["interop"]["bulk"]
    # The receiver got every byte, each the pattern's; nothing malformed crossed.
    assert (peer["bytes"], peer["mismatched"]) == (nbytes, 0), peer
    assert (wire["malformed"], wire["unencodable"]) == (0, 0), wire
    if sender == "tern":
        assert wire["tern_side"] == "client"
        assert wire["payload_bytes_out"] >= nbytes
    else:
        assert wire["tern_side"] == "server"
        checked = ("payload_bytes_checked", "mismatched_bytes", "payload_bytes_unchecked")
        assert tuple(wire[k] for k in checked) == (nbytes, 0, 0), wire
        assert r.summary["flows"]["bulk"]["bytes_delivered"] == nbytes
    return r


def _check_capture(tmp_path):
    """Both directions' captures: no malformed packet or expert error (a kernel's TCP
    checksum 0xFFFF, one's-complement -0, excepted as above); every packet's checksums good;
    the SYN and the SYN-ACK both carry window scale, SACK-permitted and timestamps."""
    minus_zero = 'tcp.checksum == 0xffff && _ws.expert.message contains "instead of 0x0000"'
    syns = []
    for direction in ("forward", "reverse"):
        pcap = tmp_path / f"wire.{direction}.pcap"
        bad = f"_ws.malformed || (_ws.expert.severity >= error && !({minus_zero}))"
        assert tshark_fields(pcap, bad, "frame.number", "_ws.expert.message") == []
        bad_sums = f"ip.checksum.status != 1 || !(tcp.checksum.status == 1 || {minus_zero})"
        assert tshark_fields(pcap, bad_sums, "frame.number") == []
        syns += tshark_fields(
            pcap,
            "tcp.flags.syn == 1",
            "tcp.flags.ack",
            "tcp.options.wscale.shift",
            "tcp.options.sack_perm",
            "tcp.options.timestamp.tsval",
        )
    kinds = {ack for ack, *_ in syns}
    assert kinds == {"0", "1"} or kinds == {"False", "True"}, syns  # a SYN and a SYN-ACK
    for _, shift, sack_perm, tsval in syns:
        assert shift != "" and sack_perm != "" and tsval != "", syns


needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark missing (scripts/test installs it)"
)


@needs_root
@needs_tshark
@pytest.mark.parametrize("sender", ["tern", "linux"])
def test_10_mb_cross_byte_exact_between_terns_tcp_and_the_kernels(tmp_path, sender):
    """Tern's client to the kernel's server, and the kernel's client to Tern's server: 10 MB
    over 10 Mbit/s, 20 ms arrive byte-exact, the handshake negotiates window scaling, SACK
    and timestamps, and tshark finds every packet whole."""
    r = _transfer(tmp_path, sender, INTEROP_BYTES)
    if sender == "tern":
        tcp = r.summary["flows"]["bulk"]["tcp"]
        assert tcp["state"] in ("FinWait2", "TimeWait", "Closed", "LastAck", "Closing"), tcp
    _check_capture(tmp_path)


@needs_root
@needs_tshark
@pytest.mark.parametrize("sender", ["tern", "linux"])
def test_with_1_percent_loss_sack_recovery_between_tern_and_the_kernel_completes(tmp_path, sender):
    """1 % random loss each way (3 MB, to keep the test short: at most about 6 s at the
    Mathis et al. rate of 1448 B / 40 ms · 1.22 / √0.01 ≈ 3.5 Mbit/s). Tern's sender
    recovers with the kernel's SACK blocks, or the kernel's with Tern's; the receiver gets
    every byte right."""
    nbytes = 3_000_000
    r = _transfer(tmp_path, sender, nbytes, 'loss = { kind = "bernoulli", p = 0.01 }\n')
    # Data goes a (Tern) → b (Linux) on the forward direction, b → a on the reverse.
    data, acks = ("forward", "reverse") if sender == "tern" else ("reverse", "forward")
    assert r.summary["links"]["wire"][data]["drops"]["loss"] > 0
    # The sender retransmitted: a data segment's sequence number appears twice on the wire.
    sent = tshark_fields(tmp_path / f"wire.{data}.pcap", "tcp.len > 0", "tcp.seq")
    assert len(sent) > len({s for (s,) in sent}), "no retransmission"
    if sender == "tern":
        tcp = r.summary["flows"]["bulk"]["tcp"]
        assert tcp["retransmits_sack"] + tcp["retransmits_fast"] > 0, tcp
    # The receiver's ACKs carried SACK blocks, which the sender read.
    assert tshark_fields(tmp_path / f"wire.{acks}.pcap", "tcp.options.sack_le", "tcp.ack") != []


# Sent from the real node by a raw socket (the kernel fills the IPv4 header's length, id and
# checksum, RFC 791 via raw(7)): three TCP segments for Tern's server at a, each malformed in
# its own way.
RAW_SENDER = """
import socket, struct, sys
src, dst = socket.inet_aton(sys.argv[1]), socket.inet_aton(sys.argv[2])
def csum(b):
    b += b'\\0' * (len(b) % 2)
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def tcp(offset_words, options, good):
    h = struct.pack('!HHIIBBHHH', 40000, 5001, 1, 0, offset_words << 4, 2, 65535, 0, 0) + options
    pseudo = src + dst + struct.pack('!BBH', 0, 6, len(h))
    s = csum(pseudo + h) ^ (0 if good else 0x1234)
    return h[:16] + struct.pack('!H', s) + h[18:]
def ip(payload):
    return struct.pack('!BBHHHBBH4s4s', 0x45, 0, 0, 0, 0x4000, 64, 6, 0, src, dst) + payload
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in (tcp(5, b'', False), tcp(15, b'', True), tcp(6, bytes([2, 3, 5, 0]), True)):
    s.sendto(ip(p), (sys.argv[2], 0))
# The emulation ends when its commands do: stay until the packets have crossed the link.
import time
time.sleep(1)
"""


# One UDP datagram from the node the command runs on to `sys.argv[1]` (discard port, RFC 863),
# then the command ends at once.
ONE_DATAGRAM = (
    f'{sys.executable} -c "import socket, sys; '
    "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', (sys.argv[1], 9))\" {b}"
)


@needs_root
def test_what_a_command_sent_as_it_ended_still_crosses_the_link(tmp_path):
    """A datagram sent just before its command ends is 500 ms inside the link when the run
    learns of the end (it asks every 50 ms): the run goes on DRAIN_S (1 s) of simulated time,
    so the datagram reaches b, as a connection's last FIN-ACK must reach its Tern peer."""
    text = TWO_HOSTS.format(duration="30s").replace('delay = "20ms"', 'delay = "500ms"')
    r = tern.emulate(text=text, out=tmp_path, commands={"a": [ONE_DATAGRAM]}, fail_us=100_000)
    assert r.summary["emulation"]["commands"][0]["exit_code"] == 0
    assert r.summary["links"]["wire"]["forward"]["delivered_packets"] == 1
    assert r.summary["emulation"]["wall_s"] < 10  # ended after its drain, not at 30 s


@needs_root
def test_malformed_segments_from_a_kernel_are_dropped_and_counted(tmp_path):
    """A bad TCP checksum, a data offset past the segment, an MSS option of length 3: each is
    dropped at the boundary and counted as malformed; Tern's server is untouched."""
    script = tmp_path / "raw.py"
    script.write_text(RAW_SENDER)
    text = INTEROP.format(client="b", server="a", bytes=1000, loss="", start="0s")
    r = tern.emulate(
        text=text,
        out=tmp_path / "run",
        commands={"b": [f"{sys.executable} {script} {{b}} {{a}}"]},
        fail_us=100_000,
    )
    assert r.summary["emulation"]["commands"][0]["exit_code"] == 0
    wire = r.summary["emulation"]["interop"]["bulk"]
    assert (wire["malformed"], wire["segments_in"], wire["segments_out"]) == (3, 0, 0), wire


def test_the_interop_example_simulates_its_10_mb_transfer():
    """The emulation guide's interop example is valid; simulated (its `real` ignored), Tern's
    TCP at both ends delivers its 10 MB (10^7 bytes)."""
    r = tern.run(EXAMPLES / "emulate-tcp-interop.toml")
    assert r.summary["flows"]["bulk"]["bytes_delivered"] == 10_000_000


@needs_root
def test_a_non_tcp_flow_between_a_tern_node_and_a_real_node_is_refused(tmp_path):
    """Only Tern's TCP speaks to a kernel's: a ping flow from Tern node a to real node b
    stops the emulation before it runs, naming the flow (and leaves nothing behind)."""
    text = INTEROP.format(client="a", server="b", bytes=1000, loss="", start="0s").replace(
        'app = { kind = "bulk", bytes = "1000B" }', 'app = { kind = "ping" }'
    )
    text = text.split("transport =")[0] + 'transport = { kind = "udp" }\n'
    with pytest.raises(tern.EmulationError, match='flow "bulk" joins a real node'):
        tern.emulate(text=text, out=tmp_path, commands={"b": ["sleep 5"]})


def _processes_with(marker: str) -> list[int]:
    """The processes whose arguments contain `marker`'s words as separate arguments (not a
    shell's or Tern's command line that holds them in one argument)."""
    words = marker.encode().replace(b" ", b"\0") + b"\0"
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if words in cmdline and int(entry) != os.getpid():
                found.append(int(entry))
    return found


@needs_root
def test_a_command_that_detaches_does_not_outlive_the_run(tmp_path):
    # `setsid` leaves the command's process group and session; the run still ends it, as a
    # process in the node's namespace. 777.123 marks it among the machine's processes.
    tern.emulate(
        text=TWO_HOSTS.format(duration="1s"),
        out=tmp_path,
        commands={"a": ["setsid sleep 777.123 & sleep 0.2"]},
    )
    time.sleep(0.2)
    left = _processes_with("sleep 777.123")
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "a detached command outlived its emulation"


@needs_root
@needs_ping
def test_cleanup_after_kill_9_ends_the_nodes_commands(tmp_path):
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_HOSTS.format(duration="60s"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tern",
            "emulate",
            str(scenario),
            "--out",
            str(tmp_path / "run"),
            "--run",
            "a=ping -n -i 0.2 -W 7.77 {b}",
            "--run",
            "a=setsid sleep 777.456",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(_processes_with("sleep 777.456")) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_with("-W 7.77") and _processes_with("sleep 777.456")
        proc.kill()  # SIGKILL: no teardown runs
        proc.wait()
        assert emulation.cleanup() != []
        time.sleep(0.2)
        left = _processes_with("-W 7.77") + _processes_with("sleep 777.456")
    finally:
        proc.kill()
        proc.wait()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the killed run's commands outlived --cleanup"


def test_a_placeholder_that_names_no_node_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(emulation, "check_privileges", lambda: None)
    with pytest.raises(tern.EmulationError, match=r"nodes.a.commands: .*names \{ghost\}"):
        tern.emulate(
            text=TWO_HOSTS.format(duration="1s"),
            out=tmp_path / "run",
            commands={"a": ["ping -c 1 {ghost}"]},
        )
    assert not (tmp_path / "run").exists()
    # A shell's ${VAR} is the shell's.
    assert emulation._expand("echo ${HOME} {b}", {"b": "198.18.0.2"}, "x") == (
        "echo ${HOME} 198.18.0.2"
    )


@needs_root
@needs_ping
def test_no_garbage_collection_pauses_the_paced_engine(tmp_path, monkeypatch):
    """The engine calls back into Python every 50 ms holding the interpreter; a full
    collection there (70-100 ms over the libraries' heap on a busy machine) would run the
    engine that late. With a threshold of one allocation, any collector left on would run
    in the callbacks."""
    collections = []
    running = []
    real_emulate = emulation._core.emulate

    def emulate(*args):
        running.append(True)
        try:
            return real_emulate(*args)
        finally:
            running.clear()

    def seen(phase, info):
        if phase == "start" and running:
            collections.append(info)

    monkeypatch.setattr(emulation._core, "emulate", emulate)
    threshold = gc.get_threshold()
    gc.set_threshold(1)
    gc.callbacks.append(seen)
    try:
        tern.emulate(
            text=TWO_HOSTS.format(duration="2s"),
            out=tmp_path,
            commands={"a": ["ping -n -c 3 -i 0.2 {b}"]},
        )
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*threshold)
    assert collections == []
    assert gc.isenabled()
