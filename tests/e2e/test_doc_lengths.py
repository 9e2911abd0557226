"""Every documentation page stays under 400 lines, what a reader takes in: a page that grows past it is
tightened or a section moves to a better page, with a link."""
import glob
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LIMIT = 400


def test_every_docs_page_is_under_400_lines():
    pages = ["README.md"] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    lengths = {os.path.relpath(os.path.join(ROOT, p), ROOT): sum(1 for _ in open(os.path.join(ROOT, p)))
               for p in pages}
    assert len(lengths) > 10
    too_long = {page: n for page, n in lengths.items() if n >= LIMIT}
    assert not too_long, f"pages of {LIMIT} lines or more: {too_long}"
