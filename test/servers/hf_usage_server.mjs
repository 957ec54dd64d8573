// An OpenAI-compatible server that reports usage and offers no /tokenize,
// as a hosted API or a gateway does: prompt_tokens are the real tokenizer's
// count, from the reference implementation (tools/tokenizer-reference), so
// that openloop's hf:, tiktoken: and usage modes can be checked exact against
// a server that only says how many tokens a prompt was. No model: it answers
// max_tokens words " tok", each one completion token. See README.md here.
//
//   node test/servers/hf_usage_server.mjs --tokenizer-dir DIR [--port 0] [--model hf-usage]
//       [--chat-template FILE]
import http from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadHf } from "../../tools/tokenizer-reference/tokenizers.mjs";

function usageExit(message) {
  process.stderr.write(`hf_usage_server.mjs: ${message}\n` +
    "usage: node test/servers/hf_usage_server.mjs --tokenizer-dir DIR [--port 0] [--model hf-usage] " +
    "[--chat-template FILE]\n");
  process.exit(2);
}

function parseArgs(argv) {
  const args = { port: 0, model: "hf-usage", tokenizerDir: null, chatTemplate: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usageExit(`${flag} needs a value`);
    if (flag === "--port") args.port = Number.parseInt(value, 10);
    else if (flag === "--model") args.model = value;
    else if (flag === "--tokenizer-dir") args.tokenizerDir = value;
    else if (flag === "--chat-template") args.chatTemplate = value;
    else usageExit(`unknown option ${flag}`);
  }
  if (!args.tokenizerDir) usageExit("--tokenizer-dir is required");
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) usageExit("--port must be 0..65535");
  return args;
}

const args = parseArgs(process.argv.slice(2));
let tokenizer;
try {
  // vLLM's --chat-template: a Jinja file in place of tokenizer_config.json's.
  tokenizer = loadHf(args.tokenizerDir, args.chatTemplate && readFileSync(args.chatTemplate, "utf8"));
} catch (e) {
  usageExit(e.message);
}

class BadRequest extends Error {}

// vLLM's error body.
function sendError(res, status, message, type) {
  sendJson(res, status, { object: "error", message, type, param: null, code: status });
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

// A message's content: a string, or text parts joined by newlines as vLLM
// joins them.
function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((p) => p && p.type === "text").map((p) => String(p.text)).join("\n");
  throw new BadRequest("a message's content must be a string or a list of parts");
}

function promptTokens(body, chat) {
  if (chat) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new BadRequest("messages must be a non-empty list");
    const messages = body.messages.map((m) => {
      if (!m || typeof m.role !== "string") throw new BadRequest("each message needs a role");
      return { role: m.role, content: contentText(m.content ?? "") };
    });
    try {
      return tokenizer.chat(messages).length;
    } catch (e) {
      throw new BadRequest(`the chat template failed: ${e.message}`);
    }
  }
  const prompt = body.prompt;
  if (typeof prompt === "string") return tokenizer.encode(prompt, true).length;
  if (Array.isArray(prompt) && prompt.every((t) => Number.isInteger(t))) return prompt.length;
  throw new BadRequest("prompt must be a string or a list of token ids");
}

function completionTokens(body, chat) {
  const n = (chat ? body.max_completion_tokens : undefined) ?? body.max_tokens ?? 16;
  if (!Number.isInteger(n) || n < 1) throw new BadRequest(`max_tokens must be at least 1, got ${n}.`);
  return n;
}

const usage = (p, k) => ({ prompt_tokens: p, total_tokens: p + k, completion_tokens: k });

function complete(req, res, body, chat) {
  const model = body.model ?? args.model;
  if (model !== args.model) return sendError(res, 404, `The model \`${model}\` does not exist.`, "NotFoundError");
  const p = promptTokens(body, chat);
  const n = completionTokens(body, chat);
  const id = (chat ? "chatcmpl-" : "cmpl-") + (req.headers["x-request-id"] ?? randomUUID().replaceAll("-", ""));
  const created = Math.floor(Date.now() / 1000);
  const object = chat ? "chat.completion" : "text_completion";
  if (!body.stream) {
    const text = " tok".repeat(n);
    const choice = chat
      ? { index: 0, message: { role: "assistant", content: text }, logprobs: null, finish_reason: "length" }
      : { index: 0, text, logprobs: null, finish_reason: "length" };
    return sendJson(res, 200, { id, object, created, model: args.model, choices: [choice], usage: usage(p, n) });
  }
  const options = body.stream_options ?? {};
  const includeUsage = Boolean(options.include_usage);
  const continuous = includeUsage && Boolean(options.continuous_usage_stats);
  const chunkObject = chat ? "chat.completion.chunk" : "text_completion";
  const event = (choices, k, final = false) => {
    const chunk = { id, object: chunkObject, created, model: args.model, choices };
    if (final || continuous) chunk.usage = usage(p, k);
    return `data: ${JSON.stringify(chunk)}\n\n`;
  };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if (chat) res.write(event([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }], 0));
  for (let k = 1; k <= n; ++k) {
    const finish = k === n ? "length" : null;
    res.write(event([chat
      ? { index: 0, delta: { content: " tok" }, logprobs: null, finish_reason: finish }
      : { index: 0, text: " tok", logprobs: null, finish_reason: finish }], k));
  }
  if (includeUsage) res.write(event([], n, true));
  res.end("data: [DONE]\n\n");
}

function models(res) {
  sendJson(res, 200, {
    object: "list",
    data: [{ id: args.model, object: "model", created: Math.floor(Date.now() / 1000), owned_by: "hf-usage", root: args.model, parent: null }],
  });
}

const server = http.createServer((req, res) => {
  if (req.headers["x-request-id"]) res.setHeader("x-request-id", req.headers["x-request-id"]);
  const path = req.url.split("?")[0];
  if (req.method === "GET" && path === "/v1/models") return models(res);
  if (req.method === "GET" && path === "/health") return res.writeHead(200).end();
  const chat = path === "/v1/chat/completions";
  if (req.method !== "POST" || !(chat || path === "/v1/completions")) return sendJson(res, 404, { detail: "Not Found" });
  const parts = [];
  req.on("data", (part) => parts.push(part));
  req.on("end", () => {
    try {
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8"));
      } catch {
        throw new BadRequest("the request body is not valid JSON");
      }
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new BadRequest("the request body must be a JSON object");
      complete(req, res, body, chat);
    } catch (e) {
      if (e instanceof BadRequest) return sendError(res, 400, e.message, "BadRequestError");
      process.stderr.write(`hf_usage_server.mjs: ${e.stack}\n`);
      sendError(res, 500, e.message, "InternalServerError");
    }
  });
});

// Dies with the test that started it: Node has no PR_SET_PDEATHSIG, so the
// parent's pid is watched; SIGTERM and SIGINT end it with status 0.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 200).unref();
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));

server.listen(args.port, "127.0.0.1", () => {
  process.stdout.write(`hf-usage listening on http://127.0.0.1:${server.address().port}\n`);
});
