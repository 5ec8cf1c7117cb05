"""The editions of the course (grading.EDITIONS): one source, the same code, the text in each language.

The Chinese edition (level23_speculative_decoding_zh) is built from the English lessons and helpers
with the text of lessons/i18n/level23_speculative_decoding_zh.py. These tests keep the two apart in
words and together in code; its grading is tested with the rest of the catalogue (graded_course).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grading import ASSIGNMENTS, EDITIONS, ROOT, language, template
from grading.build import notebooks as build, catalogue
from grading.judge import diagnosis, grader_text

PAIRS = [(edition, base) for edition, (base, _) in EDITIONS.items()]
HELPER_MODULES = ["spec_checks", "spec_widgets", "spec_quiz"]  # each with a TEXT block
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def notebooks(folder, assignment):
    return {name: nbformat.read(ROOT / folder / assignment / f"{name}.ipynb", as_version=4)
            for name in ASSIGNMENTS[assignment]}


def without_comments(source):
    """The code of a cell, every comment dropped (nbgrader's ### markers kept)."""
    lines = []
    for line in source.split("\n"):
        m = build._COMMENT.match(line)
        if m and not m.group("sep").startswith("##"):
            line = m.group("code").rstrip()
        lines.append(line)
    return "\n".join(lines)


def same_code(source):
    """The code without comments, and with the release's code stub message (in the edition's language) blanked."""
    return re.sub(r'raise NotImplementedError\(".*"\)', 'raise NotImplementedError("")', without_comments(source))


def strings_of(assignment):
    """The edition's STRINGS (the texts its code cells print), {} for an English one."""
    return getattr(build.load_i18n(assignment), "STRINGS", {}) if language(assignment) != "en" else {}


def helper_text(assignment, module):
    return build.text_block((ROOT / "source" / assignment / f"{module}.py").read_text())


# ------------------------------------------------------------------ one source

def test_every_edition_is_built_from_the_current_lessons_and_helpers():
    assert build.main(["--check"]) == 0, "run `make notebooks`"


@pytest.mark.parametrize("folder", ["source", "release"])
@pytest.mark.parametrize("edition,base", PAIRS)
def test_editions_have_the_same_code_tests_grade_ids_and_points(edition, base, folder):
    assert ASSIGNMENTS[edition] == ASSIGNMENTS[base]
    ours, theirs = notebooks(folder, edition), notebooks(folder, base)
    for name in ASSIGNMENTS[base]:
        a, b = ours[name].cells, theirs[name].cells
        assert [c.cell_type for c in a] == [c.cell_type for c in b], name
        for k, (x, y) in enumerate(zip(a, b)):
            meta = [{k: v for k, v in c.metadata.get("nbgrader", {}).items() if k != "checksum"} for c in (x, y)]
            assert meta[0] == meta[1], f"{name} cell {k}: nbgrader metadata"  # checksums cover the comments too
            if x.cell_type == "code":  # solutions, visible and hidden tests included
                y_source = build._translate_strings(y.source, strings_of(edition), name)  # the only text in code
                assert same_code(x.source) == same_code(y_source), f"{name} cell {k} differs in code"


def test_the_code_comparison_can_fail():
    assert without_comments("x = 1  # one") == without_comments("x = 1  # 一")
    assert without_comments("x = 1") != without_comments("x = 2")
    assert without_comments("### BEGIN HIDDEN TESTS") == "### BEGIN HIDDEN TESTS"


@pytest.mark.parametrize("module", HELPER_MODULES)
@pytest.mark.parametrize("edition,base", PAIRS)
def test_helper_copies_differ_only_in_their_text(edition, base, module):
    before, _, after = helper_text(edition, module)
    base_before, _, base_after = helper_text(base, module)
    assert before == base_before and after == base_after
    assert (ROOT / "release" / edition / f"{module}.py").read_text() == \
        (ROOT / "source" / edition / f"{module}.py").read_text()


@pytest.mark.parametrize("module", HELPER_MODULES)
@pytest.mark.parametrize("edition,base", PAIRS)
def test_every_message_id_has_a_text_in_both_languages(edition, base, module):
    english, translated = helper_text(base, module)[1], helper_text(edition, module)[1]
    assert english["lang"] == "en" and translated["lang"] == language(edition)
    assert build.compare_texts(english, translated) == []


def test_a_missing_or_reworded_message_is_caught():
    english = {"a": "got {tokens}", "b": ["x", "y"]}
    assert build.compare_texts(english, {"a": "得到 {tokens}", "b": ["甲", "乙"]}) == []
    assert build.compare_texts(english, {"a": "得到", "b": ["甲", "乙"]})          # a blank lost
    assert build.compare_texts(english, {"b": ["甲", "乙"]})                      # an id missing
    assert build.compare_texts(english, {"a": "得到 {tokens}", "b": ["甲"]})      # an option missing


@pytest.mark.parametrize("edition,base", PAIRS)
def test_every_catalogue_mistake_has_its_diagnosis_in_every_language(edition, base):
    words, translated = diagnosis.texts(edition)
    assert set(words) == {"prefix", "none", "unknown", "not_made"}
    assert catalogue.load(assignment=base)
    for a in catalogue.load(assignment=base):
        if not a.full_marks and translated is None:  # diagnosed by rules: the rule has a sentence in the language
            from grading.judge import rules
            assert rules.SENTENCES[a.diagnosis][1], f"no {language(edition)} sentence for rule {a.diagnosis}"
        elif not a.full_marks and a.diagnosis in {en for en, _ in rules_sentences()}:
            # a mistake the run shows directly, named in grading/judge/rules.py's words (both languages): no second copy
            assert a.name not in translated[a.notebook], f"{a.notebook}/{a.name}: its sentence is grading/judge/rules.py's"
        elif not a.full_marks:
            assert translated[a.notebook].get(a.name), f"no {language(edition)} diagnosis for {a.notebook}/{a.name}"


def rules_sentences():
    from grading.judge import rules
    return rules.SENTENCES.values()


def test_a_changed_english_cell_stops_the_build(tmp_path, monkeypatch):
    lesson = build.lesson_path("01_accept_branch").read_text()
    (tmp_path / "lessons" / PAIRS[0][1]).mkdir(parents=True)
    (tmp_path / "lessons" / PAIRS[0][1] / "01_accept_branch.py").write_text(lesson.replace("## Today's idea", "## Today's idea!"))
    (tmp_path / "lessons" / "i18n").symlink_to(ROOT / "lessons" / "i18n")
    monkeypatch.setattr(build, "ROOT", tmp_path)
    with pytest.raises(build.TranslationError, match="'idea' of 01_accept_branch changed"):
        build.build("01_accept_branch", PAIRS[0][0])


# ------------------------------------------------------------------ each edition in its own words

def english_sentences(text):
    """Runs of four or more English words in ``text``, once code, math, HTML and blanks are taken out."""
    text = re.sub(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|<[^>]+>|\{[^}]*\}", " ", text, flags=re.S)
    text = re.sub(r"\b\w*[_.()\[\]]\w*[\w.()\[\]]*", " ", text)  # identifiers: draft_probs, torch.rand(1)
    return re.findall(r"[A-Za-z]+(?:[ ,'’-]+[A-Za-z]+){3,}", text)


def prose_of(assignment):
    """(where, text) of everything a student reads in an edition: markdown, code comments, helper texts."""
    out = []
    for name, nb in notebooks("source", assignment).items():
        for k, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                out.append((f"{name} cell {k}", cell.source))
            else:
                for line in cell.source.split("\n"):
                    m = build._COMMENT.match(line)
                    if m and not m.group("sep").startswith("##"):
                        out.append((f"{name} cell {k} comment", m.group("text")))

    def strings(value, where):
        if isinstance(value, str):
            out.append((where, value))
        elif isinstance(value, dict):
            for key, v in value.items():
                if key not in ("lang", "fonts"):
                    strings(v, f"{where}[{key!r}]")
        elif isinstance(value, list):
            for k, v in enumerate(value):
                strings(v, f"{where}[{k}]")

    for module in HELPER_MODULES:
        strings(helper_text(assignment, module)[1], module)
    words, translated = diagnosis.texts(assignment)
    strings(words, "diagnosis")
    strings(translated or {}, "diagnoses")
    strings(strings_of(assignment), "STRINGS")
    strings(grader_text.words(assignment), "grader")
    return out


# ------------------------------------------------------------------ Chinese as a Chinese reader reads it

ZH = [edition for edition in EDITIONS if language(edition) == "zh"]
FULL_WIDTH = "\u3000-\u303f\uff00-\uffef"
# One space (what a hard-wrapped line renders as, or a typed one); a run of spaces that lines up a printed
# table's columns is layout, not a stray space.
BAD_SPACE = re.compile(f"(?<=[{build.CJK}]) (?=[{build.CJK}])|(?<=[{FULL_WIDTH}]) (?! )|(?<! ) (?=[{FULL_WIDTH}])")


def zh_text(name):
    """GLOSSARY or LATIN of lessons/i18n/glossary_zh.py: one course, one vocabulary for every zh edition (issue 43)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_glossary_zh", ROOT / "lessons" / "i18n" / "glossary_zh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.GLOSSARY) if name == "GLOSSARY" else set(module.LATIN)


# Tags whose text a browser shows apart from its neighbours' (a static widget's SVG puts each label in a <text>).
BLOCKS = ("p", "li", "td", "th", "h1", "h2", "h3", "h4", "summary", "div", "figcaption", "text", "title", "pre")


def rendered(markdown):
    """The text of ``markdown`` as the browser shows it: each block's line breaks become spaces, each
    code span one Latin letter (what matters is what stands next to it)."""
    from html.parser import HTMLParser

    import mistune

    class Text(HTMLParser):
        blocks, current, in_code = [], [], 0

        def handle_starttag(self, tag, attrs):
            if tag in BLOCKS + ("details", "blockquote"):
                self.flush()
            self.in_code += tag == "code"

        def handle_endtag(self, tag):
            if tag == "code":
                self.in_code -= 1
                self.current.append("x")
            elif tag in BLOCKS:
                self.flush()

        def handle_data(self, data):
            if not self.in_code:
                self.current.append(data)

        def flush(self):
            text = re.sub(r"\s+", " ", "".join(self.current)).strip()
            if text:
                self.blocks.append(text)
            self.current = []

    parser = Text()
    parser.blocks = []
    parser.feed(mistune.html(re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", "x", markdown, flags=re.S)))
    parser.flush()
    return "\n".join(parser.blocks)


def bad_spaces(text):
    return [text[max(0, m.start() - 6):m.end() + 6] for m in BAD_SPACE.finditer(text)]


def shown_texts(edition):
    """(where, text as shown) of everything a student reads: markdown rendered, every other text as it is."""
    out = []
    for where, text in prose_of(edition):
        out.append((where, rendered(text) if re.search(r"cell \d+$", where) else text))
    return out


def test_the_space_finder_finds_what_a_reader_sees():
    assert bad_spaces(rendered("本关讲的就是这次检查，\n也就是验证步骤")) and bad_spaces("比较， 不是张量广播")
    assert bad_spaces(rendered("读取 `p`，\n草稿模型给出")) and bad_spaces(rendered("第一行\n第二行"))
    assert not bad_spaces(rendered("读取 `p` 和 `q`，草稿模型\n\n- 第一项\n- 第二项\n\n| 甲 | 乙 |\n|---|---|\n| 丙 | 丁 |"))
    assert not bad_spaces("位置 2：p = 0.1") and not bad_spaces(rendered("## 标题\n\n正文"))


@pytest.mark.parametrize("edition", ZH)
def test_no_space_between_chinese_characters_or_next_to_full_width_punctuation(edition):
    found = [(where, hits) for where, text in shown_texts(edition) if (hits := bad_spaces(text))]
    assert not found, found[:8]


def prose_words(text):
    """``text`` without code: backtick spans, math, HTML, {blanks}, identifiers and calls."""
    text = re.sub(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|<[^>]+>|\{[^}]*\}", " ", text, flags=re.S)
    return re.sub(r"\b\w*[_.()\[\]]\w*[\w.()\[\]]*", " ", text)


def glossary_hits(text, glossary):
    text = prose_words(text)
    return [(idea, m.group()) for idea, (_, variants) in glossary.items() for v in variants
            for m in re.finditer(v, text)]


def test_the_glossary_finds_a_variant_and_skips_code():
    glossary = zh_text("GLOSSARY")
    assert glossary, "no zh edition has a GLOSSARY"
    assert glossary_hits("请 append token_id", glossary) and glossary_hits("第 2 项被拒绝", glossary)
    assert glossary_hits("从剩余的概率里采样一个奖励 token", glossary)
    assert not glossary_hits("`accepted_tokens.append(token_id)`，用 accepted_tokens.append(token_id) 追加", glossary)
    assert not glossary_hits("位置 2 被拒绝；第三项（位置 2，token 30）", glossary)


@pytest.mark.parametrize("edition", ZH)
def test_one_term_per_idea(edition):
    glossary = zh_text("GLOSSARY")
    found = [(where, hits) for where, text in shown_texts(edition)
             if (hits := glossary_hits(text, glossary))]
    assert not found, found[:8]


def english_words(text, latin):
    """The English words left in ``text`` once code names are taken out: identifiers (with _ . ( [),
    error classes (NameError), single letters, and the words the zh editions keep in Latin letters (LATIN)."""
    words = re.findall(r"[A-Za-z][A-Za-z']+", prose_words(text))
    return [w for w in words if w not in latin and not re.fullmatch(r"(?:[A-Z][a-z]+){2,}", w)]


def test_the_english_word_finder_finds_words_and_skips_code_names():
    latin = zh_text("LATIN")
    assert english_words("诊断：未做出：the kernel stopped answering", latin)
    assert english_words("name 'verify_draft' is not defined：run the cell", latin)
    assert not english_words("NameError：verify_draft 还没有定义；用 torch.rand(1).item() 抽一个 token", latin)


def test_the_english_sentence_finder_finds_sentences_and_skips_code():
    assert english_sentences("p 和 q are read at the same place here")
    assert not english_sentences("读取 `target_probs[i, token_id].item()`，用 torch.rand(1).item() 抽取 r")
    assert not english_sentences("# Level 23 · 投机解码 · Mission 1：接受分支")


@pytest.mark.parametrize("edition,base", PAIRS)
def test_no_chinese_in_the_english_edition(edition, base):
    found = [(where, text) for where, text in prose_of(base) if CJK.search(text)]
    assert not found, found[:3]
    lessons = [build.lesson_path(name, base) for name in ASSIGNMENTS[base]]
    for path in lessons + [p for p in (ROOT / "release" / base).glob("*") if p.suffix in (".py", ".ipynb", ".txt")]:  # not the weights
        assert not CJK.search(path.read_text()), path


@pytest.mark.parametrize("edition,base", PAIRS)
def test_no_untranslated_english_in_the_chinese_edition(edition, base):
    found = [(where, hits) for where, text in prose_of(edition) if (hits := english_sentences(text))]
    assert not found, found[:5]


# ------------------------------------------------------------------ fonts and JupyterLab in Chinese

FIGURE = """
import sys, warnings
sys.path.insert(0, {folder!r})
import matplotlib
matplotlib.use("Agg")
import spec_widgets
from matplotlib import font_manager
warnings.simplefilter("error")  # a missing glyph is a warning: make it fail
spec_widgets.use_fonts()
fig = {figure}
fig.canvas.draw()
fig.savefig({png!r}, dpi=60)
families = matplotlib.rcParams["font.sans-serif"]
print(families[0] + "|" + font_manager.findfont(families[0], fallback_to_default=False))
"""


# A figure of each template's with text in it: its title, labels and legend are the edition's.
FIGURES = {
    "level23_speculative_decoding": "spec_widgets.principle_figure(spec_widgets.lesson_case(), 1)",
    "level24_residual_and_bonus": "spec_widgets.exactness_figure()",
}


def draw(folder, png, figure=FIGURES["level23_speculative_decoding"]):
    return subprocess.run([sys.executable, "-c", FIGURE.format(folder=str(folder), png=str(png), figure=figure)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("edition,base", PAIRS)
def test_matplotlib_finds_a_cjk_font_and_draws_chinese_without_missing_glyphs(tmp_path, edition, base):
    proc = draw(ROOT / "source" / edition, tmp_path / "zh.png", FIGURES[base])
    assert proc.returncode == 0, ("install a CJK font (Debian: apt-get install fonts-noto-cjk); " + proc.stderr[-2000:])
    family, path = proc.stdout.strip().split("|", 1)
    assert "CJK" in family and "CJK" in path
    from matplotlib.ft2font import FT2Font
    font = FT2Font(path.strip())
    assert all(font.get_char_index(ord(c)) for c in "位置草稿目标概率接受拒绝")


def test_without_the_cjk_font_the_same_figure_would_warn(tmp_path):
    """The check above can fail: the English edition's fonts have no Chinese glyphs."""
    folder = tmp_path / "en_fonts"
    folder.mkdir()
    for module in HELPER_MODULES:
        text = (ROOT / "source" / PAIRS[0][0] / f"{module}.py").read_text()
        (folder / f"{module}.py").write_text(text.replace('"fonts": [\n        "Noto', '"fonts": [], "x": [\n        "Noto'))
    proc = draw(folder, tmp_path / "tofu.png")
    assert proc.returncode != 0 and "missing from font" in proc.stderr


def test_the_chinese_language_pack_is_installed_and_loads():
    from jupyterlab_server.translation_utils import get_language_pack, get_language_packs

    packs, _ = get_language_packs("zh_CN")
    assert "zh_CN" in packs
    data, message = get_language_pack("zh_CN")
    assert not message and data.get("jupyterlab"), message
    assert "文件" in json.dumps(data["jupyterlab"], ensure_ascii=False)


def test_make_lab_opens_the_chinese_edition_with_jupyterlab_in_chinese():
    proc = subprocess.run(["make", "-n", "lab", "LANG=zh"], cwd=ROOT, capture_output=True, text=True)
    # release/ itself: both levels' Chinese editions (*_zh) are reachable, not only Level 23's (issue 42 item 5)
    assert "--notebook-dir=release\n" in proc.stdout + "\n" and '"locale": "zh_CN"' in proc.stdout
    proc = subprocess.run(["make", "-n", "lab", "LANG=C.UTF-8"], cwd=ROOT, capture_output=True, text=True)
    assert "--notebook-dir=release\n" in proc.stdout + "\n" and "zh_CN" not in proc.stdout  # every English assignment
    proc = subprocess.run(["make", "-n", "lab", "LANG=C.UTF-8", f"ASSIGNMENT={PAIRS[0][1]}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert f"--notebook-dir=release/{PAIRS[0][1]}\n" in proc.stdout + "\n" and "zh_CN" not in proc.stdout


def test_readme_links_the_chinese_readme():
    assert "README.zh-CN.md" in (ROOT / "README.md").read_text()
    zh = (ROOT / "README.zh-CN.md").read_text()
    for needed in ("make demo", "make lab LANG=zh", "make grade", "make export", "course_feedback",
                   "level23_speculative_decoding_zh"):
        assert needed in zh
    assert template(PAIRS[0][0]) == PAIRS[0][1]


def zh_widgets():
    import importlib.util
    sys.path.insert(0, str(ROOT / "source" / PAIRS[0][0]))
    try:
        spec = importlib.util.spec_from_file_location("_zh_spec_widgets", ROOT / "source" / PAIRS[0][0] / "spec_widgets.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


@pytest.mark.parametrize("p,q,r", [(0.0, 0.5, 0.3), (0.005, 0.5, 0.0), (0.01, 0.5, 0.99), (0.25, 0.5, 0.5),
                                   (0.495, 0.5, 0.02), (0.5, 0.5, 0.5), (0.9, 0.3, 0.5), (0.3, 0.0, 0.5)])
def test_chinese_number_line_labels_never_overlap_or_leave_the_picture(p, q, r):
    """Chinese characters are twice as wide as the layout's Latin ones: the layout counts them so."""
    sw = zh_widgets()
    width = 560
    labels = sw.number_line_labels(sw.acceptance(p, q, r), width)
    assert any(CJK.search(label["text"]) for label in labels)
    boxes = [sw.label_box(label) for label in labels]
    for left, top, right, bottom in boxes:
        assert 0 <= left and right <= width and 0 <= top and bottom <= 124
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            (l1, t1, r1, b1), (l2, t2, r2, b2) = boxes[a], boxes[b]
            assert r1 <= l2 or r2 <= l1 or b1 <= t2 or b2 <= t1, (labels[a]["text"], labels[b]["text"])
    assert sw.text_width("接受") == 2 * sw.text_width("ab")


# ------------------------------------------------------------------ what the zh notebooks print and the grader says

def printed_prose(text):
    """A stream's text without the lines that are a printed string's repr: data (a character model's English
    sample), which the lesson introduces, not a sentence of the edition."""
    return "\n".join(line for line in text.splitlines() if not re.fullmatch(r"""\s*(['"]).*\1\s*""", line))


def test_a_printed_repr_is_data_and_a_printed_sentence_is_prose():
    assert printed_prose("'the sto to the move'\n接受率 0.61") == "接受率 0.61"
    assert printed_prose("the kernel stopped") == "the kernel stopped"


def output_texts(nb):
    """(where, text) of every output of an executed notebook: streams, errors, and each display's HTML
    (its text/plain when it has none); HTML as the browser shows it."""
    out = []
    for k, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                out.append((f"cell {k}", printed_prose(output.text)))
            elif output.output_type == "error":
                out.append((f"cell {k} error", f"{output.ename}: {output.evalue}"))
            else:
                data = output.get("data", {})
                html = data.get("text/html")
                out.append((f"cell {k}", rendered(html) if html else data.get("text/plain", "")))
    return out


# What the zh notebooks print is scanned where tests/test_notebooks.py runs every notebook in a real kernel.


@pytest.mark.parametrize("edition", ZH)
def test_the_graders_messages_are_in_the_editions_words(edition):
    english, translated = grader_text.ENGLISH, grader_text.translated(edition)
    assert translated is not None, f"no GRADER in any {language(edition)} edition's text file"
    assert build.compare_texts(english, translated) == []
    latin = zh_text("LATIN")
    for key, text in translated.items():
        shown = text.format(**{field: 3 for field in build.blanks(text)})
        assert not english_words(shown, latin) and not bad_spaces(shown), (key, shown)


@pytest.mark.parametrize("edition", ZH)
def test_a_check_of_a_function_never_defined_says_so_in_the_editions_words(edition):
    """The real Judge, with a kernel that has no verify_draft (a syntax error in the TODO cell), as
    SandboxedExecute sets it up for the edition."""
    from grading.judge.verdicts import Judge

    judge = Judge(ROOT / "source" / edition / "spec_checks.py", lambda content: {"status": "missing"})
    judge.words = grader_text.words(edition)
    nb = notebooks("source", edition)[ASSIGNMENTS[edition][0]]
    test_cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    error = [o for o in judge.outputs(test_cell.source) if o.output_type == "error"][0]
    assert error.ename == "NameError"
    assert not english_words(error.evalue, zh_text("LATIN")), error.evalue


def load_helper(assignment, module):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_{assignment}_{module}", ROOT / "source" / assignment / f"{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


@pytest.mark.parametrize("edition", ZH)
def test_a_quiz_verdict_says_right_or_wrong_once_with_no_ascii_dot(edition):
    quiz = load_helper(edition, "spec_quiz")
    for correct, why in [(True, "正确：p >= q"), (False, "不对：只有 r < p/q 时才接受")]:
        shown = re.sub(r"<[^>]+>", "", quiz.feedback_html(quiz.Feedback(correct, why)))
        assert "." not in shown.split(why)[0] and shown.count("正确") + shown.count("不对") == 1, shown


# ------------------------------------------------------------------ one shape for every assignment

def test_every_assignment_has_its_lessons_and_answers_in_folders_named_after_it():
    """A new assignment or edition is a copy of a folder: lessons/<assignment>/, answers/<assignment>/<notebook>/,
    lessons/i18n/<edition>.py; nothing of an assignment lies loose in lessons/ or answers/."""
    assert not list((ROOT / "lessons").glob("*.py")), "a lesson outside lessons/<assignment>/"
    assert {p.name for p in (ROOT / "answers").iterdir() if p.is_dir()} <= set(ASSIGNMENTS)
    for assignment, names in ASSIGNMENTS.items():
        if language(assignment) != "en":
            assert build.i18n_path(assignment).exists(), assignment
            continue
        for name in names:
            assert build.lesson_path(name, assignment) == ROOT / "lessons" / assignment / f"{name}.py"
            assert build.lesson_path(name, assignment).exists()
            assert (catalogue.answers_dir(assignment) / name).is_dir() == (catalogue.answers_dir(assignment) ==
                                                                           ROOT / "answers" / assignment)
