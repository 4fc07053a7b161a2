"""Time series of the event traces: the mpquic-rssi scheduler's path statuses (`path_status`)
as bands, ConnectionSwitcher events (`switcher`), handovers and roams (`handovers`,
`roaming`) as rows of ticks, the AP's retry-out declarations (`retry_out`), each 802.11 MPDU
received (`wifi_rx`) and each RLC SDU's delay (`rlc_sdu`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from tern._plotbase import Line, Panel, _duration, _groups, _steps, _table
from tern.runner import Run


def _bands(label: str, t: np.ndarray, codes: list[int], end: float) -> Line:
    """A band line: state `codes[i]` from `t[i]` to the next change, the last to `end`."""
    x = np.append(t, max(end, float(t[-1]) if len(t) else 0.0))
    y = np.array([*codes, codes[-1] if codes else 0], dtype=float)
    return Line(label, x, y, "bands")


def path_status(run: Run, _bin: float | None) -> Panel:
    """Each path's status (draft-ietf-quic-multipath-21 §3.3, PATH_STATUS_AVAILABLE /
    PATH_STATUS_BACKUP) as the RSSI-threshold scheduler set it: one band per flow and path,
    coloured by status, from the first class change to the end of the run."""
    frame = run.series("path_status")
    states: list[str] = []

    def code(s: str) -> int:
        if s not in states:
            states.append(s)
        return states.index(s)

    lines = []
    for (flow,), g in _groups(frame, ["flow"]):
        t = g["time"].to_numpy()
        for path, column in (("Wi-Fi", "wifi_new"), ("cellular", "cell_new")):
            codes = [code(s) for s in g[column].to_list()]
            lines.append(_bands(f"{flow}: {path}", t, codes, _duration(run)))
    return Panel(
        "path_status",
        "Multipath QUIC path status (RSSI-threshold scheduler)",
        "path",
        lines,
        rows=[line.label for line in lines],
        states=states,
    )


def _event_rows(what: str, title: str, named: list[tuple[str, np.ndarray]]) -> Panel:
    """One row of ticks per (label, times), in the order given."""
    lines = [
        Line(label, t, np.full(len(t), float(i)), "events") for i, (label, t) in enumerate(named)
    ]
    return Panel(what, title, "", lines, rows=[label for label, _ in named])


def switcher(run: Run, _bin: float | None) -> Panel:
    """The ConnectionSwitcher's events per flow (notice sent and received, with the decision
    a received notice led to; switches), one row each."""
    frame = run.series("switcher").with_columns(
        pl.when(pl.col("decision").is_not_null())
        .then(pl.col("event") + ": " + pl.col("decision"))
        .otherwise(pl.col("event"))
        .alias("what")
    )
    named = [
        (f"{flow}: {what}", g["time"].to_numpy())
        for (flow, what), g in _groups(frame, ["flow", "what"])
    ]
    return _event_rows("switcher", "ConnectionSwitcher events", named)


def events(run: Run, _bin: float | None) -> Panel:
    """Cellular handovers completed (per link) and 802.11 stations leaving and joining APs."""
    named = []
    handovers = _table(run, "handovers")
    if handovers is not None:
        named += [
            (f"{link}: handover", g["time"].to_numpy())
            for (link,), g in _groups(handovers, ["link"])
        ]
    roaming = _table(run, "roaming")
    if roaming is not None:
        named += [
            (f"{station}: {event}", g["time"].to_numpy())
            for (station, event), g in _groups(roaming, ["station", "event"])
        ]
    return _event_rows("events", "Handovers and roaming", named)


def retry_out(run: Run, _bin: float | None) -> Panel:
    """Each MPDU the AP's retry-out index declared lost, at its count of bad-FCS receptions,
    and the index in force (the wlan-bufferbloat study's AP-side countermeasure)."""
    lines = []
    for (bss, station), g in _groups(run.series("retry_out"), ["bss", "station"]):
        t = g["time"].to_numpy()
        failures = g["failures"].cast(pl.Float64).to_numpy()
        lines.append(Line(f"{bss}: {station}, MPDU declared lost", t, failures, "markers"))
        index = g["index"].cast(pl.Float64).to_numpy()
        lines.append(_steps(f"{bss}: {station}, index in force", t, index, _duration(run)))
    return Panel(
        "retry_out", "802.11 AP retry-out: MPDUs declared lost", "bad-FCS receptions", lines
    )


def wifi_rx(run: Run, _bin: float | None) -> Panel:
    """The sequence number (IEEE 802.11-2020 §9.2.4.4.2, modulo 4096) of every MPDU a
    receiver's PHY passed up, a good FCS apart from a bad one."""
    lines = []
    for (bss, src, dst), g in _groups(run.series("wifi_rx"), ["bss", "from", "to"]):
        for ok, outcome in ((1, "good FCS"), (0, "bad FCS")):
            rows = g.filter(pl.col("fcs_ok") == ok)
            if rows.height:
                sn = rows["sn"].cast(pl.Float64).to_numpy()
                lines.append(
                    Line(f"{bss}: {src} → {dst}, {outcome}", rows["time"].to_numpy(), sn, "markers")
                )
    return Panel("wifi_rx", "802.11 MPDUs received", "sequence number", lines)


def rlc_sdu(run: Run, _bin: float | None) -> Panel:
    """Each SDU's delay across RLC AM (3GPP TS 25.322: segmentation to reassembly, with its
    retransmissions), at the time it was reassembled."""
    lines = [
        Line(f"{link} {direction}", g["time"].to_numpy(), g["delay"].to_numpy() * 1e3, "points")
        for (link, direction), g in _groups(run.series("rlc_sdu"), ["link", "direction"])
    ]
    return Panel("rlc_sdu", "RLC SDU delay (x: reassembly time)", "RLC delay (ms)", lines)
