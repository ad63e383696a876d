#!/usr/bin/env python3
"""bench/cpj/plot.py RESULTS.json [OUTDIR] -- the plots of bench/cpj/run:
CPU time and peak RSS against the problem size (rotation: l; sin: n), log-log,
one line per mode / strategy, like the figures of Siskind & Pearlmutter (OMS
2018).  Extrapolated points (runs not made, see bench/README.md) are hollow
markers on dotted lines; the targets (issue 22) are drawn in grey.
Writes OUTDIR/cpj-rotation-time.png, cpj-rotation-rss.png, cpj-sin-time.png,
cpj-sin-rss.png (OUTDIR defaults to the JSON's directory) and prints their
paths.  Needs matplotlib (Debian: python3-matplotlib)."""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt          # noqa: E402

STYLE = {"primal": ("primal", "tab:gray", "s"), "*j": ("*j", "tab:red", "o"),
         "adolc-tape": ("ADOL-C tape", "tab:brown", "v"),
         "adolc-cp": ("ADOL-C cp (revolve)", "tab:purple", "^")}
NET_FLOOR = 0.005        # s: vlad net CPU below this is process-timing noise (not drawn)
CPJ_COLORS = ["tab:blue", "tab:green", "tab:orange", "tab:cyan", "tab:olive", "tab:pink"]


def series(R, prog, variant, key):
    """(measured points, extrapolated points) of one line: [(size, value)]."""
    got, ext = [], []
    for r in R["rows"].values():
        if r.get("program") != prog or r.get("variant") != variant:
            continue
        v = r.get(key)
        if v is None or v <= 0:        # log scales: a net time of 0 is below resolution
            continue
        if key == "net_s" and not variant.startswith("adolc") and v < NET_FLOOR:
            continue                   # vlad's process time minus startup: noise

        if key == "rss_kb":
            v = v / 1024.0
        if r.get("ok_run"):
            got.append((r["size"], v))
        elif r.get("extrapolated"):
            ext.append((r["size"], v))
    return sorted(got), sorted(ext)


def variants(R, prog):
    vs = []
    for r in R["rows"].values():
        if r.get("program") == prog and r["variant"] not in vs and r["variant"] != "setup":
            vs.append(r["variant"])
    order = ["primal", "*j"] + ["cpj:" + s for s in R.get("strategies", [])] + \
        ["adolc-tape", "adolc-cp"]
    return [v for v in order if v in vs] + [v for v in vs if v not in order]


def style(R, v):
    if v in STYLE:
        return STYLE[v]
    s = v[4:]
    specs = R.get("strategies", [])
    c = CPJ_COLORS[specs.index(s) % len(CPJ_COLORS)] if s in specs else "black"
    return (f"checkpoint-*j {s}", c, "D")


def draw(R, prog, key, ylabel, title, path, targets=()):
    fig, ax = plt.subplots(figsize=(7.5, 5.2), dpi=110)
    any_line = False
    for v in variants(R, prog):
        got, ext = series(R, prog, v, key)
        if not got and not ext:
            continue
        name, color, marker = style(R, v)
        if got:
            ax.plot([x for x, _ in got], [y for _, y in got], marker=marker, color=color,
                    label=name, linewidth=1.6, markersize=5)
            any_line = True
        if ext:
            pts = (got[-1:] if got else []) + ext
            ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle=":", color=color,
                    linewidth=1.4)
            ax.plot([x for x, _ in ext], [y for _, y in ext], linestyle="none", marker=marker,
                    markerfacecolor="none", color=color, markersize=7,
                    label=f"{name} (extrapolated)")
    for k, (x, y, text) in enumerate(targets):
        ax.plot([x], [y], marker="*", color="gray", markersize=12, linestyle="none")
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(-10, 8 if k == 0 else -14),
                    ha="right", fontsize=8, color="dimgray")
    if not any_line:
        plt.close(fig)
        return False
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("l (outer iterations)" if prog == "rotation" else "n (sin applications)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    R = json.load(open(sys.argv[1]))
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    T = R.get("targets", {})
    big, small = T.get("l_big", 3203), T.get("l_small", 53)
    when = f"{R.get('date', '?')[:10]}, vlad {R.get('git') or '?'}"
    rss_targets = [(big, T.get("rss_bytes", 20e6) / 2**20, "20 MB")]
    spec = T.get("spec", "default")
    r53 = [r for r in R["rows"].values() if r.get("program") == "rotation" and
           r.get("variant") == "cpj:" + spec and r.get("size") == small and r.get("ok_run")]
    if r53 and r53[0].get("rss_kb"):
        rss_targets.append((big, T.get("rss_ratio", 1.25) * r53[0]["rss_kb"] / 1024,
                            f"{T.get('rss_ratio', 1.25):g} x {spec} at l={small}"))
    prim = [r for r in R["rows"].values() if r.get("program") == "rotation" and
            r.get("variant") == "primal" and r.get("size") == big and r.get("ok_run")]
    time_targets = []
    if prim and T.get("over_primal"):
        time_targets.append((big, T["over_primal"] * prim[0]["cpu_s"],
                             f"{T['over_primal']:g} x primal ({spec})"))
    elif T.get("cpu_s"):
        time_targets.append((big, T["cpu_s"], f"target {T['cpu_s']:g} s"))
    made = []
    for prog, key, ylabel, title, name, targets in [
            ("rotation", "cpu_s", "CPU seconds (user+sys, whole process)",
             f"rotation (n = 1000): time ({when})", "cpj-rotation-time.png",
             time_targets),
            ("rotation", "rss_kb", "peak RSS, MiB", f"rotation (n = 1000): peak RSS ({when})",
             "cpj-rotation-rss.png", rss_targets),
            ("sin", "net_s", "CPU s (vlad: minus startup, >= 5 ms; ADOL-C: tape+reverse)",
             f"repeated sin: time ({when})", "cpj-sin-time.png", []),
            ("sin", "rss_kb", "peak RSS, MiB", f"repeated sin: peak RSS ({when})",
             "cpj-sin-rss.png", [])]:
        path = os.path.join(out, name)
        if draw(R, prog, key, ylabel, title, path, targets):
            made.append(path)
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
