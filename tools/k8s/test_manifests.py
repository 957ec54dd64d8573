"""Checks tools/k8s's manifests: each parses as YAML once filled the way its
header says (envsubst with the variables it lists), holds what Kubernetes
requires of its kinds, and its containers' commands, run here as the Job
controller would run them (one process per completion index, Kubernetes'
$(NAME) expansion, /results a temporary directory), drive a real `openloop
sim` on 127.0.0.1 to a merged run and a sharded sweep.

    OPENLOOP_BIN=build/openloop python3 -m unittest tools/k8s/test_manifests.py
"""

import json
import os
import re
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("OPENLOOP_BIN", os.path.join(HERE, "..", "..", "build", "openloop"))
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def header_variables(text):
    """The variables the header's envsubst line fills."""
    m = re.search(r"envsubst '([^']*)'", text)
    assert m, "no envsubst line in the header"
    return [v.lstrip("$") for v in m.group(1).split()]


def fill(name, values):
    with open(os.path.join(HERE, name)) as f:
        text = f.read()
    listed = header_variables(text)
    used = set(re.findall(r"\$\{([A-Z_]+)\}", text))
    assert used <= set(listed), f"{name}: ${{...}} not in its envsubst line: {sorted(used - set(listed))}"
    # envsubst with a list leaves every other $ alone, as safe_substitute does.
    return list(yaml.safe_load_all(string.Template(text).safe_substitute({k: values[k] for k in listed})))


def expand(word, env):
    """Kubernetes' $(NAME) expansion in command and args: $$ is a literal $."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), word)


def container_env(container, index):
    env = {}
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = str(e["value"])
        elif "fieldRef" in e.get("valueFrom", {}):
            assert "job-completion-index" in e["valueFrom"]["fieldRef"]["fieldPath"]
            env[e["name"]] = str(index)
    return env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Manifests(unittest.TestCase):
    values = {"RUN": "it-1", "SHARDS": "2", "RATE": "8", "DURATION": "3s", "SEED": "5", "RATES": "2,4",
              "STAGE_DURATION": "3s", "MIN_SAMPLES": "6", "SLO": "ttft_p99=5s",
              "IMAGE": "registry.example/openloop:test", "START_AT": "2026-12-03T10:40:00Z"}

    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        # h100-8b: both cases' rates far under its capacity, so no stage drains a queue (cpu-small's
        # saturated at 4 req/s).
        cls.sim = subprocess.Popen([BIN, "sim", "--preset", "h100-8b", "--port", str(cls.port)],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert "listening on" in cls.sim.stdout.readline()

    @classmethod
    def tearDownClass(cls):
        cls.sim.terminate()
        cls.sim.wait(timeout=10)
        cls.sim.stdout.close()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="openloop-k8s-")

    def tearDown(self):
        if not os.environ.get("OPENLOOP_KEEP"):
            shutil.rmtree(self.tmp, ignore_errors=True)

    def check_job(self, job, indexed):
        self.assertEqual(job["apiVersion"], "batch/v1")
        self.assertRegex(job["metadata"]["name"], DNS_LABEL)
        self.assertLessEqual(len(job["metadata"]["name"]), 63)
        spec = job["spec"]
        pod = spec["template"]["spec"]
        self.assertIn(pod["restartPolicy"], ("Never", "OnFailure"))
        # Not root, and the results volume writable to that user.
        security = pod["securityContext"]
        self.assertNotEqual(security["runAsUser"], 0)
        self.assertEqual(security["fsGroup"], security["runAsGroup"])
        self.assertEqual(spec["backoffLimit"], 0)
        if indexed:
            self.assertEqual(spec["completionMode"], "Indexed")
            self.assertIsInstance(spec["completions"], int)
            self.assertEqual(spec["completions"], spec["parallelism"])
        volumes = {v["name"] for v in pod.get("volumes", [])}
        for c in pod["containers"]:
            self.assertRegex(c["name"], DNS_LABEL)
            self.assertTrue(c["image"])
            names = [e["name"] for e in c.get("env", [])]
            self.assertEqual(len(names), len(set(names)), "an env name twice")
            for m in c.get("volumeMounts", []):
                self.assertIn(m["name"], volumes)
            # Every $(NAME) is one Kubernetes can expand.
            for word in c.get("command", []) + c.get("args", []):
                for ref in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", str(word)):
                    self.assertIn(ref, names, f"$({ref}) is not in the container's env")
            if indexed:
                # Guaranteed QoS: whole cores, no CFS throttling to show up as schedule lag.
                self.assertEqual(c["resources"]["requests"], c["resources"]["limits"])
        return pod

    def run_pods(self, pod, count):
        """Each completion index's container, as the Job controller starts it; their exit statuses."""
        c = pod["containers"][0]
        procs = []
        for i in range(count):
            env = container_env(c, i)
            argv = [expand(w, env).replace("/results", self.tmp) for w in c.get("command", []) + c.get("args", [])]
            if not c.get("command"):
                argv = [BIN] + argv  # the image's ENTRYPOINT
            if len(argv) > 1 and argv[1] in ("run", "sweep"):
                # As every integration test here: the manifests' accounting is checked on a shared,
                # busy machine, where the pods' 1 ms lag bound judges the host, not the manifest.
                argv[2:2] = ["--lag-bound", "250ms"]
            if len(argv) > 1 and argv[1] == "sweep":
                # The sweep's own 5 s warm-up before each stage: half this case's time, and nothing it checks.
                argv[2:2] = ["--warmup", "0"]
            log = os.path.join(self.tmp, f"{c['name']}-{i}.log")
            path = os.path.dirname(os.path.abspath(BIN)) + os.pathsep + os.environ["PATH"]
            with open(log, "w") as out:
                procs.append((subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                               env={**os.environ, "PATH": path}), log))
        codes = []
        for p, log in procs:
            p.wait(timeout=300)
            codes.append(p.returncode)
            if p.returncode != 0:
                with open(log) as f:
                    sys.stderr.write(f.read())
        return codes

    def read(self, *path):
        with open(os.path.join(self.tmp, *path)) as f:
            return f.read()

    def read_json(self, *path):
        return json.loads(self.read(*path))

    def fill_now(self, seconds=3):
        """The example values, the simulator as the target and START_AT a few seconds ahead."""
        return {**self.values, "TARGET": f"http://127.0.0.1:{self.port}",
                "START_AT": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + seconds))}

    def test_run_manifest_shards_and_merges(self):
        values = self.fill_now()
        docs = fill("run.yaml", values)
        kinds = [d["kind"] for d in docs]
        self.assertEqual(kinds, ["PersistentVolumeClaim", "Job", "Job"])
        pvc, shards, merge = docs
        self.assertIn("ReadWriteMany", pvc["spec"]["accessModes"])
        pod = self.check_job(shards, indexed=True)
        merge_pod = self.check_job(merge, indexed=False)
        for p in (pod, merge_pod):
            self.assertEqual(p["volumes"][0]["persistentVolumeClaim"]["claimName"], pvc["metadata"]["name"])
        args = pod["containers"][0]["args"]
        self.assertEqual(args[0], "run")
        for flag in ("--shard", "--start-at", "--out"):
            self.assertIn(flag, args)
        # The shard is the pod's completion index, of completions.
        self.assertEqual(args[args.index("--shard") + 1], "$(JOB_COMPLETION_INDEX)/$(SHARDS)")
        env = container_env(pod["containers"][0], 0)
        self.assertEqual(int(env["SHARDS"]), shards["spec"]["completions"])

        self.assertEqual(self.run_pods(pod, shards["spec"]["completions"]), [0, 0])
        self.assertEqual(self.run_pods(merge_pod, 1), [0])
        run = values["RUN"]
        parts = [self.read_json(run, f"shard-{i}", "summary.json") for i in range(2)]
        merged = self.read_json(run, "merged", "summary.json")
        self.assertEqual([p["shard"] for p in parts], ["0/2", "1/2"])
        self.assertEqual(merged["completed"], sum(p["completed"] for p in parts))
        self.assertGreater(merged["completed"], 0)
        self.assertEqual(merged["request_rate"], 8.0)
        self.assertTrue(merged["validity"]["valid"], merged["validity"]["reasons"])
        self.assertEqual(merged["merged"]["start_spread_ms"], 0.0)

    def test_sweep_manifest_runs_a_sharded_sweep(self):
        values = self.fill_now()
        (job,) = fill("sweep.yaml", values)
        pod = self.check_job(job, indexed=True)
        self.assertEqual(pod["containers"][0]["args"][0], "sweep")
        self.assertEqual(self.run_pods(pod, job["spec"]["completions"]), [0, 0])
        run = values["RUN"]
        sweep = self.read_json(run, "sweep.json")
        self.assertEqual([s["offered_rate"] for s in sweep["stages"]], [2.0, 4.0])
        for stage in sweep["stages"]:
            stage_dir = os.path.dirname(stage["dir"])
            parts = [self.read_json(run, stage_dir, f"shard-{i}-of-2", "summary.json") for i in range(2)]
            merged = self.read_json(run, stage_dir, "merged", "summary.json")
            self.assertEqual(merged["completed"], sum(p["completed"] for p in parts))
            self.assertEqual(stage["completed"], merged["completed"])
            # The later stage started where the barrier put it, on time on both shards.
            self.assertEqual(parts[0]["start"]["start_at_ns"], parts[1]["start"]["start_at_ns"])
            for p in parts:
                self.assertEqual(p["start"]["late_ms"], 0.0)
        # Both shards took the same decisions, stage by stage.
        logs = [self.read(f"openloop-{i}.log") for i in range(2)]
        decisions = [re.findall(r"^stage \d+: .*$", log, re.M) for log in logs]
        self.assertEqual(len(decisions[0]), 2)
        self.assertEqual(decisions[0], decisions[1])


if __name__ == "__main__":
    unittest.main()
