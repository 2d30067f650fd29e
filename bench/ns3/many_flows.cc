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

/// What --perFlowOut records of one flow.
struct FlowRecord
{
    uint32_t synSent{0};          ///< SYN transmissions (1 + SYN retries)
    uint32_t synArrived{0};       ///< SYNs that reached SH's IP layer
    uint32_t synAckSent{0};       ///< SYN-ACKs SH sent (one per SYN that arrived, plus retries)
    uint64_t retransmissions{0};  ///< data retransmissions
    double establishedS{-1.0};    ///< when the connection reached ESTABLISHED
    double firstSsthreshS{-1.0};  ///< when ssthresh was first lowered (a loss)
    double firstSsthreshSeg{0.0}; ///< the value it was lowered to, in segments
    double maxCwndSeg{0.0};       ///< largest congestion window, in segments
};

std::vector<FlowRecord> g_flowRecords;

void
OnFlowTx(uint32_t i, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (header.GetFlags() & TcpHeader::SYN)
    {
        ++g_flowRecords[i].synSent;
    }
}

void
OnFlowState(uint32_t i, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now)
{
    if (now == TcpSocket::ESTABLISHED && g_flowRecords[i].establishedS < 0)
    {
        g_flowRecords[i].establishedS = Simulator::Now().GetSeconds();
    }
}

void
OnFlowSsthresh(uint32_t i, uint32_t before, uint32_t now)
{
    if (now < before && g_flowRecords[i].firstSsthreshS < 0)
    {
        g_flowRecords[i].firstSsthreshS = Simulator::Now().GetSeconds();
        g_flowRecords[i].firstSsthreshSeg = now / double(kSegmentSize);
    }
}

void
OnFlowCwnd(uint32_t i, uint32_t, uint32_t now)
{
    g_flowRecords[i].maxCwndSeg = std::max(g_flowRecords[i].maxCwndSeg, now / double(kSegmentSize));
}

/// The flow a segment at SH belongs to (sink ports are 5000 + i), with its
/// TCP flags; false when it is not TCP or not a flow's.
bool
ReadFlowFlags(Ptr<const Packet> packet, bool toSh, uint32_t& flow, uint8_t& flags)
{
    Ptr<Packet> copy = packet->Copy();
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return false;
    }
    TcpHeader tcp;
    copy->RemoveHeader(tcp);
    uint16_t port = toSh ? tcp.GetDestinationPort() : tcp.GetSourcePort();
    if (port < 5000 || port - 5000u >= g_flowRecords.size())
    {
        return false;
    }
    flow = port - 5000u;
    flags = tcp.GetFlags();
    return true;
}

/// SH's IP layer received a packet: counts a flow's SYN.
void
OnShIpRx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    uint32_t flow;
    uint8_t flags;
    if (ReadFlowFlags(packet, true, flow, flags) && (flags & TcpHeader::SYN) &&
        !(flags & TcpHeader::ACK))
    {
        ++g_flowRecords[flow].synArrived;
    }
}

/// SH's IP layer sent a packet: counts a flow's SYN-ACK.
void
OnShIpTx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    uint32_t flow;
    uint8_t flags;
    if (ReadFlowFlags(packet, false, flow, flags) && (flags & TcpHeader::SYN) &&
        (flags & TcpHeader::ACK))
    {
        ++g_flowRecords[flow].synAckSent;
    }
}

/// The flow --traceFlow follows (none when negative).
int64_t g_traceFlow = -1;

void
TraceU32(std::string what, uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f %s %u\n", Simulator::Now().GetSeconds(), what.c_str(), now);
}

void
TraceSeq(std::string what, SequenceNumber32, SequenceNumber32 now)
{
    std::fprintf(stderr, "%.6f %s %u\n", Simulator::Now().GetSeconds(), what.c_str(), now.GetValue());
}

void
TraceCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    std::fprintf(stderr, "%.6f cong_state %d\n", Simulator::Now().GetSeconds(), static_cast<int>(now));
}

void
OnFlowSocketCreated(uint32_t i, Ptr<XlSenderSocket> socket)
{
    if (static_cast<int64_t>(i) == g_traceFlow)
    {
        socket->TraceConnectWithoutContext("HighestSequence", MakeBoundCallback(&TraceSeq, std::string("high_seq")));
        socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&TraceSeq, std::string("ack")));
        socket->TraceConnectWithoutContext("CongState", MakeCallback(&TraceCongState));
        socket->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&TraceU32, std::string("in_flight")));
        socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceU32, std::string("cwnd")));
        socket->TraceConnectWithoutContext("CongestionWindowInflated", MakeBoundCallback(&TraceU32, std::string("cwnd_infl")));
    }
    OnSocketCreated(socket);
    socket->TraceConnectWithoutContext("Retransmission",
                                       MakeBoundCallback(&CountRetransmission,
                                                         &g_flowRecords[i].retransmissions));
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnFlowTx, i));
    socket->TraceConnectWithoutContext("State", MakeBoundCallback(&OnFlowState, i));
    socket->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnFlowSsthresh, i));
    socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnFlowCwnd, i));
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
    uint64_t accessDelayNs = 10000000;
    std::string perFlowOut;

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
    cmd.AddValue("accessDelayNs",
                 "propagation delay of every access link in nanoseconds (10 ms by default)",
                 accessDelayNs);
    cmd.AddValue("perFlowOut",
                 "write one CSV line per flow to this file (bytes received, SYNs sent, "
                 "retransmissions, RTOs, when established, first ssthresh and its time, "
                 "largest cwnd, SYNs that reached SH, SYN-ACKs SH sent)",
                 perFlowOut);
    cmd.AddValue("traceFlow",
                 "with perFlowOut: print this flow's highest sequence sent, highest ACK, congestion "
                 "state, bytes in flight and cwnd on stderr at every change",
                 g_traceFlow);
    cmd.Parse(argc, argv);
    g_flowRecords.resize(flows);

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

    PointToPointHelper access =
        DropTailLink("100Mbps", std::to_string(accessDelayNs) + "ns", queuePackets);
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
    std::vector<Ptr<BulkSource>> sources;
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
        if (perFlowOut.empty())
        {
            source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
        }
        else
        {
            source->SetSocketCreatedCallback(MakeBoundCallback(&OnFlowSocketCreated, i));
        }
        sources.push_back(source);
        hosts.Get(i)->AddApplication(source);
        source->SetStartTime(MilliSeconds(staggerMs * i));
    }

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd",
                                  MakeCallback(&OnPhyTxEnd));
    if (!perFlowOut.empty())
    {
        // SH answers every SYN that arrives with a SYN-ACK; the SYN-ACKs beyond
        // those are its own SYN-ACK timeouts (SYN_RCVD with no ACK in time).
        Ptr<Ipv4L3Protocol> shIp = sh->GetObject<Ipv4L3Protocol>();
        shIp->TraceConnectWithoutContext("Rx", MakeCallback(&OnShIpRx));
        shIp->TraceConnectWithoutContext("Tx", MakeCallback(&OnShIpTx));
    }
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

    if (!perFlowOut.empty())
    {
        FILE* f = std::fopen(perFlowOut.c_str(), "w");
        std::fprintf(f,
                     "flow,rx_bytes,syn_sent,retransmissions,rtos,established_s,"
                     "first_ssthresh_s,first_ssthresh_seg,max_cwnd_seg,syn_arrived,syn_ack_sent\n");
        for (uint32_t i = 0; i < flows; ++i)
        {
            const FlowRecord& r = g_flowRecords[i];
            Ptr<XlSenderSocket> socket = sources[i]->GetSocket();
            std::fprintf(f,
                         "%u,%lu,%u,%lu,%lu,%.6f,%.6f,%.2f,%.2f,%u,%u\n",
                         i,
                         static_cast<unsigned long>(sinks[i]->GetTotalRx()),
                         r.synSent,
                         static_cast<unsigned long>(r.retransmissions),
                         static_cast<unsigned long>(socket ? socket->GetRtoCount() : 0),
                         r.establishedS,
                         r.firstSsthreshS,
                         r.firstSsthreshSeg,
                         r.maxCwndSeg,
                         r.synArrived,
                         r.synAckSent);
        }
        std::fclose(f);
    }

    JsonObject out;
    out.Int("flows", flows)
        .Int("access_delay_ns", accessDelayNs)
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
