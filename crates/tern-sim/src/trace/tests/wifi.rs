//! The expected schemas and a sample row of 802.11's tables.

use super::{opt, req, t, Traces};
use crate::trace::Kind;
use crate::trace::Type::{Text, F64, U64};
use crate::wifi::records::{RetryOutRecord, RoamingRecord, RssiRecord, WifiRecord, WifiRxRecord};

/// Names, columns and kinds, in order, as the front end, the plots and the studies read
/// them.
pub(super) const EXPECTED: &[(&str, &[(&str, Kind)])] = &[
    (
        "wifi",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("from", req(Text)),
            ("to", req(Text)),
            ("kind", req(Text)),
            ("rate_mbps", req(F64)),
            ("mcs", opt(F64)),
            ("mpdus", req(U64)),
            ("acked", req(U64)),
            ("collision", req(U64)),
            ("snr_db", req(F64)),
            ("probe", req(U64)),
            ("dropped", req(U64)),
            ("series_end", req(U64)),
        ],
    ),
    (
        "wifi_rx",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("from", req(Text)),
            ("to", req(Text)),
            ("sn", req(U64)),
            ("sn_read", req(U64)),
            ("fcs_ok", req(U64)),
            ("rate_mbps", req(F64)),
        ],
    ),
    (
        "retry_out",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("station", req(Text)),
            ("sn", req(U64)),
            ("failures", req(U64)),
            ("index", req(U64)),
            ("ewma_mbps", req(F64)),
        ],
    ),
    (
        "roaming",
        &[
            ("time", req(F64)),
            ("station", req(Text)),
            ("event", req(Text)),
            ("from_bss", req(Text)),
            ("to_bss", req(Text)),
            ("rssi_dbm", req(F64)),
        ],
    ),
    (
        "rssi",
        &[
            ("time", req(F64)),
            ("station", req(Text)),
            ("bss", req(Text)),
            ("rssi_dbm", req(F64)),
            ("associated", req(U64)),
        ],
    ),
];

/// Row `i` of each of these tables, with nulls and several labels along the way.
pub(super) fn record(traces: &mut Traces, i: u64) {
    let odd = i % 2 == 1;
    let now = t(i);
    traces.record(&WifiRecord {
        time: now,
        bss: "wlan",
        from: "sta",
        to: "ap",
        kind: "ampdu",
        rate_mbps: 65.0,
        mcs: (!odd).then_some(7.0),
        mpdus: 32,
        acked: 31,
        collision: odd,
        snr_db: -0.5,
        probe: !odd,
        dropped: 1,
        series_end: odd,
    });
    traces.record(&WifiRxRecord {
        time: now,
        bss: "wlan",
        from: "sta",
        to: "ap",
        sn: 4095,
        sn_read: if odd { 4094 } else { 4095 },
        fcs_ok: !odd,
        rate_mbps: 65.0,
    });
    traces.record(&RetryOutRecord {
        time: now,
        bss: "wlan",
        station: "sta",
        sn: 4095,
        failures: 3,
        index: 2,
        ewma_mbps: 13.0,
    });
    traces.record(&RoamingRecord {
        time: now,
        station: "sta",
        event: "joined",
        from_bss: "a",
        to_bss: "b",
        rssi_dbm: -71.25,
    });
    traces.record(&RssiRecord {
        time: now,
        station: "sta",
        bss: "a",
        rssi_dbm: f64::NEG_INFINITY,
        associated: odd,
    });
}
