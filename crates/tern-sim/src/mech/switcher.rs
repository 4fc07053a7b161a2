//! `ConnectionSwitcher`: leave a TCP connection stalled by a handover's burst
//! loss for a spare connection, instead of waiting out its backed-off RTO.
//!
//! A UE sends a message stream to a server over connection #1 while a spare
//! connection #2 stays open and idle. The **server** watches the interval
//! between messages arriving on the connection in use; once it exceeds
//! `T_recvinterval` it sends a *loss-start notice* over UDP carrying
//! `T_lastsent` (the send time of the last message it received), and repeats
//! it every notice period until a message arrives on the spare connection.
//! The **UE** records `T_handover` at every handover completion; a notice
//! arriving at `T_lossstart` makes it switch to #2 when
//! `0 < T_lossstart − T_handover < T_switch` and `T_lastsent < T_handover`
//! (the loss started before a handover that has now completed, so the loss
//! period is over). After the switch new messages go on #2 only; #1 keeps
//! delivering what it already holds.
//!
//! The `Oracle` policy is the study's ideal: it switches exactly when the
//! handover completes.

use crate::engine::SimTime;

/// When the UE switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// On a loss-start notice that passes the handover test (the mechanism).
    Notice,
    /// At the first handover completion (an upper bound, not implementable).
    Oracle,
    /// Never: one TCP connection, the baseline the study compares against.
    Never,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub policy: Policy,
    /// `T_recvinterval`: receive gap after which the server sends notices.
    pub recv_interval: SimTime,
    /// `T_switch`: how long after a handover a notice still triggers a switch.
    pub switch_window: SimTime,
    /// Period of repeated notices.
    pub notice_interval: SimTime,
}

/// A loss-start notice the server sends to the UE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Send time of the last message the server received (`T_lastsent`).
    pub last_sent: SimTime,
}

/// Why the UE switched (or why a notice did not make it switch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Switch,
    /// Already switched.
    Done,
    /// The policy does not act on notices (oracle, never).
    Disabled,
    /// No handover completed yet.
    NoHandover,
    /// `T_lossstart − T_handover` is not in `(0, T_switch)`.
    OutsideWindow,
    /// `T_lastsent ≥ T_handover`: the server heard from the UE after the
    /// handover, so the gap is not this handover's loss period.
    AfterHandover,
}

/// Both halves of the mechanism (UE side and server side).
#[derive(Clone, Debug)]
pub struct ConnectionSwitcher {
    cfg: Config,
    // UE side.
    last_handover: Option<SimTime>,
    switched_at: Option<SimTime>,
    // Server side.
    /// Connection the server watches: #1 (0) until a message arrives on #2 (1).
    watched: usize,
    /// Arrival time and send time of the last message received.
    last_received: Option<(SimTime, SimTime)>,
    /// When the next notice is due while the gap lasts.
    next_notice: Option<SimTime>,
    pub notices_sent: u64,
    pub notices_received: u64,
    pub handovers_seen: u64,
}

impl ConnectionSwitcher {
    pub fn new(cfg: Config) -> Self {
        ConnectionSwitcher {
            cfg,
            last_handover: None,
            switched_at: None,
            watched: 0,
            last_received: None,
            next_notice: None,
            notices_sent: 0,
            notices_received: 0,
            handovers_seen: 0,
        }
    }

    /// The connection new messages go on (0 = #1, 1 = #2).
    pub fn active(&self) -> usize {
        usize::from(self.switched_at.is_some())
    }

    pub fn switched_at(&self) -> Option<SimTime> {
        self.switched_at
    }

    /// UE: a handover completed (`T_handover`). Returns whether to switch now
    /// (the oracle policy).
    pub fn on_handover(&mut self, now: SimTime) -> bool {
        self.handovers_seen += 1;
        self.last_handover = Some(now);
        if self.cfg.policy == Policy::Oracle && self.switched_at.is_none() {
            self.switched_at = Some(now);
            return true;
        }
        false
    }

    /// UE: a loss-start notice arrived at `now` (`T_lossstart`).
    pub fn on_notice(&mut self, now: SimTime, notice: Notice) -> Decision {
        self.notices_received += 1;
        if self.switched_at.is_some() {
            return Decision::Done;
        }
        if self.cfg.policy != Policy::Notice {
            return Decision::Disabled;
        }
        let Some(t_handover) = self.last_handover else {
            return Decision::NoHandover;
        };
        if now <= t_handover || now - t_handover >= self.cfg.switch_window {
            return Decision::OutsideWindow;
        }
        if notice.last_sent >= t_handover {
            return Decision::AfterHandover;
        }
        self.switched_at = Some(now);
        Decision::Switch
    }

    /// Server: a message sent at `sent_at` arrived at `now` on connection `conn`.
    pub fn on_message(&mut self, now: SimTime, conn: usize, sent_at: SimTime) {
        if conn < self.watched {
            // Late data on the abandoned connection says nothing about the new one.
            return;
        }
        self.watched = conn;
        self.last_received = Some((now, sent_at));
        // Notices stop once a message arrives on the spare connection; on #1
        // a new gap starts counting.
        // Only the notice policy uses notices.
        self.next_notice = if conn == 1 || self.cfg.policy != Policy::Notice {
            None
        } else {
            Some(now + self.cfg.recv_interval)
        };
    }

    /// Server: when [`Self::poll_notice`] has something to do next.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.next_notice
    }

    /// Server: the notice due at `now`, if any; re-arms the repetition.
    pub fn poll_notice(&mut self, now: SimTime) -> Option<Notice> {
        let due = self.next_notice.filter(|&t| t <= now)?;
        let (_, last_sent) = self.last_received?;
        self.next_notice = Some(due.max(now) + self.cfg.notice_interval);
        self.notices_sent += 1;
        Some(Notice { last_sent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x` seconds (tests use whole milliseconds).
    fn s(x: f64) -> SimTime {
        SimTime::from_millis((x * 1000.0).round() as u64)
    }

    fn cfg(policy: Policy) -> Config {
        Config {
            policy,
            recv_interval: s(3.0),
            switch_window: s(10.0),
            notice_interval: s(0.1),
        }
    }

    #[test]
    fn server_notices_after_the_receive_gap_and_repeats_until_the_spare_speaks() {
        let mut m = ConnectionSwitcher::new(cfg(Policy::Notice));
        m.on_message(s(10.0), 0, s(9.95));
        assert_eq!(m.poll_timeout(), Some(s(13.0)));
        assert_eq!(m.poll_notice(s(12.9)), None);
        let n = m.poll_notice(s(13.0)).unwrap();
        assert_eq!(n.last_sent, s(9.95));
        assert_eq!(m.poll_timeout(), Some(s(13.1)));
        assert!(m.poll_notice(s(13.1)).is_some());
        // Late data on #1 still counts as #1 traffic: the gap restarts.
        m.on_message(s(13.15), 0, s(10.0));
        assert_eq!(m.poll_timeout(), Some(s(16.15)));
        m.on_message(s(13.2), 1, s(13.1));
        assert_eq!(m.poll_timeout(), None);
        // Once #2 is in use, #1's late arrivals are ignored.
        m.on_message(s(14.0), 0, s(10.1));
        assert_eq!(m.poll_timeout(), None);
        assert_eq!(m.notices_sent, 2);
    }

    #[test]
    fn ue_switches_only_inside_the_window_after_a_handover_it_was_cut_off_by() {
        let mut m = ConnectionSwitcher::new(cfg(Policy::Notice));
        let notice = |t| Notice { last_sent: s(t) };
        assert_eq!(m.on_notice(s(5.0), notice(1.0)), Decision::NoHandover);
        assert!(!m.on_handover(s(20.0)));
        // T_lastsent after the handover: not this handover's loss.
        assert_eq!(m.on_notice(s(21.0), notice(20.5)), Decision::AfterHandover);
        // More than T_switch after the handover.
        assert_eq!(m.on_notice(s(30.0), notice(16.0)), Decision::OutsideWindow);
        assert_eq!(m.active(), 0);
        assert_eq!(m.on_notice(s(21.0), notice(16.9)), Decision::Switch);
        assert_eq!((m.active(), m.switched_at()), (1, Some(s(21.0))));
        assert_eq!(m.on_notice(s(21.1), notice(16.9)), Decision::Done);
    }

    #[test]
    fn oracle_switches_at_handover_completion() {
        let mut m = ConnectionSwitcher::new(cfg(Policy::Oracle));
        assert_eq!(
            m.on_notice(s(5.0), Notice { last_sent: s(1.0) }),
            Decision::Disabled
        );
        assert!(m.on_handover(s(20.0)));
        assert_eq!(m.switched_at(), Some(s(20.0)));
        assert!(!m.on_handover(s(40.0)));
    }
}

#[cfg(test)]
mod never {
    use super::*;

    #[test]
    fn never_switches() {
        let mut m = ConnectionSwitcher::new(Config {
            policy: Policy::Never,
            recv_interval: SimTime::from_secs(3),
            switch_window: SimTime::from_secs(10),
            notice_interval: SimTime::from_millis(100),
        });
        assert!(!m.on_handover(SimTime::from_secs(20)));
        let n = Notice {
            last_sent: SimTime::from_secs(16),
        };
        assert_eq!(m.on_notice(SimTime::from_secs(21), n), Decision::Disabled);
        assert_eq!(m.active(), 0);
        m.on_message(SimTime::from_secs(1), 0, SimTime::ZERO);
        assert_eq!(m.poll_timeout(), None);
    }
}
