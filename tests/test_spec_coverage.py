"""Every element of ../shared/COURSE_SPEC.md, with its exact numbers, options and diagnostics."""

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "source" / "level23_speculative_decoding"))
import spec_widgets  # noqa: E402

RELEASE = ROOT / "release" / "level23_speculative_decoding"

REQUIRED = {
    "01_accept_branch": [
        # 1. guess first
        "quiz(\"m1_guess\")",
        # 2. what you need first
        "[K, vocab_size]", "**Row `i`**", "**column `token_id`**", "`[10, 20, 30, 40]`",
        "[i, token_id].item()", "not tensor broadcasting", "min(1, p/q)", "no random\n#   number is needed",
        # 3. principle picture, legend, worked example
        "show_principle(0)", "legend()", "never the rows' maxima", "did\n# not over-recommend it",
        "`p = 0.8` and `q = 0.5`", "acceptance\n# probability is `min(1, 0.8/0.5) = 1`",
        # 4. pitfall
        "`target_probs[i].max()`", "which token does the target model like most?",
        "can the drafted token be accepted?",
        # 5-6. warm-up and mapping
        "reviewer_a = torch.tensor([[0.2, 0.8], [0.7, 0.3]])", "reviewer_b = torch.tensor([[0.1, 0.9], [0.6, 0.4]])",
        "chosen_items = [1, 0]", "enumerate(chosen_items)", "reviewer_a[i, item_id].item()", "if a >= b:",
        "| `item_id` | `token_id`", "| `reviewer_a` | `target_probs`", "| `reviewer_b` | `draft_probs`",
        "`accepted_tokens.append(token_id)`",
        # 7-10. check yourself, try it, TODO 1, diagnostics
        "quiz(\"m1_check\")", "(row 0, column 10)", "token 10 is accepted unconditionally",
        "check that you append `token_id`", "check the direction of your comparison",
    ],
    "02_reject_and_break": [
        "quiz(\"m2_guess\")",
        "Only `p < q` enters the random branch", "`torch.rand(1)` returns a tensor of shape `[1]`",
        "`.item()` turns it into\n#   a Python float", "Rejecting must `break`, not `continue`",
        "number_line()", "`p/q = 0.8`, `r = 0.5`", "`p/q ≈ 0.11`, `r = 0.9`", "Position 3 is never verified",
        "1. `r = torch.rand(1).item()`, only in this branch", "2. `if r < p / q:` append",
        "3. `else: break`, which ends the whole loop",
        "returns `0.5` on its first call\n# and `0.9` on its second", "position 0 has `p >= q` and must not use up a draw",
        "pass_rates = [0.8, 0.2, 0.9]", "draws = [0.5, 0.7, 0.1]", "print(passed)  # [0]",
        "| `rate` | `p / q`", "| `draw` | `r = torch.rand(1).item()`", "| `break` | stop verifying after a rejection",
        "| `passed` | `accepted_tokens`, in prefix order",
        "quiz(\"m2_check\")", "the result is exactly `[10, 20]`",
        "*token 40 came back after token 30 was rejected*: you used `continue`", "*position 0 used up the first draw*",
        "*position 1 was rejected with r = 0.5*: check the comparison",
        "The official problem", "show_replay(verify_draft)",
    ],
}

QUIZ_OPTIONS = {
    "m1_guess": ["Append 10 to accepted_tokens directly", "Call torch.rand first, then decide", "break at once"],
    "m1_check": ["To transpose the [K, V] matrix", "To fetch the whole vocabulary at once",
                 "To align both the draft position and the token actually drafted there"],
    "m2_guess": ["Reject position 2 and stop, returning the first two tokens",
                 "Skip position 2 and go on to verify position 3", "Accept position 2 because r is large"],
    "m2_check": ["Later drafts depend on the prefix with this token accepted, and rejecting changes that context",
                 "Because Python lists can't keep looping", "Because continue deletes target_probs"],
}


def lesson_text(name):
    return (ROOT / "lessons" / "level23_speculative_decoding" / f"{name}.py").read_text()


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_every_spec_element_is_in_the_lesson(name):
    text = lesson_text(name)
    missing = [phrase for phrase in REQUIRED[name] if phrase not in text]
    assert not missing, f"{name} lacks: {missing}"


@pytest.mark.parametrize("quiz_id", sorted(QUIZ_OPTIONS))
def test_quiz_options_are_the_spec_options_with_the_spec_answer(quiz_id):
    quiz = spec_widgets.QUIZZES[quiz_id]
    assert quiz["options"] == QUIZ_OPTIONS[quiz_id]
    assert quiz["answer"] == {"m1_guess": 0, "m1_check": 2, "m2_guess": 0, "m2_check": 0}[quiz_id]


def test_the_release_keeps_the_lesson_and_hides_only_answers_and_hidden_tests():
    for name in REQUIRED:
        nb = nbformat.read(RELEASE / f"{name}.ipynb", as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert "spec_from_file_location" not in text
        assert "pass_rates" in text or "reviewer_a" in text


@pytest.mark.parametrize("level", ["level23_speculative_decoding", "level24_residual_and_bonus"])
def test_a_helper_module_defines_each_function_once_unless_it_extends_it(level):
    """A later block of spec_checks.py that defines a name again replaces the earlier one for every notebook: only the
    wire and trace functions are extended on purpose (each keeps the one before as _base_<name>)."""
    import ast
    tree = ast.parse((ROOT / "source" / level / "spec_checks.py").read_text())
    names = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    extended = {n for n in names if f"_base_{n}" in (ROOT / "source" / level / "spec_checks.py").read_text()}
    assert sorted({n for n in names if names.count(n) > 1} - extended) == []


def test_the_message_layout_is_the_same_in_both_levels_helpers():
    """spec_checks.readable (the visible tests' message layout) lives in each level's helper module, since each
    notebook folder holds only its own level's helpers; the two copies must not drift apart."""
    def block(level):
        text = (ROOT / "source" / level / "spec_checks.py").read_text()
        start = text.index("LINE_WIDTH = ")
        end = text.index("\n\n\n", text.index("def readable(", start))
        return text[start:end]
    assert block("level23_speculative_decoding") == block("level24_residual_and_bonus")
