"""Tests for tools/tree-shape: the tree's rules, and that each rule can fail.

    python3 -m unittest tools/test_tree_shape.py      (from the repo root)
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "tree-shape")


def shape(root):
    return subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)


class TreeShapeTest(unittest.TestCase):
    def tree(self, files):
        root = tempfile.mkdtemp()
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    def test_the_checkout_keeps_its_rules(self):
        r = shape(os.path.dirname(HERE))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_small_tree_that_keeps_them_passes(self):
        root = self.tree({"src/load/a.cpp": '#include "openloop/base/q.hpp"\nstruct s {\n int x;\n};\n'})
        self.assertEqual(shape(root).returncode, 0)

    def test_an_include_up_the_flow_is_named(self):
        root = self.tree({"src/measure/a.cpp": '\n#include "openloop/results/verdict.hpp"\n'})
        r = shape(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("src/measure/a.cpp:2: measure/ includes results/", r.stdout)

    def test_folders_of_one_rank_may_not_include_each_other(self):
        r = shape(self.tree({"include/openloop/wire/a.hpp": '#include "openloop/sim/b.hpp"\n'}))
        self.assertIn("wire/ includes sim/", r.stdout)

    def test_a_long_file_is_named(self):
        r = shape(self.tree({"src/base/long.cpp": "int x;\n" * 401}))
        self.assertIn("src/base/long.cpp: 401 lines, over 400", r.stdout)

    def test_a_long_class_is_named_but_not_a_short_one_after_it(self):
        body = "struct big {\n" + "    int x;  // {\n" * 250 + "};\nclass small {\n};\n"
        r = shape(self.tree({"src/base/c.hpp": body}))
        self.assertIn("src/base/c.hpp:1: class big is 252 lines, over 250", r.stdout)
        self.assertNotIn("small", r.stdout)

    def test_a_component_missing_from_the_map_is_named(self):
        doc = "## `base/`\n\n| component | what it is |\n|---|---|\n| `quantity` | numbers |\n"
        r = shape(self.tree({"docs/architecture.md": doc, "src/base/quantity.cpp": "", "include/openloop/base/quantity.hpp": "",
                             "src/base/clock.cpp": ""}))
        self.assertEqual(r.returncode, 1)
        self.assertIn("src/base/clock.cpp: not on docs/architecture.md's map (a row `clock` under ## `base/`)", r.stdout)
        self.assertNotIn("quantity", r.stdout)

    def test_a_row_without_a_file_is_named(self):
        doc = "## `tokenize/`\n\n| component | what it is |\n|---|---|\n| `models/bpe` | BPE |\n| `gone` | old |\n"
        r = shape(self.tree({"docs/architecture.md": doc, "src/tokenize/models/bpe.cpp": ""}))
        self.assertIn("docs/architecture.md:6: `gone` under `tokenize/` names no file", r.stdout)
        self.assertNotIn("bpe", r.stdout)


if __name__ == "__main__":
    unittest.main()
