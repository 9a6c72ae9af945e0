"""The examples in docs/*.md run as written (each page's Python blocks in order, one namespace)."""

import pathlib
import re
import warnings

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(p for p in [*DOCS.glob("*.md"), DOCS.parent / "README.md"] if "```python" in p.read_text())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_examples_run(page, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": f"doc_{page.stem}"}
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # pages show warnings (e.g. mixing USM types) as users see them
        for i, block in enumerate(blocks):
            code = compile(block, f"{page.name}[block {i}]", "exec")
            exec(code, ns)
