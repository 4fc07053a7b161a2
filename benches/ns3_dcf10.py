#!/usr/bin/env python3
"""ns-3 (the `ns3==3.44.post0` wheel) side of `benches/wifi-dcf-10.toml`: N saturated 802.11b
stations send 1472-byte UDP datagrams to their AP, for the speed comparison of
`benches/vs_ns3.sh` (and the aggregate goodput, beside Tern's and Bianchi's).

Set up as Tern's scenario is: WIFI_STANDARD_80211b, ConstantRateWifiManager DataMode
DsssRate11Mbps (long preamble, ns-3's default; the Ack goes at 2 Mbit/s, the highest basic rate
not above the data rate, as in Tern), stations 1 m from the AP so that no frame is lost to noise,
each with a UDP CBR source of 2 Mbit/s (OnOff, always on) from 1 s (after association) to the
end, no traffic-control qdiscs. Prints one JSON line: aggregate goodput over the traffic time,
the wall time inside `Simulator::Run()`, that of the set-up before it and of `import ns`, and the
peak RSS.

`--standard g` runs 802.11g instead (WIFI_STANDARD_80211g, ErpOfdmRate54Mbps, the short slot
of an ERP-only BSS, the Ack at 24 Mbit/s), the reference of Tern's 802.11g saturation test
(`crates/tern-sim/tests/wifi.rs`, with `--rate 60Mbps --duration 11`).
"""

import argparse
import json
import resource
import time

p = argparse.ArgumentParser(
    description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
)
p.add_argument("--stations", type=int, default=10)
p.add_argument("--duration", type=float, default=60.0, help="simulated seconds in all")
p.add_argument("--start", type=float, default=1.0, help="traffic start (after association)")
p.add_argument("--run", type=int, default=1)
p.add_argument(
    "--standard",
    choices=["b", "g"],
    default="b",
    help="802.11b at 11 Mbit/s, or 802.11g (ERP-OFDM) at 54 Mbit/s",
)
p.add_argument("--rate", default="2Mbps", help="each station's offered load")
args = p.parse_args()

t_import = time.perf_counter()
from ns import ns  # noqa: E402

t_setup = time.perf_counter()
import_s = t_setup - t_import

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(args.run)
DATA_MODE = {"b": "DsssRate11Mbps", "g": "ErpOfdmRate54Mbps"}[args.standard]
STANDARD = {"b": ns.WIFI_STANDARD_80211b, "g": ns.WIFI_STANDARD_80211g}[args.standard]
ns.Config.SetDefault("ns3::ConstantRateWifiManager::DataMode", ns.StringValue(DATA_MODE))
ns.Config.SetDefault("ns3::ConstantRateWifiManager::ControlMode", ns.StringValue("DsssRate1Mbps"))

ap = ns.NodeContainer()
ap.Create(1)
sta = ns.NodeContainer()
sta.Create(args.stations)
channel = ns.YansWifiChannelHelper.Default()
phy = ns.YansWifiPhyHelper()
phy.SetChannel(channel.Create())
wifi = ns.WifiHelper()
wifi.SetStandard(STANDARD)
wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager")
mac = ns.WifiMacHelper()
ssid = ns.Ssid("dcf")
mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
staDev = wifi.Install(phy, mac, sta)
mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid))
apDev = wifi.Install(phy, mac, ap)

mob = ns.MobilityHelper()
pos = ns.CreateObject[ns.ListPositionAllocator]()
pos.Add(ns.Vector(0.0, 0.0, 0.0))
for _ in range(args.stations):
    pos.Add(ns.Vector(1.0, 0.0, 0.0))
mob.SetPositionAllocator(pos)
mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
mob.Install(ap)
mob.Install(sta)

stack = ns.InternetStackHelper()
stack.Install(ap)
stack.Install(sta)
addr = ns.Ipv4AddressHelper()
addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.0.0"))
apIf = addr.Assign(apDev)
addr.Assign(staDev)
tch = ns.TrafficControlHelper()
tch.Uninstall(staDev)
tch.Uninstall(apDev)

port = 9
anywhere = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
sink = ns.PacketSinkHelper("ns3::UdpSocketFactory", anywhere).Install(ap.Get(0))
sink.Start(ns.Seconds(0.0))
to_ap = ns.InetSocketAddress(apIf.GetAddress(0), port).ConvertTo()
onoff = ns.OnOffHelper("ns3::UdpSocketFactory", to_ap)
onoff.SetConstantRate(ns.DataRate(args.rate), 1472)
apps = onoff.Install(sta)
apps.Start(ns.Seconds(args.start))
apps.Stop(ns.Seconds(args.duration))

ns.Simulator.Stop(ns.Seconds(args.duration))
t0 = time.perf_counter()
setup_s = t0 - t_setup
ns.Simulator.Run()
run_s = time.perf_counter() - t0
rx = ns.DynamicCast[ns.PacketSink](sink.Get(0)).GetTotalRx()
print(
    json.dumps(
        {
            "scenario": f"dcf_{args.standard}_{args.stations}",
            "stations": args.stations,
            "goodput_mbps": rx * 8 / (args.duration - args.start) / 1e6,
            "import_s": import_s,
            "setup_s": setup_s,
            "run_wall_s": run_s,
            "maxrss_kb_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "events": int(ns.Simulator.GetEventCount()),
        }
    )
)
ns.Simulator.Destroy()
