# %% [markdown]
# # xltcp in a notebook
#
# A run, its traces, and a sweep over loss rate and link rate, with the
# results as pandas DataFrames. Open this file in Jupyter or VS Code (each
# `# %%` is a cell), or run it as a script: `python3 docs/notebook.py`.
# The runs are short (10 simulated seconds) so that it finishes in seconds.

# %%
import matplotlib

matplotlib.use("Agg")  # drop this line in a notebook to see the figures inline
import matplotlib.pyplot as plt
import pandas as pd

import xltcp

# %% [markdown]
# ## One run
#
# `Scenario.load` takes a file (or a shipped scenario's name); `.set` returns
# a copy with overrides, the same keys as `xltcp run --set`.

# %%
lossy = xltcp.Scenario.load(xltcp.shipped_scenario("lossy-last-hop")).set(
    {"sim.duration": "10s", "wireless.loss.down.p": 0.01}
)
result = xltcp.run(lossy, seed=1)
result

# %%
result.flows[["name", "goodput_bps", "efficiency", "retransmissions", "rto_count"]]

# %% [markdown]
# The time series of a flow: one row every `sim.sample_interval` (100 ms here).

# %%
series = result.timeseries("bulk")
fig, ax = plt.subplots(figsize=(8, 3))
ax.plot(series["time_s"], series["cwnd_bytes"] / 1448, label="cwnd (segments)")
ax.set_xlabel("time (s)")
ax.legend()
series[["time_s", "cwnd_bytes", "srtt_s", "goodput_bps"]].describe()

# %% [markdown]
# ## A scenario from a dict
#
# The tables of a scenario file as Python data: here two flows over a
# bursty (Gilbert-Elliott) hop.

# %%
bursty = xltcp.Scenario.from_dict(
    {
        "name": "bursty",
        "sim": {"duration": "10s"},
        "wired": {"rate": "100Mbps", "delay": "10ms"},
        "wireless": {
            "rate": "10Mbps",
            "delay": "1ms",
            "loss": {"down": {"model": "gilbert", "mean_loss": 0.02, "mean_burst": 3}},
        },
        "flow": [
            {"name": "a", "direction": "down", "app": "bulk"},
            {"name": "b", "direction": "down", "app": "bulk"},
        ],
    }
)
xltcp.run(bursty, seed=2).flows[["name", "goodput_bps", "rto_count"]]

# %% [markdown]
# ## A sweep
#
# Every (loss rate, link rate) pair times five seeds, on every core. The
# campaign folder keeps each run; running the cell again runs nothing new.

# %%
table = xltcp.sweep(
    lossy,
    vary={"wireless.loss.down.p": "0,0.01,0.05", "wireless.rate": "5Mbps,10Mbps"},
    seeds="1..5",
    out="results/notebook-sweep",
)
table[["wireless.loss.down.p", "wireless.rate", "seed", "goodput_bps", "rto_count"]].head()

# %%
from xltcp.stats import mean_ci  # mean and Student t 95 % half width, as the CLI prints


def ci(values):
    mean, half = mean_ci(list(values))
    return pd.Series({"mean": mean, "ci95": half, "seeds": len(values)})


# wireless.rate_bps: the swept rate as a number (bit/s) beside its text "5Mbps".
summary = (
    table.groupby(["wireless.rate_bps", "wireless.loss.down.p"])["goodput_bps"]
    .apply(ci)
    .unstack()
    .reset_index()
)
fig, ax = plt.subplots(figsize=(6, 4))
for rate, rows in summary.groupby("wireless.rate_bps"):
    ax.errorbar(rows["wireless.loss.down.p"], rows["mean"] / 1e6, yerr=rows["ci95"] / 1e6,
                marker="o", capsize=3, label=f"{rate / 1e6:g} Mbit/s")  # fmt: skip
ax.set_xlabel("frame loss probability")
ax.set_ylabel("goodput (Mbit/s), mean ± 95 % CI over 5 seeds")
ax.set_ylim(bottom=0)
ax.legend(title="wireless rate")
summary

# %% [markdown]
# ## Stored results
#
# `xltcp.load` reads a campaign folder back as its table, or a run folder as a result.

# %%
again = xltcp.load("results/notebook-sweep")
assert again.equals(table)
one = xltcp.load(result.folder)
one.summary["flows"][0]["goodput_bps"] == result.summary["flows"][0]["goodput_bps"]
