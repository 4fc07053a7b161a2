"""Bad input gets a clear error naming file, line and key, exit code 2, no traceback."""

from __future__ import annotations

import pytest

import tern
from conftest import P2P, tern_cli

# (description, edit of the valid scenario, expected fragment of the error)
CASES = [
    ("empty file", lambda s: "", "bad.toml: missing field `sim`"),
    (
        "truncated file",
        lambda s: s[: s.index('rate = "10Mbps"') + 9],
        "bad.toml:16: not valid TOML",
    ),
    (
        "number too large for a float",
        lambda s: s.replace("p = 0.05", "p = 1e400"),
        "bad.toml:18: not valid TOML: invalid floating-point number",
    ),
    (
        "NaN probability",
        lambda s: s.replace("p = 0.05", "p = nan"),
        "bad.toml:18: links[0].loss: expected a probability between 0 and 1, got NaN",
    ),
    (
        "negative duration",
        lambda s: s.replace('duration = "5s"', 'duration = "-5s"'),
        'bad.toml:4: sim.duration: expected a duration like "20ms", got "-5s"',
    ),
    (
        "number where a rate is expected",
        lambda s: s.replace('rate = "10Mbps"', "rate = 10"),
        "bad.toml:16: links[0].rate: expected a data rate with its unit written out",
    ),
    (
        "integer beyond 64 bits",
        lambda s: s.replace("seed = 1", "seed = 99999999999999999999"),
        "bad.toml:5: not valid TOML: number too large",
    ),
    (
        "a name that is a path",
        lambda s: s.replace('name = "access"', 'name = "../x"'),
        "bad.toml:14: links[0].name: expected a name of 1 to 64 letters, digits",
    ),
    (
        "explicit routes in a cycle",
        lambda s: (
            s
            + '[[nodes]]\nname = "c"\n[[links]]\nname = "l2"\nends = ["b", "c"]\n'
            + 'rate = "1Mbps"\ndelay = "1ms"\n[[routes]]\nnode = "b"\nto = "c"\nvia = "access"\n'
            + '[[flows]]\nname = "f2"\nfrom = "a"\nto = "c"\napp = { kind = "ping" }\n'
        ),
        "flows[1].to: the explicit routes send this flow's packets in a loop",
    ),
    (
        "infinite rate",
        lambda s: s.replace('rate = "2Mbps", size', 'rate = "infMbps", size'),
        'flows[0].app.rate: expected a data rate like "10Mbps", got "infMbps"',
    ),
    (
        "rate with an unknown unit",
        lambda s: s.replace('rate = "10Mbps"', 'rate = "10 parsecs"'),
        'bad.toml:16: links[0].rate: expected a data rate like "10Mbps", got "10 parsecs"',
    ),
    (
        "duration without a unit",
        lambda s: s.replace('duration = "5s"', "duration = 5"),
        'bad.toml:4: sim.duration: expected a duration with its unit written out, like "20ms"',
    ),
    (
        "misspelt key",
        lambda s: s.replace('delay = "20ms"', 'dealy = "20ms"'),
        "bad.toml:17: links[0].dealy: unknown field `dealy`, expected one of `name`, `ends`",
    ),
    (
        "missing key",
        lambda s: s.replace('delay = "20ms"\n', ""),
        "bad.toml:13: links[0]: missing field `delay`",
    ),
    (
        "link to a node that does not exist",
        lambda s: s.replace('ends = ["a", "b"]', 'ends = ["a", "c"]'),
        'bad.toml:15: links[0].ends: no node named "c"',
    ),
    (
        "duplicate node name",
        lambda s: s.replace('name = "b"', 'name = "a"', 1),
        'bad.toml:11: nodes[1].name: the name "a" is used twice in nodes',
    ),
    (
        "probability above one",
        lambda s: s.replace("p = 0.05", "p = 1.5"),
        "bad.toml:18: links[0].loss: expected a probability between 0 and 1, got 1.5",
    ),
    (
        "not TOML at all",
        lambda s: s.replace('name = "msgs"', 'name = "msgs'),
        "bad.toml:21: not valid TOML",
    ),
    (
        "unknown queue discipline",
        lambda s: s.replace(
            'loss = { kind = "bernoulli", p = 0.05 }',
            'queue = { kind = "red", limit = "10pkt" }',
        ),
        "bad.toml:18: links[0].queue.kind: unknown variant `red`, expected `droptail` or `codel`",
    ),
    (
        "a congestion control TCP does not have",
        lambda s: s.replace(
            'app = { kind = "cbr", rate = "2Mbps", size = "1000B" }',
            'app = { kind = "bulk" }\ntransport = { kind = "tcp", cc = "vegas" }',
        ),
        "bad.toml:25: flows[0].transport.cc: unknown variant `vegas`, expected one of `newreno`",
    ),
    (
        "a rate with no unit Tern knows, inside a table of one kind",
        lambda s: s.replace('rate = "2Mbps"', 'rate = "2 parsecs"'),
        'bad.toml:24: flows[0].app.rate: expected a data rate like "10Mbps", got "2 parsecs"',
    ),
    (
        "flow from an unknown node",
        lambda s: s.replace('from = "a"', 'from = "ue"'),
        'bad.toml:22: flows[0].from: no node named "ue"',
    ),
    (
        "message larger than the MTU",
        lambda s: s.replace('size = "1000B"', 'size = "1500B"'),
        "bad.toml:24: flows[0].app.size: expected 1 to 1472 bytes",
    ),
    (
        "unknown trace kind",
        lambda s: s.replace('record = ["delay", "queue"]', 'record = ["delay", "cwnd2"]'),
        "bad.toml:1: record[1]: unknown variant `cwnd2`",
    ),
    (
        "unreachable destination",
        lambda s: s.replace('to = "b"', 'to = "c"') + '\n[[nodes]]\nname = "c"\n',
        'flows[0].to: no route from "a" to "c"',
    ),
    (
        "802.11n setting on an 802.11b BSS",
        lambda s: s + WIFI.replace('standard = "802.11b"', 'standard = "802.11b"\nwidth = 40'),
        "wifi[0].width: `width` is an 802.11n setting; this BSS is 802.11b",
    ),
    (
        "802.11b rate that does not exist",
        lambda s: s + WIFI.replace('standard = "802.11b"', 'standard = "802.11b"\nrate = "6Mbps"'),
        "wifi[0].rate: expected an 802.11b rate: 1Mbps, 2Mbps, 5.5Mbps or 11Mbps",
    ),
    (
        "802.11g rate that does not exist",
        lambda s: s + WIFI.replace('standard = "802.11b"', 'standard = "802.11g"\nrate = "11Mbps"'),
        "wifi[0].rate: expected an 802.11g rate: 6Mbps, 9Mbps, 12Mbps, 18Mbps, 24Mbps, 36Mbps, "
        "48Mbps or 54Mbps",
    ),
    (
        "an MCS for an 802.11g BSS",
        lambda s: (
            s
            + WIFI.replace(
                'standard = "802.11b"',
                'standard = "802.11g"\nrate_control = { kind = "constant", mcs = 3 }',
            )
        ),
        'wifi[0].rate_control: expected "minstrel" or "ideal" for 802.11g (an MCS is '
        "802.11n's; 802.11g's fixed rate is `rate`)",
    ),
    (
        "a fixed 802.11g rate and a rate control",
        lambda s: (
            s
            + WIFI.replace(
                'standard = "802.11b"',
                'standard = "802.11g"\nrate = "54Mbps"\nrate_control = { kind = "minstrel" }',
            )
        ),
        "wifi[0].rate_control: expected either `rate` (every frame at that rate) or "
        "`rate_control`, not both",
    ),
    (
        "802.11b setting on an 802.11g BSS",
        lambda s: (
            s + WIFI.replace('standard = "802.11b"', 'standard = "802.11g"\npreamble = "short"')
        ),
        "wifi[0].preamble: `preamble` is an 802.11b setting; this BSS is 802.11g",
    ),
    (
        "802.11g rate on an 802.11n BSS",
        lambda s: s + WIFI.replace('standard = "802.11b"', 'standard = "802.11n"\nrate = "54Mbps"'),
        "wifi[0].rate: `rate` is an 802.11b or 802.11g setting; this BSS is 802.11n",
    ),
    (
        "MCS beyond one spatial stream",
        lambda s: (
            s
            + WIFI.replace(
                'standard = "802.11b"',
                'standard = "802.11n"\nrate_control = { kind = "constant", mcs = 12 }',
            )
        ),
        "wifi[0].rate_control: expected an MCS from 0 to 7 with 1 stream(s)",
    ),
    (
        "Wi-Fi station that is not a node",
        lambda s: s + WIFI.replace('stations = ["b"]', 'stations = ["z"]'),
        'wifi[0].stations[0]: no node named "z"',
    ),
    (
        "walk at zero speed",
        lambda s: s.replace(
            'name = "b"\n', 'name = "b"\nmoves = [{ walk_to = [10, 0, 0], speed = 0 }]\n'
        ),
        "nodes[1].moves:",
    ),
    (
        "roaming station in one BSS only",
        lambda s: s + WIFI + ROAM,
        'roaming[0].station: expected a station listed in two or more [[wifi]] BSSs, "b" is in 1',
    ),
    (
        "roaming to a BSS the station is not in",
        lambda s: s + TWO_BSS + ROAM.replace('to = "wlan"', 'to = "wlan3"'),
        'roaming[0].to: expected one of the BSSs listing "b": ["wlan", "wlan2"]',
    ),
    (
        "roaming both scheduled and RSSI-triggered",
        lambda s: s + TWO_BSS + ROAM.replace('at = "1s"', 'at = "1s"\nrssi_below = -80'),
        "roaming[0].rssi_below: expected either a schedule (at, to) or an RSSI trigger",
    ),
]

# A BSS appended to the P2P scenario: "a" is its AP, "b" its station.
WIFI = """
[[wifi]]
name = "wlan"
ap = "a"
stations = ["b"]
standard = "802.11b"
"""

# A second BSS, of AP "c", that "b" is in too.
TWO_BSS = (
    '\n[[nodes]]\nname = "c"\n'
    + WIFI
    + WIFI.replace('name = "wlan"', 'name = "wlan2"').replace('ap = "a"', 'ap = "c"')
)

ROAM = """
[[roaming]]
name = "r"
station = "b"
at = "1s"
to = "wlan"
disconnect = "1s"
"""


@pytest.mark.parametrize(("what", "edit", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_gives_a_clear_error(tmp_path, what, edit, expected):
    path = tmp_path / "bad.toml"
    path.write_text(edit(P2P))
    for command in ("validate", "run"):
        res = (
            tern_cli(command, str(path), "--out", str(tmp_path / "o"))
            if command == "run"
            else tern_cli(command, str(path))
        )
        assert res.returncode == 2, (what, res.stdout, res.stderr)
        message = " ".join(res.stderr.split())
        assert expected in message, (what, res.stderr)
        assert "Traceback" not in res.stderr


def test_bad_set_overrides(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(P2P)
    cases = [
        (
            ["--set", "links.acces.rate=5Mbps"],
            'no element named "acces" in links (names there: access)',
        ),
        (
            ["--set", "links.access.rate=5"],
            "--set links.access.rate: expected a data rate with its unit",
        ),
        (["--set", "links.access.rate"], "expected KEY=VALUE"),
        (["--set", "links.access=5"], "is a whole element"),
    ]
    for args, expected in cases:
        res = tern_cli("run", str(path), *args, "--out", str(tmp_path / "o"))
        assert res.returncode == 2, res.stderr
        assert expected in " ".join(res.stderr.split())
        assert "Traceback" not in res.stderr


def test_missing_file_and_bad_flag(tmp_path):
    res = tern_cli("run", str(tmp_path / "nope.toml"))
    assert res.returncode == 2
    assert "nope.toml: no such scenario file" in res.stderr
    res = tern_cli("run", str(tmp_path / "nope.toml"), "--seed", "minus one")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr


def test_python_api_errors_are_typed():
    with pytest.raises(tern.ScenarioError, match=r"links\[0\].rate: expected a data rate"):
        tern.run(P2P.replace('"10Mbps"', '"fast"'))
    with pytest.raises(TypeError, match="override values are strings"):
        tern.run(P2P, set={"links.access.rate": object()})
    bad_type = r"--set links.access.rate: invalid type: sequence, expected a data rate"
    with pytest.raises(tern.ScenarioError, match=bad_type):
        tern.run(P2P, set={"links.access.rate": [1, 2]})
    with pytest.raises(FileNotFoundError, match="no such scenario file"):
        tern.run("does-not-exist.toml")
    r = tern.run(P2P)
    with pytest.raises(KeyError, match="no trace 'cwnd' in this run"):
        r.series("cwnd")


def test_overrides_take_lists_and_tables():
    """A Python list is a TOML array and a mapping an inline table, as in the file."""
    r = tern.run(P2P, set={"record": ["rto"], "links.access.queue": {"kind": "codel"}})
    assert sorted(r.tables) == ["rto"]
    assert 'kind = "codel"' in r.scenario
    with pytest.raises(tern.ScenarioError, match=r"--set record\[0\]: unknown variant `nope`"):
        tern.run(P2P, set={"record": ["nope"]})


def test_scenario_errors_keep_their_parts(tmp_path):
    """The core's error reaches Python with file, line, key and message as attributes."""
    bad = tmp_path / "bad.toml"
    bad.write_text(P2P.replace('"10Mbps"', '"fast"'))
    with pytest.raises(tern.ScenarioError) as info:
        tern.run(bad)
    e = info.value
    assert (e.file, e.key) == (str(bad), "links[0].rate")
    assert P2P.splitlines()[e.line - 1].strip().startswith("rate")
    assert e.message.startswith("expected a data rate")
    assert str(e) == f"{e.file}:{e.line}: {e.key}: {e.message}"
    with pytest.raises(tern.ScenarioError) as info:
        tern.run(P2P, set={"links.access.rate": "fast"})
    assert (info.value.file, info.value.line, info.value.key) == (None, None, "links.access.rate")
    bad.write_bytes(b'[sim]\nduration = "1s\xff"\n')
    with pytest.raises(tern.ScenarioError) as info:
        tern.run(bad)
    assert (info.value.file, info.value.line) == (str(bad), 2)
