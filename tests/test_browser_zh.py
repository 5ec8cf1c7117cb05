"""The Chinese edition in a real JupyterLab whose own interface is in Chinese (zh-CN language pack).

Same path as tests/test_browser.py, on a temporary copy of release/level23_speculative_decoding_zh/:
run every notebook, answer the quizzes, use the number line and the replay, type a correct answer,
run the visible tests and press Validate. Screenshots go to test-artifacts/screenshots/*_zh.png
(and to docs/ with SAVE_DOCS_SCREENSHOTS=1).
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

import lab
from test_browser import CORRECT, DOCS, SHOTS, SOLUTION_ID, only_todo_errors, shot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ZH = "level23_speculative_decoding_zh"


@pytest.fixture(scope="module")
def lab_server_zh(tmp_path_factory):
    work = tmp_path_factory.mktemp("lab_zh")
    course = work / "course"
    shutil.copytree(ROOT / "release" / ZH, course)
    with lab.jupyter_lab(course, work / "jupyter.log", locale="zh_CN") as (url, token):
        with lab.browser() as b:
            yield b, url, token


@pytest.fixture
def page(lab_server_zh):
    b, url, token = lab_server_zh
    context = b.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
    p = context.new_page()
    yield p, url, token
    context.close()


def answer_quiz(nb, quiz_id, wrong_label, right_label, wrong_says, right_says):
    quiz = nb.page.locator(f".spec-quiz-{quiz_id}")
    quiz.scroll_into_view_if_needed()
    verdict = quiz.locator(".spec-verdict")
    expect(verdict).to_contain_text("选一个答案")
    quiz.get_by_label(wrong_label).check()
    expect(verdict).to_contain_text("不是这个")
    expect(verdict).to_contain_text(wrong_says)
    quiz.get_by_label(right_label).check()
    expect(verdict).to_contain_text("正确")
    expect(verdict).to_contain_text(right_says)
    return quiz


def test_jupyterlab_itself_is_in_chinese(page):
    p, url, token = page
    nb = lab.Notebook(p, url, token, "01_accept_branch.ipynb")
    menu = p.locator(".lm-MenuBar").first
    expect(menu).to_contain_text("文件")   # File
    expect(menu).to_contain_text("编辑")   # Edit
    expect(p.locator(".jp-MarkdownOutput").first).to_contain_text("投机解码")
    path = SHOTS / "jupyterlab_zh.png"  # the whole window: menus and notebook in Chinese
    path.parent.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(path))
    if os.environ.get("SAVE_DOCS_SCREENSHOTS"):
        shutil.copy(path, DOCS / path.name)


def test_notebook_01_in_chinese(page):
    p, url, token = page
    nb = lab.Notebook(p, url, token, "01_accept_branch.ipynb")
    nb.run_all()
    errors = only_todo_errors(nb)
    assert errors, "the visible test should fail until TODO 1 is written"
    assert "verify_draft 还没有写" in "\n".join(e for _, e in errors)  # the visible test says so, in Chinese

    quiz = answer_quiz(nb, "m1_guess", "(b) 先调用 torch.rand 再决定", "(a) 直接把 10 追加到 accepted_tokens",
                       "min(1, 0.8/0.5) = 1", "不消耗随机数")
    shot(nb, quiz, "quiz_m1_guess_zh")
    answer_quiz(nb, "m1_check", "(a) 为了把 [K, V] 转置", "(c) 既对齐草稿位置，又对齐该位置实际采样的 token",
                "索引从不转置", "同一位置")

    figures = p.locator(".jp-OutputArea-output img")
    assert figures.count() == 2
    shot(nb, figures.first, "principle_position0_zh")
    expect(p.locator(".spec-legend")).to_contain_text("草稿模型分布")

    nb.set_cell_source(SOLUTION_ID["01_accept_branch"], CORRECT["01_accept_branch"])
    nb.run_all()
    assert not nb.error_cells()
    assert p.locator(".jp-OutputArea-output").get_by_text("可见测试通过：[10] 和 [10, 20, 30]，没有调用随机数。").count() == 1


def test_notebook_02_in_chinese(page):
    p, url, token = page
    nb = lab.Notebook(p, url, token, "02_reject_and_break.ipynb")
    nb.run_all()
    only_todo_errors(nb)

    answer_quiz(nb, "m2_guess", "(b) 跳过第三项后继续验证第四项", "(a) 拒绝第三项并停止，返回前两个 token",
                "那是 continue 的做法", "结果是 [10, 20]")
    answer_quiz(nb, "m2_check", "(c) 因为 continue 会删除 target_probs",
                "(a) 后续草稿依赖当前 token 已接受的前缀，拒绝后条件上下文改变", "不会删除任何东西", "前缀就不存在了")

    line = p.locator(".spec-number-line-widget")
    line.scroll_into_view_if_needed()
    verdict = line.locator("svg .verdict")
    expect(verdict).to_contain_text("接受并继续")
    line.get_by_role("button", name="第 2 项：p/q ≈ 0.11，r = 0.9").click()
    expect(verdict).to_contain_text("拒绝并停止")
    shot(nb, line, "number_line_position2_zh")
    line.get_by_role("button", name="第 1 项：p/q = 0.8，r = 0.5").click()
    expect(verdict).to_contain_text("r = 0.50 < p/q = 0.80")

    replay = p.locator("table.spec-replay").first
    assert "不再验证" in replay.inner_text()
    shot(nb, replay, "replay_visible_test_zh")

    nb.set_cell_source(SOLUTION_ID["02_reject_and_break"], CORRECT["02_reject_and_break"])
    nb.run_all()
    assert not nb.error_cells()
    assert p.locator(".jp-OutputArea-output").get_by_text("可见测试通过：[10, 20]，抽取了 2 次。").count() == 1
    trace = p.locator(".spec-trace")
    assert "你的随机数抽取与期望一致" in trace.inner_text()
    shot(nb, p.locator(".jp-OutputArea-output", has=p.locator(".spec-trace")), "replay_your_function_zh")

    nb.save()
    p.get_by_role("button", name=re.compile("Validate|验证")).first.click()
    dialog = p.locator(".jp-Dialog")
    dialog.wait_for(timeout=120_000)
    expect(dialog).to_contain_text("Success! Your notebook passes all the tests.", timeout=120_000)
    shot(nb, dialog.locator(".jp-Dialog-content"), "validate_success_zh")
