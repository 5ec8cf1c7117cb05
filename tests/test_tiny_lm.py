"""Notebook 03's model pair (tiny_lm.py) and experiments (spec_pair.py), without a display or a kernel."""

import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "source" / "level24_residual_and_bonus"
# The folder's modules (spec_checks, spec_widgets, spec_pair, tiny_lm) share their names with every other
# assignment's: they are imported here with the folder first on sys.path, then kept aside, and put back in
# sys.modules (and the folder on sys.path) only while one of these tests runs (spec_pair imports spec_widgets
# when it reports), so no other test sees them and these see no other assignment's.
OWN = {f.stem for f in FOLDER.glob("*.py")}


def _swap(modules):
    """Put ``modules`` (name: module) in sys.modules for the folder's names; return what was there."""
    before = {name: sys.modules.pop(name) for name in OWN if name in sys.modules}
    sys.modules.update(modules)
    return before


_others = _swap({})
sys.path.insert(0, str(FOLDER))
import spec_checks as sc  # noqa: E402
import spec_pair as sp  # noqa: E402
import tiny_lm  # noqa: E402

sys.path.remove(str(FOLDER))
MINE = _swap(_others)

from grading.build import catalogue  # noqa: E402

ANSWERS = ROOT / "answers" / "level24_residual_and_bonus" / "03_real_pair"


@pytest.fixture(autouse=True)
def the_folder():
    """The folder's modules and path while a test runs, and one thread, as the notebook sets; then as before."""
    others, threads = _swap(MINE), torch.get_num_threads()
    sys.path.insert(0, str(FOLDER))
    torch.set_num_threads(1)
    try:
        yield
    finally:
        sys.path.remove(str(FOLDER))
        MINE.update(_swap(others))
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def pair():
    return tiny_lm.load_pair()


def reference_verify(target, cache, last_token, draft_tokens, draft_probs, temperature):
    start = cache.length
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    tokens = sp.speculative_step(draft_probs, tiny_lm.rows(logits, temperature), draft_tokens)
    cache.crop(start + len(tokens))
    return tokens


def test_cache_gives_the_full_forward_rows_and_crops():
    torch.manual_seed(0)
    model = tiny_lm.TinyTransformer(**tiny_lm.CONFIG).eval()
    ids = tiny_lm.encode("def f(x):\n    return x * 2\n")
    full = model(torch.tensor([ids]))[0].detach()
    cache = tiny_lm.KVCache()
    a = model.forward_cached(ids[:10], cache)
    b = model.forward_cached(ids[10:15], cache)  # five positions, then two of them are rolled back
    cache.crop(13)
    c = model.forward_cached(ids[13:], cache)
    assert cache.length == len(ids)
    assert torch.allclose(torch.cat([a, b[:3], c]), full, atol=1e-4)
    with pytest.raises(ValueError, match="cannot crop"):
        cache.crop(len(ids) + 1)


def test_shipped_weights_are_small_and_reproduced_by_the_script():
    assert tiny_lm.WEIGHTS.stat().st_size < 1.5e6
    assert tiny_lm.check() is None


def test_greedy_speculation_is_plain_greedy_token_for_token(pair):
    target, bigram = pair
    plain = tiny_lm.plain_generate(target, sp.PROMPT, 100, 0)
    fast = sp.speculative_generate(target, bigram, sp.PROMPT, 100, 4, 0, reference_verify)
    assert fast.tokens == plain.tokens
    assert fast.target_calls < plain.target_calls and set(fast.calls) == {5}


def exact_pairs(target, prompt):
    """The target's exact probability of each first two tokens (a, b) after ``prompt``, at temperature 1."""
    cache, last = tiny_lm.start(target, prompt)
    n = cache.length
    first = torch.softmax(target.forward_cached([last], cache)[0], -1)
    joint = {}
    for a in range(tiny_lm.VOCAB):
        cache.crop(n + 1)
        second = torch.softmax(target.forward_cached([a], cache)[0], -1)
        for b in range(tiny_lm.VOCAB):
            joint[a, b] = float(first[a] * second[b])
    return joint


def two_token_gap(target, bigram, verify, runs=500):
    """(chi-square p-value, TV distance) of speculation's first two tokens against the target's exact ones."""
    joint = exact_pairs(target, "    def ")
    counts = {}
    for seed in range(runs):
        got = tuple(sp.speculative_generate(target, bigram, "    def ", 2, 3, 1.0, verify, seed=seed).tokens)
        counts[got] = counts.get(got, 0) + 1
    common = [cell for cell, p in joint.items() if p * runs >= 5]  # the rest is pooled in one cell
    observed = [counts.get(cell, 0) for cell in common] + [runs - sum(counts.get(cell, 0) for cell in common)]
    expected = [joint[cell] for cell in common] + [1 - sum(joint[cell] for cell in common)]
    return sc.chi_square(observed, expected)[1], sc.tv_distance(observed, expected)


def test_sampled_speculation_follows_the_target_over_two_tokens(pair):
    p_value, tv = two_token_gap(*pair, reference_verify)
    assert p_value > 0.001 and tv < 0.1, (p_value, tv)


def test_a_step_that_skips_the_residual_is_caught(pair):
    """The same experiment fails a step whose correction is drawn from p instead of max(0, p - q)."""
    def verify(target, cache, last_token, draft_tokens, draft_probs, temperature):
        start = cache.length
        logits = target.forward_cached([last_token] + list(draft_tokens), cache)
        tokens = _from_p(draft_probs, tiny_lm.rows(logits, temperature), draft_tokens)
        cache.crop(start + len(tokens))
        return tokens

    p_value, _ = two_token_gap(*pair, verify)
    assert p_value < 0.001


def _from_p(draft_probs, target_probs, draft_tokens):
    """Accept as speculative sampling does, but draw the correction from p (a known mistake)."""
    tokens = []
    for i, token in enumerate(draft_tokens):
        p, q = target_probs[i, token].item(), draft_probs[i, token].item()
        if p >= q or torch.rand(1).item() < p / q:
            tokens.append(token)
            continue
        return tokens + [int(torch.multinomial(target_probs[i], 1))]
    return tokens + [int(torch.multinomial(target_probs[len(draft_tokens)], 1))]


def test_alpha_rises_as_the_temperature_falls_from_one(pair):
    alphas = [sp.measure_alpha(*pair, sp.PROMPT, 200, t) for t in (1.0, 0.7, 0.4, 0.0)]
    assert alphas == sorted(alphas), alphas


@pytest.mark.parametrize("path", sorted(ANSWERS.glob("*.py")), ids=lambda p: p.stem)
def test_catalogue_answers_fail_the_checks_they_name(path):
    """Each answer against the notebook's checks, in this process (the graded run is test_catalogue's)."""
    answer = catalogue.parse(path, "level24_residual_and_bonus")
    ns = {"torch": torch, "rows": tiny_lm.rows, "speculative_step": sp.speculative_step}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    checks = {
        "test_visible": ("def __init__(self, ", 30, 4, sc.pair_problem),
        "hidden_one_call_per_step": ("import ", 24, 3, sc.calls_problem),
        "hidden_cache_rolled_back": ("    return ", 40, 5, lambda run, case: sc.cache_problem(run)),
        "hidden_greedy_equal": ("    return ", 40, 5, sc.greedy_problem),
        "hidden_no_drafts": ("class ", 12, 0, sc.pair_problem),
    }
    failed = set()
    for grade_id, (prompt, steps, k, problem) in checks.items():
        case = sc.PairCase(prompt, steps, k)
        if problem(sc.run_pair(ns["verify_drafts"], case), case) is not None:
            failed.add(grade_id)
    assert failed == set() if answer.full_marks else set(answer.must_lose) <= failed, failed
