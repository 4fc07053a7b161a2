//! Node positions over time.
//!
//! A node either stays put ([`Mobility::Static`]), moves in a straight line at
//! a constant velocity from some instant on ([`Mobility::ConstantVelocity`]),
//! or follows a piecewise-linear path through timed waypoints
//! ([`Mobility::Waypoints`]). "Stay 3 s at the AP, then walk away at 10 m/s for
//! 100 m" is the waypoint list (0 s, p₀), (3 s, p₀), (13 s, p₀ + 100 m), which
//! [`Mobility::from_legs`] builds from `[Leg::Pause(3 s), Leg::Walk { .. }]`.
//!
//! Positions are pure functions of time computed with IEEE-754 basic
//! operations (plus `libm::sqrt` and `libm::round`), so they are bit-identical
//! on every machine. Waypoint instants are integer nanoseconds ([`SimTime`]).

use crate::engine::SimTime;

/// A point in space, in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}, {}] m", self.x, self.y, self.z)
    }
}

impl Position {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Position { x, y, z }
    }

    /// Euclidean distance to `other`, in metres.
    pub fn distance(&self, other: &Position) -> f64 {
        let (dx, dy, dz) = (other.x - self.x, other.y - self.y, other.z - self.z);
        libm::sqrt(dx * dx + dy * dy + dz * dz)
    }

    fn is_finite(&self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }

    /// `self + (other − self)·s`: exactly `self` at `s = 0`.
    fn lerp(&self, other: &Position, s: f64) -> Position {
        Position {
            x: self.x + (other.x - self.x) * s,
            y: self.y + (other.y - self.y) * s,
            z: self.z + (other.z - self.z) * s,
        }
    }
}

/// Where a node is at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waypoint {
    pub at: SimTime,
    pub pos: Position,
}

/// One step of a path for [`Mobility::from_legs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leg {
    /// Stay where the previous leg ended for this long.
    Pause(SimTime),
    /// Walk in a straight line to `to` at `speed` metres per second.
    Walk { to: Position, speed: f64 },
}

/// How a node's position changes with time.
#[derive(Clone, Debug, PartialEq)]
pub enum Mobility {
    /// Never moves.
    Static(Position),
    /// At `start` until `from`, then moving at `velocity` (m/s along x, y, z).
    ConstantVelocity {
        start: Position,
        velocity: (f64, f64, f64),
        from: SimTime,
    },
    /// Linear interpolation between consecutive waypoints; at the first
    /// waypoint before it and at the last one after it. Times must be strictly
    /// increasing (see [`Mobility::validate`]).
    Waypoints(Vec<Waypoint>),
}

impl Mobility {
    /// Waypoints for a path that starts at `start` at time zero and follows
    /// `legs` in order.
    ///
    /// A walk takes `distance / speed` seconds, rounded to the nearest
    /// nanosecond (`libm::round`, halves away from zero); each leg starts when
    /// the previous one ends, so rounding never accumulates beyond 0.5 ns per
    /// leg. Legs that neither take time nor move (a zero pause, a walk to where
    /// the node already is) add nothing. Errors name the offending leg.
    pub fn from_legs(start: Position, legs: &[Leg]) -> Result<Mobility, String> {
        if !start.is_finite() {
            return Err(format!("start position {start} is not finite"));
        }
        let mut points = vec![Waypoint {
            at: SimTime::ZERO,
            pos: start,
        }];
        let mut here = start;
        let mut now = SimTime::ZERO;
        for (i, leg) in legs.iter().enumerate() {
            let (duration, to) = match *leg {
                Leg::Pause(d) => (d, here),
                Leg::Walk { to, speed } => {
                    if !to.is_finite() {
                        return Err(format!("leg {i}: destination {to} is not finite"));
                    }
                    if !(speed.is_finite() && speed > 0.0) {
                        return Err(format!(
                            "leg {i}: speed must be a finite number > 0 m/s, got {speed}"
                        ));
                    }
                    let ns = libm::round(here.distance(&to) / speed * 1e9);
                    // 2^64 as f64; every smaller non-negative f64 fits in a u64.
                    if ns >= 18_446_744_073_709_551_616.0 {
                        return Err(format!("leg {i}: walk takes longer than SimTime can hold"));
                    }
                    if ns == 0.0 && to != here {
                        return Err(format!(
                            "leg {i}: walk to {to} at {speed} m/s takes less than 0.5 ns"
                        ));
                    }
                    (SimTime(ns as u64), to)
                }
            };
            if duration == SimTime::ZERO {
                continue;
            }
            now = SimTime(
                now.0
                    .checked_add(duration.0)
                    .ok_or_else(|| format!("leg {i}: path ends later than SimTime can hold"))?,
            );
            here = to;
            points.push(Waypoint { at: now, pos: here });
        }
        Ok(Mobility::Waypoints(points))
    }

    /// The position at time `t`.
    ///
    /// Panics on an empty waypoint list, which [`Mobility::validate`] rejects.
    pub fn position(&self, t: SimTime) -> Position {
        match self {
            Mobility::Static(p) => *p,
            Mobility::ConstantVelocity {
                start,
                velocity: (vx, vy, vz),
                from,
            } => {
                if t <= *from {
                    return *start;
                }
                let secs = (t - *from).as_nanos() as f64 / 1e9;
                Position {
                    x: start.x + vx * secs,
                    y: start.y + vy * secs,
                    z: start.z + vz * secs,
                }
            }
            Mobility::Waypoints(points) => {
                // Number of waypoints at or before `t`.
                let after = points.partition_point(|w| w.at <= t);
                if after == 0 {
                    return points.first().expect("validated: no waypoints").pos;
                }
                let a = &points[after - 1];
                let Some(b) = points.get(after) else {
                    return a.pos;
                };
                let s = (t - a.at).as_nanos() as f64 / (b.at - a.at).as_nanos() as f64;
                a.pos.lerp(&b.pos, s)
            }
        }
    }

    /// The highest speed the node ever moves at, m/s (0 for a static node): |velocity|, or
    /// the fastest segment of a waypoint path (distance over duration).
    pub fn max_speed(&self) -> f64 {
        match self {
            Mobility::Static(_) => 0.0,
            Mobility::ConstantVelocity {
                velocity: (vx, vy, vz),
                ..
            } => libm::sqrt(vx * vx + vy * vy + vz * vz),
            Mobility::Waypoints(points) => points
                .windows(2)
                .map(|w| {
                    w[0].pos.distance(&w[1].pos) / ((w[1].at - w[0].at).as_nanos() as f64 * 1e-9)
                })
                .fold(0.0, f64::max),
        }
    }

    /// Checks that coordinates and velocities are finite and that waypoints
    /// exist and have strictly increasing times.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Mobility::Static(p) => check_finite("position", p),
            Mobility::ConstantVelocity {
                start,
                velocity: (vx, vy, vz),
                ..
            } => {
                check_finite("start position", start)?;
                if vx.is_finite() && vy.is_finite() && vz.is_finite() {
                    Ok(())
                } else {
                    Err(format!("velocity ({vx}, {vy}, {vz}) is not finite"))
                }
            }
            Mobility::Waypoints(points) => {
                if points.is_empty() {
                    return Err("a waypoint path needs at least one waypoint".into());
                }
                for (i, w) in points.iter().enumerate() {
                    check_finite(&format!("waypoint {i}"), &w.pos)?;
                    if i > 0 && w.at <= points[i - 1].at {
                        return Err(format!(
                            "waypoint {i} at {} is not later than waypoint {} at {}",
                            w.at,
                            i - 1,
                            points[i - 1].at
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}

fn check_finite(what: &str, p: &Position) -> Result<(), String> {
    if p.is_finite() {
        Ok(())
    } else {
        Err(format!("{what} {p} is not finite"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P0: Position = Position::new(0.0, 0.0, 1.5);

    fn wp(secs: u64, x: f64, y: f64) -> Waypoint {
        Waypoint {
            at: SimTime::from_secs(secs),
            pos: Position::new(x, y, 0.0),
        }
    }

    #[test]
    fn distance_is_euclidean() {
        let a = Position::new(1.0, 2.0, 3.0);
        let b = Position::new(4.0, 6.0, 15.0);
        assert_eq!(a.distance(&b), 13.0);
        assert_eq!(b.distance(&a), 13.0);
        assert_eq!(a.distance(&a), 0.0);
    }

    #[test]
    fn static_never_moves() {
        let m = Mobility::Static(P0);
        assert_eq!(m.position(SimTime::ZERO), P0);
        assert_eq!(m.position(SimTime::from_secs(1000)), P0);
    }

    #[test]
    fn max_speed_is_the_fastest_leg() {
        assert_eq!(Mobility::Static(P0).max_speed(), 0.0);
        let v = Mobility::ConstantVelocity {
            start: P0,
            velocity: (3.0, 4.0, 0.0),
            from: SimTime::ZERO,
        };
        assert_eq!(v.max_speed(), 5.0);
        let legs = [
            Leg::Walk {
                to: Position::new(10.0, 0.0, 0.0),
                speed: 2.0,
            },
            Leg::Pause(SimTime::from_secs(1)),
            Leg::Walk { to: P0, speed: 1.5 },
        ];
        let w = Mobility::from_legs(P0, &legs).unwrap();
        assert!((w.max_speed() - 2.0).abs() < 1e-9, "{}", w.max_speed());
    }

    #[test]
    fn constant_velocity_covers_speed_times_time() {
        let m = Mobility::ConstantVelocity {
            start: P0,
            velocity: (6.0, 8.0, 0.0), // 10 m/s
            from: SimTime::from_secs(2),
        };
        assert_eq!(m.position(SimTime::ZERO), P0);
        assert_eq!(m.position(SimTime::from_secs(2)), P0);
        let p = m.position(SimTime::from_millis(4_500));
        assert_eq!(p, Position::new(15.0, 20.0, 1.5));
        assert_eq!(P0.distance(&p), 25.0);
        let p = m.position(SimTime::from_secs(12));
        assert!((P0.distance(&p) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn waypoints_interpolate_linearly_and_hold_at_the_ends() {
        let m = Mobility::Waypoints(vec![wp(1, 0.0, 0.0), wp(3, 10.0, 0.0), wp(7, 10.0, 20.0)]);
        m.validate().unwrap();
        let at = |ms| m.position(SimTime::from_millis(ms));
        // Before the first and after the last waypoint.
        assert_eq!(at(0), Position::new(0.0, 0.0, 0.0));
        assert_eq!(at(7_000), Position::new(10.0, 20.0, 0.0));
        assert_eq!(at(1_000_000), Position::new(10.0, 20.0, 0.0));
        // Exactly at waypoints.
        assert_eq!(at(1_000), Position::new(0.0, 0.0, 0.0));
        assert_eq!(at(3_000), Position::new(10.0, 0.0, 0.0));
        // Midpoints and a quarter of the way.
        assert_eq!(at(2_000), Position::new(5.0, 0.0, 0.0));
        assert_eq!(at(5_000), Position::new(10.0, 10.0, 0.0));
        assert_eq!(at(4_000), Position::new(10.0, 5.0, 0.0));
        // One nanosecond before a waypoint is still on the segment leading to it.
        let p = m.position(SimTime(3_000_000_000 - 1));
        assert!(p.x < 10.0 && 10.0 - p.x < 1e-7, "{p:?}");
    }

    #[test]
    fn single_waypoint_is_static() {
        let m = Mobility::Waypoints(vec![wp(5, 1.0, 2.0)]);
        m.validate().unwrap();
        assert_eq!(m.position(SimTime::ZERO), Position::new(1.0, 2.0, 0.0));
        assert_eq!(
            m.position(SimTime::from_secs(9)),
            Position::new(1.0, 2.0, 0.0)
        );
    }

    #[test]
    fn legs_pause_then_walk() {
        let away = Position::new(100.0, 0.0, 1.5);
        let m = Mobility::from_legs(
            P0,
            &[
                Leg::Pause(SimTime::from_secs(3)),
                Leg::Walk {
                    to: away,
                    speed: 10.0,
                },
            ],
        )
        .unwrap();
        let expected = vec![
            Waypoint {
                at: SimTime::ZERO,
                pos: P0,
            },
            Waypoint {
                at: SimTime::from_secs(3),
                pos: P0,
            },
            Waypoint {
                at: SimTime::from_secs(13),
                pos: away,
            },
        ];
        assert_eq!(m, Mobility::Waypoints(expected));
        assert_eq!(m.position(SimTime::from_secs(2)), P0);
        assert_eq!(
            m.position(SimTime::from_secs(8)),
            Position::new(50.0, 0.0, 1.5)
        );
        assert_eq!(m.position(SimTime::from_secs(13)), away);
        assert_eq!(m.position(SimTime::from_secs(60)), away);
    }

    #[test]
    fn legs_round_walk_times_to_the_nearest_nanosecond() {
        let m = Mobility::from_legs(
            Position::new(0.0, 0.0, 0.0),
            &[
                Leg::Walk {
                    to: Position::new(1.0, 0.0, 0.0),
                    speed: 3.0,
                },
                Leg::Walk {
                    to: Position::new(3.0, 0.0, 0.0),
                    speed: 3.0,
                },
            ],
        )
        .unwrap();
        let Mobility::Waypoints(points) = &m else {
            panic!("{m:?}")
        };
        let times: Vec<u64> = points.iter().map(|w| w.at.as_nanos()).collect();
        // 1/3 s = 333 333 333.3 ns; then 2/3 s = 666 666 666.7 ns more.
        assert_eq!(times, [0, 333_333_333, 1_000_000_000]);
    }

    #[test]
    fn legs_skip_steps_that_do_nothing() {
        let m = Mobility::from_legs(
            P0,
            &[Leg::Pause(SimTime::ZERO), Leg::Walk { to: P0, speed: 1.0 }],
        )
        .unwrap();
        assert_eq!(
            m,
            Mobility::Waypoints(vec![Waypoint {
                at: SimTime::ZERO,
                pos: P0
            }])
        );
    }

    #[test]
    fn legs_reject_bad_input() {
        let walk = |to, speed| Mobility::from_legs(P0, &[Leg::Walk { to, speed }]);
        let there = Position::new(1.0, 0.0, 0.0);
        assert!(walk(there, 0.0).unwrap_err().contains("speed"));
        assert!(walk(there, -1.0).unwrap_err().contains("speed"));
        assert!(walk(there, f64::NAN).unwrap_err().contains("speed"));
        assert!(walk(Position::new(f64::INFINITY, 0.0, 0.0), 1.0)
            .unwrap_err()
            .contains("not finite"));
        assert!(walk(there, 1e12).unwrap_err().contains("0.5 ns"));
        assert!(walk(there, 1e-12).unwrap_err().contains("SimTime"));
        assert!(Mobility::from_legs(Position::new(f64::NAN, 0.0, 0.0), &[]).is_err());
    }

    #[test]
    fn validate_rejects_bad_paths() {
        assert!(Mobility::Waypoints(vec![]).validate().is_err());
        let err = Mobility::Waypoints(vec![wp(1, 0.0, 0.0), wp(1, 1.0, 0.0)])
            .validate()
            .unwrap_err();
        assert!(err.contains("waypoint 1"), "{err}");
        assert!(Mobility::Waypoints(vec![wp(2, 0.0, 0.0), wp(1, 1.0, 0.0)])
            .validate()
            .is_err());
        assert!(Mobility::Waypoints(vec![wp(1, f64::NAN, 0.0)])
            .validate()
            .is_err());
        assert!(Mobility::Static(Position::new(0.0, f64::INFINITY, 0.0))
            .validate()
            .is_err());
        let cv = |v| Mobility::ConstantVelocity {
            start: P0,
            velocity: v,
            from: SimTime::ZERO,
        };
        assert!(cv((0.0, f64::NAN, 0.0)).validate().is_err());
        assert!(cv((1.0, 0.0, 0.0)).validate().is_ok());
        assert!(Mobility::Static(P0).validate().is_ok());
    }
}
