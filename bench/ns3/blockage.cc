// Reference scenario: one bulk TCP flow over a last hop shared with a primary
// user (PU) that the sender cannot sense.
//
//   CH --(wired)-- BS --(wireless point-to-point)-- SH
//
// The PU alternates between OFF (the hop is available) and ON (the hop is
// blocked) with exponential durations, starting with an OFF period. Its
// schedule is drawn up front from its own random stream, so it is the same
// whatever TCP does. While the PU is ON the transmitters keep sending, and
// every frame whose reception ends inside an ON period is destroyed (an
// error model on both devices of the wireless hop). Prints one JSON object on
// stdout; optionally writes the blocked intervals to a file.

#include "last_hop.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <fstream>

using namespace ns3;
using namespace xltcp;

namespace
{

/// Blocked (PU ON) intervals [start, end) in nanoseconds, sorted and disjoint.
using Schedule = std::vector<std::pair<int64_t, int64_t>>;

/**
 * Draws the PU schedule: OFF (available) first, then ON, OFF, ... until the
 * end of the run. Durations are exponential, rounded to whole nanoseconds
 * (at least 1 ns) and accumulated as integers, so the interval file
 * reproduces the schedule exactly.
 */
Schedule
DrawSchedule(double onMeanS, double offMeanS, double durationS, int64_t stream)
{
    Ptr<ExponentialRandomVariable> on = CreateObject<ExponentialRandomVariable>();
    on->SetAttribute("Mean", DoubleValue(onMeanS));
    on->SetStream(stream);
    Ptr<ExponentialRandomVariable> off = CreateObject<ExponentialRandomVariable>();
    off->SetAttribute("Mean", DoubleValue(offMeanS));
    off->SetStream(stream + 1);

    auto draw = [](Ptr<ExponentialRandomVariable> rv) {
        return std::max<int64_t>(1, std::llround(rv->GetValue() * 1e9));
    };
    const auto end = static_cast<int64_t>(std::llround(durationS * 1e9));
    Schedule blocked;
    int64_t t = draw(off);
    while (t < end)
    {
        int64_t stop = t + draw(on);
        blocked.emplace_back(t, stop);
        t = stop + draw(off);
    }
    return blocked;
}

/// Whether time `t` (ns) falls inside a blocked interval.
bool
IsBlocked(const Schedule& s, int64_t t)
{
    // First interval whose start is > t; the one before it may contain t.
    auto it = std::upper_bound(s.begin(), s.end(), std::make_pair(t, INT64_MAX));
    if (it == s.begin())
    {
        return false;
    }
    --it;
    return t >= it->first && t < it->second;
}

/// Whether [a, b) (ns) overlaps a blocked interval.
bool
OverlapsBlocked(const Schedule& s, int64_t a, int64_t b)
{
    // First interval ending after a; it overlaps if it starts before b.
    auto it = std::upper_bound(s.begin(), s.end(), a, [](int64_t t, const auto& iv) {
        return t < iv.second;
    });
    return it != s.end() && it->first < b;
}

/**
 * Error model of a wireless device: corrupts the packets the PU destroys.
 * PointToPointNetDevice asks its ReceiveErrorModel when the last bit of the
 * frame has arrived (start of transmission + serialisation + propagation
 * delay). Rule "rx-end" (default): the frame is lost iff that instant is
 * inside a blocked interval. Rule "airtime": lost iff its transmission
 * interval at the sender, [end of reception - delay - size * 8 / rate,
 * end of reception - delay), overlaps a blocked interval (the packet still
 * carries its 2-byte PPP header here, so size is the frame on the wire).
 */
class PuErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::PuErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<PuErrorModel>();
        return tid;
    }

    void SetSchedule(const Schedule* schedule)
    {
        m_schedule = schedule;
    }

    /// Use the airtime-overlap rule for a link of this rate and delay.
    void SetAirtimeRule(DataRate rate, Time delay)
    {
        m_airtime = true;
        m_rate = rate;
        m_delay = delay;
    }

    uint64_t GetDrops() const
    {
        return m_drops;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (!m_schedule)
        {
            return false;
        }
        const int64_t now = Simulator::Now().GetNanoSeconds();
        bool lost = false;
        if (m_airtime)
        {
            int64_t txEnd = now - m_delay.GetNanoSeconds();
            int64_t txStart = txEnd - m_rate.CalculateBytesTxTime(p->GetSize()).GetNanoSeconds();
            lost = OverlapsBlocked(*m_schedule, txStart, txEnd);
        }
        else
        {
            lost = IsBlocked(*m_schedule, now);
        }
        if (lost)
        {
            ++m_drops;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }

    const Schedule* m_schedule{nullptr};
    bool m_airtime{false};
    DataRate m_rate;
    Time m_delay;
    uint64_t m_drops{0};
};

NS_OBJECT_ENSURE_REGISTERED(PuErrorModel);

/// Error model that chains the PU model with an optional i.i.d. one.
class ChainedErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::ChainedErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<ChainedErrorModel>();
        return tid;
    }

    void Set(Ptr<PuErrorModel> pu, Ptr<ErrorModel> other)
    {
        m_pu = pu;
        m_other = other;
    }

    uint64_t GetOtherDrops() const
    {
        return m_otherDrops;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        // The PU decides first; the i.i.d. model only sees frames the PU spared.
        if (m_pu->IsCorrupt(p))
        {
            return true;
        }
        if (m_other && m_other->IsCorrupt(p))
        {
            ++m_otherDrops;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }

    Ptr<PuErrorModel> m_pu;
    Ptr<ErrorModel> m_other;
    uint64_t m_otherDrops{0};
};

NS_OBJECT_ENSURE_REGISTERED(ChainedErrorModel);

/// Counters filled by trace sinks during the run.
struct Counters
{
    uint64_t dataSegmentsSent{0};         ///< data segments handed to IP by the sender
    uint64_t retransmissions{0};          ///< of which retransmissions (socket trace)
    Time maxRto{Seconds(0)};              ///< largest RTO value once data was sent
    std::vector<int64_t> dataArrivalsNs;  ///< data segments reaching SH's IP layer
    std::vector<int64_t> appDeliveriesNs; ///< bytes handed to the sink application
};

Counters g_counters;

// The RTO variable; values before the first data segment (the SYN phase,
// where ns-3 uses ConnTimeout × retries) are not counted.
void
OnRto(Time /* old */, Time now)
{
    if (g_counters.dataSegmentsSent > 0 && now > g_counters.maxRto)
    {
        g_counters.maxRto = now;
    }
}

void
OnSocketCreated(Ptr<XlSenderSocket> socket)
{
    TraceDataSegmentsSent(socket, &g_counters.dataSegmentsSent);
    TraceRetransmissions(socket, &g_counters.retransmissions);
    socket->TraceConnectWithoutContext("RTO", MakeCallback(&OnRto));
}

void
OnShIpRx(Ptr<const Packet> packet, Ptr<Ipv4> /* ipv4 */, uint32_t /* iface */)
{
    TcpHeader tcp;
    if (ReadTcpDataSegment(packet, tcp))
    {
        g_counters.dataArrivalsNs.push_back(Simulator::Now().GetNanoSeconds());
    }
}

/// Traffic-control drops (a full device queue) per node: CH, BS, SH.
std::array<uint64_t, 3> g_tcDropsByNode{};

void
OnTcDropAt(uint32_t node, Ptr<const Packet> /* p */)
{
    ++g_tcDropsByNode.at(node);
}

void
OnSinkRx(Ptr<const Packet> /* p */, const Address& /* from */)
{
    g_counters.appDeliveriesNs.push_back(Simulator::Now().GetNanoSeconds());
}

/// Per-available-period statistics after a blockage.
struct IdleStats
{
    uint64_t periods{0};         ///< complete available periods that follow a blockage
    uint64_t withoutDelivery{0}; ///< of which saw no data arrival at SH at all
    double meanIdleS{-1.0};      ///< mean (start → first arrival) over periods with one
    double meanIdleCensoredS{-1.0}; ///< same, a period without arrival counting its length
    double meanPeriodS{-1.0};    ///< mean length of those periods
};

/**
 * For every available period that starts when a blockage ends and ends
 * (with the next blockage) before the end of the run: the time from its
 * start to the first event in `times` inside it.
 */
IdleStats
IdleAfterBlockage(const Schedule& s, const std::vector<int64_t>& times, int64_t endNs)
{
    IdleStats st;
    double sumIdle = 0;
    double sumCensored = 0;
    double sumLen = 0;
    uint64_t withDelivery = 0;
    for (size_t i = 0; i < s.size(); ++i)
    {
        int64_t start = s[i].second;
        int64_t stop = i + 1 < s.size() ? s[i + 1].first : endNs;
        if (start >= endNs || stop > endNs)
        {
            continue; // not a complete period inside the run
        }
        ++st.periods;
        sumLen += (stop - start) * 1e-9;
        auto it = std::lower_bound(times.begin(), times.end(), start);
        if (it != times.end() && *it < stop)
        {
            ++withDelivery;
            sumIdle += (*it - start) * 1e-9;
            sumCensored += (*it - start) * 1e-9;
        }
        else
        {
            ++st.withoutDelivery;
            sumCensored += (stop - start) * 1e-9;
        }
    }
    if (withDelivery > 0)
    {
        st.meanIdleS = sumIdle / withDelivery;
    }
    if (st.periods > 0)
    {
        st.meanIdleCensoredS = sumCensored / st.periods;
        st.meanPeriodS = sumLen / st.periods;
    }
    return st;
}

/// Formats nanoseconds as seconds with nine decimals, exactly.
std::string
NsToSeconds(int64_t ns)
{
    char buf[48];
    std::snprintf(buf,
                  sizeof(buf),
                  "%" PRId64 ".%09" PRId64,
                  ns / 1000000000,
                  ns % 1000000000);
    return buf;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto processStart = std::chrono::steady_clock::now();

    uint32_t seed = 1;
    double duration = 600.0;
    std::string wirelessRate = "10Mbps";
    std::string wirelessDelay = "1ms";
    std::string wiredRate = "100Mbps";
    std::string wiredDelay = "10ms";
    uint32_t mss = kSegmentSize;
    uint32_t queuePackets = 100;
    uint32_t wiredQueuePackets = 100;
    double puOnMean = 4.0;
    double puOffMean = 4.0;
    int64_t puStream = 0;
    double p = 0.0;
    bool fixEmulatedSack = true;
    double connTimeout = 1.0;
    std::string intervalsOut;
    std::string puRule = "rx-end";

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "ns-3 RngRun (run number) of this replication", seed);
    cmd.AddValue("duration", "simulated time in seconds", duration);
    cmd.AddValue("wirelessRate", "rate of the wireless hop", wirelessRate);
    cmd.AddValue("wirelessDelay", "propagation delay of the wireless hop", wirelessDelay);
    cmd.AddValue("wiredRate", "rate of the wired link", wiredRate);
    cmd.AddValue("wiredDelay", "propagation delay of the wired link", wiredDelay);
    cmd.AddValue("mss", "TCP segment size in bytes", mss);
    cmd.AddValue("queue", "DropTail queue of both wireless devices, in packets", queuePackets);
    cmd.AddValue("wiredQueue", "DropTail queue of both wired devices, in packets", wiredQueuePackets);
    cmd.AddValue("puOnMean", "mean PU ON (blocked) period in seconds", puOnMean);
    cmd.AddValue("puOffMean", "mean PU OFF (available) period in seconds", puOffMean);
    cmd.AddValue("puStream", "random stream of the PU (ON uses it, OFF uses it + 1)", puStream);
    cmd.AddValue("p", "extra i.i.d. loss probability of data packets on the wireless hop", p);
    cmd.AddValue("fixEmulatedSack",
                 "drop dupACK-derived SACK marks when SND.UNA advances outside fast recovery",
                 fixEmulatedSack);
    cmd.AddValue("connTimeout", "initial SYN retransmission timeout in seconds", connTimeout);
    cmd.AddValue("intervalsOut", "write the blocked intervals here (\"start end\" per line)",
                 intervalsOut);
    cmd.AddValue("puRule",
                 "rx-end: lose a frame whose reception ends while the PU is ON; airtime: lose "
                 "a frame whose transmission overlaps an ON period",
                 puRule);
    cmd.Parse(argc, argv);
    if (puRule != "rx-end" && puRule != "airtime")
    {
        std::fprintf(stderr, "--puRule must be rx-end or airtime\n");
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcpDefaults(Seconds(connTimeout));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));

    const int64_t endNs = std::llround(duration * 1e9);
    const Schedule schedule = DrawSchedule(puOnMean, puOffMean, duration, puStream);
    int64_t blockedNs = 0;
    for (const auto& [a, b] : schedule)
    {
        blockedNs += std::min(b, endNs) - std::min(a, endNs);
    }
    if (!intervalsOut.empty())
    {
        std::ofstream f(intervalsOut);
        f << "# blocked (PU ON) intervals, seconds: start end\n";
        for (const auto& [a, b] : schedule)
        {
            f << NsToSeconds(a) << ' ' << NsToSeconds(b) << '\n';
        }
        if (!f)
        {
            std::fprintf(stderr, "cannot write %s\n", intervalsOut.c_str());
            return 1;
        }
    }

    LastHop hop(wiredQueuePackets, queuePackets, wiredRate, wiredDelay, wirelessRate, wirelessDelay);

    // PU on both wireless devices: SH receives the data, BS receives the ACKs.
    Ptr<PuErrorModel> puDown = CreateObject<PuErrorModel>();
    puDown->SetSchedule(&schedule);
    Ptr<PuErrorModel> puUp = CreateObject<PuErrorModel>();
    puUp->SetSchedule(&schedule);
    if (puRule == "airtime")
    {
        puDown->SetAirtimeRule(DataRate(wirelessRate), Time(wirelessDelay));
        puUp->SetAirtimeRule(DataRate(wirelessRate), Time(wirelessDelay));
    }
    Ptr<ChainedErrorModel> down = CreateObject<ChainedErrorModel>();
    Ptr<RateErrorModel> iid;
    if (p > 0)
    {
        iid = CreateObject<RateErrorModel>();
        iid->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        iid->SetRate(p);
    }
    down->Set(puDown, iid);
    hop.bsSh.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(down));
    hop.bsSh.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(puUp));

    const uint16_t port = 5000;
    Ptr<PacketSink> sink = InstallTcpSink(hop.sh, port);
    sink->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx));

    Ptr<BulkSource> source = CreateObject<BulkSource>();
    source->Setup(InetSocketAddress(hop.bsShIf.GetAddress(1), port), fixEmulatedSack);
    source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
    hop.ch->AddApplication(source);
    source->SetStartTime(Seconds(0));

    for (uint32_t i = 0; i < 3; ++i)
    {
        hop.nodes.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeBoundCallback(&OnTcDropAt, i));
    }
    hop.sh->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Rx", MakeCallback(&OnShIpRx));

    Simulator::Stop(Seconds(duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall = SecondsSince(runStart);

    IdleStats arrival = IdleAfterBlockage(schedule, g_counters.dataArrivalsNs, endNs);
    IdleStats app = IdleAfterBlockage(schedule, g_counters.appDeliveriesNs, endNs);
    uint64_t onPeriods = 0;
    for (const auto& iv : schedule)
    {
        onPeriods += iv.first < endNs ? 1 : 0;
    }

    // Without a queue disc, a full device queue shows up as a traffic-control
    // drop on the node that sends: CH and BS feed the wired link and the
    // wireless hop respectively in the data direction, SH the ACK direction.
    uint64_t wirelessQueueDrops = g_tcDropsByNode[1] + g_tcDropsByNode[2];
    uint64_t wiredQueueDrops = g_tcDropsByNode[0];
    for (auto dev : {hop.bsSh.Get(0), hop.bsSh.Get(1)})
    {
        wirelessQueueDrops +=
            DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->GetTotalDroppedPackets();
    }
    for (auto dev : {hop.chBs.Get(0), hop.chBs.Get(1)})
    {
        wiredQueueDrops +=
            DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->GetTotalDroppedPackets();
    }

    uint64_t delivered = sink->GetTotalRx();
    Ptr<XlSenderSocket> socket = source->GetSocket();
    auto fraction = [](uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / b : -1.0; };
    JsonObject out;
    out.Int("seed", seed)
        .Num("duration_s", duration)
        .Str("wireless_rate", wirelessRate)
        .Str("wireless_delay", wirelessDelay)
        .Str("wired_rate", wiredRate)
        .Str("wired_delay", wiredDelay)
        .Int("mss", mss)
        .Int("queue_p", queuePackets)
        .Int("wired_queue_p", wiredQueuePackets)
        .Num("pu_on_mean_s", puOnMean)
        .Num("pu_off_mean_s", puOffMean)
        .Str("pu_rule", puRule)
        .Num("p", p)
        .Bool("fix_emulated_sack", fixEmulatedSack)
        .Num("goodput_bps", static_cast<double>(delivered) * 8.0 / duration)
        .Int("bytes_delivered", delivered)
        .Int("data_segments_sent", g_counters.dataSegmentsSent)
        .Int("retransmissions", g_counters.retransmissions)
        .Int("rto_count", socket ? socket->GetRtoCount() : 0)
        .Num("max_rto_s", g_counters.maxRto.GetSeconds())
        .Int("pu_on_periods", onPeriods)
        .Num("blocked_s", blockedNs * 1e-9)
        .Int("available_periods_after_blockage", arrival.periods)
        .Num("mean_available_period_s", arrival.meanPeriodS)
        .Num("mean_idle_after_blockage_s", arrival.meanIdleS)
        .Num("mean_idle_after_blockage_censored_s", arrival.meanIdleCensoredS)
        .Num("no_delivery_fraction", fraction(arrival.withoutDelivery, arrival.periods))
        .Num("mean_idle_to_app_delivery_s", app.meanIdleS)
        .Num("no_app_delivery_fraction", fraction(app.withoutDelivery, app.periods))
        .Int("wireless_drops", puDown->GetDrops() + puUp->GetDrops())
        .Int("wireless_drops_data_dir", puDown->GetDrops())
        .Int("wireless_drops_ack_dir", puUp->GetDrops())
        .Int("iid_drops", down->GetOtherDrops())
        .Int("wireless_queue_drops", wirelessQueueDrops)
        .Int("wired_queue_drops", wiredQueueDrops)
        .Int("data_arrivals_at_sh", g_counters.dataArrivalsNs.size())
        .Int("queue_discs_before_removal", hop.queueDiscsBefore)
        .Int("queue_discs_after_removal", hop.queueDiscsAfter)
        .Int("events", Simulator::GetEventCount())
        .Num("wall_seconds_run", runWall);
    DestroyAndPrint(out, processStart);
    return 0;
}
