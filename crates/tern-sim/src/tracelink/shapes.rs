//! Delivery traces from a rate over time: a `(time, rate)` file and the synthetic shapes
//! papers use (on/off, square wave, random walk), each a piecewise-constant rate turned
//! into opportunities as mahimahi users turn a rate into a trace file: an opportunity at
//! millisecond `m` for each whole opportunity's worth of bits the rate has delivered by `m`
//! and had not by `m − 1` ([`opportunities`]).

use super::DeliveryTrace;
use crate::engine::{RngStream, SimTime};
use crate::scenario::units::{DataRate, Duration};

/// The longest generated trace (a day) and the most opportunities one may hold (160 MB of
/// instants): a scenario asking for more is refused rather than left to run out of memory.
const MAX_LENGTH_MS: u64 = 86_400_000;
const MAX_OPPORTUNITIES: usize = 20_000_000;
/// The most steps of a random walk.
const MAX_WALK_STEPS: u64 = 1_000_000;

/// The opportunities of a piecewise-constant rate: `steps[i].1` bit/s from `steps[i].0`
/// (the first at zero, in order) to the next step, over `length` (whole milliseconds),
/// then repeating. With `W(t) = ∫₀ᵗ rate` and `b = opportunity · 8` bits, millisecond `m`
/// (1 ≤ m ≤ length) gets `⌊W(m)/b⌋ − ⌊W(m−1)/b⌋` opportunities, all in integers (bit·ns),
/// so a constant rate's opportunities are spread as evenly as whole milliseconds allow
/// and a period carries `⌊W(length)/b⌋` of them.
pub fn opportunities(
    steps: &[(SimTime, u64)],
    length: SimTime,
    opportunity: u32,
) -> Result<DeliveryTrace, String> {
    if length.0 == 0 || !length.0.is_multiple_of(1_000_000) {
        return Err(format!(
            "a trace lasts a whole number of milliseconds above zero, got {}",
            Duration(length)
        ));
    }
    if opportunity == 0 {
        return Err("an opportunity carries at least one byte".into());
    }
    if length.0 / 1_000_000 > MAX_LENGTH_MS {
        return Err(format!(
            "a generated trace lasts at most a day, got {}",
            Duration(length)
        ));
    }
    let per = u128::from(opportunity) * 8 * 1_000_000_000;
    let mut times_ms = Vec::new();
    let mut work: u128 = 0;
    let mut done: u128 = 0;
    let mut i = 0;
    let ms_count = length.0 / 1_000_000;
    for m in 1..=ms_count {
        // Integrate the rate over (m−1, m] ms, step by step.
        let (from, to) = ((m - 1) * 1_000_000, m * 1_000_000);
        let mut t = from;
        while t < to {
            while i + 1 < steps.len() && steps[i + 1].0 .0 <= t {
                i += 1;
            }
            // Above `t`: the loop above passed every step at or before it.
            let next = steps.get(i + 1).map_or(to, |s| s.0 .0.min(to));
            work += u128::from(steps[i].1) * u128::from(next - t);
            t = next;
        }
        let total = work / per;
        if total > MAX_OPPORTUNITIES as u128 {
            return Err(format!(
                "more than {MAX_OPPORTUNITIES} opportunities: a rate too high for the trace's length"
            ));
        }
        for _ in done..total {
            times_ms.push(m);
        }
        done = total;
    }
    if times_ms.is_empty() {
        return Err(format!(
            "the rate gives no opportunity of {opportunity} B in {}",
            Duration(length)
        ));
    }
    Ok(DeliveryTrace {
        times_ms,
        period_ms: ms_count,
        opportunity,
    })
}

/// Reads a rate over time: lines `seconds,rate`, the rate with a unit (`12Mbps`) or a bare
/// number in bit/s; blank lines and `#` comments skipped. The first time is 0, times
/// increase, and the last line's time is the length (its rate unused). Errors give the
/// 1-based line.
#[allow(clippy::type_complexity)]
pub fn parse_rate(text: &str) -> Result<(Vec<(SimTime, u64)>, SimTime), (Option<usize>, String)> {
    let mut steps: Vec<(SimTime, u64)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |m: String| (Some(i + 1), m);
        let Some((t, r)) = line.split_once(',') else {
            return Err(at(format!("expected `seconds,rate`, got {line:?}")));
        };
        let time = Duration::parse(&format!("{}s", t.trim()))
            .map_err(|_| at(format!("expected a time in seconds, got {:?}", t.trim())))?;
        let r = r.trim();
        let rate = match r.parse::<u64>() {
            Ok(bps) => bps,
            Err(_) => DataRate::parse(r).map_err(at)?.0,
        };
        match steps.last() {
            None if time.0 .0 != 0 => return Err(at("the first line is at time 0".into())),
            Some(last) if time.0 <= last.0 => {
                return Err(at("times must increase from line to line".into()))
            }
            _ => {}
        }
        steps.push((time.0, rate));
    }
    match steps.pop() {
        Some((length, _)) if !steps.is_empty() => Ok((steps, length)),
        _ => Err((
            None,
            "expected at least two lines (the last gives the length)".into(),
        )),
    }
}

/// A random walk of rates: `start`, then every `every` one `step` up or down with equal
/// probability (one draw of `rng` per step), held within `[min, max]`, until `length`.
/// `(start, step, min, max)` in bit/s.
pub fn random_walk(
    rng: &mut RngStream,
    (start, step, min, max): (u64, u64, u64, u64),
    every: SimTime,
    length: SimTime,
) -> Result<Vec<(SimTime, u64)>, String> {
    if every.0 == 0 {
        return Err("`every` is above zero".into());
    }
    if !(min <= start && start <= max) {
        return Err("expected min ≤ start ≤ max".into());
    }
    if length.0 / every.0 > MAX_WALK_STEPS {
        return Err(format!(
            "at most {MAX_WALK_STEPS} steps (`length` / `every`)"
        ));
    }
    let mut steps = vec![(SimTime::ZERO, start)];
    let mut rate = start;
    let mut at = every;
    while at < length {
        rate = if rng.bernoulli(0.5) {
            rate.saturating_add(step).min(max)
        } else {
            rate.saturating_sub(step).max(min)
        };
        steps.push((at, rate));
        at += every;
    }
    Ok(steps)
}
