"""Tests for tools/plot-soak: run it on synthetic windows.jsonl + summary.json.

    python3 -m unittest tools/test_plot_soak.py      (from the repo root)

Standard library only here; the script itself needs matplotlib.
"""

import json
import os
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-soak")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NAMES = ("latency", "rate", "memory")


def pct(p50, p99):
    return {"p50": p50, "p90": (p50 + p99) / 2, "p99": p99, "max": p99 * 1.2}


def window(i, interval=60.0, server=True, signals=True):
    """Window i of a soak whose server leaks 400 MiB/h and whose TTFT steps up at window 6."""
    t_end = (i + 1) * interval
    ttft = 40.0 if i < 6 else 90.0
    w = {
        "window": i, "t_start_s": i * interval, "t_end_s": t_end, "offered": 1200, "offered_rate": 20.0,
        "completed": 1198, "achieved_rate": 19.97, "failed": 2 if i == 4 else 0,
        "errors": {"connect": 2} if i == 4 else {}, "in_flight": 12 + i % 3, "output_tokens": 76672,
        "output_tok_s": 1277.9,
        "ttft_ms": pct(ttft, ttft * 2), "itl_ms": pct(21.0, 30.0), "tpot_ms": pct(21.5, 28.0),
        "e2e_ms": pct(1400.0, 2100.0), "lag_ms": {"p99": 0.21, "max": 0.9},
        "generator": {"rss_mib": 12.5, "cpu_pct": 3.1},
        "scrape_failures": 1 if i == 7 else 0,
    }
    rss = 800.0 + 400.0 * t_end / 3600
    if server:
        w["server"] = {"rss_mib": rss, "cpu_pct": 95.0}
    if signals:
        w["signals"] = {"running": 3, "waiting": 0, "kv_usage": 0.12 + 0.01 * i, "server_rss_mib": rss,
                        "gpu_memory_mib": 30000.0 + i}
    return w


def summary(warmup=2):
    return {"kind": "openloop-soak", "soak": {
        "headline": "growth: server_rss_mib +400 MiB/h; TTFT p99 stepped up",
        "warmup_windows": warmup,
        "verdicts": [
            {"signal": "server_rss_mib", "unit": "MiB", "slope_per_h": 400.0, "ci_low": 380.0, "ci_high": 420.0,
             "intercept": 800.0, "verdict": "growth", "text": "growth: +400 MiB/h (95 % CI 380..420)",
             "change_point": None},
            {"signal": "generator_rss_mib", "unit": "MiB", "slope_per_h": 0.1, "ci_low": -0.4, "ci_high": 0.6,
             "intercept": 12.5, "verdict": "none", "text": "no significant change (±0.5 MiB/h)",
             "change_point": None},
            {"signal": "ttft_p99_ms", "unit": "ms", "slope_per_h": 300.0, "ci_low": 100.0, "ci_high": 500.0,
             "intercept": 60.0, "verdict": "growth", "text": "step: 80 → 180 ms",
             "change_point": {"t_h": 0.1, "before": 80.0, "after": 180.0}},
            {"signal": "achieved_rate", "unit": "req/s", "slope_per_h": 0.0, "ci_low": -0.1, "ci_high": 0.1,
             "intercept": 19.97, "verdict": "none", "text": "no significant change (±0.1 req/s/h)",
             "change_point": None},
            {"signal": "error_rate", "unit": "", "slope_per_h": 0.0, "ci_low": 0, "ci_high": 0.001,
             "intercept": 0.0002, "verdict": "none", "text": "error rate: no significant change",
             "change_point": None},
        ]}}


def svg_text(path):
    root = ET.parse(path).getroot()  # raises if not XML
    return " ".join(t for el in root.iter() for t in (el.text, el.tail) if t)


class PlotSoakTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="plot-soak-test-")
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str) else json.dumps(content, indent=1))
        return path

    def write_windows(self, windows, tail=""):
        return self.write("windows.jsonl", "".join(json.dumps(w) + "\n" for w in windows) + tail)

    def run_tool(self, *args):
        return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=180)

    def assert_figures(self, out, proc, formats=("png", "svg")):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        printed = proc.stdout.split()
        for name in NAMES:
            for f in formats:
                path = os.path.join(out, f"{name}.{f}")
                self.assertTrue(os.path.isfile(path), f"{path} missing; stderr: {proc.stderr}")
                self.assertIn(path, printed)
            if "png" in formats:
                with open(os.path.join(out, f"{name}.png"), "rb") as fh:
                    data = fh.read()
                self.assertTrue(data.startswith(PNG_SIGNATURE), name)
                self.assertGreater(len(data), 20_000, name)
        self.assertEqual(len(printed), len(NAMES) * len(formats))

    def test_script_is_executable(self):
        self.assertTrue(os.access(SCRIPT, os.X_OK))
        with open(SCRIPT, encoding="utf-8") as f:
            self.assertEqual(f.readline().strip(), "#!/usr/bin/env python3")

    def test_full_soak(self):
        self.write_windows([window(i) for i in range(12)])
        self.write("summary.json", summary())
        out = os.path.join(self.dir, "figs")
        proc = self.run_tool(self.dir, "--out", out)
        self.assert_figures(out, proc)
        self.assertNotIn("not drawn", proc.stderr)  # every verdict found its series
        lat = svg_text(os.path.join(out, "latency.svg"))
        for label in ("TTFT p50", "TTFT p99", "E2E p99", "ITL p50", "ITL p99", "TPOT p99", "latency (ms)",
                      "trend: step: 80 → 180 ms", "change point at 6 min: 80 → 180", "warm-up (2 windows)",
                      "time (min)", "growth: server_rss_mib +400 MiB/h"):
            self.assertIn(label, lat)
        rate = svg_text(os.path.join(out, "rate.svg"))
        for label in ("offered (req/s)", "achieved (req/s)", "in flight", "failed: connect", "scrape failures",
                      "trend: no significant change (±0.1 req/s/h)", "error rate (%)", "error rate (right axis)",
                      "trend: error rate: no significant change"):
            self.assertIn(label, rate)
        mem = svg_text(os.path.join(out, "memory.svg"))
        for label in ("generator RSS (MiB)", "server RSS (MiB)", "gpu_memory (MiB)", "KV-cache usage",
                      "trend: growth: +400 MiB/h (95 % CI 380..420)",
                      "trend: no significant change (±0.5 MiB/h)"):
            self.assertIn(label, mem)

    def test_optional_fields_absent(self):
        # No server, no signals, null and missing percentiles, no summary.json
        # (the soak was killed): figures still come, without trends.
        windows = [window(i, server=False, signals=False) for i in range(5)]
        windows[1]["ttft_ms"] = None
        del windows[2]["itl_ms"]
        windows[3]["e2e_ms"] = {"p50": None, "p99": None}
        del windows[4]["generator"]
        windows[0]["errors"] = None
        self.write_windows(windows)
        proc = self.run_tool(self.dir, "--formats", "png,svg")
        self.assert_figures(self.dir, proc)
        self.assertIn("summary.json", proc.stderr)  # warned that there are no verdicts
        mem = svg_text(os.path.join(self.dir, "memory.svg"))
        self.assertIn("generator RSS", mem)
        self.assertNotIn("server RSS", mem)
        self.assertNotIn("KV-cache", mem)
        self.assertNotIn("trend:", svg_text(os.path.join(self.dir, "latency.svg")))

    def test_no_completions_at_all(self):
        windows = [window(i) for i in range(3)]
        for w in windows:
            for key in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
                w[key] = None
        self.write_windows(windows)
        self.write("summary.json", {"soak": {"verdicts": [], "warmup_windows": 0}})
        proc = self.run_tool(self.dir, "--formats", "svg")
        self.assert_figures(self.dir, proc, formats=("svg",))
        self.assertIn("no samples", svg_text(os.path.join(self.dir, "latency.svg")))

    def test_hours_for_a_long_soak_and_windows_file_argument(self):
        path = self.write_windows([window(i, interval=1800.0) for i in range(16)])  # 8 h
        self.write("summary.json", summary())
        proc = self.run_tool(path, "--formats", "svg")
        self.assert_figures(self.dir, proc, formats=("svg",))
        self.assertIn("time (h)", svg_text(os.path.join(self.dir, "memory.svg")))

    def test_truncated_last_line_is_skipped(self):
        # What a kill -9 in the middle of a write leaves.
        self.write_windows([window(i) for i in range(4)], tail='{"window": 4, "t_end_s": 300.0, "ttft_')
        proc = self.run_tool(self.dir, "--formats", "svg")
        self.assert_figures(self.dir, proc, formats=("svg",))
        self.assertIn("windows.jsonl:5", proc.stderr)
        self.assertIn("truncated", proc.stderr)

    def test_unknown_verdict_is_reported_not_fatal(self):
        self.write_windows([window(i) for i in range(4)])
        doc = summary()
        doc["soak"]["verdicts"].append({"signal": "mystery", "slope_per_h": 1, "intercept": 0, "text": "?"})
        self.write("summary.json", doc)
        proc = self.run_tool(self.dir, "--formats", "svg")
        self.assert_figures(self.dir, proc, formats=("svg",))
        self.assertIn('"mystery" not drawn', proc.stderr)

    def assert_input_error(self, args, mention):
        proc = self.run_tool(*args)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(mention, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(proc.stdout, "")
        for name in NAMES:
            self.assertFalse(os.path.exists(os.path.join(self.dir, f"{name}.png")), name)

    def test_missing_windows(self):
        self.assert_input_error([self.dir], os.path.join(self.dir, "windows.jsonl"))

    def test_bad_line_names_file_and_line(self):
        path = self.write_windows([window(0)], tail="not json\n" + json.dumps(window(2)) + "\n")
        self.assert_input_error([self.dir], f"{path}:2")

    def test_line_not_a_window(self):
        path = self.write_windows([window(0)], tail="[1, 2]\n")
        self.assert_input_error([self.dir], f"{path}:2")
        path = self.write_windows([window(0)], tail='{"window": 1}\n')
        self.assert_input_error([self.dir], f"{path}:2")

    def test_no_windows(self):
        path = self.write_windows([])
        self.assert_input_error([self.dir], path)

    def test_bad_summary_names_it(self):
        self.write_windows([window(i) for i in range(3)])
        path = self.write("summary.json", '{"soak": {')
        self.assert_input_error([self.dir], path)

    def test_bad_format(self):
        self.write_windows([window(i) for i in range(3)])
        self.assert_input_error([self.dir, "--formats", "gif"], "gif")


if __name__ == "__main__":
    unittest.main()
