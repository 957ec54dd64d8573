"""Tests for tools/plot-sweep: run it on synthetic sweep.json files.

    python3 -m unittest tools/test_plot_sweep.py      (from the repo root)

Standard library only here; the script itself needs matplotlib.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-sweep")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILES = ("latency.png", "latency.svg", "throughput.png", "throughput.svg")


def pct(mean, p50, p90, p95, p99, ci):
    return {"mean": mean, "p50": p50, "p90": p90, "p95": p95, "p99": p99, "p99_ci": ci}


def stage(index, rate, ttft_p99, aborted=False, concurrency=None, **over):
    achieved = min(rate, 3.3) if rate is not None else None
    s = {
        "index": index, "offered_rate": rate, "concurrency": concurrency,
        "achieved_rate": achieved, "output_throughput": None if achieved is None else 64 * achieved,
        "completed": 120, "failed": 0, "error_rate": 0.0, "goodput": achieved, "mean_inflight": 2.1,
        "ttft_ms": pct(ttft_p99 / 2, ttft_p99 / 2.2, ttft_p99 / 1.5, ttft_p99 / 1.3, ttft_p99,
                       [ttft_p99 * 0.9, ttft_p99 * 1.15]),
        "tpot_ms": pct(25.0, 24.0, 27.0, 28.0, 30.0, None),
        "itl_ms": pct(25.0, 24.0, 27.0, 28.0, 33.0, [31.0, 35.0]),
        "e2e_ms": pct(900.0, 880.0, 990.0, 1000.0, ttft_p99 + 1100.0, [ttft_p99 + 1050, ttft_p99 + 1200]),
        "slo_pass": ttft_p99 <= 1000, "verdict": "good" if ttft_p99 <= 1000 else "bad",
        "aborted": aborted,
    }
    s.update(over)
    return s


def open_loop_sweep():
    stages = [
        # Out of order, as a ramp-then-bisect sweep runs them.
        stage(0, 1.0, 60.0),
        stage(1, 2.0, 120.0),
        stage(2, 4.0, 2500.0, aborted=True),
        stage(3, 3.0, 800.0),
        stage(4, 2.5, 400.0),
        stage(5, 3.5, 1500.0),
    ]
    # Nulls: a stage with no ITL samples, missing percentile keys, a null CI.
    stages[1]["itl_ms"] = None
    stages[3]["ttft_ms"] = {"p50": 300.0, "p99": 800.0}
    stages[4]["e2e_ms"]["p99_ci"] = None
    stages[4]["output_throughput"] = None
    stages[0]["goodput"] = None
    return {
        "kind": "openloop-sweep", "target": "sim:cpu-small", "mode": "open-loop",
        "slos": [{"text": "ttft_p99=1s", "metric": "ttft", "stat": "p99", "limit": 1000.0},
                 {"text": "itl_p99=50ms", "metric": "itl", "stat": "p99", "limit": 50.0},
                 {"text": "error_rate=1%", "metric": "error_rate", "stat": None, "limit": 0.01}],
        "stages": stages,
        "knees": {
            "slo": {"found": True, "rate": 2.5, "stage": 3, "explanation": "..."},
            "saturation": {"found": True, "rate": 3.2, "stage": 5, "method": "throughput_ratio",
                           "explanation": "..."},
            "latency": {"found": False, "rate": 0, "stage": 0, "method": "kneedle", "explanation": "..."},
        },
    }


def closed_loop_sweep():
    stages = []
    for i, c in enumerate([16, 1, 4, 64, 2, 8, 32]):
        s = stage(i, None, 50.0 * c, aborted=(c == 64), concurrency=c)
        s["offered_rate"] = None
        s["achieved_rate"] = min(c * 0.9, 12.0)
        s["output_throughput"] = 64 * s["achieved_rate"]
        stages.append(s)
    return {
        "kind": "openloop-sweep", "target": "http://localhost:8000", "mode": "closed-loop",
        "slos": [{"text": "e2e_p99=3s", "metric": "e2e", "stat": "p99", "limit": 3000.0}],
        "stages": stages,
        "knees": {
            "slo": {"found": True, "rate": 16, "stage": 4, "explanation": "..."},
            "saturation": {"found": True, "rate": 8, "stage": 3, "method": "throughput_ratio",
                           "explanation": "..."},
            "latency": None,
        },
    }


def svg_text(path):
    root = ET.parse(path).getroot()  # raises if not XML
    return " ".join(t for el in root.iter() for t in (el.text, el.tail) if t)


class PlotSweepTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="plot-sweep-test-")
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str) else json.dumps(content, indent=1))
        return path

    def run_tool(self, *args):
        return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=180)

    def assert_figures(self, out, proc):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        printed = proc.stdout.split()
        for name in FILES:
            path = os.path.join(out, name)
            self.assertTrue(os.path.isfile(path), f"{path} missing; stderr: {proc.stderr}")
            self.assertIn(path, printed)
        for name in ("latency.png", "throughput.png"):
            with open(os.path.join(out, name), "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(PNG_SIGNATURE), name)
            self.assertGreater(len(data), 20_000, name)
        self.assertNotIn("Traceback", proc.stderr)

    def test_script_is_executable(self):
        self.assertTrue(os.access(SCRIPT, os.X_OK))
        with open(SCRIPT, encoding="utf-8") as f:
            self.assertEqual(f.readline().strip(), "#!/usr/bin/env python3")

    def test_open_loop(self):
        src = self.write("sweep.json", open_loop_sweep())
        out = os.path.join(self.dir, "figs")
        proc = self.run_tool(src, "--out", out, "--formats", "png,svg")
        self.assert_figures(out, proc)
        for name in ("latency.svg", "throughput.svg"):
            text = svg_text(os.path.join(out, name))
            self.assertIn("SLO knee 2.5 req/s", text, name)
            self.assertIn("saturation knee 3.2 req/s", text, name)
            self.assertIn("offered rate (req/s)", text, name)
            self.assertIn("sim:cpu-small", text, name)
            self.assertIn("open-loop", text, name)
            self.assertNotIn("latency knee", text, name)  # not found: not drawn
        lat = svg_text(os.path.join(out, "latency.svg"))
        for label in ("latency (ms)", "SLO ttft_p99=1s", "SLO itl_p99=50ms", "TTFT p50", "TTFT p95",
                      "TTFT p99", "E2E p99", "ITL p50", "ITL p99", "aborted stage"):
            self.assertIn(label, lat)
        self.assertNotIn("SLO error_rate=1%", lat)  # not a latency limit
        thr = svg_text(os.path.join(out, "throughput.svg"))
        for label in ("achieved (req/s)", "output tokens/s", "y = x", "0.95", "goodput"):
            self.assertIn(label, thr)

    def test_knees_at_one_rate_share_a_label(self):
        doc = open_loop_sweep()
        doc["knees"]["saturation"]["rate"] = doc["knees"]["slo"]["rate"]
        src = self.write("sweep.json", doc)
        out = os.path.join(self.dir, "same")
        proc = self.run_tool(src, "--out", out, "--formats", "svg")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        text = svg_text(os.path.join(out, "throughput.svg"))
        self.assertIn("SLO + saturation knee 2.5 req/s", text)
        self.assertEqual(text.count("knee 2.5 req/s"), 1, "one label for both knees")

    def test_closed_loop_and_default_out_dir(self):
        src = self.write("sweep.json", closed_loop_sweep())
        proc = self.run_tool(src)  # default --out: the JSON's directory
        self.assert_figures(self.dir, proc)
        for name in ("latency.svg", "throughput.svg"):
            text = svg_text(os.path.join(self.dir, name))
            self.assertIn("concurrency", text, name)
            self.assertIn("closed-loop", text, name)
            self.assertIn("SLO knee at concurrency 16", text, name)
            self.assertIn("saturation knee at concurrency 8", text, name)
        self.assertNotIn("y = x", svg_text(os.path.join(self.dir, "throughput.svg")))

    def test_all_latencies_null(self):
        doc = open_loop_sweep()
        for s in doc["stages"]:
            for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "achieved_rate",
                        "output_throughput", "goodput"):
                s[key] = None
        doc["knees"] = None
        src = self.write("nulls.json", doc)
        proc = self.run_tool(src, "--out", self.dir)
        self.assert_figures(self.dir, proc)

    def test_single_format(self):
        src = self.write("sweep.json", open_loop_sweep())
        proc = self.run_tool(src, "--out", self.dir, "--formats", "svg")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "latency.svg")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "latency.png")))

    def assert_input_error(self, path, *args, mention=None):
        proc = self.run_tool(path, *args)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(mention if mention is not None else path, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(proc.stdout, "")
        for name in FILES:
            self.assertFalse(os.path.exists(os.path.join(self.dir, name)), name)

    def test_missing_file(self):
        self.assert_input_error(os.path.join(self.dir, "nope.json"))

    def test_invalid_json(self):
        self.assert_input_error(self.write("bad.json", '{"kind": "openloop-sweep", "stages": ['))

    def test_wrong_kind(self):
        doc = open_loop_sweep()
        doc["kind"] = "openloop-run"
        path = self.write("run.json", doc)
        self.assert_input_error(path)
        self.assertIn("kind", self.run_tool(path).stderr)

    def test_not_an_object(self):
        self.assert_input_error(self.write("list.json", [1, 2, 3]))

    def test_no_stages(self):
        doc = open_loop_sweep()
        doc["stages"] = []
        self.assert_input_error(self.write("empty.json", doc))
        del doc["stages"]
        self.assert_input_error(self.write("nostages.json", doc))

    def test_bad_format(self):
        src = self.write("sweep.json", open_loop_sweep())
        self.assert_input_error(src, "--formats", "gif", mention="gif")


if __name__ == "__main__":
    unittest.main()
