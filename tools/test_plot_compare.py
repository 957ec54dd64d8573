"""Tests for tools/plot-compare: run it on two synthetic sweep.json files.

    python3 -m unittest tools/test_plot_compare.py      (from the repo root)
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-compare")


def sweep(ttft_scale, knee, mode="open-loop"):
    stages = []
    for i, rate in enumerate((1.0, 2.0, 4.0, 8.0)):
        concurrency = int(rate) if mode == "closed-loop" else None
        p99 = 100.0 * ttft_scale * rate
        stages.append({"index": i, "offered_rate": rate, "concurrency": concurrency,
                       "ttft_ms": {"p99": p99, "p99_ci": [p99 * 0.9, p99 * 1.1]},
                       "e2e_ms": {"p99": p99 + 900.0, "p99_ci": None}, "aborted": False})
    return {"kind": "openloop-sweep", "mode": mode, "target": "http://127.0.0.1:8000", "stages": stages,
            "knees": {"saturation": {"found": True, "rate": knee}}}


class PlotCompare(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)

    def write(self, d, name, doc):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_writes_one_figure_per_format_with_both_sweeps(self):
        with tempfile.TemporaryDirectory() as d:
            base = self.write(d, "base.json", sweep(1.0, 4.0))
            new = self.write(d, "new.json", sweep(2.0, 2.0))
            r = self.run_tool(base, new, "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            for fmt in ("png", "svg"):
                self.assertTrue(os.path.getsize(os.path.join(d, f"compare.{fmt}")) > 0)
            with open(os.path.join(d, "compare.svg")) as f:
                svg = f.read()
            self.assertIn("base: " + base, svg)
            self.assertIn("new: " + new, svg)
            self.assertIn("knee 2 req/s", svg)
            self.assertIn("knee 4 req/s", svg)

    def test_bad_inputs_exit_2_naming_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            base = self.write(d, "base.json", sweep(1.0, 4.0))
            closed = self.write(d, "closed.json", sweep(1.0, 4.0, mode="closed-loop"))
            r = self.run_tool(base, os.path.join(d, "missing.json"))
            self.assertEqual(r.returncode, 2)
            self.assertIn("missing.json", r.stderr)
            r = self.run_tool(base, closed)
            self.assertEqual(r.returncode, 2)
            self.assertIn("x axes differ", r.stderr)


if __name__ == "__main__":
    unittest.main()
