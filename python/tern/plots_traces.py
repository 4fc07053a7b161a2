"""Time series of the traces beyond TCP's and the queues': QUIC's congestion window and RTT,
TCP's time-sequence graph and acknowledged throughput (from `segments`), 802.11's rates,
failed MPDUs and A-MPDU sizes (`wifi`), TFRC's rates, beacon RSSI, RLC buffers, and the
handover and roaming instants every time plot marks.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from tern._plotbase import Line, Panel, _duration, _groups, _steps, _table, throughput_bins
from tern.runner import Run


def quic_lines(run: Run, column: str, scale: float) -> list[Line]:
    """One step line per QUIC flow, endpoint (and path, for multipath) of a `quic` column."""
    frame = _table(run, "quic")
    if frame is None or frame.is_empty() or column not in frame.columns:
        return []
    multipath = frame["path"].n_unique() > 1
    lines = []
    for (flow, endpoint, path), g in _groups(frame, ["flow", "endpoint", "path"]):
        where = f"{endpoint}, path {path}" if multipath else endpoint
        values = g[column].cast(pl.Float64).to_numpy() * scale
        lines.append(
            _steps(f"{flow} ({where}, QUIC)", g["time"].to_numpy(), values, _duration(run))
        )
    return lines


def _data_and_acks(run: Run) -> list[tuple[str, str, pl.DataFrame, pl.DataFrame]]:
    """Per TCP flow and sending endpoint that sent data: (flow, endpoint, its data segments,
    the peer's segments carrying acknowledgments)."""
    frame = run.series("segments")
    out = []
    for (flow,), g in _groups(frame, ["flow"]):
        for endpoint in g["endpoint"].unique(maintain_order=True).to_list():
            data = g.filter((pl.col("endpoint") == endpoint) & (pl.col("len") > 0))
            if data.is_empty():
                continue
            acks = g.filter((pl.col("endpoint") != endpoint) & pl.col("ack").is_not_null())
            out.append((flow, endpoint, data, acks))
    return out


def tseq(run: Run, _bin: float | None) -> Panel:
    """The time-sequence graph (Jacobson 1988; tcptrace's): each data segment's last byte
    at its send time, retransmissions apart, and the peer's cumulative ACK as a step line."""
    lines = []
    for flow, endpoint, data, acks in _data_and_acks(run):
        new = data.filter(pl.col("retransmission") == 0)
        again = data.filter(pl.col("retransmission") != 0)
        top = lambda d: (d["seq"] + d["len"]).cast(pl.Float64).to_numpy() / 1e6  # noqa: E731
        lines.append(
            Line(f"{flow} ({endpoint}): segments", new["time"].to_numpy(), top(new), "markers")
        )
        if again.height:
            lines.append(
                Line(
                    f"{flow} ({endpoint}): retransmitted",
                    again["time"].to_numpy(),
                    top(again),
                    "markers",
                )
            )
        if acks.height:
            ack = np.maximum.accumulate(acks["ack"].cast(pl.Float64).to_numpy()) / 1e6
            lines.append(
                _steps(f"{flow}: ACK from the peer", acks["time"].to_numpy(), ack, _duration(run))
            )
    return Panel("tseq", "TCP time-sequence graph", "sequence offset (MB)", lines)


def acked_throughput(run: Run, bin_s: float) -> list[Line]:
    """Per TCP flow and sender: the bytes its peer's cumulative ACK newly covers, per bin, as
    a rate (what the receiving TCP took in order; the application reads the same bytes)."""
    duration = _duration(run)
    lines = []
    for flow, endpoint, _, acks in _data_and_acks(run):
        if acks.is_empty():
            continue
        ack = np.maximum.accumulate(acks["ack"].cast(pl.Float64).to_numpy())
        step = np.diff(ack, prepend=ack[0])
        edges, rate = throughput_bins(acks["time"].to_numpy(), step, duration, bin_s)
        lines.append(
            Line(
                f"{flow} (from {endpoint}, acknowledged)",
                edges,
                np.append(rate, rate[-1]) / 1e6,
                "steps",
            )
        )
    return lines


def _air(run: Run) -> list[tuple[tuple, pl.DataFrame]]:
    """The `wifi` trace's PPDUs that carry data, per BSS and sender → receiver."""
    frame = run.series("wifi").filter(pl.col("kind") != "bar")
    return _groups(frame, ["bss", "from", "to"])


def wifi_rate(run: Run, _bin: float | None) -> Panel:
    """The MCS (802.11n) or the PHY rate (802.11a/b/g) of every data PPDU; the rate
    control's probes (Minstrel's samples) as a line of their own per sender."""
    frame = run.series("wifi")
    ht = frame["mcs"].drop_nulls().len() > 0
    column, ylabel = ("mcs", "MCS index") if ht else ("rate_mbps", "PHY rate (Mbit/s)")
    lines = []
    for (bss, src, dst), g in _air(run):
        for probe, suffix in ((False, ""), (True, " (probes)")):
            part = g.filter(pl.col("probe").cast(pl.Boolean) == probe)
            if part.height or not probe:
                x, y = part["time"].to_numpy(), part[column].cast(pl.Float64).to_numpy()
                lines.append(Line(f"{bss}: {src} → {dst}{suffix}", x, y, "markers"))
    return Panel("mcs", "802.11 rate of each data PPDU (rate control)", ylabel, lines)


def wifi_retries(run: Run, _bin: float | None) -> Panel:
    """Cumulative MPDUs sent and not acknowledged: each is retried, or dropped at the retry
    limit (IEEE 802.11-2020 §10.23.2.12)."""
    lines = []
    for (bss, src, dst), g in _air(run):
        failed = (g["mpdus"].cast(pl.Int64) - g["acked"].cast(pl.Int64)).to_numpy()
        t = np.concatenate([[0.0], g["time"].to_numpy()])
        n = np.concatenate([[0.0], np.cumsum(failed, dtype=float)])
        lines.append(_steps(f"{bss}: {src} → {dst}", t, n, _duration(run)))
    return Panel(
        "retries", "802.11 MPDUs not acknowledged (to retry or drop)", "MPDUs (cumulative)", lines
    )


def wifi_ampdu(run: Run, _bin: float | None) -> Panel:
    """MPDUs per data PPDU: the A-MPDU's size (1 for a lone MPDU)."""
    lines = [
        Line(
            f"{bss}: {src} → {dst}",
            g["time"].to_numpy(),
            g["mpdus"].cast(pl.Float64).to_numpy(),
            "markers",
        )
        for (bss, src, dst), g in _air(run)
    ]
    return Panel("ampdu", "802.11 A-MPDU size of each data PPDU", "MPDUs per PPDU", lines)


def tfrc(run: Run, _bin: float | None) -> Panel:
    """The TFRC sender's allowed rate X and the receive rate X_recv it was told (RFC 5348 §4.3)."""
    lines = []
    for (flow,), g in _groups(run.series("tfrc"), ["flow"]):
        t = g["time"].to_numpy()
        lines.append(
            _steps(f"{flow}: allowed rate X", t, g["x_bps"].to_numpy() / 1e6, _duration(run))
        )
        lines.append(_steps(f"{flow}: X_recv", t, g["x_recv_bps"].to_numpy() / 1e6, _duration(run)))
    return Panel("tfrc", "TFRC rates (RFC 5348)", "rate (Mbit/s)", lines)


def rssi(run: Run, _bin: float | None) -> Panel:
    """Each AP's beacon RSSI at each of its stations."""
    lines = [
        Line(f"{station} ← {bss}", g["time"].to_numpy(), g["rssi_dbm"].to_numpy())
        for (station, bss), g in _groups(run.series("rssi"), ["station", "bss"])
    ]
    return Panel("rssi", "802.11 beacon RSSI", "RSSI (dBm)", lines, zero_based=False)


def rlc(run: Run, _bin: float | None) -> Panel:
    """The RLC AM sender's buffer per link direction (3GPP TS 25.322)."""
    lines = [
        _steps(
            f"{link} {direction}",
            g["time"].to_numpy(),
            g["buffer_bytes"].cast(pl.Float64).to_numpy() / 1e3,
            _duration(run),
        )
        for (link, direction), g in _groups(run.series("rlc"), ["link", "direction"])
    ]
    return Panel("rlc", "RLC sender buffer", "buffer (kB)", lines)


def markers(run: Run) -> list[tuple[str, np.ndarray]]:
    """Instants every time plot marks: cellular handovers (`handovers`), and 802.11 stations
    leaving and joining APs (`roaming`), by label."""
    marks = []
    handovers = _table(run, "handovers")
    if handovers is not None and handovers.height:
        marks.append(("handover", handovers["time"].to_numpy()))
    roaming = _table(run, "roaming")
    if roaming is not None and roaming.height:
        for (event,), g in _groups(roaming, ["event"]):
            marks.append((f"roaming: {event}", g["time"].to_numpy()))
    return marks
