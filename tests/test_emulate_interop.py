"""Emulation's TCP interop: Tern's TCP and a real kernel's, each end of one flow through a
Tern link, byte-exact both ways, and the capture of it.

The tests that make namespaces need root (CI runs as root); elsewhere they are skipped with
the reason. After every test no namespace with Tern's prefix may remain.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import tern
from conftest import EXAMPLES, tshark_fields
from emulation_support import (
    TWO_HOSTS,
    needs_ping,
    needs_root,
    needs_tshark,
    nothing_left_behind,  # noqa: F401 (an autouse fixture)
)
from tern import emulation, interop

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
        fail_us=100_000,
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
            fail_us=100_000,
        )
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*threshold)
    assert collections == []
    assert gc.isenabled()
