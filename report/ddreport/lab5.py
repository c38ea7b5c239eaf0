"""lab5 - C-SGD vs D-SGD vs FedAvg, FP32 vs FP16 (seed 004)."""
import re

from . import csvdata, rules, spread
from .doc import Finding, Table

TITLE = "C-SGD vs D-SGD vs federated averaging, FP32 vs FP16"
SHORT = "C-SGD, D-SGD, FedAvg; FP16"
SEED = "004"
SHOWS_ON = ()
HOW_TO_SHOW = ""
KEY = [
    (r"lab5-fig5-fp32", "The seed's Figure 5: validation accuracy per epoch of the four schemes in FP32. The seed "
                        "saw the three batch-256 curves together after 100 epochs; look at how far apart they are "
                        "here, and how much they move from epoch to epoch."),
    (r"lab5-fig6-fp16", "The seed's Figure 6: the same in FP16 mixed precision. Compare each curve with its FP32 "
                        "twin: the seed found the loss from FP16 negligible."),
    (r"lab5-lossscale", "The dynamic loss scale of every FP16 run against optimizer updates: it doubles after a "
                        "window of clean steps and halves (skipping the step) on an overflow."),
]
APPENDIX = []
SCHEMES = ("C_SGD_BS256", "D_SGD_BS256", "D_SGD_BS2048", "FL_BS256")
# The seed's schemes: which run plays each (name, and min or max batch).
ROLES = {"C_SGD_BS256": ("C_SGD", min), "D_SGD_BS256": ("D_SGD", min), "D_SGD_BS2048": ("D_SGD", max),
         "FL_BS256": ("FL", min)}


def quotes(seed):
    s = {r["scheme"]: r for r in seed.table("section3.2").rows}
    return [(seed.ref("section3.2"), f"{seed.value('params'):,.0f} parameters x 4 B = {s['FL_BS256']['mb_per_round']} "
                                     f"MB per round (FP16: {seed.value('mb_per_round_fp16'):.0f} MB); per epoch "
                                     f"D-SGD/256 {float(s['D_SGD_BS256']['mb_per_epoch']) / 1e3:.1f} GB, D-SGD/2048 "
                                     f"{float(s['D_SGD_BS2048']['mb_per_epoch']) / 1e3:.1f} GB, FL "
                                     f"{s['FL_BS256']['mb_per_epoch']} MB, C-SGD 0"),
            (seed.ref("findings"), "for batch size 256 the accuracy of C-SGD, D-SGD and FL is almost the same "
                                   f"after {seed.value('epochs'):.0f} epochs, and FP16's loss is negligible")]


def roles(labels):
    """The seed's scheme names -> this run's labels of one precision: runs are
    named NAME_BS<batch>_<PRECISION>; D-SGD's smaller batch plays the seed's
    256, its larger one the seed's 2048 (a test's tiny run uses others)."""
    runs = {}
    for label in labels:
        m = re.fullmatch(r"(C_SGD|D_SGD|FL)_BS(\d+)_(FP32|FP16)", label)
        if m:
            runs.setdefault((m.group(1), m.group(3)), []).append((int(m.group(2)), label))
    out = {}
    for prec in ("FP32", "FP16"):
        for scheme, (name, pick) in ROLES.items():
            found = sorted(runs.get((name, prec), []))
            if len(found) == 1 and name == "D_SGD":  # one D-SGD run: its batch says which
                found = [x for x in found if (x[0] >= 1024) == (pick is max)]
            if found:
                out[scheme, prec] = pick(found)[1]
    return out


def evaluate(platform, seed):
    comm = rules.read(platform, "comm.csv", need=("label", "mb_per_round", "mb_per_epoch", "mb_per_epoch_closed",
                                                  "rounds_per_epoch", "bytes_match"))
    accs = rules.read(platform, "accuracy.csv", need=("label", "final_pct"))
    byrole = roles(r["label"] for r in comm.rows)
    c = {key: comm.one(label=label) for key, label in byrole.items()}
    a = {key: rules.num(accs.one(label=label), "final_pct") for key, label in byrole.items()}
    missing = [f"{s} {p}" for p in ("FP32", "FP16") for s in SCHEMES if (s, p) not in c]
    if missing:
        raise rules.csvdata.DataError(f"{comm.path}: no run in the role of {', '.join(missing)} (a partial run?)")
    labels = [(s, p) for p in ("FP32", "FP16") for s in SCHEMES]
    matched = sum(c[x]["bytes_match"] == "yes" for x in labels)
    halves = [rules.num(c[s, "FP16"], "mb_per_round") / rules.num(c[s, "FP32"], "mb_per_round")
              for s in SCHEMES[1:]]
    epoch = {s: rules.num(c[s, "FP32"], "mb_per_epoch") for s in SCHEMES}
    sd = {r["scheme"]: r for r in seed.table("section3.2").rows}
    seen = seeds(platform, byrole, a)
    epochs_ok = epoch["FL_BS256"] < epoch["D_SGD_BS2048"] < epoch["D_SGD_BS256"]
    # ddlab's arithmetic against itself: listed apart, never counted as claims
    checks = [
        rules.claim(matched == len(labels) and all(abs(h - 0.5) < 1e-9 for h in halves),
                    "bytes as the closed form, FP16 half", "bytes not as the closed form",
                    f"{matched} of {len(labels)} runs, FP16 {min(halves):.3f}-{max(halves):.3f}x FP32 (seed: half)",
                    "lab5.bytes"),
        rules.claim(epochs_ok, "FL < D-SGD/2048 < D-SGD/256 per epoch", "not FL < D-SGD/2048 < D-SGD/256",
                    f"{rules.fmt(epoch['FL_BS256'])}, {rules.fmt(epoch['D_SGD_BS2048'])}, "
                    f"{rules.fmt(epoch['D_SGD_BS256'])} MB (seed: 44 MB, 1.1 GB, 8.6 GB)", "lab5.per_epoch"),
    ]
    n = rules.csvdata.num(comm.meta.get("test_examples"))
    claims = accuracy_claims(seen, n, fedavg_batch(platform, byrole)) + [dsgd2048_claim(seen, n)]
    rows = []
    for x in labels:
        s, prec = x
        seed_epoch = sd[s]["mb_per_epoch"] if prec == "FP32" and s in sd else "-"
        seed_rounds = rules.fmt(float(sd[s]["rounds_per_epoch"])) if s in sd else "-"
        rows.append([s, c[x]["label"], seed_epoch, seed_rounds,
                     rules.fmt(rules.num(c[x], "mb_per_epoch_closed")), rules.fmt(rules.num(c[x], "mb_per_epoch")),
                     c[x]["rounds_per_epoch"], f"{a[x]:.1f}", seen[x].text() if len(seen[x].values) > 1 else "-"])
    table = Table(
        caption=f"The seed's {seed.ref('section3.2')} beside ddlab's runs: MB per epoch per user and direction "
                "(the seed's: full ResNet-18 on 50,000 images; ddlab's: this run's model and subset, by the same "
                "formula and counted), rounds per epoch, final validation accuracy (this run's seed; then the mean "
                "and the min-max over the seeds the profile repeats it with).",
        header=["Seed's scheme", "ddlab run", "Seed MB/epoch", "Seed rounds/epoch", "ddlab formula MB/epoch",
                "ddlab counted MB/epoch", "ddlab rounds/epoch", "ddlab acc. %", "mean (min-max) over seeds"],
        rows=rows, align="llrrrrrrr", note=comm.meta.get("summary", ""))
    notes = []
    if platform.meta.get("profile", comm.meta.get("profile")) == "quick":
        notes.append("The quick profile trains about 130 steps of a narrower ResNet-18 on a 4096-image subset, "
                     "not the seed's 100 epochs: its accuracies are early-training numbers that move by several "
                     "points between seeds, so C-SGD, the baseline, runs with three seeds and the claims are "
                     "judged against that spread. FedAvg's local batch there is the global 256 split over the users, as "
                     "D-SGD's: at the seed's local 256 a quick round is 4 local steps (the seed's: 49), too few for "
                     "FedAvg to catch up in 8 rounds (labs/lab5/README.md).")
    if rules.synthetic(comm.meta) or "synthetic" in comm.meta.get("summary", ""):
        notes.append("Synthetic CIFAR-10: accuracies compare the schemes with each other only.")
    return Finding(platform, rules.combine(claims, checks), table=table, notes=notes, meta=comm.meta)


CHANCE = 10.0  # CIFAR-10's 10 classes
SEED_LOCAL_BATCH = 256  # the seed's FedAvg: "batch size 256" on each user


def fedavg_batch(platform, byrole):
    """", FedAvg at local batch 64, not the seed's 256 (...)" when the FL
    run's summary says its local batch differs from the seed's; "" when it
    is the seed's or not said."""
    label = byrole.get(("FL_BS256", "FP32"))
    try:
        row = rules.read(platform, f"summary-{label}.csv", need=("local_batch", "final_accuracy")).rows[0]
    except (csvdata.DataError, IndexError):
        return ""
    b = csvdata.num(row.get("local_batch"))
    if b != b or int(b) == SEED_LOCAL_BATCH:
        return ""
    said = f"; FedAvg ran at local batch {int(b)}, not the seed's {SEED_LOCAL_BATCH}"
    # labs/lab5/run.sh runs FedAvg once more, in FP32, at the seed's local
    # batch (local256/): what the change costs, from the same run
    path = f"local256/summary-FL_BS256_FP32-local{SEED_LOCAL_BATCH}.csv"  # its --tag in labs/lab5/run.sh
    try:
        there = rules.num(rules.read(platform, path, need=("final_accuracy",)).rows[0], "final_accuracy")
        here = rules.num(row, "final_accuracy")
    except (csvdata.DataError, IndexError):
        return said + " (its cost in accuracy is not measured by these results)"
    return (said + f" (measured: at the seed's {SEED_LOCAL_BATCH} FedAvg reached {100 * there:.1f}%, at "
            f"{int(b)} {100 * here:.1f}%: the change moved it {100 * (here - there):+.1f} points)")


def dsgd2048_claim(m, n):
    """D-SGD at batch 2048, a curve of the seed's Figures 5-6 that trains:
    above chance by more than the noise (its seeds' min-max, at least two
    standard errors of an accuracy at chance on n test examples)."""
    key = ("D_SGD_BS2048", "FP32")
    if key not in m:
        return rules.not_judged("D-SGD/2048 learns", "no D-SGD run at the larger batch", "lab5.dsgd2048")
    a = m[key]
    floor = 200 * (CHANCE / 100 * (1 - CHANCE / 100) / n) ** 0.5 if n and n > 0 else 0.0
    tol = max(a.spread, floor)
    return rules.claim(a.mean - CHANCE > tol, "D-SGD/2048 learns", "D-SGD/2048 at chance",
                       f"{a.text()} against chance's {CHANCE:.0f}%, noise {tol:.1f} points (seed: a curve that trains)",
                       "lab5.dsgd2048", f"its accuracy were at or below {CHANCE + tol:.1f}%")


def seeds(platform, byrole, main):
    """Final accuracy (%) of each role over the seeds: the main folder's run
    (main), then the run of the same label (or LABEL-seedN) in each seed-N
    folder."""
    out = {}
    dirs = spread.seed_dirs(platform.dir)
    for key, label in byrole.items():
        values = [main[key]]
        for path in spread.repeats(dirs, f"summary-{label}", ".csv"):
            values.append(100 * rules.num(csvdata.read(path, need=("final_accuracy",)).rows[0], "final_accuracy"))
        out[key] = spread.Measured(values)
    return out


def accuracy_claims(m, n, fedavg=""):
    """The seed's two accuracy claims, both about batch 256, each judged
    against the run-to-run spread (spread.judge): D-SGD and FL alike C-SGD,
    the seed's baseline, in FP32, and FP16 no further below FP32 than that
    spread, scheme by scheme (D-SGD at 2048 is reported beside). The quick profile repeats C-SGD with other seeds (labs/lab5/
    run.sh); a scheme run with more seeds adds its own spread."""
    names = ("C_SGD_BS256", "D_SGD_BS256", "FL_BS256")
    pairs = [(names[0], y) for y in names[1:]]
    judged = [spread.judge(m[x, "FP32"], m[y, "FP32"], n) for x, y in pairs]
    worst = max(range(len(pairs)), key=lambda i: abs(judged[i][1]) - judged[i][2])
    g = judged[worst][1]
    g, tol = judged[worst][1], judged[worst][2]
    x, y = pairs[worst]
    text = (f"C-SGD {m[names[0], 'FP32'].text()}, D-SGD {m[names[1], 'FP32'].text()}, FL "
            f"{m[names[2], 'FP32'].text()}; {x} vs {y} {abs(g):.1f} points apart, noise "
            f"{spread.against(m[x, 'FP32'], m[y, 'FP32'], n)} (seed: almost the same){fedavg}")
    fals = f"any batch-256 scheme lay more than its noise from C-SGD (the nearest to it: {tol - abs(g):.1f} points to spare)"
    ok = all(j[0] for j in judged)
    alike = rules.capped(ok, tol, min(m[s_, "FP32"].mean for s_ in names), CHANCE, "batch-256 schemes alike",
                         "lab5.alike", fals,
                         lambda: rules.claim(ok, "batch-256 schemes alike", "batch-256 schemes apart", text,
                                             "lab5.alike", fals), noise=text)
    # the seed's sentence: "for batch size 256 ... C-SGD, D-SGD, FL are almost
    # the same. Even with precision loss, the performance loss is negligible"
    base = m[names[0], "FP32"]
    fp16 = [(s, spread.judge(m[s, "FP32"], m[s, "FP16"], n, one_sided=True, floor=base.spread))
            for s in names if (s, "FP16") in m]
    s, (_, g, tol) = max(fp16, key=lambda x: x[1][1] - x[1][2])
    noise = (spread.against(m[s, "FP32"], m[s, "FP16"], n) if tol > base.spread else
             f"{tol:.1f} points (C-SGD's min-max over seeds)")
    big = "D_SGD_BS2048"
    aside = (f"; D-SGD at 2048, outside that sentence, {m[big, 'FP16'].text()} against {m[big, 'FP32'].text()}"
             if (big, "FP16") in m and (big, "FP32") in m else "")
    text = (f"{s} {m[s, 'FP16'].text()} in FP16 against {m[s, 'FP32'].text()} in FP32, {g:+.1f} points "
            f"below, noise {noise}; the other schemes closer{aside} (seed: negligible loss)")
    fals = f"any batch-256 scheme's FP16 run fell more than its noise below its FP32 run ({s}: {tol:.1f} points)"
    ok = all(j[0] for _, j in fp16)
    loss = rules.capped(ok, tol, m[s, "FP16"].mean, CHANCE, "FP16 as accurate at batch 256", "lab5.fp16", fals,
                        lambda: rules.claim(ok, "FP16 as accurate at batch 256", "FP16 less accurate at batch 256",
                                            text, "lab5.fp16", fals), noise=text)
    return [alike, loss]
