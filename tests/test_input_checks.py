"""Settings a scenario's types allow but its protocols do not: each is an error naming the
key, or works as the standard says."""

from __future__ import annotations

import json

import pytest

import tern
from conftest import EXAMPLES, ROOT

QUIC = EXAMPLES / "p2p-quic.toml"
DCCP = EXAMPLES / "p2p-dccp.toml"
ROAMING = EXAMPLES / "wifi-roaming.toml"
WALK = ROOT / "scenarios" / "mpquic-rssi" / "walk.toml"
LTE = ROOT / "scenarios" / "lte-switch" / "effect.toml"

CASES = [
    # RFC 9000 §4.1: nothing may be sent beyond a window of 0 B.
    (QUIC, {"flows.bulk.transport.connection_window": "0B"}, "connection_window", "0 B"),
    (QUIC, {"flows.bulk.transport.stream_window": "0B"}, "stream_window", "0 B"),
    (QUIC, {"flows.bulk.transport.send_buffer": "0B"}, "send_buffer", "0 B"),
    # RFC 9002 §7.2: the congestion window is never below two datagrams (2 x 1200 B).
    (QUIC, {"flows.bulk.transport.initial_window": "0B"}, "initial_window", "at least 2400"),
    (QUIC, {"flows.bulk.transport.initial_window": "2399B"}, "initial_window", "got 2399B"),
    # A size of zero is written as such, not "0GiB".
    (QUIC, {"flows.bulk.transport.initial_mtu": "0B"}, "initial_mtu", "got 0B"),
    # A link too narrow for QUIC is the link's fault: 1200 B + 28 B of IPv4/UDP headers.
    (QUIC, {"links.access.mtu": "68B"}, "links.access.mtu", "at least 1228 B"),
    (
        WALK,
        {
            "flows.get.transport.paths": [
                {"via": "wlan", "abandon_at": "5s"},
                {"via": "cell", "abandon_at": "9s"},
            ]
        },
        "abandon_at",
        "every path is abandoned",
    ),
    (WALK, {"flows.get.transport.rssi_scheduler.t1": float("nan")}, "rssi_scheduler.t1", "dBm"),
    (WALK, {"flows.get.transport.rssi_scheduler.t2": float("nan")}, "rssi_scheduler.t2", "dBm"),
    # Countermeasures against 802.11 handovers on a flow whose client never roams.
    (DCCP, {"flows.video.transport.handover_notice": True}, "handover_notice", "[[roaming]]"),
    (
        DCCP,
        {"flows.video.transport.rate_from_bss_load": True},
        "rate_from_bss_load",
        "[[roaming]]",
    ),
    # The mobile station starts in bss1, the first BSS that lists it.
    (ROAMING, {"roaming.handover.to": "bss1"}, "roaming.handover.to", 'in "bss1" already'),
    # A hysteresis (an RSSI trigger's key) next to a schedule: that key is named.
    (ROAMING, {"roaming.handover.hysteresis": 3.0}, "roaming.handover.hysteresis", "not both"),
    # A link is one technology: a W-CDMA bearer's table beside an LTE cell's is named.
    (LTE, {"links.radio.rlc": {}}, "links.radio.rlc", "`cell` and `rlc`"),
]


@pytest.mark.parametrize(
    ("path", "sets", "key", "expected"), CASES, ids=[f"{c[2]}:{c[3]}" for c in CASES]
)
def test_a_setting_no_protocol_allows_is_an_error_naming_its_key(path, sets, key, expected):
    with pytest.raises(tern.ScenarioError) as e:
        tern.validate(path, set=sets)
    text = str(e.value)
    assert key in text and expected in text, text


def test_mtu_error_in_a_file_names_the_link_and_its_line(tmp_path):
    bad = tmp_path / "q.toml"
    bad.write_text(QUIC.read_text().replace('delay = "20ms"\n', 'delay = "20ms"\nmtu = "68B"\n', 1))
    with pytest.raises(tern.ScenarioError) as e:
        tern.validate(bad)
    assert e.value.key == "links[0].mtu", str(e.value)
    assert "1200 to 40" not in str(e.value) and "transport.kind" not in str(e.value)


def test_a_quic_idle_timeout_of_zero_disables_it():
    """RFC 9000 §10.1: a max_idle_timeout of 0 (or absent) disables the idle timeout; the
    transfer then runs as with any timeout longer than the run."""
    sets = {"sim.duration": "3s", "flows.messages.start": "1s"}
    zero = tern.run(QUIC, set={**sets, "flows.bulk.transport.idle_timeout": "0s"})
    long = tern.run(QUIC, set={**sets, "flows.bulk.transport.idle_timeout": "3600s"})
    got = {name: f["bytes_delivered"] for name, f in zero.summary["flows"].items()}
    assert got["bulk"] > 0, json.dumps(zero.summary["flows"])
    # No idle period in a bulk transfer: the timeout never fires, either way.
    assert got == {name: f["bytes_delivered"] for name, f in long.summary["flows"].items()}
