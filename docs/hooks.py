"""MkDocs build hook: adds the generated pages to the site.

The scenario and trace references (`gen_reference.py`) and one page per study, from the study's
own README (`scenarios/<id>/README.md`, the one copy), are added as generated files: nothing is
written into `docs/`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_reference  # noqa: E402


def on_files(files, config):
    pages = gen_reference.pages()
    for study in sorted((gen_reference.ROOT / "scenarios").glob("*/study.toml")):
        sid = study.parent.name
        readme = study.parent / "README.md"
        text = readme.read_text()
        note = f"\n\n*This page is `scenarios/{sid}/README.md`.*\n"
        pages[f"studies/{sid}.md"] = text + note
    for uri, text in pages.items():
        files.append(File.generated(config, uri, content=text))
    return files
