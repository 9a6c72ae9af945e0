"""The examples in docs/*.md run as written (each page's Python blocks in order, one namespace)."""

import pathlib
import re
import warnings

import pytest

from ..conftest import DEV

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p for p in [*DOCS.glob("*.md"), DOCS.parent / "README.md"] if "```python" in p.read_text())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_examples_run(page, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": f"doc_{page.stem}"}
    skipped = []
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # pages show warnings (e.g. mixing USM types) as users see them
        for i, block in enumerate(blocks):
            if block.startswith("# CPU device only") and not DEV.startswith("opencl:cpu"):
                skipped.append(i)  # every other block still runs and asserts
                continue
            # each block as a file of its own, so that functions have their source (as in a module)
            source = tmp_path / f"{page.stem}_block{i}.py"
            source.write_text(block)
            code = compile(block, str(source), "exec")
            exec(code, ns)
    if skipped:
        pytest.skip(
            f"ran {len(blocks) - len(skipped)} blocks; blocks {skipped} need the CPU device ({DEV} is "
            "the default)"
        )
