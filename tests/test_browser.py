"""The student's experience in a real JupyterLab, in headless Chromium, in every edition.

Starts `jupyter lab` on 127.0.0.1 with a fresh token on a temporary copy of the edition's release/
folder (the Chinese edition with JupyterLab's own interface set to zh-CN, as `make lab LANG=zh`),
runs every notebook, answers the quizzes, moves the number line, types a correct answer, runs
the visible tests and presses nbgrader's Validate button. Level 24's folder is copied beside the
English Level 23's notebooks in the same server: its derivation picture, the histograms and the
speed-up widget are checked the same way (Level 24 has no Chinese edition yet).

Screenshots go to test-artifacts/screenshots/ (and to docs/ with SAVE_DOCS_SCREENSHOTS=1); the
Chinese edition's end in _zh.
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

import lab
from grading import ASSIGNMENT
from grading.build import catalogue

LEVEL24 = "level24_residual_and_bonus"

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
DOCS = ROOT / "docs"

if not lab.chromium_path():
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser test: install Debian's chromium (apt-get install chromium)")
    pytest.skip("no chromium: install it with `apt-get install chromium` to run the browser test",
                allow_module_level=True)

CORRECT = {nb: next(a for a in catalogue.load(nb) if a.name == "correct_for_enumerate").code
           for nb in ("01_accept_branch", "02_reject_and_break")}
SOLUTION_ID = {"01_accept_branch": "verify_draft_m1", "02_reject_and_break": "verify_draft"}
CORRECT_24 = {"01_correction_token": ("verify_and_correct", "correct_clamp"),
              "02_bonus_and_step": ("speculative_step", "correct_for_enumerate")}

# What each edition shows. Quizzes: (wrong option, right option, words of the wrong verdict, of the right one).
EDITIONS = {
    "en": dict(
        assignment=ASSIGNMENT, locale=None, suffix="",
        pick="Pick an answer", wrong="✘ Not quite:", right="✔ Right:",
        m1_guess=("(b) Call torch.rand first, then decide", "(a) Append 10 to accepted_tokens directly",
                  "min(1, 0.8/0.5) = 1", "no random number is spent"),
        m1_check=("(a) To transpose the [K, V] matrix",
                  "(c) To align both the draft position and the token actually drafted there",
                  "indexing never transposes", "same token at the same place"),
        m2_guess=("(b) Skip position 2 and go on to verify position 3",
                  "(a) Reject position 2 and stop, returning the first two tokens", "that is what continue would do",
                  "The result is [10, 20]"),
        m2_check=("(c) Because continue deletes target_probs",
                  "(a) Later drafts depend on the prefix with this token accepted, and rejecting changes that context",
                  "deletes nothing", "no longer exists"),
        todo="NotImplementedError", legend="the draft model's probabilities",
        m1_passed="Visible test passed: [10] and [10, 20, 30], with no random draw.",
        m2_passed="Visible test passed: [10, 20], with 2 draws.",
        accept="accept and continue", reject="reject and stop",
        preset_1="Position 1: p/q = 0.8, r = 0.5", preset_2="Position 2: p/q ≈ 0.11, r = 0.9",
        never="never verified", match="Your draws match the expected ones"),
    "zh": dict(
        assignment="level23_speculative_decoding_zh", locale="zh_CN", suffix="_zh",
        pick="选一个答案", wrong="✘ 不对：", right="✔ 正确：",
        m1_guess=("(b) 先调用 torch.rand 再决定", "(a) 直接把 10 追加到 accepted_tokens", "min(1, 0.8/0.5) = 1", "不消耗随机数"),
        m1_check=("(a) 为了把 [K, V] 转置", "(c) 既对齐草稿位置，又对齐该位置实际采样的 token", "索引从不转置", "同一位置"),
        m2_guess=("(b) 跳过第三项后继续验证第四项", "(a) 拒绝第三项并停止，返回前两个 token", "那是 continue 的做法",
                  "结果是 [10, 20]"),
        m2_check=("(c) 因为 continue 会删除 target_probs", "(a) 后续草稿依赖当前 token 已接受的前缀，拒绝后条件上下文改变",
                  "不会删除任何东西", "前缀就不存在了"),
        todo="verify_draft 还没有写", legend="草稿模型分布",
        m1_passed="可见测试通过：[10] 和 [10, 20, 30]，没有抽随机数。",
        m2_passed="可见测试通过：[10, 20]，抽取了 2 次。",
        accept="接受并继续", reject="拒绝并停止",
        preset_1="位置 1：p/q = 0.8，r = 0.5", preset_2="位置 2：p/q ≈ 0.11，r = 0.9",
        never="不再验证", match="你的随机数抽取与期望一致"),
}


def shot(nb, locator, name):
    nb.shot(locator, SHOTS / f"{name}.png")
    if os.environ.get("SAVE_DOCS_SCREENSHOTS"):
        DOCS.mkdir(exist_ok=True)
        shutil.copy(SHOTS / f"{name}.png", DOCS / f"{name}.png")


@pytest.fixture(scope="module", params=list(EDITIONS))
def lab_server(request, tmp_path_factory):
    words = EDITIONS[request.param]
    work = tmp_path_factory.mktemp(f"lab_{request.param}")
    course = work / "course"
    shutil.copytree(ROOT / "release" / words["assignment"], course)
    if words["assignment"] == ASSIGNMENT:
        shutil.copytree(ROOT / "release" / LEVEL24, course / LEVEL24)
    with lab.jupyter_lab(course, work / "jupyter.log", locale=words["locale"]) as (url, token):
        with lab.browser() as b:
            yield b, url, token, words


@pytest.fixture
def page(lab_server):
    b, url, token, words = lab_server
    context = b.new_context(viewport={"width": 1400, "height": 1000})
    p = context.new_page()
    yield p, url, token, words
    context.close()


def answer_quiz(nb, words, quiz_id):
    wrong_label, right_label, wrong_says, right_says = words[quiz_id]
    quiz = nb.page.locator(f".spec-quiz-{quiz_id}")
    quiz.scroll_into_view_if_needed()
    verdict = quiz.locator(".spec-verdict")  # re-rendered on every change: always look it up again
    expect(verdict).to_contain_text(words["pick"])
    quiz.get_by_label(wrong_label).check()
    expect(verdict).to_contain_text(words["wrong"])
    expect(verdict).to_contain_text(wrong_says)
    quiz.get_by_label(right_label).check()
    expect(verdict).to_contain_text(words["right"])
    expect(verdict).to_contain_text(right_says)
    return quiz


def only_todo_errors(nb):
    errors = nb.error_cells()
    unexpected = [(i, e) for i, e in errors if "NotImplementedError" not in e]
    assert not unexpected, f"cells show errors: {unexpected}"
    return errors


def test_jupyterlab_speaks_the_editions_language(page):
    p, url, token, words = page
    nb = lab.Notebook(p, url, token, "01_accept_branch.ipynb")
    menu = p.locator(".lm-MenuBar").first
    expect(menu).to_contain_text("文件" if words["locale"] == "zh_CN" else "File")
    if words["locale"]:
        expect(menu).to_contain_text("编辑")
        expect(p.locator(".jp-MarkdownOutput").first).to_contain_text("投机解码")
        path = SHOTS / f"jupyterlab{words['suffix']}.png"  # the whole window: menus and lesson in Chinese
        path.parent.mkdir(parents=True, exist_ok=True)
        p.screenshot(path=str(path))
        if os.environ.get("SAVE_DOCS_SCREENSHOTS"):
            shutil.copy(path, DOCS / path.name)
    assert nb.name == "01_accept_branch.ipynb"


def test_notebook_01_in_jupyterlab(page):
    p, url, token, words = page
    nb = lab.Notebook(p, url, token, "01_accept_branch.ipynb")
    nb.run_all()
    errors = only_todo_errors(nb)
    assert errors, "the visible test should fail until TODO 1 is written"
    assert words["todo"] in "\n".join(e for _, e in errors)

    quiz = answer_quiz(nb, words, "m1_guess")
    shot(nb, quiz, "quiz_m1_guess" + words["suffix"])
    answer_quiz(nb, words, "m1_check")

    figures = p.locator(".jp-OutputArea-output img")
    assert figures.count() == 2
    shot(nb, figures.first, "principle_position0" + words["suffix"])
    expect(p.locator(".spec-legend")).to_contain_text(words["legend"])

    nb.set_cell_source(SOLUTION_ID["01_accept_branch"], CORRECT["01_accept_branch"])
    nb.run_all()
    assert not nb.error_cells()
    assert p.locator(".jp-OutputArea-output").get_by_text(words["m1_passed"]).count() == 1


def test_notebook_02_in_jupyterlab(page):
    p, url, token, words = page
    nb = lab.Notebook(p, url, token, "02_reject_and_break.ipynb")
    nb.run_all()
    only_todo_errors(nb)

    answer_quiz(nb, words, "m2_guess")
    answer_quiz(nb, words, "m2_check")

    line = p.locator(".spec-number-line-widget")
    line.scroll_into_view_if_needed()
    verdict = line.locator("svg .verdict")
    expect(verdict).to_contain_text(words["accept"])
    line.get_by_role("button", name=words["preset_2"]).click()
    expect(verdict).to_contain_text(words["reject"])
    expect(verdict).to_contain_text("0.11")
    shot(nb, line, "number_line_position2" + words["suffix"])
    line.get_by_role("button", name=words["preset_1"]).click()
    expect(verdict).to_contain_text("r = 0.50 < p/q = 0.80")
    shot(nb, line, "number_line_position1" + words["suffix"])
    # Move the r slider with the keyboard: each ArrowRight adds one step (0.01).
    handle = line.locator(".widget-slider").nth(2).locator(".noUi-handle")
    handle.focus()
    for _ in range(35):
        p.keyboard.press("ArrowRight")
    expect(verdict).to_contain_text(words["reject"])

    replay = p.locator("table.spec-replay").first
    assert words["never"] in replay.inner_text()
    shot(nb, replay, "replay_visible_test" + words["suffix"])

    nb.set_cell_source(SOLUTION_ID["02_reject_and_break"], CORRECT["02_reject_and_break"])
    nb.run_all()
    assert not nb.error_cells()
    assert p.locator(".jp-OutputArea-output").get_by_text(words["m2_passed"]).count() == 1
    trace = p.locator(".spec-trace")
    assert words["match"] in trace.inner_text()
    shot(nb, p.locator(".jp-OutputArea-output", has=p.locator(".spec-trace")), "replay_your_function" + words["suffix"])

    nb.save()
    p.get_by_role("button", name=re.compile("Validate|验证")).first.click()
    dialog = p.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    expect(dialog).to_contain_text("Success! Your notebook passes all the tests.", timeout=120_000)
    shot(nb, dialog.locator(".jp-Dialog-content"), "validate_success" + words["suffix"])


def level24_answer(notebook):
    grade_id, name = CORRECT_24[notebook]
    return grade_id, next(a for a in catalogue.load(notebook, LEVEL24) if a.name == name).code


def english_only(words):
    """Level 24 has no Chinese edition yet: its notebooks are served beside the English Level 23's."""
    if words["assignment"] != ASSIGNMENT:
        pytest.skip("Level 24 has only its English edition")


def quiz24(nb, words, quiz_id, *labels_and_says):
    """answer_quiz for a Level 24 quiz: (wrong option, right option, words of the wrong verdict, of the right one)."""
    return answer_quiz(nb, dict(words, **{quiz_id: labels_and_says}), quiz_id)


def test_level24_notebook_01_in_jupyterlab(page):
    p, url, token, words = page
    english_only(words)
    nb = lab.Notebook(p, url, token, f"{LEVEL24}/01_correction_token.ipynb")
    nb.run_all()
    assert only_todo_errors(nb), "the visible test should fail until the TODO is written"
    quiz24(nb, words, "l24_guess", "(a) From p, the target's row", "(c) From the residual max(0, p - q), normalised",
           "get too much", "fills the gap")
    quiz24(nb, words, "l24_check", "(b) 0.6", "(a) 0.4", "probability of accepting", "P(reject) = 1 - 0.6 = 0.4")
    table = p.locator("table.spec-exactness")
    assert "0.50" in table.inner_text()
    figures = p.locator(".jp-OutputArea-output img")
    assert figures.count() == 1
    shot(nb, figures.first, "level24_exactness")

    grade_id, code = level24_answer("01_correction_token")
    nb.set_cell_source(grade_id, code)
    nb.run_all()
    assert not nb.error_cells()
    assert p.locator(".jp-OutputArea-output").get_by_text("Visible test passed: [0, 2]", exact=False).count() == 1


def test_level24_notebook_02_in_jupyterlab(page):
    p, url, token, words = page
    english_only(words)
    nb = lab.Notebook(p, url, token, f"{LEVEL24}/02_bonus_and_step.ipynb")
    nb.run_all()
    assert only_todo_errors(nb), "the visible test should fail until the TODOs are written"
    quiz24(nb, words, "l24_bonus_guess", "(a) target_probs[2], the last drafted position", "(b) target_probs[3], row K",
           "already accepted", "comes free")

    grade_id, code = level24_answer("02_bonus_and_step")
    nb.set_cell_source(grade_id, code)
    nb.run_all()  # the experiment and the speed-up ran before the visible test; now the cells that call the step run too
    assert not nb.error_cells()
    outputs = p.locator(".jp-OutputArea-output")
    assert outputs.get_by_text("Visible test passed: [0, 2] after a rejection", exact=False).count() == 1
    expect(outputs.get_by_text("speculative sampling   TV distance", exact=False)).to_have_count(1)
    histograms = p.locator(".jp-OutputArea-output img")
    assert histograms.count() == 2  # the histograms, then the best K against α
    shot(nb, histograms.first, "level24_histograms")

    widget = p.locator(".spec-speedup-widget")
    widget.scroll_into_view_if_needed()
    verdict = widget.locator("svg .verdict")
    expect(verdict).to_contain_text("K = 4:")
    widget.get_by_role("button", name="EnDe, t = 0 (greedy): α = 0.75").click()
    expect(verdict).to_contain_text("K = 7: 3.60 tokens per target call, speed-up 3.16×; best K = 9")
    shot(nb, widget, "level24_speedup")
    handle = widget.locator(".widget-slider").nth(1).locator(".noUi-handle")  # K
    handle.focus()
    for _ in range(2):
        p.keyboard.press("ArrowLeft")
    expect(verdict).to_contain_text("K = 5:")
    quiz24(nb, words, "l24_speed_check", "(a) It grows without limit", "(b) It grows towards 1 / (1 - α) = 5",
           "stays below", "has a best K")

    nb.save()
    p.get_by_role("button", name="Validate").first.click()
    dialog = p.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    expect(dialog).to_contain_text("Success! Your notebook passes all the tests.", timeout=120_000)
