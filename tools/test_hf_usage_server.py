"""Tests for test/servers/hf_usage_server.mjs: its usage counts are the reference's, its shapes OpenAI's.

    OPENLOOP_BIN=build/openloop python3 -m unittest tools/test_hf_usage_server.py   (from the repo root)

Needs node and the reference tokenizers (tools/deps --tests); fails, not skips,
without them. Run by ctest as ref_hf_usage_server (label ref).
"""

import json
import os
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "tools", "tokenizer-reference")
LLAMA3 = os.path.join(REF, "node_modules", "@lenml", "tokenizer-llama3", "models")
CHAT = os.path.join(ROOT, "test", "data", "tokenizers", "chat.jsonl")


class HfUsageServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(LLAMA3):
            raise AssertionError(f"{LLAMA3} is missing: run tools/deps --tests")
        cls.server = subprocess.Popen(
            ["node", os.path.join(ROOT, "test", "servers", "hf_usage_server.mjs"), "--tokenizer-dir", LLAMA3,
             "--port", "0", "--model", "llama3"], stdout=subprocess.PIPE, text=True)
        line = cls.server.stdout.readline()
        if " listening on http://127.0.0.1:" not in line:
            cls.server.kill()
            raise AssertionError(f"unexpected first line: {line!r}")
        cls.url = line.split(" on ")[1].strip()

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(10)
        cls.server.stdout.close()

    def request(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def reference(self, mode, path):
        out = subprocess.run(["node", os.path.join(REF, "reference.mjs"), mode, LLAMA3, path, *(
            ["--add-special"] if mode == "hf" else [])], capture_output=True, text=True, check=True, timeout=60)
        return [json.loads(line)["ids"] for line in out.stdout.splitlines()]

    def test_chat_prompt_tokens_are_the_templates_count(self):
        expected = self.reference("chat", CHAT)
        with open(CHAT, encoding="utf-8") as f:
            conversations = [json.loads(line) for line in f]
        for messages, ids in zip(conversations, expected):
            status, text = self.request("/v1/chat/completions", {"model": "llama3", "messages": messages, "max_tokens": 3})
            self.assertEqual(status, 200, text)
            body = json.loads(text)
            self.assertEqual(body["usage"], {"prompt_tokens": len(ids), "completion_tokens": 3,
                                             "total_tokens": len(ids) + 3})
            self.assertEqual(body["choices"][0]["message"]["content"], " tok tok tok")

    def test_completion_stream_ends_with_usage_then_done(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as f:
            f.write(json.dumps("Hello world, it's 1,000,000 tokens <|begin_of_text|>") + "\n")
            f.flush()
            [ids] = self.reference("hf", f.name)
        status, text = self.request("/v1/completions", {
            "prompt": "Hello world, it's 1,000,000 tokens <|begin_of_text|>", "max_tokens": 4, "stream": True,
            "stream_options": {"include_usage": True}})
        self.assertEqual(status, 200, text)
        events = [e[len("data: "):] for e in text.split("\n\n") if e]
        self.assertEqual(events[-1], "[DONE]")
        chunks = [json.loads(e) for e in events[:-1]]
        self.assertEqual("".join(c["choices"][0]["text"] for c in chunks[:-1]), " tok" * 4)
        self.assertEqual(chunks[-2]["choices"][0]["finish_reason"], "length")
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertEqual(chunks[-1]["usage"], {"prompt_tokens": len(ids), "completion_tokens": 4,
                                               "total_tokens": len(ids) + 4})

    def test_no_tokenize_endpoint_and_errors_as_vllm_answers_them(self):
        self.assertEqual(self.request("/tokenize", {"prompt": "x"}), (404, '{"detail":"Not Found"}'))
        status, text = self.request("/v1/completions", {"model": "other", "prompt": "x"})
        self.assertEqual((status, json.loads(text)["type"]), (404, "NotFoundError"))
        status, text = self.request("/v1/chat/completions", {"messages": []})
        self.assertEqual((status, json.loads(text)["type"]), (400, "BadRequestError"))
        status, text = self.request("/v1/models")
        self.assertEqual([m["id"] for m in json.loads(text)["data"]], ["llama3"])

    def test_openloop_reads_its_usage(self):
        # Its streams, parsed by openloop: output and prompt tokens come from the usage chunk. The
        # schedule's lag is not what this checks: on a shared 2-core machine it can pass 1 ms.
        with tempfile.TemporaryDirectory() as out:
            run = subprocess.run([os.environ.get("OPENLOOP_BIN", os.path.join(ROOT, "build", "openloop")), "run",
                                  "--target", self.url, "--rate", "50", "--num-requests", "10", "--input-len", "50",
                                  "--output-len", "5", "--tokenizer", "words", "--lag-bound", "250ms",
                                  "--out", os.path.join(out, "r")],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("output 50 (source: usage)", run.stdout)
