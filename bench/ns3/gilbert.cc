// Reference scenario: one bulk TCP flow over a last hop with bursty loss.
//
//   CH --(100 Mbps, 10 ms)-- BS --(10 Mbps, 1 ms)-- SH
//
// The topology, queues and TCP of lossy_last_hop, with the i.i.d. error model
// replaced by a simple Gilbert chain (loss only in Bad) on the data direction
// of the wireless hop: one step of the chain per frame arriving at SH. Prints
// one JSON object on stdout. With --chainOnly=N it only drives the chain for
// N frames (no network) and prints what it observed.

#include "last_hop.h"


using namespace ns3;
using namespace xltcp;

namespace
{

/**
 * Simple Gilbert loss (SPECS §8): states Good and Bad, every frame lost in Bad
 * and none in Good, one step of the chain per frame. ns-3 3.44 ships no
 * Gilbert-Elliott error model (ErrorModel has rate, burst, list and binary
 * subclasses), so this one is written against the ErrorModel API, whose
 * DoCorrupt is called once per packet the device receives.
 *
 * Two choices are left open by the model and made explicit here:
 *  - order: kDecideThenStep uses the current state for this frame and then
 *    steps (the frame sees the state left by the previous step);
 *    kStepThenDecide steps first and uses the new state for this frame.
 *  - initial state: Good, or drawn from the stationary distribution
 *    (Bad with probability p / (p + r)).
 * The chain draws one uniform number per frame (plus one for a stationary
 * start) from its own stream.
 */
class GilbertErrorModel : public ErrorModel
{
  public:
    enum Order
    {
        kDecideThenStep,
        kStepThenDecide,
    };

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::GilbertErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<GilbertErrorModel>();
        return tid;
    }

    /// p = P(Good -> Bad), r = P(Bad -> Good) per frame.
    void Setup(double p, double r, Order order, bool stationaryStart, int64_t stream)
    {
        m_p = p;
        m_r = r;
        m_order = order;
        m_uniform = CreateObject<UniformRandomVariable>();
        m_uniform->SetStream(stream);
        m_bad = stationaryStart && m_uniform->GetValue() < p / (p + r);
        m_initialBad = m_bad;
    }

    /// One frame: true if it is lost.
    bool Next()
    {
        if (m_order == kStepThenDecide)
        {
            Step();
        }
        bool lost = m_bad;
        if (m_order == kDecideThenStep)
        {
            Step();
        }
        ++m_frames;
        if (lost)
        {
            ++m_lost;
            if (!m_prevLost)
            {
                ++m_bursts;
            }
        }
        m_prevLost = lost;
        return lost;
    }

    uint64_t Frames() const
    {
        return m_frames;
    }

    uint64_t Lost() const
    {
        return m_lost;
    }

    uint64_t Bursts() const
    {
        return m_bursts;
    }

    bool InitialBad() const
    {
        return m_initialBad;
    }

  private:
    void Step()
    {
        double u = m_uniform->GetValue();
        m_bad = m_bad ? (u >= m_r) : (u < m_p);
    }

    bool DoCorrupt(Ptr<Packet> /* p */) override
    {
        bool lost = Next();
        ++m_dataFrames;
        m_dataLost += lost ? 1 : 0;
        return lost;
    }

    void DoReset() override
    {
    }

  public:
    /// Frames of the data direction (those this model is attached to).
    uint64_t DataFrames() const
    {
        return m_dataFrames;
    }

    /// Of which lost.
    uint64_t DataLost() const
    {
        return m_dataLost;
    }

  private:
    uint64_t m_dataFrames{0};
    uint64_t m_dataLost{0};
    double m_p{0};
    double m_r{1};
    Order m_order{kDecideThenStep};
    Ptr<UniformRandomVariable> m_uniform;
    bool m_bad{false};
    bool m_initialBad{false};
    bool m_prevLost{false};
    uint64_t m_frames{0};
    uint64_t m_lost{0};
    uint64_t m_bursts{0};
};

NS_OBJECT_ENSURE_REGISTERED(GilbertErrorModel);

/**
 * The other direction's view of the same chain (--ackChain): every frame
 * arriving at BS (the TCP ACKs) steps the data direction's chain too; with
 * `lose` it is also lost when the chain says so, otherwise it always passes.
 * Counts its own frames and losses so that the data direction's can be told
 * apart.
 */
class ChainTap : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::ChainTap")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Network")
                                .AddConstructor<ChainTap>();
        return tid;
    }

    void Setup(Ptr<GilbertErrorModel> chain, bool lose)
    {
        m_chain = chain;
        m_lose = lose;
    }

    uint64_t Frames() const
    {
        return m_frames;
    }

    uint64_t Lost() const
    {
        return m_lost;
    }

  private:
    bool DoCorrupt(Ptr<Packet> /* p */) override
    {
        bool lost = m_chain->Next() && m_lose;
        ++m_frames;
        m_lost += lost ? 1 : 0;
        return lost;
    }

    void DoReset() override
    {
    }

    Ptr<GilbertErrorModel> m_chain;
    bool m_lose{false};
    uint64_t m_frames{0};
    uint64_t m_lost{0};
};

NS_OBJECT_ENSURE_REGISTERED(ChainTap);

LastHopCounters g_counters;

void
OnSenderTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> /* s */)
{
    CountSenderSegment(g_counters, packet, header);
}

bool g_traceRto = false;

void
OnSocketCreated(Ptr<XlSenderSocket> socket)
{
    if (g_traceRto)
    {
        socket->SetTraceRto(true);
        socket->EnableSendCount();
    }
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&OnSenderTx));
    TraceRetransmissions(socket, &g_counters.retransmissions);
}

} // namespace

int
main(int argc, char* argv[])
{
    auto processStart = std::chrono::steady_clock::now();

    double meanLoss = 0.05;
    double meanBurst = 3.0;
    std::string order = "decide-then-step";
    std::string init = "stationary";
    int64_t stream = 1;
    uint64_t chainOnly = 0;
    std::string ackChain = "none";

    LastHopOptions o(100.0);
    CommandLine cmd(__FILE__);
    o.AddTo(cmd);
    cmd.AddValue("meanLoss", "stationary loss probability P_L of the Gilbert chain", meanLoss);
    cmd.AddValue("meanBurst", "mean burst length L_b (mean stay in Bad), frames", meanBurst);
    cmd.AddValue("order", "decide-then-step or step-then-decide", order);
    cmd.AddValue("init", "initial state: stationary or good", init);
    cmd.AddValue("stream", "random stream of the chain", stream);
    cmd.AddValue("chainOnly", "only run the chain for this many frames (no network)", chainOnly);
    cmd.AddValue("ackChain",
                 "frames arriving at BS (ACKs): none (do not touch the chain), step (step it, "
                 "never lost) or lose (step it and are lost in Bad)",
                 ackChain);
    cmd.Parse(argc, argv);

    if (!o.Apply())
    {
        return 2;
    }
    if (ackChain != "none" && ackChain != "step" && ackChain != "lose")
    {
        std::fprintf(stderr, "--ackChain must be none, step or lose\n");
        return 2;
    }
    if (o.sendSize == 0)
    {
        std::fprintf(stderr, "--o.sendSize must be positive\n");
        return 2;
    }

    if (order != "decide-then-step" && order != "step-then-decide")
    {
        std::fprintf(stderr, "--order must be decide-then-step or step-then-decide\n");
        return 2;
    }
    if (init != "stationary" && init != "good")
    {
        std::fprintf(stderr, "--init must be stationary or good\n");
        return 2;
    }
    // SPECS §8, simple Gilbert: r = 1 / L_b, p = P_L / (L_b (1 - P_L)).
    const double r = 1.0 / meanBurst;
    const double pGb = meanLoss / (meanBurst * (1.0 - meanLoss));
    if (!(meanLoss > 0 && meanLoss < 1 && meanBurst >= 1 && pGb <= 1))
    {
        std::fprintf(stderr, "need 0 < meanLoss < 1, meanBurst >= 1, p(G->B) <= 1\n");
        return 2;
    }
    Ptr<GilbertErrorModel> loss = CreateObject<GilbertErrorModel>();
    loss->Setup(pGb,
                r,
                order == "step-then-decide" ? GilbertErrorModel::kStepThenDecide
                                            : GilbertErrorModel::kDecideThenStep,
                init == "stationary",
                stream);
    auto chainFields = [&](JsonObject& o) {
        o.Num("mean_loss", meanLoss)
            .Num("mean_burst", meanBurst)
            .Num("p_good_to_bad", pGb)
            .Num("p_bad_to_good", r)
            .Str("order", order)
            .Str("init", init)
            .Bool("initial_bad", loss->InitialBad())
            .Int("chain_frames", loss->Frames())
            .Int("chain_losses", loss->Lost())
            .Int("loss_bursts", loss->Bursts())
            .Int("data_frames", loss->DataFrames())
            .Int("data_losses", loss->DataLost())
            // The data direction's frames when the network ran (they are all
            // the chain's frames unless --ackChain steps it too), else the chain's.
            .Num("observed_loss_rate",
                 loss->DataFrames()
                     ? static_cast<double>(loss->DataLost()) / loss->DataFrames()
                     : (loss->Frames() ? static_cast<double>(loss->Lost()) / loss->Frames()
                                       : -1.0))
            .Num("mean_observed_burst",
                 loss->Bursts() ? static_cast<double>(loss->Lost()) / loss->Bursts() : -1.0);
    };
    if (chainOnly > 0)
    {
        for (uint64_t i = 0; i < chainOnly; ++i)
        {
            loss->Next();
        }
        JsonObject out;
        out.Int("seed", o.seed);
        chainFields(out);
        std::printf("%s\n", out.ToString().c_str());
        return 0;
    }
    ConfigureTcpDefaults(Seconds(o.connTimeout));

    LastHop hop(o.wiredQueuePackets, o.queuePackets);

    // Gilbert loss on the data direction of the wireless hop (into SH).
    hop.bsSh.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    Ptr<ChainTap> tap;
    if (ackChain != "none")
    {
        tap = CreateObject<ChainTap>();
        tap->Setup(loss, ackChain == "lose");
        hop.bsSh.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(tap));
    }

    const uint16_t port = 5000;
    Ptr<PacketSink> sink = InstallTcpSink(hop.sh, port);

    Ptr<BulkSource> source = CreateObject<BulkSource>();
    source->Setup(InetSocketAddress(hop.bsShIf.GetAddress(1), port), o.fixEmulatedSack);
    source->SetSendSize(o.sendSize, o.bulkSendWrites);
    g_traceRto = o.traceRto;
    source->SetSocketCreatedCallback(MakeCallback(&OnSocketCreated));
    hop.ch->AddApplication(source);
    source->SetStartTime(Seconds(0));

    TraceLastHop(hop, &g_counters);

    Simulator::Stop(Seconds(o.duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double runWall = SecondsSince(runStart);

    uint64_t delivered = sink->GetTotalRx();
    Ptr<XlSenderSocket> socket = source->GetSocket();
    JsonObject out;
    out.Int("seed", o.seed).Num("duration_s", o.duration);
    chainFields(out);
    out.Int("send_size", o.sendSize)
        .Bool("bulk_send_writes", o.bulkSendWrites)
        .Int("queue_p", o.queuePackets)
        .Int("wired_queue_p", o.wiredQueuePackets)
        .Str("rng_layout", o.rngLayout)
        .Str("ack_chain", ackChain)
        .Int("ack_frames", tap ? tap->Frames() : 0)
        .Int("ack_losses", tap ? tap->Lost() : 0);
    out.Bool("fix_emulated_sack", o.fixEmulatedSack)
        .Num("goodput_bps", static_cast<double>(delivered) * 8.0 / o.duration)
        .Int("bytes_delivered", delivered)
        .Int("data_segments_sent", g_counters.dataSegmentsSent)
        .Int("retransmissions", g_counters.retransmissions)
        .Int("retransmissions_below_highest", g_counters.belowHighestSent)
        .Int("rto_count", socket ? socket->GetRtoCount() : 0)
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
    DestroyAndPrint(out, processStart);
    return 0;
}
