"""`tern validate` prints the scenario as the run will use it: 802.11's defaults written out
(rate control, width, spatial streams, guard interval, retry limit, A-MPDU limits; 802.11b's
rate and preamble), durations as the user spelled them, and a resolved scenario that runs the
same as the file it came from."""

from __future__ import annotations

import tomllib

import pytest

import tern
from conftest import EXAMPLES, tern_cli

BSS = """\
record = []

[sim]
duration = "60s"
seed = 1

[[nodes]]
name = "ap"
position = [0, 0, 0]

[[nodes]]
name = "sta"
position = [10, 0, 0]

[[wifi]]
name = "wlan"
ap = "ap"
stations = ["sta"]
standard = "{standard}"

[[flows]]
name = "up"
from = "sta"
to = "ap"
app = {{ kind = "cbr", rate = "1Mbps", size = "1000B" }}
transport = {{ kind = "udp" }}
"""


def _validated(tmp_path, standard: str) -> dict:
    path = tmp_path / f"{standard}.toml"
    path.write_text(BSS.format(standard=standard))
    res = tern_cli("validate", str(path))
    assert res.returncode == 0, res.stderr
    return tomllib.loads(res.stdout)


def test_80211n_defaults_are_shown(tmp_path):
    resolved = _validated(tmp_path, "802.11n")
    (wifi,) = resolved["wifi"]
    # The schema's documented defaults: 5 GHz, 20 MHz, 800 ns GI, one stream, Minstrel
    # (mac80211's minstrel_ht), 30 attempts per MPDU (ath9k's ATH_MAX_SW_RETRIES).
    assert wifi["band"] == "5GHz"
    assert wifi["width"] == 20
    assert wifi["guard_interval"] == "long"
    assert wifi["streams"] == 1
    assert wifi["rate_control"] == {"kind": "minstrel"}
    assert wifi["retry_limit"] == 30
    # A-MPDU: 64 MPDUs (the HT Block Ack window), 65 535 B, and the HT-mixed L-SIG limit of
    # 5484 us in 5 GHz (IEEE 802.11-2012 §20.3.9.3.4: L-SIG LENGTH <= 4095).
    assert wifi["ampdu"] == {"max_mpdus": 64, "max_bytes": 65535, "max_duration": "5484us"}
    # A duration keeps the user's spelling (not "1min").
    assert resolved["sim"]["duration"] == "60s"


def test_80211b_and_g_defaults_are_shown(tmp_path):
    (b,) = _validated(tmp_path, "802.11b")["wifi"]
    # 11 Mbit/s DSSS/CCK, the long PLCP preamble, dot11ShortRetryLimit 7 (IEEE 802.11-2020
    # Annex C).
    assert (b["rate"], b["preamble"], b["retry_limit"]) == ("11Mbps", "long", 7)
    assert "rate_control" not in b and "width" not in b
    (g,) = _validated(tmp_path, "802.11g")["wifi"]
    assert (g["rate_control"], g["retry_limit"]) == ({"kind": "minstrel"}, 7)
    assert "rate" not in g and "ampdu" not in g


def test_a_resolved_scenario_runs_the_same_as_its_file(tmp_path):
    scenario = EXAMPLES / "wifi-ht-upload.toml"
    sets = {"sim.duration": "3s", "record": "[]"}
    first = tern.run(scenario, set=sets)
    resolved = tern.validate(scenario, set=sets)
    assert tomllib.loads(resolved)["wifi"][0]["retry_limit"] == 30
    again = tern.run(text=resolved)
    assert again.summary == first.summary
    # And resolving it once more changes nothing.
    assert tern.validate(text=resolved) == resolved


@pytest.mark.parametrize("duration", ["60s", "90s", "1500ms", "2min"])
def test_validate_keeps_durations_in_seconds_or_as_written(tmp_path, duration):
    resolved = tomllib.loads(
        tern.validate(EXAMPLES / "p2p-bulk.toml", set={"sim.duration": duration})
    )
    shown = resolved["sim"]["duration"]
    assert "min" not in shown
    assert shown == {"60s": "60s", "90s": "90s", "1500ms": "1500ms", "2min": "120s"}[duration]
