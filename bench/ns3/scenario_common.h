// Shared pieces of the ns-3 reference scenarios: the TCP configuration that
// mirrors the xltcp scenario, a sender socket that can clear emulated-SACK
// marks the way Linux does, a bulk source application, DropTail links and
// two-hop addressing, queue-disc removal, trace counters, Wi-Fi MAC
// defaults, and small JSON / resource helpers.
//
// Each scenario program is a single translation unit that includes this file.

#ifndef XLTCP_BENCH_NS3_SCENARIO_COMMON_H
#define XLTCP_BENCH_NS3_SCENARIO_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace xltcp
{

using namespace ns3;

/// Segment payload size shared by both ends (bytes).
constexpr uint32_t kSegmentSize = 1448;
/// Send and receive buffer size (bytes).
constexpr uint32_t kBufferSize = 4 * 1024 * 1024;

/**
 * Override every ns-3 3.44 TCP default that differs from the xltcp scenario.
 *
 * Must run before any node or socket is created. `connTimeout` is the initial
 * SYN retransmission timeout; ns-3 doubles it on each SYN retry.
 */
inline void
ConfigureTcpDefaults(Time connTimeout)
{
    // Congestion control NewReno (default Cubic) with classic RFC 6582 fast
    // recovery (default PRR).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    // Options: SACK off (default on), timestamps off (default on), window scaling on.
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    // Segment size 1448 (default 536), initial window 10 segments.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegmentSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    // Delayed ACK: every second segment, 200 ms timer.
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    // RTO: 1 s floor (RFC 6298 (2.4)), 1 ms clock granularity.
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    // Buffers 4 MiB (default 128 KiB) so the window never limits the flow.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kBufferSize));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kBufferSize));
    // Never give up: SYN retries (default 6 with a 3 s timeout) and data
    // retries (default 6 RTOs, then the flow is aborted).
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(connTimeout));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(24));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
}

/**
 * Sender socket: a TcpSocketBase that counts retransmission timeouts and,
 * optionally, clears the emulated-SACK marks that duplicate ACKs leave in the
 * transmit buffer when SACK is off.
 *
 * Without SACK, ns-3 marks one segment above SND.UNA as "sacked" per
 * duplicate ACK, and only an RTO clears those marks. A mark that outlives the
 * recovery episode is moved forward onto the next segment each time it
 * becomes the head, and the head is then flagged lost and sent again: one
 * spurious retransmission per cumulative ACK from then on. Linux keeps a plain
 * counter instead and zeroes it whenever SND.UNA advances outside recovery or
 * recovery completes. With the fix on, this socket does the same: before an
 * ACK that advances SND.UNA is processed, unless it is a partial ACK inside
 * fast recovery, every emulated mark is dropped.
 */
class XlSenderSocket : public TcpSocketBase
{
  public:
    /// Registers the type with the ns-3 object system.
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::XlSenderSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<XlSenderSocket>();
        return tid;
    }

    XlSenderSocket() = default;

    /// Copy used by Fork(): keeps the fix setting, restarts the counters.
    XlSenderSocket(const XlSenderSocket& sock)
        : TcpSocketBase(sock),
          m_fixEmulatedSack(sock.m_fixEmulatedSack),
          m_fixRule(sock.m_fixRule)
    {
    }

    /// Turns the emulated-SACK fix on or off.
    void SetFixEmulatedSack(bool on)
    {
        m_fixEmulatedSack = on;
    }

    /// When the fix drops the marks (all on an ACK that advances SND.UNA).
    enum class FixRule
    {
        /// Outside fast recovery, and on the ACK that ends it (Linux; the default).
        kLinux,
        /// Only on the ACK that ends fast recovery.
        kRecoveryExit,
        /// On every such ACK, partial ACKs in fast recovery included.
        kEveryAck,
    };

    /// Chooses the fix's rule (see FixRule).
    void SetFixRule(FixRule rule)
    {
        m_fixRule = rule;
    }

    /// Prints one JSON line per retransmission timeout to stderr (see ReTxTimeout).
    void SetTraceRto(bool on)
    {
        m_traceRto = on;
    }

    /// Retransmission timeouts that fired with data outstanding.
    uint64_t GetRtoCount() const
    {
        return m_rtoCount;
    }

    /// ACKs on which the fix dropped emulated-SACK marks (counting marks the
    /// same ACK was about to discard anyway).
    uint64_t GetMarkResets() const
    {
        return m_markResets;
    }

  protected:
    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<XlSenderSocket>(this);
    }

    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override
    {
        if (m_fixEmulatedSack && !m_sackEnabled && m_txBuffer->GetSacked() > 0)
        {
            SequenceNumber32 ack = tcpHeader.GetAckNumber();
            bool advances = ack > m_txBuffer->HeadSequence();
            bool inRecovery = m_tcb->m_congState == TcpSocketState::CA_RECOVERY;
            bool partialInRecovery = inRecovery && ack < m_recover;
            bool reset = false;
            switch (m_fixRule)
            {
            case FixRule::kLinux:
                reset = advances && !partialInRecovery;
                break;
            case FixRule::kRecoveryExit:
                reset = advances && inRecovery && !partialInRecovery;
                break;
            case FixRule::kEveryAck:
                reset = advances;
                break;
            }
            if (reset)
            {
                // Like Linux tcp_reset_reno_sack: recovery is over (or never
                // started), so the dupACK-derived marks say nothing any more.
                m_txBuffer->ResetRenoSack();
                ++m_markResets;
            }
        }
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
    }

    void ReTxTimeout() override
    {
        bool established = m_state == ESTABLISHED || m_state == CLOSE_WAIT ||
                           m_state == FIN_WAIT_1 || m_state == CLOSING || m_state == LAST_ACK;
        if (established && m_txBuffer->Size() > 0)
        {
            ++m_rtoCount;
            if (m_traceRto)
            {
                PrintRto();
            }
        }
        TcpSocketBase::ReTxTimeout();
    }

  private:
    // The state the timeout found: when, which segment (sequence numbers
    // relative to the first data byte, in segments), the window, the
    // congestion state before the timeout, the RTO that expired, and how
    // often the head segment had already been sent (2 or more: a
    // retransmission of it was lost, or its ACK was).
    void PrintRto() const
    {
        static const char* kStates[] = {"open", "disorder", "cwr", "recovery", "loss"};
        SequenceNumber32 head = m_txBuffer->HeadSequence();
        uint32_t headSeg = (head.GetValue() - 1) / m_tcb->m_segmentSize;
        auto sent = m_sendCount.find(head.GetValue());
        uint32_t cong = static_cast<uint32_t>(m_tcb->m_congState.Get());
        std::fprintf(stderr,
                     "{\"rto\": %lu, \"t\": %.6f, \"head_seg\": %u, \"high_seg\": %u, "
                     "\"cwnd_seg\": %.2f, \"ssthresh_seg\": %.2f, \"in_flight_seg\": %.2f, "
                     "\"state\": \"%s\", \"rto_s\": %.3f, \"head_sent\": %u}\n",
                     static_cast<unsigned long>(m_rtoCount),
                     Simulator::Now().GetSeconds(),
                     headSeg,
                     (m_tcb->m_highTxMark.Get().GetValue() - 1) / m_tcb->m_segmentSize,
                     m_tcb->m_cWnd.Get() / double(m_tcb->m_segmentSize),
                     m_tcb->m_ssThresh.Get() / double(m_tcb->m_segmentSize),
                     m_tcb->m_bytesInFlight.Get() / double(m_tcb->m_segmentSize),
                     cong < 5 ? kStates[cong] : "?",
                     m_rto.Get().GetSeconds(),
                     sent == m_sendCount.end() ? 0 : sent->second);
    }

    // Counts transmissions per start sequence number for the RTO trace.
    void CountSend(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
    {
        if (packet->GetSize() > 0)
        {
            ++m_sendCount[header.GetSequenceNumber().GetValue()];
        }
    }

  public:
    /// Starts counting transmissions per segment (needed by the RTO trace).
    void EnableSendCount()
    {
        TraceConnectWithoutContext("Tx", MakeCallback(&XlSenderSocket::CountSend, this));
    }

  private:
    bool m_fixEmulatedSack{true};
    bool m_traceRto{false};
    FixRule m_fixRule{FixRule::kLinux};
    std::map<uint32_t, uint32_t> m_sendCount;
    uint64_t m_rtoCount{0};
    uint64_t m_markResets{0};
};

NS_OBJECT_ENSURE_REGISTERED(XlSenderSocket);

/**
 * Creates a sender socket on `node` wired exactly as TcpL4Protocol wires its
 * own sockets (RTT estimator, congestion control and recovery types taken
 * from the protocol's attributes), but of class XlSenderSocket.
 */
inline Ptr<XlSenderSocket>
CreateSenderSocket(Ptr<Node> node, bool fixEmulatedSack)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    TypeIdValue rttType;
    TypeIdValue ccType;
    TypeIdValue recoveryType;
    tcp->GetAttribute("RttEstimatorType", rttType);
    tcp->GetAttribute("SocketType", ccType);
    tcp->GetAttribute("RecoveryType", recoveryType);

    ObjectFactory rttFactory(rttType.Get().GetName());
    ObjectFactory ccFactory(ccType.Get().GetName());
    ObjectFactory recoveryFactory(recoveryType.Get().GetName());

    Ptr<XlSenderSocket> socket = CreateObject<XlSenderSocket>();
    socket->SetNode(node);
    socket->SetTcp(tcp);
    socket->SetRtt(rttFactory.Create<RttEstimator>());
    socket->SetCongestionControlAlgorithm(ccFactory.Create<TcpCongestionOps>());
    socket->SetRecoveryAlgorithm(recoveryFactory.Create<TcpRecoveryOps>());
    socket->SetFixEmulatedSack(fixEmulatedSack);
    // Bind() registers the socket with the protocol (TcpL4Protocol::AddSocket).
    return socket;
}

/**
 * Bulk source: connects an XlSenderSocket to `peer` at start time and keeps
 * its send buffer full for the whole run.
 */
class BulkSource : public Application
{
  public:
    /// Registers the type with the ns-3 object system.
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xltcp::BulkSource")
                                .SetParent<Application>()
                                .SetGroupName("Applications")
                                .AddConstructor<BulkSource>();
        return tid;
    }

    /// Sets the destination and the fix flag; call before the start time.
    void Setup(Address peer, bool fixEmulatedSack)
    {
        m_peer = peer;
        m_fix = fixEmulatedSack;
    }

    /// Bytes per write to the socket (default 16 segments). With
    /// `bulkSendStyle` false (the default) the source fills the send buffer
    /// from the start (before the handshake completes) and shortens a write
    /// to the room left; with it true it writes as ns-3's BulkSendApplication
    /// does: nothing until the connection is established, then only whole
    /// `bytes` chunks (BulkSend's Send fails when a chunk does not fit, and it
    /// waits for the next send callback).
    void SetSendSize(uint32_t bytes, bool bulkSendStyle)
    {
        m_sendSize = bytes;
        m_bulkSendStyle = bulkSendStyle;
    }

    /// The sender socket (null before the application starts).
    Ptr<XlSenderSocket> GetSocket() const
    {
        return m_socket;
    }

    /// Called with the socket right after it is created, before Connect.
    void SetSocketCreatedCallback(Callback<void, Ptr<XlSenderSocket>> cb)
    {
        m_created = cb;
    }

  protected:
    void DoDispose() override
    {
        m_socket = nullptr;
        Application::DoDispose();
    }

  private:
    void StartApplication() override
    {
        m_socket = CreateSenderSocket(GetNode(), m_fix);
        if (!m_created.IsNull())
        {
            m_created(m_socket);
        }
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->ShutdownRecv();
        m_socket->SetSendCallback(MakeCallback(&BulkSource::Fill, this));
        if (m_bulkSendStyle)
        {
            m_socket->SetConnectCallback(MakeCallback(&BulkSource::Connected, this),
                                         MakeNullCallback<void, Ptr<Socket>>());
        }
        else
        {
            m_connected = true;
            Fill(m_socket, m_socket->GetTxAvailable());
        }
    }

    void Connected(Ptr<Socket> socket)
    {
        m_connected = true;
        Fill(socket, socket->GetTxAvailable());
    }

    void StopApplication() override
    {
        if (m_socket)
        {
            m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        }
    }

    // Tops the send buffer up; the payload is virtual (zero-filled) bytes.
    void Fill(Ptr<Socket> socket, uint32_t /* available */)
    {
        if (!m_connected)
        {
            return;
        }
        uint32_t room = socket->GetTxAvailable();
        while (room > 0)
        {
            if (m_bulkSendStyle && room < m_sendSize)
            {
                break;
            }
            uint32_t chunk = std::min(room, m_sendSize);
            if (socket->Send(Create<Packet>(chunk)) < 0)
            {
                break;
            }
            room = socket->GetTxAvailable();
        }
    }

    Address m_peer;
    bool m_fix{true};
    uint32_t m_sendSize{16 * kSegmentSize};
    bool m_bulkSendStyle{false};
    bool m_connected{false};
    Ptr<XlSenderSocket> m_socket;
    Callback<void, Ptr<XlSenderSocket>> m_created;
};

NS_OBJECT_ENSURE_REGISTERED(BulkSource);

/**
 * Removes the root queue disc (FqCoDel by default) that
 * Ipv4AddressHelper::Assign installs on every device, and returns how many
 * root queue discs remain on the given nodes afterwards (0 when it worked).
 */
inline uint32_t
RemoveQueueDiscs(const NodeContainer& nodes)
{
    TrafficControlHelper tch;
    uint32_t remaining = 0;
    for (auto n = nodes.Begin(); n != nodes.End(); ++n)
    {
        Ptr<TrafficControlLayer> tc = (*n)->GetObject<TrafficControlLayer>();
        for (uint32_t i = 0; i < (*n)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> dev = (*n)->GetDevice(i);
            if (tc && tc->GetRootQueueDiscOnDevice(dev))
            {
                tch.Uninstall(dev);
            }
            if (tc && tc->GetRootQueueDiscOnDevice(dev))
            {
                ++remaining;
            }
        }
    }
    return remaining;
}

/// Counts root queue discs installed on the devices of `nodes`.
inline uint32_t
CountQueueDiscs(const NodeContainer& nodes)
{
    uint32_t count = 0;
    for (auto n = nodes.Begin(); n != nodes.End(); ++n)
    {
        Ptr<TrafficControlLayer> tc = (*n)->GetObject<TrafficControlLayer>();
        for (uint32_t i = 0; tc && i < (*n)->GetNDevices(); ++i)
        {
            if (tc->GetRootQueueDiscOnDevice((*n)->GetDevice(i)))
            {
                ++count;
            }
        }
    }
    return count;
}

/// Packets dropped by the DropTail queues of every point-to-point device of `nodes`.
inline uint64_t
DeviceQueueDrops(const NodeContainer& nodes)
{
    uint64_t drops = 0;
    for (auto n = nodes.Begin(); n != nodes.End(); ++n)
    {
        for (uint32_t i = 0; i < (*n)->GetNDevices(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>((*n)->GetDevice(i));
            if (dev)
            {
                drops += dev->GetQueue()->GetTotalDroppedPackets();
            }
        }
    }
    return drops;
}

/// Packets dropped by traffic-control layers because a device queue was full
/// (with no queue disc, a stopped device queue makes the layer drop the packet).
inline uint64_t g_tcDrops = 0;

/// Trace sink for TrafficControlLayer::TcDrop.
inline void
OnTcDrop(Ptr<const Packet> /* p */)
{
    ++g_tcDrops;
}

/// Connects OnTcDrop to the traffic-control layer of every node in `nodes`.
inline void
TraceTcDrops(const NodeContainer& nodes)
{
    for (auto n = nodes.Begin(); n != nodes.End(); ++n)
    {
        Ptr<TrafficControlLayer> tc = (*n)->GetObject<TrafficControlLayer>();
        if (tc)
        {
            tc->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
        }
    }
}

/**
 * Seeds ns-3's generators for replication `seed`: layout "run" is RngSeed 1
 * and RngRun = seed, "seed" is RngSeed = seed and RngRun 1. Any other layout
 * is reported on stderr and returns false.
 */
inline bool
SetRngLayout(const std::string& layout, uint32_t seed)
{
    if (layout == "run")
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(seed);
    }
    else if (layout == "seed")
    {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(1);
    }
    else
    {
        std::fprintf(stderr, "--rngLayout must be run or seed\n");
        return false;
    }
    return true;
}

/// A point-to-point helper for links of `rate` and `delay` with DropTail
/// device queues of `queuePackets` packets.
inline PointToPointHelper
DropTailLink(const std::string& rate, const std::string& delay, uint32_t queuePackets)
{
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetChannelAttribute("Delay", StringValue(delay));
    link.SetQueue("ns3::DropTailQueue<Packet>",
                  "MaxSize",
                  StringValue(std::to_string(queuePackets) + "p"));
    return link;
}

/**
 * Installs the internet stack on `nodes`, numbers the first hop 10.1.1.0/24
 * and the last hop 10.1.2.0/24 (in that order), fills the global routing
 * tables and returns the last hop's interfaces.
 */
inline Ipv4InterfaceContainer
AssignTwoHopAddresses(const NodeContainer& nodes,
                      const NetDeviceContainer& firstHop,
                      const NetDeviceContainer& lastHop)
{
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.1.0", "255.255.255.0");
    addresses.Assign(firstHop);
    addresses.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer lastHopIf = addresses.Assign(lastHop);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return lastHopIf;
}

/// Trace sink for the sender's "Retransmission" trace, bound to the counter it
/// increments (MakeBoundCallback(&CountRetransmission, &counter)).
inline void
CountRetransmission(uint64_t* counter,
                    Ptr<const Packet> /* p */,
                    const TcpHeader& /* h */,
                    const Address& /* local */,
                    const Address& /* peer */,
                    Ptr<const TcpSocketBase> /* s */)
{
    ++*counter;
}

/// Trace sink for the sender's "Tx" trace, bound to the counter of data
/// segments (payload > 0) it increments.
inline void
CountDataSegmentSent(uint64_t* counter,
                     Ptr<const Packet> packet,
                     const TcpHeader& /* h */,
                     Ptr<const TcpSocketBase> /* s */)
{
    if (packet->GetSize() > 0)
    {
        ++*counter;
    }
}

/// Counts the data segments `socket` sends (retransmissions included) in `*counter`.
inline void
TraceDataSegmentsSent(Ptr<TcpSocketBase> socket, uint64_t* counter)
{
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountDataSegmentSent, counter));
}

/// Counts the retransmissions of `socket` in `*counter`.
inline void
TraceRetransmissions(Ptr<TcpSocketBase> socket, uint64_t* counter)
{
    socket->TraceConnectWithoutContext("Retransmission",
                                       MakeBoundCallback(&CountRetransmission, counter));
}

/**
 * Reads a packet seen at an IP layer's "Rx" trace (IP header first): true
 * when it is a TCP segment that carries data, with its TCP header in `tcp`.
 */
inline bool
ReadTcpDataSegment(Ptr<const Packet> packet, TcpHeader& tcp)
{
    Ptr<Packet> copy = packet->Copy();
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return false;
    }
    copy->RemoveHeader(tcp);
    return copy->GetSize() > 0;
}

/**
 * Counts a data segment arriving at SH's IP layer in `counters` (fields
 * dataArrivals, duplicateArrivals, lastDuplicateS, seenSegments): a start
 * sequence number seen before means the sender retransmitted a segment that
 * had not been lost.
 */
template <typename Counters>
inline void
CountDataArrival(Counters& counters, Ptr<const Packet> packet)
{
    TcpHeader tcp;
    if (!ReadTcpDataSegment(packet, tcp))
    {
        return;
    }
    ++counters.dataArrivals;
    if (!counters.seenSegments.insert(tcp.GetSequenceNumber().GetValue()).second)
    {
        ++counters.duplicateArrivals;
        counters.lastDuplicateS = Simulator::Now().GetSeconds();
    }
}

/// A TCP sink on `node`, listening on `port` from time 0.
inline Ptr<PacketSink>
InstallTcpSink(Ptr<Node> node, uint16_t port)
{
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApps = sinkHelper.Install(node);
    sinkApps.Start(Seconds(0));
    return DynamicCast<PacketSink>(sinkApps.Get(0));
}

/**
 * Wi-Fi MAC defaults shared by the Wi-Fi scenarios: `retryLimit` attempts per
 * frame, no RTS/CTS, a MAC queue of `queuePackets` packets with no
 * sojourn-time limit. Must run before the devices are created.
 */
inline void
ConfigureWifiMacDefaults(uint32_t retryLimit, uint32_t queuePackets)
{
    Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(retryLimit));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(4692480));
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(std::to_string(queuePackets) + "p")));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1000)));
}

/// Peak resident set size of this process in bytes.
inline uint64_t
PeakRssBytes()
{
    struct rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

/// CPU time (user + system) consumed by this process so far, in seconds.
inline double
CpuSeconds()
{
    struct rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

/// Seconds elapsed on the monotonic clock since `start`.
inline double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Builds one flat JSON object, keys in insertion order.
class JsonObject
{
  public:
    /// Adds a numeric field (printed with up to 17 significant digits).
    JsonObject& Num(const std::string& key, double value)
    {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17g", value);
        m_fields.emplace_back(key, buf);
        return *this;
    }

    /// Adds an unsigned integer field.
    JsonObject& Int(const std::string& key, uint64_t value)
    {
        m_fields.emplace_back(key, std::to_string(value));
        return *this;
    }

    /// Adds a boolean field.
    JsonObject& Bool(const std::string& key, bool value)
    {
        m_fields.emplace_back(key, value ? "true" : "false");
        return *this;
    }

    /// Adds a string field (no escaping: callers pass plain identifiers).
    JsonObject& Str(const std::string& key, const std::string& value)
    {
        m_fields.emplace_back(key, "\"" + value + "\"");
        return *this;
    }

    /// The object as one line of JSON.
    std::string ToString() const
    {
        std::string out = "{";
        for (size_t i = 0; i < m_fields.size(); ++i)
        {
            out += (i ? ", \"" : "\"") + m_fields[i].first + "\": " + m_fields[i].second;
        }
        return out + "}";
    }

  private:
    std::vector<std::pair<std::string, std::string>> m_fields;
};

/**
 * Ends the simulation (Simulator::Destroy), then adds the process's wall time
 * since `processStart` (`wall_seconds`), its CPU time (`cpu_seconds`) and,
 * with `peakRss`, its peak RSS (`peak_rss_bytes`) to `out` and prints `out`
 * as one line on stdout.
 */
inline void
DestroyAndPrint(JsonObject& out,
                std::chrono::steady_clock::time_point processStart,
                bool peakRss = false)
{
    Simulator::Destroy();
    out.Num("wall_seconds", SecondsSince(processStart)).Num("cpu_seconds", CpuSeconds());
    if (peakRss)
    {
        out.Int("peak_rss_bytes", PeakRssBytes());
    }
    std::printf("%s\n", out.ToString().c_str());
}

} // namespace xltcp

#endif // XLTCP_BENCH_NS3_SCENARIO_COMMON_H
