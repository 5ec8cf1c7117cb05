"""The power of Level 23's two checks with real randomness (issue 49): for each modelled mistake of notebook 02
(grading/judge/rules23.py, the catalogue's and the own rules'), the share of seeds under which the check fails it,
and for the right answer the share under which it fails a right answer (its false alarms). The course runs each
check under one fixed seed (2313, 2314), so a mistake's chance to lose that check is its power here; the
generated cases (grading/judge/generated.py) are deterministic and catch every mistake that differs on them.

    .venv/bin/python benchmarks/check_power.py [SEEDS]     (default 100 seeds: a minute or two of one core)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading import ROOT  # noqa: E402
from grading.judge import rules23  # noqa: E402
from grading.judge.verdicts import trusted_helpers  # noqa: E402

NB = "02_reject_and_break"
TRIALS = 4000


def main(seeds=100):
    sc = trusted_helpers(ROOT / "source" / "level23_speculative_decoding" / "spec_checks.py")
    rate_case = sc.Case([(5, 0.3, 0.75)])
    mean_case = sc.Case([(1, 0.3, 0.6), (2, 0.5, 0.5), (3, 0.2, 0.8), (4, 0.9, 0.1)])
    want_rate, want_mean = rate_case.p_over_q(0), sc.expected_length(mean_case)
    models = [("right answer", frozenset())] + sorted((n, frozenset(m)) for n, m in rules23._rules(NB).items())
    print(f"| mistake ({seeds} seeds, {TRIALS} runs each) | acceptance_rate fails | mean_length fails |")
    print("|---|---|---|")
    for name, mistakes in models:
        fails = [0, 0]
        for seed in range(1000, 1000 + seeds):
            rate = rules23._sample(rate_case, TRIALS, seed, NB, mistakes)
            mean = rules23._sample(mean_case, TRIALS, seed, NB, mistakes)
            fails[0] += rate is None or not abs(rate[0] - want_rate) <= 0.03
            fails[1] += mean is None or not abs(mean[1] - want_mean) <= 0.08
        print(f"| {name} | {fails[0] / seeds:.0%} | {fails[1] / seeds:.0%} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
