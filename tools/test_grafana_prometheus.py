"""Runs tools/grafana/openloop-dashboard.json against a real Prometheus: Debian's
prometheus scrapes a short `openloop run` (--metrics-listen) and the `openloop
sim` it loads, then every query of the dashboard (its panels' PromQL and its
variables' label_values) goes through Prometheus's HTTP API with Grafana's
variables filled in. Each must return a series with finite values, the values
must be in the panel's unit, and the counters and a histogram_quantile of TTFT
must agree with the run's summary.json. tools/test_grafana_dashboard.py checks
the dashboard statically; this proves it reads what openloop serves.

    OPENLOOP_BIN=build/openloop python3 -m unittest tools/test_grafana_prometheus.py   (from the repo root)

Standard library only; /usr/bin/prometheus comes from `tools/deps --tests`.
Loopback only; about 25 s.
"""

import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("OPENLOOP_BIN", os.path.join(ROOT, "build", "openloop"))
PROMETHEUS = "/usr/bin/prometheus"
DASHBOARD = os.path.join(ROOT, "tools", "grafana", "openloop-dashboard.json")

SCRAPE_S = 0.5
# Grafana's $__rate_interval: max($__interval + scrape interval, 4 x scrape interval).
STEP_S = 1.0
RATE_INTERVAL = f"{round(1000 * max(STEP_S + SCRAPE_S, 4 * SCRAPE_S))}ms"  # Prometheus reads no 0.5s
RATE = 5           # req/s offered
DURATION_S = 14    # past the first 10 s window, so the window gauges appear
START_DELAY_S = 7  # --start-at: Prometheus's first scrapes come some 5.5 s after it starts
FAULT_500 = 0.1    # some failures, so the failed-by-class query (> 0) has data
OPENLOOP_JOB, SERVER_JOB = "openloop", "vllm-sim"
# openloop's histograms put a sample in a Prometheus bucket up to 0.1 % above its
# bound, and a summary percentile is within 0.05 % of its sample (docs/metrics.md).
HIST_REL = 0.002

# Server metrics the dashboard reads that openloop sim does not serve (it never
# preempts: a request waits for KV space). A stand-in exporter in this process
# serves them under the server job, so the query is still run on real data of
# its type; the sim must really lack them (else drop the stand-in).
STAND_IN = {"vllm:num_preemptions_total": "counter"}


class Failure(Exception):
    """Setup went wrong: every test then fails with this message."""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, timeout, interval=0.05):
    """predicate()'s first truthy value, polled until timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise Failure(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode("utf-8")


class StandIn(BaseHTTPRequestHandler):
    """/metrics with STAND_IN's counters, one more on every scrape."""
    scrapes = 0

    def do_GET(self):
        if self.path != "/metrics":
            self.send_error(404)
            return
        StandIn.scrapes += 1
        lines = []
        for name, kind in STAND_IN.items():
            lines += [f"# TYPE {name} {kind}", f'{name}{{model_name="stand-in"}} {StandIn.scrapes}']
        body = ("\n".join(lines) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def substitute(expr, values):
    """expr with Grafana's $name, ${name} and [[name]] replaced; an unknown
    variable is an error, not a silently broken query."""
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            raise Failure(f"the dashboard uses ${name}, which this test does not fill in: {expr!r}")
        return values[name]
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)", one, expr)


def grafana_multi(values):
    """What Grafana writes for a multi-value variable inside =~ (a regex
    special doubly escaped: once for the regex, once for the PromQL string)."""
    escaped = [re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", v) for v in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


def targets(dashboard):
    """(panel, target) for every query of every panel, rows' panels included."""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets") or []:
                out.append((p, t))
            walk(p.get("panels") or [])

    walk(dashboard.get("panels") or [])
    return out


class GrafanaPrometheusTest(unittest.TestCase):
    setup_error = None

    @classmethod
    def setUpClass(cls):
        try:
            cls._start()
        except (Failure, OSError) as e:  # OSError: a process or Prometheus's API unreachable
            cls.setup_error = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"

    def setUp(self):
        if self.setup_error:
            self.fail(self.setup_error)

    # --- the fixture: sim, stand-in, Prometheus, one run ---

    @classmethod
    def _start(cls):
        if not os.access(PROMETHEUS, os.X_OK):
            raise Failure(f"{PROMETHEUS} is missing: install Debian's prometheus package with `tools/deps --tests`")
        if not os.access(BIN, os.X_OK):
            raise Failure(f"no openloop binary at {BIN} (set OPENLOOP_BIN)")
        with open(DASHBOARD, encoding="utf-8") as f:
            cls.dash = json.load(f)
        cls.tmp = tempfile.mkdtemp(prefix="openloop-grafana-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        cls._start_sim()
        cls._start_stand_in()
        cls._start_run()
        cls._start_prometheus()
        cls._finish_run()
        cls._read_variables()
        cls._run_dashboard()

    @classmethod
    def _spawn(cls, argv, **kwargs):
        """A child killed at class teardown, and by the kernel if this process dies first."""
        proc = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", *argv], **kwargs)

        def stop():
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
        cls.addClassCleanup(stop)
        return proc

    @classmethod
    def _start_sim(cls):
        out, err = os.path.join(cls.tmp, "sim.out"), os.path.join(cls.tmp, "sim.err")
        with open(out, "w") as o, open(err, "w") as e:
            cls.sim = cls._spawn([BIN, "sim", "--preset", "cpu-small", "--seed", "1",
                                  "--fault-500", str(FAULT_500), "--port", "0", "--exit-with-parent"],
                                 stdout=o, stderr=e)

        def port():
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", read_text(out))
            if m:
                return int(m.group(1))
            if cls.sim.poll() is not None:
                raise Failure(f"openloop sim exited ({cls.sim.returncode}): {read_text(err)}")
            return None
        cls.sim_port = wait_for("openloop sim's listening line", port, 10)
        served = http_get(f"http://127.0.0.1:{cls.sim_port}/metrics")
        for name in STAND_IN:
            if re.search(rf"^{re.escape(name)}[{{ ]", served, re.M):
                raise Failure(f"openloop sim now serves {name}: drop it from STAND_IN")

    @classmethod
    def _start_stand_in(cls):
        server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()

        def stop():
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
        cls.addClassCleanup(stop)
        cls.stand_in_port = server.server_address[1]

    @classmethod
    def _start_prometheus(cls):
        config = os.path.join(cls.tmp, "prometheus.yml")
        with open(config, "w") as f:
            json.dump({  # JSON is YAML
                "global": {"scrape_interval": f"{round(SCRAPE_S * 1000)}ms",  # it reads no "0.5s"
                           "scrape_timeout": f"{round(SCRAPE_S * 800)}ms"},
                "scrape_configs": [
                    {"job_name": OPENLOOP_JOB, "static_configs": [{"targets": [f"127.0.0.1:{cls.metrics_port}"]}]},
                    {"job_name": SERVER_JOB, "static_configs": [
                        {"targets": [f"127.0.0.1:{cls.sim_port}", f"127.0.0.1:{cls.stand_in_port}"]}]}]}, f)
        log = os.path.join(cls.tmp, "prometheus.log")
        # The port is picked then bound by Prometheus: another process may take
        # it in between, so a bind failure is tried again on another.
        for attempt in range(3):
            port = free_port()
            with open(log, "w") as f:
                proc = cls._spawn([
                    PROMETHEUS, f"--config.file={config}",
                    f"--storage.tsdb.path={os.path.join(cls.tmp, f'tsdb{attempt}')}",
                    f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                    stdout=subprocess.DEVNULL, stderr=f)
            cls.prom = f"http://127.0.0.1:{port}"

            def ready():
                if proc.poll() is not None:
                    return "exited"
                try:
                    return http_get(cls.prom + "/-/ready", timeout=1) and "ready"
                except (urllib.error.URLError, OSError):
                    return None
            if wait_for("Prometheus to be ready", ready, 20) == "ready":
                cls.prom_proc = proc
                break
            if "address already in use" not in read_text(log):
                raise Failure(f"prometheus exited ({proc.returncode}): {read_text(log)[-2000:]}")
        else:
            raise Failure("prometheus found no free port in 3 tries")
        cls.prom_started = time.time()
        # Prometheus applies its targets on a 5 s tick, the first ones too.
        wait_for("Prometheus to scrape every target",
                 lambda: (lambda up: len(up) == 3 and all(s["value"][1] == "1" for s in up))(
                     cls.query("up", time.time())), START_DELAY_S + 5)

    @classmethod
    def _start_run(cls):
        """One bounded run, its schedule START_DELAY_S ahead so that Prometheus
        scrapes it from its first request (the port is openloop's pick, so no
        other process can take it in between)."""
        cls.out = os.path.join(cls.tmp, "run")
        cls.run_err = err = os.path.join(cls.tmp, "run.err")
        argv = [BIN, "run", "--target", f"http://127.0.0.1:{cls.sim_port}", "--rate", str(RATE),
                "--duration", f"{DURATION_S}s", "--start-at", f"@{time.time() + START_DELAY_S:.3f}",
                "--seed", "1", "--input-len", "32", "--output-len", "16",
                "--tokenizer-cache", "off", "--metrics-listen", "127.0.0.1:0", "--out", cls.out,
                # The final counts stay served after the results, until this test's SIGINT.
                "--metrics-linger", "120s",
                "--progress", "off", "--json", "--max-error-rate", "100%",
                # Validity is not what this test is about; a busy 2-core machine may lag.
                "--lag-bound", "100ms"]
        with open(err, "w") as e:
            cls.run_proc = run = cls._spawn(argv, stdout=subprocess.DEVNULL, stderr=e)

        def port():
            m = re.search(r"metrics on http://127\.0\.0\.1:(\d+)/metrics", read_text(err))
            if m:
                return int(m.group(1))
            if run.poll() is not None:
                raise Failure(f"openloop run exited ({run.returncode}) before serving metrics: {read_text(err)}")
            return None
        cls.metrics_port = wait_for("openloop run's metrics address", port, 10)

    @classmethod
    def _finish_run(cls):
        run, err = cls.run_proc, cls.run_err

        def lingering():
            if run.poll() is not None:
                raise Failure(f"openloop run exited ({run.returncode}) before lingering: {read_text(err)[-2000:]}")
            return "--metrics-linger" in read_text(err)
        # Its results are written and its final counts published before it says it lingers.
        wait_for("openloop run to finish and linger", lingering, START_DELAY_S + DURATION_S + 40)
        lingering_since = time.time()
        # A scrape that started after that read the final counts.
        wait_for(f"a scrape of openloop while it lingers (stderr: {read_text(err)[-500:]!r})",
                 lambda: any(float(s["value"][1]) > lingering_since for s in cls.query(
                     f'timestamp(openloop_requests_started_total{{job="{OPENLOOP_JOB}"}})', time.time())),
                 10 * SCRAPE_S + 5)
        cls.final_time = time.time()
        run.send_signal(signal.SIGINT)  # ends the linger, not the (finished) run: exit status 0
        try:
            run.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise Failure("openloop run did not end its linger within 30 s of SIGINT")
        if run.returncode != 0:
            raise Failure(f"openloop run exited {run.returncode}: {read_text(err)[-2000:]}")
        cls.end_time = time.time()
        with open(os.path.join(cls.out, "summary.json"), encoding="utf-8") as f:
            cls.summary = json.load(f)
        s = cls.summary
        cls.run_start = s["start"]["origin_wall_ns"] / 1e9
        cls.run_end = cls.run_start + s["duration"]
        scrapes = cls.query(f'up{{job="{OPENLOOP_JOB}"}}[5m]', cls.end_time)
        # Where the machine was too slow for START_DELAY_S, the checks on
        # rates start at Prometheus's first scrape of openloop.
        cls.seen_from = max(cls.run_start, scrapes[0]["values"][0][0])

    @classmethod
    def api(cls, path, params):
        url = f"{cls.prom}/api/v1/{path}?" + urllib.parse.urlencode(params, doseq=True)
        try:
            body = json.loads(http_get(url, timeout=10))
        except urllib.error.HTTPError as e:  # Prometheus answers a bad query with 400 and its reason
            body = json.loads(e.read().decode("utf-8", "replace"))
        if body.get("status") != "success":
            raise Failure(f"Prometheus refused {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    @classmethod
    def query(cls, expr, at):
        return cls.api("query", {"query": expr, "time": f"{at:.3f}"})["result"]

    @classmethod
    def query_range(cls, expr, start, end, step=STEP_S):
        return cls.api("query_range", {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                       "step": f"{step:g}"})["result"]

    @classmethod
    def _read_variables(cls):
        """Each query variable's values (Grafana's label_values(metric, label))."""
        cls.variables = {}
        for v in cls.dash.get("templating", {}).get("list", []):
            if v.get("type") != "query":
                continue
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q or "")
            if not m:
                raise Failure(f"variable {v['name']}: a query this test cannot run: {q!r}")
            values = cls.api(f"label/{m.group(2)}/values", {"match[]": m.group(1), "start": f"{cls.prom_started:.3f}",
                                                            "end": f"{cls.end_time:.3f}"})
            cls.variables[v["name"]] = (q, values)

    @classmethod
    def _run_dashboard(cls):
        """Every panel target as Grafana would run it over the run's time range."""
        start, end = cls.prom_started, cls.end_time
        fill = {"__rate_interval": RATE_INTERVAL, "__interval": f"{round(STEP_S * 1000)}ms",
                "__interval_ms": str(round(STEP_S * 1000)), "__range": f"{int(end - start)}s",
                "__range_s": str(int(end - start)), "__range_ms": str(int((end - start) * 1000))}
        for name, (_, values) in cls.variables.items():
            if values:
                fill[name] = grafana_multi(values)
        cls.results = []  # (panel, target, the expression as run, Prometheus's series)
        for panel, target in targets(cls.dash):
            expr = substitute(target["expr"], fill)
            if target.get("instant") and not target.get("range"):
                series = [{"metric": s["metric"], "values": [s["value"]]} for s in cls.query(expr, cls.final_time)]
            else:
                series = cls.query_range(expr, start, end)
            cls.results.append((panel, target, expr, series))

    # --- helpers for the checks ---

    def last(self, expr):
        """expr's value over the run's final counts (openloop's series are stale once it exited)."""
        result = self.query(expr, self.end_time)
        self.assertEqual(len(result), 1, f"{expr}: {result}")
        return float(result[0]["value"][1])

    def buckets(self, family):
        """[(upper bound, cumulative count)] of an exported histogram at the end, +Inf last."""
        result = self.query(f'last_over_time({family}_bucket{{job="{OPENLOOP_JOB}"}}[5m])', self.end_time)
        out = sorted((float(s["metric"]["le"]), float(s["value"][1])) for s in result)
        self.assertTrue(out and math.isinf(out[-1][0]), f"{family}: no buckets ({result})")
        return out

    @staticmethod
    def bucket_of(buckets, rank):
        """(lower, upper) bounds of the bucket histogram_quantile reads for this rank."""
        lower = 0.0
        for le, count in buckets:
            if count >= rank:
                return lower, le
            lower = le
        return lower, math.inf

    @staticmethod
    def unit(panel):
        return panel.get("fieldConfig", {}).get("defaults", {}).get("unit")

    def finite_points(self, panel_title, legend, unit, start=0.0, end=math.inf):
        """The expression of a panel's target and its finite values from start to end;
        the panel must show them in unit."""
        for panel, target, expr, series in self.results:
            if panel["title"] == panel_title and target.get("legendFormat") == legend:
                self.assertEqual(self.unit(panel), unit, f"panel {panel_title!r} shows {expr} in the wrong unit")
                return expr, [float(v) for s in series for t, v in s["values"]
                              if start <= t <= end and math.isfinite(float(v))]
        self.fail(f"no target {legend!r} in panel {panel_title!r}: this test's checks need updating")

    def assert_mean_near(self, panel_title, legend, unit, expected, what):
        # Inside the measured window, its ramp-up and its end left out.
        expr, points = self.finite_points(panel_title, legend, unit, self.seen_from + 2, self.run_end - 1)
        self.assertTrue(points, f"{panel_title} / {legend}: no points inside the run ({expr})")
        mean = sum(points) / len(points)
        # A unit error is a factor of 60 or 1000; rate() over 2 s windows of a
        # Poisson run is not off by 2.
        self.assertTrue(expected / 2 <= mean <= expected * 2,
                        f"{panel_title} / {legend}: mean {mean:.3g} over the run, but {what} is {expected:.3g}: "
                        f"wrong unit? ({expr})")

    # --- the checks ---

    def test_variables_find_the_jobs(self):
        self.assertEqual(set(self.variables), {"job", "server_job"}, "the dashboard's query variables changed")
        for name, job in (("job", OPENLOOP_JOB), ("server_job", SERVER_JOB)):
            query, values = self.variables[name]
            self.assertEqual(values, [job], f"variable {name} ({query}) found {values}")

    def test_every_query_returns_finite_values(self):
        self.assertGreater(len(self.results), 20, "the dashboard's panels were not all read")
        for panel, target, expr, series in self.results:
            with self.subTest(panel=panel["title"], ref=target.get("refId")):
                finite = [v for s in series for _, v in s["values"] if math.isfinite(float(v))]
                self.assertTrue(series, f"panel {panel['title']!r} target {target.get('refId')}: "
                                        f"no series for {expr}")
                self.assertTrue(finite, f"panel {panel['title']!r} target {target.get('refId')}: "
                                        f"no finite value in {len(series)} series for {expr}")

    def test_counters_match_summary(self):
        s = self.summary
        job = f'job="{OPENLOOP_JOB}"'
        self.assertGreater(s["failed"], 0, "the sim's --fault-500 made no failure: the failed query is untested")
        for metric, expected in (("openloop_requests_started_total", s["started"]),
                                 ("openloop_requests_completed_total", s["completed"]),
                                 ("openloop_requests_failed_total", s["failed"]),
                                 ("openloop_requests_refused_total", s["refused"]),
                                 ("openloop_output_tokens_total", s["total_output_tokens"]),
                                 ("openloop_input_tokens_total", s["total_input_tokens"]),
                                 ("openloop_lost_events_total", s["lost_events"])):
            with self.subTest(metric=metric):
                got = self.last(f"sum(last_over_time({metric}{{{job}}}[5m]))")
                self.assertEqual(got, expected, f"{metric} in Prometheus is {got}, summary.json says {expected}")
        self.assertEqual(s["started"], s["completed"] + s["failed"] + s["unfinished"])
        # The ttft histogram holds every completed request.
        self.assertEqual(self.buckets("openloop_ttft_seconds")[-1][1], s["histograms"]["ttft"]["count"])

    def test_ttft_quantiles_within_a_bucket_of_summary(self):
        buckets = self.buckets("openloop_ttft_seconds")
        total = buckets[-1][1]
        for q in (0.5, 0.9, 0.99):
            with self.subTest(q=q):
                expr = (f'histogram_quantile({q}, sum by (le) '
                        f'(last_over_time(openloop_ttft_seconds_bucket{{job="{OPENLOOP_JOB}"}}[5m])))')
                estimate = self.last(expr)
                lower, upper = self.bucket_of(buckets, q * total)
                self.assertTrue(lower <= estimate <= upper, f"{expr} = {estimate}, outside its bucket "
                                                            f"({lower}, {upper}]")
                exact = self.summary[f"p{round(q * 100)}_ttft_ms"] / 1000
                self.assertTrue(lower * (1 - HIST_REL) <= exact <= upper * (1 + HIST_REL),
                                f"summary.json's TTFT p{round(q * 100)} {exact:.6f} s is not in the bucket "
                                f"({lower}, {upper}] where Prometheus puts it ({estimate:.6f} s)")

    def test_latency_panels_are_in_seconds(self):
        # A histogram_quantile over any window lies between the bucket of the
        # run's smallest sample and that of its largest; an exact window
        # percentile between the smallest and largest themselves.
        s = self.summary
        families = {"openloop_ttft_seconds": "ttft", "openloop_itl_seconds": "itl", "openloop_tpot_seconds": "tpot",
                    "openloop_e2e_seconds": "e2el", "openloop_schedule_lag_seconds": "lag"}
        windows = {"openloop_window_ttft_seconds": "ttft", "openloop_window_itl_seconds": "itl",
                   "openloop_window_tpot_seconds": "tpot", "openloop_window_e2e_seconds": "e2el"}
        checked = 0
        for panel, target, expr, series in self.results:
            values = [float(v) for x in series for _, v in x["values"] if math.isfinite(float(v))]
            m = re.search(r"histogram_quantile\(.*?(openloop_\w+)_bucket", expr)
            w = re.match(r"\s*(openloop_window_\w+_seconds)\{", expr)
            if self.unit(panel) != "s" and not m and not w:
                continue
            with self.subTest(panel=panel["title"], ref=target.get("refId")):
                self.assertEqual(self.unit(panel), "s", f"panel {panel['title']!r} shows {expr} in the wrong unit")
                if m:
                    key = families.get(m.group(1))
                    self.assertIsNotNone(key, f"no summary key for {m.group(1)}: extend families")
                    bounds = [le for le, _ in self.buckets(m.group(1))]
                    lo = max([b for b in bounds if b < s[f"min_{key}_ms"] / 1000], default=0.0)
                    hi = min([b for b in bounds if b >= s[f"max_{key}_ms"] / 1000 * (1 - HIST_REL)])
                    if math.isinf(hi):
                        hi = bounds[-2]  # histogram_quantile answers the top finite bound there
                elif w:
                    key = windows.get(w.group(1))
                    self.assertIsNotNone(key, f"no summary key for {w.group(1)}: extend windows")
                    lo, hi = s[f"min_{key}_ms"] / 1000, s[f"max_{key}_ms"] / 1000
                else:
                    self.fail(f"a panel in seconds with a query this test does not know: {expr}")
                for v in values:
                    self.assertTrue(lo * (1 - HIST_REL) <= v <= hi * (1 + HIST_REL),
                                    f"{panel['title']} / {target.get('legendFormat')}: {v} s outside "
                                    f"[{lo}, {hi}] that summary.json's {key} implies: wrong unit? ({expr})")
                checked += 1
        self.assertTrue(checked, "no panel in seconds was checked")

    def test_rate_panels_are_per_second(self):
        s = self.summary
        d = s["duration"]
        self.assert_mean_near("Request rate", "started", "reqps", s["started"] / d, "summary's started / duration")
        self.assert_mean_near("Request rate", "completed", "reqps", s["request_throughput"],
                              "summary's request_throughput")
        self.assert_mean_near("Token throughput", "output tokens/s", "short", s["output_throughput"],
                              "summary's output_throughput")
        self.assert_mean_near("Token throughput", "input tokens/s", "short", s["total_input_tokens"] / d,
                              "summary's input tokens / duration")
        self.assert_mean_near("Server token throughput", "generation tokens/s", "short", s["output_throughput"],
                              "summary's output_throughput")
        self.assert_mean_near("Server token throughput", "prompt tokens/s", "short", s["server_prompt_tokens"] / d,
                              "summary's server_prompt_tokens / duration")
        expr, failed = self.finite_points("Request rate", "failed: {{class}}", "reqps")
        self.assertTrue(all(v > 0 for v in failed), expr)
        for legend in ("offered", "achieved"):
            expr, points = self.finite_points("Window rates", legend, "reqps")
            self.assertTrue(all(RATE / 2.5 <= v <= RATE * 2.5 for v in points),
                            f"Window rates / {legend}: {points} at --rate {RATE}: wrong unit? ({expr})")

    def test_gauge_panels_are_in_their_units(self):
        s = self.summary
        expr, points = self.finite_points("In flight", "in flight", "short")
        self.assertTrue(all(0 <= v <= s["peak_inflight"] and v == int(v) for v in points),
                        f"in flight {points} vs peak_inflight {s['peak_inflight']} ({expr})")
        self.assertGreater(max(points), 0, expr)
        expr, points = self.finite_points("KV-cache usage", "KV cache", "percentunit")
        self.assertTrue(all(0 <= v <= 1 for v in points), f"percentunit is a fraction of 1: {points} ({expr})")
        self.assertGreater(max(points), 0, expr)
        expr, points = self.finite_points("Generator memory", "RSS", "bytes")
        self.assertTrue(all(1 << 20 <= v <= 16 << 30 for v in points), f"bytes: {points} ({expr})")
        expr, points = self.finite_points("Generator CPU", "CPU (cores)", "short")
        self.assertTrue(all(0 <= v <= 1.5 * (os.cpu_count() or 1) for v in points), f"cores: {points} ({expr})")
        expr, points = self.finite_points("Lost events", "lost", "short")
        self.assertEqual(set(points), {float(s["lost_events"])}, expr)
        for legend in ("running", "waiting"):
            expr, points = self.finite_points("Server requests", legend, "short")
            self.assertTrue(all(v >= 0 and v == int(v) for v in points), f"{legend}: {points} ({expr})")
        expr, points = self.finite_points("Server requests", "running", "short")
        self.assertGreater(max(points), 0, expr)


if __name__ == "__main__":
    unittest.main()
