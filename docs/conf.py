"""The Sphinx configuration of the manual: Markdown pages (MyST) in the Furo theme.

Sphinx rather than MkDocs because this file lives inside `docs/` (the project keeps no tool's
file at its top level, and MkDocs wants its configuration outside the folder it builds), and
`-W --keep-going` makes every warning an error. The pages stay plain Markdown that GitHub shows
as they are. Build it as `.ci/run` does:

    .venv/bin/sphinx-build -W --keep-going -q -b html docs /tmp/encounter-docs
"""

from __future__ import annotations

from importlib import metadata

project = "The encounter ledger"
author = "The encounter ledger maintainers"
release = metadata.version("encounter-ledger")
version = release

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `[text](events.md#ssss)` links to a heading of another page, as on GitHub.
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"The encounter ledger {release}"
html_show_sourcelink = False
