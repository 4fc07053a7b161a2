//! A TCP flow's protocol configuration: the scenario's `TcpSpec` mapped onto
//! `tern_proto::tcp::Config`, and the world's shared copies of it.

use crate::scenario::{
    CaIncreaseSpec, CcSpec, DelayedAckRuleSpec, InitialWindowSpec, IwRule, LossFlightSpec,
    RecoverySpec, RtoRuleSpec, RttSourceSpec, SpuriousRtoResponseSpec, TcpSpec,
};
use std::sync::Arc;
use tern_proto::cc::{CaIncrease, CubicOptions};
use tern_proto::tcp::{
    CcKind, Config, DelayedAck, DelayedAckRule, InitialWindow, LossFlight, RecoveryKind, RtoRule,
    RttSource, SpuriousRtoResponse,
};

/// The protocol configuration of `spec` on a path of MTU `mtu`.
pub fn config(spec: &TcpSpec, mtu: u32) -> Config {
    Config {
        mss: spec.mss.map(|b| b.0 as u32),
        mtu,
        cc: match spec.cc {
            CcSpec::Newreno => CcKind::NewReno,
            CcSpec::Cubic => CcKind::Cubic,
            CcSpec::Ctcp => CcKind::Ctcp,
            CcSpec::Bbr => CcKind::Bbr,
            CcSpec::Bbr3 => CcKind::Bbr3,
        },
        cubic: CubicOptions {
            beta: spec.cubic_beta,
            fast_convergence: spec.cubic_fast_convergence,
        },
        sack: spec.sack,
        recovery: match spec.recovery {
            RecoverySpec::Newreno => RecoveryKind::NewReno,
            RecoverySpec::Reno => RecoveryKind::Reno,
        },
        prr: spec.prr,
        timestamps: spec.timestamps,
        window_scale: spec.window_scale,
        initial_window: match spec.initial_window {
            InitialWindowSpec::Segments(n) => InitialWindow::Segments(n),
            InitialWindowSpec::Rule(IwRule::Rfc1122) => InitialWindow::Rfc1122,
            InitialWindowSpec::Rule(IwRule::Rfc2581) => InitialWindow::Rfc2581,
            InitialWindowSpec::Rule(IwRule::Rfc3390) => InitialWindow::Rfc3390,
        },
        delayed_ack: spec.delayed_ack.then_some(DelayedAck {
            max_delay: spec.delayed_ack_timeout.0,
            every: spec.delayed_ack_segments,
            rule: match spec.delayed_ack_rule {
                DelayedAckRuleSpec::Fixed => DelayedAckRule::Fixed,
                DelayedAckRuleSpec::Linux => DelayedAckRule::Linux,
            },
        }),
        min_rto: spec.min_rto.0,
        rto_rule: match spec.rto_rule {
            RtoRuleSpec::Rfc6298 => RtoRule::Rfc6298,
            RtoRuleSpec::Linux => RtoRule::Linux,
        },
        rtt_source: match spec.rtt_source {
            RttSourceSpec::TsEcrFirst => RttSource::TsEcrFirst,
            RttSourceSpec::PacketTimingFirst => RttSource::PacketTimingFirst,
        },
        max_rto: spec.max_rto.0,
        initial_rto: spec.initial_rto.0,
        send_buffer: spec.send_buffer.0,
        recv_buffer: spec.recv_buffer.0,
        frto: spec.frto,
        spurious_rto_response: match spec.spurious_rto_response {
            SpuriousRtoResponseSpec::Eifel => SpuriousRtoResponse::Eifel,
            SpuriousRtoResponseSpec::LinuxUndo => SpuriousRtoResponse::LinuxUndo,
        },
        hystart: spec.hystart,
        cwnd_limited_growth: spec.cwnd_limited_growth,
        rlci: spec.rlci,
        ca_increase: match spec.ca_increase {
            CaIncreaseSpec::Bytes => CaIncrease::ByteCounting,
            CaIncreaseSpec::PerAck => CaIncrease::PerAck,
        },
        loss_flight: match spec.loss_flight {
            LossFlightSpec::FlightSize => LossFlight::FlightSize,
            LossFlightSpec::Pipe => LossFlight::Pipe,
        },
        pacing: spec.pacing,
        ..Config::default()
    }
}

/// The TCP configurations of a world's flows, each kept once: the connections of flows
/// configured alike share one copy, which every segment reads and which then stays in cache
/// however many flows there are.
#[derive(Debug, Default)]
pub struct TcpConfigs(Vec<Arc<Config>>);

impl TcpConfigs {
    /// The shared copy of `config` (a linear search: a scenario's flows have few distinct
    /// configurations).
    pub fn intern(&mut self, config: Config) -> Arc<Config> {
        if let Some(c) = self.0.iter().find(|c| ***c == config) {
            return c.clone();
        }
        let c = Arc::new(config);
        self.0.push(c.clone());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_configured_alike_share_one_config() {
        let mut configs = TcpConfigs::default();
        let a = configs.intern(Config::default());
        let b = configs.intern(Config::default());
        let small = Config {
            mss: Some(536),
            ..Config::default()
        };
        let c = configs.intern(small.clone());
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(*c, small);
    }
}
