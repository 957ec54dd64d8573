#include "openloop/cli/sim_command.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/cli/scenario.hpp"
#include "openloop/cli/sim_media_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/length_dist.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace openloop {

namespace po = boost::program_options;

namespace {

void check_probability(const po::variables_map& vm, const char* name, double& out) {
    if (!vm.count(name)) return;
    const double p = vm[name].as<double>();
    if (!(p >= 0.0 && p <= 1.0)) throw usage_error(std::string("--") + name + " must be a probability in [0, 1]");
    out = p;
}

template <class T>
void override_if(const po::variables_map& vm, const char* name, T& field) {
    if (vm.count(name)) field = vm[name].as<T>();
}

std::chrono::milliseconds ms_flag(const po::variables_map& vm, const char* name) {
    try {
        return std::chrono::milliseconds(std::llround(parse_duration_ms(vm[name].as<std::string>(), std::string("--") + name)));
    } catch (const quantity_error& e) {
        throw usage_error(std::string("sim: ") + e.what());
    }
}

void at_least(const char* flag, std::int64_t value, std::int64_t min) {
    if (value < min) throw usage_error(std::string("sim: ") + flag + " must be at least " + std::to_string(min));
}

// --lora-modules a,b,c: names served besides --served-model-name, each usable as a label value.
std::vector<std::string> lora_modules_of(const std::string& list, const std::string& base) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        std::string name = list.substr(at, comma - at);
        at = comma + 1;
        if (name.empty() || name == base || std::find(out.begin(), out.end(), name) != out.end() ||
            name.find_first_of("\"\\\n") != std::string::npos)
            throw usage_error("sim: --lora-modules '" + name + "': each adapter needs a name of its own, other than " +
                              "--served-model-name's, without quotes or backslashes");
        out.push_back(std::move(name));
    }
    return out;
}

void fill_sim_command(const po::variables_map& vm, sim_command& cmd) {
    const auto preset_name = vm["preset"].as<std::string>();
    auto preset = find_preset(preset_name);
    if (!preset) {
        std::string names;
        for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
        throw usage_error("sim: unknown --preset '" + preset_name + "' (choose one of: " + names + ")");
    }
    auto& c = cmd.config;
    c.model = *preset;
    override_if(vm, "step-base-ms", c.model.step_base_ms);
    override_if(vm, "prefill-token-ms", c.model.prefill_token_ms);
    override_if(vm, "decode-seq-ms", c.model.decode_seq_ms);
    override_if(vm, "kv-token-ms", c.model.kv_token_ms);
    override_if(vm, "max-num-seqs", c.model.max_num_seqs);
    override_if(vm, "max-batched-tokens", c.model.max_batched_tokens);
    override_if(vm, "kv-capacity-tokens", c.model.kv_capacity_tokens);
    override_if(vm, "max-model-len", c.model.max_model_len);
    override_if(vm, "block-size", c.model.block_size);
    override_if(vm, "prefix-cache", c.model.prefix_cache);
    override_if(vm, "tokens-per-chunk", c.model.tokens_per_step);
    c.model.max_loras = vm["max-loras"].as<int>();
    c.model.lora_load_ms = vm["lora-load-ms"].as<double>();
    at_least("--max-loras", c.model.max_loras, 1);
    if (!(c.model.lora_load_ms >= 0)) throw usage_error("sim: --lora-load-ms must not be negative");
    for (auto [flag, v] : {std::pair{"--step-base-ms", c.model.step_base_ms}, {"--prefill-token-ms", c.model.prefill_token_ms},
                           {"--decode-seq-ms", c.model.decode_seq_ms}, {"--kv-token-ms", c.model.kv_token_ms}})
        if (v < 0) throw usage_error(std::string("sim: ") + flag + " must not be negative");
    at_least("--max-num-seqs", c.model.max_num_seqs, 1);
    at_least("--max-batched-tokens", c.model.max_batched_tokens, 1);
    at_least("--kv-capacity-tokens", c.model.kv_capacity_tokens, 1);
    at_least("--max-model-len", c.model.max_model_len, 2);
    at_least("--block-size", c.model.block_size, 1);
    at_least("--tokens-per-chunk", c.model.tokens_per_step, 1);
    fill_sim_media(vm, c);

    c.host = vm["host"].as<std::string>();
    const unsigned port = vm["port"].as<unsigned>();
    if (port > 65535) throw usage_error("sim: --port must be at most 65535");
    c.port = static_cast<std::uint16_t>(port);
    c.seed = vm["seed"].as<std::uint64_t>();
    c.served_model_name = vm["served-model-name"].as<std::string>();
    if (vm.count("lora-modules")) c.lora_modules = lora_modules_of(vm["lora-modules"].as<std::string>(), c.served_model_name);
    if (vm.count("log")) c.log_path = vm["log"].as<std::string>();
    c.log_content = vm["log-content"].as<bool>();
    if (c.log_content && c.log_path.empty()) throw usage_error("--log-content needs --log FILE");
    if (vm.count("tls-cert")) c.tls_cert = vm["tls-cert"].as<std::string>();
    if (vm.count("tls-key")) c.tls_key = vm["tls-key"].as<std::string>();
    c.exit_with_parent = vm["exit-with-parent"].as<bool>();
    c.keep_alive_timeout = ms_flag(vm, "keep-alive-timeout");
    c.keep_alive_max_requests = vm["keep-alive-max-requests"].as<int>();
    if (c.keep_alive_max_requests < 0) throw usage_error("sim: --keep-alive-max-requests must not be negative");
    const auto tokenizer = vm["tokenizer"].as<std::string>();
    std::optional<sim_tokenizer> chosen;
    try {
        chosen = sim_tokenizer_from_name(tokenizer);
    } catch (const std::exception& e) {
        throw usage_error(std::string("sim: ") + e.what());
    }
    if (!chosen) throw usage_error("sim: unknown --tokenizer '" + tokenizer + "' (choose words, subword, hf:PATH or tiktoken:FILE)");
    c.tokenizer = std::move(*chosen);
    c.tokenize_endpoint = !vm["no-tokenize"].as<bool>();

    if (vm.count("quirk")) {
        for (const auto& q : vm["quirk"].as<std::vector<std::string>>())
            if (!set_quirk(c.quirks, q))
                throw usage_error("sim: unknown --quirk '" + q + "' (choose from: " + std::string(quirk_names()) + ")");
    }
    auto& f = c.faults;
    check_probability(vm, "fault-429", f.http_429);
    check_probability(vm, "fault-500", f.http_500);
    check_probability(vm, "fault-503", f.http_503);
    check_probability(vm, "fault-disconnect", f.disconnect);
    check_probability(vm, "fault-bad-chunk", f.bad_chunk);
    check_probability(vm, "fault-stall", f.stall);
    check_probability(vm, "fault-slow-first-byte", f.slow_first_byte);
    if (f.total() > 1.0 + 1e-9) throw usage_error("sim: the fault probabilities add up to more than 1");
    f.stall_ms = vm["stall-ms"].as<int>();
    f.slow_first_byte_ms = vm["slow-first-byte-ms"].as<int>();
    f.retry_after_s = vm["retry-after"].as<int>();
    at_least("--stall-ms", f.stall_ms, 0);
    at_least("--slow-first-byte-ms", f.slow_first_byte_ms, 0);
    at_least("--retry-after", f.retry_after_s, 0);

    auto& m = c.misbehaviour;
    m.leak_bytes_per_request = vm["leak-bytes-per-request"].as<std::int64_t>();
    at_least("--leak-bytes-per-request", m.leak_bytes_per_request, 0);
    m.slowdown_per_hour = vm["slowdown-per-hour"].as<double>();
    if (!(m.slowdown_per_hour >= 0 && std::isfinite(m.slowdown_per_hour)))
        throw usage_error("sim: --slowdown-per-hour must be a finite number, not negative");
    if (vm.count("slowdown-step-at")) m.slowdown_step_at_s = static_cast<double>(ms_flag(vm, "slowdown-step-at").count()) / 1000;
    m.slowdown_step_factor = vm["slowdown-step-factor"].as<double>();
    if (!(m.slowdown_step_factor > 0 && std::isfinite(m.slowdown_step_factor)))
        throw usage_error("sim: --slowdown-step-factor must be a finite positive number");

    auto& a = c.answers;
    if (const auto spec = vm["reasoning-tokens"].as<std::string>(); spec != "0") {
        try {
            a.reasoning_tokens = length_dist::parse(spec, "--reasoning-tokens");
        } catch (const std::invalid_argument& e) {
            throw usage_error(std::string("sim: ") + e.what());
        }
    }
    const auto shape = vm["reasoning-shape"].as<std::string>();
    if (shape != "reasoning" && shape != "reasoning_content" && shape != "think-tags")
        throw usage_error("sim: unknown --reasoning-shape '" + shape +
                          "' (choose reasoning, reasoning_content or think-tags)");
    a.shape = shape == "reasoning"           ? reasoning_shape::reasoning
              : shape == "reasoning_content" ? reasoning_shape::reasoning_content
                                             : reasoning_shape::think_tags;
    a.tool_chain = vm["tool-chain"].as<int>();
    at_least("--tool-chain", a.tool_chain, 0);
    a.parallel_calls = vm["parallel-tool-calls"].as<int>();
    at_least("--parallel-tool-calls", a.parallel_calls, 1);
    check_probability(vm, "tool-call-share", a.tool_call_share);

    cmd.capacity = vm.count("capacity") > 0;
    cmd.json = vm.count("json") > 0;
    cmd.input_len = vm["input-len"].as<int>();
    cmd.output_len = vm["output-len"].as<int>();
    at_least("--input-len", cmd.input_len, 1);
    at_least("--output-len", cmd.output_len, 1);
}

}  // namespace

int sim_main(const std::vector<std::string>& args) {
    auto cmd = parse_sim_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    if (cmd.capacity) {
        const auto c = predict_capacity(cmd.config.model, cmd.input_len, cmd.output_len);
        if (cmd.json) {
            boost::json::object o{{"preset", cmd.config.model.name},
                                  {"input_len", cmd.input_len},
                                  {"output_len", cmd.output_len},
                                  {"max_request_rate", std::isfinite(c.max_request_rate) ? boost::json::value(c.max_request_rate) : boost::json::value(nullptr)},
                                  {"output_token_rate", std::isfinite(c.output_token_rate) ? boost::json::value(c.output_token_rate) : boost::json::value(nullptr)},
                                  {"batch", c.batch},
                                  {"step_ms", c.step_ms},
                                  {"limited_by", c.limited_by}};
            std::cout << boost::json::serialize(o) << "\n";
            return 0;
        }
        std::printf("preset %s, input %d tokens, output %d tokens\n", cmd.config.model.name.c_str(), cmd.input_len,
                    cmd.output_len);
        if (!std::isfinite(c.max_request_rate)) {
            std::printf("  no compute limit: the rate is bounded by the network and the client only\n");
            return 0;
        }
        std::printf("  max sustainable rate  %.3f req/s (%.0f output tok/s)\n", c.max_request_rate, c.output_token_rate);
        std::printf("  batch at saturation   %d sequences, step %.2f ms, limited by %s\n", c.batch, c.step_ms,
                    c.limited_by.c_str());
        return 0;
    }
    run_sim(cmd.config);
    return 0;
}

sim_command parse_sim_command(const std::vector<std::string>& args) {
    po::options_description server("Server", help_width, help_width / 2);
    server.add_options()
        ("help,h", "show this help")
        ("preset", po::value<std::string>()->default_value("h100-8b"),
         "cost-model preset: h100-8b (7-8B model on one H100), cpu-small (knee at a few req/s), "
         "firehose (no compute cost; for benchmarking the generator)")
        ("host", po::value<std::string>()->default_value("127.0.0.1"), "address to listen on")
        ("port", po::value<unsigned>()->default_value(8000), "port to listen on; 0 picks a free one (printed)")
        ("seed", po::value<std::uint64_t>()->default_value(0), "seed for faults and sampled output lengths")
        ("served-model-name", po::value<std::string>()->default_value("openloop-sim"), "model id the server answers to")
        ("log", po::value<std::string>(), "write one JSONL line per completion request (server timestamps, tokens) to FILE")
        ("log-content", po::bool_switch(), "with --log: each line also holds the request's messages (or prompt) and the "
                                           "text generated, e.g. to check what a multi-turn client sent back")
        ("tls-cert", po::value<std::string>(), "serve HTTPS with this PEM certificate chain")
        ("tls-key", po::value<std::string>(), "PEM private key for --tls-cert")
        ("config", po::value<std::string>(), "read options from FILE (key = value lines); the command line wins")
        ("keep-alive-timeout", po::value<std::string>()->default_value("5s"),
         "close a connection that stays idle this long (no byte of a next request, or of the first one), as "
         "uvicorn (vLLM, SGLang: timeout_keep_alive 5 s) and cpp-httplib (llama.cpp: 5 s) do; nginx waits 75 s; "
         "0 never closes one")
        ("keep-alive-max-requests", po::value<int>()->default_value(0),
         "answer the N-th request of a connection with Connection: close and close it, as nginx "
         "(keepalive_requests 1000) and cpp-httplib (keep_alive_max_count: 100, 5 in older releases) do; uvicorn has no "
         "limit; 0: none")
        ("tokenizer", po::value<std::string>()->default_value("words"),
         "how prompts are counted: words (a token is a whitespace-separated word, as openloop's synthetic "
         "prompts are built), subword (1-3 tokens a word by its length, BOS on text prompts, chat template "
         "tokens: 1 BOS + 4 per message + 3 for the generation prompt), or a real model's tokenizer counting "
         "the text inside subword's template: hf:PATH (a Hugging Face tokenizer.json or its directory) or "
         "tiktoken:FILE")
        ("no-tokenize", po::bool_switch(), "serve no POST /tokenize (404), like a hosted API or a gateway: clients "
         "must count from usage.prompt_tokens")
        ("exit-with-parent", po::bool_switch(), "exit when the parent process goes (used when openloop starts the simulator)");

    po::options_description model("Cost model (each overrides the preset)", help_width, help_width / 2);
    model.add_options()
        ("step-base-ms", po::value<double>(), "fixed cost of one engine step, ms")
        ("prefill-token-ms", po::value<double>(), "cost per prompt token computed in a step, ms")
        ("decode-seq-ms", po::value<double>(), "cost per decoding sequence in a step, ms")
        ("kv-token-ms", po::value<double>(), "cost per KV-cache token read in a step, ms")
        ("max-num-seqs", po::value<int>(), "sequences in the running batch at most")
        ("max-batched-tokens", po::value<int>(), "token budget per step (chunked prefill)")
        ("kv-capacity-tokens", po::value<std::int64_t>(), "KV-cache capacity in tokens; requests wait when it is full")
        ("max-model-len", po::value<int>(), "prompt + output tokens at most per request")
        ("block-size", po::value<int>(), "KV block size in tokens (prefix-cache granularity)")
        ("prefix-cache", po::value<bool>(), "enable the prefix cache (true/false)")
        ("tokens-per-chunk", po::value<int>(), "tokens each decode step produces per sequence, sent as one chunk "
                                               "(models speculative decoding)")
        ("lora-modules", po::value<std::string>(), "LoRA adapters served besides --served-model-name, comma-separated "
         "(e.g. sql-lora,chat-lora): GET /v1/models lists them, a request names one as its model")
        ("max-loras", po::value<int>()->default_value(1), "adapters in one batch, and resident, at most (vLLM's "
         "--max-loras); a request whose adapter would be one more waits, and one not resident is loaded first")
        ("lora-load-ms", po::value<double>()->default_value(10.0), "ms added to the step that loads an adapter not "
         "resident (evicting the least recently used idle one)");

    po::options_description faults("Fault injection (probability per request, at most one fault each)", help_width, help_width / 2);
    faults.add_options()
        ("fault-429", po::value<double>(), "answer HTTP 429 with Retry-After")
        ("fault-500", po::value<double>(), "answer HTTP 500")
        ("fault-503", po::value<double>(), "answer HTTP 503")
        ("fault-disconnect", po::value<double>(), "close the connection halfway through the stream")
        ("fault-bad-chunk", po::value<double>(), "send one malformed JSON chunk halfway through the stream")
        ("fault-stall", po::value<double>(), "pause --stall-ms between two tokens halfway through")
        ("fault-slow-first-byte", po::value<double>(), "pause --slow-first-byte-ms before responding")
        ("stall-ms", po::value<int>()->default_value(1000), "length of an injected stall")
        ("slow-first-byte-ms", po::value<int>()->default_value(1000), "delay of an injected slow first byte")
        ("retry-after", po::value<int>()->default_value(1), "seconds sent in Retry-After with 429");

    po::options_description misbehaviour("Misbehaviour (for soak tests)", help_width, help_width / 2);
    misbehaviour.add_options()
        ("leak-bytes-per-request", po::value<std::int64_t>()->default_value(0),
         "allocate N bytes per completion request, write every page (resident) and keep it for the life of the "
         "process; at most 8 GiB in all, then leaks stop and are counted (/metrics: openloop_sim_leaked_bytes, "
         "openloop_sim_leak_refused_total)")
        ("slowdown-per-hour", po::value<double>()->default_value(0),
         "multiply each engine step's time by 1 + F x hours since the server started (wall clock): latency creeps; "
         "F = 60 doubles it after one minute (the firehose has no steps to slow)")
        ("slowdown-step-at", po::value<std::string>(),
         (std::string("from this long after the start on, multiply each step's time by --slowdown-step-factor: a "
                      "step change in latency (") + std::string(duration_syntax) + ")").c_str())
        ("slowdown-step-factor", po::value<double>()->default_value(2.0), "the step time's factor after --slowdown-step-at");

    po::options_description answers("Thinking and tool calls (chat completions)", help_width, help_width / 2);
    answers.add_options()
        ("reasoning-tokens", po::value<std::string>()->default_value("0"),
         "think this many tokens before each chat (and Responses) answer, streamed first, counted in completion_tokens and "
         "costed as decode tokens; capped by max_tokens (all spent thinking: the answer ends there, "
         "finish_reason length); chat_template_kwargs enable_thinking or thinking false turns it off "
         "per request; 0: no thinking; a length as --output-len takes one, e.g. 200 or lognormal:300:0.5")
        ("reasoning-shape", po::value<std::string>()->default_value("reasoning"),
         "where thinking is streamed: reasoning (vLLM's delta.reasoning, usage with completion_tokens_details."
         "reasoning_tokens; the step that ends thinking is one chunk with both) or reasoning_content (SGLang, DeepSeek, "
         "older vLLM: delta.reasoning_content, content null, and usage without the details; with --quirk "
         "thinking-answer-chunk the step that ends thinking is one chunk with both) or think-tags (a server without a "
         "reasoning parser, as llama.cpp without --reasoning-format: the thinking inside the content between <think> "
         "and </think>, usage without the details)")
        ("tool-chain", po::value<int>()->default_value(0),
         "answer a request that carries tools with a tool call (one of its tools, streamed as tool_calls deltas, "
         "finish_reason tool_calls, arguments a JSON object of the answer's length) while fewer than N tool messages "
         "follow its last user message, then with text; 0: --tool-call-share decides")
        ("tool-call-share", po::value<double>(),
         "without --tool-chain: the probability that a request carrying tools is answered with a tool call (by the "
         "seed, per request); tool_choice required or a named function always calls, none never")
        ("parallel-tool-calls", po::value<int>()->default_value(1),
         "a tool-call answer calls N tools at once (tool_calls index 0 .. N-1, each with its own id; the answer's "
         "tokens split between their arguments, at most one call per token). Whatever N, a request whose history "
         "leaves a call without a tool message answering its id (or answers no call) is refused with 400, as "
         "OpenAI refuses it");

    po::options_description capacity("Capacity prediction", help_width, help_width / 2);
    capacity.add_options()
        ("capacity", "print the model's maximum sustainable request rate for --input-len/--output-len and exit")
        ("input-len", po::value<int>()->default_value(512), "prompt tokens of the workload")
        ("output-len", po::value<int>()->default_value(128), "output tokens of the workload")
        ("json", "with --capacity: print JSON");

    po::options_description quirks("Server deviations (to test clients against)", help_width, help_width / 2);
    quirks.add_options()
        ("quirk", po::value<std::vector<std::string>>()->composing(),
         (std::string("behave like a server that deviates from the OpenAI stream shape (repeatable): ") +
          std::string(quirk_names())).c_str());

    po::options_description all;
    all.add(server).add(model).add(sim_media_options()).add(answers).add(faults).add(quirks).add(misbehaviour).add(capacity);

    sim_command cmd;
    const auto parsed = parse_command_line(args, all, "sim", "config", false);
    const auto& vm = parsed.vm;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop sim [options]\n\n"
              "An OpenAI-compatible streaming server that models an inference engine (continuous batching,\n"
              "chunked prefill, KV-cache capacity, prefix cache). Endpoints: POST /v1/chat/completions,\n"
              "POST /v1/completions, POST /tokenize, GET /v1/models, GET /health, GET /metrics (vLLM metric\n"
              "names). A prompt token is a whitespace-separated word of the prompt text, or one token id\n"
              "(--tokenizer subword counts like a real tokenizer and chat template instead).\n\n"
           << all;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    with_file_lines(parsed, [&] { fill_sim_command(vm, cmd); });
    return cmd;
}

}  // namespace openloop
