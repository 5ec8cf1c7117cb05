"""Sphinx configuration of the course handbook (`make docs`: docs/_build/html/index.html).

The pages are Markdown, read by MyST-Parser. tests/test_docs.py builds them with -W, so a broken link
between pages, a missing picture or a heading anchor that does not exist fails the build.
"""

project = "Speculative decoding course (Levels 23 and 24)"
author = "the course team"
copyright = "2026, the course team"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `[text](page.md#a-heading)` links to a heading by its GitHub-style slug, as on GitHub.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "alabaster"
html_title = "Speculative decoding course: handbook"
html_static_path = []
html_show_sourcelink = False
