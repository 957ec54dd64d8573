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
import { createRequire } from "node:module";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const { Template } = require("@huggingface/jinja");

function fail(message) {
  process.stderr.write(`reference.mjs: ${message}\n`);
  process.exit(2);
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    fail(`${file}: ${e.message}`);
  }
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

// A Hugging Face tokenizer from a model directory (tokenizer.json and, when
// there, tokenizer_config.json) or a tokenizer.json file; a file not named
// tokenizer.json (a hand-built test file) is read without a config.
function loadHf(path) {
  const { TokenizerLoader } = require("@lenml/tokenizers");
  let jsonFile = path;
  let configFile = null;
  if (existsSync(path) && statSync(path).isDirectory()) {
    jsonFile = join(path, "tokenizer.json");
    configFile = join(path, "tokenizer_config.json");
  } else if (basename(path) === "tokenizer.json") {
    configFile = join(dirname(path), "tokenizer_config.json");
  }
  if (!existsSync(jsonFile)) fail(`${jsonFile}: no such file`);
  const tokenizerJSON = readJson(jsonFile);
  const tokenizerConfig = configFile && existsSync(configFile) ? readJson(configFile) : {};
  const tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
  // Hugging Face transformers' LlamaTokenizerFast and GemmaTokenizerFast
  // replace the file's post-processor by BOS and EOS as tokenizer_config asks
  // (add_bos_token, true when absent; add_eos_token, false when absent), and
  // servers (vLLM, SGLang) load them so; transformers.js keeps the file's.
  // DeepSeek V3's file adds nothing and its config asks for BOS.
  const special = (name) => {
    const id = tokenizer.model.tokens_to_ids.get(tokenizer.getToken(name));
    if (id === undefined) fail(`${path}: tokenizer_config.json asks for ${name}, which has no id`);
    return [id];
  };
  const hfSpecial = /^(Llama|Gemma)Tokenizer(Fast)?$/.test(tokenizerConfig.tokenizer_class ?? "")
    ? (ids) => [
        ...(tokenizerConfig.add_bos_token ?? true ? special("bos_token") : []),
        ...ids,
        ...(tokenizerConfig.add_eos_token ?? false ? special("eos_token") : []),
      ]
    : null;
  return {
    encode: (text, addSpecial) =>
      addSpecial && hfSpecial
        ? hfSpecial(tokenizer.encode(text, { add_special_tokens: false }))
        : tokenizer.encode(text, { add_special_tokens: addSpecial }),
    // Raw decode: clean_up_tokenization_spaces would drop the space before
    // punctuation (Llama 3's config asks for it), and openloop decodes ids
    // into prompt text that must re-encode to the same ids.
    decode: (ids) =>
      ids.length === 0
        ? ""
        : tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    // apply_chat_template's steps with a newer Jinja than the one
    // @lenml/tokenizers bundles (that one fails on Qwen3's and Gemma 3's
    // templates): the template rendered with the special tokens by name, then
    // encoded with no special tokens added.
    chat: (messages) => {
      if (!tokenizer.chat_template) fail(`${path}: no chat_template in tokenizer_config.json`);
      const template = tokenizer.get_chat_template();
      if (typeof template !== "string") fail(`${path}: chat_template is not one string`);
      const names = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];
      const tokens = Object.fromEntries(names.map((n) => [n, tokenizer.getToken(n)]).filter(([, v]) => v));
      const text = new Template(template).render({ messages, add_generation_prompt: true, ...tokens });
      return tokenizer.encode(text, { add_special_tokens: false });
    },
  };
}

// tiktoken's own encodings, from the package's compressed rank files;
// special tokens written in text are matched as such (allowed_special "all"),
// as openloop matches them. tiktoken adds nothing around a sequence.
function loadTiktoken(name) {
  if (!["cl100k_base", "o200k_base"].includes(name)) fail(`tiktoken: ${name}: not cl100k_base or o200k_base`);
  const { Tiktoken } = require("tiktoken/lite");
  const ranks = require(`tiktoken/encoders/${name}.json`);
  const encoding = new Tiktoken(ranks.bpe_ranks, ranks.special_tokens, ranks.pat_str);
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return {
    encode: (text) => Array.from(encoding.encode(text, "all")),
    decode: (ids) => decoder.decode(encoding.decode(Uint32Array.from(ids))),
  };
}

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
if ((mode === "hf" || mode === "tiktoken") && rest.length === 2) tokenize(mode, rest[0], rest[1], addSpecial);
else if (mode === "chat" && rest.length === 2 && !addSpecial) chat(rest[0], rest[1]);
else if (mode === "speed" && rest.length === 3 && !addSpecial) speed(rest[0], rest[1], rest[2]);
else fail(usage);
