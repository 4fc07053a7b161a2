//! Quantities with their units written out: `"20ms"`, `"10Mbps"`, `"1500B"`, `"100pkt"`.
//!
//! Numbers are parsed as exact decimals (no floating point), so `"1.2ms"` is
//! exactly 1 200 000 ns. Prefixes are SI (k = 10³, M = 10⁶, G = 10⁹) except the
//! binary byte prefixes KiB and MiB (2¹⁰, 2²⁰), as in IEC 80000-13.

use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Metadata, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::{Serialize, Serializer};
use std::fmt;
use tern_proto::time::SimTime;

/// Parses `"<decimal><unit>"` where the unit is one of `units` (name, multiplier),
/// returning `decimal * multiplier` exactly, or `None`.
fn parse_scaled(text: &str, units: &[(&str, u64)]) -> Option<u64> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = (&s[..split], s[split..].trim());
    let &(_, mult) = units.iter().find(|(name, _)| *name == unit)?;
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let int: u64 = if int_part.is_empty() {
        0
    } else {
        int_part.parse().ok()?
    };
    let mut value = int.checked_mul(mult)?;
    // Fractional digits: each must land on a whole multiple of the unit's base.
    let mut scale = mult;
    for c in frac_part.chars() {
        if !scale.is_multiple_of(10) {
            return None;
        }
        scale /= 10;
        value = value.checked_add(u64::from(c.to_digit(10)?) * scale)?;
    }
    Some(value)
}

/// Renders `value` (in base units) with the largest unit that divides it
/// exactly, so that parsing the result gives `value` back. Minutes are read but never
/// written: a resolved `"60s"` stays `"60s"`.
fn render_scaled(value: u64, units: &[(&str, u64)]) -> String {
    // Zero is a multiple of every unit: it is given in the first.
    if value == 0 {
        return format!("0{}", units[0].0);
    }
    // Among aliases of one multiplier ("kB"/"KB") the first listed wins.
    let (name, mult) = units
        .iter()
        .rev()
        .filter(|(n, m)| *n != "min" && *m > 0 && value.is_multiple_of(*m))
        .max_by_key(|(_, m)| *m)
        .copied()
        .unwrap_or(units[0]);
    format!("{}{}", value / mult, name)
}

fn string_schema(description: &str, pattern: &str) -> Schema {
    SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        metadata: Some(Box::new(Metadata {
            description: Some(description.to_owned()),
            ..Default::default()
        })),
        string: Some(Box::new(StringValidation {
            pattern: Some(pattern.to_owned()),
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

/// Declares a newtype quantity parsed from / rendered to a unit string.
macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident($inner:ty), $what:literal, $example:literal, $pattern:literal, $units:expr,
     wrap: $wrap:expr, unwrap: $unwrap:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub $inner);

        impl $name {
            const UNITS: &'static [(&'static str, u64)] = $units;

            /// Parses e.g. `
            #[doc = $example]
            /// `.
            pub fn parse(text: &str) -> Result<Self, String> {
                parse_scaled(text, Self::UNITS).map($wrap).ok_or_else(|| {
                    format!(concat!("expected ", $what, " like \"", $example, "\", got {:?}"), text)
                })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&render_scaled($unwrap(*self), Self::UNITS))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, concat!($what, " like \"", $example, "\""))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            concat!("expected ", $what, " with its unit written out, like \"", $example, "\", got {}"),
                            v
                        )))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            concat!("expected ", $what, " with its unit written out, like \"", $example, "\", got {}"),
                            v
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).to_owned()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                string_schema(concat!($what, ", e.g. \"", $example, "\""), $pattern)
            }
        }
    };
}

quantity!(
    /// A duration or an instant of simulated time (`"ns"`, `"us"`, `"ms"`, `"s"`, `"min"`).
    Duration(SimTime), "a duration", "20ms", r"^\s*[0-9]*\.?[0-9]+\s*(ns|us|ms|s|min)\s*$",
    &[("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000), ("min", 60_000_000_000)],
    wrap: |v| Duration(SimTime(v)), unwrap: |d: Duration| d.0 .0
);

quantity!(
    /// A data rate in bit/s (`"bps"`, `"kbps"`, `"Mbps"`, `"Gbps"`; SI prefixes), also as Tern's
    /// tables print it (`"10 Mbit/s"`) and in lower case (`"10mbps"`: megabits, as iperf and
    /// most tools read it, not the megabytes of Linux tc's `mbps`).
    DataRate(u64), "a data rate", "10Mbps",
    r"^\s*[0-9]*\.?[0-9]+\s*(bps|[kKmMgG]bps|bit/s|[kKMG]bit/s)\s*$",
    &[
        ("bps", 1), ("bit/s", 1),
        ("kbps", 1_000), ("Kbps", 1_000), ("kbit/s", 1_000), ("Kbit/s", 1_000),
        ("Mbps", 1_000_000), ("mbps", 1_000_000), ("Mbit/s", 1_000_000),
        ("Gbps", 1_000_000_000), ("gbps", 1_000_000_000), ("Gbit/s", 1_000_000_000),
    ],
    wrap: DataRate, unwrap: |r: DataRate| r.0
);

quantity!(
    /// A size in bytes (`"B"`, `"kB"`/`"KB"` = 1000 B, `"KiB"` = 1024 B, `"MB"`, `"MiB"`).
    Bytes(u64), "a size", "1500B", r"^\s*[0-9]*\.?[0-9]+\s*(B|kB|KB|KiB|MB|MiB|GB|GiB)\s*$",
    &[("B", 1), ("kB", 1_000), ("KB", 1_000), ("KiB", 1_024), ("MB", 1_000_000), ("MiB", 1_048_576), ("GB", 1_000_000_000), ("GiB", 1_073_741_824)],
    wrap: Bytes, unwrap: |b: Bytes| b.0
);

impl DataRate {
    /// Exact serialization time of `bytes` at this rate, rounded up to the next
    /// nanosecond: `ceil(bytes * 8 * 1e9 / rate)`. In 64-bit arithmetic when the product
    /// fits (any packet: up to 2.3 GB), which is the same value without the 128-bit
    /// division (a library call, 1.5 % of the wired runs' time).
    pub fn tx_time(self, bytes: u64) -> SimTime {
        let rate = self.0.max(1);
        match bytes.checked_mul(8 * 1_000_000_000) {
            Some(bits) => SimTime(bits.div_ceil(rate)),
            None => {
                let bits = u128::from(bytes) * 8 * 1_000_000_000;
                SimTime(bits.div_ceil(u128::from(rate)) as u64)
            }
        }
    }
}

/// A queue limit: a number of packets (`"100pkt"`) or of bytes (`"150000B"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl QueueLimit {
    const EXAMPLE: &'static str = "expected a queue limit like \"100pkt\" or \"150000B\"";

    pub fn parse(text: &str) -> Result<Self, String> {
        if let Some(n) = parse_scaled(text, &[("pkt", 1), ("pkts", 1), ("packets", 1)]) {
            return Ok(QueueLimit::Packets(n));
        }
        Bytes::parse(text)
            .map(|b| QueueLimit::Bytes(b.0))
            .map_err(|_| format!("{}, got {:?}", Self::EXAMPLE, text))
    }
}

impl fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueLimit::Packets(n) => write!(f, "{n}pkt"),
            QueueLimit::Bytes(b) => write!(f, "{}", Bytes(*b)),
        }
    }
}

impl Serialize for QueueLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = QueueLimit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a queue limit like \"100pkt\" or \"150000B\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QueueLimit, E> {
                QueueLimit::parse(v).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<QueueLimit, E> {
                Err(E::custom(format!(
                    "{} (unit written out), got {v}",
                    QueueLimit::EXAMPLE
                )))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for QueueLimit {
    fn schema_name() -> String {
        "QueueLimit".to_owned()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        string_schema(
            "a queue limit in packets or bytes, e.g. \"100pkt\" or \"150000B\"",
            r"^\s*[0-9]+\s*(pkt|pkts|packets|B|kB|KB|KiB|MB|MiB)\s*$",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_exact() {
        assert_eq!(Duration::parse("20ms").unwrap().0, SimTime(20_000_000));
        assert_eq!(Duration::parse("1.2ms").unwrap().0, SimTime(1_200_000));
        assert_eq!(Duration::parse("0.5s").unwrap().0, SimTime(500_000_000));
        assert_eq!(Duration::parse("2min").unwrap().0, SimTime::from_secs(120));
        assert_eq!(Duration::parse(" 7 us ").unwrap().0, SimTime(7_000));
        assert!(Duration::parse("1.5ns").is_err());
        assert!(Duration::parse("20").is_err());
        assert!(Duration::parse("ms").is_err());
        assert!(Duration::parse("-3s").is_err());
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(DataRate::parse("10Mbps").unwrap().0, 10_000_000);
        assert_eq!(DataRate::parse("384kbps").unwrap().0, 384_000);
        assert_eq!(DataRate::parse("1.5Gbps").unwrap().0, 1_500_000_000);
        // As Tern's tables print rates, and in lower case (megabits, SI: 10 × 10⁶ bit/s).
        assert_eq!(DataRate::parse("10 Mbit/s").unwrap().0, 10_000_000);
        assert_eq!(DataRate::parse("9.5 kbit/s").unwrap().0, 9_500);
        assert_eq!(DataRate::parse("10mbps").unwrap().0, 10_000_000);
        assert_eq!(DataRate::parse("2gbps").unwrap().0, 2_000_000_000);
        assert!(
            DataRate::parse("10 MBps").is_err(),
            "bytes per second is not a spelling"
        );
        assert_eq!(
            DataRate::parse("10 parsecs").unwrap_err(),
            "expected a data rate like \"10Mbps\", got \"10 parsecs\""
        );
        assert_eq!(Bytes::parse("64KiB").unwrap().0, 65_536);
        assert_eq!(Bytes::parse("1500B").unwrap().0, 1500);
        assert_eq!(
            QueueLimit::parse("100pkt").unwrap(),
            QueueLimit::Packets(100)
        );
        assert_eq!(
            QueueLimit::parse("15kB").unwrap(),
            QueueLimit::Bytes(15_000)
        );
    }

    #[test]
    fn rendering_round_trips() {
        for s in ["20ms", "1500ms", "3s", "7ns", "2min"] {
            let d = Duration::parse(s).unwrap();
            assert_eq!(Duration::parse(&d.to_string()).unwrap(), d);
        }
        assert_eq!(Duration::parse("1.5s").unwrap().to_string(), "1500ms");
        assert_eq!(Duration::parse("60s").unwrap().to_string(), "60s");
        assert_eq!(Duration::parse("2min").unwrap().to_string(), "120s");
        assert_eq!(DataRate(10_000_000).to_string(), "10Mbps");
        assert_eq!(DataRate(384_000).to_string(), "384kbps");
        assert_eq!(Bytes(65_536).to_string(), "64KiB");
    }

    #[test]
    fn serialization_time_is_size_times_8_over_rate() {
        // 1500 B at 10 Mbit/s: 12 000 bit / 1e7 bit/s = 1.2 ms.
        assert_eq!(DataRate(10_000_000).tx_time(1500), SimTime(1_200_000));
        // 1 B at 3 bit/s = 8/3 s, rounded up to the next ns.
        assert_eq!(DataRate(3).tx_time(1), SimTime(2_666_666_667));
        // Past 64-bit products: 10 GB at 1 Tbit/s = 8e10 bit / 1e12 bit/s = 80 ms.
        assert_eq!(
            DataRate(1_000_000_000_000).tx_time(10_000_000_000),
            SimTime(80_000_000)
        );
    }
}
