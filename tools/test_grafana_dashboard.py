"""Tests for tools/grafana/openloop-dashboard.json: it is an importable Grafana
dashboard and every metric its PromQL names is one openloop exports
(src/measure/metrics_export.cpp) or a server metric docs/metrics.md lists.

    python3 -m unittest tools/test_grafana_dashboard.py      (from the repo root)

Standard library only.
"""

import json
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DASHBOARD = os.path.join(ROOT, "tools", "grafana", "openloop-dashboard.json")
EXPORT_SOURCE = os.path.join(ROOT, "src", "measure", "metrics_export.cpp")
METRICS_DOC = os.path.join(ROOT, "docs", "metrics.md")

# PromQL words that look like names but are not metrics.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "inf", "nan"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def metric_names(expr):
    """The metric names an expression selects: identifiers that are neither
    functions, keywords, label names nor inside strings, ranges or groupings."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)        # string literals (label values)
    text = re.sub(r"\{[^}]*\}", " ", text)                  # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)                 # ranges, subqueries
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\$\{?\w+\}?", " ", text)                # dashboard variables
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = m.group(0)
        rest = text[m.end():].lstrip()
        if rest.startswith("("):
            continue  # a function
        if word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def exported():
    """(plain names, histogram families) as metrics_export.cpp writes them."""
    with open(EXPORT_SOURCE, encoding="utf-8") as f:
        source = f.read()
    histograms = set(re.findall(r'histogram_family\(\s*"(openloop_[a-z0-9_]+)"', source))
    names = set(re.findall(r'"(openloop_[a-z0-9_]+)"', source)) - histograms
    return names, histograms


def server_allow_list():
    """vLLM names listed under "Server metrics in the Grafana dashboard"."""
    with open(METRICS_DOC, encoding="utf-8") as f:
        doc = f.read()
    start = doc.index("### Server metrics in the Grafana dashboard")
    end = doc.find("\n#", start + 1)
    section = doc[start:end if end != -1 else len(doc)]
    return set(re.findall(r"`(vllm:[a-z0-9_:]+)`", section))


def all_exprs(dashboard):
    """(where, expr) for every panel target and every query variable."""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets") or []:
                out.append((f"panel {p.get('title')!r} target {t.get('refId')}", t.get("expr")))
            walk(p.get("panels") or [])

    walk(dashboard.get("panels") or [])
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            query = v.get("query")
            query = query.get("query") if isinstance(query, dict) else query
            inner = re.fullmatch(r"\s*label_values\((.*),\s*\w+\s*\)\s*", query or "")
            out.append((f"variable {v.get('name')}", inner.group(1) if inner else query))
    return out


class MetricNamesTest(unittest.TestCase):
    """The extractor itself, so a lenient one cannot pass a bad dashboard."""

    def test_extracts_only_metrics(self):
        self.assertEqual(metric_names('histogram_quantile(0.99, sum by (le) (rate(a_bucket{job=~"$job"}'
                                      '[$__rate_interval])))'), {"a_bucket"})
        self.assertEqual(metric_names('max(vllm:kv_cache_usage_perc{x="y"}) or max(b)'),
                         {"vllm:kv_cache_usage_perc", "b"})
        self.assertEqual(metric_names('sum by (class) (rate(c_total[5m])) > 0'), {"c_total"})
        self.assertEqual(metric_names('d / on (instance) group_left e'), {"d", "e"})


class DashboardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(DASHBOARD, encoding="utf-8") as f:
            cls.dash = json.load(f)
        cls.names, cls.histograms = exported()
        cls.server = server_allow_list()

    def test_is_a_dashboard(self):
        d = self.dash
        self.assertIsInstance(d, dict)
        self.assertTrue(d.get("title"))
        self.assertTrue(d.get("uid"))
        self.assertIsInstance(d.get("schemaVersion"), int)
        self.assertGreaterEqual(d["schemaVersion"], 36)
        self.assertNotIn("id", d, "an id would make the import overwrite another dashboard")
        variables = {v["name"]: v for v in d["templating"]["list"]}
        self.assertEqual(variables["DS_PROMETHEUS"]["type"], "datasource")
        self.assertEqual(variables["DS_PROMETHEUS"]["query"], "prometheus")
        panels = d["panels"]
        self.assertGreater(len(panels), 5)
        ids = [p["id"] for p in panels]
        self.assertEqual(len(ids), len(set(ids)), "panel ids repeat")
        for p in panels:
            with self.subTest(panel=p.get("title")):
                self.assertTrue(p.get("title"))
                self.assertTrue(p.get("type"))
                for key in ("h", "w", "x", "y"):
                    self.assertIsInstance(p["gridPos"][key], int)
                self.assertLessEqual(p["gridPos"]["x"] + p["gridPos"]["w"], 24)
                if p["type"] == "row":
                    continue
                self.assertEqual(p["datasource"], {"type": "prometheus", "uid": "${DS_PROMETHEUS}"})
                targets = p.get("targets")
                self.assertTrue(targets, "a panel without a query")
                refs = [t["refId"] for t in targets]
                self.assertEqual(len(refs), len(set(refs)))
                for t in targets:
                    self.assertIsInstance(t.get("expr"), str)
                    self.assertTrue(t["expr"].strip())
                    self.assertEqual(t["datasource"]["uid"], "${DS_PROMETHEUS}")
                    self.assertEqual(t["expr"].count("("), t["expr"].count(")"), t["expr"])

    def test_every_metric_is_exported_or_allowed(self):
        self.assertIn("openloop_requests_started_total", self.names)  # the source was read
        self.assertIn("openloop_ttft_seconds", self.histograms)
        self.assertIn("vllm:num_requests_running", self.server)       # the doc was read
        used = set()
        for where, expr in all_exprs(self.dash):
            names = metric_names(expr)
            self.assertTrue(names, f"{where}: no metric in {expr!r}")
            for name in names:
                used.add(name)
                with self.subTest(where=where, metric=name):
                    if name.startswith("openloop_"):
                        family = next((name[:-len(s)] for s in HISTOGRAM_SUFFIXES
                                       if name.endswith(s) and name[:-len(s)] in self.histograms), None)
                        self.assertTrue(name in self.names or family is not None,
                                        f"{name} is not a metric openloop exports")
                    else:
                        self.assertIn(name, self.server, f"{name} is not in docs/metrics.md's allow list")
        # The panels the dashboard promises.
        for name in ("openloop_requests_started_total", "openloop_requests_completed_total",
                     "openloop_requests_failed_total", "openloop_in_flight", "openloop_ttft_seconds_bucket",
                     "openloop_itl_seconds_bucket", "openloop_e2e_seconds_bucket",
                     "openloop_schedule_lag_seconds_bucket", "openloop_window_ttft_seconds",
                     "openloop_generator_resident_memory_bytes", "openloop_generator_cpu_seconds_total",
                     "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                     "vllm:num_preemptions_total", "vllm:generation_tokens_total"):
            self.assertIn(name, used)

    def test_histograms_are_read_by_bucket(self):
        for where, expr in all_exprs(self.dash):
            for name in metric_names(expr):
                with self.subTest(where=where):
                    self.assertNotIn(name, self.histograms, "a histogram family is read by its _bucket series")
            if "histogram_quantile" in expr:
                self.assertRegex(expr, r"by \(le\)", where)

    def test_every_exported_name_is_documented(self):
        with open(METRICS_DOC, encoding="utf-8") as f:
            doc = f.read()
        for name in sorted(self.names | self.histograms):
            self.assertIn(f"`{name}", doc, f"{name} missing from docs/metrics.md")


if __name__ == "__main__":
    unittest.main()
