// The single-flow last-hop programs (lossy_last_hop, gilbert, blockage):
// their topology, counters, trace sinks and shared command-line options.

#ifndef XLTCP_BENCH_NS3_LAST_HOP_H
#define XLTCP_BENCH_NS3_LAST_HOP_H

#include "scenario_common.h"

#include <set>
#include <string>

namespace xltcp
{

using namespace ns3;

/// What the single-flow last-hop programs (lossy_last_hop, gilbert) count
/// during a run, filled by the trace sinks below.
struct LastHopCounters
{
    uint64_t dataSegmentsSent{0};     ///< data segments handed to IP by the sender
    uint64_t retransmissions{0};      ///< of which retransmissions (socket trace)
    uint64_t belowHighestSent{0};     ///< data segments starting below the highest byte sent
    uint32_t highestSent{0};          ///< highest sequence number sent + 1
    bool anySent{false};              ///< whether highestSent is valid
    uint64_t wirelessDrops{0};        ///< packets dropped by the error model at SH
    uint64_t dataArrivals{0};         ///< data segments that reached SH's IP layer
    uint64_t duplicateArrivals{0};    ///< of which carried a segment SH already had
    double lastDuplicateS{-1.0};      ///< simulated time of the last duplicate arrival
    std::set<uint32_t> seenSegments;  ///< start sequence numbers received at SH
};

/**
 * Counts a segment the sender hands to IP (its "Tx" trace) in `c`: a data
 * segment, and whether it starts below the highest byte sent before it.
 * Returns false, counting nothing, for a segment without data.
 */
inline bool
CountSenderSegment(LastHopCounters& c, Ptr<const Packet> packet, const TcpHeader& header)
{
    uint32_t len = packet->GetSize();
    if (len == 0)
    {
        return false;
    }
    ++c.dataSegmentsSent;
    uint32_t seq = header.GetSequenceNumber().GetValue();
    if (c.anySent && SequenceNumber32(seq) < SequenceNumber32(c.highestSent))
    {
        ++c.belowHighestSent;
    }
    uint32_t end = seq + len;
    if (!c.anySent || SequenceNumber32(end) > SequenceNumber32(c.highestSent))
    {
        c.highestSent = end;
        c.anySent = true;
    }
    return true;
}

/**
 * The last-hop topology: CH --(wired: 100 Mbps, 10 ms)-- BS --(wireless:
 * 10 Mbps, 1 ms)-- SH unless the rates and delays are given, DropTail
 * device queues of `wiredQueuePackets` (the CH-BS link) and `queuePackets`
 * (the wireless hop), addresses assigned, and the queue discs that Assign()
 * installs taken off again (counted before and after).
 */
struct LastHop
{
    NodeContainer nodes;
    Ptr<Node> ch;
    Ptr<Node> bs;
    Ptr<Node> sh;
    NetDeviceContainer chBs;
    NetDeviceContainer bsSh;
    Ipv4InterfaceContainer bsShIf;
    uint32_t queueDiscsBefore{0};
    uint32_t queueDiscsAfter{0};

    LastHop(uint32_t wiredQueuePackets,
            uint32_t queuePackets,
            const std::string& wiredRate = "100Mbps",
            const std::string& wiredDelay = "10ms",
            const std::string& wirelessRate = "10Mbps",
            const std::string& wirelessDelay = "1ms")
    {
        nodes.Create(3);
        ch = nodes.Get(0);
        bs = nodes.Get(1);
        sh = nodes.Get(2);
        PointToPointHelper wired = DropTailLink(wiredRate, wiredDelay, wiredQueuePackets);
        PointToPointHelper wireless = DropTailLink(wirelessRate, wirelessDelay, queuePackets);
        chBs = wired.Install(ch, bs);
        bsSh = wireless.Install(bs, sh);
        bsShIf = AssignTwoHopAddresses(nodes, chBs, bsSh);
        queueDiscsBefore = CountQueueDiscs(nodes);
        queueDiscsAfter = RemoveQueueDiscs(nodes);
    }
};

/// Trace sink for SH's IP "Rx": counts the data segment in `*c`.
inline void
OnLastHopArrival(LastHopCounters* c, Ptr<const Packet> packet, Ptr<Ipv4> /* ipv4 */, uint32_t /* iface */)
{
    CountDataArrival(*c, packet);
}

/// Trace sink for SH's "PhyRxDrop": a packet the error model dropped.
inline void
OnLastHopDrop(LastHopCounters* c, Ptr<const Packet> /* p */)
{
    ++c->wirelessDrops;
}

/// Counts in `*c` the error model's drops at SH and the data segments that
/// reach SH's IP layer, and the traffic-control drops of every node.
inline void
TraceLastHop(const LastHop& hop, LastHopCounters* c)
{
    hop.bsSh.Get(1)->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&OnLastHopDrop, c));
    TraceTcDrops(hop.nodes);
    hop.sh->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
        "Rx",
        MakeBoundCallback(&OnLastHopArrival, c));
}

/**
 * The command-line options the single-flow last-hop programs share:
 * `--seed`, `--duration`, `--fixEmulatedSack`, `--queue`, `--connTimeout`,
 * `--sendSize`, `--bulkSendWrites`, `--wiredQueue`, `--rngLayout` and
 * `--traceRto`.
 */
struct LastHopOptions
{
    uint32_t seed{1};
    double duration;
    bool fixEmulatedSack{true};
    uint32_t queuePackets{100};
    double connTimeout{1.0};
    uint32_t sendSize{16 * kSegmentSize};
    bool bulkSendWrites{false};
    uint32_t wiredQueuePackets{0};
    std::string rngLayout{"run"};
    bool traceRto{false};

    explicit LastHopOptions(double defaultDuration)
        : duration(defaultDuration)
    {
    }

    void AddTo(CommandLine& cmd)
    {
        cmd.AddValue("seed", "ns-3 RngRun (run number) of this replication", seed);
        cmd.AddValue("duration", "simulated time in seconds", duration);
        cmd.AddValue("fixEmulatedSack",
                     "drop dupACK-derived SACK marks when SND.UNA advances outside fast "
                     "recovery, as Linux does",
                     fixEmulatedSack);
        cmd.AddValue("queue", "DropTail queue size of every device, in packets", queuePackets);
        cmd.AddValue("connTimeout", "initial SYN retransmission timeout in seconds", connTimeout);
        cmd.AddValue("sendSize", "bytes per application write", sendSize);
        cmd.AddValue("bulkSendWrites",
                     "write as BulkSendApplication: from connection set-up, whole sendSize "
                     "chunks only",
                     bulkSendWrites);
        cmd.AddValue("wiredQueue",
                     "DropTail queue size of the wired devices (CH, BS), packets; 0: same as "
                     "--queue",
                     wiredQueuePackets);
        cmd.AddValue("rngLayout",
                     "run: RngSeed 1, RngRun = seed; seed: RngSeed = seed, RngRun 1",
                     rngLayout);
        cmd.AddValue("traceRto",
                     "print one JSON line per retransmission timeout on stderr",
                     traceRto);
    }

    /// After parsing: sets the random-number layout and the wired queue's
    /// default; false (said on stderr) for a value out of range.
    bool Apply()
    {
        if (!SetRngLayout(rngLayout, seed))
        {
            return false;
        }
        if (sendSize == 0)
        {
            std::fprintf(stderr, "--sendSize must be positive\n");
            return false;
        }
        if (wiredQueuePackets == 0)
        {
            wiredQueuePackets = queuePackets;
        }
        return true;
    }
};

} // namespace xltcp

#endif // XLTCP_BENCH_NS3_LAST_HOP_H
