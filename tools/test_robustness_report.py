"""Tests for tools/robustness-report: render synthetic case records.

    python3 -m unittest tools/test_robustness_report.py      (from the repo root)
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "robustness-report")


def record(case, passed=True, suite="hostile_wire", **over):
    r = {
        "suite": suite, "case": case, "input": "random bytes | forever", "expected": "bad_http",
        "limits": "the header limit (64 KiB)", "observed": {"bad_http": 5}, "exit_status": 4, "wall_s": 0.74,
        "wall_bound_s": 10.0, "peak_rss_mib": 79.9, "rss_bound_mib": 96.0, "server": {}, "sanitized": False,
        "failures": [] if passed else ["expected bad_http (at least 5), got io 5"], "pass": passed,
    }
    if not passed:
        r["observed"] = {"io": 5}
    r.update(over)
    return r


class RobustnessReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def render(self, records, raw=None):
        results = self.path("results.jsonl")
        with open(results, "w", encoding="utf-8") as f:
            f.write(raw if raw is not None else "".join(json.dumps(r) + "\n" for r in records))
        out = self.path("robustness.md")
        p = subprocess.run([sys.executable, SCRIPT, "--results", results, "--out", out], capture_output=True, text=True)
        text = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
        return p.returncode, text, p.stderr

    def test_every_case_is_a_row_under_its_suite(self):
        rc, text, _ = self.render([record("garbage"), record("html_200", suite="hostile_stream", expected="no_content",
                                                              observed={"no_content": 5})])
        self.assertEqual(rc, 0)
        self.assertIn("**2 of 2 cases pass.**", text)
        wire = text.index("(`hostile_wire`)")
        stream = text.index("(`hostile_stream`)")
        self.assertLess(wire, text.index("| `garbage` |"))
        self.assertLess(wire, stream)
        self.assertLess(stream, text.index("| `html_200` |"))
        # A pipe in a description does not split the table's cell.
        self.assertIn("random bytes \\| forever", text)
        self.assertIn("| 0.7 (10) | 80 (96) | pass |", text)
        self.assertIn("tools/robustness-report", text)

    def test_a_failing_case_is_shown_with_its_failed_checks(self):
        rc, text, _ = self.render([record("garbage", passed=False), record("not_http")])
        self.assertEqual(rc, 1)
        self.assertIn("**1 of 2 cases pass.**", text)
        self.assertIn("| io 5 | 4 |", text)
        self.assertIn("**FAIL**", text)
        self.assertIn("- `garbage`: expected bad_http (at least 5), got io 5", text)

    def test_observed_classes_are_listed_in_order(self):
        rc, text, _ = self.render([record("usage", expected="ok", observed={"ok": 5, "bad_usage": 5})])
        self.assertEqual(rc, 0)
        self.assertIn("| bad_usage 5, ok 5 |", text)

    def test_bad_input_exits_2_naming_the_line(self):
        rc, text, err = self.render([], raw=json.dumps(record("garbage")) + "\n{not json\n")
        self.assertEqual(rc, 2)
        self.assertIn("results.jsonl:2: not JSON", err)
        self.assertEqual(text, "")
        rc, _, err = self.render([], raw='{"case": "x"}\n')
        self.assertEqual(rc, 2)
        self.assertIn("not a hostile case record", err)
        rc, _, err = self.render([], raw="")
        self.assertEqual(rc, 2)
        self.assertIn("no case records", err)

    def test_missing_binaries_exit_2(self):
        p = subprocess.run([sys.executable, SCRIPT, "--build", self.dir.name, "--out", self.path("x.md")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no hostile test binaries", p.stderr)
        self.assertFalse(os.path.exists(self.path("x.md")))


if __name__ == "__main__":
    unittest.main()
