"""A lab's runs as the report sees them: one Platform per results folder.

results/labN/ holds the native run of `make labN`; results/labN/net-*/ and
sim-*/ the same lab on an emulated network or a simulated cluster. Each
folder's index.csv, written by labs/labN/figures.sh after the lab ran,
names the figures and tables that run produced: the report shows those and
nothing else from figures/ (a stray picture there never gets in). Every
result file's metadata says which commit wrote it; a folder that mixes in
another commit's files, a partial or corrupt file, a missing or corrupt
figure is listed as a problem of that platform and the rest still shows."""
import glob
import os
import re

from . import csvdata, png
from .doc import Platform

INDEX = "index.csv"
VARIANT = re.compile(r"^(net|sim)-[A-Za-z0-9_.,-]+$")
# What a run leaves while it is being written or after it was killed: the
# labs write into NAME.tmp (or .partial) and rename it when done, hold
# NAME.lock while running, and a Slurm array's tasks write NAME.array-N
# before they are merged. None of them is a platform's results.
UNFINISHED = re.compile(r"(\.(tmp|partial|lock|old|new)$|\.array-|\.tmp\.)", re.I)


def finished(name):
    """Whether a folder's name is that of finished results (UNFINISHED)."""
    return not UNFINISHED.search(name)


def platforms(results, lab, root, commit):
    """The Platforms of lab (1..6) under results/, native first."""
    base = os.path.join(results, f"lab{lab}")
    dirs = []
    if has_results(base):
        dirs.append(("native", base))
    for sub in sorted(glob.glob(os.path.join(base, "*", ""))):
        name = os.path.basename(os.path.dirname(sub))
        if VARIANT.match(name) and finished(name) and has_results(sub):
            dirs.append((name, sub.rstrip("/")))
    return [read_platform(key, d, root, commit) for key, d in dirs]


RECORD = "platform.txt"


def record(results, lab):
    """results/labN/platform.txt as a dict (empty when absent): what
    `make figures` did about the lab's run on a platform with a network
    (figures/platforms.sh writes it)."""
    out = {}
    try:
        with open(os.path.join(results, f"lab{lab}", RECORD)) as f:
            for line in f:
                if not line.startswith("#") and ": " in line:
                    k, v = line.rstrip("\n").split(": ", 1)
                    out[k] = v
    except OSError:
        pass
    return out


def has_results(folder):
    return bool(glob.glob(os.path.join(folder, "*.csv")))


def read_platform(key, folder, root, commit):
    p = Platform(key=key, label="", kind="native", dir=folder)
    files = sorted(f for f in glob.glob(os.path.join(folder, "*.csv")) if os.path.basename(f) != INDEX)
    commits = {}
    for f in files:
        try:
            meta = csvdata.read(f).meta
        except csvdata.DataError as e:
            p.problems.append(str(e))
            continue
        if "git" in meta:
            commits.setdefault(meta["git"], []).append(os.path.basename(f))
            if not p.meta:
                p.meta = meta
    mine = commit.replace("-dirty", "")
    for rev, names in sorted(commits.items()):
        if rev.replace("-dirty", "") != mine:
            p.problems.append(f"{len(names)} result file(s) written by commit {rev}, not this checkout's {commit} "
                              f"(e.g. {names[0]}): run `make lab{lab_of(folder)}` again")
    p.kind, p.label = describe(p.meta, key)
    p.raw = sorted(f for f in glob.glob(os.path.join(folder, "*"))
                   if os.path.isfile(f) and f.endswith((".csv", ".json", ".txt")) and os.path.basename(f) != RECORD)
    read_index(p, folder, root)
    return p


def lab_of(folder):
    m = re.search(r"lab(\d)", folder)
    return m.group(1) if m else "N"


def read_index(p, folder, root):
    path = os.path.join(folder, INDEX)
    if not os.path.exists(path):
        p.problems.append(f"no results index ({path}): its figures are not shown; `make figures` (or "
                          f"labs/lab{lab_of(folder)}/figures.sh) writes it")
        return
    try:
        index = csvdata.read(path, need=("kind", "name", "path"))
    except csvdata.DataError as e:
        p.problems.append(str(e))
        return
    for row in index.rows:
        target = row["path"] if os.path.isabs(row["path"]) else os.path.join(root, row["path"])
        if row["kind"] == "figure":
            why = png.check(target) if os.path.exists(target) else "missing"
            if why:
                p.problems.append(f"figure {row['path']}: {why}; left out")
            else:
                p.figures[row["name"]] = os.path.abspath(target)
        elif row["kind"] == "table":
            if os.path.exists(target):
                p.tables.append(os.path.abspath(target))
            else:
                p.problems.append(f"table {row['path']}: missing")


def describe(meta, key):
    """(kind, label): where the run ran, in words, from its metadata."""
    device = meta.get("device", "cpu")
    where = {"cuda": f"GPU ({meta.get('device_detail', 'cuda')})", "cuda-emu": "emulated GPU"}.get(device, "CPU")
    if meta.get("simulated"):
        return "sim", f"simulated cluster ({meta['simulated']}), {where}"
    if meta.get("emulated_network"):
        return "net", f"emulated network ({meta['emulated_network']}), {where}"
    if key != "native":
        kind = key.split("-")[0]
        return kind, f"{key} (no metadata)"
    host = f"one machine, {meta.get('cores', '?')} cores" if meta else "one machine"
    return "native", f"native ({host}, shared memory), {where}"


def short(p):
    """The platform in a word or three, for the summary table."""
    m = p.meta
    where = {"native": "native", "net": f"emulated {m.get('emulated_network', p.key[4:])}",
             "sim": f"simulated {p.key[4:]}"}.get(p.kind, p.key)
    device = {"cuda": ", GPU", "cuda-emu": ", emulated GPU"}.get(m.get("device", "cpu"), "")
    return where.split(":")[0] + device


def conditions(p):
    """The conditions a verdict holds for, in one line."""
    m = p.meta
    parts = [p.label]
    if m:
        parts.append(f"profile {m.get('profile', '?')}")
        parts.append(f"{m.get('data', '?')} data" + (f" ({m['dataset']})" if m.get("dataset") else ""))
        if m.get("ranks"):
            over = " oversubscribed" if m.get("oversubscribed") == "yes" else ""
            parts.append(f"{m['ranks']} ranks{over}")
        parts.append(f"commit {m.get('git', '?')}, {m.get('date', '?')[:10]}")
    return "; ".join(parts)
