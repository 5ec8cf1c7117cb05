"""Level 23's diagnosis rules: what verify_draft did on each scripted call, against models of the known mistakes.

Each rule models one mistake (or two at once) as a change to the reference loop: a comparison, a row, the
coin, the break, an answer hard-coded. r drawn with another generator (random, numpy, uniform_) needs no model:
the checks hand it the same scripted values, and a traced call names the source (FOREIGN_RULES).
A model names its mistake when it does what the function did on every call where the function went wrong
without raising, and on every call where the model differs from the right answer (one of them a failed
check's); see fired(). What a run shows directly whatever else the function does (a seed set inside it,
changed inputs, a result that is not a list of ids, a vector of coins: PREDICATES) is added in
grading/judge/rules.py's words. A model's sentence is its catalogued answer's own line, read from the built table
(grading/judge/diagnoses.json, which a course ships in grading/; the answers/ folder is not there) or from the
edition's DIAGNOSES: one source for each sentence. The catalogue is the rules' test set (tests/test_rules23.py):
no answer's behaviour is looked up.
"""

import itertools
import json

ASSIGNMENT = "level23_speculative_decoding"
OVERFLOW_DRAW = 0.99999  # spec_checks._OVERFLOW_DRAW: handed out past the script (a test fails if they drift)
MAX_TOKENS_OVER = 2    # spec_checks.MAX_TOKENS_OVER: the kernel sends at most K + 2 tokens
# (a list of floats, such as p appended for token_id, reaches the grader as "not a list of ids": no model of it)

# rule (the catalogued answer whose sentence it gives): the mistakes its model makes, per notebook
RULES = {
    "01_accept_branch": {
        "strict_greater": {"strict_greater"},
        "reversed_comparison": {"reversed_comparison"},
        "appends_position": {"appends_position"},
        "appends_before_check": {"appends_before_check"},
        "row_zero_only": {"row_zero"},
        "row_maximum": {"row_max"},
        "forgets_continue": {"break_after_accept"},
        "skips_instead_of_stopping": {"continue"},
        "draw_before_compare": {"draw_every_position"},
        "coin_in_mission1": {"coin"},
        "keeps_every_token": {"no_coin"},
        "tensor_compare_no_item": {"equal_only"},
        "reads_next_row": {"row_next"},
        "first_token_peek": {"peek"},
        "ratio_divides_by_q": {"ratio"},
        "hard_coded_visible": {"visible_answer"},
    },
    "02_reject_and_break": {
        "continue_not_break": {"continue"},
        "break_after_accept": {"break_after_coin"},
        "greater_coin": {"greater_coin"},
        "less_equal_coin": {"less_equal_coin"},
        "q_over_p": {"q_over_p"},
        "no_coin": {"no_coin"},
        "draw_every_position": {"draw_every_position"},
        "strict_accept_branch": {"strict_greater"},
        "row_zero_only": {"row_zero"},
        "row_maximum": {"row_max"},
        "appends_position": {"appends_position"},
        "never_draws": {"never_draws"},
        "accept_falls_through": {"falls_through"},
        "reads_next_row": {"row_next"},
        "rejected_flag": {"flag"},
        "coin_forgets_append": {"coin_no_append"},
        "hard_coded_visible": {"visible_answer"},
    },
}
# Catalogued mistakes a run shows directly: r drawn with another generator than torch.rand. The checks hand those
# generators the same scripted values (spec_checks.FOREIGN), so no model is needed: a traced call names the source.
FOREIGN_RULES = {
    "02_reject_and_break": {
        "random_module": ("random.random", "random.uniform"),
        "numpy_rand": ("numpy.random.rand", "numpy.random.random", "numpy.random.random_sample", "numpy.random.uniform"),
        "unscripted_torch_draw": ("torch.rand_like", "torch.Tensor.uniform_", "torch.bernoulli"),
    },
}

# rules with no catalogued answer: their sentences are grading/judge/rules.py's (SENTENCES, both languages), and
# tests/test_rules23.py writes each mistake into the reference loop
_LOOP_RULES = {  # mistakes of the loop itself, in either notebook
    "accepts_target_argmax": {"accept_argmax"},
    "loop_starts_at_one": {"start_one"},
    "loop_stops_early": {"skip_last"},
    "q_zero_stops": {"q_zero_stops"},
    "reject_returns_empty": {"reject_empty"},
    "skips_after_accept": {"double_increment"},
    "prefix_reversed": {"reversed_prefix"},
    "accept_no_append": {"accept_no_append"},
    "row_of_first_occurrence": {"first_occurrence"},
    "returns_inside_loop": {"return_in_loop"},
    "reads_previous_row": {"row_previous"},
    "drops_repeated_tokens": {"no_repeats"},
    "indexes_token_then_position": {"index_swapped"},
}
OWN_RULES = {
    "01_accept_branch": {**_LOOP_RULES, "counts_accepts": {"count_prefix"}},
    "02_reject_and_break": {
        **_LOOP_RULES,
        "ratio_before_branch": {"ratio_first"},
        "coin_r_below_p": {"coin_p"},
        "coin_complement": {"coin_complement"},
        "coin_complement_strict": {"coin_complement_strict"},
        "coin_reversed": {"greater_equal_coin"},
        "second_coin": {"double_draw"},
        "coin_never_accepts": {"coin_never"},
        "reads_p_and_q_swapped": {"swapped_pq"},
        "coin_cumulative": {"cumulative"},
        "coin_reused": {"reuse_r"},
        "coin_same_position": {"no_advance"},
        "branches_swapped": {"swapped_branches"},
        "stops_after_sure_accept": {"break_after_accept"},
        "coin_always_accepts": {"coin_always"},
        "appends_before_coin": {"appends_before_check"},
        "coin_drawn_before_loop": {"reuse_r", "predraw"},
    },
}


CALL_SEED = 2300  # spec_checks.CALL_SEED, seeded around every call (tests/test_rules23.py fails if they drift)
VISIBLE_ANSWER = {"01_accept_branch": ([10], 0), "02_reject_and_break": ([10, 20], 2)}  # the visible tests'


def _rows(case):
    """(target rows, draft rows, draft token ids) of ``case`` as lists, made once per case (the models read them
    thousands of times)."""
    rows = getattr(case, "_rules23_rows", None)
    if rows is None:
        rows = case._rules23_rows = (case.target_probs.tolist(), case.draft_probs.tolist(),
                                     [int(t) for t in case.draft_tokens])
    return rows


def model(case, draws, notebook, mistakes=frozenset()):
    """(tokens, draws asked for, error type) of the reference verify_draft with ``mistakes``. Notebook 01's
    reference stops at the first p < q with no draw (the given break); notebook 02's draws r there."""
    draws, used = draws if type(draws) is list else list(draws), 0  # read, never changed
    P, Q, ids = _rows(case)
    out = []
    rejected = False  # "flag": a rejection is remembered, and the loop goes on
    if "visible_answer" in mistakes:
        tokens, calls = VISIBLE_ANSWER[notebook]
        return list(tokens), calls, None
    if "peek" in mistakes and not ids:  # draft_tokens[0] read before the loop
        return out, used, "IndexError"
    if "count_prefix" in mistakes:  # as many tokens from the start as there are p >= q positions anywhere
        if len(ids) > min(len(P), len(Q)):
            return out, used, "IndexError"
        return ids[:sum(P[i][t] >= Q[i][t] for i, t in enumerate(ids))], used, None

    def rand():
        nonlocal used
        used += 1
        return draws[used - 1] if used <= len(draws) else OVERFLOW_DRAW

    skip = False  # "double_increment": the position after a p >= q one is passed over
    running = 1.0  # "cumulative": the product of min(1, p / q) over the positions so far, this one's included
    kept_r = None  # "reuse_r": the one r drawn at the first p < q, read again at every later one
    if "predraw" in mistakes:  # "reuse_r" with the one r drawn before the loop, whatever the draft
        kept_r = rand()
    for i, t in enumerate(ids):
        if "start_one" in mistakes and i == 0 or skip:
            skip = False
            continue
        if "skip_last" in mistakes and i == len(ids) - 1:
            break
        row = 0 if "row_zero" in mistakes else i + 1 if "row_next" in mistakes else ids.index(t) if (
            "first_occurrence" in mistakes) else i - 1 if "row_previous" in mistakes else i  # row -1: the last
        if "index_swapped" in mistakes:  # [token_id, i]: the token's id as the row, the position as the column
            row = t
        if row >= len(P) or row >= len(Q) or row < -len(P):
            return out, used, "IndexError"
        if "index_swapped" in mistakes and i >= len(P[row]):  # the position as the column, past the vocabulary
            return out, used, "IndexError"
        p, q = (P[row][i], Q[row][i]) if "index_swapped" in mistakes else (P[row][t], Q[row][t])
        if "swapped_pq" in mistakes:  # p read from the draft, q from the target
            p, q = q, p
        if "row_max" in mistakes:
            p = max(P[i])
        if "q_zero_stops" in mistakes and q == 0:
            break
        if "ratio_first" in mistakes and q == 0:  # p / q computed before the p >= q test
            return out, used, "ZeroDivisionError"
        kept = i if "appends_position" in mistakes else t
        r = rand() if "draw_every_position" in mistakes else None
        if "appends_before_check" in mistakes:
            out.append(kept)
        if "no_coin" in mistakes:
            accept = True
        elif "accept_argmax" in mistakes:  # the drafted token is the target row's most likely one (its first max)
            accept = t == max(range(len(P[row])), key=P[row].__getitem__)
        elif "reversed_comparison" in mistakes:
            accept = p <= q
        elif "swapped_branches" in mistakes:  # the outright accept where p < q; the coin (always true) where p >= q
            accept = p < q
        elif "equal_only" in mistakes:  # whole rows compared, (target_probs[i] >= draft_probs[i]).all(): two
            accept = all(a >= b for a, b in zip(P[row], Q[row]))  # distributions only when equal (p == q then too)
        elif "strict_greater" in mistakes:
            accept = p > q
        elif "ratio" in mistakes:  # p / q >= 1
            if q == 0:
                return out, used, "ZeroDivisionError"
            accept = p / q >= 1
        else:
            accept = p >= q
        if accept:
            if "appends_before_check" not in mistakes and "accept_no_append" not in mistakes and not rejected and not (
                    "no_repeats" in mistakes and kept in out):
                out.append(kept)
            if "return_in_loop" in mistakes:  # the return is indented into the loop: back after one position
                return out, used, None
            if "break_after_accept" in mistakes:
                break
            if "double_increment" in mistakes and p >= q:
                skip = True
            if "falls_through" not in mistakes:
                continue
        if "never_draws" in mistakes or (notebook.startswith("01") and "coin" not in mistakes):
            # Mission 1: the given break
            if "continue" in mistakes:
                continue
            if "reject_empty" in mistakes:
                return [], used, None
            break
        if r is None:
            r = kept_r if kept_r is not None else rand()
            if "reuse_r" in mistakes:
                kept_r = r
        if (p if "q_over_p" in mistakes else q) == 0:  # the ratio divides by zero, as the function's would
            return out, used, "ZeroDivisionError"
        if "q_over_p" in mistakes:
            coin = r < q / p
        elif "greater_coin" in mistakes:
            coin = r > p / q
        elif "greater_equal_coin" in mistakes:  # the reversed coin's other boundary
            coin = r >= p / q
        elif "less_equal_coin" in mistakes:
            coin = r <= p / q
        elif "coin_p" in mistakes:
            coin = r < p
        elif "coin_never" in mistakes:
            coin = False
        elif "coin_always" in mistakes:  # a test that holds whatever r is
            coin = True
        elif "coin_complement" in mistakes:
            coin = r >= 1 - p / q
        elif "coin_complement_strict" in mistakes:
            coin = r > 1 - p / q
        elif "cumulative" in mistakes:
            running *= p / q
            coin = r < running
        else:
            coin = r < p / q
        if coin and "no_advance" in mistakes:  # a while loop that moves on only where p >= q: the same
            for _ in range(10_000):  # position again, with a new draw, until one rejects
                if not coin:
                    break
                out.append(kept)
                coin = rand() < p / q
            break
        if coin and not rejected:
            if "coin_no_append" not in mistakes and "appends_before_check" not in mistakes and not (
                    "no_repeats" in mistakes and kept in out):
                out.append(kept)
            if "return_in_loop" in mistakes:
                return out, used, None
            if "break_after_coin" in mistakes:
                break
            continue
        if "continue" in mistakes:
            continue
        if "flag" in mistakes:
            rejected = True
            continue
        if "double_draw" in mistakes and rand() < p / q:  # a second coin, and the loop goes on without the token
            continue
        if "reject_empty" in mistakes:
            return [], used, None
        break
    if "return_in_loop" in mistakes:  # a rejection at the first position (or no position) falls off the end: None
        return None, used, None
    return (out[::-1] if "reversed_prefix" in mistakes else out), used, None


def _same(tokens, model_tokens, k):
    if model_tokens is None:
        return tokens is None
    model_tokens = model_tokens[:k + MAX_TOKENS_OVER]
    if tokens is None or len(tokens) != len(model_tokens):
        return False
    return all(abs(float(a) - float(b)) < 1e-6 for a, b in zip(tokens, model_tokens))


def _draws(args, kwargs):
    return args[0] if len(args) > 0 else kwargs.get("draws", ())


def _did(student, modelled, k):
    """Whether the function's (tokens, draws, error) on a call are what ``modelled`` gives: the same error type,
    or no error and the same tokens (as far as the kernel sends them) and number of draws."""
    tokens, used, error = modelled
    if error is not None:
        return student[2] is not None and str(student[2]).split(":")[0] == error
    return student[2] is None and _same(student[0], tokens, k) and student[1] == used


def _rules(notebook):
    """{rule: the mistakes its model makes}: the catalogued answers' and the own rules of ``notebook``."""
    return dict(RULES.get(notebook, {}), **OWN_RULES.get(notebook, {}))


_MODELLED = {}  # (notebook, case, draws, mistakes): model's result, kept across the notebooks a grader process grades
_MODELLED_MAX = 400_000


def _case_key(case):
    key = getattr(case, "_rules23_key", None)
    if key is None:
        key = case._rules23_key = json.dumps(case.wire, sort_keys=True)
    return key


def _memoised(memo, key, make):
    """``memo[key]``, made by ``make()`` the first time (and afresh for a key that cannot be hashed)."""
    try:
        out = memo.get(key)
    except TypeError:
        return make()
    if out is None:
        if len(memo) >= _MODELLED_MAX:
            memo.clear()
        out = memo[key] = make()
    return out


def _memo_model(case, draws, notebook, mistakes=frozenset()):
    """model(...), made once per grading process for each case, draws and mistakes: the checks hand every
    submission the same cases and draws, so the models' runs are the same for every student (GRADER_NO_SPEEDUPS=1:
    made afresh)."""
    return _memoised(_MODELLED, (notebook, _case_key(case), tuple(draws), mistakes),
                     lambda: model(case, draws, notebook, mistakes))


def forget():
    """Drop every model run kept so far (a test that changes the models)."""
    for memo in (_MODELLED, _GROUPED, _SAMPLED, _COMBOS):
        memo.clear()


_COMBOS = {}  # the rules, as (name, mistakes) pairs: the combos made of them (about a thousand)


def _combos(notebook):
    """[(name, mistakes)]: every rule of ``notebook``, then every pair of them (named "a+b"); made once for the
    same rules."""
    singles = tuple((name, frozenset(m)) for name, m in _rules(notebook).items())
    combos = _COMBOS.get(singles)
    if combos is None:
        combos = _COMBOS[singles] = list(singles) + [(f"{a}+{b}", ma | mb) for (a, ma), (b, mb)
                                                     in itertools.combinations(singles, 2)]
    return combos


_GROUPED = {}  # (notebook, case, draws): the combos grouped by what their models give


def _grouped(case, draws, notebook, run):
    """[(modelled, [names])]: the combos of ``notebook`` grouped by what their models give on one call (a few
    dozen different results among a thousand models), so a student's call is compared with each result once."""
    def make():
        groups = {}
        for name, mistakes in _combos(notebook):
            modelled = run(case, draws, notebook, mistakes)
            tokens, used, error = modelled
            key = (tuple(tokens) if tokens is not None else None, used, error)
            groups.setdefault(key, (modelled, []))[1].append(name)
        return list(groups.values())

    from grading.plugins import speedups
    if not speedups.enabled():
        return make()
    key = (notebook, _case_key(case), tuple(draws))
    return _memoised(_GROUPED, key, lambda: speedups.made_once_per_run("rules23.grouped", key, make, _groups_to_json,
                                                                       _groups_from_json))


def _groups_to_json(groups):
    return [[[list(tokens) if tokens is not None else None, used, error], list(names)]
            for (tokens, used, error), names in groups]


def _groups_from_json(data):
    """_grouped's groups as made: [((tokens, calls, error), [names])], each checked for its kind."""
    groups = []
    for (tokens, used, error), names in data:
        if not (tokens is None or type(tokens) is list and all(type(t) is int for t in tokens)) or type(used) is not int \
                or not (error is None or type(error) is str) or not all(type(n) is str for n in names):
            raise ValueError("not a group of model runs")
        groups.append(((tokens, used, error), list(names)))
    return groups


def evidence(calls, notebook):
    """({rule: (calls that show it, calls where it could show)}, {rule: calls where the function did what the
    model does}, calls where the function went wrong without raising): single mistakes, then pairs of them
    (named "a+b"), over the run_verify calls."""
    found, agree = {}, {name: set() for name, _ in _combos(notebook)}
    deviating = set()  # calls where the function did not do what the right answer does (and did not raise)
    from grading.plugins import speedups
    run = _memo_model if speedups.enabled() else model
    for index, (check, helper, case, args, kwargs, trace) in enumerate(calls):
        if helper != "run_verify":
            continue
        draws, k = _draws(args, kwargs), len(case.positions)
        right = run(case, draws, notebook)
        student = (trace.get("tokens"), trace.get("calls"), trace.get("error"))
        if student[0] is None and student[2] is None:
            continue  # not a list of ids (shown directly: PREDICATES): no tokens to compare, so it shows, hides or
            #           asks a model to explain nothing
        if student[2] is None and not _did(student, right, k):
            deviating.add(index)
        for modelled, names in _grouped(case, draws, notebook, run):
            matched = _did(student, modelled, k)
            if matched:
                for name in names:
                    agree[name].add(index)
            if modelled == right:
                continue
            for name in names:
                shows, could = found.setdefault(name, (set(), set()))
                could.add(index)
                if matched:
                    shows.add(index)
    return found, agree, deviating


_SEEDED = {}  # seed: the first draws of torch's generator under that seed, as sample_runs's real torch.rand gives them


def _seeded_stream(seed, n):
    """At least the first ``n`` draws under ``seed``; the stream grows by doubling, from where it stopped."""
    import torch
    if seed not in _SEEDED:
        _SEEDED[seed] = (torch.Generator().manual_seed(seed), [])
    generator, have = _SEEDED[seed]
    if len(have) < n:
        have.extend(torch.rand(1, generator=generator).item() for _ in range(max(n, 2 * len(have), 1024) - len(have)))
    return have


_SAMPLED = {}  # (notebook, case, trials, seed, mistakes): what _sampled gives, the same for every student


def _sampled(case, trials, seed, notebook, mistakes):
    """What sample_runs reports for the reference with ``mistakes``: (share of runs that kept position 0's token,
    mean number of tokens), drawing from torch's generator under ``seed`` as the real torch.rand does; None when
    the model raises.
    Made once per grading process for each case, trials, seed and mistakes (thousands of model runs each)."""
    from grading.plugins import speedups
    if not speedups.enabled():
        return _sample(case, trials, seed, notebook, mistakes)
    key = (notebook, _case_key(case), trials, seed, mistakes)
    return _memoised(_SAMPLED, key, lambda: (speedups.made_once_per_run(
        "rules23.sampled", key[:4] + (sorted(mistakes),), lambda: _sample(case, trials, seed, notebook, mistakes),
        _sampled_to_json, _sampled_from_json),))[0]


def _sampled_to_json(value):
    return None if value is None else list(value)


def _sampled_from_json(data):
    """What _sample gives: None, or (share of runs that kept position 0's token, mean number of tokens)."""
    if data is None:
        return None
    first, mean = data
    if type(first) is not float or type(mean) is not float:
        raise ValueError("not a sampled run")
    return first, mean


def _sample(case, trials, seed, notebook, mistakes):
    used, first, total = 0, 0, 0
    positions = case.positions
    budget = 2 * len(positions) + 64  # draws one run may take: a model that wants more is not followed
    for _ in range(trials):
        stream = _seeded_stream(seed, used + budget)
        tokens, n, error = model(case, stream[used:used + budget], notebook, mistakes)
        if error is not None or n >= budget or tokens is None:  # None: sample_runs reports an unreadable result
            return None
        used += n
        tokens = _read(tokens, positions)
        first += 1 if tokens[:1] == [positions[0][0]] else 0
        total += len(tokens)
    return first / trials, total / trials


def _read(tokens, positions):
    """``tokens`` as sample_runs reads a result (spec_checks.read_prefix): drafted ids as they are; as many other
    values as the draft has positions, as that many drafted ids; anything longer as it is."""
    ids = [p[0] for p in positions]
    if all(t in ids for t in tokens) or len(tokens) > len(ids):
        return tokens
    return ids[:len(tokens)]


def _runs(samples):
    """(check, case, trials, seed, result) of each sample_runs call among the grader's other calls."""
    for check, helper, case, args, kwargs, result in samples:
        given = dict(zip(("trials", "seed"), args), **kwargs)
        if helper == "sample_runs" and set(given) == {"trials", "seed"}:
            yield check, case, int(given["trials"]), int(given["seed"]), result


def _gives(expected, result):
    return expected is not None and all(abs(a - b) <= 1e-9 for a, b in zip(expected, result))


def contradicted(mistakes, samples, notebook):
    """Whether a model that fits every scripted call says otherwise than a run with real randomness
    (sample_runs) did: a model that never keeps a p < q token is wrong if those runs kept some."""
    return any(expected is not None and not _gives(expected, result)
               for expected, result in ((_sampled(case, trials, seed, notebook, mistakes), result)
                                        for _, case, trials, seed, result in _runs(samples)))


def replayed(mistakes, runs, notebook):
    """The failed runs with real randomness that the model with ``mistakes``, replayed, gives exactly, where the
    right answer's replay does not. ``runs``: [(check, case, trials, seed, result, the right answer's replay)]."""
    explained = set()
    for check, case, trials, seed, result, right in runs:
        expected = _sampled(case, trials, seed, notebook, mistakes)
        if _gives(expected, result) and right != expected:
            explained.add(check)
    return explained


def fired(calls, failed, notebook, samples=(), fits=None):
    """[(rule, explained checks)]: the model that agrees with the function on the most calls, among those that
    show on every call where they could (one of them a failed check's) and do what the function did on every
    call where it went wrong; a single mistake before a pair that agrees no more often. Two that fit equally
    well name nothing. ``fits(mistakes)``: whether a model also does what the function did elsewhere (the generated
    cases, grading/judge/generated.py); a model that does not is not a candidate."""
    failed = set(failed)
    found, agree, deviating = evidence(calls, notebook)
    candidates = []
    for name, (shows, could) in found.items():
        explained = {calls[i][0] for i in shows} & failed
        # it shows wherever it could, and it accounts for every call where the function went wrong without
        # raising (an error is the check's own message, and may be a second, unmodelled problem)
        if explained and shows == could and deviating <= agree[name]:
            candidates.append((-len(agree[name]), "+" in name, name, explained))
    candidates.sort(key=lambda x: x[:3])
    rules = _rules(notebook)
    if fits is not None:
        candidates = [c for c in candidates if fits(frozenset().union(*(rules[n] for n in c[2].split("+"))))]
    kept = []  # the best that the runs with real randomness, replayed, do not contradict, and one as good if any
    for c in candidates[:8]:
        if kept and c[:2] != kept[0][:2] or len(kept) == 2:
            break
        if not contradicted(frozenset().union(*(rules[n] for n in c[2].split("+"))), samples, notebook):
            kept.append(c)
    candidates = kept
    if not candidates:  # a mistake the scripted calls cannot see: one whose replay gives what a failed run gave
        scripted = {i for i, call in enumerate(calls) if call[1] == "run_verify" and call[5].get("error") is None}
        runs = [(check, case, trials, seed, result, _sampled(case, trials, seed, notebook, frozenset()))
                for check, case, trials, seed, result in _runs(samples) if check in failed]
        for name, mistakes in rules.items():
            if not runs or not scripted <= agree.get(name, set()) or fits is not None and not fits(frozenset(mistakes)):
                continue
            explained = replayed(frozenset(mistakes), runs, notebook)
            if explained:
                explained |= {calls[i][0] for i in found.get(name, (set(), set()))[0]} & failed
                candidates.append((-len(agree[name]), False, name, explained))
    if len(candidates) > 1 and candidates[0][:2] == candidates[1][:2]:
        return []  # two mistakes fit the run equally well: the checks cannot tell them apart, so neither is named
    return [(name, explained) for _, _, name, explained in candidates[:1]]


def sentences(notebook, assignment=ASSIGNMENT, table=None):
    """{answer name: its diagnosis sentence} in the edition's words: the zh edition's DIAGNOSES, or for English
    the built table's (``table``, default grading/judge/diagnoses.json), which names every catalogued answer."""
    from grading.judge import diagnosis
    translated = diagnosis.texts(assignment)[1]
    if translated is not None:
        return dict(translated.get(notebook, {}))
    table = table if table is not None else diagnosis.load()
    return {name: entry["diagnosis"] for entry in table.get(ASSIGNMENT, {}).get(notebook, {}).values()
            for name in entry["answers"]}


def _several_values(shape):
    from grading.judge.rules import several_values
    return several_values(shape)


# What a run shows directly, whatever else the function does (grading/judge/rules.py has each sentence, both
# languages): {rule: whether a traced call shows it}
PREDICATES = {
    "reseeds": lambda t: t.get("reseeded") is True,
    "inputs_changed": lambda t: t.get("inputs_changed") is True,
    "vector_coin": lambda t: any(_several_values(s) for s in t.get("shapes") or ()),
    "not_a_list": lambda t: t.get("error") is None and t.get("tokens") is None and t.get("result_type") != "list",
    "not_token_ids": lambda t: t.get("error") is None and t.get("tokens") is None and t.get("result_type") == "list",
}


def coin_unscripted(calls, samples, notebook):
    """Whether the function kept p < q tokens in the runs with real randomness although it never called torch.rand
    in a scripted call that reached a p < q position (the right answer draws there)."""
    reached = [index for index, (_, helper, case, args, kwargs, trace) in enumerate(calls) if helper == "run_verify"
               and model(case, _draws(args, kwargs), notebook)[1] > 0]
    if not reached or any(calls[i][5].get("calls") for i in reached) or not notebook.startswith("02"):
        return False
    return contradicted(frozenset({"never_draws"}), samples, notebook)


def coin_where_sure(calls):
    """Whether a scripted call on a draft whose every position has p >= q (the lesson draws no coin there), two
    positions at least, drew one coin per position: a coin also where p >= q, whatever else the function does."""
    for _, helper, case, _, _, trace in calls:
        k = len(case.positions) if helper == "run_verify" else 0
        if (k >= 2 and all(p >= q for _, p, q in case.positions) and trace.get("error") is None
                and trace.get("calls") == k):
            return True
    return False


def _tensor_tokens_fail(calls):
    """An error in a call whose draft_tokens is a tensor, and none in a call whose draft_tokens is a list."""
    errors = {}
    for _, helper, case, _, _, trace in calls:
        if helper == "run_verify":
            errors.setdefault(not isinstance(case.draft_tokens, list), []).append(trace.get("error") is not None)
    return any(errors.get(True, ())) and errors.get(False) and not any(errors[False])


def foreign(calls, notebook):
    """The catalogued generator mistakes (FOREIGN_RULES) some traced call shows, in their order."""
    used = {g for _, helper, _, _, _, trace in calls if helper == "run_verify" for g in trace.get("foreign") or ()}
    return [name for name, sources in FOREIGN_RULES.get(notebook, {}).items() if used & set(sources)]


def shown(calls):
    """The predicates some traced call shows, in PREDICATES' order, then tensor_tokens_fail."""
    traces = [trace for _, helper, _, _, _, trace in calls if helper == "run_verify"]
    return [name for name, shows in PREDICATES.items() if any(shows(t) for t in traces)] + (
        ["tensor_tokens_fail"] if _tensor_tokens_fail(calls) else [])


def line_text(judge, notebook, assignment=ASSIGNMENT, table=None):
    """The sentence(s) the rules give for the run, or None when none fires: the model that fits (a pair of
    mistakes as the first's sentence, then the frame's "also" with the second's), then what the run shows
    directly (PREDICATES) as "also"; with no model, the first predicate, the others as "also"."""
    from grading import language
    from grading.judge import rules
    lang = "en" if language(assignment) == "en" else "zh"
    error = rules.raised(judge.calls, lang, everywhere=True)  # an error in every call hides whatever else it would do
    if error is not None:
        return error
    from grading.judge import generated
    made = getattr(judge, "generated", None)
    try:  # a model names its mistake only when it also does what the function did on every generated case
        chosen = fired(judge.calls, [c for c in judge.failed if c is not None], notebook, judge.samples,
                       fits=lambda mistakes: generated.reproduces(made, mistakes))
    except Exception:  # a model that cannot follow this run names nothing; the line says it cannot tell
        chosen = []
    parts = []
    if chosen:
        words = sentences(notebook, assignment, table)
        words.update({name: rules.sentence(name, lang) for name in OWN_RULES.get(notebook, {})})
        names = chosen[0][0].split("+")
        if all(n in words for n in names):
            parts = [words[n] for n in names]
            rules_of = _rules(notebook)
            judge.diagnosed = {"mistakes": frozenset().union(*(rules_of[n] for n in names))}
    sources = foreign(judge.calls, notebook)
    if sources:
        words = sentences(notebook, assignment, table)
        parts += [words[n] for n in sources if n in words]
    try:
        unscripted = not parts and coin_unscripted(judge.calls, judge.samples, notebook)
    except Exception:  # as above: a model that cannot follow the run tells nothing
        unscripted = False
    if unscripted:
        parts = [rules.sentence("coin_unscripted", lang)]
    if not parts and coin_where_sure(judge.calls):  # no model names it, but the run shows a coin at every position
        parts = [rules.sentence("coin_every_position", lang)]
        # the checks whose calls that model replays follow from it (causes.py replays it on each check's case)
        judge.diagnosed = {"mistakes": frozenset({"draw_every_position"})}
        error = rules.raised(judge.calls, lang)  # and a second problem, when a call raised (a division at q == 0)
        parts += [error] if error is not None else []
    predicates = shown(judge.calls)
    parts += [rules.sentence(name, lang) for name in predicates]
    predicates += sources
    if parts:
        judge.diagnosed = dict(judge.diagnosed or {}, shown=predicates)
    if not parts:  # no model: an error the function raised is what the run shows
        error = rules.raised(judge.calls, lang)
        parts = [error] if error is not None else []
    if not parts:
        return None
    frame = rules.FRAME[lang]
    text = parts[0]
    if len(parts) > 1:
        text += frame["also"].format(others=frame["sep"].join(parts[1:]))
    return text
