// Reference scenario for simulator throughput: N bulk TCP flows share one hop.
//
//   CH_i --(100 Mbps, 10 ms)--+
//                             BS --(1 Gbps, 1 ms)-- SH      (i = 0 .. N-1)
//
// Every CH has its own access link; all flows cross the shared BS -> SH hop,
// whose data direction drops packets i.i.d. with probability `--p` (0.1 %).
// One PacketSink per flow at SH. Prints one JSON object on stdout with the
// work done (packets, events) and its cost (wall time, peak RSS).

#include "scenario_common.h"

using namespace ns3;
using namespace xltcp;

namespace
{

uint64_t g_packetsTransmitted = 0; ///< PhyTxEnd over all point-to-point devices
uint64_t g_retransmissions = 0;    ///< data retransmissions over all senders

void
OnPhyTxEnd(Ptr<const Packet> /* p */)
{
    ++g_packetsTransmitted;
}

void
OnSocketCreated(Ptr<XlSenderSocket> socket)
{
    TraceRetransmissions(socket, &g_retransmissions);
}

} // namespace

int
main(int argc, char* argv[])
{
    auto processStart = std::chrono::steady_clock::now();

    uint32_t flows = 100;
    double duration = 60.0;
    double p = 0.001;
    uint32_t seed = 1;
    bool fixEmulatedSack = true;
    uint32_t queuePackets = 1000;
    double staggerMs = 1.0;
    double connTimeout = 1.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of bulk TCP flows (one CH each)", flows);
    cmd.AddValue("duration", "simulated time in seconds", duration);
    cmd.AddValue("p", "i.i.d. loss probability of data packets on the shared hop", p);
    cmd.AddValue("seed", "ns-3 RngRun (run number)", seed);
    cmd.AddValue("fixEmulatedSack",
                 "drop dupACK-derived SACK marks when SND.UNA advances outside fast recovery, as Linux does",
                 fixEmulatedSack);
    cmd.AddValue("queue", "DropTail queue size of every device, in packets", queuePackets);
    cmd.AddValue("staggerMs", "flow i starts at i * staggerMs milliseconds", staggerMs);
    cmd.AddValue("connTimeout", "initial SYN retransmission timeout in seconds", connTimeout);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcpDefaults(Seconds(connTimeout));

    NodeContainer hosts;
    hosts.Create(flows);
    Ptr<Node> bs = CreateObject<Node>();
    Ptr<Node> sh = CreateObject<Node>();
    NodeContainer all(hosts);
    all.Add(bs);
    all.Add(sh);

    PointToPointHelper access = DropTailLink("100Mbps", "10ms", queuePackets);
    PointToPointHelper shared = DropTailLink("1Gbps", "1ms", queuePackets);

    InternetStackHelper stack;
    stack.Install(all);

    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.0");
    for (uint32_t i = 0; i < flows; ++i)
    {
        addresses.Assign(access.Install(hosts.Get(i), bs));
        addresses.NewNetwork();
    }
    NetDeviceContainer bsSh = shared.Install(bs, sh);
    addresses.SetBase("192.168.0.0", "255.255.255.0");
    Ipv4InterfaceContainer bsShIf = addresses.Assign(bsSh);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Assign() installed FqCoDel on every device; take it off again.
    uint32_t queueDiscsBefore = CountQueueDiscs(all);
    uint32_t queueDiscsAfter = RemoveQueueDiscs(all);

    Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
    loss->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    loss->SetRate(p);
    bsSh.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        auto port = static_cast<uint16_t>(5000 + i);
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer app = sinkHelper.Install(sh);
        app.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(app.Get(0)));

        Ptr<BulkSource> source = CreateObject<BulkSource>();
        source->Setup(InetSocketAddress(bsShIf.GetAddress(1), port), fixEmulatedSack);
        source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
        hosts.Get(i)->AddApplication(source);
        source->SetStartTime(MilliSeconds(staggerMs * i));
    }

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd",
                                  MakeCallback(&OnPhyTxEnd));
    TraceTcDrops(all);

    Simulator::Stop(Seconds(duration));
    auto runStart = std::chrono::steady_clock::now();
    double runCpuStart = CpuSeconds();
    Simulator::Run();
    double runWall = SecondsSince(runStart);
    double runCpu = CpuSeconds() - runCpuStart;
    uint64_t events = Simulator::GetEventCount();

    uint64_t totalRx = 0;
    uint64_t minRx = UINT64_MAX;
    uint64_t maxRx = 0;
    double sumSquares = 0.0; // of per-flow bytes, for Jain's fairness index
    for (const auto& sink : sinks)
    {
        uint64_t rx = sink->GetTotalRx();
        totalRx += rx;
        minRx = std::min(minRx, rx);
        maxRx = std::max(maxRx, rx);
        sumSquares += static_cast<double>(rx) * static_cast<double>(rx);
    }
    double jain = sumSquares > 0.0 ? static_cast<double>(totalRx) * static_cast<double>(totalRx) /
                                         (static_cast<double>(sinks.size()) * sumSquares)
                                   : 0.0;
    uint64_t queueDrops = DeviceQueueDrops(all) + g_tcDrops;

    JsonObject out;
    out.Int("flows", flows)
        .Num("duration_s", duration)
        .Num("p", p)
        .Int("seed", seed)
        .Bool("fix_emulated_sack", fixEmulatedSack)
        .Int("packets", g_packetsTransmitted)
        .Int("events", events)
        .Num("goodput_bps_total", static_cast<double>(totalRx) * 8.0 / duration)
        .Num("goodput_bps_min_flow", static_cast<double>(minRx) * 8.0 / duration)
        .Num("goodput_bps_max_flow", static_cast<double>(maxRx) * 8.0 / duration)
        .Num("jain_index", jain)
        .Int("retransmissions", g_retransmissions)
        .Int("queue_drops", queueDrops)
        .Int("queue_discs_before_removal", queueDiscsBefore)
        .Int("queue_discs_after_removal", queueDiscsAfter)
        .Num("wall_seconds_run", runWall)
        .Num("packets_per_wall_second", static_cast<double>(g_packetsTransmitted) / runWall)
        .Num("events_per_wall_second", static_cast<double>(events) / runWall)
        .Num("cpu_seconds_run", runCpu)
        .Num("packets_per_cpu_second", static_cast<double>(g_packetsTransmitted) / runCpu)
        .Num("events_per_cpu_second", static_cast<double>(events) / runCpu);
    DestroyAndPrint(out, processStart, true);
    return 0;
}
