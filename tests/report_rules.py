#!/usr/bin/env python3
"""tests/report_rules.py - each lab's verdict rule (report/ddreport/labN.py)
on result files made for the purpose: one case where every claim of the
seed holds, one where some do, one where none does, and one that cannot be
read. Each case's files have the columns the lab writes; where a case
takes its numbers from a measured run, its comment says which (the labs'
READMEs). Run by tests/e2e_report_rules.sh; prints ok / not ok lines."""
import atexit
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "report"))

from ddreport import csvdata, labs, seeds  # noqa: E402
from ddreport.doc import Platform  # noqa: E402
from results_csv import write_results_csv  # noqa: E402

SEEDS = seeds.load(os.path.join(ROOT, "report", "seeds"))
failed = 0


def write(folder, name, rows, meta=None):
    # name may hold a folder: seed-2/...
    write_results_csv(os.path.join(folder, name), rows, {"program": "tests/report_rules.py", "data": "real",
                                                         "profile": "quick", "test_examples": "2000", **(meta or {})})


KEYS = {"native": "native", "net": "net-1gbit", "sim": "sim-cluster4"}


def case(lab, name, files, want, kind="native", must=(), native=None, meta=None):
    """Run lab's rule on the files ({name: rows}) as results of a platform
    of `kind` (native, net: an emulated network, sim: SimGrid), in
    results/labN/<net-1gbit|sim-cluster4>/ below `native`'s files when
    given; want: a verdict state or 'no verdict' (the rule must refuse with
    a DataError); must: words the reason must contain (the platform's
    command, the check behind a disagreement); meta: the files' own
    provenance lines beside write()'s."""
    global failed
    mod = labs.LABS[lab]
    # Removed with what it holds once the rule has run (the suite leaves nothing in /tmp).
    with tempfile.TemporaryDirectory(prefix=f"report-rules-lab{lab}.") as top:
        folder = top if kind == "native" else os.path.join(top, KEYS[kind])
        for fname, rows in (native or {}).items():
            write(top, fname, rows)
        for fname, rows in files.items():
            write(folder, fname, rows, meta)
        try:
            got = mod.evaluate(Platform(key=KEYS[kind], label="test", kind=kind, dir=folder), SEEDS[mod.SEED])
            state, reason = got.verdict.state, got.verdict.reason
        except csvdata.DataError as e:
            state, reason = "no verdict", str(e)
    missing = [w for w in must if w not in reason]
    ok = state == want and not missing
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} - report rules: lab{lab} {name} ({kind}): {state}"
          f"{'' if state == want else f' (expected {want})'}{f' (reason lacks {missing})' if missing else ''}: {reason}")


# lab1: VGG-11 learns above chance (seed 001 Task 1: 16.33%).
def lab1_row(acc, model="vgg11"):
    return [{"run": f"{model}-cifar10", "model": model, "width": "0.25", "dataset": "cifar10", "data": "real",
             "iterations": "80", "ms_mean": "254", "test_loss": "2.2", "test_accuracy": str(acc)}]


case(1, "15.6% after one quick epoch (lab3's Task 1, measured)", {"vgg11-cifar10-summary.csv": lab1_row(0.156)},
     "reproduced")
case(1, "10.1%, chance", {"vgg11-cifar10-summary.csv": lab1_row(0.101)}, "not reproduced")
case(1, "no VGG-11 run", {"cnn3-mnist-summary.csv": lab1_row(0.9, "cnn3")}, "no verdict")
# The time per iteration scaled by this machine's SGEMM rate, which labs/lab1/run.sh measures beside the runs
# (gemm_peak-cpu.csv): ddlab's step at 60 GFLOP/s on a machine whose SGEMM reaches 113 (measured here,
# 2026-12-06, 2 threads) runs at 0.53 of the peak: on the seed's node (126.5 GFLOP/s on its step) that is
# 1.88x the seed's time for the same work, inside the factor 2; at 300 GFLOP/s of peak it is 5x.
timed = dict(lab1_row(0.156)[0], gflops="60")
for peak, want, words in ((113, "reproduced", "time per iteration as the seed's node's: "),
                          (300, "partly", "time per iteration not as the seed's node's: ")):
    case(1, f"the time scaled by a measured SGEMM peak of {peak} GFLOP/s",
         {"vgg11-cifar10-summary.csv": [timed],
          "gemm_peak-cpu.csv": [{"op": "sgemm", "n": "1024", "gflops": str(peak * 0.8), "library": "OpenBLAS"},
                                {"op": "sgemm", "n": "2048", "gflops": str(peak), "library": "OpenBLAS"}]},
         want, must=(words,))


# lab2: the rings beat MPI_Allreduce and Rabenseifner at the 3 largest sizes at the seed's 80 processes, the lead
# growing with the size; every ring row 7-10 points less accurate than MPI_Allreduce.
SIZES2 = (1 << 20, 4 << 20, 16 << 20, 64 << 20)


def lab2_files(times_ms, gaps, ranks=80, grow=1.0):
    """bench-npN.csv with each algorithm's time at 64 MiB (times_ms), a
    quarter of it per size below; the rivals' (mpi, rabenseifner) shrink by
    `grow` a size more than the rings' (grow > 1: the rings' lead grows with
    the size). train-npN.csv with each algorithm's accuracy gap to MPI."""
    bench = []
    for i, b in enumerate(SIZES2):
        down = len(SIZES2) - 1 - i
        for a, t in times_ms.items():
            f = 4.0 ** down * (grow ** down if a in ("mpi", "rabenseifner") else 1.0)
            us = 1e3 * t / f
            bench.append({"alg": a, "bytes": str(b), "dtype": "fp32", "median_us": str(us), "min_us": str(0.98 * us),
                          "ranks": str(ranks), "busbw_GBs": "1"})
    train = [{"alg": a, "hidden": "16", "test_accuracy": str(0.9 + g / 100), "accuracy_minus_reference": str(g / 100),
              "ranks": "4", "maxdiff_first_step": "1.5e-8", "maxdiff_final": "0.01"} for a, g in gaps.items()]
    return {f"bench-np{ranks}.csv": bench, "train-np4.csv": train}


fast_ring = {"mpi": 180, "rabenseifner": 200, "ring": 100, "ring_async": 95, "tree": 400}
# Simulated 80 ranks at 16 MiB (labs/lab2/README.md): ring 0.275 s, tree 1.10 s, butterfly 3.24 s; MPI_Allreduce
# taken at 0.314 s; accuracies equal to 0.01 points, the tree's 0.02 from MPI (rounding).
sim80 = lab2_files({"mpi": 314, "rabenseifner": 3240, "ring": 275, "ring_async": 270, "tree": 1100},
                   {"mpi": 0, "ring": 0.01, "ring_async": 0.01, "tree": 0.02}, grow=1.05)
case(2, "rings faster, no accuracy gap (the simulated 80-rank run)", sim80, "partly", "sim",
     must=("3 of 4 claims held", "tests/mpi_comm.c", "bit for bit", "cause unknown", "rounding moved the other"))
case(2, "the same numbers on shared memory", sim80, "not shown here", must=("make lab2 NET=1gbit NP=4", "tests/mpi_comm.c"))
case(2, "rings faster and 8.5 points less accurate", lab2_files(fast_ring, {"mpi": 0, "ring": -8.5, "ring_async": -9},
                                                               grow=1.2), "reproduced", "net")
# 4 emulated hosts (the seed's network, not its 80 processes): the speed claims say "not shown at this scale".
case(2, "4 emulated hosts, rings 8.5 points less accurate", lab2_files(fast_ring, {"mpi": 0, "ring": -8.5}, ranks=4),
     "reproduced", "net", must=("not shown at this scale: 4 ranks, the seed's 80", "PLATFORM=wits80"))
case(2, "rings slowest, no gap", lab2_files({"mpi": 100, "rabenseifner": 200, "ring": 400, "ring_async": 400},
                                            {"mpi": 0, "ring": 0.06}), "not reproduced", "net")
case(2, "no ring run", lab2_files(fast_ring, {"mpi": 0}), "no verdict")
# A sweep of 3 calls a size has no noise band: the speed claims are not judged.
few = lab2_files({"mpi": 100, "rabenseifner": 200, "ring": 400, "ring_async": 400}, {"mpi": 0, "ring": -8})
for r in few["bench-np80.csv"]:
    r["reps"] = "3"
case(2, "3 calls a size", few, "reproduced", "net", must=("3 calls a size in the sweep, fewer than 5",))
# make figures' simulated sweep at the seed's 80 processes: 1 call a size of the network alone, which a
# simulation times the same every call: judged (the same sweep measured on a network is not, above).
once = lab2_files({"mpi": 314, "rabenseifner": 3240, "ring": 275, "ring_async": 270}, {"mpi": 0, "ring": 0.01}, grow=1.05)
for r in once["bench-np80.csv"]:
    r["reps"] = "1"
case(2, "1 call a size of a network-only simulation", once, "partly", "sim",
     must=("ring faster than MPI_Allreduce and Rabenseifner: 3 of the 3 largest",),
     meta={"sim_compute": "not simulated (smpi/simulate-computation:no): the network's time alone"})
case(2, "1 call a size of a simulation with computation", once, "not reproduced", "sim",
     must=("1 calls a size in the sweep, fewer than 5",),
     meta={"sim_compute": "simulated (computation timed on this machine)"})
# make figures' emulated sweep alone (LAB2_ONLY=bench): the accuracy from the native run beside it.
case(2, "emulated sweep alone, the native run's training", {"bench-np80.csv": sim80["bench-np80.csv"]}, "partly", "net",
     must=("the native run's training", "tests/mpi_comm.c"), native=lab2_files(fast_ring, {"mpi": 0, "ring": 0.02}))
case(2, "emulated sweep alone, no native run", {"bench-np80.csv": sim80["bench-np80.csv"]}, "no verdict", "net")


# lab3: gather/scatter > allreduce >= DDP, DDP faster than one process, accuracies alike (judged against Task 1's
# min-max over the seeds labs/lab3/run.sh repeats it with: seed-N/task1-seedN-summary.csv beside table1.csv).
def lab3_table(s, acc, repeats=()):
    t1 = s["1"]
    files = {"table1.csv": [{"task": k, "method": k, "np": "1" if k == "1" else "4", "s_per_iter": str(v),
                             "test_accuracy_pct": str(acc[k]), "speedup": f"{t1 / v:.2f}"} for k, v in s.items()]}
    for seed, a in enumerate(repeats, start=2):
        files[f"seed-{seed}/task1-seed{seed}-summary.csv"] = [{"tag": f"task1-seed{seed}", "test_accuracy": a / 100}]
    return files


seed_t = {r["task"]: float(r["s_per_iter"]) for r in SEEDS["001"].table("table1").rows}
seed_acc = {r["task"]: float(r["test_accuracy_pct"]) for r in SEEDS["001"].table("table1").rows}
# The seed's Table 1 with Task 1 repeated twice more (illustrative numbers, 3 points apart): its 2.4 points are
# within that spread.
case(3, "the seed's own Table 1, Task 1 repeated", lab3_table(seed_t, seed_acc, (15.0, 18.0)), "reproduced", "net",
     must=("Task 1's min-max over 3 seeds",))
case(3, "the seed's own Table 1, Task 1 repeated", lab3_table(seed_t, seed_acc, (15.0, 18.0)), "reproduced", "sim")
# `make lab3` measured (quick profile, synthetic CIFAR-10, 2026-11-29, labs/lab3/RESULTS.md; times from a loaded
# machine): Task 1 29.85% with seed 1, 15.15% and 14.25% with seeds 2 and 3; Tasks 2a-3 9.9 points above Task 1.
measured3 = lab3_table({"1": 6.651, "2a": 1.929, "2b": 1.838, "3": 2.166},
                       {"1": 29.85, "2a": 39.75, "2b": 39.45, "3": 38.1}, (15.15, 14.25))
case(3, "measured native run, Task 1 repeated", measured3, "not shown here",
     must=("2 of 2 held", "accuracies alike", "Task 1's min-max over 3 seeds"))
# As the seed ran it, once, on its 10000 test images: 2.4 points is more than two standard errors there (1.1).
case(3, "the seed's own Table 1, one seed", lab3_table(seed_t, seed_acc), "partly", "net",
     must=("accuracies apart", "two standard errors on 10000 test examples"), meta={"test_examples": "10000"})
# One machine, 4 ranks on 2 cores, real CIFAR-10 (labs/lab3/README.md, "Reference results"), one seed:
# the order is not judged on shared memory, and the command that shows it is named; 3.8 points apart is more
# than two standard errors on 2000 test images (2.2) when nothing measured the run-to-run spread.
native3 = lab3_table({"1": 0.254, "2a": 0.231, "2b": 0.232, "3": 0.235}, {"1": 15.6, "2a": 12.2, "2b": 11.8, "3": 13.0})
case(3, "native shared memory (measured)", native3, "not shown here",
     must=("not shown here, on shared memory", "make lab3 NET=1gbit NP=2", "PLATFORM=cluster4", "2 of 3 held",
           "two standard errors on 2000 test examples"))
case(3, "the same times on an emulated network", native3, "partly", "net", must=("2 of 4 claims held",))
# The same with Task 1 repeated: the spread over its seeds covers the tasks' 3.8 points.
native3r = lab3_table({"1": 0.254, "2a": 0.231, "2b": 0.232, "3": 0.235}, {"1": 15.6, "2a": 12.2, "2b": 11.8, "3": 13.0},
                      (12.1, 17.9))
case(3, "native shared memory, Task 1 repeated", native3r, "not shown here", must=("2 of 2 held", "over 3 seeds"))
# The quick profile's 2 seeds of Task 1 (illustrative numbers in the shape of a real-CIFAR-10 run, 2000 test
# images): no band is scaled up from 2 values (the rule once made 3.3 points of these 2 seeds' 1.8), so the 4
# tasks' 3.0 points are judged against the 2.2-point binomial floor: apart.
real2 = lab3_table(seed_t, {"1": 15.0, "2a": 12.8, "2b": 13.5, "3": 15.8}, (13.2,))
case(3, "2 seeds 1.8 apart, the tasks 3.0 apart", real2, "partly", "net",
     must=("accuracies apart", "two standard errors on 2000"), meta={"test_examples": "2000"})
# Gaps inside a band wider than half the distance to chance are not judged: Task 1's 3 seeds 6 points apart
# (a band of 7.3 for 4 tasks) on accuracies of 16-19%.
case(3, "3 seeds 6 points apart on accuracies near 17%", lab3_table(seed_t, seed_acc, (13.0, 19.0)), "reproduced", "net",
     must=("accuracies alike: not judged: noise too large at this profile",))
case(3, "2 seeds 0.4 apart, the tasks 3.0 apart", lab3_table(seed_t, {"1": 15.0, "2a": 12.8, "2b": 13.5, "3": 15.8},
                                                            (14.6,)),
     "partly", "net", must=("accuracies apart", "two standard errors on 2000"), meta={"test_examples": "2000"})
# Rounding's noise, measured in the run: Tasks 2a and 2b train the same update without running batch-norm
# statistics (bn off in their summaries) and differ only in the order of their additions. `make lab3
# LAB3_ONLY=table1` on real CIFAR-10 at 459b5be (2026-11-29): Task 1 13.40% (seed 2: 14.05%), 2a 12.75%,
# 2b 14.90% (both bn off; 2b's losses are Task 3's bit for bit, 2a's part at step 6), 3 15.80% (bn broadcast).
# 2a-2b's 2.15 points span 3.9 as 4 draws: the tasks' 3.05 points are within it.
def with_bn(files, bn, acc):
    files = dict(files)
    for task, mode in bn.items():
        files[f"task{task}-summary.csv"] = [{"tag": f"task{task}", "np": "1" if task == "1" else "4", "bn": mode,
                                             "test_accuracy": acc[task] / 100}]
    return files


real_acc = {"1": 13.40, "2a": 12.75, "2b": 14.90, "3": 15.80}
real_bn = {"1": "track", "2a": "off", "2b": "off", "3": "broadcast"}
# The 2 values of 2a and 2b are not scaled up to a band of 3.9: the tasks' 3.05 points are apart.
case(3, "real CIFAR-10 Table 1 (measured), rounding's noise", with_bn(lab3_table(seed_t, real_acc, (14.05,)),
                                                                       real_bn, real_acc),
     "partly", "net", must=("accuracies apart",), meta={"test_examples": "2000"})
case(3, "the same without the summaries: the seeds' noise alone", lab3_table(seed_t, real_acc, (14.05,)),
     "partly", "net", must=("accuracies apart",), meta={"test_examples": "2000"})
tight_acc = dict(real_acc, **{"1": 9.0, "2a": 14.7})
case(3, "2a and 2b agree, Task 1 5.9 points below", with_bn(lab3_table(seed_t, tight_acc, (9.5,)), real_bn,
                                                            tight_acc),
     "partly", "net", must=("accuracies apart",), meta={"test_examples": "2000"})
# Repeats that agree do not make a wide gap alike.
case(3, "Task 1's seeds agree, the tasks 9.9 points apart", lab3_table(seed_t, {"1": 29.9, "2a": 39.8, "2b": 39.5,
                                                                                   "3": 38.1}, (29.5, 30.6)),
     "partly", "net", must=("accuracies apart",))
case(3, "DDP slowest, accuracies 20 points apart", lab3_table({"1": 0.2, "2a": 0.3, "2b": 0.4, "3": 0.5},
                                                              {"1": 10, "2a": 30, "2b": 12, "3": 11}),
     "not reproduced", "net")
# make figures' short emulated Table 1 (measured 2026-11-29 at 10 steps a task, load average 20): its accuracies are
# not the finding's; the native run's beside it, with its seed repeats, are judged.
short3 = lab3_table({"1": 3.47, "2a": 2.8, "2b": 2.5, "3": 2.2}, {"1": 12.5, "2a": 14.6, "2b": 14.6, "3": 7.3})
case(3, "short emulated run, the native run's accuracies", short3, "reproduced", "net",
     must=("(the native run's)", "over 3 seeds"), native=native3r)
case(3, "short emulated run, the native run had one seed", short3, "partly", "net",
     must=("(the native run's)", "accuracies apart"), native=native3)
case(3, "task 3 missing", {"table1.csv": lab3_table(seed_t, seed_acc)["table1.csv"][:3]}, "no verdict")


# lab4: pairs send less per round; less in total with the seed's iterations;
# lose accuracy at equal iterations; win it back with more.
def lab4_files(pair_total_mb, pair_acc_12, pair_acc_18, allreduce_acc=91):
    rows = []
    for p in (3, 4, 5):
        rows.append({"workers": p, "passes": p, "label": "all-reduce", "iterations": 12, "rounds": 120,
                     "traffic_mb": 100.0, "accuracy_pct": 90})
        rows.append({"workers": p, "passes": 1, "label": "k=1", "iterations": 12 + 3 * (p - 1),
                     "rounds": 10 * (12 + 3 * (p - 1)), "traffic_mb": pair_total_mb, "accuracy_pct": 89})
    fig3 = [{"label": "all-reduce", "iterations": 12, "accuracy": allreduce_acc / 100},
            {"label": "k=1", "iterations": 12, "accuracy": pair_acc_12 / 100},
            {"label": "k=1", "iterations": 18, "accuracy": pair_acc_18 / 100}]
    return {"table2.csv": rows, "fig3.csv": fig3}


case(4, "less per round and in total, 31% then 89% (the seed's Figure 3)", lab4_files(90, 31, 89), "reproduced")
# 5 workers, real MNIST (labs/lab4/README.md): pairs at 12 iterations 84.8% against the
# all-reduce's 83.0%, 92.2% at 24; more bytes in total with the seed's extra iterations.
case(4, "more in total, no loss at equal iterations (measured)", lab4_files(130, 84.8, 92.2, 83.0), "partly",
     must=("1 of 3 claims held", "tests/mpi_group_avg.c", "closed form", "docker stats",
           "nothing was lost at 12 iterations"))
# "won back" only after a loss: pairs at 18 iterations below their own 12 (the measured 64.6% -> 59%) read
# "won back" under the old rule, as nothing was lost; now it is not judged, and after a loss it fails.
case(4, "no loss at 12, pairs at 18 below their own 12", lab4_files(90, 64.6, 59.0, 63.4), "partly",
     must=("won back with more iterations: not judged",))
case(4, "a loss at 12, pairs at 18 no better", lab4_files(90, 31, 33, 91), "partly", must=("not won back",))
# The seed's cause tested on emulated links (labs/net/wire.sh): 2 hosts' eth0 counters over 3 seconds, each
# sending 112 MB, 224 MB in all against ddlab's 200 MB of averaging (runs-np2.csv) -> 1.12x; the cumulative
# counters (rx + tx) summed once a second: 2 x (100 + 200 + 224) MB over a true 448 MB -> 2.3x. Numbers of the
# shape measured on 2 emulated hosts at 1 Gbit/s (2026-12-06: 1.12x, 3.2x).
wired = dict(lab4_files(130, 84.8, 92.2, 83.0))
wired["wire-np2.csv"] = [{"t_s": str(t), "host": h, "rx_bytes": str(v), "tx_bytes": str(v)}
                         for t, v in ((0, 0), (1, 50e6), (2, 100e6), (3, 112e6)) for h in ("h0", "h1")]
wired["runs-np2.csv"] = [{"label": "all-reduce", "bytes_sent": "80000000"}, {"label": "k=1", "bytes_sent": "120000000"}]
case(4, "more in total, the cause tested on the links", wired, "partly",
     must=("tested on the emulated hosts' links", "1.12x ddlab's count", "2.3x the true total", "cause unknown"))
case(4, "no Figure 3 bars", {"table2.csv": lab4_files(90, 31, 89)["table2.csv"],
                             "fig3.csv": [{"label": "all-reduce", "iterations": 12, "accuracy": 0.9}]}, "no verdict")


# lab5: bytes = closed form, FP16 half; FL < D-SGD/2048 < D-SGD/256 per epoch;
# batch-256 schemes alike; FP16 close to FP32.
def lab5_files(acc, match="yes"):
    comm, accs = [], []
    per_epoch = {"C_SGD_BS256": 0, "D_SGD_BS256": 44.9, "D_SGD_BS2048": 5.6, "FL_BS256": 2.8}
    rounds = {"C_SGD_BS256": 0, "D_SGD_BS256": 16, "D_SGD_BS2048": 2, "FL_BS256": 1}
    for prec, scale in (("FP32", 1.0), ("FP16", 0.5)):
        for s in per_epoch:
            label = f"{s}_{prec}"
            comm.append({"label": label, "mb_per_round": 2.806 * scale if s != "C_SGD_BS256" else 0,
                         "mb_per_epoch": per_epoch[s] * scale, "mb_per_epoch_closed": per_epoch[s] * scale,
                         "rounds_per_epoch": rounds[s], "bytes_match": match})
            accs.append({"label": label, "final_pct": acc[s][0 if prec == "FP32" else 1]})
    return {"comm.csv": comm, "accuracy.csv": accs}


alike = {"C_SGD_BS256": (40, 39), "D_SGD_BS256": (41, 40), "D_SGD_BS2048": (20, 21), "FL_BS256": (38, 38)}
case(5, "bytes as the formula, accuracies alike", lab5_files(alike), "reproduced")
# Quick profile, real CIFAR-10 (labs/lab5/README.md): batch-256 accuracies 26.4, 31.0, 20.6%.
measured = {"C_SGD_BS256": (26.4, 37.2), "D_SGD_BS256": (31.0, 35.4), "D_SGD_BS2048": (10.9, 11.0),
            "FL_BS256": (20.6, 32.3)}
case(5, "bytes as the formula, batch-256 accuracies 10 points apart (measured)", lab5_files(measured), "partly")
case(5, "a run missing", {k: v[:-1] for k, v in lab5_files(alike).items()}, "no verdict")
# FedAvg at local batch 64 (the quick profile's 256 / 4 users) and once more at the seed's 256 (local256/,
# labs/lab5/run.sh): the verdict names the change and what it cost; without the second run, that it is unmeasured.
at64 = dict(lab5_files(alike), **{"summary-FL_BS256_FP32.csv": [{"label": "FL_BS64_FP32", "local_batch": "64",
                                                                   "final_accuracy": "0.38"}]})
case(5, "FedAvg at local batch 64, its cost unmeasured", at64, "reproduced",
     must=("FedAvg ran at local batch 64, not the seed's 256 (its cost in accuracy is not measured",))
case(5, "FedAvg at local batch 64, and at the seed's 256 in local256/",
     dict(at64, **{"local256/summary-FL_BS256_FP32-local256.csv": [{"label": "FL_BS256_FP32-local256",
                                                                    "final_accuracy": "0.12"}]}), "reproduced",
     must=("at the seed's 256 FedAvg reached 12.0%, at 64 38.0%: the change moved it +26.0 points",))


# lab6: 2 workers keep the CNNs' accuracy; the small DNN slows at 2 workers, ResNet-50 does not.
def lab6_grid(cells):
    rows = []
    for (w, k), (t, acc) in cells.items():
        rows.append({"device": "cpu", "style": "horovod", "workers": k, "workload": w, "workload_label": w,
                     "train_s": t, "test_accuracy_pct": acc, "iters_per_s": 100 / k / t})  # each worker runs 1/k
    return {"lab6.csv": rows}


# One idle machine, the quick profile before linear scaling (labs/lab6/README.md, run C).
run_c = {("resnet50-mnist", 1): (14.25, 86.6), ("resnet50-mnist", 2): (7.76, 66.6),
         ("mobilenetv2-fashion", 1): (14.90, 72.7), ("mobilenetv2-fashion", 2): (8.02, 49.0),
         ("sdss_dnn-sdss", 1): (0.0635, 97.2), ("sdss_dnn-sdss", 2): (0.0377, 97.7)}
case(6, "idle machine, accuracy lost at 2 workers (measured)", lab6_grid(run_c), "not shown here",
     must=("make lab6 NET=1gbit HOSTS=2", "1 of 2 held"))
# The DNN's accuracy and MobileNetV2's time and every workload's iterations per second are judged too: they hold.
case(6, "the same numbers on an emulated network", lab6_grid(run_c), "partly", "net",
     must=("accuracy lost at 2 workers", "DNN accuracy kept", "MobileNetV2 faster"))
# Emulated 100 Mbit/s link, synthetic data (labs/lab6/README.md): SDSS 0.211 -> 2.44 s,
# ResNet-50 20.11 -> 16.73 s, 70.5 -> 52.2%.
net = {("resnet50-mnist", 1): (20.11, 70.5), ("resnet50-mnist", 2): (16.73, 52.2),
       ("sdss_dnn-sdss", 1): (0.211, 94.5), ("sdss_dnn-sdss", 2): (2.44, 94.2)}
case(6, "emulated 100 Mbit/s link (measured)", lab6_grid(net), "partly", "net")
kept = dict(net)
kept[("resnet50-mnist", 2)] = (16.73, 68.0)
case(6, "slowdown, accuracy 2.5 points lower: within the noise of 2000 test images", lab6_grid(kept), "reproduced",
     "net")
kept[("resnet50-mnist", 2)] = (16.73, 66.0)
case(6, "slowdown, accuracy 4.5 points lower: beyond the noise", lab6_grid(kept), "partly", "sim")
case(6, "no SDSS run", lab6_grid({k: v for k, v in net.items() if k[0] != "sdss_dnn-sdss"}), "no verdict", "net")
# make figures' short simulated run (LAB6_SHORT=1 at 30 CNN steps, measured 2026-11-28 on cluster4: SDSS 0.0048 -> 0.188 s,
# ResNet-50 0.986 -> 0.985 s, accuracies after 30 steps): accuracy judged on the native grid beside it.
short6 = {("resnet50-mnist", 1): (0.986, 19.2), ("resnet50-mnist", 2): (0.985, 10.0),
          ("sdss_dnn-sdss", 1): (0.0048, 94.6), ("sdss_dnn-sdss", 2): (0.188, 93.8)}
native6 = {k: (t, 90.0) for k, (t, _) in run_c.items()}
case(6, "short simulated run, the native grid's accuracies", lab6_grid(short6), "reproduced", "sim",
     must=("(the native run's)",), native=lab6_grid(native6))
case(6, "short simulated run alone: its own accuracies", lab6_grid(short6), "partly", "sim")
# The same run after SMPI's MPI_Test cost was set to 1 us (labs/platforms/README.md), measured 2026-11-29 without
# root at 850c93e (labs/lab6/RESULTS.md): SDSS 0.02279 -> 0.1211 s, ResNet-50 7.943 -> 4.17 s.
short6_fixed = {("resnet50-mnist", 1): (7.943, 32.8), ("resnet50-mnist", 2): (4.17, 10.0),
                ("sdss_dnn-sdss", 1): (0.02279, 94.6), ("sdss_dnn-sdss", 2): (0.1211, 93.8)}
case(6, "short simulated run, MPI_Test at 1 us (measured)", lab6_grid(short6_fixed), "reproduced", "sim",
     must=("(the native run's)", "5.31x and 0.52x"), native=lab6_grid(native6))



# A lab's section (labs.section): each verdict names its platform, the
# headline is the one that can show the finding, and what `make figures`
# recorded of its platform run (results/labN/platform.txt) is said.
def check(name, ok, detail):
    global failed
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} - report rules: section {name}{'' if ok else f': {detail}'}")


def section3(net, record):
    results = tempfile.mkdtemp(prefix="report-rules-section.")
    atexit.register(shutil.rmtree, results, True)  # the suite leaves nothing in /tmp
    for fname, rows in native3r.items():  # Table 1 and Task 1's seed repeats
        write(os.path.join(results, "lab3"), fname, rows, meta={"git": "test"})
    if net:
        write(os.path.join(results, "lab3", "net-1gbit"), "table1.csv", lab3_table(seed_t, seed_acc)["table1.csv"],
              meta={"git": "test", "emulated_network": "2 hosts, 1 Gbit/s, no added latency"})
    if record:
        with open(os.path.join(results, "lab3", "platform.txt"), "w") as f:
            f.write("# test\n" + "".join(f"{k}: {v}\n" for k, v in record.items()))
    return labs.section(3, results, SEEDS, ROOT, "test")


s3 = section3(True, {})
head, other = s3.findings[0], s3.findings[-1]
check("lab3 headline from the emulated network, named", head.platform.kind == "net" and
      head.verdict.state == "reproduced" and "emulated 2 hosts, 1 Gbit/s" in head.verdict.platform,
      f"{head.platform.kind} {head.verdict.state} {head.verdict.platform!r}")
check("lab3 native run kept beside it, named, not shown here", other.platform.kind == "native" and
      other.verdict.state == "not shown here" and other.verdict.platform == "native" and len(s3.findings) == 2,
      f"{other.platform.kind} {other.verdict.state} {other.verdict.platform!r}")
check("lab3 summary cells name the emulated network", s3.summary_cells(None)[2].startswith("emulated"),
      s3.summary_cells(None))
s3 = section3(False, {"platform": "net (net-1gbit)", "status": "failed", "command": "sudo make lab3 NET=1gbit NP=2",
                      "why": "'sudo make lab3 NET=1gbit NP=2' exited with status 2; the native results stand"})
check("lab3 failed emulated run: said, native verdict stands", s3.findings[0].verdict.state == "not shown here" and
      any("failed" in p and "status 2" in p for p in s3.problems), f"{s3.findings[0].verdict.state} {s3.problems}")
s3 = section3(False, {"platform": "none", "status": "not available", "command": "sudo make lab3 NET=1gbit NP=2",
                      "why": "no emulated network: emulated networks need root"})
check("lab3 no platform here: not shown here, why and the command", s3.findings[0].verdict.state == "not shown here"
      and "need root" in s3.how_to_show and "`sudo make lab3 NET=1gbit NP=2` elsewhere" in s3.how_to_show,
      s3.how_to_show)



# --- accuracy claims judged against the run-to-run spread (report/ddreport/spread.py) ---
# A lab that repeats runs with other seeds writes them into seed-N folders;
# "alike" / "within noise" then means: the gap between the means is no
# larger than the seeds' min-max (at least two standard errors on the test
# set).
def case_seeds(lab, name, files, repeats, want, kind="native"):
    """case() with repeats: {"seed-2": {file: rows}, ...} written beside the
    native files; kind net: the same files also as an emulated network's
    run (results/labN/net-1gbit/), whose accuracy claims read the native
    folder's seeds, as `make figures` lays them out."""
    global failed
    with tempfile.TemporaryDirectory(prefix=f"report-rules-lab{lab}-seeds.") as top:
        folder = top if kind == "native" else os.path.join(top, KEYS[kind])
        for fname, rows in files.items():
            write(top, fname, rows)
            write(folder, fname, rows)
        for sub, more in repeats.items():
            for fname, rows in more.items():
                write(os.path.join(top, sub), fname, rows)
        mod = labs.LABS[lab]
        try:
            got = mod.evaluate(Platform(key=KEYS[kind], label="test", kind=kind, dir=folder), SEEDS[mod.SEED])
            state, reason = got.verdict.state, got.verdict.reason
        except csvdata.DataError as e:
            state, reason = "no verdict", str(e)
    ok = state == want
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} - report rules: lab{lab} {name} ({kind}): {state}"
          f"{'' if ok else f' (expected {want})'}: {reason}")


def lab5_seed_summaries(acc32):
    """A seed-N folder's FP32 summaries: {scheme: accuracy %}."""
    return {f"summary-{s}_FP32.csv": [{"label": f"{s}_FP32", "final_accuracy": str(a / 100)}]
            for s, a in acc32.items()}


# FedAvg 6 points below C-SGD on the main seed: apart with one seed (the
# binomial noise of 2000 images is ~2 points), alike when the other seeds
# move C-SGD and FedAvg by 8 points.
fl_gap = {"C_SGD_BS256": (88, 88), "D_SGD_BS256": (90, 89), "D_SGD_BS2048": (20, 21), "FL_BS256": (82, 82)}
case(5, "FedAvg 6 points below C-SGD, one seed", lab5_files(fl_gap), "partly")
wide = {"seed-2": lab5_seed_summaries({"C_SGD_BS256": 80, "D_SGD_BS256": 84, "FL_BS256": 88}),
        "seed-3": lab5_seed_summaries({"C_SGD_BS256": 86, "D_SGD_BS256": 91, "FL_BS256": 80})}
case_seeds(5, "FedAvg 6 points below C-SGD, seeds spread 8 points", lab5_files(fl_gap), wide, "reproduced")
tight = {"seed-2": lab5_seed_summaries({"C_SGD_BS256": 87, "D_SGD_BS256": 89, "FL_BS256": 81}),
         "seed-3": lab5_seed_summaries({"C_SGD_BS256": 88, "D_SGD_BS256": 90, "FL_BS256": 82})}
case_seeds(5, "FedAvg 6 points below C-SGD, seeds within 1 point", lab5_files(fl_gap), tight, "partly")
# FP16 runs with one seed: within noise when it lies no further below the
# FP32 mean than the FP32 seeds spread.
fp16_low = {"C_SGD_BS256": (88, 82), "D_SGD_BS256": (90, 89), "D_SGD_BS2048": (20, 21), "FL_BS256": (86, 86)}
fp16_seeds = {"seed-2": lab5_seed_summaries({"C_SGD_BS256": 81, "D_SGD_BS256": 86, "FL_BS256": 84}),
              "seed-3": lab5_seed_summaries({"C_SGD_BS256": 87, "D_SGD_BS256": 88, "FL_BS256": 89})}
case_seeds(5, "FP16 6 points below the FP32 mean, FP32 seeds spread 7", lab5_files(fp16_low), fp16_seeds,
           "reproduced")
fp16_lower = dict(fp16_low, C_SGD_BS256=(88, 72))
case_seeds(5, "FP16 13 points below the FP32 mean, FP32 seeds spread 7", lab5_files(fp16_lower), fp16_seeds,
           "partly")


def lab6_seed_summaries(accs, seed):
    """A seed-N folder's horovod summaries, as labs/lab6/run.sh names them
    (tag-seedN): {(workload, workers): accuracy %}."""
    return {f"{w}-horovod-w{k}-seed{seed}-summary.csv": [{"tag": f"{w}-horovod-w{k}-seed{seed}",
                                                          "test_accuracy_pct": str(a)}]
            for (w, k), a in accs.items()}


# MobileNetV2 4.2 points lower at 2 workers (the quick profile before the
# seeds, 94.7 -> 90.5%, synthetic data): lost on one seed, kept when the
# seeds move a cell by 7.5 points, lost when they agree to a point.
mnv2 = dict(net)
mnv2[("resnet50-mnist", 2)] = (16.73, 70.0)
mnv2[("mobilenetv2-fashion", 1)] = (20.0, 94.7)
mnv2[("mobilenetv2-fashion", 2)] = (12.0, 90.5)
case(6, "MobileNetV2 4.2 points lower at 2 workers, one seed", lab6_grid(mnv2), "partly", kind="net",
     native=lab6_grid(mnv2))
spread_wide = {"seed-2": lab6_seed_summaries({("resnet50-mnist", 1): 72.0, ("resnet50-mnist", 2): 69.0,
                                              ("mobilenetv2-fashion", 1): 89.5, ("mobilenetv2-fashion", 2): 93.0}, 2),
               "seed-3": lab6_seed_summaries({("resnet50-mnist", 1): 69.0, ("resnet50-mnist", 2): 71.5,
                                              ("mobilenetv2-fashion", 1): 97.0, ("mobilenetv2-fashion", 2): 88.0}, 3)}
case_seeds(6, "MobileNetV2 4.2 points lower, seeds spread 7.5 points", lab6_grid(mnv2), spread_wide, "reproduced",
           kind="net")
spread_tight = {"seed-2": lab6_seed_summaries({("resnet50-mnist", 1): 70.0, ("resnet50-mnist", 2): 70.5,
                                               ("mobilenetv2-fashion", 1): 94.0, ("mobilenetv2-fashion", 2): 90.0}, 2),
                "seed-3": lab6_seed_summaries({("resnet50-mnist", 1): 71.0, ("resnet50-mnist", 2): 69.5,
                                               ("mobilenetv2-fashion", 1): 94.5, ("mobilenetv2-fashion", 2): 90.8}, 3)}
case_seeds(6, "MobileNetV2 4.2 points lower, seeds within a point", lab6_grid(mnv2), spread_tight,
           "partly", kind="net")

sys.exit(1 if failed else 0)
