//! The tfrc-handover study's countermeasures on the sending station (Otsuka, Tamura,
//! Ishihara, §4.5), above the DCCP/TFRC client of `tern_proto::dccp` as the connection
//! switcher sits above TCP. None is in an RFC.
//!
//! - A, rate from the BSS Load ("estimate the bandwidth available at the new AP and change
//!   the sending rate before the handover", after the paper's refs. [1], [3]): the station
//!   reads the BSS Load element of the AP it is about to join (IEEE 802.11-2020 §9.4.2.27);
//!   the fair share of its IP packets there, scaled to TFRC's payload rate, becomes the
//!   sender's rate when the link goes down and again when it comes back
//!   (`TfrcSender::set_rate`).
//! - B, handover notice ("tell the receiver which packets were sent during the handover"):
//!   data sent while the link is down carries the notice (`dccp::HANDOVER_NOTICE`); the
//!   receiver leaves those packets out of loss detection
//!   (`ReceiverConfig::handover_notice`).
//! - C, recent observations ("for a while after the handover, make the newest observations
//!   count more"): the notice as in B, and from the link's return the sender's RTT average
//!   weights the newest sample more for a window (`TfrcSender::weight_recent_rtt`); the
//!   receiver's half is `ReceiverConfig::recent`.
//!
//! D (the MAC's play-out deadline for frames held through the disconnection) lives in the
//! station's MAC (`wifi::roaming`).
//!
//! The flow calls it through the seam `transport::tfrc::Aid`, in the order documented
//! there; [`build`] puts it above a flow whose settings turn a countermeasure on.

use crate::engine::SimTime;
use crate::net::packet::IPV4_HEADER;
use crate::transport::build_cx::{boxed, BuildCx};
use crate::transport::tfrc::spec::TfrcSpec;
use crate::transport::tfrc::{transport, Aid};
use crate::transport::{Cmd, Transport};
use crate::wifi::bss_load::BssLoad;
use tern_proto::dccp::Client;

/// The countermeasures a flow has on, and their state.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandoverAid {
    /// B or C: mark the data sent while the link is down.
    notice: bool,
    /// The client's link is down (between its going down and the handover's end).
    link_down: bool,
    /// A: on, and the rate estimated for the AP being joined (bytes/s).
    rate_from_bss_load: bool,
    estimate: Option<f64>,
    /// C's sender half: window and weight of the newest RTT sample.
    recent_rtt: Option<(SimTime, f64)>,
}

/// The flow's TFRC transport, with the countermeasures its settings turn on above it.
pub fn build(spec: &TfrcSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    let (t, first) = transport(spec, cx);
    let t = match HandoverAid::new(spec) {
        Some(aid) => t.with_aid(Box::new(aid)),
        None => t,
    };
    boxed((t, first))
}

impl HandoverAid {
    /// The countermeasures of a flow's settings, if any is on.
    pub fn new(spec: &TfrcSpec) -> Option<HandoverAid> {
        let recent = spec.recent_window.0 > SimTime::ZERO;
        let aid = HandoverAid {
            notice: spec.handover_notice || recent,
            link_down: false,
            rate_from_bss_load: spec.rate_from_bss_load,
            estimate: None,
            recent_rtt: recent.then_some((spec.recent_window.0, spec.recent_rtt_gain)),
        };
        (aid.notice || aid.rate_from_bss_load).then_some(aid)
    }
}

impl Aid for HandoverAid {
    /// Whether a data packet sent now carries the handover notice (B, C).
    fn in_handover(&self) -> bool {
        self.notice && self.link_down
    }

    /// A: the station read the BSS Load of the AP it is about to join; the fair share of
    /// its IP packets there is scaled to TFRC's payload rate (s of every IPv4 + transport
    /// header + s bytes).
    fn on_bss_load(&mut self, load: &BssLoad, client: &Client) {
        if !self.rate_from_bss_load {
            return;
        }
        let s = client.sender().config().s;
        let ip = IPV4_HEADER + client.wire().data_header() + s;
        self.estimate = load
            .fair_share(ip)
            .map(|x| x * f64::from(s) / f64::from(ip));
    }

    /// The station's link went down or came back at `now`: A sets the estimated rate at
    /// both moments; C's RTT window starts when the link is back. Returns whether A set
    /// the rate.
    fn on_link(&mut self, now: SimTime, up: bool, client: &mut Client) -> bool {
        self.link_down = !up;
        if !client.is_open() {
            return false;
        }
        let estimate = self.estimate.filter(|_| self.rate_from_bss_load);
        if let Some(x) = estimate {
            client.sender_mut().set_rate(now, x);
        }
        if let (true, Some((window, gain))) = (up, self.recent_rtt) {
            client.sender_mut().weight_recent_rtt(now, window, gain);
        }
        estimate.is_some()
    }
}
