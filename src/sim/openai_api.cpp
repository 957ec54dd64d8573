#include "openloop/sim/openai_api.hpp"

#include "openloop/base/random.hpp"
#include "openloop/sim/answer_plan.hpp"
#include "openloop/sim/lora_slots.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace openloop {

namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

std::string text_of(const json::value& v) { return json::serialize(v); }

// The integer field key, when present and not null, read in 64 bits and kept
// within [min, max]: anything else is a 400 naming the field, never a value
// wrapped into an int.
std::optional<api_error> read_integer(const json::object& o, std::string_view key, std::int64_t min, std::int64_t max,
                                      std::optional<std::int64_t>& out) {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return std::nullopt;
    const std::string name(key);
    if (v->is_uint64() && v->get_uint64() > static_cast<std::uint64_t>(max))
        return bad_request(name + " must be at most " + std::to_string(max) + ", got " + text_of(*v));
    if (!v->is_int64() && !v->is_uint64()) return bad_request(name + " must be an integer, got " + text_of(*v));
    const std::int64_t x = v->to_number<std::int64_t>();
    if (x < min) return bad_request(name + " must be at least " + std::to_string(min) + ", got " + std::to_string(x));
    if (x > max) return bad_request(name + " must be at most " + std::to_string(max) + ", got " + std::to_string(x));
    out = x;
    return std::nullopt;
}

std::string number_text(double x) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, ec == std::errc{} ? end : buf);
}

// The number field key, when present and not null, where in_range holds;
// otherwise a 400 saying "KEY must be RANGE, got X" (vLLM's SamplingParams checks).
template <class InRange>
std::optional<api_error> read_real(const json::object& o, std::string_view key, InRange in_range,
                                   std::string_view range, std::optional<double>& out) {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return std::nullopt;
    const std::string name(key);
    if (!v->is_number()) return bad_request(name + " must be a number, got " + text_of(*v));
    const double x = v->to_number<double>();
    if (!std::isfinite(x) || !in_range(x))
        return bad_request(name + " must be " + std::string(range) + ", got " + number_text(x));
    out = x;
    return std::nullopt;
}

// doc := body, a JSON object addressed to the served model, one of its adapters (adapter: which)
// or no model.
std::optional<api_error> parse_body(std::string_view body, const sim_config& cfg, json::value& doc,
                                    int* adapter = nullptr) {
    json::error_code ec;
    doc = json::parse(body, ec);
    if (ec) return bad_request("Invalid JSON body: " + ec.message());
    const auto* o = doc.if_object();
    if (!o) return bad_request("The request body must be a JSON object");
    if (const auto* m = o->if_contains("model"); m && m->is_string()) {
        const std::optional<int> a = adapter_of(m->get_string(), cfg.served_model_name, cfg.lora_modules);
        if (!a)
            return api_error{http::status::not_found, "NotFoundError",
                             "The model `" + std::string(m->get_string()) + "` does not exist."};
        if (adapter) *adapter = *a;
    }
    return std::nullopt;
}

// A chat prompt's ids, its media parts read by cfg's rule into r.media.
std::optional<api_error> chat_prompt(const json::object& body, const sim_config& cfg, completion_request& r) {
    media_reader media{cfg.media, static_cast<std::size_t>(cfg.model.max_model_len) + 1};
    std::string err;
    if (!request_prompt_ids(cfg.tokenizer, body, true, r.token_ids, err, &media)) return bad_request(err);
    r.media = media.count;
    if (media.unplaced > 0) {
        return bad_request("This model's maximum context length is " + std::to_string(cfg.model.max_model_len) +
                           " tokens. However, your request has " +
                           std::to_string(static_cast<std::int64_t>(r.token_ids.size()) + media.unplaced) +
                           " input tokens. Please reduce the length of the input messages.");
    }
    return std::nullopt;
}

}  // namespace

std::string error_body(const api_error& e) {
    json::object inner{{"message", e.message}, {"type", e.type}, {"param", nullptr},
                       {"code", static_cast<int>(e.status)}};
    return json::serialize(json::object{{"error", std::move(inner)}});
}

namespace {

// What a completion, chat or Responses request asks beyond its prompt (r's
// token ids): lengths, sampling and streaming, with vLLM's defaults and checks.
std::optional<api_error> read_generation(const json::object& o, const sim_config& cfg, completion_request& r) {
    const bool chat = r.chat;
    r.prompt_tokens = static_cast<int>(r.token_ids.size());

    constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
    const std::int64_t context = cfg.model.max_model_len;
    const std::int64_t prompt = r.prompt_tokens;
    std::optional<std::int64_t> n, max_tokens, max_completion_tokens, min_tokens, seed;
    std::optional<double> temperature, top_p;
    for (auto e : {read_integer(o, "n", 1, int64_max, n),
                   read_integer(o, r.responses ? "max_output_tokens" : "max_tokens", 1, int64_max, max_tokens),
                   chat && !r.responses ? read_integer(o, "max_completion_tokens", 1, int64_max, max_completion_tokens)
                                        : std::nullopt,
                   read_integer(o, "min_tokens", 0, int64_max, min_tokens),
                   read_integer(o, "seed", std::numeric_limits<std::int64_t>::min(), int64_max, seed),
                   read_real(o, "temperature", [](double x) { return x >= 0; }, "non-negative", temperature),
                   read_real(o, "top_p", [](double x) { return x > 0 && x <= 1; }, "in (0, 1]", top_p)})
        if (e) return e;
    if (n.value_or(1) != 1) return bad_request("n: the simulator supports n=1 only");
    if (max_completion_tokens) max_tokens = max_completion_tokens;

    // vLLM's defaults: 16 tokens for /v1/completions, the rest of the context for chat.
    if (!max_tokens && prompt >= context) {
        return bad_request("This model's maximum context length is " + std::to_string(context) +
                           " tokens. However, your request has " + std::to_string(prompt) +
                           " input tokens. Please reduce the length of the input messages.");
    }
    const std::int64_t asked = max_tokens.value_or(chat ? context - prompt : 16);
    // In 64 bits: asked may be up to 2^63-1, and prompt + asked then still fits unsigned.
    if (asked > context - prompt) {
        return bad_request("This model's maximum context length is " + std::to_string(context) +
                           " tokens. However, you requested " +
                           std::to_string(static_cast<std::uint64_t>(prompt) + static_cast<std::uint64_t>(asked)) +
                           " tokens (" + std::to_string(prompt) + " in the messages, " + std::to_string(asked) +
                           " in the completion). Please reduce the length of the messages or completion.");
    }
    if (min_tokens.value_or(0) > asked) {
        return bad_request("min_tokens must be less than or equal to max_tokens=" + std::to_string(asked) + ", got " +
                           std::to_string(*min_tokens));
    }
    r.max_tokens = static_cast<int>(asked);  // at most max_model_len, an int
    r.min_tokens = static_cast<int>(min_tokens.value_or(0));
    if (temperature) r.temperature = *temperature;
    if (seed) r.seed = *seed;
    if (const auto* v = o.if_contains("ignore_eos"); v && v->is_bool()) r.ignore_eos = v->get_bool();
    if (const auto* v = o.if_contains("stream"); v && v->is_bool()) r.stream = v->get_bool();
    if (const auto* so = o.if_contains("stream_options"); so && so->is_object()) {
        if (const auto* v = so->get_object().if_contains("include_usage"); v && v->is_bool()) r.include_usage = v->get_bool();
        if (const auto* v = so->get_object().if_contains("continuous_usage_stats"); v && v->is_bool())
            r.continuous_usage = v->get_bool();
    }
    return std::nullopt;
}

}  // namespace

std::optional<api_error> injected_error(fault f) {
    if (f != fault::http_429 && f != fault::http_500 && f != fault::http_503) return std::nullopt;
    api_error e;
    e.status = f == fault::http_429 ? http::status::too_many_requests
             : f == fault::http_500 ? http::status::internal_server_error
                                    : http::status::service_unavailable;
    e.type = f == fault::http_429 ? "RateLimitError" : f == fault::http_500 ? "InternalServerError" : "ServiceUnavailableError";
    e.message = std::string("injected fault: ") + std::string(fault_name(f));
    return e;
}

std::optional<api_error> parse_completion(std::string_view body, bool chat, const sim_config& cfg,
                                          completion_request& r) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc, &r.adapter)) return e;
    const auto& o = doc.get_object();
    r.chat = chat;
    std::string err;
    if (chat) {
        if (auto e = chat_prompt(o, cfg, r)) return e;
    } else if (!request_prompt_ids(cfg.tokenizer, o, chat, r.token_ids, err)) {
        return bad_request(err);
    }
    if (chat && !read_tool_request(o, r.tools, err)) return bad_request(err);
    return read_generation(o, cfg, r);
}

std::optional<api_error> parse_responses(std::string_view body, const sim_config& cfg, completion_request& r) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc, &r.adapter)) return e;
    const auto& o = doc.get_object();
    r.chat = r.responses = true;
    // The instructions and the input, as the chat messages vLLM renders them as.
    json::array messages;
    if (const auto* i = o.if_contains("instructions"); i && i->is_string())
        messages.push_back(json::object{{"role", "system"}, {"content", *i}});
    const auto* input = o.if_contains("input");
    if (!input || input->is_null()) return bad_request("input: field required");
    if (input->is_string()) {
        messages.push_back(json::object{{"role", "user"}, {"content", *input}});
    } else if (const auto* items = input->if_array(); items && !items->empty()) {
        messages.insert(messages.end(), items->begin(), items->end());
    } else {
        return bad_request("input: a string or a non-empty list of input items is required, got " + text_of(*input));
    }
    if (auto e = chat_prompt(json::object{{"messages", std::move(messages)}}, cfg, r)) {
        e->message = "input: " + e->message;
        return e;
    }
    return read_generation(o, cfg, r);
}

std::string completion_response(bool chat, const std::string& id, std::int64_t created_unix, const std::string& model,
                                const std::string& text, std::string_view finish_reason, int prompt_tokens,
                                int completion_tokens, int cached_tokens, const chat_extras& extras) {
    json::object choice{{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish_reason}};
    if (chat) {
        // Between tags the thinking is closed only when an answer follows it: max_tokens may cut it.
        const bool tags = extras.shape == reasoning_shape::think_tags;
        const bool answered = !text.empty() || !extras.calls.empty();
        const std::string thought = tags && !extras.reasoning.empty()
                                        ? "<think>" + std::string(extras.reasoning) + (answered ? "</think>" : "")
                                        : std::string();
        json::object message{{"role", "assistant"}, {"content", thought + text}};
        if (!extras.reasoning.empty() && !tags)
            message[extras.shape == reasoning_shape::reasoning ? "reasoning" : "reasoning_content"] = extras.reasoning;
        if (!extras.calls.empty()) {
            message["content"] = thought.empty() ? json::value(nullptr) : json::value(thought);
            json::array& calls = message["tool_calls"].emplace_array();
            for (const chat_extras::call& c : extras.calls)
                calls.push_back(json::object{{"id", c.id},
                                             {"type", "function"},
                                             {"function", json::object{{"name", c.name}, {"arguments", c.arguments}}}});
        }
        choice["message"] = std::move(message);
    } else {
        choice["text"] = text;
    }
    json::object usage{{"prompt_tokens", prompt_tokens},
                       {"total_tokens", std::int64_t{prompt_tokens} + completion_tokens},
                       {"completion_tokens", completion_tokens}};
    if (cached_tokens > 0) usage["prompt_tokens_details"] = json::object{{"cached_tokens", cached_tokens}};
    if (extras.reasoning_usage)
        usage["completion_tokens_details"] = json::object{{"reasoning_tokens", extras.reasoning_tokens}};
    json::object body{{"id", id},
                      {"object", chat ? "chat.completion" : "text_completion"},
                      {"created", created_unix},
                      {"model", model},
                      {"choices", json::array{std::move(choice)}},
                      {"usage", std::move(usage)}};
    return json::serialize(body);
}

std::optional<api_error> parse_embedding(std::string_view body, const sim_config& cfg, embedding_request& r) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return e;
    const json::value* input = doc.get_object().if_contains("input");
    if (!input || input->is_null()) return bad_request("input: field required");
    // A list of numbers is one input of token ids; any other list is a batch.
    const json::array* batch = input->if_array();
    const bool one = !batch || batch->empty() || batch->front().is_number();
    const auto count = [&](const json::value& item) -> std::optional<api_error> {
        if (!item.is_string() && !item.is_array())
            return bad_request("input: a string, a list of token ids, or a list of either is required, got " +
                               text_of(item));
        std::string err;
        std::vector<std::uint64_t> ids;
        if (!request_prompt_ids(cfg.tokenizer, json::object{{"prompt", item}}, false, ids, err)) return bad_request(err);
        if (ids.empty()) return bad_request("input: an input must not be empty");
        r.token_ids.insert(r.token_ids.end(), ids.begin(), ids.end());
        ++r.inputs;
        return std::nullopt;
    };
    if (one) {
        if (auto e = count(*input)) return e;
    } else {
        for (const json::value& item : *batch)
            if (auto e = count(item)) return e;
    }
    r.prompt_tokens = static_cast<int>(std::min<std::size_t>(r.token_ids.size(), std::numeric_limits<int>::max()));
    if (r.prompt_tokens > cfg.model.max_model_len) {
        return bad_request("This model's maximum context length is " + std::to_string(cfg.model.max_model_len) +
                           " tokens. However, you requested " + std::to_string(r.prompt_tokens) +
                           " tokens in the input for embedding generation. Please reduce the length of the input.");
    }
    return std::nullopt;
}

std::string embedding_response(const std::string& model, std::int64_t created_unix, const embedding_request& r) {
    json::array data;
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (auto t : r.token_ids) h = mix64(h ^ t);
    for (int i = 0; i < r.inputs; ++i) {
        double v[sim_embedding_dims];
        double norm = 0;
        for (double& x : v) {
            h = mix64(h);
            x = static_cast<double>(h >> 11) * 0x1.0p-53 * 2 - 1;
            norm += x * x;
        }
        json::array values;
        values.reserve(sim_embedding_dims);
        for (const double x : v) values.emplace_back(x / std::sqrt(norm));
        data.emplace_back(json::object{{"object", "embedding"}, {"index", i}, {"embedding", std::move(values)}});
    }
    return json::serialize(json::object{
        {"id", "embd-" + std::to_string(h >> 16)},
        {"object", "list"},
        {"created", created_unix},
        {"model", model},
        {"data", std::move(data)},
        {"usage", json::object{{"prompt_tokens", r.prompt_tokens}, {"total_tokens", r.prompt_tokens},
                               {"completion_tokens", 0}, {"prompt_tokens_details", nullptr}}}});
}

std::pair<http::status, std::string> tokenize_response(std::string_view body, const sim_config& cfg) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return {e->status, error_body(*e)};
    std::vector<std::uint64_t> ids;
    std::string err;
    media_reader media{cfg.media, static_cast<std::size_t>(cfg.model.max_model_len) + 1};
    if (!tokenize_request_ids(cfg.tokenizer, doc.get_object(), ids, err, &media))
        return {http::status::bad_request, error_body(bad_request(err))};
    json::array tokens;
    tokens.reserve(ids.size());
    for (auto id : ids) tokens.emplace_back(sim_vocab_id(id));
    return {http::status::ok, json::serialize(json::object{{"count", tokens.size()},
                                                           {"max_model_len", cfg.model.max_model_len},
                                                           {"tokens", std::move(tokens)}})};
}

std::string models_response(const sim_config& cfg, std::int64_t created_unix) {
    json::array data{json::object{{"id", cfg.served_model_name}, {"object", "model"}, {"created", created_unix},
                                  {"owned_by", "openloop"}, {"max_model_len", cfg.model.max_model_len}}};
    for (const std::string& a : cfg.lora_modules)
        data.push_back(json::object{{"id", a}, {"object", "model"}, {"created", created_unix}, {"owned_by", "openloop"},
                                    {"parent", cfg.served_model_name}, {"max_model_len", cfg.model.max_model_len}});
    return json::serialize(json::object{{"object", "list"}, {"data", std::move(data)}});
}

int output_length(const completion_request& r, std::uint64_t h) { return answer_length(r, h, 0); }

int answer_length(const completion_request& r, std::uint64_t h, int spent) {
    const int budget = r.max_tokens - std::min(spent, r.max_tokens);
    if (budget == 0 || r.ignore_eos) return budget;
    const double u1 = (static_cast<double>(mix64(h) >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (static_cast<double>(mix64(h + 1) >> 11) + 0.5) * 0x1.0p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const int natural = std::max(1, static_cast<int>(std::lround(200.0 * std::exp(0.8 * z))));
    return std::clamp(natural, std::clamp(r.min_tokens - spent, 1, budget), budget);
}

}  // namespace openloop
