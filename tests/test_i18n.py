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

from grading import ASSIGNMENTS, EDITIONS, ROOT, build, catalogue, diagnosis, language, template

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
                assert same_code(x.source) == same_code(y.source), f"{name} cell {k} differs in code"


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
        if not a.full_marks:
            assert translated[a.notebook].get(a.name), f"no {language(edition)} diagnosis for {a.notebook}/{a.name}"


def test_a_changed_english_cell_stops_the_build(tmp_path, monkeypatch):
    lesson = (ROOT / "lessons" / "01_accept_branch.py").read_text()
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "01_accept_branch.py").write_text(lesson.replace("## Today's idea", "## Today's idea!"))
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
    return out


def test_the_english_sentence_finder_finds_sentences_and_skips_code():
    assert english_sentences("p 和 q are read at the same place here")
    assert not english_sentences("读取 `target_probs[i, token_id].item()`，用 torch.rand(1).item() 抽取 r")
    assert not english_sentences("# Level 23 · 投机解码 · Mission 1：接受分支")


@pytest.mark.parametrize("edition,base", PAIRS)
def test_no_chinese_in_the_english_edition(edition, base):
    found = [(where, text) for where, text in prose_of(base) if CJK.search(text)]
    assert not found, found[:3]
    lessons = [build.lesson_path(name, base) for name in ASSIGNMENTS[base]]
    for path in lessons + list((ROOT / "release" / base).glob("*")):
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
    assert "release/level23_speculative_decoding_zh" in proc.stdout and '"locale": "zh_CN"' in proc.stdout
    proc = subprocess.run(["make", "-n", "lab", "LANG=C.UTF-8"], cwd=ROOT, capture_output=True, text=True)
    assert "--notebook-dir=release\n" in proc.stdout + "\n" and "zh_CN" not in proc.stdout  # every English assignment
    proc = subprocess.run(["make", "-n", "lab", "LANG=C.UTF-8", f"ASSIGNMENT={PAIRS[0][1]}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert f"--notebook-dir=release/{PAIRS[0][1]}\n" in proc.stdout + "\n" and "zh_CN" not in proc.stdout


def test_readme_links_the_chinese_readme():
    assert "README.zh-CN.md" in (ROOT / "README.md").read_text()
    zh = (ROOT / "README.zh-CN.md").read_text()
    for needed in ("make demo", "make lab LANG=zh", "make grade", "level23_speculative_decoding_zh"):
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
