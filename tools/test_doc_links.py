"""Every relative link in README.md, BENCHMARKS.md and docs/*.md reaches a file, and every
#anchor a heading of it, as GitHub renders them: the guide is many pages that point into each
other's sections, and a renamed heading or a moved section breaks those links silently."""
import os
import re
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _prose_lines(path):
    """(line number, text) outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced:
                yield n, line


def anchors(path):
    """GitHub's heading ids: lower case, punctuation dropped, blanks to '-', repeats numbered."""
    seen, out = {}, set()
    for _, line in _prose_lines(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link's text stays
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        out.add(slug if slug not in seen else f"{slug}-{seen[slug] + 1}")
        seen[slug] = seen.get(slug, -1) + 1
    return out


def broken_links(files):
    bad = []
    for path in files:
        for n, line in _prose_lines(path):
            for url in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
                if re.match(r"[a-z]+:", url):
                    continue  # http(s), mailto: not checked here
                file, _, frag = url.partition("#")
                target = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                if not os.path.exists(target):
                    bad.append(f"{path}:{n}: {url}: no such file")
                elif frag and target.endswith(".md") and frag not in anchors(target):
                    bad.append(f"{path}:{n}: {url}: no such heading")
    return bad


def doc_files(root):
    docs = os.path.join(root, "docs")
    return [os.path.join(root, "README.md"), os.path.join(root, "BENCHMARKS.md")] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))


class DocLinks(unittest.TestCase):
    def test_every_link_and_anchor_resolves(self):
        self.assertEqual(broken_links(doc_files(ROOT)), [])

    def test_a_broken_link_or_anchor_is_found(self):
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "a.md")
            with open(page, "w", encoding="utf-8") as f:
                f.write("# Title\n\n## `openloop run`: the flags\n\n"
                        "[ok](#openloop-run-the-flags) [gone](#nothing) [missing](b.md)\n"
                        "```\n[in code](c.md)\n```\n")
            self.assertEqual(broken_links([page]), [f"{page}:5: #nothing: no such heading",
                                                    f"{page}:5: b.md: no such file"])


if __name__ == "__main__":
    unittest.main()
