// The reference tokenizers, loaded: reference.mjs and
// test/servers/hf_usage_server.mjs use them. Each has encode(text,
// addSpecial) and decode(ids); a Hugging Face one also chat(messages).
// Errors are thrown with the file they concern.
import { createRequire } from "node:module";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const require = createRequire(import.meta.url);

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
}

// A Hugging Face tokenizer from a model directory (tokenizer.json and, when
// there, tokenizer_config.json) or a tokenizer.json file; a file not named
// tokenizer.json (a hand-built test file) is read without a config.
// chatTemplate, when given, replaces the config's (as a server's
// --chat-template does).
export function loadHf(path, chatTemplate = null) {
  const { TokenizerLoader } = require("@lenml/tokenizers");
  const { Template } = require("@huggingface/jinja");
  let jsonFile = path;
  let configFile = null;
  if (existsSync(path) && statSync(path).isDirectory()) {
    jsonFile = join(path, "tokenizer.json");
    configFile = join(path, "tokenizer_config.json");
  } else if (basename(path) === "tokenizer.json") {
    configFile = join(dirname(path), "tokenizer_config.json");
  }
  if (!existsSync(jsonFile)) throw new Error(`${jsonFile}: no such file`);
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
    if (id === undefined) throw new Error(`${path}: tokenizer_config.json asks for ${name}, which has no id`);
    return [id];
  };
  const hfSpecial = /^(Llama|Gemma)Tokenizer(Fast)?$/.test(tokenizerConfig.tokenizer_class ?? "")
    ? (ids) => [
        ...(tokenizerConfig.add_bos_token ?? true ? special("bos_token") : []),
        ...ids,
        ...(tokenizerConfig.add_eos_token ?? false ? special("eos_token") : []),
      ]
    : null;
  const encode = (text, addSpecial) =>
    addSpecial && hfSpecial
      ? hfSpecial(tokenizer.encode(text, { add_special_tokens: false }))
      : tokenizer.encode(text, { add_special_tokens: addSpecial });
  return {
    encode,
    // As transformers decodes by default: special tokens kept, and the spaces
    // tokenizer_config's clean_up_tokenization_spaces asks to clean up, cleaned.
    decode: (ids) => (ids.length === 0 ? "" : tokenizer.decode(ids, { skip_special_tokens: false })),
    // apply_chat_template's steps with a newer Jinja than the one
    // @lenml/tokenizers bundles (that one fails on Qwen3's and Gemma 3's
    // templates): the template rendered with the special tokens by name, then
    // encoded with no special tokens added.
    chat: (messages) => {
      if (!chatTemplate && !tokenizer.chat_template) throw new Error(`${path}: no chat_template in tokenizer_config.json`);
      const template = chatTemplate ?? tokenizer.get_chat_template();
      if (typeof template !== "string") throw new Error(`${path}: chat_template is not one string`);
      const names = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];
      const tokens = Object.fromEntries(names.map((n) => [n, tokenizer.getToken(n)]).filter(([, v]) => v));
      const text = new Template(template).render({ messages, add_generation_prompt: true, ...tokens });
      return encode(text, false);
    },
  };
}

// tiktoken's own encodings, from the package's compressed rank files;
// special tokens written in text are matched as such (allowed_special "all"),
// as openloop matches them. tiktoken adds nothing around a sequence.
export function loadTiktoken(name) {
  if (!["cl100k_base", "o200k_base"].includes(name)) throw new Error(`tiktoken: ${name}: not cl100k_base or o200k_base`);
  const { Tiktoken } = require("tiktoken/lite");
  const ranks = require(`tiktoken/encoders/${name}.json`);
  const encoding = new Tiktoken(ranks.bpe_ranks, ranks.special_tokens, ranks.pat_str);
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return {
    encode: (text) => Array.from(encoding.encode(text, "all")),
    decode: (ids) => decoder.decode(encoding.decode(Uint32Array.from(ids))),
  };
}
