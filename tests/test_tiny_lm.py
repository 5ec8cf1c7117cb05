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


class Recorded:
    """The target, recording the ids of every call."""

    def __init__(self, target):
        self.target, self.ids = target, []

    def forward_cached(self, ids, cache):
        self.ids.append([int(i) for i in ids])
        return self.target.forward_cached(ids, cache)


def test_alpha_is_measured_on_the_same_prefixes_at_every_temperature(pair):
    target, bigram = pair
    texts = sp.fixed_texts(target, count=2, n=60)
    assert texts == sp.fixed_texts(target, count=2, n=60, seed=0)  # fixed: the same texts every time
    recorded = Recorded(target)
    temperatures = (1.5, 1.0, 0.4, 0.0)
    table = sp.alpha_on_texts(recorded, bigram, texts, temperatures)
    assert recorded.ids == [t[:-1] for t in texts]  # one call per text, whatever the temperatures
    for t in temperatures:  # each alpha is beta's mean over the same prefixes, one cached call at a time
        for ids, alpha in zip(texts, table[t]):
            cache, betas = tiny_lm.KVCache(), []
            target.forward_cached(ids[:len(sp.PROMPT) - 1], cache)
            for i in range(len(sp.PROMPT) - 1, len(ids) - 1):
                p = tiny_lm.rows(target.forward_cached([ids[i]], cache), t)[0]
                q = tiny_lm.rows(bigram.logits(ids[i])[None], t)[0]
                betas.append(float(torch.minimum(p, q).sum()))
            assert len(betas) == 60 and abs(alpha - sum(betas) / len(betas)) < 1e-5, (t, alpha)


def test_alpha_falls_as_the_temperature_falls_on_fixed_prefixes_and_is_agreement_at_zero(pair):
    target, bigram = pair
    texts = sp.fixed_texts(target)
    table = sp.alpha_on_texts(target, bigram, texts, (1.5, 1.0, 0.7, 0.4, 0.0))
    means = [sum(v) / len(v) for v in table.values()]
    assert means == sorted(means, reverse=True), means  # what the notebook's reading says, on this pair
    agree = []
    for ids in texts:
        logits = target.forward_cached(ids[:-1], tiny_lm.KVCache())[len(sp.PROMPT) - 1:]
        top = bigram.log_probs[torch.as_tensor(ids[len(sp.PROMPT) - 1:-1])].argmax(-1)
        agree.append(float((logits.argmax(-1) == top).float().mean()))
    assert abs(means[-1] - sum(agree) / len(agree)) < 1e-6


def test_the_own_text_at_low_temperature_is_mostly_spaces(pair):
    """Why the notebook measures alpha on fixed prefixes: the target's own greedy text degenerates."""
    alpha, tokens = sp.own_text(*pair, sp.PROMPT, 200, 0.0)
    char, share = sp.most_common_share(tiny_lm.decode(tokens))
    assert char == " " and share > 0.9 and alpha > 0.9
    assert sp.measure_alpha(*pair, sp.PROMPT, 200, 0.0) == alpha


def test_acceptance_counts_only_checked_drafts(pair):
    target, bigram = pair
    scripted = iter([[7], [1, 2, 9], [1, 2, 3, 4, 5], [1, 8]])  # rejected at 0; at 2; all accepted (bonus); at 1

    def verify(target, cache, last_token, draft_tokens, draft_probs, temperature):
        target.forward_cached([last_token] + list(draft_tokens), cache)
        tokens = next(scripted)
        cache.crop(cache.length - len(draft_tokens) - 1 + len(tokens))
        return tokens

    run = sp.speculative_generate(target, bigram, sp.PROMPT, 11, 4, 1.0, verify)
    assert (run.steps, run.emitted, run.drafted, run.accepted, run.checked) == (4, 11, 16, 7, 1 + 3 + 4 + 2)
    assert run.acceptance == 7 / 10 and run.tokens == [7, 1, 2, 9, 1, 2, 3, 4, 5, 1, 8]
    assert len(run.step_times) == 4 and all(0 < d and 0 < c and d + c <= total for d, c, total in run.step_times)
    assert abs(sum(c for _, c, _ in run.step_times) - run.call_seconds) < 1e-9  # one call per step, each timed


def test_plain_run_is_plain_generate_with_its_calls_timed(pair):
    target, _ = pair
    run = sp.plain_run(target, sp.PROMPT, 30, 1.0, seed=3)
    assert run.tokens == tiny_lm.plain_generate(target, sp.PROMPT, 30, 1.0, seed=3).tokens
    assert run.target_calls == run.steps == run.emitted == 30 and 0 < run.call_seconds < run.seconds


def test_the_timing_helper_interleaves_and_turns_the_order_round():
    order = []
    jobs = {name: (lambda r, name=name: order.append((name, r)) or (name, r)) for name in ("a", "b", "c")}
    kept = sp.interleave(jobs, repeats=3, warmup=1)
    assert [name for name, _ in order] == list("abc" "cba" "abc" "cba")
    assert [r for _, r in order] == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    assert kept == {name: [(name, r) for r in (1, 2, 3)] for name in "abc"}  # the warm-up round is dropped
    assert sp.spread([3, 1, 2]) == (1, 2, 3)


def test_forward_times_take_turns_and_keep_every_call(pair, monkeypatch):
    target, _ = pair
    sizes = []
    real = type(target).forward_cached
    monkeypatch.setattr(type(target), "forward_cached", lambda self, ids, cache: sizes.append(len(ids)) or real(self, ids, cache))
    times = sp.forward_times(target, positions=(1, 5), repeats=4)
    assert sizes[0] > 5 and sizes[1:] == [1, 5, 5, 1] * 4 + [1, 5]  # the prompt, 5 warm-up rounds, 4 kept ones
    assert set(times) == {1, 5} and all(len(v) == 4 and min(v) > 0 for v in times.values())


def test_the_speed_report_adds_up(pair):
    target, bigram = pair
    report = sp.speed_report(target, bigram, reference_verify, k=3, n=40, repeats=2)
    assert len(report.plain) == len(report.fast) == 2
    assert abs(report.step - (report.call_k + 3 * report.draft_token + report.rest)) < 0.3 * report.step
    assert all(r.checked <= r.drafted and r.accepted <= r.checked for r in report.fast)
    lines = report.lines()
    assert len(lines) == 8 and "Theorem 3.8" in lines[2] and "checked" in lines[3]


PAIR_CHECKS = {  # grade id: (the case, the check), as notebook 03's test cells call them
    "test_visible": ("visible", sc.pair_problem),
    "hidden_one_call_per_step": ("calls", sc.calls_problem),
    "hidden_cache_rolled_back": ("cache", sc.cache_problem),
    "hidden_greedy_equal": ("greedy", sc.pair_tokens_problem),
    "hidden_no_drafts": ("no_drafts", sc.pair_problem),
    "hidden_sampling_steps": ("sampling", lambda run, case: sc.pair_tokens_problem(run, case) or sc.weights_problem(run, case)),
}


def pair_failures(verify):
    failed = set()
    for grade_id, (name, problem) in PAIR_CHECKS.items():
        case = sc.pair_case(name)
        if problem(sc.pair_steps(verify, case), case) is not None:
            failed.add(grade_id)
    case = sc.pair_case("distribution")
    if sc.samples_problem(sc.pair_samples(verify, case), case) is not None:
        failed.add("hidden_sampling_distribution")
    return failed


@pytest.mark.parametrize("path", sorted(ANSWERS.glob("*.py")), ids=lambda p: p.stem)
def test_catalogue_answers_fail_exactly_the_checks_they_name(path):
    """Each answer against the notebook's checks, in this process (the graded run is the shared graded course's)."""
    answer = catalogue.parse(path, "level24_residual_and_bonus")
    ns = {"torch": torch, "rows": tiny_lm.rows, "speculative_step": sp.speculative_step}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    assert pair_failures(ns["verify_drafts"]) == set(answer.must_lose)


def test_the_cases_send_inputs_only_and_cover_what_the_checks_claim():
    """A state's expected tokens are never on the wire (the kernel gets the text, drafts, rows, coin and pick); the
    greedy cases hold a state where every draft is accepted and one where only the last is rejected, the sampling
    case temperatures 0.7, 1 and 1.3 and a rejection in the middle, and no coin lies within 1e-3 of a p / q."""
    import json
    for name in ("visible", "calls", "cache", "greedy", "no_drafts", "sampling", "distribution"):
        case = sc.pair_case(name)
        wire = json.dumps(case.wire)
        assert "tokens" not in wire and "weights" not in wire
        again = sc.case_from_wire(json.loads(wire))
        assert [s.wire() for s in again.states] == [s.wire() for s in case.states]
    labels = {n: {s.label for s in sc.pair_case(n).states} for n in ("greedy", "cache", "sampling", "visible")}
    assert {"all", "last", "first"} <= labels["greedy"] and {"all", "last", "first"} <= labels["cache"]
    assert {"middle", "last", "all"} <= labels["sampling"] and "middle" in labels["visible"]
    assert {s.temperature for s in sc.pair_case("sampling").states} == {0.7, 1.0, 1.3}
    assert all(s.k == 0 for s in sc.pair_case("no_drafts").states)


def test_the_recipes_name_the_seed_their_search_ends_at(monkeypatch):
    """Building a case costs one try per state: a recipe's seed is the first one whose state shows what it wants (each
    try is a forward call of the target; the search was a tenth of a second of the kernel's visible test)."""
    tries = []
    real = sc._make_state
    monkeypatch.setattr(sc, "_make_state", lambda *a: tries.append(a) or real(*a))
    for name, recipe in sc._PAIR_RECIPES.items():
        tries.clear()
        states = recipe()[0]
        assert len(tries) == len(states), name


def _crops_first(target, cache, last_token, draft_tokens, draft_probs, temperature):
    """A wrong step that changes the cache before its call: the call is on another prefix."""
    cache.crop(cache.length - 1)
    logits = target.forward_cached([last_token] + list(draft_tokens), cache)
    return sp.speculative_step(draft_probs, tiny_lm.rows(logits, temperature), draft_tokens)


@pytest.mark.parametrize("verify, served", [(reference_verify, True), (_crops_first, False)],
                         ids=["right", "crops-first"])
def test_the_distribution_memo_changes_nothing_the_function_sees(verify, served, monkeypatch):
    """The 200 distribution steps serve repeated target calls on the untouched prefix from memory: the first tokens
    are the same as with the model run on every call, for a right step (most of whose calls are served) and for one
    that changes the cache first (whose calls are not on the prefix, so none is served)."""
    case = sc.pair_case("distribution")
    hits = []
    real = sc._PrefixMemo.forward_cached

    def counting(self, ids, cache):
        hits.append(self._at_prefix(cache) and tuple(ids) in self.seen)
        return real(self, ids, cache)
    monkeypatch.setattr(sc._PrefixMemo, "forward_cached", counting)
    with_memo = sc.pair_samples(verify, case)
    monkeypatch.setattr(sc._PrefixMemo, "forward_cached", lambda self, ids, cache: self.model.forward_cached(ids, cache))
    without = sc.pair_samples(verify, case)
    assert with_memo.firsts == without.firsts and len(with_memo.firsts) == case.samples
    assert with_memo.ename is None and without.ename is None
    assert (sum(hits) > case.samples // 2) if served else not any(hits)


def test_a_function_that_does_not_do_the_step_gains_nothing_from_the_kernel():
    """What the kernel could change is the student's own (spec_pair, the rows, the library): a verify_drafts that
    returns nothing, one that replaces spec_pair's generation, and one that returns the drafts all lose every check
    of the tokens, whatever they report, since the grader's reference is computed apart from them."""
    import spec_pair

    def empty(target, cache, last_token, draft_tokens, draft_probs, temperature):
        spec_pair.speculative_generate = lambda *a, **k: None  # the old forgery: the grader no longer calls it
        return []

    saved = spec_pair.speculative_generate
    try:
        failed = pair_failures(empty)
    finally:
        spec_pair.speculative_generate = saved
    assert set(PAIR_CHECKS) - {"hidden_one_call_per_step"} <= failed and "hidden_sampling_distribution" in failed


def test_a_malformed_reply_is_refused():
    case = sc.pair_case("visible")
    run = sc.pair_steps(reference_verify, case)
    good = sc.to_wire("pair_steps", run)
    assert sc.pair_problem(sc.from_wire("pair_steps", good, case), case) is None
    for bad in ([{**good[0], "tokens": ["<script>"]}], [{**good[0], "length": 10 ** 9}], [{**good[0], "extra": 1}],
                [{**good[0], "error": ["x y", "verify_drafts"]}], [{**good[0], "error": ["E", "<b>"]}], good * 5):
        with pytest.raises(ValueError):
            sc.from_wire("pair_steps", bad, case)


def test_the_probe_tells_a_cache_of_the_right_length_with_a_wrong_position():
    """A cache as long as the text's but holding the rejected draft in place of an accepted one fails by its probe."""
    def swapped_position(target, cache, last_token, draft_tokens, draft_probs, temperature):
        start = cache.length
        logits = target.forward_cached([last_token] + list(draft_tokens), cache)
        tokens = sp.speculative_step(draft_probs, tiny_lm.rows(logits, temperature), draft_tokens)
        cache.crop(start)
        target.forward_cached([last_token] + [(t + 1) % 128 for t in tokens[:-1]], cache)
        return tokens

    case = sc.pair_case("cache")
    problem = sc.cache_problem(sc.pair_steps(swapped_position, case), case)
    assert problem is not None and "not the text's" in problem


@pytest.mark.parametrize("body,error,where", [
    # start read after the call: the crop asks for more positions than the cache holds
    ("logits = target.forward_cached([last_token] + list(draft_tokens), cache)\n    start = cache.length\n"
     "    tokens = speculative_step(draft_probs, rows(logits, temperature), draft_tokens)\n"
     "    cache.crop(start + len(tokens))", "ValueError", "crop"),
    # log-probabilities for probabilities: torch.multinomial refuses the negative row inside the step
    ("start = cache.length\n    logits = target.forward_cached([last_token] + list(draft_tokens), cache)\n"
     "    tokens = speculative_step(draft_probs, torch.log_softmax(logits, -1), draft_tokens)\n"
     "    cache.crop(start + len(tokens))", "RuntimeError", "speculative_step"),
])
def test_an_error_inside_verify_drafts_is_named_by_type_and_where(body, error, where):
    """The diagnosis of notebook 03 says which error was raised and where in the step (never its message), both
    languages; the failed checks say it too."""
    import mutants
    from grading.judge import rules
    code = ("def verify_drafts(target, cache, last_token, draft_tokens, draft_probs, temperature):\n    " + body
            + "\n    return tokens\n")
    judge, line = mutants.grade(code, "level24_residual_and_bonus", "03_real_pair")
    assert judge.failed and f"raises {error} in {where}" in line, line
    assert rules.pair_raised(judge.calls, "zh").startswith(f"你的 verify_drafts 在 {where} 里抛出了 {error}")
