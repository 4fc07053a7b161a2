"""Named TCP host profiles: `tern validate` prints the values a profile resolved to (and
keeps its name), `tern schema` lists every profile with its keys and their sources, and a
bad name is refused by file, line and key with the valid names."""

from __future__ import annotations

import json
import tomllib

from conftest import P2P, tern_cli

PROFILES = [
    "rfc",
    "linux-3.13",
    "linux-6",
    "android",
    "windows10-1607",
    "macos-10.11",
    "freebsd-2.2.8",
    "4.4bsd-lite",
    "ns3",
]


def _bulk(transport: str) -> str:
    body = P2P.replace(
        'app = { kind = "cbr", rate = "2Mbps", size = "1000B" }', 'app = { kind = "bulk" }'
    )
    return body + f'transport = {{ kind = "tcp", {transport} }}\n'


def test_validate_prints_the_resolved_profile(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(_bulk('profile = "android", min_rto = "1s"'))
    res = tern_cli("validate", str(path))
    assert res.returncode == 0, res.stderr
    text = res.stdout[res.stdout.index("#") :]
    tcp = tomllib.loads(text)["flows"][0]["transport"]
    assert tcp["profile"] == "android"
    assert tcp["min_rto"] == "1s"  # written: overrides the profile's 200 ms
    assert tcp["max_rto"] == "120s"  # Linux's TCP_RTO_MAX, from the profile
    assert tcp["cc"] == "cubic"
    assert tcp["spurious_rto_response"] == "linux_undo"
    assert tcp["send_buffer"] == "1MiB"  # Android's LTE tcp_wmem maximum
    # The resolved scenario validates again to the same thing.
    again = tmp_path / "again.toml"
    again.write_text(text)
    res2 = tern_cli("validate", str(again))
    assert res2.returncode == 0, res2.stderr
    assert tomllib.loads(res2.stdout[res2.stdout.index("#") :])["flows"][0]["transport"] == tcp


def test_schema_lists_profiles_with_sources():
    res = tern_cli("schema")
    assert res.returncode == 0, res.stderr
    schema = json.loads(res.stdout)
    text = json.dumps(schema)
    assert '"x-keys"' in text
    found = {}

    def walk(node):
        if isinstance(node, dict):
            if "const" in node and "x-keys" in node:
                found[node["const"]] = node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    assert sorted(found) == sorted(PROFILES)
    for name, entry in found.items():
        assert entry["description"], name
        assert entry["x-keys"], name
        for key, spec in entry["x-keys"].items():
            assert spec["source"].strip(), (name, key)
            assert "value" in spec, (name, key)
    assert found["linux-3.13"]["x-keys"]["tsq"]["value"] == "128KiB"
    assert "TCP_RTO_MIN" in found["linux-6"]["x-keys"]["min_rto"]["source"]


def test_a_bad_profile_name_is_refused_by_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(_bulk('profile = "android-14"'))
    res = tern_cli("validate", str(path))
    assert res.returncode == 2
    assert "bad.toml:25: flows[0].transport.profile: unknown TCP profile `android-14`" in res.stderr
    for name in PROFILES:
        assert f"`{name}`" in res.stderr
    assert "Traceback" not in res.stderr
