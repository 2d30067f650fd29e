// Reference scenario for simulator throughput on a Wi-Fi cell: N downlink
// bulk TCP flows, each from its own wired host to its own 802.11a station.
//
//   CH_i --(100 Mbps, 10 ms)--+
//                             AP ~~(802.11a, 24 Mbit/s)~~ STA_i   (i = 0 .. N-1)
//
// The Wi-Fi configuration is wifi_tcp's 11a one (YansWifiPhy, DCF, one
// constant rate with ACKs at the control-response rate, RTS/CTS off, 7
// attempts per frame, a 100-packet MAC queue without sojourn limit, fixed
// RSS, preamble detection off, NIST error model); the TCP is the one of
// the other programs. Flow i starts at `--start` + i * `--staggerMs` (after
// the stations have associated) and runs until `--start` + `--duration`.
// Prints one JSON object on stdout with the work done (packets: PhyTxEnd of
// the point-to-point devices plus every Wi-Fi data frame put on the air,
// first tries and retries; events) and its cost (wall time, peak RSS).

#include "scenario_common.h"

#include "ns3/mobility-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>

using namespace ns3;
using namespace xltcp;

namespace
{

/// ns-3's Boltzmann constant (InterferenceHelper::CalculateSnr).
constexpr double kBoltzmann = 1.3803e-23;

uint64_t g_p2pTx = 0;        ///< PhyTxEnd over all point-to-point devices
uint64_t g_wifiDataTx = 0;   ///< Wi-Fi data frames put on the air
uint64_t g_wifiRetries = 0;  ///< of which carried the Retry bit
uint64_t g_retransmissions = 0;
uint64_t g_dropsRetryLimit = 0;

void
OnPhyTxEnd(Ptr<const Packet> /* p */)
{
    ++g_p2pTx;
}

void
OnSniffTx(Ptr<const Packet> packet,
          uint16_t /* freq */,
          WifiTxVector /* txVector */,
          MpduInfo /* a */,
          uint16_t /* staId */)
{
    if (packet->GetSize() < 10)
    {
        return;
    }
    WifiMacHeader hdr;
    packet->PeekHeader(hdr);
    if (hdr.IsData())
    {
        ++g_wifiDataTx;
        g_wifiRetries += hdr.IsRetry() ? 1 : 0;
    }
}

void
OnDropped(WifiMacDropReason reason, Ptr<const WifiMpdu> /* mpdu */)
{
    if (reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        ++g_dropsRetryLimit;
    }
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

    uint32_t stations = 10;
    double snrDb = 30.0;
    double noiseFigureDb = 7.0;
    uint32_t seed = 1;
    double duration = 30.0;
    double start = 1.0;
    double staggerMs = 1.0;
    uint32_t queuePackets = 100;
    uint32_t retryLimit = 7;
    bool fixEmulatedSack = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("stations", "number of Wi-Fi stations, one flow and one CH each", stations);
    cmd.AddValue("snr", "SNR at the receivers in dB (sets the fixed RSS)", snrDb);
    cmd.AddValue("noiseFigure", "receiver noise figure in dB", noiseFigureDb);
    cmd.AddValue("seed", "ns-3 RngRun (run number)", seed);
    cmd.AddValue("duration", "simulated seconds after the start", duration);
    cmd.AddValue("start", "start of the first flow in seconds", start);
    cmd.AddValue("staggerMs", "flow i starts i * staggerMs milliseconds after the first", staggerMs);
    cmd.AddValue("queue", "Wi-Fi MAC queue and wired device queues, packets", queuePackets);
    cmd.AddValue("retryLimit", "WifiMac::FrameRetryLimit (attempts per frame)", retryLimit);
    cmd.AddValue("fixEmulatedSack", "emulated-SACK fix of the TCP sender", fixEmulatedSack);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcpDefaults(Seconds(1));

    ConfigureWifiMacDefaults(retryLimit, queuePackets);

    const double noiseW = kBoltzmann * 290.0 * 20e6 * std::pow(10.0, noiseFigureDb / 10);
    const double rssDbm = 10.0 * std::log10(noiseW * 1000.0) + snrDb;

    NodeContainer chs;
    chs.Create(stations);
    Ptr<Node> ap = CreateObject<Node>();
    NodeContainer stas;
    stas.Create(stations);
    NodeContainer all(chs);
    all.Add(ap);
    all.Add(stas);

    PointToPointHelper wired = DropTailLink("100Mbps", "10ms", queuePackets);

    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(rssDbm));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.SetErrorRateModel("ns3::NistErrorRateModel");
    phy.DisablePreambleDetectionModel();
    phy.Set("RxNoiseFigure", DoubleValue(noiseFigureDb));
    phy.Set("RxSensitivity", DoubleValue(-200.0));

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("OfdmRate24Mbps"),
                                 "ControlMode",
                                 StringValue("OfdmRate6Mbps"));
    WifiMacHelper mac;
    Ssid ssid("xltcp");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "ActiveProbing", BooleanValue(false));
    NetDeviceContainer staDevs = wifi.Install(phy, mac, stas);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    NetDeviceContainer apDev = wifi.Install(phy, mac, ap);

    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(ap);
    mobility.Install(stas);

    InternetStackHelper stack;
    stack.Install(all);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.0");
    for (uint32_t i = 0; i < stations; ++i)
    {
        addresses.Assign(wired.Install(chs.Get(i), ap));
        addresses.NewNetwork();
    }
    addresses.SetBase("192.168.0.0", "255.255.0.0");
    Ipv4InterfaceContainer wifiIf = addresses.Assign(NetDeviceContainer(apDev, staDevs));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    uint32_t queueDiscsBefore = CountQueueDiscs(all);
    uint32_t queueDiscsAfter = RemoveQueueDiscs(all);

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < stations; ++i)
    {
        const uint16_t port = 5000;
        sinks.push_back(InstallTcpSink(stas.Get(i), port));
        Ptr<BulkSource> source = CreateObject<BulkSource>();
        source->Setup(InetSocketAddress(wifiIf.GetAddress(1 + i), port), fixEmulatedSack);
        source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
        chs.Get(i)->AddApplication(source);
        source->SetStartTime(Seconds(start) + MilliSeconds(staggerMs * i));
    }

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd",
                                  MakeCallback(&OnPhyTxEnd));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/MonitorSnifferTx",
                                  MakeCallback(&OnSniffTx));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                                  MakeCallback(&OnDropped));
    TraceTcDrops(all);

    Simulator::Stop(Seconds(start + duration));
    auto runStart = std::chrono::steady_clock::now();
    double runCpuStart = CpuSeconds();
    Simulator::Run();
    double runWall = SecondsSince(runStart);
    double runCpu = CpuSeconds() - runCpuStart;
    uint64_t events = Simulator::GetEventCount();

    uint64_t totalRx = 0;
    uint64_t minRx = UINT64_MAX;
    uint64_t maxRx = 0;
    for (const auto& sink : sinks)
    {
        uint64_t rx = sink->GetTotalRx();
        totalRx += rx;
        minRx = std::min(minRx, rx);
        maxRx = std::max(maxRx, rx);
    }
    const uint64_t packets = g_p2pTx + g_wifiDataTx;

    JsonObject out;
    out.Int("stations", stations)
        .Num("snr_db", snrDb)
        .Int("seed", seed)
        .Num("start_s", start)
        .Num("duration_s", duration)
        .Int("packets", packets)
        .Int("p2p_packets", g_p2pTx)
        .Int("wifi_data_frames", g_wifiDataTx)
        .Int("wifi_retries", g_wifiRetries)
        .Int("wifi_drops_retry_limit", g_dropsRetryLimit)
        .Int("events", events)
        .Num("goodput_bps_total", static_cast<double>(totalRx) * 8.0 / duration)
        .Num("goodput_bps_min_flow", static_cast<double>(minRx) * 8.0 / duration)
        .Num("goodput_bps_max_flow", static_cast<double>(maxRx) * 8.0 / duration)
        .Int("retransmissions", g_retransmissions)
        .Int("queue_drops", DeviceQueueDrops(all) + g_tcDrops)
        .Int("queue_discs_before_removal", queueDiscsBefore)
        .Int("queue_discs_after_removal", queueDiscsAfter)
        .Num("wall_seconds_run", runWall)
        .Num("packets_per_wall_second", static_cast<double>(packets) / runWall)
        .Num("events_per_wall_second", static_cast<double>(events) / runWall)
        .Num("cpu_seconds_run", runCpu);
    DestroyAndPrint(out, processStart, true);
    return 0;
}
