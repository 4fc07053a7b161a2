"""Writes the scenario and trace reference pages from their definitions.

The scenario reference comes from the JSON Schema the core prints (`tern schema`, the same
`schemars` derivation that reads scenario files), so every key, type, default, allowed value
and description is the one the code has. The trace reference comes from the trace record
definitions (`crates/tern-sim/src/trace/records.rs`: one `record!` per table, its fields the
table's columns in order, their doc comments the column descriptions) and the descriptions of
`record = [...]` kinds in the schema.

Used by the site's build hook (`docs/hooks.py`); also runnable alone:
`python docs/gen_reference.py OUT_DIR` writes `scenario.md` and `traces.md` there.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every slice declares its trace records in its own `records.rs` (the trace's own in
# trace/records.rs); the run gathers them (see docs/design.md, "Trace records").
RECORDS = sorted((ROOT / "crates/tern-sim/src").rglob("records.rs"))
SCHEMA_SOURCES = ROOT / "crates/tern-sim/src/scenario"
#: Each transport's settings are in its folder (transport/<kind>/spec.rs).
TRANSPORT_SOURCES = ROOT / "crates/tern-sim/src/transport"

# The string types that carry a unit, by schema definition name: what a value is written as.
UNIT_TYPES = {
    "Duration": ("duration", 'ns, us, ms, s or min: `"20ms"`'),
    "DataRate": ("data rate", 'bps, kbps, Mbps or Gbps: `"10Mbps"`'),
    "Bytes": ("size", 'B, kB, KiB, MB, MiB, GB or GiB: `"1500B"`'),
    "QueueLimit": ("queue limit", 'pkt or bytes: `"100pkt"`, `"150000B"`'),
}
# Units named in a number's description, most specific first.
NUMBER_UNITS = [
    (r"\bdBm\b", "dBm"),
    (r"\bdB\b", "dB"),
    (r"\bm/s\b", "m/s"),
    (r"\bmetres\b|\bin m\b", "m"),
    (r"\bMbit/s\b", "Mbit/s"),
    (r"\bprobability\b|^P\(", "probability"),
]
# What a description cites: standards, drafts, systems' sources, papers.
CITATION = re.compile(
    r"RFC \d+(?: §[\d.]+)?|draft-[a-z0-9-]+|TS \d+\.\d+(?: §[\d.]+)?|IEEE 802\.11[-\w]*"
    r"(?: Clause \d+)?|802\.11-\d+(?: [§\w.]+)?|ns-3(?:\.\d+)?(?:'s `\w+`)?|ns-2(?:\.\d+)?"
    r"|Linux(?: \d[\d.]*)?(?: `\w+`)?|ath9k|mac80211|minstrel_ht|Mininet-WiFi|XNU(?: \d+)?"
    r"|Windows(?: \d+)?|4\.4BSD(?:-Lite)?|FreeBSD(?: [\d.]+)?|Android|NIST|Bianchi"
    r"|the [\w-]+ study(?:, (?:Fig|Table|§)[^;).]*)?|paper(?: §[\d.]+| Fig\. \d+| Table \d+)?"
)


def _md(text: str) -> str:
    """A description as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _value(v: object) -> str:
    if v is None:
        return "—"
    if isinstance(v, str):
        return f'`"{v}"`'
    return f"`{json.dumps(v)}`"


def citations(text: str) -> str:
    found: list[str] = []
    for m in CITATION.finditer(text or ""):
        c = m.group(0).rstrip(" ,")
        if c not in found:
            found.append(c)
    return ", ".join(found) if found else "—"


@dataclass
class Row:
    key: str
    type: str
    unit: str
    default: str
    allowed: str
    required: bool
    description: str
    source: str


@dataclass
class Section:
    path: str
    title: str
    description: str
    definition: str
    rows: list[Row] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)


class Reference:
    """Walks the scenario schema from its root into one section per table of keys."""

    def __init__(self, schema: dict):
        self.schema = schema
        self.defs: dict = schema["definitions"]
        self.sections: list[Section] = []
        self._sources = _definition_sources()

    def ref(self, node: dict) -> tuple[str | None, dict]:
        """The definition a property points to (through `allOf`/`anyOf` with null), if any."""
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            return name, self.defs[name]
        for combo in ("allOf", "anyOf"):
            parts = [p for p in node.get(combo, []) if p.get("type") != "null"]
            if len(parts) == 1 and "$ref" in parts[0]:
                return self.ref(parts[0])
        return None, node

    def walk(self) -> list[Section]:
        root = self.schema
        self.table("", "Top level", root.get("description", ""), "Scenario", root)
        return self.sections

    def table(self, path: str, title: str, description: str, definition: str, node: dict):
        section = Section(path, title, description, definition)
        self.sections.append(section)
        required = set(node.get("required", []))
        nested: list[tuple[str, str | None, dict]] = []
        for key, prop in sorted(node.get("properties", {}).items()):
            row, child = self.row(key, prop, key in required)
            named = re.search(rf"`{key}` \(([^)]{{1,12}})\)", node.get("description", ""))
            if row.unit == "—" and named:
                row.unit = named.group(1)
            if child is not None:
                child_path, child_name, child_schema = child(path, key)
                link = f"[table](#{_anchor(child_path)})"
                row.type = row.type.replace("table", link, 1)
                nested.append((child_path, child_name, child_schema))
            section.rows.append(row)
        for child_path, name, schema in nested:
            self.descend(child_path, name, schema)

    def row(self, key: str, prop: dict, required: bool):
        name, target = self.ref(prop)
        description = prop.get("description") or target.get("description", "")
        nullable = self._nullable(prop)
        typ, unit, allowed = self.describe(name, target, prop)
        child = None
        if target.get("type") == "array" or prop.get("type") == "array":
            items = (target if target.get("type") == "array" else prop)["items"]
            iname, itarget = self.ref(items)
            ityp, iunit, iallowed = self.describe(iname, itarget, items)
            typ, unit, allowed = f"array of {ityp}", iunit, iallowed
            if self._is_table(itarget):
                child = lambda path, key, n=iname, t=itarget: (  # noqa: E731
                    f"{path}{'.' if path else ''}{key}[]",
                    n,
                    t,
                )
        elif self._is_table(target):
            child = lambda path, key, n=name, t=target: (  # noqa: E731
                f"{path}{'.' if path else ''}{key}",
                n,
                t,
            )
        if nullable and typ != "—":
            typ += " (optional)"
        default = (
            _value(prop["default"]) if "default" in prop else ("required" if required else "—")
        )
        return (
            Row(key, typ, unit, default, allowed, required, description, citations(description)),
            child,
        )

    def describe(self, name: str | None, target: dict, prop: dict) -> tuple[str, str, str]:
        """Type, unit and allowed values of a property's value."""
        desc = prop.get("description", "") or target.get("description", "")
        if name in UNIT_TYPES:
            kind, unit = UNIT_TYPES[name]
            return f"[{kind}](#units)", unit, "—"
        consts = self._consts(target)
        if consts is not None:
            return "string", "—", ", ".join(f'`"{c}"`' for c, _ in consts)
        if self._is_table(target):
            return "table", "—", "—"
        if "anyOf" in target and name:
            parts = []
            for p in target["anyOf"]:
                _, t = self.ref(p)
                if self._consts(t):
                    parts.append(", ".join(f'`"{c}"`' for c, _ in self._consts(t)))
                elif p.get("type"):
                    parts.append(p["type"] if isinstance(p["type"], str) else "/".join(p["type"]))
            return "one of", "—", "; ".join(parts)
        t = target.get("type", prop.get("type"))
        if isinstance(t, list):
            t = "/".join(x for x in t if x != "null")
        t = {"number": "number", "integer": "integer", "boolean": "boolean"}.get(t, t) or "—"
        unit = "—"
        if t in ("number", "integer"):
            for pattern, label in NUMBER_UNITS:
                if re.search(pattern, desc):
                    unit = label
                    break
        allowed = "—"
        if "minimum" in target and target["minimum"] != 0:
            allowed = f"≥ {target['minimum']:g}"
        return t, unit, allowed

    def descend(self, path: str, name: str | None, schema: dict):
        title = f"`{path}`"
        if "oneOf" in schema or "anyOf" in schema:
            variants = schema.get("oneOf") or schema.get("anyOf")
            forms = []
            for v in variants:
                _, v = self.ref(v)
                tag = v.get("properties", {}).get("kind", {}).get("enum")
                sub = f'{path}{{kind="{tag[0]}"}}' if tag else f"{path}{{{_keys(v)}}}"
                forms.append(f"[{_form(v)}](#{_anchor(sub)})" if v.get("properties") else _form(v))
            self.sections.append(
                Section(path, title, schema.get("description", ""), name or "", forms=forms)
            )
            for v in variants:
                _, v = self.ref(v)
                if not v.get("properties"):
                    continue
                tag = v["properties"].get("kind", {}).get("enum")
                label = f'{title}, `kind = "{tag[0]}"`' if tag else f"{title}, {_keys(v)}"
                subpath = f'{path}{{kind="{tag[0]}"}}' if tag else f"{path}{{{_keys(v)}}}"
                self.table(subpath, label, v.get("description", ""), name or "", v)
        else:
            self.table(path, title, schema.get("description", ""), name or "", schema)

    def source_of(self, definition: str) -> str:
        return self._sources.get(definition, "crates/tern-sim/src/scenario/schema.rs")

    def _consts(self, target: dict):
        if "enum" in target and target.get("type") == "string":
            return [(c, "") for c in target["enum"]]
        if "oneOf" in target and all(
            ("enum" in v or "const" in v) and not v.get("properties") for v in target["oneOf"]
        ):
            out = []
            for v in target["oneOf"]:
                for c in v.get("enum", [v.get("const")]):
                    out.append((c, v.get("description", "")))
            return out
        return None

    def _is_table(self, target: dict) -> bool:
        if target.get("properties"):
            return True
        variants = target.get("oneOf") or target.get("anyOf") or []
        return any(self.ref(v)[1].get("properties") for v in variants)

    @staticmethod
    def _nullable(prop: dict) -> bool:
        t = prop.get("type")
        return (isinstance(t, list) and "null" in t) or any(
            p.get("type") == "null" for p in prop.get("anyOf", [])
        )

    def enum_tables(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Every set of allowed values that has a description per value."""
        out = []
        for name, target in sorted(self.defs.items()):
            consts = self._consts(target)
            if consts and any(d for _, d in consts):
                out.append((name, consts))
        return out


def _form(v: dict) -> str:
    tag = v.get("properties", {}).get("kind", {}).get("enum")
    if tag:
        return f'`kind = "{tag[0]}"`'
    if v.get("properties"):
        return _keys(v)
    return f"`{v.get('enum', [v.get('const')])[0]}`"


def _keys(v: dict) -> str:
    return " + ".join(f"`{k}`" for k in sorted(v.get("properties", {})))


def _anchor(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _definition_sources() -> dict[str, str]:
    """Which file under the scenario module or a transport's folder defines each type."""
    out: dict[str, str] = {}
    paths = sorted(SCHEMA_SOURCES.rglob("*.rs")) + sorted(TRANSPORT_SOURCES.rglob("spec.rs"))
    for path in paths:
        text = path.read_text()
        for m in re.finditer(r"pub (?:struct|enum) (\w+)", text):
            out.setdefault(m.group(1), str(path.relative_to(ROOT)))
    return out


def profile_table(schema: dict) -> str:
    """The TCP host profiles: each profile's keys with their values and sources."""
    tcp = next(
        v
        for v in schema["definitions"]["TransportSpec"]["oneOf"]
        if v["properties"]["kind"]["enum"] == ["tcp"]
    )
    lines = []
    for p in tcp["properties"]["profile"]["oneOf"]:
        lines += [f'### Profile `"{p["const"]}"`', "", _md(p.get("description", "")), ""]
        lines += ["| key | value | source |", "|---|---|---|"]
        for key, kv in p.get("x-keys", {}).items():
            lines.append(f"| `{key}` | {_value(kv['value'])} | {_md(kv['source'])} |")
        lines.append("")
    return "\n".join(lines)


def scenario_page(schema: dict) -> str:
    ref = Reference(schema)
    sections = ref.walk()
    out = [
        "# Scenario reference",
        "",
        "Generated from the scenario format's JSON Schema (`tern schema`) when the site is built:",
        "every key a scenario file can hold, with its type, unit, default, allowed values and the",
        "standard or system its default follows. A key's path writes an array of tables as `[]`",
        'and a table that takes one of several forms by its `kind` as `{kind="…"}`. Unknown',
        "keys are refused. A default of — means the key is unset unless written (the",
        "description says what unset means); `tern validate FILE` prints a scenario with its",
        "defaults filled in.",
        "",
        "## Units",
        "",
        "Quantities are strings with their unit written out; numbers and unit may be spaced.",
        "",
        "| type | written as |",
        "|---|---|",
    ]
    for kind, unit in UNIT_TYPES.values():
        out.append(f"| {kind} | {unit} |")
    out.append("")
    for s in sections:
        anchor = _anchor(s.path or "top-level")
        out += [f"## {s.title} {{#{anchor}}}", ""]
        if s.description:
            out += [_md(s.description), ""]
        out += [f"Defined in `{ref.source_of(s.definition)}` (`{s.definition}`).", ""]
        if s.forms:
            out += ["One of these forms: " + ", ".join(s.forms) + ".", ""]
            continue
        out += [
            "| key | type | unit | default | allowed values | source | description |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in s.rows:
            out.append(
                f"| `{r.key}` | {r.type} | {r.unit} | {r.default} | {r.allowed} "
                f"| {_md(r.source)} | {_md(r.description)} |"
            )
        out.append("")
    out += ["## Allowed values", ""]
    for name, consts in ref.enum_tables():
        out += [f"### {name} {{#{_anchor(name)}}}", "", "| value | meaning |", "|---|---|"]
        out += [f'| `"{c}"` | {_md(d) or "—"} |' for c, d in consts]
        out.append("")
    out += [
        "## TCP host profiles",
        "",
        '`transport = { kind = "tcp", profile = "…" }` fills every key the flow does not write',
        "from the profile; a key written beside it wins.",
        "",
        profile_table(schema),
    ]
    return "\n".join(out)


# --- traces ---------------------------------------------------------------------------------

RUST_TYPES = {
    "SimTime": ("float", "s"),
    "u64": ("integer", "—"),
    "u32": ("integer", "—"),
    "f64": ("float", "—"),
    "bool": ("0/1", "—"),
    "&'a str": ("text", "—"),
}
COLUMN_UNITS = [
    (r"_bps$", "bit/s"),
    (r"_mbps$", "Mbit/s"),
    (r"_dbm$", "dBm"),
    (r"_db$", "dB"),
    (r"bytes|^size$|^cwnd$|^in_flight$|^ssthresh$|^mtu$|^len$", "bytes"),
    (r"^packets$|_packets$", "packets"),
]


# What the columns that many tables share hold (their record fields carry no doc comment).
COMMON_COLUMNS = {
    "time": "Simulated time of the row.",
    "flow": "The flow's name (`flows[].name`).",
    "endpoint": '"client" (the flow\'s `from` end) or "server" (its `to` end).',
    "link": "The link's name (`links[].name`).",
    "direction": '"forward" (`ends[0]` → `ends[1]`) or "reverse".',
    "bss": "The BSS's name (`wifi[].name`).",
    "from": "The sending node.",
    "to": "The receiving node.",
    "station": "The station's node.",
    "uid": "The packet's unique id within the run.",
    "seq": "The message's or segment's sequence number.",
    "size": "Bytes of the message or packet.",
}


@dataclass
class Column:
    name: str
    type: str
    unit: str
    nullable: bool
    doc: str


@dataclass
class Table:
    name: str
    doc: str
    columns: list[Column]


def trace_tables(text: str | None = None) -> list[Table]:
    """The trace tables as the slices' `records.rs` files declare them."""
    text = text if text is not None else "\n".join(p.read_text() for p in RECORDS)
    tables = []
    for m in re.finditer(
        r"record! \{\s*((?:///[^\n]*\n\s*)*)\w+(?:<'a>)? => \"(\w+)\" \{(.*?)\n    \}\n\}",
        text,
        re.S,
    ):
        doc = _doc(m.group(1))
        columns = []
        pending: list[str] = []
        for line in m.group(3).splitlines():
            line = line.strip()
            if line.startswith("///"):
                pending.append(line)
            elif ":" in line:
                name, ty = (x.strip() for x in line.rstrip(",").split(":", 1))
                nullable = ty.startswith("Option<")
                inner = ty[len("Option<") : -1] if nullable else ty
                kind, unit = RUST_TYPES[inner]
                if unit == "—":
                    for pattern, label in COLUMN_UNITS:
                        if re.search(pattern, name):
                            unit = label
                            break
                meaning = _doc("\n".join(pending)) or COMMON_COLUMNS.get(name, "")
                columns.append(Column(name, kind, unit, nullable, meaning))
                pending = []
        tables.append(Table(m.group(2), doc, columns))
    return tables


def _doc(block: str) -> str:
    lines = [ln.strip().removeprefix("///").strip() for ln in block.strip().splitlines()]
    text = " ".join(ln for ln in lines if ln)
    return re.sub(r"\[`([^`]+)`\]\([^)]*\)", r"`\1`", text)


def traces_page(schema: dict) -> str:
    kinds = {
        v["enum"][0]: v.get("description", "")
        for v in schema["definitions"]["RecordKind"]["oneOf"]
        if "enum" in v
    }
    tables = trace_tables()
    out = [
        "# Trace reference",
        "",
        "Generated from the trace record definitions (each slice's `records.rs` in",
        "`crates/tern-sim/src`) when the site is built. `record = [...]` in a scenario names the",
        "traces to write; each table is one Parquet file in the run's folder (`<table>.parquet`)",
        "and one frame from `Run.series(table)`. Times are seconds of simulated time (floats);",
        "flags are 0/1; a nullable column holds null where the value does not exist, never a",
        "sentinel.",
        "",
        "## Kinds of `record`",
        "",
        "| kind | what it records | tables |",
        "|---|---|---|",
    ]
    by_kind: dict[str, list[str]] = {}
    for t in tables:
        kind = t.name if t.name in kinds else t.name.split("_")[0]
        by_kind.setdefault(kind, []).append(t.name)
    for kind, desc in kinds.items():
        names = by_kind.get(kind, [])
        cells = ", ".join(f"[`{n}`](#{_anchor(n)})" for n in names) or "files (below)"
        out.append(f"| `{kind}` | {_md(desc)} | {cells} |")
    out.append("")
    for t in tables:
        out += [f"## `{t.name}` {{#{_anchor(t.name)}}}", "", _md(t.doc), ""]
        out += ["| column | type | unit | nullable | meaning |", "|---|---|---|---|---|"]
        for c in t.columns:
            out.append(
                f"| `{c.name}` | {c.type} | {c.unit} | {'yes' if c.nullable else 'no'} "
                f"| {_md(c.doc) or '—'} |"
            )
        out.append("")
    out += [
        "## Files rather than tables",
        "",
        "`pcap` writes `<link>.<direction>.pcap` per link direction (real IPv4/TCP/UDP/DCCP",
        "headers; QUIC datagrams with their real bytes) and, with QUIC flows, `tls-keys.log` in",
        "the NSS key log format. `qlog` writes `<flow>.<client|server>.sqlog` per QUIC endpoint",
        "(JSON-SEQ, simulated times, in the form qvis loads).",
        "",
    ]
    return "\n".join(out)


def load_schema() -> dict:
    from tern import _core

    return json.loads(_core.schema())


def pages() -> dict[str, str]:
    schema = load_schema()
    return {
        "reference/scenario.md": scenario_page(schema),
        "reference/traces.md": traces_page(schema),
    }


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    for name, text in pages().items():
        target = out / Path(name).name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        print(target)
