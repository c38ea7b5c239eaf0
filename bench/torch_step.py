#!/usr/bin/python3
"""torch_step.py - the PyTorch side of `make bench`: one training step
(forward + backward + SGD) of the same model, width, batch and thread count
as bin/bench/train_step, timed the same way (median after warm-up).

Models mirror core/model, layer for layer and named as ddlab names its
parameters (the modules of tests/gen_fixtures.py, which the fixture tests
check against ddlab tensor by tensor; copied here so the bench does not
depend on the test tree): cnn3, vgg11 (CIFAR VGG-11 with BatchNorm, global
average pool, Linear), resnet18 (kuangliu CIFAR ResNet-18), resnet50 and
mobilenetv2 (torchvision's, with ddlab's 28x28 strides). --width scales the
channels by ddlab's rules: max(1, (int)(c * w + 0.5f)) in float32 (zoo.c
scaled_width), torchvision's _make_divisible(c * w, 8) for mobilenetv2.
Inputs are each model's home input in ddlab (core/model/zoo.c, what the
labs train on): 1x28x28 for cnn3, resnet50, mobilenetv2; 3x32x32 for vgg11
and resnet18. Run with Debian's python3-torch:

  /usr/bin/python3 bench/torch_step.py --model vgg11 --width 0.5 --batch 64 --threads 2

Prints: "torch_step <model> w<width> b<batch>: median X ms, min Y ms,
params N, layout H, input CxHxW, torch V, T threads". params and layout
are what bin/bench/train_step prints for the same model (layout: FNV-1a of
the sorted "name count" lines of the parameter tensors), so bench/run.sh
can check both sides built the same architecture. --describe prints them
without timing. --profile-kinds then prints each ddlab layer kind's time
per step by PyTorch's profiler ("torch_kind <kind> <ms>" lines), which
bench/run.sh sets beside train_step --profile-layers' sums. Exit status 3 when torch is not importable."""
import argparse
import os
import statistics
import sys
import time

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch_step: PyTorch not installed (Debian: apt-get install python3-torch; make bench-deps)", file=sys.stderr)
    sys.exit(3)


# The models are the fixtures' own (tests/gen_fixtures.py), which the tests
# already hold against ddlab layer by layer: one definition of each.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests'))
from gen_fixtures import CNN3, VGG11, ResNet18, ResNet50, MobileNetV2  # noqa: E402


# name: (builder(cin, width, classes, hw), home input C, H, W) - core/model/zoo.c's ZOO
MODELS = {
    'cnn3': (lambda c, w, k, hw: CNN3(c, w, k, hw), (1, 28, 28)),
    'vgg11': (lambda c, w, k, hw: VGG11(c, w, k), (3, 32, 32)),
    'resnet18': (lambda c, w, k, hw: ResNet18(c, w, k), (3, 32, 32)),
    'resnet50': (lambda c, w, k, hw: ResNet50(c, w, k), (1, 28, 28)),
    # ddlab's width is a float; its classifier's Dropout(0.2) is the default
    'mobilenetv2': (lambda c, w, k, hw: MobileNetV2(c, float(np.float32(w)), k, 0.2), (1, 28, 28)),
}


def layout(model):
    """FNV-1a (32 bit) of the sorted "name count" lines, as train_step.c."""
    h = 0x811c9dc5
    for line in sorted("%s %d\n" % (n, p.numel()) for n, p in model.named_parameters()):
        for b in line.encode():
            h = ((h ^ b) * 0x01000193) & 0xffffffff
    return "%08x" % h


# ddlab's layer kinds (core/layers/dispatch.c's names) by the ATen
# operators that compute them, forward and backward, asked in order: the
# first whose name holds one of the strings takes the operator's self
# time. What matches none (SGD's in-place arithmetic, the residual adds,
# which kuangliu's ResNet writes in place as SGD does, views, the
# autograd engine's own) is "other", which ddlab's layer table has no row
# for either (its adds are "add", its SGD outside the layers).
KINDS = (
    ('conv2d', ('conv',)),
    ('batchnorm', ('batch_norm',)),
    ('relu6', ('hardtanh',)),
    ('relu', ('relu', 'threshold')),
    ('maxpool', ('max_pool',)),
    ('global_avgpool', ('adaptive_avg_pool', 'aten::mean')),
    ('avgpool', ('avg_pool',)),
    ('linear', ('addmm', 'aten::mm', 'aten::linear', 'aten::matmul')),
    ('dropout', ('dropout', 'bernoulli')),
    ('loss', ('log_softmax', 'nll_loss', 'cross_entropy')),
)


def kind_of(op):
    for kind, parts in KINDS:
        if any(p in op for p in parts):
            return kind
    return 'other'


def profile_kinds(step, reps):
    """Each kind's self time per step (ms), by PyTorch's profiler over reps
    steps: "torch_kind <kind> <ms>" lines, the largest first."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(reps):
            step()
    ms = {}
    for e in prof.key_averages():
        k = kind_of(e.key)
        ms[k] = ms.get(k, 0.0) + e.self_cpu_time_total / 1e3 / reps
    for k, v in sorted(ms.items(), key=lambda kv: -kv[1]):
        print("torch_kind %s %.3f" % (k, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--model', default='vgg11', choices=sorted(MODELS))
    ap.add_argument('--width', type=float, default=1.0, help='channel multiplier, as train_step --width')
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--reps', type=int, default=10)
    ap.add_argument('--warmup', type=int, default=3)
    ap.add_argument('--describe', action='store_true', help='print params, layout and input; no timing')
    ap.add_argument('--profile-kinds', action='store_true',
                    help="then --reps more steps under PyTorch's profiler: each layer kind's time per step")
    a = ap.parse_args()
    if a.reps < 1 or a.warmup < 0 or a.batch < 1 or a.threads < 1 or not 0 < a.width <= 16:
        ap.error("need --reps >= 1, --warmup >= 0, --batch >= 1, --threads >= 1, 0 < --width <= 16")
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    build, (c, h, w) = MODELS[a.model]
    model = build(c, a.width, 10, h)
    model.train()
    nparams = sum(p.numel() for p in model.parameters())
    desc = "params %d, layout %s, input %dx%dx%d" % (nparams, layout(model), c, h, w)
    tag = "torch_step %s w%g b%d" % (a.model, a.width, a.batch)
    if a.describe:
        print("%s: %s" % (tag, desc))
        return
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(a.batch, c, h, w)
    y = torch.randint(0, 10, (a.batch,))
    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    times = []
    for i in range(a.warmup + a.reps):
        t0 = time.perf_counter()
        step()
        t = (time.perf_counter() - t0) * 1e3
        if i >= a.warmup:
            times.append(t)
    print("%s: median %.2f ms, min %.2f ms, %s, torch %s, %d threads"
          % (tag, statistics.median(times), min(times), desc, torch.__version__, torch.get_num_threads()))
    if a.profile_kinds:
        profile_kinds(step, a.reps)


if __name__ == '__main__':
    main()
