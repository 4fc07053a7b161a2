//! The RFCs' profile and the Linux hosts': Linux 3.13, a current Linux (6.18), Android.

use super::{key, Profile};

/// The RFCs: Tern's defaults, listed with the RFC that sets each.
pub(super) const RFC: Profile = Profile {
    name: "rfc",
    description: "The RFCs' TCP (Tern's defaults): NewReno with SACK recovery, RFC 6298's \
        timer, RFC 3390's initial window, cwnd grown only while it limits the sender.",
    inherits: None,
    keys: &[
        key("cc", "\"newreno\"", "RFC 5681 §3.1, RFC 6582"),
        key("sack", "true", "RFC 2018 with RFC 6675 loss recovery"),
        key("prr", "false", "RFC 6675 §5: cwnd − pipe in recovery"),
        key("timestamps", "true", "RFC 7323 §3"),
        key("window_scale", "true", "RFC 7323 §2"),
        key("initial_window", "\"rfc3390\"", "RFC 3390 §1"),
        key("delayed_ack", "true", "RFC 1122 §4.2.3.2, RFC 5681 §4.2"),
        key(
            "delayed_ack_timeout",
            "\"200ms\"",
            "RFC 1122 §4.2.3.2 (under 500 ms; 200 ms usual)",
        ),
        key(
            "delayed_ack_segments",
            "2",
            "RFC 5681 §4.2: an ACK at least every second full-sized segment",
        ),
        key("min_rto", "\"1s\"", "RFC 6298 §2.4"),
        key("max_rto", "\"60s\"", "RFC 6298 §2.5 (at least 60 s)"),
        key("initial_rto", "\"1s\"", "RFC 6298 §2.1"),
        key("rto_rule", "\"rfc6298\"", "RFC 6298 §2"),
        key(
            "rtt_source",
            "\"ts_ecr_first\"",
            "RFC 7323 §4.1 (RTTM: the echo of every ACK of new data), RFC 6298 §3 (Karn) without timestamps",
        ),
        key(
            "frto",
            "false",
            "RFC 5681 §3.1 / RFC 6298 §5 conventional timeout recovery",
        ),
        key("hystart", "false", "RFC 5681 §3.1 slow start"),
        key(
            "cwnd_limited_growth",
            "true",
            "RFC 7661 §4.3: no growth while the sender is not cwnd-limited (as every major stack)",
        ),
    ],
};

/// Linux 3.13, the base of the other Linux profiles.
pub(super) const LINUX_3_13: Profile = Profile {
    name: "linux-3.13",
    description: "Linux 3.13 (Ubuntu 14.04's kernel) with its default sysctls. Approximated: \
        CUBIC's HyStart (Ha & Rhee: ACK trains and delay) by HyStart++'s delay rule; \
        buffer autotuning by the largest buffer it reaches; buffers counted in payload bytes, not \
        skb truesize.",
    inherits: None,
    keys: &[
        key("cc", "\"cubic\"", "net/ipv4/Kconfig: DEFAULT_TCP_CONG \"cubic\" (the default since 2.6.19)"),
        key("cubic_beta", "0.7", "net/ipv4/tcp_cubic.c: beta = 717 (/1024)"),
        key("cubic_fast_convergence", "true", "net/ipv4/tcp_cubic.c: fast_convergence = 1"),
        key("hystart", "true", "net/ipv4/tcp_cubic.c: hystart = 1 (HyStart of Ha & Rhee; Tern runs HyStart++'s delay rule, RFC 9406)"),
        key("sack", "true", "net.ipv4.tcp_sack = 1 (net/ipv4/tcp_input.c sysctl_tcp_sack)"),
        key("prr", "true", "net/ipv4/tcp_input.c tcp_cwnd_reduction: PRR since Linux 3.2 (RFC 6937)"),
        key("timestamps", "true", "net.ipv4.tcp_timestamps = 1 (sysctl_tcp_timestamps)"),
        key("window_scale", "true", "net.ipv4.tcp_window_scaling = 1 (sysctl_tcp_window_scaling)"),
        key("initial_window", "10", "include/net/tcp.h TCP_INIT_CWND = 10 (since 2.6.39; RFC 6928)"),
        key("delayed_ack", "true", "net/ipv4/tcp_input.c __tcp_ack_snd_check"),
        key("delayed_ack_timeout", "\"200ms\"", "include/net/tcp.h TCP_DELACK_MAX = HZ/5: the bound of the adaptive timeout for interactive data (tcp_send_delayed_ack)"),
        key("delayed_ack_rule", "\"linux\"", "net/ipv4/tcp_input.c tcp_event_data_recv (ato from the inter-arrival time, TCP_ATO_MIN 40 ms), tcp_incr_quickack / tcp_enter_quickack_mode (up to TCP_MAX_QUICKACKS = 16 at the start and after out-of-order data), __tcp_ack_snd_check; tcp_output.c tcp_send_delayed_ack; tcp_timer.c tcp_delack_timer_handler"),
        key("delayed_ack_segments", "2", "net/ipv4/tcp_input.c __tcp_ack_snd_check: ACK at once when more than one full-sized segment is unacknowledged"),
        key("min_rto", "\"200ms\"", "include/net/tcp.h TCP_RTO_MIN = HZ/5"),
        key("max_rto", "\"120s\"", "include/net/tcp.h TCP_RTO_MAX = 120*HZ"),
        key("initial_rto", "\"1s\"", "include/net/tcp.h TCP_TIMEOUT_INIT = 1*HZ (since 3.1, RFC 6298)"),
        key("rto_rule", "\"linux\"", "net/ipv4/tcp_input.c tcp_rtt_estimator, tcp_set_rto/__tcp_set_rto"),
        key("rtt_source", "\"packet_timing_first\"", "net/ipv4/tcp_input.c tcp_ack_update_rtt of 3.13 (\"tcp: prefer packet timing to TS-ECR for RTT\", \"tcp: measure RTT from new SACK\"): seq_rtt from the oldest acked skb never retransmitted (tcp_clean_rtx_queue, -1 on FLAG_RETRANS_DATA_ACKED), else sack_rtt (tcp_sacktag_one), else TS-ECR on FLAG_ACKED"),
        key("frto", "true", "net.ipv4.tcp_frto = 2 (sysctl_tcp_frto; SACK-enhanced F-RTO, RFC 5682)"),
        key("spurious_rto_response", "\"linux_undo\"", "net/ipv4/tcp_input.c tcp_process_loss → tcp_try_undo_loss(sk, true) (F-RTO of 3.10 on): cwnd = undo_cwnd(), ssthresh = prior_ssthresh"),
        key("cwnd_limited_growth", "true", "net/ipv4/tcp_cong.c tcp_is_cwnd_limited (2.6.18-3.19 rule)"),
        key("send_buffer", "\"4MiB\"", "net.ipv4.tcp_wmem max = 4 MiB (net/ipv4/tcp.c tcp_init: min(4 MiB, memory/128)), the most tcp_sndbuf_expand autotunes to"),
        key("recv_buffer", "\"6MiB\"", "net.ipv4.tcp_rmem max = 6 MiB (net/ipv4/tcp.c tcp_init), the most tcp_rcv_space_adjust autotunes to (the advertised share, tcp_adv_win_scale, not modelled)"),
        key("tsq", "\"128KiB\"", "net/ipv4/tcp_output.c sysctl_tcp_limit_output_bytes = 131072 (TCP Small Queues, 3.6 on)"),
        key("tsq_truesize", "\"4352B\"", "sk_wmem_alloc counts skb->truesize (tcp_transmit_skb → skb_set_owner_w): without scatter-gather (mac80211 in 3.13) no GSO, so each segment is a linear skb of mss + MAX_TCP_HEADER + skb_shared_info ≈ 2.1 KB, which __alloc_skb rounds to its 4096 B kmalloc slab (ksize), plus the 256 B sk_buff"),
        key("tsq_pacing", "true", "net/ipv4/tcp_output.c tcp_write_xmit: limit = max(sysctl_tcp_limit_output_bytes, sk->sk_pacing_rate >> 10) (3.12 on), sk_pacing_rate = 2 · mss · max(cwnd, packets_out) / srtt (net/ipv4/tcp_input.c tcp_update_pacing_rate)"),
    ],
};

/// A current Linux: 6.18, the kernel of the machine Tern is developed on.
pub(super) const LINUX_6: Profile = Profile {
    name: "linux-6",
    description: "Linux 6.18 with its default sysctls: Linux 3.13's rules (as linux-3.13, and \
        approximated the same way) with today's buffers and TSQ limit. Also approximated: \
        the cwnd-limited test (4.0 on: max_packets_out over the last window) by 3.19's; not \
        modelled: RACK-TLP (tcp_recovery = 1, tcp_early_retrans = 3), pacing.",
    inherits: Some("linux-3.13"),
    keys: &[
        key("spurious_rto_response", "\"linux_undo\"", "net/ipv4/tcp_input.c tcp_process_loss → tcp_try_undo_loss(sk, true) → tcp_undo_cwnd_reduction: cwnd = tcp_reno_undo_cwnd() = max(cwnd, prior_cwnd) (CUBIC's undo_cwnd since 4.13), ssthresh = prior_ssthresh"),
        key("cwnd_limited_growth", "true", "net/ipv4/tcp_cong.c / include/net/tcp.h tcp_is_cwnd_limited (Tern applies the 2.6.18-3.19 rule)"),
        key("send_buffer", "\"4MiB\"", "net.ipv4.tcp_wmem max = 4194304 (net/ipv4/tcp.c tcp_init; read on a 6.18 host)"),
        key("recv_buffer", "\"32MiB\"", "net.ipv4.tcp_rmem max = 33554432 (net/ipv4/tcp.c tcp_init; read on a 6.18 host)"),
        key("tsq", "\"4MiB\"", "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_limit_output_bytes = 4 << 20 (read on a 6.18 host: 4194304)"),
        key("tsq_truesize", "\"0B\"", "approximated: GSO skbs of up to 64 KiB have truesizes Tern does not model; each packet counts its IP bytes"),
        key("tsq_pacing", "false", "net/ipv4/tcp_output.c tcp_small_queue_check (4.x on) takes min(tcp_limit_output_bytes, max(2 · truesize, sk_pacing_rate >> sk_pacing_shift)), not 3.12's max: not modelled, the limit is tcp_limit_output_bytes"),
    ],
};

/// The lte-switch study's handset. The paper names neither the handset nor its Android
/// release; its newest reference is of September 2013, so it was written around 2014, when
/// Android 5.0 shipped on the android-3.10 kernel.
pub(super) const ANDROID: Profile = Profile {
    name: "android",
    description: "Android 5.0 (Lollipop, 2014) on its Linux 3.10 kernel, on LTE: Linux's TCP \
        of 3.10-3.13 (every linux-3.13 key holds for 3.10: PRR 3.2, TSQ 3.6, the F-RTO \
        rewrite 3.10; but RTT from the timestamp echo, as before 3.13) with Android's LTE socket buffers. Chosen for the lte-switch paper, \
        which names no release and dates from about 2014; Android 4.4 handsets of then ran \
        Linux 3.4, whose F-RTO responded to a spurious timeout differently (rate halving).",
    inherits: Some("linux-3.13"),
    keys: &[
        key("send_buffer", "\"1MiB\"", "AOSP system/core rootdir/init.rc (Android 4.x-5.x): net.tcp.buffersize.lte = 524288,1048576,2097152,262144,524288,1048576, tcp_wmem max 1048576"),
        key("recv_buffer", "\"2MiB\"", "AOSP system/core rootdir/init.rc: net.tcp.buffersize.lte, tcp_rmem max 2097152"),
        key("tsq_truesize", "\"0B\"", "approximated: the handset's driver features (scatter-gather, GSO), which set the skbs' truesize, are not known; each packet counts its IP bytes"),
        key("tsq_pacing", "false", "net/ipv4/tcp_output.c tcp_write_xmit of 3.10: the limit is sysctl_tcp_limit_output_bytes alone (the pacing-rate term came in 3.12)"),
        key("rtt_source", "\"ts_ecr_first\"", "net/ipv4/tcp_input.c tcp_ack_update_rtt of 3.10: tcp_ack_saw_tstamp (the echo) when the ACK has a timestamp, tcp_ack_no_tstamp (Karn) otherwise, only on FLAG_ACKED; packet timing first came in 3.13"),
    ],
};
