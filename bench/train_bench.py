#!/usr/bin/python3
"""Training-step benchmark in plain Python PyTorch: the counterpart of bench/train_bench.cpp.

    /usr/bin/python3 bench/train_bench.py [--channels C] [--blocks B] [--batch N] [--threads T]
                                          [--steps S] [--warmup W] [--repeats R] [--seed S]
                                          [--export-check DIR]

The same network as net/network.cpp, the same random batches (planes, legal masks with the
chosen drop always legal, actions, rewards in {-1, 0, 1}), the loss of train/trainer.cpp and the
same optimizer (Adam, lr 1e-3, weight decay 1e-4, as TrainOptions' defaults), timed the same way:
the best of R runs of S steps after W warm-up steps, in samples per second.

--export-check DIR: reads what `train_bench --export-check DIR` wrote; loads the TorchScript export
with torch.jit.load and compares its outputs with the C++ ones, loads its weights into the
network below and compares the eager outputs too, then runs 3 Adam steps on the C++ training
batch and compares the losses. Exits 1 when a difference exceeds 1e-4.

Needs Debian's python3-torch (apt-get install -y python3-torch), which runs on the same LibTorch
1.13.1 as the C++ build; it is optional and not part of the project's set-up.
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

INPUT_PLANES = 36
BOARD = 9
KINDS = 8
FIRST_CAMP_RANK = 5  # the mover's 4 camp ranks are view ranks 5..8
POLICY_SIZE = KINDS * 4 * BOARD  # 288
LEARNING_RATE = 1e-3  # TrainOptions (train/trainer.h)
WEIGHT_DECAY = 1e-4
VALUE_WEIGHT = 1.0
ENTROPY_WEIGHT = 0.01


def conv(cin, cout, kernel, bias):
    return nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=bias)


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = conv(channels, channels, 3, False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = conv(channels, channels, 3, False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class PolicyValueNet(nn.Module):
    """net/network.cpp: the same modules, names and forward pass."""

    def __init__(self, channels=32, blocks=4):
        super().__init__()
        c = channels
        self.stem_conv = conv(INPUT_PLANES, c, 3, False)
        self.stem_bn = nn.BatchNorm2d(c)
        self.blocks = nn.ModuleList([ResidualBlock(c) for _ in range(blocks)])
        self.policy_conv = conv(c, KINDS, 1, True)
        self.value_conv = conv(c, 1, 1, False)
        self.value_bn = nn.BatchNorm2d(1)
        self.value_fc1 = nn.Linear(BOARD * BOARD, c)
        self.value_fc2 = nn.Linear(c, 1)

    def forward(self, x):
        h = F.relu(self.stem_bn(self.stem_conv(x)))
        for block in self.blocks:
            h = block(h)
        p = self.policy_conv(h)[:, :, FIRST_CAMP_RANK:BOARD].reshape(-1, POLICY_SIZE)
        v = F.relu(self.value_bn(self.value_conv(h))).flatten(1)
        v = F.relu(self.value_fc1(v))
        v = torch.tanh(self.value_fc2(v)).squeeze(1)
        return p, v


def masked_log_softmax(logits, mask):
    legal = mask.to(torch.bool)
    return logits.masked_fill(legal.logical_not(), -math.inf).log_softmax(1)


def trainer_loss(net, x, mask, actions, reward):
    """The loss of Trainer::step (train/trainer.cpp), line for line."""
    logits, value = net(x)
    logp = masked_log_softmax(logits, mask)
    logp_a = logp.gather(1, actions).squeeze(1)
    advantage = reward - value.detach()
    policy_loss = -(advantage * logp_a).mean()
    value_loss = (value - reward).pow(2).mean()
    legal_logp = logp.masked_fill(mask.logical_not(), 0.0)
    entropy = -(logp.exp() * legal_logp).sum(1).mean()
    return policy_loss + VALUE_WEIGHT * value_loss - ENTROPY_WEIGHT * entropy


def adam(net):
    # Torch 1.13's default: the single-tensor implementation, like LibTorch's Adam.
    return torch.optim.Adam(net.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)


def update(net, optimizer, batch):
    loss = trainer_loss(net, *batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def random_batch(n):
    x = (torch.rand(n, INPUT_PLANES, BOARD, BOARD) < 0.3).to(torch.float32)
    actions = torch.randint(0, POLICY_SIZE, (n, 1), dtype=torch.int64)
    mask = (torch.rand(n, POLICY_SIZE) < 0.3).scatter_(1, actions, True)
    reward = torch.randint(-1, 2, (n,), dtype=torch.float32)
    return x, mask, actions, reward


def bench(args):
    torch.manual_seed(args.seed)
    net = PolicyValueNet(args.channels, args.blocks)
    net.train()
    optimizer = adam(net)
    batches = [random_batch(args.batch) for _ in range(4)]
    for i in range(args.warmup):
        update(net, optimizer, batches[i % len(batches)])
    rates = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for i in range(args.steps):
            update(net, optimizer, batches[i % len(batches)])
        rates.append(args.steps * args.batch / (time.perf_counter() - t0))
    label = "network update, pre-built tensors:"
    print(f"  {label:<46}" + "".join(f" {r:9.1f}" for r in rates) +
          f"  -> best {max(rates):.1f} samples/s")
    print(f"RESULT python_update {max(rates):.1f}")


def read_raw(path, dtype, shape):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    return torch.frombuffer(data, dtype=dtype).reshape(shape).clone()


def export_check(args):
    d = args.export_check
    meta = {}
    with open(os.path.join(d, "meta.txt")) as f:
        for line in f:
            key, *values = line.split()
            meta[key] = values
    channels, blocks = int(meta["channels"][0]), int(meta["blocks"][0])
    n_eval, n_train = int(meta["n_eval"][0]), int(meta["n_train"][0])
    for key, ours in [("learning_rate", LEARNING_RATE), ("weight_decay", WEIGHT_DECAY),
                      ("value_weight", VALUE_WEIGHT), ("entropy_weight", ENTROPY_WEIGHT)]:
        if float(meta[key][0]) != ours:
            sys.exit(f"export check: {key} {meta[key][0]} in C++, {ours} here")
    cpp_losses = [float(v) for v in meta["losses"]]
    planes = (INPUT_PLANES, BOARD, BOARD)
    failures = []

    def report(what, diff, tolerance=1e-4):
        ok = diff <= tolerance
        print(f"  export check: {what}: max |diff| {diff:.3g}{'' if ok else '  FAIL'}")
        if not ok:
            failures.append(what)

    x = read_raw(os.path.join(d, "eval_x.f32"), torch.float32, (n_eval, *planes))
    cpp_logits = read_raw(os.path.join(d, "eval_logits.f32"), torch.float32, (n_eval, POLICY_SIZE))
    cpp_value = read_raw(os.path.join(d, "eval_value.f32"), torch.float32, (n_eval,))
    model = torch.jit.load(os.path.join(d, "model.pt"))
    model.eval()
    with torch.no_grad():
        logits, value = model(x)
    print(f"  export check: torch.jit.load({os.path.join(d, 'model.pt')}) loaded: "
          f"channels {model.channels}, blocks {model.blocks}, input planes {model.input_planes}, "
          f"policy size {model.policy_size}; outputs {tuple(logits.shape)} {tuple(value.shape)}")
    report("Python TorchScript vs C++ net, logits", (logits - cpp_logits).abs().max().item())
    report("Python TorchScript vs C++ net, value", (value - cpp_value).abs().max().item())

    # This file's network with the exported weights (TorchScript attribute names have '_' for '.').
    net = PolicyValueNet(channels, blocks)
    scripted = dict(model.named_parameters())
    scripted.update(dict(model.named_buffers()))
    with torch.no_grad():
        for name, t in list(net.named_parameters()) + list(net.named_buffers()):
            if name.endswith("num_batches_tracked"):
                continue
            t.copy_(scripted[name.replace(".", "_")])
    net.eval()
    with torch.no_grad():
        logits, value = net(x)
    report("Python eager net (exported weights) vs C++ net, logits",
           (logits - cpp_logits).abs().max().item())
    report("Python eager net (exported weights) vs C++ net, value",
           (value - cpp_value).abs().max().item())

    net.train()
    batch = (read_raw(os.path.join(d, "train_x.f32"), torch.float32, (n_train, *planes)),
             read_raw(os.path.join(d, "train_mask.u8"), torch.uint8,
                      (n_train, POLICY_SIZE)).to(torch.bool),
             read_raw(os.path.join(d, "train_actions.i64"), torch.int64, (n_train, 1)),
             read_raw(os.path.join(d, "train_reward.f32"), torch.float32, (n_train,)))
    optimizer = adam(net)
    losses = [update(net, optimizer, batch).item() for _ in range(3)]
    print("  export check: losses of 3 Adam steps, C++ " +
          " ".join(f"{v:.7f}" for v in cpp_losses) + ", Python " +
          " ".join(f"{v:.7f}" for v in losses))
    report("training losses, Python vs C++", max(abs(a - b) for a, b in zip(losses, cpp_losses)))
    if failures:
        sys.exit(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--export-check", metavar="DIR")
    args = p.parse_args()
    if min(args.channels, args.batch, args.threads, args.steps, args.repeats) < 1 or \
            args.blocks < 0 or args.warmup < 0:
        p.error("bad arguments")

    torch.set_num_threads(args.threads)
    print(f"train_bench.py (Python {sys.version.split()[0]}, PyTorch {torch.__version__}): net "
          f"{args.channels} channels x {args.blocks} blocks, batch {args.batch}, "
          f"{torch.get_num_threads()} thread(s), cpu, Adam lr {LEARNING_RATE:g} weight decay "
          f"{WEIGHT_DECAY:g}, value weight {VALUE_WEIGHT:g}, entropy weight {ENTROPY_WEIGHT:g}; "
          f"{args.warmup} warm-up + {args.repeats} x {args.steps} steps")
    sys.stdout.flush()
    if args.export_check:
        export_check(args)
    else:
        bench(args)


if __name__ == "__main__":
    main()
