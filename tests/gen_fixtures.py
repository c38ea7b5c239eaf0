#!/usr/bin/python3
"""gen_fixtures.py - PyTorch reference fixtures for tests/test_torch.c.

Regenerate (Debian's python3-torch, PyTorch 1.13 CPU; numpy):

    cd <repo root> && /usr/bin/python3 tests/gen_fixtures.py

It rewrites tests/fixtures/*.fix and prints each file's size; the output is
deterministic (same bytes on every run on the same PyTorch build: weights
and inputs come from a counter-based generator, not from torch's RNG, and
torch runs on 2 threads). Commit the result: test_torch treats a missing
fixture as a failure. `--check` regenerates into memory and reports files
that would change instead of writing.

What a fixture holds: PyTorch does one training step of a small module on a
small batch - forward in train mode (batch-norm batch statistics; eval for
the *_eval fixtures), mean cross-entropy of the flattened output against
labels, backward - and the file keeps the input, labels, every parameter
(named as in state_dict, in named_parameters() order, which is ddlab's
model_param_list() order), batch-norm running statistics before and after,
the flattened output ("logits"), the loss, every parameter gradient and,
for single-layer and graph fixtures, the input gradient. Model fixtures
marked sgd=True also keep the parameters and running statistics after two
steps of torch.optim.SGD(lr, momentum 0.9, weight_decay 5e-4), once with
nesterov=False and once with nesterov=True. Deep relu/relu6 models take
the first input whose units all stay 1e-5 from a kink (kink_margin), so
float rounding cannot flip one and fail a correct backward.

Record names:
  meta:kind / meta:model / meta:graph  text: what to build in ddlab
  meta:layer   f32 [cout, k, stride, pad, groups, bias, p] (single layers)
  meta:config  f32 [width, classes, hidden0..3, bn_track_stats, dropout]
  meta:mode    f32 [training, bn_track_stats]
  meta:sgd     f32 [lr, momentum, weight_decay]
  x, y         input (N first) and labels (i32); x2, y2: the second SGD batch
  param:<n>    parameters ddlab copies in by name
  buffer0:<n>  running_mean / running_var before the step (copied in)
  buffer:<n>   the same after the step
  logits, loss, dx, grad:<n>
  sgd<v>:<n>, sgd<v>buf:<n>   after two SGD steps, v = 0 (plain), 1 (nesterov)

File format: see tests/fixture.h (magic "DDLFIX1\\n", then records of name,
type, dims, little-endian data; "generated" records store a seed and scale
instead of values - both sides compute them bit for bit, with check values).
"""
import copy
import hashlib
import io
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
GOLDEN = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1

T_F32, T_I32, T_GEN, T_TEXT = 0, 1, 2, 3


# ---- the counter-based generator shared with tests/fixture.h ---------------

def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def gen_values(seed, scale, offset, count):
    """float32 values of a generated record (see fixture.h)."""
    with np.errstate(over="ignore"):
        i = np.arange(1, count + 1, dtype=np.uint64)
        state = np.uint64(seed) + i * np.uint64(GOLDEN)
        k = (_mix(state) >> np.uint64(40)).astype(np.int64) - 8388608
    prod = k.astype(np.float64) * np.float64(scale)
    return prod.astype(np.float32) + np.float32(offset)


def seed_of(*parts):
    h = hashlib.sha256("/".join(parts).encode()).digest()
    return int.from_bytes(h[:8], "little")


class Gen:
    """A generated tensor: uniform on [lo, hi) from a seed derived from its names."""

    def __init__(self, fixture, name, shape, lo, hi):
        self.seed = seed_of(fixture, name)
        self.scale = (hi - lo) / 2.0 / 8388608.0
        self.offset = np.float32((lo + hi) / 2.0)
        self.shape = tuple(shape)
        n = int(np.prod(self.shape)) if self.shape else 1
        self.values = gen_values(self.seed, self.scale, self.offset, n).reshape(self.shape)

    def tensor(self):
        return torch.from_numpy(self.values.copy())


# ---- writer ----------------------------------------------------------------

class Fix:
    def __init__(self, name):
        self.name = name
        self.recs = []
        self.names = set()

    def _head(self, name, typ, dims):
        assert name not in self.names, name
        self.names.add(name)
        b = name.encode()
        return struct.pack("<H", len(b)) + b + struct.pack("<BB", typ, len(dims)) + \
            b"".join(struct.pack("<i", int(d)) for d in dims)

    def f32(self, name, t):
        a = t.detach().cpu().numpy() if torch.is_tensor(t) else np.asarray(t)
        a = np.ascontiguousarray(a, dtype="<f4")
        self.recs.append(self._head(name, T_F32, a.shape) + a.tobytes())

    def i32(self, name, t):
        a = np.ascontiguousarray(t.numpy() if torch.is_tensor(t) else t, dtype="<i4")
        self.recs.append(self._head(name, T_I32, a.shape) + a.tobytes())

    def gen(self, name, g):
        v = g.values.reshape(-1)
        n = v.size
        checks = np.array([v[0], v[n // 2], v[n - 1]], dtype="<f4")
        self.recs.append(self._head(name, T_GEN, g.shape) +
                         struct.pack("<Qdf", g.seed, g.scale, float(g.offset)) + checks.tobytes())

    def text(self, name, s):
        b = s.encode()
        self.recs.append(self._head(name, T_TEXT, [len(b)]) + b)

    def bytes(self):
        return b"DDLFIX1\n" + struct.pack("<I", len(self.recs)) + b"".join(self.recs)


# ---- modules with ddlab's names ---------------------------------------------

class Single(nn.Module):
    """One layer called "layer"; forward applies it (Linear reads x flat)."""

    def __init__(self, kind, layer, **cfg):
        super().__init__()
        self.kind = kind
        self.cfg = cfg
        if layer is not None:
            self.layer = layer

    def forward(self, x):
        k, c = self.kind, self.cfg
        if k == "linear":
            return self.layer(x.flatten(1))
        if k in ("conv2d", "batchnorm", "relu", "relu6"):
            return self.layer(x)
        if k == "maxpool":
            return F.max_pool2d(x, c["k"], c["stride"], c["pad"])
        if k == "avgpool":  # count_include_pad=True is PyTorch's default, and ddlab's
            return F.avg_pool2d(x, c["k"], c["stride"], c["pad"])
        if k == "global_avgpool":
            return x.mean((2, 3))
        if k == "dropout":
            return self.layer(x)
        if k == "flatten":
            return x.flatten(1)
        raise ValueError(k)


class MLP(nn.Module):
    def __init__(self, inputs, hidden, classes):
        super().__init__()
        self.n = len(hidden) + 1
        sizes = [inputs] + list(hidden) + [classes]
        for i in range(self.n):
            setattr(self, "fc%d" % (i + 1), nn.Linear(sizes[i], sizes[i + 1]))

    def forward(self, x):
        x = x.flatten(1)
        for i in range(self.n):
            x = getattr(self, "fc%d" % (i + 1))(x)
            if i + 1 < self.n:
                x = F.relu(x)
        return x


def scaled(c, w):
    """core/model/zoo.c scaled_width: (int)(c * w + 0.5f), at least 1."""
    return max(1, int(np.float32(c) * np.float32(w) + np.float32(0.5)))


class CNN3(nn.Module):
    def __init__(self, cin, width, classes, hw):
        super().__init__()
        c1, c2, c3 = scaled(32, width), scaled(64, width), scaled(64, width)
        self.conv1 = nn.Conv2d(cin, c1, 3, 1, 1)
        self.conv2 = nn.Conv2d(c1, c2, 3, 1, 1)
        self.conv3 = nn.Conv2d(c2, c3, 3, 1, 1)
        s = hw // 2 // 2 // 2
        self.fc1 = nn.Linear(c3 * s * s, scaled(128, width))
        self.fc2 = nn.Linear(scaled(128, width), classes)

    def forward(self, x):
        for conv in (self.conv1, self.conv2, self.conv3):
            x = F.max_pool2d(F.relu(conv(x)), 2, 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class VGG11(nn.Module):
    """The CIFAR VGG-11 of seed 001 (CS744 model.py): features.N indices."""
    PLAN = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]

    def __init__(self, cin, width, classes, track=True):
        super().__init__()
        layers, c = [], cin
        for v in self.PLAN:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                o = scaled(v, width)
                layers += [nn.Conv2d(c, o, 3, 1, 1), nn.BatchNorm2d(o, track_running_stats=track), nn.ReLU()]
                c = o
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(c, classes)

    def forward(self, x):
        x = self.features(x).mean((2, 3))  # ddlab: global average (AvgPool2d(1,1) at 32x32)
        return self.classifier(x)


class BasicBlock(nn.Module):
    """kuangliu/pytorch-cifar BasicBlock."""
    expansion = 1

    def __init__(self, cin, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    """What both ResNets share, as core/model/resnet.c builds it: conv1 3x3
    stride 1 on cin channels, no max pooling, four stages of `blocks`
    blocks (planes 64/128/256/512 scaled as scaled(); the first block of
    stages 2-4 has stride 2), global average pooling, a Linear named
    `head`."""

    def __init__(self, block, blocks, head, cin, width, classes):
        super().__init__()
        c = scaled(64, width)
        self.conv1 = nn.Conv2d(cin, c, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        for s, (planes, n) in enumerate(zip([64, 128, 256, 512], blocks)):
            p = scaled(planes, width)
            stage = []
            for b in range(n):
                stage.append(block(c, p, 2 if (s > 0 and b == 0) else 1))
                c = p * block.expansion
            setattr(self, "layer%d" % (s + 1), nn.Sequential(*stage))
        self.head = head
        setattr(self, head, nn.Linear(c, classes))

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        for s in range(4):
            x = getattr(self, "layer%d" % (s + 1))(x)
        return getattr(self, self.head)(x.mean((2, 3)))


class ResNet18(ResNet):
    def __init__(self, cin, width, classes):
        super().__init__(BasicBlock, [2, 2, 2, 2], "linear", cin, width, classes)


class Bottleneck(nn.Module):
    """torchvision's ResNet Bottleneck (v1.5: the stride in conv2), expansion 4."""
    expansion = 4

    def __init__(self, cin, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.downsample = None
        if stride != 1 or cin != planes * 4:
            self.downsample = nn.Sequential(nn.Conv2d(cin, planes * 4, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes * 4))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet50(ResNet):
    """torchvision's resnet50 with core/model/resnet50.c's stem (ResNet's)."""

    def __init__(self, cin, width, classes):
        super().__init__(Bottleneck, [3, 4, 6, 3], "fc", cin, width, classes)


def make_divisible(v, divisor=8):
    """torchvision's _make_divisible."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def conv_bn(cin, cout, k, stride, groups=1):
    """torchvision's Conv2dNormActivation (ReLU6): indices .0 conv, .1 BN."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6())


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, t):
        super().__init__()
        hidden = int(round(inp * t))
        self.use_res = stride == 1 and inp == oup
        layers = [conv_bn(inp, hidden, 1, 1)] if t != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden), nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),
                   nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res else self.conv(x)


class MobileNetV2(nn.Module):
    """torchvision's mobilenet_v2 with core/model/mobilenetv2.c's strides:
    stem stride 1 on cin channels, the 24-channel stage stride 1."""
    SETTING = [[1, 16, 1, 1], [6, 24, 2, 1], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
               [6, 320, 1, 1]]

    def __init__(self, cin, width, classes, dropout):
        super().__init__()
        c = make_divisible(32 * width)
        last = make_divisible(1280 * max(1.0, width))
        features = [conv_bn(cin, c, 3, 1)]
        for t, ch, n, s in self.SETTING:
            out = make_divisible(ch * width)
            for i in range(n):
                features.append(InvertedResidual(c, out, s if i == 0 else 1, t))
                c = out
        features.append(conv_bn(c, last, 1, 1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(last, classes))

    def forward(self, x):
        return self.classifier(self.features(x).mean((2, 3)))


class ResBlock(nn.Module):
    """Graph fixture "resblock" (built with mb_* in test_torch.c): the block
    input is read twice (conv1 and the residual add), conv2 is grouped."""

    def __init__(self, c, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, 1, 1, groups=2, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = F.relu(out + x)
        return self.fc(out.mean((2, 3)))


# ---- filling a module and running it -----------------------------------------

def fan_in(p):
    return int(np.prod(p.shape[1:])) if p.dim() > 1 else None


def set_params(fx, model, gens):
    """Deterministic parameters, PyTorch's default ranges: Linear/Conv weight
    and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)); BN gamma U(0.5, 1.5), beta
    U(-0.3, 0.3) (not 1/0, so that they matter); running mean U(-0.5, 0.5),
    var U(0.5, 1.5)."""
    mods = dict(model.named_modules())
    for name, p in model.named_parameters():
        mod = mods[name.rsplit(".", 1)[0]]
        leaf = name.rsplit(".", 1)[1]
        if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)):
            lo, hi = (0.5, 1.5) if leaf == "weight" else (-0.3, 0.3)
        else:
            fi = int(np.prod(mod.weight.shape[1:]))
            b = 1.0 / np.sqrt(fi)
            lo, hi = -b, b
        g = Gen(fx.name, "param:" + name, p.shape, lo, hi)
        with torch.no_grad():
            p.copy_(g.tensor())
        gens["param:" + name] = g
    for name, b in model.named_buffers():
        leaf = name.rsplit(".", 1)[1]
        if leaf in ("running_mean", "running_var"):
            lo, hi = (-0.5, 0.5) if leaf == "running_mean" else (0.5, 1.5)
            g = Gen(fx.name, "buffer0:" + name, b.shape, lo, hi)
            with torch.no_grad():
                b.copy_(g.tensor())
            gens["buffer0:" + name] = g
        elif leaf == "num_batches_tracked":
            b.zero_()


def buffers(model):
    return [(n, b) for n, b in model.named_buffers() if n.rsplit(".", 1)[1] in ("running_mean", "running_var")]


def forward_backward(model, x, y, train):
    model.train(train)
    model.zero_grad(set_to_none=False)
    x = x.clone().requires_grad_(True)
    logits = model(x).flatten(1)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    return logits, loss, x.grad


def write_step(fx, model, x, y, train, want_dx):
    logits, loss, dx = forward_backward(model, x, y, train)
    fx.f32("logits", logits)
    fx.f32("loss", loss.reshape(1))
    if want_dx:
        fx.f32("dx", dx)
    for name, p in model.named_parameters():
        fx.f32("grad:" + name, p.grad)
    for name, b in buffers(model):
        fx.f32("buffer:" + name, b)


def write_params(fx, model, gens):
    for name, _ in model.named_parameters():
        fx.gen("param:" + name, gens["param:" + name])
    for name, _ in buffers(model):
        fx.gen("buffer0:" + name, gens["buffer0:" + name])


def write_sgd(fx, make, x, y, x2, y2, lr=0.1, momentum=0.9, wd=5e-4):
    fx.f32("meta:sgd", [lr, momentum, wd])
    fx.gen("x2", x2)
    fx.i32("y2", y2)
    for nesterov in (0, 1):
        model, _ = make()
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=wd,
                              nesterov=bool(nesterov))
        for xb, yb in ((x, y), (x2.tensor(), y2)):
            opt.zero_grad(set_to_none=False)
            forward_backward(model, xb, yb, True)
            opt.step()
        for name, p in model.named_parameters():
            fx.f32("sgd%d:%s" % (nesterov, name), p)
        for name, b in buffers(model):
            fx.f32("sgd%dbuf:%s" % (nesterov, name), b)


def labels(fixture, n, classes, tag="y"):
    rs = np.random.RandomState(seed_of(fixture, tag) % (1 << 32))
    return torch.from_numpy(rs.randint(0, classes, size=n).astype(np.int64))


def kink_labels(kind, x, k, stride, pad):
    """Labels on outputs where the convention matters: relu at x == 0, relu6
    at x == 6 (even examples) and x == 0 (odd), max pooling on a window whose
    maximum is tied. The label's output gets dL/dy = (p - 1)/n, so a wrong
    convention moves the input gradient by O(1), not by a softmax tail."""
    n = x.shape[0]
    xs = x.numpy()
    out = []
    for i in range(n):
        if kind in ("relu", "relu6"):
            target = 6.0 if (kind == "relu6" and i % 2 == 0) else 0.0
            hits = np.flatnonzero(xs[i].reshape(-1) == target)
        else:  # maxpool: outputs whose window holds its maximum twice or more
            c, h, w = xs[i].shape
            oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
            hits = []
            for ch in range(c):
                for a in range(oh):
                    for b in range(ow):
                        r0, c0 = a * stride - pad, b * stride - pad
                        win = xs[i, ch, max(r0, 0):r0 + k, max(c0, 0):c0 + k]
                        if (win == win.max()).sum() > 1:
                            hits.append((ch * oh + a) * ow + b)
        assert len(hits) > 0, (kind, i)
        out.append(int(hits[len(hits) // 2]))
    return torch.tensor(out, dtype=torch.int64)


# ---- the fixtures --------------------------------------------------------------

def layer_fixture(name, kind, shape, n=3, cout=0, k=0, stride=1, pad=0, groups=1, bias=False, p=0.0,
                  train=True, track=True, grid_input=False):
    """One layer behind ddlab's identity prefix: input gradient included."""
    fx = Fix(name)
    c = shape[0]
    if kind == "linear":
        layer = nn.Linear(int(np.prod(shape)), cout, bias=bias)
    elif kind == "conv2d":
        layer = nn.Conv2d(c, cout, k, stride, pad, groups=groups, bias=bias)
    elif kind == "batchnorm":
        layer = (nn.BatchNorm2d if len(shape) == 3 else nn.BatchNorm1d)(c, track_running_stats=track)
    elif kind == "relu":
        layer = nn.ReLU()
    elif kind == "relu6":
        layer = nn.ReLU6()
    elif kind == "dropout":
        layer = nn.Dropout(p)
    else:
        layer = None
    model = Single(kind, layer, k=k, stride=stride, pad=pad)
    gens = {}
    set_params(fx, model, gens)
    fx.text("meta:kind", kind)
    fx.f32("meta:layer", [cout, k, stride, pad, groups, 1.0 if bias else 0.0, p])
    fx.f32("meta:mode", [1.0 if train else 0.0, 1.0 if track else 0.0])
    if grid_input:
        # multiples of 0.5: exact zeros and sixes for relu/relu6 (one of each
        # planted per example), ties inside pooling windows (PyTorch and
        # ddlab: the first maximum wins); labels point at them (kink_labels)
        rs = np.random.RandomState(seed_of(name, "x") % (1 << 32))
        lo, hi = (-4, 17) if kind in ("relu", "relu6") else (-2, 4)  # pooling: few levels, many ties
        xv = rs.randint(lo, hi, size=(n,) + tuple(shape)).astype(np.float32) * np.float32(0.5)
        if kind in ("relu", "relu6"):  # every example has both kinks
            for i in range(n):
                xv[i].reshape(-1)[5 + i] = 0.0
                xv[i].reshape(-1)[17 + i] = 6.0
        x = torch.from_numpy(xv)
        fx.f32("x", x)
    else:
        g = Gen(name, "x", (n,) + tuple(shape), -2.0, 2.0)
        x = g.tensor()
        fx.gen("x", g)
    with torch.no_grad():
        classes = model.train(train)(x).flatten(1).shape[1]
    y = kink_labels(kind, x, k, stride, pad) if grid_input else labels(name, n, classes)
    fx.i32("y", y)
    # the probe forward above must not count: restore the running stats
    set_params(Fix(name), model, {})
    write_params(fx, model, gens)
    write_step(fx, model, x, y, train, True)
    return fx


def kink_margin(model, x):
    """Smallest distance of any relu/relu6 input to its kinks (0; and 6) in a
    float64 copy of the training forward. Deep nets on many pixels put a few
    of their ~1e5 units within 1e-6 of a kink; ddlab's float rounding then
    flips that unit and moves some gradients by ~1e-2, a false failure."""
    m64 = copy.deepcopy(model).double().train()
    inputs = []
    hooks = [mod.register_forward_hook(lambda mod, i, o: inputs.append((i[0].detach(), mod)))
             for mod in m64.modules() if isinstance(mod, (nn.ReLU, nn.ReLU6))]
    relu = F.relu

    def recording_relu(t, *a, **k):  # the ResNets call F.relu
        inputs.append((t.detach(), None))
        return relu(t, *a, **k)

    F.relu = recording_relu
    try:
        with torch.no_grad():
            m64(x.double())
    finally:
        F.relu = relu
        for h in hooks:
            h.remove()
    d = [t.abs().min().item() for t, _ in inputs]
    d += [(t - 6.0).abs().min().item() for t, mod in inputs if isinstance(mod, nn.ReLU6)]
    return min(d) if d else float("inf")


def model_fixture(name, kind, shape, n, classes, width=1.0, hidden=(), sgd=False, dropout=-1.0, margin=None):
    """margin: take the first input (tags x, x.1, x.2, ...) whose relu/relu6
    inputs all stay at least this far from a kink (kink_margin)."""
    fx = Fix(name)
    cfg = [width, classes] + list(hidden) + [0] * (4 - len(hidden)) + [1.0, dropout]

    def make():
        if kind in ("mlp", "sdss_dnn"):  # sdss_dnn: an MLP on the 10 features, ddlab's own name
            m = MLP(int(np.prod(shape)), [scaled(h, width) for h in hidden], classes)
        elif kind == "cnn3":
            m = CNN3(shape[0], width, classes, shape[1])
        elif kind == "vgg11":
            m = VGG11(shape[0], width, classes)
        elif kind == "resnet18":
            m = ResNet18(shape[0], width, classes)
        elif kind == "resnet50":
            m = ResNet50(shape[0], width, classes)
        elif kind == "mobilenetv2":  # dropout 0 in fixtures: torch's mask cannot be reproduced
            m = MobileNetV2(shape[0], width, classes, max(dropout, 0.0))
        elif kind == "resblock":
            m = ResBlock(shape[0], classes)
        else:
            raise ValueError(kind)
        g = {}
        # whole models start from PyTorch's BN defaults (mean 0, var 1) as
        # ddlab's model_build does; only the weights come from the fixture
        set_params(fx, m, g)
        if kind != "resblock":
            for bname, b in buffers(m):
                with torch.no_grad():
                    b.fill_(0.0 if bname.endswith("mean") else 1.0)
                del g["buffer0:" + bname]
        return m, g

    model, gens = make()
    fx.text("meta:graph" if kind == "resblock" else "meta:model", kind)
    fx.f32("meta:config", cfg)
    fx.f32("meta:mode", [1.0, 1.0])
    g = Gen(name, "x", (n,) + tuple(shape), -2.0, 2.0)
    for t in range(1, 64):
        if margin is None or kink_margin(model, g.tensor()) >= margin:
            break
        g = Gen(name, "x.%d" % t, (n,) + tuple(shape), -2.0, 2.0)
    else:
        raise RuntimeError("%s: no input in 64 tries keeps relu inputs %g from their kinks" % (name, margin))
    x = g.tensor()
    fx.gen("x", g)
    y = labels(name, n, classes)
    fx.i32("y", y)
    for pname, _ in model.named_parameters():
        fx.gen("param:" + pname, gens["param:" + pname])
    for bname, _ in buffers(model):
        if "buffer0:" + bname in gens:
            fx.gen("buffer0:" + bname, gens["buffer0:" + bname])
    write_step(fx, model, x, y, True, kind == "resblock")
    if sgd:
        write_sgd(fx, make, x, y, Gen(name, "x2", (n,) + tuple(shape), -2.0, 2.0), labels(name, n, classes, "y2"))
    return fx


def all_fixtures():
    L = layer_fixture
    yield L("layer_linear", "linear", (12,), n=4, cout=7, bias=True)
    yield L("layer_linear_nobias", "linear", (12,), n=4, cout=7, bias=False)
    yield L("layer_linear_chw", "linear", (3, 4, 4), n=2, cout=5, bias=True)
    yield L("layer_conv_k3s1p1", "conv2d", (3, 7, 7), cout=4, k=3, stride=1, pad=1, bias=True)
    yield L("layer_conv_k3s2p1_g2", "conv2d", (4, 7, 7), cout=6, k=3, stride=2, pad=1, groups=2)
    yield L("layer_conv_k1s1p0", "conv2d", (3, 5, 5), cout=5, k=1, stride=1, pad=0, bias=True)
    yield L("layer_conv_k1s2p0", "conv2d", (4, 6, 6), cout=3, k=1, stride=2, pad=0)
    yield L("layer_conv_k3s1p2_dw", "conv2d", (4, 5, 5), cout=4, k=3, stride=1, pad=2, groups=4, bias=True)
    yield L("layer_conv_k3s2p1_dw", "conv2d", (6, 7, 7), cout=6, k=3, stride=2, pad=1, groups=6)
    yield L("layer_conv_k3s2p0", "conv2d", (2, 8, 8), cout=3, k=3, stride=2, pad=0, bias=True)
    yield L("layer_conv_k3s1p0_g2", "conv2d", (4, 6, 6), cout=4, k=3, stride=1, pad=0, groups=2, bias=True)
    yield L("layer_relu", "relu", (3, 4, 4), grid_input=True)
    yield L("layer_relu6", "relu6", (3, 4, 4), grid_input=True)
    yield L("layer_maxpool_k2s2", "maxpool", (2, 6, 6), k=2, stride=2, grid_input=True)
    yield L("layer_maxpool_k3s2p1", "maxpool", (2, 7, 7), k=3, stride=2, pad=1, grid_input=True)
    yield L("layer_avgpool_k2s2", "avgpool", (2, 6, 6), k=2, stride=2)
    yield L("layer_avgpool_k3s2p1", "avgpool", (2, 7, 7), k=3, stride=2, pad=1)
    yield L("layer_avgpool_k3s1p1", "avgpool", (2, 5, 5), k=3, stride=1, pad=1)
    yield L("layer_global_avgpool", "global_avgpool", (5, 3, 4))
    yield L("layer_flatten", "flatten", (2, 3, 3))
    yield L("layer_dropout_eval", "dropout", (2, 3, 3), p=0.5, train=False)
    yield L("layer_bn_train", "batchnorm", (3, 4, 4), n=4)
    yield L("layer_bn_eval", "batchnorm", (3, 4, 4), n=4, train=False)
    yield L("layer_bn_notrack_train", "batchnorm", (3, 4, 4), n=4, track=False)
    yield L("layer_bn_notrack_eval", "batchnorm", (3, 4, 4), n=4, train=False, track=False)
    yield L("layer_bn1d_train", "batchnorm", (6,), n=5)
    M = model_fixture
    yield M("graph_resblock", "resblock", (4, 6, 6), n=3, classes=5, sgd=True)
    yield M("model_mlp", "mlp", (1, 28, 28), n=4, classes=10, hidden=(32, 16))
    yield M("model_cnn3", "cnn3", (1, 28, 28), n=4, classes=10, width=0.25, sgd=True)
    yield M("model_vgg11", "vgg11", (3, 32, 32), n=4, classes=10, width=0.125)
    yield M("model_resnet18", "resnet18", (3, 32, 32), n=4, classes=10, width=0.125)
    # seed 003's models (lab6) at small widths to keep the files small, on
    # inputs whose relu/relu6 units stay 1e-5 from their kinks (kink_margin);
    # MobileNetV2 on 16x16: on 28x28 its ~7e5 relu6 units leave no such input
    yield M("model_resnet50", "resnet50", (1, 28, 28), n=2, classes=10, width=0.0625, margin=1e-5)
    yield M("model_mobilenetv2", "mobilenetv2", (1, 16, 16), n=2, classes=10, width=0.125, dropout=0.0,
            margin=1e-5)
    yield M("model_sdss_dnn", "sdss_dnn", (10, 1, 1), n=8, classes=3, hidden=(128, 64), sgd=True)


def main():
    check = "--check" in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    total, changed = 0, 0
    for fx in all_fixtures():
        data = fx.bytes()
        path = os.path.join(OUT, fx.name + ".fix")
        total += len(data)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if check:
            if old != data:
                changed += 1
                print("would change: %s" % path)
            continue
        with open(path, "wb") as f:
            f.write(data)
        print("%-40s %8d bytes" % (os.path.relpath(path), len(data)))
    print("total %d bytes" % total)
    if check and changed:
        sys.exit(1)


if __name__ == "__main__":
    main()
