// Reference scenario: one bulk TCP flow (or a saturating UDP flow) from a
// wired host through an access point to one Wi-Fi station, at a fixed SNR.
//
//   CH --(100 Mbps, 10 ms)-- AP ~~(802.11b or 802.11a)~~ STA
//
// The received power is fixed (FixedRssLossModel), so the SNR the PHY
// computes is RSS / (k * 290 K * B * NF), with B the channel width of the
// frame (22 MHz for DSSS, 20 MHz for OFDM) and NF the receiver noise figure.
// One constant rate (ConstantRateWifiManager), DCF (no QoS), RTS/CTS off,
// preamble detection off (every frame is decoded and the error-rate model
// alone decides). Prints one JSON object on stdout.

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

struct Counters
{
    // TCP sender.
    uint64_t dataSegmentsSent{0};
    uint64_t retransmissions{0};
    // Downlink data frames AP -> STA.
    uint64_t apDataAttempts{0}; ///< PHY transmissions (first tries and retries)
    uint64_t apDataRetries{0};  ///< of which carried the Retry bit
    uint64_t apDataBytes{0};    ///< sum of their PSDU sizes
    uint32_t apDataMaxPsdu{0};  ///< largest PSDU seen
    uint64_t staDataRx{0};      ///< of which the STA decoded
    double snrSumDb{0};         ///< sum of signal - noise (dB) over those
    double noiseSumDbm{0};      ///< sum of the noise (dBm) over those
    // Uplink data frames STA -> AP (TCP ACKs).
    uint64_t staDataAttempts{0};
    uint64_t staDataRetries{0};
    // MAC drops at the AP.
    uint64_t apDropRetryLimit{0};
    uint64_t apDropQueue{0};
    uint64_t apDropOther{0};
    uint64_t staDropRetryLimit{0};
    // Modes seen.
    std::string dataModeSeen;
    std::string ackModeSeen;
    std::string preambleSeen;
    double associatedAt{-1.0};
    // Received application bytes in the measurement window.
    uint64_t sinkBytesInWindow{0};
};

Counters g;
WifiPhyBand g_band{WIFI_PHY_BAND_2_4GHZ};
/// Downlink data attempts (start, end) in ns, every STA transmission (start,
/// end), and the end times of the downlink data frames the STA decoded.
std::vector<std::pair<int64_t, int64_t>> g_apAttempts;
std::vector<std::pair<int64_t, int64_t>> g_staTx;
std::vector<int64_t> g_staRxOkEnd;
Mac48Address g_apAddr;
Mac48Address g_staAddr;
Time g_windowStart;

bool
ParseMacHeader(Ptr<const Packet> packet, WifiMacHeader& hdr)
{
    if (packet->GetSize() < 10)
    {
        return false;
    }
    packet->PeekHeader(hdr);
    return true;
}

std::string
PreambleName(WifiPreamble p)
{
    switch (p)
    {
    case WIFI_PREAMBLE_LONG:
        return "long";
    case WIFI_PREAMBLE_SHORT:
        return "short";
    default:
        return "other";
    }
}

void
OnApSniffTx(Ptr<const Packet> packet,
            uint16_t /* freq */,
            WifiTxVector txVector,
            MpduInfo /* a */,
            uint16_t /* staId */)
{
    WifiMacHeader hdr;
    if (!ParseMacHeader(packet, hdr))
    {
        return;
    }
    if (hdr.IsData() && hdr.GetAddr1() == g_staAddr)
    {
        ++g.apDataAttempts;
        int64_t t0 = Simulator::Now().GetNanoSeconds();
        g_apAttempts.emplace_back(
            t0,
            t0 + WifiPhy::CalculateTxDuration(packet->GetSize(), txVector, g_band).GetNanoSeconds());
        g.apDataRetries += hdr.IsRetry() ? 1 : 0;
        g.apDataBytes += packet->GetSize();
        g.apDataMaxPsdu = std::max(g.apDataMaxPsdu, packet->GetSize());
        g.dataModeSeen = txVector.GetMode().GetUniqueName();
        g.preambleSeen = PreambleName(txVector.GetPreambleType());
    }
}

void
OnStaSniffTx(Ptr<const Packet> packet,
             uint16_t /* freq */,
             WifiTxVector txVector,
             MpduInfo /* a */,
             uint16_t /* staId */)
{
    int64_t t0 = Simulator::Now().GetNanoSeconds();
    g_staTx.emplace_back(
        t0,
        t0 + WifiPhy::CalculateTxDuration(packet->GetSize(), txVector, g_band).GetNanoSeconds());
    WifiMacHeader hdr;
    if (!ParseMacHeader(packet, hdr))
    {
        return;
    }
    if (hdr.IsAck())
    {
        g.ackModeSeen = txVector.GetMode().GetUniqueName();
    }
    else if (hdr.IsData() && hdr.GetAddr1() == g_apAddr)
    {
        ++g.staDataAttempts;
        g.staDataRetries += hdr.IsRetry() ? 1 : 0;
    }
}

void
OnStaSniffRx(Ptr<const Packet> packet,
             uint16_t /* freq */,
             WifiTxVector /* txVector */,
             MpduInfo /* a */,
             SignalNoiseDbm sn,
             uint16_t /* staId */)
{
    WifiMacHeader hdr;
    if (!ParseMacHeader(packet, hdr))
    {
        return;
    }
    if (hdr.IsData() && hdr.GetAddr1() == g_staAddr && hdr.GetAddr2() == g_apAddr)
    {
        ++g.staDataRx;
        g_staRxOkEnd.push_back(Simulator::Now().GetNanoSeconds());
        g.snrSumDb += sn.signal - sn.noise;
        g.noiseSumDbm += sn.noise;
    }
}

void
OnApDropped(WifiMacDropReason reason, Ptr<const WifiMpdu> /* mpdu */)
{
    switch (reason)
    {
    case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
        ++g.apDropRetryLimit;
        break;
    case WIFI_MAC_DROP_FAILED_ENQUEUE:
    case WIFI_MAC_DROP_EXPIRED_LIFETIME:
        ++g.apDropQueue;
        break;
    default:
        ++g.apDropOther;
    }
}

void
OnStaDropped(WifiMacDropReason reason, Ptr<const WifiMpdu> /* mpdu */)
{
    if (reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        ++g.staDropRetryLimit;
    }
}

void
OnAssoc(Mac48Address /* bssid */)
{
    if (g.associatedAt < 0)
    {
        g.associatedAt = Simulator::Now().GetSeconds();
    }
}

void
OnSocketCreated(Ptr<XlSenderSocket> socket)
{
    TraceDataSegmentsSent(socket, &g.dataSegmentsSent);
    TraceRetransmissions(socket, &g.retransmissions);
}

void
OnSinkRx(Ptr<const Packet> packet, const Address& /* from */)
{
    if (Simulator::Now() >= g_windowStart)
    {
        g.sinkBytesInWindow += packet->GetSize();
    }
}

/// Outcome of the downlink data attempts, split by whether the STA was
/// transmitting at the same time (a collision: the STA cannot receive).
struct AttemptStats
{
    uint64_t collided{0};        ///< attempts overlapping an STA transmission
    uint64_t clean{0};           ///< the others
    uint64_t cleanDecoded{0};    ///< clean attempts the STA decoded
    uint64_t unmatchedDecoded{0}; ///< decoded frames matched to no attempt (should be 0)
    uint64_t unfinished{0};      ///< attempts still on the air at the end (left out)
};

AttemptStats
ClassifyAttempts(int64_t stopNs)
{
    AttemptStats st;
    // A decoded frame ends at the attempt's end plus the propagation delay
    // (a few ns at 5 m); match within 1 us.
    const int64_t tol = 1000;
    size_t rx = 0;
    size_t tx = 0;
    for (const auto& [a, b] : g_apAttempts)
    {
        if (b + tol > stopNs)
        {
            ++st.unfinished; // still on the air when the run stopped
            continue;
        }
        while (tx < g_staTx.size() && g_staTx[tx].second <= a)
        {
            ++tx;
        }
        bool collided = false;
        for (size_t k = tx; k < g_staTx.size() && g_staTx[k].first < b; ++k)
        {
            collided = collided || g_staTx[k].second > a;
        }
        bool decoded = false;
        while (rx < g_staRxOkEnd.size() && g_staRxOkEnd[rx] < b - tol)
        {
            ++st.unmatchedDecoded;
            ++rx;
        }
        if (rx < g_staRxOkEnd.size() && g_staRxOkEnd[rx] <= b + tol)
        {
            decoded = true;
            ++rx;
        }
        if (collided)
        {
            ++st.collided;
        }
        else
        {
            ++st.clean;
            st.cleanDecoded += decoded ? 1 : 0;
        }
    }
    st.unmatchedDecoded += g_staRxOkEnd.size() - rx;
    return st;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto processStart = std::chrono::steady_clock::now();

    std::string standard = "11b";
    std::string errorModel = "nist";
    double snrDb = 30.0;
    double noiseFigureDb = 7.0;
    uint32_t seed = 1;
    double duration = 30.0;
    double start = 1.0;
    uint32_t queuePackets = 100;
    uint32_t retryLimit = 7;
    bool udp = false;
    std::string udpRate;
    uint32_t udpPayload = 1472;
    bool fixEmulatedSack = true;
    std::string wiredDelay = "10ms";

    CommandLine cmd(__FILE__);
    cmd.AddValue("standard", "11b (DSSS 11 Mbit/s) or 11a (OFDM 24 Mbit/s)", standard);
    cmd.AddValue("errorModel", "nist or yans", errorModel);
    cmd.AddValue("snr", "SNR at the receivers in dB (sets the fixed RSS)", snrDb);
    cmd.AddValue("noiseFigure", "receiver noise figure in dB", noiseFigureDb);
    cmd.AddValue("seed", "ns-3 RngRun (run number) of this replication", seed);
    cmd.AddValue("duration", "measured time in seconds, after the start", duration);
    cmd.AddValue("start", "start of the flow (and of the measurement) in seconds", start);
    cmd.AddValue("queue", "Wi-Fi MAC queue and wired device queues, packets", queuePackets);
    cmd.AddValue("retryLimit", "WifiMac::FrameRetryLimit (attempts per frame)", retryLimit);
    cmd.AddValue("udp", "saturating UDP flow instead of TCP", udp);
    cmd.AddValue("udpRate", "offered UDP rate (default 2x the PHY rate)", udpRate);
    cmd.AddValue("udpPayload", "UDP payload bytes (1472: 1500-byte IP packets)", udpPayload);
    cmd.AddValue("fixEmulatedSack", "emulated-SACK fix of the TCP sender", fixEmulatedSack);
    cmd.AddValue("wiredDelay", "delay of the wired link", wiredDelay);
    cmd.Parse(argc, argv);

    const bool is11b = standard == "11b";
    if (!is11b && standard != "11a")
    {
        std::fprintf(stderr, "--standard must be 11b or 11a\n");
        return 2;
    }
    if (errorModel != "nist" && errorModel != "yans")
    {
        std::fprintf(stderr, "--errorModel must be nist or yans\n");
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcpDefaults(Seconds(1));

    // Wi-Fi MAC: one attempt counter per frame (ns-3 3.44 follows 802.11-2020:
    // FrameRetryLimit, i.e. dot11ShortRetryLimit = 7; all frames are below
    // the RTS threshold, so the long retry limit never applies). MAC queue of
    // `queue` packets with no sojourn-time limit (default 500 ms).
    ConfigureWifiMacDefaults(retryLimit, queuePackets);

    g_band = is11b ? WIFI_PHY_BAND_2_4GHZ : WIFI_PHY_BAND_5GHZ;
    const std::string dataMode = is11b ? "DsssRate11Mbps" : "OfdmRate24Mbps";
    const std::string controlMode = is11b ? "DsssRate2Mbps" : "OfdmRate6Mbps";
    // The width InterferenceHelper::CalculateSnr uses: 20 MHz for OFDM and,
    // in ns-3 3.44, for DSSS frames too (checked against the noise the PHY
    // reports in MonitorSnifferRx, `noise_dbm_seen`).
    const double widthMhz = 20.0;
    const double noiseW = kBoltzmann * 290.0 * widthMhz * 1e6 * std::pow(10.0, noiseFigureDb / 10);
    const double noiseDbm = 10.0 * std::log10(noiseW * 1000.0);
    const double rssDbm = noiseDbm + snrDb;

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> ch = nodes.Get(0);
    Ptr<Node> ap = nodes.Get(1);
    Ptr<Node> sta = nodes.Get(2);

    PointToPointHelper wired = DropTailLink("100Mbps", wiredDelay, queuePackets);
    NetDeviceContainer chAp = wired.Install(ch, ap);

    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(rssDbm));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.SetErrorRateModel(errorModel == "nist" ? "ns3::NistErrorRateModel"
                                               : "ns3::YansErrorRateModel");
    phy.DisablePreambleDetectionModel();
    phy.Set("RxNoiseFigure", DoubleValue(noiseFigureDb));
    phy.Set("RxSensitivity", DoubleValue(-200.0));

    WifiHelper wifi;
    wifi.SetStandard(is11b ? WIFI_STANDARD_80211b : WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(dataMode),
                                 "ControlMode",
                                 StringValue(controlMode));

    WifiMacHelper mac;
    Ssid ssid("xltcp");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "ActiveProbing", BooleanValue(false));
    NetDeviceContainer staDev = wifi.Install(phy, mac, sta);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    NetDeviceContainer apDev = wifi.Install(phy, mac, ap);

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    pos->Add(Vector(5, 0, 0));
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(NodeContainer(ap, sta));

    Ipv4InterfaceContainer wifiIf =
        AssignTwoHopAddresses(nodes, chAp, NetDeviceContainer(apDev, staDev));
    uint32_t queueDiscsBefore = CountQueueDiscs(nodes);
    uint32_t queueDiscsAfter = RemoveQueueDiscs(nodes);

    Ptr<WifiNetDevice> apWifi = DynamicCast<WifiNetDevice>(apDev.Get(0));
    Ptr<WifiNetDevice> staWifi = DynamicCast<WifiNetDevice>(staDev.Get(0));
    g_apAddr = apWifi->GetMac()->GetAddress();
    g_staAddr = staWifi->GetMac()->GetAddress();
    apWifi->GetPhy()->TraceConnectWithoutContext("MonitorSnifferTx", MakeCallback(&OnApSniffTx));
    staWifi->GetPhy()->TraceConnectWithoutContext("MonitorSnifferTx", MakeCallback(&OnStaSniffTx));
    staWifi->GetPhy()->TraceConnectWithoutContext("MonitorSnifferRx", MakeCallback(&OnStaSniffRx));
    apWifi->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&OnApDropped));
    staWifi->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&OnStaDropped));
    staWifi->GetMac()->TraceConnectWithoutContext("Assoc", MakeCallback(&OnAssoc));
    TraceTcDrops(nodes);

    g_windowStart = Seconds(start);
    const uint16_t port = 5000;
    Ptr<BulkSource> source;
    const Address staAddr = InetSocketAddress(wifiIf.GetAddress(1), port);
    if (udp)
    {
        if (udpRate.empty())
        {
            udpRate = is11b ? "22Mbps" : "48Mbps";
        }
        OnOffHelper onoff("ns3::UdpSocketFactory", staAddr);
        onoff.SetConstantRate(DataRate(udpRate), udpPayload);
        onoff.Install(ch).Start(Seconds(start));
        PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApps = sinkHelper.Install(sta);
        sinkApps.Start(Seconds(0));
        sinkApps.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx));
    }
    else
    {
        InstallTcpSink(sta, port)->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx));
        source = CreateObject<BulkSource>();
        source->Setup(staAddr, fixEmulatedSack);
        source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
        ch->AddApplication(source);
        source->SetStartTime(Seconds(start));
    }

    Simulator::Stop(Seconds(start + duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall = SecondsSince(runStart);

    // The error-rate model's PER for the largest downlink data frame at this
    // SNR: PHY header (DSSS: 48 bits at 1 Mbit/s; OFDM: 24-bit SIGNAL at
    // 6 Mbit/s) times the PSDU at the data rate.
    double modelPer = -1.0;
    if (g.apDataMaxPsdu > 0)
    {
        Ptr<ErrorRateModel> erm;
        if (errorModel == "nist")
        {
            erm = CreateObject<NistErrorRateModel>();
        }
        else
        {
            erm = CreateObject<YansErrorRateModel>();
        }
        WifiMode data = is11b ? DsssPhy::GetDsssRate11Mbps() : OfdmPhy::GetOfdmRate24Mbps();
        WifiMode header = is11b ? DsssPhy::GetDsssRate1Mbps() : OfdmPhy::GetOfdmRate6Mbps();
        WifiTxVector v;
        v.SetMode(data);
        v.SetPreambleType(WIFI_PREAMBLE_LONG);
        v.SetChannelWidth(MHz_u{widthMhz});
        double snr = std::pow(10.0, snrDb / 10.0);
        double psr = erm->GetChunkSuccessRate(data, v, snr, 8ULL * g.apDataMaxPsdu) *
                     erm->GetChunkSuccessRate(header,
                                              v,
                                              snr,
                                              is11b ? 48 : 24,
                                              1,
                                              WIFI_PPDU_FIELD_NON_HT_HEADER);
        modelPer = 1.0 - psr;
    }

    AttemptStats att = ClassifyAttempts(Seconds(start + duration).GetNanoSeconds());
    Ptr<XlSenderSocket> socket = source ? source->GetSocket() : nullptr;
    auto ratio = [](double a, double b) { return b > 0 ? a / b : -1.0; };
    JsonObject out;
    out.Str("standard", standard)
        .Str("mode", udp ? "udp" : "tcp")
        .Str("error_model", errorModel)
        .Str("data_mode", dataMode)
        .Str("control_mode", controlMode)
        .Str("data_mode_seen", g.dataModeSeen)
        .Str("ack_mode_seen", g.ackModeSeen)
        .Str("preamble_seen", g.preambleSeen)
        .Int("seed", seed)
        .Num("duration_s", duration)
        .Num("snr_db", snrDb)
        .Num("noise_figure_db", noiseFigureDb)
        .Num("noise_dbm", noiseDbm)
        .Num("rss_dbm", rssDbm)
        .Num("snr_db_seen", ratio(g.snrSumDb, g.staDataRx))
        .Num("noise_dbm_seen", ratio(g.noiseSumDbm, g.staDataRx))
        .Num("associated_at_s", g.associatedAt)
        .Num("goodput_bps", g.sinkBytesInWindow * 8.0 / duration)
        .Int("bytes_delivered", g.sinkBytesInWindow)
        .Int("data_segments_sent", g.dataSegmentsSent)
        .Int("retransmissions", g.retransmissions)
        .Int("rto_count", socket ? socket->GetRtoCount() : 0)
        .Int("mac_data_attempts", g.apDataAttempts)
        .Int("mac_retries", g.apDataRetries)
        .Int("mac_drops_retry_limit", g.apDropRetryLimit)
        .Int("mac_drops_queue", g.apDropQueue)
        .Int("mac_drops_other", g.apDropOther)
        .Int("data_frames_received", g.staDataRx)
        .Num("observed_per",
             ratio(static_cast<double>(att.collided + att.clean - att.cleanDecoded),
                   static_cast<double>(att.collided + att.clean)))
        .Int("collided_attempts", att.collided)
        .Num("observed_per_without_collisions",
             ratio(static_cast<double>(att.clean - att.cleanDecoded),
                   static_cast<double>(att.clean)))
        .Int("decoded_unmatched", att.unmatchedDecoded)
        .Num("model_per", modelPer)
        .Int("data_psdu_bytes_max", g.apDataMaxPsdu)
        .Num("data_psdu_bytes_mean", ratio(g.apDataBytes, g.apDataAttempts))
        .Int("uplink_data_attempts", g.staDataAttempts)
        .Int("uplink_mac_retries", g.staDataRetries)
        .Int("uplink_drops_retry_limit", g.staDropRetryLimit)
        .Int("tc_drops", g_tcDrops)
        .Int("wired_queue_drops", DeviceQueueDrops(nodes))
        .Int("queue_discs_before_removal", queueDiscsBefore)
        .Int("queue_discs_after_removal", queueDiscsAfter)
        .Int("events", Simulator::GetEventCount())
        .Num("wall_seconds_run", runWall);
    DestroyAndPrint(out, processStart);
    return 0;
}
