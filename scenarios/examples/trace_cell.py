"""The trace-driven cellular example from Python: the scenario file as it is, then its
downlink replaced by a synthetic square wave (12 Mbit/s and 3 Mbit/s, 2 s each) and by a
random walk drawn from the run's seed; run from the repository root."""

import tern

path = "scenarios/examples/trace-cell.toml"
shapes = {
    "file": None,
    "square": {"kind": "square", "high": "12Mbps", "low": "3Mbps", "period": "4s"},
    "walk": {
        "kind": "random-walk",
        "start": "8Mbps",
        "step": "1Mbps",
        "every": "200ms",
        "min": "1Mbps",
        "max": "16Mbps",
        "length": "30s",
    },
}
for name, shape in shapes.items():
    overrides = {} if shape is None else {"links.cell.reverse.trace": shape}
    r = tern.run(path, seed=2, set=overrides)
    mbps = r.summary["flows"]["download"]["goodput_bps"] / 1e6
    print(f"{name:7} download {mbps:.2f} Mbit/s")
