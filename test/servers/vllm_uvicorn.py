#!/usr/bin/python3
"""A vLLM-shaped OpenAI server on FastAPI + uvicorn, for integration tests.

openloop's own simulator shares openloop's idea of HTTP; this one runs on the
stack vLLM's OpenAI server runs on (FastAPI/Starlette over uvicorn, h11 or
httptools), with vLLM's uvicorn settings (5 s keep-alive), so that tests meet
a foreign HTTP layer: its chunked framing, its idle-connection closes.
Only the response shapes are vLLM's; there is no model. See README.md here.
"""

import argparse
import asyncio
import base64
import binascii
import ctypes
import email.parser
import email.policy
import hashlib
import json
import math
import os
import signal
import socket
import struct
import sys
import time
import uuid
import zlib


def die_with_parent():
    # Die with the test that started us, even if it is killed outright. Done
    # before the slow FastAPI import to keep the window small; a parent that
    # dies before this runs at all (~0.1 s after exec) still goes unnoticed.
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != parent:
        sys.exit(0)
    # Until uvicorn installs its handlers, SIGTERM/SIGINT still mean a clean exit.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))


if __name__ == "__main__":
    die_with_parent()

# Imported after die_with_parent on purpose: these imports take most of a second.
try:
    import uvicorn
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, Response, StreamingResponse
except ImportError as e:
    sys.exit(f"vllm_uvicorn.py: {e}: install python3-fastapi python3-uvicorn (tools/deps), "
             "run with /usr/bin/python3")

args = None  # the parsed command line, set in main()
app = FastAPI()


def error(status, message, kind):
    # vLLM's ErrorResponse body.
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": status}
    return JSONResponse(body, status_code=status)


class BadRequest(Exception):
    pass


def words(text):
    return text.split()


# Media as openloop sim counts it by default (docs/simulator.md): an image is
# resized as Qwen2-VL's smart_resize does, one token per 28x28 cell, plus its
# vision start and end tokens; a WAV clip is 25 tokens a second, rounded up, plus
# 2. Sizes come from the headers alone (no PIL here): PNG's IHDR, JPEG's SOFn.
PATCH, MIN_PIXELS, MAX_PIXELS = 28, 4 * 28 * 28, 16384 * 28 * 28
AUDIO_TOKENS_PER_S = 25
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def image_size(data):
    """(width, height) of a PNG or JPEG from its header."""
    if data.startswith(PNG_SIGNATURE):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise BadRequest("Failed to load image: truncated or malformed PNG")
        return struct.unpack(">II", data[16:24])
    if data[:3] != b"\xff\xd8\xff":
        raise BadRequest("Failed to load image: cannot identify image file: neither PNG nor JPEG")
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            raise BadRequest(f"Failed to load image: malformed JPEG: no marker at offset {at}")
        while at < len(data) and data[at] == 0xFF:  # fill bytes
            at += 1
        if at >= len(data):
            break
        marker = data[at]
        at += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:
            continue
        if marker in (0xD9, 0xDA):
            break
        if at + 2 > len(data):
            break
        length = struct.unpack(">H", data[at:at + 2])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if at + 7 > len(data):
                break
            height, width = struct.unpack(">HH", data[at + 3:at + 7])
            if width and height:
                return width, height
            break
        at += length
    raise BadRequest("Failed to load image: truncated or malformed JPEG: no frame header")


def wav_seconds(data):
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise BadRequest("Failed to load audio: not a WAV file")
    at, byte_rate = 12, 0
    while at + 8 <= len(data):
        kind, length = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        at += 8
        if kind == b"fmt " and at + 16 <= len(data):
            byte_rate = struct.unpack("<I", data[at + 8:at + 12])[0]
        elif kind == b"data" and byte_rate:
            return min(length, len(data) - at) / byte_rate
        at += length + (length & 1)
    raise BadRequest("Failed to load audio: truncated or malformed WAV")


def smart_resize(height, width):
    h = max(PATCH, round(height / PATCH) * PATCH)
    w = max(PATCH, round(width / PATCH) * PATCH)
    if h * w > MAX_PIXELS:
        beta = math.sqrt(height * width / MAX_PIXELS)
        h = max(PATCH, math.floor(height / beta / PATCH) * PATCH)
        w = max(PATCH, math.floor(width / beta / PATCH) * PATCH)
    elif h * w < MIN_PIXELS:
        beta = math.sqrt(MIN_PIXELS / (height * width))
        h = math.ceil(height * beta / PATCH) * PATCH
        w = math.ceil(width * beta / PATCH) * PATCH
    return h, w


def decode(data, what):
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        raise BadRequest(f"Failed to load {what}: invalid base64 data: {e}")


def media_tokens(part):
    """The prompt tokens of a content part that is not text (vLLM's errors for what cannot be read)."""
    kind = part.get("type")
    if kind == "image_url":
        url = (part.get("image_url") or {}).get("url") if isinstance(part.get("image_url"), dict) else None
        if not isinstance(url, str):
            raise BadRequest("image_url: an object with a url string is required")
        if not url.startswith("data:"):
            raise BadRequest("The test server cannot fetch remote URLs: send images as data URLs")
        spec, _, data = url[5:].partition(",")
        if not spec.endswith(";base64"):
            raise BadRequest("Only base64 data URLs are supported for now.")
        width, height = image_size(decode(data, "image"))
        if max(width, height) / min(width, height) > 200:
            raise BadRequest("absolute aspect ratio must be smaller than 200")
        h, w = smart_resize(height, width)
        return (h // PATCH) * (w // PATCH) + 2
    if kind == "input_audio":
        audio = part.get("input_audio") or {}
        if audio.get("format") != "wav":
            raise BadRequest(f"input_audio.format: WAV audio only (\"wav\"), got {audio.get('format')!r}")
        seconds = wav_seconds(decode(audio.get("data") or "", "audio"))
        return math.ceil(seconds * AUDIO_TOKENS_PER_S - 1e-9) + 2
    if kind in ("text", "input_text", "output_text", "refusal", "thinking"):
        return 0
    raise BadRequest(f"Unsupported chat content part type: {kind!r}.")


def content_words(content):
    # A message's content is a string or a list of parts: text parts count their
    # words, an image or audio part its tokens (as placeholder words).
    if isinstance(content, str):
        return words(content)
    toks = []
    for p in content if isinstance(content, list) else []:
        if not isinstance(p, dict):
            continue
        if isinstance(p.get("text"), str):
            toks += words(p["text"])
        else:
            toks += ["<|media_pad|>"] * media_tokens(p)
    return toks


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def message_words(m):
    # A message's content, and an assistant's tool calls: each call's name and arguments.
    toks = content_words(m.get("content"))
    for call in m.get("tool_calls") or []:
        function = call.get("function") or {}
        toks += words(function.get("name", "")) + words(function.get("arguments", ""))
    return toks


def prompt_words(body):
    """The prompt's tokens as words (or the ids themselves), and a key to hash."""
    if "messages" in body:
        if not isinstance(body["messages"], list):
            raise BadRequest("messages must be a list")
        # The tools first, each its compact JSON, as openloop sim counts them.
        toks = [w for t in body.get("tools") or [] for w in words(compact(t))]
        toks += [w for m in body["messages"] for w in message_words(m)]
        return toks, json.dumps(body["messages"], sort_keys=True)
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return words(prompt), prompt
    if isinstance(prompt, list) and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        return prompt, json.dumps(prompt)
    raise BadRequest("prompt must be a string or a list of token ids")


def token_ids(toks):
    # Stable fake ids: the same word always gets the same id.
    return [t if isinstance(t, int) else zlib.crc32(t.encode()) % 50000 for t in toks]


def plan(body, chat):
    """Checks the request as vLLM would; returns (prompt_tokens, output_tokens, max_tokens)."""
    toks, key = prompt_words(body)
    p = len(toks)
    limit = args.max_model_len
    max_tokens = body.get("max_completion_tokens") if chat else None
    if max_tokens is None:
        max_tokens = body.get("max_tokens")
    if max_tokens is None:
        max_tokens = limit - p  # vLLM's default: whatever the context has left
    min_tokens = body.get("min_tokens") or 0
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise BadRequest(f"max_tokens must be at least 1, got {max_tokens}.")
    if min_tokens > max_tokens:
        raise BadRequest(f"min_tokens must be less than or equal to max_tokens={max_tokens}, got {min_tokens}.")
    if p + max_tokens > limit:
        raise BadRequest(
            f"This model's maximum context length is {limit} tokens. However, you requested "
            f"{p + max_tokens} tokens ({p} in the messages, {max_tokens} in the completion). "
            "Please reduce the length of the messages or completion.")
    if body.get("ignore_eos"):
        return p, max_tokens, max_tokens
    # A "natural" length: deterministic per prompt, so reruns match (hash() is salted).
    lo = max(1, min_tokens)
    h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
    return p, lo + h % (max_tokens - lo + 1), max_tokens


def usage(p, k, reasoning=0):
    u = {"prompt_tokens": p, "total_tokens": p + k, "completion_tokens": k}
    if args.reasoning_tokens and args.reasoning_shape == "reasoning":
        u["completion_tokens_details"] = {"reasoning_tokens": min(k, reasoning)}
    return u


def answer_plan(body, chat, n, max_tokens):
    """(thinking tokens, answer tokens, tool name or None): as openloop sim decides, with fixed counts."""
    kwargs = body.get("chat_template_kwargs") or {}
    thinks = chat and args.reasoning_tokens > 0 and kwargs.get("enable_thinking") is not False \
        and kwargs.get("thinking") is not False
    r = min(args.reasoning_tokens, max_tokens) if thinks else 0
    budget = max_tokens - r
    answer = budget if body.get("ignore_eos") else min(n, budget)
    tools = [t.get("function", {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    choice = body.get("tool_choice", "auto")
    if not chat or not tools or choice == "none" or answer == 0:
        return r, answer, None
    if isinstance(choice, dict):
        return r, answer, choice.get("function", {}).get("name")
    results = 0  # tool messages after the last user message
    for m in body.get("messages") or []:
        results = 0 if m.get("role") == "user" else results + (m.get("role") == "tool")
    if choice == "required" or results < args.tool_chain:
        return r, answer, tools[zlib.crc32(json.dumps(body["messages"]).encode()) % len(tools)]
    return r, answer, None


def argument_piece(i, k):
    # Token i of a call's k argument tokens: {"query":" first, a word each, "} closing the last.
    piece = '{"query":"' if i == 0 else " tok"
    return piece + '"}' if i == k - 1 else piece


async def read_body(request):
    try:
        body = await request.json()
    except ValueError:
        raise BadRequest("the request body is not valid JSON")
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


async def completion(request, chat):
    try:
        body = await read_body(request)
        model = body.get("model", args.model)  # vLLM defaults a missing model to the served one
        if model != args.model:
            return error(404, f"The model `{model}` does not exist.", "NotFoundError")
        p, n, max_tokens = plan(body, chat)
    except BadRequest as e:
        return error(400, str(e), "BadRequestError")
    # vLLM builds the id from the X-Request-Id header when there is one.
    rid = ("chatcmpl-" if chat else "cmpl-") + request.headers.get("x-request-id", uuid.uuid4().hex)
    created = int(time.time())
    r, answer, tool = answer_plan(body, chat, n, max_tokens)
    n = r + answer
    finish = "length" if n == max_tokens and not tool else "tool_calls" if tool else "stop"
    shape = args.reasoning_shape
    call_id = "call_" + hashlib.sha256(rid.encode()).hexdigest()[:16]
    if not body.get("stream"):
        await asyncio.sleep((args.ttft_ms + args.itl_ms * (n - 1)) / 1000)
        text = " tok" * answer
        if chat:
            message = {"role": "assistant", "content": None if tool else text, "tool_calls": []}
            if r:
                message[shape] = " think" * r
            if tool:
                arguments = "".join(argument_piece(i, answer) for i in range(answer))
                message["tool_calls"] = [{"id": call_id, "type": "function",
                                          "function": {"name": tool, "arguments": arguments}}]
            choice = {"index": 0, "message": message,
                      "logprobs": None, "finish_reason": finish, "stop_reason": None}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                      "stop_reason": None, "prompt_logprobs": None}
        return JSONResponse({"id": rid, "object": "chat.completion" if chat else "text_completion",
                             "created": created, "model": args.model, "choices": [choice],
                             "usage": usage(p, n, r)})
    opts = body.get("stream_options") or {}
    include_usage = bool(opts.get("include_usage"))
    continuous = include_usage and bool(opts.get("continuous_usage_stats"))  # vLLM needs both
    obj = "chat.completion.chunk" if chat else "text_completion"

    def event(choices, k):
        chunk = {"id": rid, "object": obj, "created": created, "model": args.model, "choices": choices}
        if continuous:
            chunk["usage"] = usage(p, k, r)
        return f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n"

    def delta(k):
        # Token k's delta: thinking first in the chosen shape, then the text or the call's arguments.
        if k <= r:
            return {"reasoning": " think"} if shape == "reasoning" else {"content": None, "reasoning_content": " think"}
        if tool:
            return {"tool_calls": [{"index": 0, "function": {"arguments": argument_piece(k - r - 1, answer)}}]}
        return {"content": " tok", "reasoning_content": None} if shape == "reasoning_content" and args.reasoning_tokens \
            else {"content": " tok"}

    async def stream():
        await asyncio.sleep(args.ttft_ms / 1000)  # "prefill"
        if chat:  # vLLM's first chat chunk carries only the role
            yield event([{"index": 0, "delta": {"role": "assistant", "content": ""},
                          "logprobs": None, "finish_reason": None}], 0)
        for k in range(1, n + 1):
            if k > 1:
                await asyncio.sleep(args.itl_ms / 1000)
            last = k == n
            if chat and tool and k == r + 1:  # the call's id and name open it
                head = {"index": 0, "id": call_id, "type": "function", "function": {"name": tool, "arguments": ""}}
                yield event([{"index": 0, "delta": {"tool_calls": [head]}, "logprobs": None,
                              "finish_reason": None}], k - 1)
            if chat:
                choice = {"index": 0, "delta": delta(k), "logprobs": None,
                          "finish_reason": finish if last else None}
                if last:
                    choice["stop_reason"] = None  # vLLM sets it on the last chunk only
            else:  # completions chunks always carry stop_reason
                choice = {"index": 0, "text": " tok", "logprobs": None,
                          "finish_reason": finish if last else None, "stop_reason": None}
            yield event([choice], k)
        if include_usage:
            chunk = {"id": rid, "object": obj, "created": created, "model": args.model,
                     "choices": [], "usage": usage(p, n, r)}
            yield f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")


def form_fields(content_type, body):
    """A multipart/form-data body's parts by name, read by Python's MIME parser (the email package)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise BadRequest(f"expected multipart/form-data, got {content_type!r}")
    return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.iter_parts()}


@app.post("/v1/audio/transcriptions")
async def transcriptions(request: Request):
    """vLLM's speech to text: the clip's tokens are the prompt, 3.3 tokens a second of it the answer."""
    try:
        fields = form_fields(request.headers.get("content-type", ""), await request.body())
        if "file" not in fields:
            raise BadRequest("file: Field required")
        model = fields.get("model", args.model.encode()).decode()
        if model != args.model:
            return error(404, f"The model `{model}` does not exist.", "NotFoundError")
        seconds = wav_seconds(fields["file"])
    except BadRequest as e:
        return error(400, str(e), "BadRequestError")
    p = math.ceil(seconds * AUDIO_TOKENS_PER_S - 1e-9) + 2
    n = max(1, math.floor(seconds * 3.3 + 0.5))

    def flag(name):
        return fields.get(name, b"false").decode().lower() in ("true", "1", "yes", "on")

    rid = "trsc-" + request.headers.get("x-request-id", uuid.uuid4().hex)
    created = int(time.time())
    if not flag("stream"):
        await asyncio.sleep((args.ttft_ms + args.itl_ms * (n - 1)) / 1000)
        return JSONResponse({"text": " tok" * n, "usage": {"type": "duration", "seconds": math.ceil(seconds)}})
    include_usage = flag("stream_include_usage")
    continuous = include_usage and flag("stream_continuous_usage_stats")

    def event(choices, k):
        chunk = {"id": rid, "object": "transcription.chunk", "created": created, "model": args.model,
                 "choices": choices}
        if continuous or (include_usage and not choices):
            chunk["usage"] = usage(p, k)
        return f"data: {json.dumps(chunk, separators=(',', ':'))}\n\n"

    async def stream():
        await asyncio.sleep(args.ttft_ms / 1000)
        for k in range(1, n + 1):
            if k > 1:
                await asyncio.sleep(args.itl_ms / 1000)
            yield event([{"delta": {"content": " tok"}, "finish_reason": "stop" if k == n else None,
                          "stop_reason": None}], k)
        if include_usage:
            yield event([], n)
        yield "data: [DONE]\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")


@app.post("/v1/chat/completions")
async def chat_completions(request: Request):
    return await completion(request, chat=True)


@app.post("/v1/completions")
async def completions(request: Request):
    return await completion(request, chat=False)


@app.post("/tokenize")
async def tokenize(request: Request):
    if args.no_tokenize:
        # As a server built without the endpoint answers (FastAPI's 404).
        return JSONResponse({"detail": "Not Found"}, status_code=404)
    try:
        body = await read_body(request)
        if "model" in body and body["model"] != args.model:
            return error(404, f"The model `{body['model']}` does not exist.", "NotFoundError")
        toks, _ = prompt_words(body)
    except BadRequest as e:
        return error(400, str(e), "BadRequestError")
    return {"count": len(toks), "max_model_len": args.max_model_len, "tokens": token_ids(toks)}


@app.get("/health")
async def health():
    return Response(status_code=200)


@app.get("/v1/models")
async def models():
    return {"object": "list", "data": [{
        "id": args.model, "object": "model", "created": int(time.time()), "owned_by": "vllm",
        "root": args.model, "parent": None, "max_model_len": args.max_model_len}]}


def echo_request_id(inner):
    # Pure ASGI middleware (not @app.middleware, which re-wraps streaming bodies):
    # copies X-Request-Id onto the response, as vLLM's --enable-request-id-headers does.
    async def wrapped(scope, receive, send):
        rid = next((v for k, v in scope.get("headers", []) if k == b"x-request-id"), None)
        if scope["type"] != "http" or rid is None:
            return await inner(scope, receive, send)

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + [(b"x-request-id", rid)]
            await send(message)
        return await inner(scope, receive, send_with_id)
    return wrapped


def main():
    global args
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--model", default="vllm-uvicorn")
    ap.add_argument("--ttft-ms", type=float, default=5)
    ap.add_argument("--itl-ms", type=float, default=2)
    ap.add_argument("--timeout-keep-alive", type=float, default=5, help="vLLM's default")
    ap.add_argument("--max-model-len", type=int, default=4096)
    ap.add_argument("--no-tokenize", action="store_true", help="serve no /tokenize, like an OpenAI-only endpoint")
    ap.add_argument("--reasoning-tokens", type=int, default=0, help="chat answers think this many tokens first")
    ap.add_argument("--reasoning-shape", choices=["reasoning", "reasoning_content"], default="reasoning")
    ap.add_argument("--tool-chain", type=int, default=0,
                    help="answer with a tool call while fewer tool results follow the last user message")
    args = ap.parse_args()

    # Bind ourselves, as vLLM does, so that port 0 works and the port is known
    # (and listening) before the line that announces it. proto=IPPROTO_TCP is
    # not decoration: asyncio sets TCP_NODELAY only on sockets whose proto says
    # TCP, and with proto 0 Nagle holds each token behind the client's delayed
    # ACK (~40 ms bursts). vLLM gets TCP_NODELAY from uvloop, which we lack.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(2048)
    print(f"vllm-uvicorn listening on http://{args.host}:{sock.getsockname()[1]}", flush=True)

    # uvicorn installs its own SIGINT/SIGTERM handlers: a graceful shutdown, exit 0.
    config = uvicorn.Config(echo_request_id(app), timeout_keep_alive=args.timeout_keep_alive,
                            log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
