"""The one vocabulary and the one set of typesetting rules of every Chinese edition (issue 43).

Every zh text a student or instructor reads follows it: the lessons and code comments (lessons/i18n/*_zh.py),
the helpers' messages (their TEXT blocks), the diagnosis sentences (grading/judge/rules.py, rules23.py), the
grader's own messages (GRADER), the feedback page's labels (grading/templates/labels.json) and README.zh-CN.md.
tests/test_glossary_zh.py checks all of them, in source/ and release/, and what the grader writes.

- GLOSSARY: {English term: (the one Chinese term, [regular expressions of the words it must not be])}. The
  forbidden words are looked for in prose only: code spans, formulas, {blanks} and identifiers are taken out.
- LATIN: the words kept in Latin letters (names of things, code words); any other English word is English prose.
- PUNCTUATION: {rule: (regular expression of a fault, what to write instead)}, looked for in the same prose.

Why these terms: 投机解码 is what Chinese ML writing calls the method (投机采样 appears only once, naming Leviathan
et al.'s accept-or-correct rule and Chen et al.'s title); the one cache operation is cache.crop, 裁剪 (clamp,
a different operation, is 截断); a token's score from a model is its 概率 or 行, never 打分; the draft model
提出 (proposes) tokens, the step 生成草稿, never 起草 (drafting a document).
"""

GLOSSARY = {
    "speculative decoding (the method)": ("投机解码", [
        r"投机采样(?!\*?（speculative sampling）|\*?”)",  # only where the lesson names the paper's other term
        r"投机(?!解码|采样)",                        # 投机 alone is "speculation", a noun nobody says
    ]),
    "the bonus token": ("额外 token（第一次出现写作 额外（bonus）token）", [r"奖励", r"红利", r"附赠"]),
    "to draft (tokens)": ("（草稿模型）提出 / 生成草稿", [r"起草"]),
    "to score positions (one target call)": ("算出……的概率 / 检查", [r"(?<!商品)打了?分", r"(?<!两方)评分(?!单元格)"]),  # Level 23's warm-up scores goods: real scores
    "to crop the KV cache (cache.crop)": ("裁剪", [r"回退", r"回滚", r"截到", r"截短", r"退回到"]),
    "the correction token": ("修正 token", [r"纠正 ?token", r"校正 ?token", r"更正 ?token"]),
    "the residual max(0, p - q)": ("残差 / 残差分布", [r"剩余的"]),
    "the target model": ("目标模型", [r"目标的(?=那一行|行)", r"(?<!草稿)目标行"]),
    "the draft model": ("草稿模型", [r"草稿的(?=那一行|行)"]),
    "a draft position": ("位置 N（从 0 数起）", [r"第\s*\d+\s*项", r"位置 N 那一行"]),
    "a real model pair": ("一对真实模型", [r"真实模型对"]),
    "scripted values (of r)": ("预设的随机数 / 预设值", [r"脚本化"]),
    "drawing a random number": ("抽随机数 / 抽取", [r"调用随机数", r"生成随机数", r"调用任何随机数"]),
    "nothing is free (computation)": ("计算量不会凭空消失", [r"没有免费的东西"]),
    "shape": ("形状", [r"(?<![.\w])shape(?![\w(])"]),
    "a Python list": ("列表", [r"Python list\b", r"(?<![.\w])list(?![\w(\[])"]),
    "to append": ("追加", [r"(?<![.\w])append(?![\w(])"]),
    "the given break / loop": ("预先写好的 break / 写好的循环", [r"给定的\s*`?(?:break|循环)"]),
    "(a call) was asked for n samples": ("一次抽取了 n 个样本 / 你让……", [r"被要求"]),  # a passive calque of "was asked for"
}

# Words kept in Latin letters (names of things, not English sentences): every other English word a student sees,
# in the text or in what a cell prints, is a fault.
LATIN = [
    "Level", "Mission", "TODO", "token", "tokens", "notebook", "Notebook", "Python", "JupyterLab", "Validate", "YOUR",
    "CODE", "HERE", "softmax", "logits", "torch", "rand", "item", "max", "min", "float", "int", "list", "tuple",
    "Tensor", "LongTensor", "True", "False", "None", "if", "else", "for", "break", "continue", "return", "raise",
    "from", "import", "random", "numpy", "np", "append", "shape", "bonus", "Leviathan", "Chen", "vocab",
    "Noto", "Sans", "CJK", "SC", "JP", "TC", "os", "exit", "id", "ids", "multinomial", "inf", "nan", "bigram", "CPU",
    # Level 24: models, papers, libraries and the names the lessons introduce
    "trigram", "transformer", "KV", "PyTorch", "vLLM", "Pearson", "argmax", "top", "nucleus", "sampling", "speculative",
    "decoding", "Standardized", "Sampling", "EnDe", "CNN", "DM", "XXL", "small", "T5", "TV", "GPU", "MB", "while",
    "in", "not", "and", "or", "insert", "index", "clamp", "sum", "Categorical", "bernoulli", "randint", "choices",
    "manual_seed", "noqa", "E731", "len", "range", "enumerate", "def", "self", "init", "cache", "crop", "length",
    "forward_cached", "rows", "temperature", "last_token", "start", "target", "draft", "nbgrader", "make", "demo",
    "test", "release", "grade", "export", "lab", "LANG", "zh", "Canvas", "Moodle", "Formgrader", "Nbgrader",
    "Sphinx", "MyST", "Parser", "docs", "Debian", "apt", "get", "venv", "bubblewrap", "fonts", "noto", "cjk",
    "Chromium", "ci", "run", "html", "md", "csv", "gradebook", "db", "autograde", "generate_feedback", "force",
    "collect", "release_assignment", "feedback", "submitted", "jupyter", "source", "bin", "activate", "alembic",
    "lessons", "i18n", "edition", "assignment", "name", "py", "NN", "English", "Handbook", "readthedocs", "io",
    "https", "org", "png", "jupyterlab", "course_feedback", "grading", "templates", "index", "build", "python3",
    "Tab", "Shift", "Enter", "mean", "std", "sample", "Chi", "ValueError", "KeyError", "RuntimeError",
    "AssertionError", "NotImplementedError", "root", "Markdown", "Kc", "residual", "TypeError", "NameError", "ZeroDivisionError", "IndexError",
    # the keyword arguments of the replay line a generated check prints (draws=[...], picks=[...], mission=1)
    "draws", "picks", "mission",
]

# Typesetting, one rule each: (a fault, what to write instead).
PUNCTUATION = {
    "half-width punctuation in a Chinese sentence": (
        r"(?<=[\u4e00-\u9fff])[,;:!?](?=\s|[\u4e00-\u9fff]|$)|(?<=[\u4e00-\u9fff])\.(?=\s*$|\s+[\u4e00-\u9fff])"
        r"|(?<=[\u4e00-\u9fff]) ?\((?=[^)]*[\u4e00-\u9fff])",  # a formula's P(拒绝) keeps its ASCII brackets
        "，；：！？。（）"),
    "x for a product or a speed-up": (r"(?<=[\d}]) ?x(?![A-Za-z_\d(])|(?<=[\d}]) x (?=[\d{])", "×: 128 × 128, 3.2×"),
    "a citation not as Leviathan 等（2023）": (
        r"(?:Leviathan|Chen)(?! 等（20\d\d）)|等人|(?<=等) ?\(", "Leviathan 等（2023）"),
    "two labels in a row (诊断：无：)": (r"[\u4e00-\u9fff]{1,4}：[\u4e00-\u9fff]{1,4}：", "one colon: 诊断：没有发现错误。"),
    # a diagnosis's "（另外：…）" around a sentence with its own brackets read as a maze; a citation's year is fine
    "brackets inside brackets": (r"（[^（）]*（(?!20\d\d）)[^（）]*）[^（）]*）", "say it without the inner brackets"),
}
