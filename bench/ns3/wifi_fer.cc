// ns-3's frame error rate against SNR, straight from the Wi-Fi error-rate
// models: every 802.11a rate under the NIST and YANS models, and every
// 802.11b rate under the DSSS model (which both NIST and YANS use for
// DSSS/HR-DSSS modes). FER = 1 - ErrorRateModel::GetChunkSuccessRate for one
// chunk of 8 * psdu bits at the data rate (the payload chunk only: the PHY
// header, sent at the lowest rate, is left out). Prints one JSON object.

#include "scenario_common.h"

#include "ns3/wifi-module.h"

#include <cmath>

using namespace ns3;
using namespace xltcp;

namespace
{

struct Curve
{
    std::string model;
    std::string standard;
    WifiMode mode;
};

/// TX vector of a non-HT (802.11a) or DSSS (802.11b) frame in `mode`.
WifiTxVector
TxVectorFor(WifiMode mode, bool dsss)
{
    WifiTxVector v;
    v.SetMode(mode);
    v.SetPreambleType(WIFI_PREAMBLE_LONG);
    v.SetChannelWidth(dsss ? MHz_u{22} : MHz_u{20});
    v.SetNss(1);
    return v;
}

/// Lowest SNR (dB) with FER <= target, by bisection (FER falls with SNR).
double
SnrForFer(const Ptr<ErrorRateModel>& m,
          WifiMode mode,
          const WifiTxVector& v,
          uint64_t nbits,
          double target)
{
    double lo = -30.0;
    double hi = 60.0;
    for (int i = 0; i < 60; ++i)
    {
        double mid = 0.5 * (lo + hi);
        double fer = 1.0 - m->GetChunkSuccessRate(mode, v, std::pow(10.0, mid / 10.0), nbits);
        (fer > target ? lo : hi) = mid;
    }
    return hi;
}

std::string
JsonArray(const std::vector<double>& xs)
{
    std::string s = "[";
    for (size_t i = 0; i < xs.size(); ++i)
    {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%.6g", xs[i]);
        s += (i ? ", " : "") + std::string(buf);
    }
    return s + "]";
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t psdu = 1536;
    double snrMin = -10.0;
    double snrMax = 40.0;
    double snrStep = 1.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("psdu", "PSDU size in bytes", psdu);
    cmd.AddValue("snrMin", "lowest SNR of the grid, dB", snrMin);
    cmd.AddValue("snrMax", "highest SNR of the grid, dB", snrMax);
    cmd.AddValue("snrStep", "grid step, dB", snrStep);
    cmd.Parse(argc, argv);

    Ptr<ErrorRateModel> nist = CreateObject<NistErrorRateModel>();
    Ptr<ErrorRateModel> yans = CreateObject<YansErrorRateModel>();
    const std::vector<WifiMode> ofdm = {OfdmPhy::GetOfdmRate6Mbps(),
                                        OfdmPhy::GetOfdmRate9Mbps(),
                                        OfdmPhy::GetOfdmRate12Mbps(),
                                        OfdmPhy::GetOfdmRate18Mbps(),
                                        OfdmPhy::GetOfdmRate24Mbps(),
                                        OfdmPhy::GetOfdmRate36Mbps(),
                                        OfdmPhy::GetOfdmRate48Mbps(),
                                        OfdmPhy::GetOfdmRate54Mbps()};
    const std::vector<WifiMode> dsss = {DsssPhy::GetDsssRate1Mbps(),
                                        DsssPhy::GetDsssRate2Mbps(),
                                        DsssPhy::GetDsssRate5_5Mbps(),
                                        DsssPhy::GetDsssRate11Mbps()};

    std::vector<double> grid;
    for (int i = 0; snrMin + i * snrStep <= snrMax + 1e-9; ++i)
    {
        grid.push_back(snrMin + i * snrStep);
    }
    const uint64_t nbits = 8ULL * psdu;

    std::string curves;
    auto emit = [&](const std::string& model,
                    const std::string& standard,
                    const Ptr<ErrorRateModel>& m,
                    WifiMode mode,
                    bool isDsss) {
        WifiTxVector v = TxVectorFor(mode, isDsss);
        std::vector<double> fer;
        for (double snrDb : grid)
        {
            fer.push_back(
                1.0 - m->GetChunkSuccessRate(mode, v, std::pow(10.0, snrDb / 10.0), nbits));
        }
        char head[512];
        std::snprintf(head,
                      sizeof(head),
                      "{\"model\": \"%s\", \"standard\": \"%s\", \"mode\": \"%s\", "
                      "\"rate_mbps\": %g, \"snr_db_fer_0.5\": %.3f, \"snr_db_fer_0.1\": %.3f, "
                      "\"snr_db_fer_0.01\": %.3f, \"fer\": ",
                      model.c_str(),
                      standard.c_str(),
                      mode.GetUniqueName().c_str(),
                      mode.GetDataRate(v) / 1e6,
                      SnrForFer(m, mode, v, nbits, 0.5),
                      SnrForFer(m, mode, v, nbits, 0.1),
                      SnrForFer(m, mode, v, nbits, 0.01));
        curves += (curves.empty() ? "\n    " : ",\n    ") + std::string(head) + JsonArray(fer) +
                  "}";
    };
    for (const auto& mode : ofdm)
    {
        emit("nist", "802.11a", nist, mode, false);
    }
    for (const auto& mode : ofdm)
    {
        emit("yans", "802.11a", yans, mode, false);
    }
    for (const auto& mode : dsss)
    {
        emit("dsss", "802.11b", nist, mode, true);
    }

    std::printf("{\n  \"ns3_version\": \"3.44\",\n"
                "  \"what\": \"FER = 1 - ErrorRateModel::GetChunkSuccessRate(mode, txVector, "
                "snr, 8 * psdu_bytes): one payload chunk at the data rate, no PHY header; snr "
                "linear, grid in dB\",\n"
                "  \"dsss_note\": \"802.11b rates go through ErrorRateModel's DSSS branch "
                "(DsssErrorRateModel), the same for NIST and YANS\",\n"
                "  \"psdu_bytes\": %u,\n  \"snr_db\": %s,\n  \"curves\": [%s\n  ]\n}\n",
                psdu,
                JsonArray(grid).c_str(),
                curves.c_str());
    return 0;
}
