// The reference tokenizers openloop's own are checked against
// (tools/test_tokenizer_reference.py): transformers.js's tokenizers
// (@lenml/tokenizers) for a Hugging Face tokenizer.json, the Rust tiktoken
// (wasm) for cl100k_base and o200k_base. Output has the shape of
// `openloop tokenize`, so the two are compared line by line.
//
//   node reference.mjs hf DIR|tokenizer.json CORPUS.jsonl [--add-special]
//   node reference.mjs tiktoken cl100k_base|o200k_base CORPUS.jsonl [--add-special]
//   node reference.mjs chat DIR MESSAGES.jsonl
//   node reference.mjs speed hf DIR FILE | speed tiktoken NAME FILE
//
// CORPUS lines are JSON strings; each gives {"ids":[...],"text":decode(ids)}.
// Bytes that are not UTF-8 become U+FFFD (WHATWG's decoder: one per maximal
// invalid subpart) before the line is parsed, as a JS string would have them.
// MESSAGES lines are JSON arrays of chat messages; each gives {"ids":[...]}:
// the model's chat template rendered with add_generation_prompt and tokenized
// as transformers.js's apply_chat_template does (no special tokens added),
// with @huggingface/jinja.
// speed prints one JSON line: bytes encoded, seconds, MB/s (10^6 bytes),
// the load's seconds apart; FILE is JSONL of strings (*.jsonl) or plain text
// lines.
import { readFileSync } from "node:fs";
import { loadHf, loadTiktoken } from "./tokenizers.mjs";

function fail(message) {
  process.stderr.write(`reference.mjs: ${message}\n`);
  process.exit(2);
}

// The lines of file as text; a final newline ends the last line.
function textLines(file) {
  const bytes = readFileSync(file);
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const lines = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    lines.push(decoder.decode(bytes.subarray(start, end)));
    start = end + 1;
  }
  return lines;
}

function jsonLines(file, check, what) {
  return textLines(file).map((line, i) => {
    let value;
    try {
      value = JSON.parse(line);
    } catch (e) {
      fail(`${file}:${i + 1}: ${e.message}`);
    }
    if (!check(value)) fail(`${file}:${i + 1}: not ${what}`);
    return value;
  });
}

const corpusLines = (file) => jsonLines(file, (v) => typeof v === "string", "a JSON string");

function load(kind, what) {
  if (kind === "hf") return loadHf(what);
  if (kind === "tiktoken") return loadTiktoken(what);
  fail(`unknown tokenizer kind ${kind} (hf or tiktoken)`);
}

function printLines(objects) {
  process.stdout.write(objects.map((o) => JSON.stringify(o) + "\n").join(""));
}

function tokenize(kind, what, corpus, addSpecial) {
  const tokenizer = load(kind, what);
  printLines(
    corpusLines(corpus).map((text) => {
      const ids = tokenizer.encode(text, addSpecial);
      return { ids, text: tokenizer.decode(ids) };
    })
  );
}

function chat(dir, messagesFile) {
  const tokenizer = loadHf(dir);
  const conversations = jsonLines(
    messagesFile,
    (v) => Array.isArray(v) && v.every((m) => m && typeof m.role === "string" && typeof m.content === "string"),
    "a JSON array of {role, content} messages"
  );
  printLines(conversations.map((messages) => ({ ids: tokenizer.chat(messages) })));
}

function speed(kind, what, file) {
  const started = process.hrtime.bigint();
  const tokenizer = load(kind, what);
  const texts = file.endsWith(".jsonl") ? corpusLines(file) : textLines(file);
  const loaded = process.hrtime.bigint();
  let tokens = 0;
  for (const text of texts) tokens += tokenizer.encode(text, false).length;
  const seconds = Number(process.hrtime.bigint() - loaded) / 1e9;
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
  printLines([
    {
      tokenizer: `${kind}:${what}`,
      bytes,
      tokens,
      seconds,
      mb_per_s: bytes / 1e6 / seconds,
      load_seconds: Number(loaded - started) / 1e9,
    },
  ]);
}

const usage =
  "usage: node reference.mjs hf DIR|tokenizer.json CORPUS.jsonl [--add-special]\n" +
  "       node reference.mjs tiktoken cl100k_base|o200k_base CORPUS.jsonl [--add-special]\n" +
  "       node reference.mjs chat DIR MESSAGES.jsonl\n" +
  "       node reference.mjs speed hf|tiktoken DIR|NAME FILE";
const args = process.argv.slice(2);
const addSpecial = args.includes("--add-special");
const positional = args.filter((a) => a !== "--add-special");
const [mode, ...rest] = positional;
try {
  if ((mode === "hf" || mode === "tiktoken") && rest.length === 2) tokenize(mode, rest[0], rest[1], addSpecial);
  else if (mode === "chat" && rest.length === 2 && !addSpecial) chat(rest[0], rest[1]);
  else if (mode === "speed" && rest.length === 3 && !addSpecial) speed(rest[0], rest[1], rest[2]);
  else fail(usage);
} catch (e) {
  fail(e.message);
}
