//! A multipath QUIC flow steered by the [`RssiThresholdScheduler`] (mpquic-rssi): the
//! scheduler reads the client's Wi-Fi RSSI every `period` and, at each change of class, sets
//! path 0 (Wi-Fi) and path 1 (cellular) available or backup, and abandons path 0 once the
//! RSSI says its link is broken (`abandon_below`, if set); everything else is the QUIC flow's
//! own.

use super::records::PathStatusRecord;
use super::rssi_scheduler::{Class, Config, RssiThresholdScheduler};
use crate::engine::SimTime;
use crate::transport::build_cx::{boxed, BuildCx};
use crate::transport::quic::setup;
use crate::transport::quic::spec::QuicPathStatus;
use crate::transport::quic::spec::{QuicSpec, RssiSchedulerSpec};
use crate::transport::quic::QuicTransport;
use crate::transport::{Cmd, Forward, Io, LinkObserver, Transport};

/// The flow: its QUIC transport and the client's scheduler.
pub struct RssiScheduledQuic {
    quic: QuicTransport,
    scheduler: RssiThresholdScheduler,
}

impl RssiScheduledQuic {
    /// The flow, and its first commands: the QUIC flow's, and the first RSSI sample at `start`.
    pub fn new(
        (quic, mut first): (QuicTransport, Vec<Cmd>),
        config: Config,
        start: SimTime,
    ) -> (RssiScheduledQuic, Vec<Cmd>) {
        first.push(Cmd::SampleRssi(start));
        let scheduler = RssiThresholdScheduler::new(config);
        (RssiScheduledQuic { quic, scheduler }, first)
    }
}

/// A path's status as the trace names it.
fn name(available: bool) -> &'static str {
    if available {
        "available"
    } else {
        "backup"
    }
}

fn status(available: bool) -> QuicPathStatus {
    if available {
        QuicPathStatus::Available
    } else {
        QuicPathStatus::Backup
    }
}

/// Everything but the RSSI samples is the QUIC flow's.
impl Forward for RssiScheduledQuic {
    type Inner = QuicTransport;

    fn inner(&self) -> &QuicTransport {
        &self.quic
    }

    fn inner_mut(&mut self) -> &mut QuicTransport {
        &mut self.quic
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        Some(self)
    }
}

impl LinkObserver for RssiScheduledQuic {
    /// A sample of the client's Wi-Fi RSSI: a change of class is traced and sets the paths'
    /// status; a broken Wi-Fi link is traced (Wi-Fi "abandoned") and abandons path 0.
    fn handle_rssi(&mut self, now: SimTime, rssi_dbm: Option<f64>, io: &mut Io<'_>) {
        io.cmds
            .push(Cmd::SampleRssi(now + self.scheduler.config().period));
        self.on_class(now, rssi_dbm, io);
        if self.scheduler.breaks(rssi_dbm) {
            let class = self.scheduler.class().map_or("none", Class::as_str);
            let (wifi, cell) = self
                .scheduler
                .class()
                .map_or((false, true), Class::available);
            io.traces.record(&PathStatusRecord {
                time: now,
                flow: io.flow,
                rssi_dbm: rssi_dbm.unwrap_or(f64::NEG_INFINITY),
                old_class: class,
                new_class: class,
                wifi_old: name(wifi),
                wifi_new: "abandoned",
                cell_old: name(cell),
                cell_new: name(cell),
            });
            self.quic.abandon_path(now, 0, io);
        }
    }
}

impl RssiScheduledQuic {
    /// A change of class, if the sample makes one: traced, and the paths' status set.
    fn on_class(&mut self, now: SimTime, rssi_dbm: Option<f64>, io: &mut Io<'_>) {
        let Some(change) = self.scheduler.sample(rssi_dbm) else {
            return;
        };
        let (old_wifi, old_cell) = change.old.map_or(("none", "none"), |c| {
            (name(c.available().0), name(c.available().1))
        });
        let (wifi, cell) = change.new.available();
        io.traces.record(&PathStatusRecord {
            time: now,
            flow: io.flow,
            rssi_dbm: rssi_dbm.unwrap_or(f64::NEG_INFINITY),
            old_class: change.old.map_or("none", Class::as_str),
            new_class: change.new.as_str(),
            wifi_old: old_wifi,
            wifi_new: name(wifi),
            cell_old: old_cell,
            cell_new: name(cell),
        });
        self.quic
            .set_path_status(now, &[(0, status(wifi)), (1, status(cell))], io);
    }
}

/// A QUIC flow whose settings enable the RSSI-threshold scheduler (`r`): its transport
/// (`transport::quic::setup::transport`) under the scheduler.
pub fn build(
    spec: &QuicSpec,
    r: &RssiSchedulerSpec,
    cx: BuildCx<'_>,
) -> (Box<dyn Transport>, Vec<Cmd>) {
    let config = Config {
        t1_dbm: r.t1,
        t2_dbm: r.t2,
        period: r.period.0,
        hysteresis_db: r.hysteresis,
        abandon_below_dbm: r.abandon_below,
    };
    let start = cx.flow.start.0;
    let quic = setup::transport(spec, cx);
    boxed(RssiScheduledQuic::new(quic, config, start))
}
