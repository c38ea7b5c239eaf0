#!/usr/bin/python3
"""torch_step.py - the PyTorch side of `make bench`: one training step
(forward + backward + SGD) of the same model, batch and thread count as
bin/bench/train_step, timed the same way (median after warm-up).

Models mirror core/models: vgg11 (CIFAR VGG-11 with BatchNorm, Linear(512,10))
and cnn3 (3 conv + 2 linear, MNIST). Run with Debian's python3-torch:
  /usr/bin/python3 bench/torch_step.py --model vgg11 --batch 64 --threads 2
Prints: "torch_step <model> b<batch>: median X ms, min Y ms"."""
import argparse
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch_step: PyTorch not installed (Debian: apt-get install python3-torch)", file=sys.stderr)
    sys.exit(3)


def vgg11(classes=10, width=1.0):
    cfg = [64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M']
    layers, c = [], 3
    for v in cfg:
        if v == 'M':
            layers.append(nn.MaxPool2d(2, 2))
        else:
            o = max(1, int(v * width + 0.5))
            layers += [nn.Conv2d(c, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]
            c = o
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes))


class Cnn3(nn.Module):
    def __init__(self, classes=10, width=1.0):
        super().__init__()
        w = lambda v: max(1, int(v * width + 0.5))
        self.conv1 = nn.Conv2d(1, w(32), 3, padding=1)
        self.conv2 = nn.Conv2d(w(32), w(64), 3, padding=1)
        self.conv3 = nn.Conv2d(w(64), w(64), 3, padding=1)
        self.fc1 = nn.Linear(w(64) * 9, w(128))
        self.fc2 = nn.Linear(w(128), classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.max_pool2d(F.relu(self.conv3(x)), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--model', default='vgg11', choices=['vgg11', 'cnn3'])
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--reps', type=int, default=10)
    ap.add_argument('--warmup', type=int, default=3)
    ap.add_argument('--width', type=float, default=1.0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    if a.model == 'vgg11':
        model, shape = vgg11(width=a.width), (a.batch, 3, 32, 32)
    else:
        model, shape = Cnn3(width=a.width), (a.batch, 1, 28, 28)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(*shape)
    y = torch.randint(0, 10, (a.batch,))
    times = []
    for i in range(a.warmup + a.reps):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        t = (time.perf_counter() - t0) * 1e3
        if i >= a.warmup:
            times.append(t)
    print(f"torch_step {a.model} b{a.batch}: median {statistics.median(times):.2f} ms, min {min(times):.2f} ms, "
          f"torch {torch.__version__}, {torch.get_num_threads()} threads")


if __name__ == '__main__':
    main()
