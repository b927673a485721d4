"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

- ``on_files``: papers/*.md, benchmarks/README.md, viz/ and examples/ become part of
  the site where they are, without a copy (one source each; their relative links keep
  working because the site mirrors the repository's layout).
- ``on_page_markdown``: ``<!-- cli-reference -->``, ``<!-- rules-reference -->`` and
  ``<!-- json-schema -->`` are replaced by what gen.py generates from the argument
  parser, ``pullback_calc.reduction.typeset`` and the trace schema, so none can drift.
- ``on_page_content``: math written ``$…$`` / ``$$…$$`` (pymdownx.arithmatex) becomes
  MathML here, at build time: the site needs no script and no network to show it.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (the generators, shared with tests/test_docs_site.py)

ROOT = Path(__file__).resolve().parents[2]
#: repository files that are pages or assets of the site, where they are
EXTERNAL = ("papers/calculus.md", "papers/engines.md", "papers/higher-order.md",
            "benchmarks/README.md")
EXTERNAL_DIRS = ("viz", "examples")


def on_files(files, config):
    for rel in EXTERNAL:
        files.append(File.generated(config, rel, abs_src_path=str(ROOT / rel)))
    for d in EXTERNAL_DIRS:
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file():
                files.append(File.generated(config, p.relative_to(ROOT).as_posix(),
                                            abs_src_path=str(p)))
    return files


_MARKERS = {"<!-- cli-reference -->": gen.cli_reference,
            "<!-- rules-reference -->": gen.rules_reference,
            "<!-- json-schema -->": gen.json_schema,
            "<!-- gallery -->": gen.gallery}


def on_page_markdown(markdown, page, config, files):
    for marker, make in _MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make(page.file.src_uri))
    return markdown


_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)


def on_page_content(html, page, config, files):
    # a display that is wider than a phone scrolls in its own box, not the page
    html = _BLOCK.sub(lambda m: '<div class="pc-math">'
                      + gen.mathml(_unescape(m[1]), block=True) + "</div>", html)
    return _INLINE.sub(lambda m: gen.mathml(_unescape(m[1]), block=False), html)


def _unescape(s: str) -> str:
    import html
    return html.unescape(s)
