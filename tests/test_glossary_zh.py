"""Every Chinese text follows one glossary and one set of typesetting rules (lessons/i18n/glossary_zh.py, issue 43).

What is read: each zh edition's notebooks in source/ and release/ (markdown as the browser shows it, code comments,
and the docstrings and texts of code cells, the answer cells included), its helpers' TEXT blocks, the diagnosis
sentences (grading/judge/rules.py for both levels, the zh edition's DIAGNOSES), the grader's own messages, the
feedback page's labels and README.zh-CN.md. What is checked: no term the glossary forbids, no English prose (code
names are fine), full-width punctuation in Chinese sentences, × for products and speed-ups, one citation style,
no stray half-width space in Chinese text. What the notebooks print is checked where tests/test_notebooks.py runs
them; what the grader writes for a class of wrong answers, in tests/test_editions.py.
"""

import ast
import importlib.util
import json
import re

import nbformat
import pytest

from grading import ASSIGNMENTS, EDITIONS, ROOT, language
from grading.build import notebooks as build
from grading.judge import diagnosis, grader_text, rules
from test_i18n import bad_spaces, english_words, helper_text, prose_words, rendered

ZH = [edition for edition in EDITIONS if language(edition) == "zh"]


def glossary():
    spec = importlib.util.spec_from_file_location("_glossary_zh", ROOT / "lessons" / "i18n" / "glossary_zh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


G = glossary()


# ------------------------------------------------------------------ the checks

def forbidden_terms(text):
    text = prose_words(text)
    return [m.group() for _, (_, variants) in G.GLOSSARY.items() for v in variants for m in re.finditer(v, text)]


def punctuation_faults(text):
    text = re.sub(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|<[^>]+>", " ", text, flags=re.S)  # code and math; {blanks} stay
    return [(rule, text[max(0, m.start() - 8):m.end() + 8]) for rule, (pattern, _) in G.PUNCTUATION.items()
            for m in re.finditer(pattern, text, flags=re.M)]


def english(text):
    return english_words(text, set(G.LATIN))


def faults(text, shown=None):
    """Every fault of one text: ``shown`` is how a reader sees it (markdown rendered), for the space check."""
    out = [("term", t) for t in forbidden_terms(text)] + [("punctuation", p) for p in punctuation_faults(text)]
    out += [("English", w) for w in english(text)]
    out += [("space", s) for s in bad_spaces(text if shown is None else shown)]
    return out


# ------------------------------------------------------------------ the texts

def code_texts(source):
    """(what, text) of a code cell's comments, docstrings and other string literals a reader sees."""
    out = []
    for line in source.split("\n"):
        m = build._COMMENT.match(line)
        if m and not m.group("sep").startswith("##") and m.group("text").strip():
            out.append(("comment", m.group("text")))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):  # docstrings, and any text of three words or more (data such as "the " is code)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                id(node) in docstrings or re.search(r"[A-Za-z]+ +[A-Za-z]+ +[A-Za-z]+", node.value)):
            out.append(("string", node.value))
    return out


def notebook_texts(folder, edition):
    out = []
    for name in ASSIGNMENTS[edition]:
        nb = nbformat.read(ROOT / folder / edition / f"{name}.ipynb", as_version=4)
        for k, cell in enumerate(nb.cells):
            where = f"{folder}/{edition}/{name} cell {k}"
            if cell.cell_type == "markdown":
                out.append((where, cell.source, rendered(cell.source)))
            else:
                out += [(f"{where} {what}", text, None) for what, text in code_texts(cell.source)]
    return out


def strings(value, where, out):
    if isinstance(value, str):
        out.append((where, value, None))
    elif isinstance(value, dict):
        for key, v in value.items():
            if key not in ("lang", "fonts"):
                strings(v, f"{where}[{key!r}]", out)
    elif isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            strings(v, f"{where}[{k}]", out)
    return out


def filled(text):
    """A message as a reader sees it: each {blank} filled with a number (the check for spaces needs it whole)."""
    return re.sub(r"\{[^{}]*\}", "3", text)


def message_texts(edition):
    out = []
    for folder in ("source", "release"):
        for path in sorted((ROOT / folder / edition).glob("*.py")):  # spec_checks, spec_widgets, spec_quiz, tiny_lm
            if (block := build.text_block(path.read_text())) is not None:
                strings(block[1], f"{folder}/{edition}/{path.stem}", out)
    words, translated = diagnosis.texts(edition)
    strings(words, "diagnosis frame", out)
    strings(translated or {}, "DIAGNOSES", out)
    strings(grader_text.words(edition), "grader", out)
    return [(where, text, filled(text)) for where, text, _ in out]


def rule_texts():
    out = strings({rule: zh for rule, (_, zh) in rules.SENTENCES.items()}, "rules.SENTENCES", [])
    strings(rules.FRAME["zh"], "rules.FRAME", out)
    return [(where, text, filled(text)) for where, text, _ in out]


def label_texts():
    labels = json.loads((ROOT / "grading" / "templates" / "labels.json").read_text())["zh"]
    return strings(labels, "labels.json", [])


def readme_texts():
    text = (ROOT / "README.zh-CN.md").read_text()
    return [("README.zh-CN.md", text, rendered(text))]


def all_faults(texts):
    return [(where, found) for where, text, shown in texts if (found := faults(text, shown))]


# ------------------------------------------------------------------ the tests

@pytest.mark.parametrize("folder", ["source", "release"])
@pytest.mark.parametrize("edition", ZH)
def test_notebooks_follow_the_glossary_and_the_rules(edition, folder):
    found = all_faults(notebook_texts(folder, edition))
    assert not found, found[:10]


@pytest.mark.parametrize("edition", ZH)
def test_helper_messages_diagnoses_and_grader_messages_follow_the_glossary_and_the_rules(edition):
    found = all_faults(message_texts(edition))
    assert not found, found[:10]


def test_diagnosis_sentences_follow_the_glossary_and_the_rules():
    found = all_faults(rule_texts())
    assert not found, found[:10]


def test_feedback_labels_and_readme_follow_the_glossary_and_the_rules():
    found = all_faults(label_texts() + readme_texts())
    assert not found, found[:10]


def test_the_chinese_handbook_follows_the_glossary_and_the_rules():
    """docs/zh/*.md: terms, punctuation and spaces (it quotes English interface strings, so English is not a fault)."""
    found = []
    for path in sorted((ROOT / "docs" / "zh").glob("*.md")):
        text = path.read_text()
        found += [(path.name, f) for f in faults(text, rendered(text)) if f[0] != "English"]
    assert not found, found[:10]


def test_every_check_can_fail():
    assert ("term", "奖励") in faults("第 K 行是奖励行")
    assert forbidden_terms("被起草之后") and forbidden_terms("给全部位置打分") and forbidden_terms("把缓存回退到 n")
    assert forbidden_terms("贪心投机给出同样的文本") and forbidden_terms("这就是投机采样")
    assert not forbidden_terms("*投机采样*（speculative sampling）") and not forbidden_terms("投机解码把缓存裁剪到 n")
    assert forbidden_terms("取被拒绝的位置 N 那一行") and forbidden_terms("真实模型对：α 随 T 的变化")
    assert forbidden_terms("用 `cache.crop(n)` 回滚") and not forbidden_terms("用 x.append(t) 追加")
    assert punctuation_faults("加速比 1.68x") and punctuation_faults("一张 128 x 128 的表")
    assert punctuation_faults("一张 {rows} x {columns} 的表") and punctuation_faults("加速比 {speedup}x")
    assert not punctuation_faults("加速比 1.68×，一张 128 × 128 的表，x 轴")
    assert punctuation_faults("Leviathan 等人 (2023)") and punctuation_faults("Leviathan 等人 2023，定理 3.8")
    assert punctuation_faults("Chen 等（2023") and not punctuation_faults("Leviathan 等（2023）的定理 3.8")
    assert punctuation_faults("诊断：无：你的函数") and punctuation_faults("模型(3 层)") and punctuation_faults("接受, 然后")
    assert not punctuation_faults("调用 `f(x, y)`：接受") and not punctuation_faults("p = 0.5, q = 0.2")
    assert english("It is the chance of a gap") and not english("用 torch.multinomial(weights, 1) 抽取一个 token")
    assert bad_spaces(filled("{function} 抛出了 {error}").replace("3", "你的函数", 1))
    assert bad_spaces("检查未通过。 AssertionError：得到 3") and bad_spaces(rendered("第一行，\n第二行"))
    assert ("English", "Return") in faults('"""Return the accepted prefix."""'.strip('"'))
    # kinds of mistakes a native reader found in Level 24 (issue 43, second reading)
    assert forbidden_terms("目标模型一次调用就给 K + 1 个位置打了分") and not forbidden_terms("两位评审给两件商品打分")
    assert forbidden_terms("抽取约定：保留给定的循环") and forbidden_terms("torch.multinomial 被要求抽取 2 个样本")
    assert not forbidden_terms("不要改动写好的循环；torch.multinomial 一次抽取了 2 个样本")
    assert punctuation_faults("诊断：……（另外：草稿为空（K = 0）时你的函数抛出错误）")
    assert not punctuation_faults("（见 Leviathan 等（2023）的定理 3.8。）") and not punctuation_faults("（另外：草稿为空时你的函数会报错）")
    assert code_texts('def f():\n    """Return the accepted prefix, as a list."""\n    # keep it\n    return 1') == [
        ("comment", "keep it"), ("string", "Return the accepted prefix, as a list.")]


def feedback_page(assignment, notebook, score, max_score):
    """The feedback page of ``notebook`` as the course's exporter renders it (as generate_feedback does), every
    check at 0 points, with no grading run; its text as the browser shows it."""
    from traitlets.config import Config

    from grading.plugins.preprocessors import PageExporter

    config = Config()
    PageExporter.configure(config)
    nb = nbformat.read(ROOT / "release" / assignment / f"{notebook}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader["score"] = 0
    resources = {"nbgrader": {"assignment": assignment, "notebook": notebook, "student": "ada",
                              "score": score, "max_score": max_score, "late_penalty": 0}}
    page, _ = PageExporter(config=config).from_notebook_node(nb, resources)
    import html

    heading = re.search(r"<h4>(.*?)</h4>", page, flags=re.S).group(1)
    text = re.sub(r"<style.*?</style>|<script.*?</script>", "", page, flags=re.S)
    return heading, html.unescape(re.sub(r"<[^>]+>", "", text))


@pytest.mark.parametrize("edition", ZH)
def test_the_feedback_page_writes_scores_and_its_own_words_in_chinese_punctuation(edition):
    notebook = ASSIGNMENTS[edition][0]
    heading, text = feedback_page(edition, notebook, 8, 14)
    assert heading == f"{notebook}（得分：8 / 14）"
    assert re.search(r"得分：0 / 1\s*（返回顶部）", text) and "评分单元格：" in text
    assert not re.search(r"得分: |\(返回顶部\)|\d\.0 / |评分单元格:", text)
    english_heading, _ = feedback_page(EDITIONS[edition][0], notebook, 8, 14)
    assert english_heading == f"{notebook} (Score: 8.0 / 14.0)"  # the English page as it was


def test_a_failed_check_says_your_function_with_no_space_before_the_chinese_verb():
    """"{function} 抛出了 {error}": a space after verify_drafts, none after 你的函数 (spec_checks.typeset)."""
    from test_i18n import load_helper

    zh = load_helper("level24_residual_and_bonus_zh", "spec_checks")
    for function, want in [(zh.TEXT["your_function"], "你的函数抛出了 KeyError。"),
                           ("verify_drafts", "verify_drafts 抛出了 KeyError。")]:
        with pytest.raises(AssertionError) as failed:
            zh.check(zh.TEXT["problem"]["raised"].format(function=function, error="KeyError"))
        assert str(failed.value) == want and not bad_spaces(str(failed.value))
    english = load_helper("level24_residual_and_bonus", "spec_checks")
    with pytest.raises(AssertionError, match="^your function raised KeyError"):
        english.check(english.TEXT["problem"]["raised"].format(function=english.TEXT["your_function"], error="KeyError"))


def test_the_model_pairs_own_errors_are_in_the_editions_words():
    """A crop past the cache's end (a wrong verify_drafts meets it in notebook 03) raises in the edition's language."""
    from test_i18n import load_helper

    zh, english = (load_helper(a, "tiny_lm") for a in ("level24_residual_and_bonus_zh", "level24_residual_and_bonus"))
    with pytest.raises(ValueError) as raised:
        zh.KVCache().crop(5)
    assert str(raised.value) == "无法把保存了 0 个位置的缓存裁剪到 5 个位置" and not faults(str(raised.value))
    with pytest.raises(ValueError, match="^cannot crop a cache of 0 positions to 5$"):
        english.KVCache().crop(5)


def quiz_verdicts(edition):
    """{quiz id: [the word each answer's explanation opens with]} of an edition's spec_widgets TEXT."""
    quizzes = build.text_block((ROOT / "source" / edition / "spec_widgets.py").read_text())[1]["quiz"]
    return {quiz: [re.match(r"[^:：]*", why).group() for why in q["why"]] for quiz, q in quizzes.items()}


@pytest.mark.parametrize("edition", ZH)
def test_every_quiz_explanation_opens_with_its_verdict_as_the_english_does(edition):
    """The English says "Right:" or "Not quite:" before each explanation; the Chinese says 正确： or 不对： (Level 24's
    first reading had no verdict word: the student saw only ✘ before an explanation that read like the right one)."""
    english = quiz_verdicts(EDITIONS[edition][0])
    for quiz, words in quiz_verdicts(edition).items():
        for k, (en, zh) in enumerate(zip(english[quiz], words)):
            if en in ("Right", "Not quite"):
                assert zh == {"Right": "正确", "Not quite": "不对"}[en], (quiz, k, zh)
