"""A real model pair for notebook 03: a small causal transformer (the target) and a bigram (the draft).

Both are character models over ASCII (128 ids), trained on Python's own standard library
source (files every Python 3.11 install has, CORPUS_FILES). Pure torch, no display:

    target, draft = load_pair()                  # the shipped weights (tiny_lm.pt), float16 on disk
    cache = KVCache()
    logits = target.forward_cached(ids, cache)   # [len(ids), V]: one call, one row per position
    cache.crop(n)                                # keep the first n positions (roll back a rejection)
    rows(logits, temperature)                    # probabilities; temperature 0 gives one-hot rows (greedy)

Train again (deterministic: seeded, one thread) and write the weights:

    python tiny_lm.py --train            # about TRAIN_STEPS steps; prints the loss every 50
    python tiny_lm.py --check            # the first steps' losses against the ones recorded in tiny_lm.pt
"""

import hashlib
import math
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

VOCAB = 128
HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "tiny_lm.pt"
CONFIG = dict(layers=3, dim=128, heads=4, context=256)
TRAIN_STEPS, BATCH, SEQ, LR, SEED = 700, 24, 128, 3e-3, 2424
CHECK_STEPS = 3  # the steps whose losses --check (and tests/test_tiny_lm.py) reproduce

# The errors a student's call can meet, in the edition's words (a Chinese edition's copy gets its own; issue 43).
# ---------------------------------------------------------------- text: BEGIN TEXT
# This edition's text, written by `python -m grading.build` from lessons/i18n/level24_residual_and_bonus_zh.py: edit it there.
TEXT = {
    "lang": "zh",
    "crop": "无法把保存了 {length} 个位置的缓存裁剪到 {n} 个位置",
    "context": "{positions} 个位置超出了模型的上下文长度 {context}"
}
# ---------------------------------------------------------------- text: END TEXT
# Standard-library modules read as the corpus (about 1 MB of Python), in this order.
CORPUS_FILES = ("argparse.py", "ast.py", "bisect.py", "calendar.py", "csv.py", "dataclasses.py", "difflib.py",
                "fractions.py", "functools.py", "heapq.py", "inspect.py", "pathlib.py", "pprint.py", "random.py",
                "shlex.py", "statistics.py", "string.py", "textwrap.py", "tokenize.py", "typing.py")


def encode(text):
    """Token ids of ``text``: its ASCII codes (anything else becomes '?')."""
    return [b if b < VOCAB else 63 for b in text.encode("ascii", "replace")]


def decode(ids):
    return "".join(chr(int(i)) for i in ids)


def corpus():
    """(the corpus text, its sha256): the CORPUS_FILES of this Python's standard library, joined."""
    folder = Path(sysconfig.get_paths()["stdlib"])
    text = "\n".join((folder / name).read_text(encoding="utf-8") for name in CORPUS_FILES)
    return text, hashlib.sha256(text.encode()).hexdigest()


# ------------------------------------------------------------------ the target: a causal transformer

class KVCache:
    """The keys and values of every position the target has seen, per layer: [heads, positions, head dim]."""

    def __init__(self):
        self.keys, self.values = [], []

    @property
    def length(self):
        return self.keys[0].shape[1] if self.keys else 0

    def crop(self, n):
        """Keep the first ``n`` positions: what a rejection rolls back."""
        if not 0 <= n <= self.length:
            raise ValueError(TEXT["crop"].format(length=self.length, n=n))
        self.keys = [k[:, :n] for k in self.keys]
        self.values = [v[:, :n] for v in self.values]


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def attend(self, x, past=None):
        """x: [B, T, dim]. ``past``: (keys, values) of earlier positions (batch 1). Returns (out, keys, values)."""
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if past is not None:
            k, v = torch.cat([past[0][None], k], dim=2), torch.cat([past[1][None], v], dim=2)
        start = k.shape[2] - t  # the new positions come after the cached ones
        mask = torch.ones(t, k.shape[2], dtype=torch.bool).tril(start)
        y = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.out(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x)), k, v


class TinyTransformer(nn.Module):
    def __init__(self, layers, dim, heads, context):
        super().__init__()
        self.context = context
        self.embed, self.position = nn.Embedding(VOCAB, dim), nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        for table in (self.embed, self.position):  # small, so the tied output layer starts near uniform
            nn.init.normal_(table.weight, std=0.02)

    def forward(self, ids):
        """Training: ids [B, T] -> logits [B, T, V]."""
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block.attend(x)[0]
        return self.norm(x) @ self.embed.weight.T

    @torch.no_grad()
    def forward_cached(self, ids, cache):
        """One call over the new positions ``ids`` after the ``cache.length`` cached ones.

        Returns logits [len(ids), V] (row i: the next token after ids[i]) and appends the new keys
        and values to ``cache``.
        """
        ids = torch.as_tensor([int(i) for i in ids], dtype=torch.long)
        start = cache.length
        if start + len(ids) > self.context:
            raise ValueError(TEXT["context"].format(positions=start + len(ids), context=self.context))
        x = self.embed(ids)[None] + self.position(torch.arange(start, start + len(ids)))
        for layer, block in enumerate(self.blocks):
            past = (cache.keys[layer], cache.values[layer]) if start else None
            x, k, v = block.attend(x, past)
            if start:
                cache.keys[layer], cache.values[layer] = k[0], v[0]
            else:
                cache.keys.append(k[0])
                cache.values.append(v[0])
        return (self.norm(x) @ self.embed.weight.T)[0]


# ------------------------------------------------------------------ the draft: a bigram table

class Bigram:
    """The draft: the next character's log-probabilities given the previous one, counted from the corpus."""

    def __init__(self, log_probs):
        self.log_probs = log_probs.float()  # [V, V]

    @classmethod
    def count(cls, ids, smoothing=0.1):
        counts = torch.full((VOCAB, VOCAB), smoothing)
        ids = torch.as_tensor(ids)
        counts.index_put_((ids[:-1], ids[1:]), torch.ones(len(ids) - 1), accumulate=True)
        return cls((counts / counts.sum(dim=1, keepdim=True)).log())

    def logits(self, last_id):
        return self.log_probs[int(last_id)]


def rows(logits, temperature):
    """Probabilities from logits at ``temperature``; at 0, one-hot rows at the argmax (greedy decoding)."""
    logits = logits.float()
    if temperature == 0:
        return nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).float()
    return torch.softmax(logits / temperature, dim=-1)


@dataclass
class Generation:
    tokens: list
    seconds: float = 0.0
    target_calls: int = 0
    drafted: int = 0
    accepted: int = 0
    calls: list = field(default_factory=list)  # positions per target call

    @property
    def text(self):
        return decode(self.tokens)

    @property
    def tokens_per_call(self):
        return len(self.tokens) / self.target_calls if self.target_calls else 0.0


def start(target, prompt):
    """A fresh cache holding every prompt token but the last, and that last token (not yet seen)."""
    ids = encode(prompt)
    cache = KVCache()
    target.forward_cached(ids[:-1], cache)
    return cache, ids[-1]


def plain_generate(target, prompt, n, temperature, seed=0):
    """``n`` tokens from the target alone, one call per token."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        cache, last = start(target, prompt)
        tokens, started = [], time.perf_counter()
        for _ in range(n):
            last = int(torch.multinomial(rows(target.forward_cached([last], cache), temperature)[0], 1))
            tokens.append(last)
        return Generation(tokens, time.perf_counter() - started, n, calls=[1] * n)


# ------------------------------------------------------------------ weights

def load_pair(path=WEIGHTS):
    """(target, draft) from the shipped weights, in float32, in eval mode."""
    saved = torch.load(path, weights_only=True)
    target = TinyTransformer(**saved["config"])
    target.load_state_dict({k: v.float() for k, v in saved["target"].items()})
    target.eval()
    return target, Bigram(saved["bigram"])


def batches(ids, seed):
    """An endless stream of (inputs, next tokens) [BATCH, SEQ] from ``ids``, seeded."""
    data = torch.tensor(ids, dtype=torch.long)
    generator = torch.Generator().manual_seed(seed)
    while True:
        starts = torch.randint(0, len(data) - SEQ - 1, (BATCH,), generator=generator)
        chunk = torch.stack([data[s:s + SEQ + 1] for s in starts.tolist()])
        yield chunk[:, :-1], chunk[:, 1:]


def train(steps=TRAIN_STEPS, seed=SEED, log=print):
    """Train the target from ``seed`` for ``steps`` steps (one thread: the same numbers every run).

    Returns (model, the losses of every step, the corpus's sha256).
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        text, digest = corpus()
        ids = encode(text)
        torch.manual_seed(seed)
        model = TinyTransformer(**CONFIG)
        optimiser = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
        losses, started = [], time.perf_counter()
        for step, (x, y) in zip(range(steps), batches(ids, seed)):
            for group in optimiser.param_groups:  # warm up for 50 steps, then cosine down to 10 %
                group["lr"] = LR * min(1, (step + 1) / 50) * (0.55 + 0.45 * math.cos(math.pi * step / TRAIN_STEPS))
            loss = nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
            if step % 50 == 0 or step == steps - 1:
                log(f"step {step:4d}  loss {loss.item():.3f}  ({time.perf_counter() - started:.0f} s)")
        return model.eval(), losses, digest
    finally:
        torch.set_num_threads(threads)


def save(model, losses, digest, path=WEIGHTS):
    text, _ = corpus()
    torch.save({"config": CONFIG, "target": {k: v.half() for k, v in model.state_dict().items()},
                "bigram": Bigram.count(encode(text)).log_probs.half(), "corpus_sha256": digest,
                "first_losses": losses[:CHECK_STEPS], "final_loss": sum(losses[-50:]) / len(losses[-50:]),
                "steps": len(losses), "python": sys.version.split()[0]}, path)


def check(path=WEIGHTS):
    """None when CHECK_STEPS steps of training from SEED give the recorded losses, else why not."""
    saved = torch.load(path, weights_only=True)
    if corpus()[1] != saved["corpus_sha256"]:
        return (f"this Python's standard library ({sys.version.split()[0]}) is not the corpus the weights were "
                f"trained on (Python {saved['python']}): the losses cannot match")
    _, losses, _ = train(CHECK_STEPS, log=lambda line: None)
    if any(abs(a - b) > 1e-4 for a, b in zip(losses, saved["first_losses"])):
        return f"the first losses are {losses}, the weights recorded {saved['first_losses']}"
    return None


if __name__ == "__main__":
    if sys.argv[1:] == ["--train"]:
        save(*train())
        print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size / 1e6:.2f} MB)")
    elif sys.argv[1:] == ["--check"]:
        problem = check()
        print(problem or "the first losses match the recorded ones")
        sys.exit(1 if problem else 0)
    else:
        sys.exit(__doc__)
