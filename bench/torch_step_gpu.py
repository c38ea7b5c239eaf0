#!/usr/bin/env python3
"""torch_step_gpu.py - PyTorch eager's training step on the GPU, for
`make gpu-check` (tests/gpu_check.sh): forward + backward + SGD of the
models of bench/torch_step.py (imported from it: the same modules, widths
and home inputs as ddlab's core/model), timed as a whole step with the GPU
synchronised before and after it, median of --reps after --warmup steps.

  python3 bench/torch_step_gpu.py [--device cuda] [--reps 20] [--warmup 5] cnn3:1:64 vgg11:1:128

Each SPEC is model:width:batch. Prints one line per SPEC:
  "torch_step_gpu <model> w<width> b<batch>: median X ms, min Y ms, params N,
   layout H, input CxHxW, device D, torch V, tf32 off"
(params and layout as bench/torch_step.py and bin/bench/train_step print
them). FP32 as ddlab computes it: TF32 is off for matrix products and
cuDNN convolutions unless --tf32; cuDNN autotuning stays at PyTorch's
default (off). --device cpu runs the same step on the CPU (the dry run of
gpu-check on the emulated GPU uses it). --probe prints the torch version
and the device and exits.

Exit status: 0; 2 bad arguments, a SPEC it cannot run (its line says
"error: ..."; the other SPECs still run) or bench/torch_step.py without MODELS;
3 torch not importable; 4 the device is not usable (torch.cuda.is_available()
is False for --device cuda)."""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_step  # noqa: E402  (exits 3 when torch is not importable)
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def parse_spec(s):
    try:
        model, width, batch = s.split(":")
        return model, float(width), int(batch)
    except ValueError:
        raise argparse.ArgumentTypeError("SPEC is model:width:batch, e.g. vgg11:1:128 (got %r)" % s)


def device_name(dev):
    if dev.type == "cuda":
        return "cuda (%s)" % torch.cuda.get_device_name(dev)
    return "cpu (%d threads)" % torch.get_num_threads()


def step_times(model, x, y, opt, dev, warmup, reps):
    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    times = []
    for i in range(warmup + reps):
        sync()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sync()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="*", type=parse_spec, metavar="SPEC", help="model:width:batch")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--tf32", action="store_true", help="allow TF32 (PyTorch's default for cuDNN convolutions)")
    ap.add_argument("--probe", action="store_true", help="print torch's version and the device, then exit")
    a = ap.parse_args()
    models = getattr(torch_step, "MODELS", None)
    layout = getattr(torch_step, "layout", None)
    if models is None or layout is None:
        print("torch_step_gpu: bench/torch_step.py has no MODELS/layout() to build the models from", file=sys.stderr)
        return 2
    if a.device == "cuda" and not torch.cuda.is_available():
        print("torch_step_gpu: torch %s: torch.cuda.is_available() is False (CUDA build: %s)"
              % (torch.__version__, torch.version.cuda), file=sys.stderr)
        return 4
    dev = torch.device(a.device)
    if a.device == "cpu":
        torch.set_num_threads(os.cpu_count() or 1)
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.allow_tf32 = a.tf32
    if a.probe:
        print("torch_step_gpu: torch %s, device %s, cuDNN %s"
              % (torch.__version__, device_name(dev), torch.backends.cudnn.version()))
        return 0
    if a.reps < 1 or a.warmup < 0:
        ap.error("need --reps >= 1 and --warmup >= 0")
    status = 0
    for name, width, batch in a.specs:
        tag = "torch_step_gpu %s w%g b%d" % (name, width, batch)
        if name not in models or batch < 1 or not 0 < width <= 16:
            print("%s: error: %s" % (tag, "need batch >= 1 and 0 < width <= 16" if name in models else
                                     "no such model in bench/torch_step.py (it has: %s)" % ", ".join(sorted(models))),
                  flush=True)
            status = 2
            continue
        torch.manual_seed(1)
        build, (c, h, w) = models[name]
        model = build(c, width, 10, h).to(dev)
        model.train()
        nparams = sum(p.numel() for p in model.parameters())
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
        x = torch.randn(batch, c, h, w, device=dev)
        y = torch.randint(0, 10, (batch,), device=dev)
        times = step_times(model, x, y, opt, dev, a.warmup, a.reps)
        print("%s: median %.3f ms, min %.3f ms, params %d, layout %s, input %dx%dx%d, device %s, torch %s, tf32 %s"
              % (tag, statistics.median(times), min(times), nparams, layout(model), c, h, w, device_name(dev),
                 torch.__version__, "on" if a.tf32 else "off"), flush=True)
        del model, opt, x, y
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
