#!/usr/bin/env python3
"""labs/scale/summary.py OUT - make scale's tables and figures from its runs.

Reads OUT/allreduce/<platform>/np<N>/bench-np<N>.csv (lab2's sweep) and
OUT/lab3-<sync>/<platform>/np<N>/*-summary.csv (lab3), and writes:
  OUT/allreduce.csv   every simulated allreduce, with the ring's alpha-beta
                      time 2(p-1)(alpha + n/p beta) from the platform file
                      (inside one host its loopback, else its "ddlab:" line)
  OUT/lab3.csv        every simulated step: time, exposed sync, hidden fraction
  OUT/validation.csv  predicted (simulated) against measured (emulated hosts,
                      OUT/validate/validation-h*.csv when there, written by
                      labs/scale/validate.sh) per quantity, and the error
  figures/scale-*.png time (and hidden fraction) against ranks per platform
                      (labs/scale/scale.gp), the alpha-beta line beside the ring
Every number here is a prediction unless validation.csv pairs it with a
measurement.
"""
import csv
import glob
import os
import re
import subprocess
import sys

PREFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
SUFFIX = {"Bps": 1, "bps": 1 / 8, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def unit(value):
    """SimGrid's '10GBps', '1Gbps' (bytes/s) and '0.5us' (s)."""
    m = re.fullmatch(r"([0-9.eE+-]+)([kKMGT]?)(Bps|bps|ms|us|ns|s)", value.strip())
    if not m:
        raise ValueError("cannot read '%s'" % value)
    return float(m.group(1)) * PREFIX[m.group(2)] * SUFFIX[m.group(3)]


def platform(name):
    """The numbers the alpha-beta line needs, from labs/platforms/NAME.xml."""
    text = open("labs/platforms/%s.xml" % name).read()
    line = dict(re.findall(r"(\w+)=([^ \n]+)", re.search(r"ddlab:(.*)", text).group(1)))
    cluster = re.search(r"<cluster(.*?)/>", text, re.S).group(1)
    attr = dict(re.findall(r'(\w+)="([^"]*)"', cluster))
    return {"cores": int(line["cores_per_host"]), "alpha": float(line["alpha_us"]) * 1e-6,
            "bw": float(line["bandwidth_Bps"]), "loop_alpha": unit(attr["loopback_lat"]),
            "loop_bw": unit(attr["loopback_bw"])}


def ring_model(p, n, plat):
    """2(p-1)(alpha + n/p beta): inside one host over its loopback."""
    alpha, bw = (plat["loop_alpha"], plat["loop_bw"]) if p <= plat["cores"] else (plat["alpha"], plat["bw"])
    return 2 * (p - 1) * (alpha + n / p / bw)


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def write(path, header, data):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(data)
    os.replace(path + ".tmp", path)


def allreduce(out):
    data = []
    for path in sorted(glob.glob(os.path.join(out, "allreduce/*/np*/bench-np*.csv"))):
        name = path.split(os.sep)[-3]
        plat = platform(name)
        for r in rows(path):
            p, n, t = int(r["ranks"]), float(r["bytes"]), float(r["median_us"]) * 1e-6
            model = ring_model(p, n, plat) if r["alg"] == "ring" else float("nan")
            data.append([name, p, r["alg"], int(n), "%.3f" % (t * 1e6), "%.3f" % (model * 1e6),
                         "%.5f" % (t / model) if model == model else ""])
    data.sort(key=lambda d: (d[0], d[2], d[3], d[1]))
    write(os.path.join(out, "allreduce.csv"),
          ["platform", "np", "alg", "bytes", "simulated_us", "ring_alpha_beta_us", "simulated_over_model"], data)
    return data


def lab3(out):
    data = []
    for path in sorted(glob.glob(os.path.join(out, "lab3-*/*/np*/*-summary.csv"))):
        name = path.split(os.sep)[-3]
        for r in rows(path):
            data.append([name, int(r["np"]), r["sync"], r["ms_mean"], r["sync_ms"], r["comm_ms"],
                         r.get("hidden_frac", ""), r["batch_per_rank"]])
    data.sort(key=lambda d: (d[0], d[2], d[1]))
    write(os.path.join(out, "lab3.csv"),
          ["platform", "np", "sync", "step_ms", "exposed_sync_ms", "comm_ms", "hidden_frac", "batch_per_rank"], data)
    return data


def validation(out):
    """OUT/validate/validation-h*.csv (labs/scale/validate_pair.py): the
    relative error of each prediction against its emulated measurement."""
    data = []
    for path in sorted(glob.glob(os.path.join(out, "validate", "validation-h*.csv"))):
        for r in rows(path):
            m, p = float(r["measured"]), float(r["predicted"])
            data.append([r["quantity"], r["platform"], r["np"], r["measured"], r["band_lo"], r["band_hi"],
                         r["repeats"], r["predicted"], "%.4f" % ((p - m) / m) if m else "", r.get("runnable", ""),
                         r.get("cores", "")])
    write(os.path.join(out, "validation.csv"), ["quantity", "platform", "np", "measured", "band_lo", "band_hi",
                                                "repeats", "predicted", "rel_error", "runnable", "cores"], data)
    return data


def plot(kind, name, series, out):
    """series: [(title, [(np, y1, y2, ...)])] -> figures/scale-KIND-NAME.png."""
    dat = os.path.join(out, "scale-%s-%s.dat" % (kind, name))
    with open(dat, "w") as f:
        for _, pts in series:
            f.write("".join(" ".join(str(v) for v in p) + "\n" for p in pts) + "\n\n")
    titles = [t for t, _ in series]
    ring = titles.index("ring") if "ring" in titles else -1
    setting = "kind='%s'; platform='%s'; dat='%s'; names='%s'; ring=%d; out='figures/scale-%s-%s.png'" % (
        kind, name, dat, " ".join(titles), ring, kind, name)
    png = "figures/scale-%s-%s.png" % (kind, name)
    done = subprocess.run(["gnuplot", "-e", setting, "labs/scale/scale.gp"], check=False)
    # gnuplot opens its output before it plots: a plot it refuses (no point
    # in range: no run at the figure's message size) leaves an empty file.
    if done.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
        if os.path.exists(png):
            os.remove(png)
        print("scale: %s not drawn (no points to plot)" % png)


def figures(out, ar, l3):
    """Time against ranks per platform: allreduce at 16 MiB, lab3's steps."""
    os.makedirs("figures", exist_ok=True)
    for name in sorted({r[0] for r in ar}):
        algs = sorted({r[2] for r in ar if r[0] == name})
        plot("allreduce", name, [(a, [(r[1], r[4], r[5]) for r in ar if r[0] == name and r[2] == a
                                      and r[3] == 16 << 20]) for a in algs], out)
    for name in sorted({r[0] for r in l3}):
        syncs = sorted({r[2] for r in l3 if r[0] == name})
        plot("lab3", name, [(s, [(r[1], r[3], r[4], r[6] or "nan") for r in l3 if r[0] == name and r[2] == s])
                            for s in syncs], out)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/scale"
    ar, l3 = allreduce(out), lab3(out)
    validation(out)
    figures(out, ar, l3)
    rings = [r for r in ar if r[2] == "ring" and r[6]]
    for name in sorted({r[0] for r in rings}):
        top = max(r[1] for r in rings if r[0] == name)
        worst = max(abs(float(r[6]) - 1) for r in rings if r[0] == name and r[1] == top)
        print("scale: %s: ring at %d ranks within %.3f%% of the alpha-beta formula (simulated, CM02)" %
              (name, top, 100 * worst))
    print("scale: wrote %s/allreduce.csv, lab3.csv, validation.csv and figures/scale-*.png" % out)


if __name__ == "__main__":
    main()
