#!/usr/bin/env python3
"""ns-3 3.44 (PyPI wheel `ns3`) reference for TCP BBR on the shared point-to-point scenario:
n0 --[10 Mbit/s, 20 ms one-way, DropTail 100-packet device queue]-- n1, one bulk TCP flow
n0 -> n1 with ns3::TcpBbr (pacing on, as TcpBbr needs), SACK and timestamps, MSS 1448 B,
4 MiB socket buffers, FqCoDel removed (the set-up of /work/shared/bench/ns3/p2p_bulk.py).

Prints one JSON line: goodput, the device queue's mean and maximum (sampled every 1 ms), the
median pacing rate from 2 s on (the socket's `PacingRate` trace sampled every 10 ms), and
the instants the congestion window fell to 4 segments or below (PROBE_RTT). `--delack-count 1`
has the receiver ACK every segment. Run with the ns-3 wheel's Python:
`python benches/ns3_bbr_p2p.py --duration 30`.
"""

import argparse
import bisect
import json

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--duration", type=float, default=30.0)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--delack-count", type=int, default=2)
args = p.parse_args()

from ns import ns  # noqa: E402

cppyy = ns.cppyy
cppyy.cppdef(r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
namespace bbrbench {
using namespace ns3;
Ptr<Queue<Packet>> q;
uint64_t qSamples = 0; double qSum = 0; uint32_t qMax = 0;
std::vector<double> dips; std::vector<double> ups; uint32_t lastCwnd = 0;
void Sample() {
  uint32_t n = q->GetNPackets(); qSamples++; qSum += n; if (n > qMax) qMax = n;
  Simulator::Schedule(MilliSeconds(1), &Sample);
}
void Cwnd(uint32_t o, uint32_t n) {
  if (n <= 4 * 1448 && lastCwnd > 4 * 1448) dips.push_back(Simulator::Now().GetSeconds());
  if (n > 4 * 1448 && lastCwnd <= 4 * 1448 && !dips.empty())
    ups.push_back(Simulator::Now().GetSeconds());
  lastCwnd = n;
}
std::vector<double> paceT; std::vector<double> paceV;
void Pacing(DataRate o, DataRate n) {
  paceT.push_back(Simulator::Now().GetSeconds()); paceV.push_back(n.GetBitRate());
}
void ConnectSocket() {
  Config::ConnectWithoutContext(
    "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongestionWindow", MakeCallback(&Cwnd));
  Config::ConnectWithoutContext(
    "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/PacingRate", MakeCallback(&Pacing));
}
void Start(Ptr<NetDevice> d0) {
  q = DynamicCast<PointToPointNetDevice>(d0)->GetQueue();
  Simulator::Schedule(Seconds(0), &Sample);
  Simulator::Schedule(NanoSeconds(1), &ConnectSocket);
}
}
""")
B = cppyy.gbl.bbrbench

ns.RngSeedManager.SetSeed(args.seed)
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpBbr"))
ns.Config.SetDefault("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(4 << 20))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(args.delack_count))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(4 << 20))

nodes = ns.NodeContainer()
nodes.Create(2)
p2p = ns.PointToPointHelper()
p2p.SetDeviceAttribute("DataRate", ns.StringValue("10Mbps"))
p2p.SetChannelAttribute("Delay", ns.StringValue("20ms"))
p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize("100p")))
devs = p2p.Install(nodes)
ns.InternetStackHelper().Install(nodes)
addr = ns.Ipv4AddressHelper()
addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
ifs = addr.Assign(devs)
ns.TrafficControlHelper().Uninstall(devs)

port = 5000
sink = ns.PacketSinkHelper(
    "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
).Install(nodes.Get(1))
sink.Start(ns.Seconds(0.0))
bulk = ns.BulkSendHelper(
    "ns3::TcpSocketFactory", ns.InetSocketAddress(ifs.GetAddress(1), port).ConvertTo()
)
bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
bulk.SetAttribute("SendSize", ns.UintegerValue(1448))
apps = bulk.Install(nodes.Get(0))
apps.Start(ns.Seconds(0.0))
apps.Stop(ns.Seconds(args.duration))
B.Start(devs.Get(0))
ns.Simulator.Stop(ns.Seconds(args.duration))
ns.Simulator.Run()
rx = int(sink.Get(0).GetObject[ns.PacketSink]().GetTotalRx())
pace_t, pace_v = list(B.paceT), list(B.paceV)
grid = [2.0 + 0.01 * k for k in range(int((args.duration - 2.0) / 0.01))]
paced = sorted(pace_v[bisect.bisect_right(pace_t, g) - 1] for g in grid)
print(
    json.dumps(
        {
            "simulator": "ns-3.44 TcpBbr",
            "duration_s": args.duration,
            "goodput_mbps": rx * 8 / args.duration / 1e6,
            "queue_mean_packets": B.qSum / max(B.qSamples, 1),
            "queue_max_packets": int(B.qMax),
            "pacing_median_mbps": paced[len(paced) // 2] / 1e6,
            "probe_rtt_starts_s": [float(x) for x in B.dips],
            "probe_rtt_ends_s": [float(x) for x in B.ups],
        }
    )
)
ns.Simulator.Destroy()
