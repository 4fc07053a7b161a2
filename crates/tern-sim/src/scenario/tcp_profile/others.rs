//! Profiles of Windows, macOS, the BSDs and ns-3.

use super::{key, Profile};

const NO_TSQ: &str = "TCP Small Queues is Linux's (net/ipv4/tcp_output.c); this host has none: off";

/// Windows 10 1607 (the Anniversary Update, 2016).
pub(super) const WINDOWS10_1607: Profile = Profile {
    name: "windows10-1607",
    description: "Windows 10 version 1607 (Anniversary Update, 2016), the Internet TCP \
        template's defaults. Not documented, so left at the RFC defaults: F-RTO, HyStart, \
        PRR, the maximum RTO, the send buffer (Winsock sizes it to the ideal send backlog).",
    inherits: None,
    keys: &[
        key("cc", "\"ctcp\"", "Compound TCP, Windows' provider until CUBIC became the default in 1709 (TechTarget, \"Explore the Cubic congestion control provider for Windows\")"),
        key("initial_window", "10", "Microsoft networking blog, \"Announcing: New Transport Advancements in the Anniversary Update for Windows 10 and Windows Server 2016\" (July 2016): ICW10 by default"),
        key("min_rto", "\"300ms\"", "Get-NetTCPSetting, Internet template MinRto 300 ms (Microsoft, \"TCP Templates for Windows Server 2019\")"),
        key("timestamps", "false", "netsh interface tcp show global: RFC 1323 Timestamps disabled by default (Set-NetTCPSetting -Timestamps)"),
        key("rtt_source", "\"ts_ecr_first\"", "not documented: RFC 6298 §3 (Karn; timestamps are off)"),
        key("delayed_ack_timeout", "\"200ms\"", "Windows' delayed-ACK timer: TcpDelAckTicks default 2 (× 100 ms) (Microsoft registry documentation)"),
        key("delayed_ack_segments", "2", "TcpAckFrequency default 2 (Microsoft registry documentation)"),
        key("recv_buffer", "\"16776960B\"", "Receive Window Auto-Tuning level normal (the default): window scale at most 8, 65535 × 2^8 B"),
        key("tsq", "\"1GB\"", NO_TSQ),
    ],
};

/// OS X 10.11 El Capitan (XNU 3248, tag xnu-3248.60.10, bsd/netinet/).
pub(super) const MACOS_10_11: Profile = Profile {
    name: "macos-10.11",
    description: "OS X 10.11 (XNU 3248.60.10). Approximated: the RTO floor (t_rttmin 100 ms \
        plus the 200 ms tcp_rexmt_slop added to every RTO, as a 200 ms minimum); spurious \
        timeouts found by timestamps (tcp_input.c) as F-RTO's detection, undone as RFC 4015 \
        (Tern's Eifel response). Not documented here, so RFC defaults: the receive buffer, \
        delayed ACKs (XNU stretches ACKs).",
    inherits: None,
    keys: &[
        key("cc", "\"cubic\"", "tcp_subr.c tcp_newtcpcb: tcp_use_newreno = 0 → TCP_CC_ALGO_CUBIC_INDEX"),
        key("cubic_beta", "0.8", "tcp_cubic.c tcp_cubic_backoff = 0.2"),
        key("cubic_fast_convergence", "false", "tcp_cubic.c tcp_cubic_fast_convergence = 0"),
        key("initial_window", "\"rfc3390\"", "tcp_cc.c: RFC 3390's window (tcp_do_rfc3390 = 1); 8 segments on a local subnet (ss_fltsz_local), not modelled: set initial_window = 8 there"),
        key("min_rto", "\"200ms\"", "tcp_timer.h TCPTV_REXMTSLOP 200 ms added to t_rttmin (TCPTV_MIN 100 ms): as a 200 ms floor"),
        key("max_rto", "\"64s\"", "tcp_timer.h TCPTV_REXMTMAX = 64 s"),
        key("frto", "true", "tcp_input.c: spurious timeouts detected (timestamps) and undone"),
        key("rtt_source", "\"ts_ecr_first\"", "tcp_input.c tcp_compute_rtt: tcp_xmit_timer with tcp_now - to_tsecr when the ACK has a timestamp, the timed segment's t_rtttime otherwise; no sample from SACK"),
        key("spurious_rto_response", "\"eifel\"", "tcp_input.c: the undo of RFC 4015"),
        key("send_buffer", "\"370688B\"", "tcp_usrreq.c tcp_sendspace = 1448 × 256; autotuning grows it only while the RTT stays within 25 ms of the base RTT (tcp_output.c, tcp_input.c tcp_sbsnd_trim)"),
        key("tsq", "\"1GB\"", NO_TSQ),
    ],
};

/// 4.4BSD-Lite (1994), after Stevens and Wright, TCP/IP Illustrated Vol. 2 (1995).
pub(super) const BSD_4_4_LITE: Profile = Profile {
    name: "4.4bsd-lite",
    description: "4.4BSD-Lite (1994; Stevens & Wright, TCP/IP Illustrated Vol. 2): Reno \
        without SACK, one-segment initial window, 500 ms timer ticks. Approximated: the \
        ticks (RTT and RTO in exact time), congestion avoidance's extra maxseg/8 per ACK \
        (left out), the 200 ms fast timer (as a 200 ms delayed-ACK bound).",
    inherits: None,
    keys: &[
        key("cc", "\"newreno\"", "tcp_input.c: slow start and congestion avoidance (Jacobson 1988), Tern's NewReno controller; recovery below is Reno's"),
        key("recovery", "\"reno\"", "tcp_input.c: fast retransmit and fast recovery, ended by the first ACK of new data (Vol. 2 ch. 29)"),
        key("ca_increase", "\"per_ack\"", "tcp_input.c: cwnd += maxseg·maxseg/cwnd per ACK (the + maxseg/8 term not modelled)"),
        key("sack", "false", "no SACK (RFC 2018 is of 1996)"),
        key("timestamps", "true", "tcp_subr.c tcp_do_rfc1323 = 1 (RFC 1323)"),
        key("window_scale", "true", "tcp_subr.c tcp_do_rfc1323 = 1 (RFC 1323)"),
        key("initial_window", "\"rfc1122\"", "tcp_input.c tcp_mss: snd_cwnd = mss, one segment"),
        key("delayed_ack_timeout", "\"200ms\"", "tcp_timer.c tcp_fasttimo every 200 ms (PR_FASTHZ = 5) sends a pending delayed ACK"),
        key("delayed_ack_segments", "2", "tcp_output.c: an ACK once the window opens by two segments"),
        key("min_rto", "\"1s\"", "tcp_timer.h TCPTV_MIN = 2 ticks of 500 ms"),
        key("max_rto", "\"64s\"", "tcp_timer.h TCPTV_REXMTMAX = 128 ticks of 500 ms"),
        key("initial_rto", "\"6s\"", "tcp_subr.c tcp_newtcpcb: t_rxtcur = ((TCPTV_SRTTBASE >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1 = 12 ticks"),
        key("frto", "false", "no spurious-timeout detection"),
        key("rtt_source", "\"ts_ecr_first\"", "tcp_input.c tcp_input: tcp_xmit_timer(tp, tcp_now - ts_ecr + 1) when the ACK has a timestamp, else the timed segment's t_rtt (Stevens & Wright, Vol. 2, tcp_input.c)"),
        key("cwnd_limited_growth", "false", "tcp_input.c opens cwnd on every ACK of new data"),
        key("send_buffer", "\"8KiB\"", "tcp_usrreq.c tcp_sendspace = 1024*8"),
        key("recv_buffer", "\"8KiB\"", "tcp_usrreq.c tcp_recvspace = 1024*8"),
        key("tsq", "\"1GB\"", NO_TSQ),
    ],
};

/// FreeBSD 2.2.8 (1998): 4.4BSD-Lite's TCP with larger buffers.
pub(super) const FREEBSD_2_2_8: Profile = Profile {
    name: "freebsd-2.2.8",
    description: "FreeBSD 2.2.8 (1998): 4.4BSD-Lite's TCP (Reno, no SACK; as 4.4bsd-lite and \
        approximated the same way) with 16 KiB socket buffers.",
    inherits: Some("4.4bsd-lite"),
    keys: &[
        key("send_buffer", "\"16KiB\"", "sys/netinet/tcp_usrreq.c tcp_sendspace = 1024*16"),
        key("recv_buffer", "\"16KiB\"", "sys/netinet/tcp_usrreq.c tcp_recvspace = 1024*16; the wcdma-profile paper's Table 1: 16384 B"),
    ],
};

/// ns-3 3.44's TCP with its attribute defaults (src/internet/model).
pub(super) const NS3: Profile = Profile {
    name: "ns3",
    description: "ns-3 3.44's TcpSocketBase with the attribute defaults of TcpSocket, \
        TcpSocketBase, TcpL4Protocol and TcpCubic (src/internet/model). Approximated: \
        TcpCubic's HyStart (ACK train and delay) by HyStart++'s delay rule; ns-3's \
        cwnd-limited test (cwnd < bytes in flight + 1 segment) by Tern's 3-segment slack. Not \
        modelled: the 3 s SYN timeout (ConnTimeout), limited transmit. With cc = \"newreno\" \
        (ns-3's TcpNewReno) add ca_increase = \"per_ack\" (TcpNewReno::CongestionAvoidance) \
        and loss_flight = \"pipe\" (EnterRecovery and ReTxTimeout pass BytesInFlight()).",
    inherits: None,
    keys: &[
        key("cc", "\"cubic\"", "tcp-l4-protocol.cc: SocketType TcpCubic"),
        key("cubic_beta", "0.7", "tcp-cubic.cc: Beta 0.7"),
        key("cubic_fast_convergence", "true", "tcp-cubic.cc: FastConvergence true"),
        key("hystart", "true", "tcp-cubic.cc: HyStart true"),
        key("prr", "true", "tcp-l4-protocol.cc: RecoveryType TcpPrrRecovery"),
        key("sack", "true", "tcp-socket-base.cc: Sack true"),
        key("timestamps", "true", "tcp-socket-base.cc: Timestamp true"),
        key("window_scale", "true", "tcp-socket-base.cc: WindowScaling true"),
        key("mss", "\"548B\"", "tcp-socket.cc: SegmentSize 536 B of payload, + 12 B of timestamp option (Tern's mss counts options, RFC 6691)"),
        key("initial_window", "10", "tcp-socket.cc: InitialCwnd 10"),
        key("delayed_ack_timeout", "\"200ms\"", "tcp-socket.cc: DelAckTimeout 0.2 s"),
        key("delayed_ack_segments", "2", "tcp-socket.cc: DelAckCount 2"),
        key("min_rto", "\"1s\"", "tcp-socket-base.cc: MinRto 1 s"),
        key("max_rto", "\"60s\"", "tcp-socket-base.cc ReTxTimeout: m_rto = Min(2·m_rto, 60 s)"),
        key("initial_rto", "\"1s\"", "rtt-estimator.cc: InitialEstimation 1 s"),
        key("rto_rule", "\"rfc6298\"", "tcp-socket-base.cc: Max(m_minRto, estimate + Max(G, 4·variation)) with RttMeanDeviation"),
        key("frto", "false", "no F-RTO in ns-3"),
        key("rtt_source", "\"ts_ecr_first\"", "tcp-socket-base.cc EstimateRtt: the TS echo when timestamps are on, else the send time of the oldest history entry (m_history); ns-3 also takes no echo unless that entry is fully acked and was not retransmitted, which Tern does not model"),
        key("cwnd_limited_growth", "true", "tcp-cubic.cc IncreaseWindow: no growth unless m_isCwndLimited, set in tcp-socket-base.cc SendDataPacket"),
        key("send_buffer", "\"131072B\"", "tcp-socket.cc: SndBufSize 131072"),
        key("recv_buffer", "\"131072B\"", "tcp-socket.cc: RcvBufSize 131072"),
        key("tsq", "\"1GB\"", NO_TSQ),
    ],
};
