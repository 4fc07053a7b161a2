//! Response to lower-layer connectivity-change indications ("RLCI"),
//! enabled by [`Config::rlci`](super::Config::rlci).
//!
//! A host whose link goes away (a Wi-Fi station leaving its access point)
//! keeps timing out: every retransmission is lost and RFC 6298 §5.5 doubles
//! the RTO each time, so once the link is back (associated with a new access
//! point) the sender may sit idle for up to a whole backed-off RTO, tens of
//! seconds, before its next retransmission finds out that the path works.
//! The lower layer knows the moment connectivity returns; this module lets
//! the driver pass that on ([`Connection::on_connectivity`]).
//!
//! # Source, and what could be checked
//!
//! "TCP Response to Lower-Layer Connectivity-Change Indications",
//! draft-schuetz-tcpm-tcp-rlci (S. Schütz, N. Koutsianas, L. Eggert,
//! W. Eddy, Y. Swami, K. Le; last revision -03, February 2008, expired,
//! never an RFC), which follows up the "TCP Retransmission Trigger" of
//! Schütz, Eggert, Schmid and Brunner, "Protocol Enhancements for
//! Intermittently Connected Hosts" (ACM SIGCOMM CCR 35(3), 2005).
//!
//! **Only the draft's abstract could be read when this was written, not its
//! body**, so no section of the draft is cited here and nothing below was
//! checked against its normative text. What is implemented is the draft's
//! well-known core rule (the speculative retransmission), plus, as an
//! option off by default, the "newly started connection" behaviour the
//! abstract states ("no difference in aggressiveness in comparison to a
//! newly-started connection"). The draft's TCP option that tells the peer
//! about a locally received indication (also in the abstract) is not
//! implemented.
//!
//! # Rules
//!
//! * **Link down** (`up == false`): no reaction. The retransmission timer
//!   keeps running and backing off as RFC 6298 §5 says; segments the
//!   driver cannot deliver are simply lost.
//! * **Link up**, with [`Config::rlci`](super::Config::rlci) off: no
//!   reaction either (standard TCP has no such input).
//! * **Link up**, with `rlci` on, while the connection is in
//!   retransmission-timeout back-off: synchronized state, data (not only a
//!   zero-window probe) outstanding, at least one retransmission timeout
//!   fired for it and no ACK of new data since (the consecutive-timeout
//!   counter, cleared by every ACK of new data, is non-zero), and the RTO
//!   still backed off. Then, the **speculative retransmission**:
//!   1. the oldest unacknowledged segment is retransmitted immediately,
//!      through [`Connection::poll_transmit`] ahead of anything else and
//!      outside cwnd, like the retransmission of RFC 6298 §5.4, reported as
//!      [`Event::Retransmit`](super::Event::Retransmit) with
//!      [`RetransmitKind::Speculative`] and counted in
//!      [`Stats::retransmits_speculative`](super::Stats::retransmits_speculative);
//!   2. the back-off is cleared and the retransmission timer restarted at
//!      `now + RTO` with the un-backed-off RTO, `SRTT + max(G, 4*RTTVAR)`
//!      bounded by the minimum and maximum RTO (RFC 6298 §2, §5.3); SRTT
//!      and RTTVAR are kept.
//!
//!   Any other link-up (no back-off, nothing outstanding, handshake still
//!   under way) sends nothing and leaves the timer alone.
//! * **Path reset** ([`Config::rlci_reset_path`](super::Config::rlci_reset_path),
//!   off by default, needs `rlci`): on every link-up in a synchronized
//!   state, before the rule above (whose back-off test is taken first),
//!   forget the old path like a newly started connection: SRTT and
//!   RTTVAR cleared, RTO back to the initial RTO (RFC 6298 §2.1; RFC 6298
//!   §5, note after rule 5.7, allows clearing them after repeated
//!   back-off), congestion controller restarted with the initial window and
//!   an arbitrarily high ssthresh (RFC 5681 §3.1). The timer restarted by a
//!   speculative retransmission then uses the initial RTO. Segments that
//!   RTO recovery still holds as lost are resent as cwnd allows (up to the
//!   initial window at once, as a new connection would send).
//!
//! # Interplay with RFC 6298 and RFC 5681
//!
//! The speculative retransmission is neither a timeout nor a congestion
//! signal: cwnd, ssthresh, fast/RTO recovery state and the count of
//! consecutive timeouts ([`Config::max_retries`](super::Config::max_retries),
//! which still aborts a connection whose link keeps flapping) are left as
//! they are. Clearing the back-off without an RTT sample departs from RFC
//! 6298 (back-off lasts until a valid sample, Karn's algorithm); the
//! timeouts it undoes were caused by the outage. If the speculative
//! retransmission is lost as well, the timer expires at `now + RTO` and
//! that expiry is an ordinary RFC 6298 §5.4-5.6 timeout: back-off doubles
//! again from the base RTO, RFC 5681 §3.1 applies. Only one speculative
//! retransmission happens per back-off episode: after it the RTO is no
//! longer backed off, so a repeated link-up before the next timeout sends
//! nothing. Karn's algorithm is unaffected (the segment had already been
//! retransmitted by the timeout); with timestamps the ACK of the
//! speculative retransmission gives a valid sample (RFC 7323 §4.1).
//!
//! # Interplay with F-RTO and the Eifel response (`frto`)
//!
//! "No ACK since the timeout" means F-RTO, if running, still waits for its
//! first ACK (step 1 / 2). The speculative retransmission resends the very
//! segment F-RTO step 1 resent, as a further timeout in step 2 would ("back
//! to step 1"), without touching F-RTO's state: its ACK remains the first
//! ACK after the retransmission, and only ACKs of never-retransmitted data
//! (step 3b) can declare the timeout spurious, so the detection stays
//! sound. No Eifel RTO re-initialisation can be pending (a timeout discards
//! it). With `rlci_reset_path`, F-RTO is abandoned (conventional recovery)
//! and a pending Eifel re-initialisation dropped, since both would put the
//! old path's congestion and RTT state back.

use super::rtt::RttEstimator;
use super::{Connection, RetransmitKind};
use crate::time::SimTime;

impl Connection {
    /// A lower-layer connectivity indication at `now`: `up == false` when
    /// the host's link went down (e.g. the Wi-Fi station left its access
    /// point), `up == true` when it came back (associated again).
    ///
    /// With [`Config::rlci`](super::Config::rlci) off (the default) this
    /// does nothing. With it on, a link-up while the retransmission timer
    /// is backed off retransmits the oldest unacknowledged segment at the
    /// next [`poll_transmit`](Self::poll_transmit) and restarts the timer
    /// with the un-backed-off RTO; link-down never changes anything. See
    /// the `rlci` module documentation (in `tcp/rlci.rs`) for the exact
    /// conditions and the interplay with RFC 6298 back-off and F-RTO.
    ///
    /// Like the other inputs, it must be followed by draining
    /// [`poll_transmit`](Self::poll_transmit) and
    /// [`poll_event`](Self::poll_event) and re-reading
    /// [`poll_timeout`](Self::poll_timeout).
    pub fn on_connectivity(&mut self, now: SimTime, up: bool) {
        self.now = now;
        if !up || !self.cfg.rlci {
            return;
        }
        // Decided before a path reset, which clears the back-off.
        let speculate = self.rlci_in_backoff();
        if self.cfg.rlci_reset_path && self.state.is_synchronized() {
            self.rlci_reset_path();
        }
        if speculate {
            self.rlci_speculative_retransmit(now);
        }
        self.report_cc();
    }

    /// In retransmission-timeout back-off for outstanding data: at least
    /// one timeout and no ACK of new data since, timer running and backed
    /// off.
    fn rlci_in_backoff(&self) -> bool {
        self.state.is_synchronized()
            && self.sb.iter().any(|s| !s.probe)
            && self.rto_retries > 0
            && self.rtt.backoff() > 0
            && self.rto_deadline.is_some()
    }

    /// Resend the oldest unacknowledged segment now and restart the timer
    /// with the base RTO.
    fn rlci_speculative_retransmit(&mut self, now: SimTime) {
        self.sb.mark_first_lost(RetransmitKind::Speculative);
        self.force_retx = true;
        self.rtt.clear_backoff();
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// [`Config::rlci_reset_path`](super::Config::rlci_reset_path): start
    /// over on the new path like a new connection (synchronized states only:
    /// during the handshake nothing has been learnt yet).
    fn rlci_reset_path(&mut self) {
        self.frto_abandon();
        self.eifel_rto = None;
        self.rtt = RttEstimator::of(&self.cfg);
        self.cc = self.cfg.controller(self.smss);
    }
}
