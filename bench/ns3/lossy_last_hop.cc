// Reference scenario: one bulk TCP flow over a lossy last hop.
//
//   CH --(100 Mbps, 10 ms)-- BS --(10 Mbps, 1 ms)-- SH
//
// Point-to-point links, DropTail device queues, no traffic-control queue disc.
// Data packets arriving at SH are dropped i.i.d. with probability p, or, with
// --dropList=FILE, exactly the packets the file numbers (the n-th packet to
// arrive at SH, counted from 1, as xltcp's `model = "list"`). Prints one
// JSON object on stdout. The congestion control is NewReno unless --cc names
// another (Cubic, WestwoodPlus, Vegas or Bbr, each with ns-3's defaults).

#include "last_hop.h"

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace ns3;
using namespace xltcp;

namespace
{

LastHopCounters g_counters;

/// With --traceState: per congestion state (open, disorder, cwr, recovery,
/// loss) the time spent in it, how often it was entered, and the data
/// segments sent while in it.
struct StateStats
{
    uint32_t current{0};
    double since{0.0};
    double seconds[5]{};
    uint64_t entries[5]{};
    uint64_t sent[5]{};
    double cwndBytes{0.0};     ///< the current cwnd
    double cwndSince{0.0};     ///< when it last changed
    double cwndArea[5]{};      ///< integral of cwnd over the time in each state
    double ssthreshSum{0.0};   ///< sum of the ssthresh values set in recovery
    uint64_t ssthreshSets{0};  ///< how many
};

StateStats g_states;
bool g_traceState = false;

/// With --cwndTrace=FILE: one "time_s cwnd_bytes ssthresh_bytes" line per change.
std::FILE* g_cwndTrace = nullptr;
uint32_t g_traceSsthresh = 0;

void
TraceCwndLine(uint32_t cwnd)
{
    std::fprintf(g_cwndTrace, "%.6f %u %u\n", Simulator::Now().GetSeconds(), cwnd, g_traceSsthresh);
}

void
OnTraceCwnd(uint32_t /* from */, uint32_t to)
{
    TraceCwndLine(to);
}

void
OnTraceSsthresh(uint32_t /* from */, uint32_t to)
{
    g_traceSsthresh = to;
}

/// With --pacingTrace=FILE: one "time_s pacing_rate_bps" line per change.
std::FILE* g_pacingTrace = nullptr;

void
OnTracePacingRate(DataRate /* from */, DataRate to)
{
    std::fprintf(g_pacingTrace,
                 "%.6f %llu\n",
                 Simulator::Now().GetSeconds(),
                 static_cast<unsigned long long>(to.GetBitRate()));
}

void
AccumulateCwnd()
{
    double now = Simulator::Now().GetSeconds();
    g_states.cwndArea[g_states.current] += g_states.cwndBytes * (now - g_states.cwndSince);
    g_states.cwndSince = now;
}

void
OnCwnd(uint32_t /* from */, uint32_t to)
{
    AccumulateCwnd();
    g_states.cwndBytes = to;
}

void
OnSsthresh(uint32_t /* from */, uint32_t to)
{
    if (g_states.current == 3)
    {
        g_states.ssthreshSum += to;
        ++g_states.ssthreshSets;
    }
}

void
OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    AccumulateCwnd();
    double now = Simulator::Now().GetSeconds();
    auto f = static_cast<uint32_t>(from);
    auto t = static_cast<uint32_t>(to);
    if (f < 5 && t < 5 && f != t)
    {
        g_states.seconds[f] += now - g_states.since;
        g_states.since = now;
        g_states.current = t;
        ++g_states.entries[t];
    }
}

/// With --txTrace=FILE: one "time_ns seq len" line per data segment as its
/// transmission starts on CH's link (seq relative to the ISN: the first
/// data byte is 1), the instant xltcp's sender-side capture records.
std::FILE* g_txTrace = nullptr;

void
OnChPhyTxBegin(Ptr<const Packet> packet)
{
    Ptr<Packet> p = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    p->RemoveHeader(ppp);
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    p->RemoveHeader(tcp);
    if (p->GetSize() > 0)
    {
        std::fprintf(g_txTrace,
                     "%lld %u %u\n",
                     static_cast<long long>(Simulator::Now().GetNanoSeconds()),
                     tcp.GetSequenceNumber().GetValue(),
                     p->GetSize());
    }
}

void
OnSenderTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> /* s */)
{
    if (CountSenderSegment(g_counters, packet, header))
    {
        ++g_states.sent[g_states.current];
    }
}

bool g_traceRto = false;
XlSenderSocket::FixRule g_fixRule = XlSenderSocket::FixRule::kLinux;

void
OnSocketCreated(Ptr<XlSenderSocket> socket)
{
    socket->SetFixRule(g_fixRule);
    if (g_traceRto)
    {
        socket->SetTraceRto(true);
        socket->EnableSendCount();
    }
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&OnSenderTx));
    TraceRetransmissions(socket, &g_counters.retransmissions);
    if (g_cwndTrace)
    {
        socket->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&OnTraceSsthresh));
        socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnTraceCwnd));
    }
    if (g_pacingTrace)
    {
        socket->TraceConnectWithoutContext("PacingRate", MakeCallback(&OnTracePacingRate));
    }
    if (g_traceState)
    {
        socket->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
        socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
        socket->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&OnSsthresh));
    }
}

// The stock sender's socket exists once the application has started.
void
ConnectStockSenderTraces()
{
    const std::string sockets = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/";
    Config::ConnectWithoutContext(sockets + "Tx", MakeCallback(&OnSenderTx));
    Config::ConnectWithoutContext(
        sockets + "Retransmission",
        MakeBoundCallback(&CountRetransmission, &g_counters.retransmissions));
}

/// Reads a frame list: numbers separated by white space or commas, `#` to
/// the end of a line a comment; false (with a message) on a bad entry or an
/// unreadable file.
bool
ReadDropList(const std::string& path, std::list<uint32_t>& out)
{
    std::ifstream in(path);
    if (!in)
    {
        std::fprintf(stderr, "--dropList: cannot read %s\n", path.c_str());
        return false;
    }
    std::string line;
    uint64_t last = 0;
    while (std::getline(in, line))
    {
        line = line.substr(0, line.find('#'));
        for (char& c : line)
        {
            c = c == ',' ? ' ' : c;
        }
        std::istringstream words(line);
        std::string w;
        while (words >> w)
        {
            char* end = nullptr;
            unsigned long long n = std::strtoull(w.c_str(), &end, 10);
            if (*end != '\0' || n <= last || n > UINT32_MAX)
            {
                std::fprintf(stderr,
                             "--dropList: %s: \"%s\" is not a frame number above %llu\n",
                             path.c_str(),
                             w.c_str(),
                             static_cast<unsigned long long>(last));
                return false;
            }
            // ReceiveListErrorModel numbers the packets it sees from 0.
            out.push_back(static_cast<uint32_t>(n - 1));
            last = n;
        }
    }
    return true;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto processStart = std::chrono::steady_clock::now();

    double p = 0.0;
    bool stockSender = false;
    int64_t lossStream = -1;
    std::string fixRule = "linux";
    std::string recovery = "classic";
    uint32_t delAckCount = 2;
    std::string cc = "NewReno";
    bool hyStart = true;
    std::string cwndTrace;
    std::string pacingTrace;
    std::string dropList;
    std::string txTrace;

    LastHopOptions o(60.0);
    CommandLine cmd(__FILE__);
    o.AddTo(cmd);
    cmd.AddValue("p", "i.i.d. loss probability of data packets on the wireless hop", p);
    cmd.AddValue("dropList",
                 "file of the packets to drop at SH, numbered from 1 in arrival order "
                 "(replaces --p)",
                 dropList);
    cmd.AddValue("stockSender",
                 "use ns-3's BulkSendApplication and TcpSocketBase instead (no fix, no RTO count)",
                 stockSender);
    cmd.AddValue("lossStream",
                 "stream number of the error model's generator; -1: ns-3's automatic assignment",
                 lossStream);
    cmd.AddValue("fixRule",
                 "when the fix drops the marks: linux, recovery-exit or every-ack",
                 fixRule);
    cmd.AddValue("recovery",
                 "fast recovery: classic (RFC 6582) or prr (ns-3's default, RFC 6937)",
                 recovery);
    cmd.AddValue("delAckCount", "segments the receiver waits for before it ACKs", delAckCount);
    cmd.AddValue("cc",
                 "congestion control: NewReno, Cubic, WestwoodPlus, Vegas or Bbr (with pacing)",
                 cc);
    cmd.AddValue("hyStart", "Cubic only: ns-3's HyStart (on by default in TcpCubic)", hyStart);
    cmd.AddValue("cwndTrace",
                 "file to write \"time_s cwnd_bytes ssthresh_bytes\" to at every cwnd change",
                 cwndTrace);
    cmd.AddValue("txTrace",
                 "file to write \"time_ns seq len\" to for every data segment CH's link starts",
                 txTrace);
    cmd.AddValue("pacingTrace",
                 "file to write \"time_s pacing_rate_bps\" to at every pacing-rate change",
                 pacingTrace);
    cmd.AddValue("traceState",
                 "add state_seconds, state_entries and state_sent (per congestion state) to "
                 "the output",
                 g_traceState);
    cmd.Parse(argc, argv);

    if (!o.Apply())
    {
        return 2;
    }
    g_traceRto = o.traceRto;
    if (fixRule == "linux")
    {
        g_fixRule = XlSenderSocket::FixRule::kLinux;
    }
    else if (fixRule == "recovery-exit")
    {
        g_fixRule = XlSenderSocket::FixRule::kRecoveryExit;
    }
    else if (fixRule == "every-ack")
    {
        g_fixRule = XlSenderSocket::FixRule::kEveryAck;
    }
    else
    {
        std::fprintf(stderr, "--fixRule must be linux, recovery-exit or every-ack\n");
        return 2;
    }
    if (recovery != "classic" && recovery != "prr")
    {
        std::fprintf(stderr, "--recovery must be classic or prr\n");
        return 2;
    }
    TypeId ccType;
    if (cc == "NewReno")
    {
        ccType = TcpNewReno::GetTypeId();
    }
    else if (cc == "Cubic")
    {
        ccType = TcpCubic::GetTypeId();
    }
    else if (cc == "WestwoodPlus")
    {
        ccType = TcpWestwoodPlus::GetTypeId();
    }
    else if (cc == "Vegas")
    {
        ccType = TcpVegas::GetTypeId();
    }
    else if (cc == "Bbr")
    {
        ccType = TcpBbr::GetTypeId();
    }
    else
    {
        std::fprintf(stderr, "--cc must be NewReno, Cubic, WestwoodPlus, Vegas or Bbr\n");
        return 2;
    }
    if (!cwndTrace.empty())
    {
        g_cwndTrace = std::fopen(cwndTrace.c_str(), "w");
        if (!g_cwndTrace)
        {
            std::fprintf(stderr, "cannot write %s\n", cwndTrace.c_str());
            return 2;
        }
    }
    if (!txTrace.empty())
    {
        g_txTrace = std::fopen(txTrace.c_str(), "w");
        if (!g_txTrace)
        {
            std::fprintf(stderr, "cannot write %s\n", txTrace.c_str());
            return 2;
        }
    }
    if (!pacingTrace.empty())
    {
        g_pacingTrace = std::fopen(pacingTrace.c_str(), "w");
        if (!g_pacingTrace)
        {
            std::fprintf(stderr, "cannot write %s\n", pacingTrace.c_str());
            return 2;
        }
    }
    if (o.sendSize == 0)
    {
        std::fprintf(stderr, "--o.sendSize must be positive\n");
        return 2;
    }
    ConfigureTcpDefaults(Seconds(o.connTimeout));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    if (cc != "NewReno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hyStart));
    }
    if (cc == "Bbr")
    {
        // TcpBbr sets the pacing rate; the socket paces only with this on.
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    LastHop hop(o.wiredQueuePackets, o.queuePackets);

    // Loss on the data direction of the wireless hop (into SH): i.i.d., or
    // the listed packets.
    if (dropList.empty())
    {
        Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
        loss->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        loss->SetRate(p);
        if (lossStream >= 0)
        {
            loss->AssignStreams(lossStream);
        }
        hop.bsSh.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }
    else
    {
        std::list<uint32_t> frames;
        if (!ReadDropList(dropList, frames))
        {
            return 2;
        }
        Ptr<ReceiveListErrorModel> loss = CreateObject<ReceiveListErrorModel>();
        loss->SetList(frames);
        hop.bsSh.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }

    const uint16_t port = 5000;
    Ptr<PacketSink> sink = InstallTcpSink(hop.sh, port);

    Ptr<BulkSource> source;
    if (stockSender)
    {
        // Cross-check: ns-3's own BulkSendApplication and TcpSocketBase.
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(hop.bsShIf.GetAddress(1), port));
        bulk.SetAttribute("SendSize", UintegerValue(o.sendSize));
        bulk.Install(hop.ch).Start(Seconds(0));
        Simulator::Schedule(MilliSeconds(1), &ConnectStockSenderTraces);
    }
    else
    {
        source = CreateObject<BulkSource>();
        source->Setup(InetSocketAddress(hop.bsShIf.GetAddress(1), port), o.fixEmulatedSack);
        source->SetSendSize(o.sendSize, o.bulkSendWrites);
        source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
        hop.ch->AddApplication(source);
        source->SetStartTime(Seconds(0));
    }

    TraceLastHop(hop, &g_counters);
    if (g_txTrace)
    {
        hop.chBs.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnChPhyTxBegin));
    }

    Simulator::Stop(Seconds(o.duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall = SecondsSince(runStart);

    uint64_t delivered = sink->GetTotalRx();
    Ptr<XlSenderSocket> socket = source ? source->GetSocket() : nullptr;
    JsonObject out;
    out.Num("p", p)
        .Int("seed", o.seed)
        .Num("duration_s", o.duration)
        .Bool("fix_emulated_sack", o.fixEmulatedSack && !stockSender)
        .Bool("stock_sender", stockSender)
        .Int("send_size", o.sendSize)
        .Bool("bulk_send_writes", o.bulkSendWrites)
        .Int("queue_p", o.queuePackets)
        .Int("wired_queue_p", o.wiredQueuePackets)
        .Str("rng_layout", o.rngLayout)
        .Str("fix_rule", fixRule)
        .Str("recovery", recovery)
        .Int("del_ack_count", delAckCount)
        .Str("cc", cc)
        .Num("loss_stream", static_cast<double>(lossStream))
        .Str("drop_list", dropList)
        .Num("goodput_bps", static_cast<double>(delivered) * 8.0 / o.duration)
        .Int("bytes_delivered", delivered)
        .Int("data_segments_sent", g_counters.dataSegmentsSent)
        .Int("retransmissions", g_counters.retransmissions)
        .Int("retransmissions_below_highest", g_counters.belowHighestSent)
        .Num("rto_count", socket ? static_cast<double>(socket->GetRtoCount()) : -1.0)
        .Int("emulated_sack_resets", socket ? socket->GetMarkResets() : 0)
        .Int("wireless_drops", g_counters.wirelessDrops)
        .Int("queue_drops", DeviceQueueDrops(hop.nodes) + g_tcDrops)
        .Int("data_arrivals_at_sh", g_counters.dataArrivals)
        .Int("duplicate_arrivals_at_sh", g_counters.duplicateArrivals)
        .Num("last_duplicate_arrival_s", g_counters.lastDuplicateS)
        .Int("queue_discs_before_removal", hop.queueDiscsBefore)
        .Int("queue_discs_after_removal", hop.queueDiscsAfter)
        .Int("events", Simulator::GetEventCount())
        .Num("wall_seconds_run", runWall);
    if (g_traceState)
    {
        AccumulateCwnd();
        g_states.seconds[g_states.current] += o.duration - g_states.since;
        out.Num("recovery_ssthresh_mean",
                g_states.ssthreshSets ? g_states.ssthreshSum / g_states.ssthreshSets : 0.0);
        static const char* kStates[] = {"open", "disorder", "cwr", "recovery", "loss"};
        for (uint32_t i = 0; i < 5; ++i)
        {
            std::string k(kStates[i]);
            out.Num("state_seconds_" + k, g_states.seconds[i])
                .Int("state_entries_" + k, g_states.entries[i])
                .Int("state_sent_" + k, g_states.sent[i])
                .Num("state_cwnd_mean_" + k,
                     g_states.seconds[i] > 0 ? g_states.cwndArea[i] / g_states.seconds[i] : 0.0);
        }
    }
    DestroyAndPrint(out, processStart);
    if (g_cwndTrace)
    {
        std::fclose(g_cwndTrace);
    }
    if (g_pacingTrace)
    {
        std::fclose(g_pacingTrace);
    }
    if (g_txTrace)
    {
        std::fclose(g_txTrace);
    }
    return 0;
}
