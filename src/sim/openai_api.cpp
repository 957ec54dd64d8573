#include "openloop/sim/openai_api.hpp"

#include "openloop/load/tokens.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace openloop {

namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

bool read_int(const json::object& o, std::string_view key, int& out, std::string& err) {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return true;
    if (!v->is_int64() && !v->is_uint64()) {
        err = std::string(key) + " must be an integer";
        return false;
    }
    out = static_cast<int>(v->to_number<std::int64_t>());
    return true;
}

api_error bad_request(std::string message) { return {http::status::bad_request, "BadRequestError", std::move(message)}; }

// doc := body, a JSON object addressed to the served model (or to no model).
std::optional<api_error> parse_body(std::string_view body, const sim_config& cfg, json::value& doc) {
    json::error_code ec;
    doc = json::parse(body, ec);
    if (ec) return bad_request("Invalid JSON body: " + ec.message());
    const auto* o = doc.if_object();
    if (!o) return bad_request("The request body must be a JSON object");
    if (const auto* m = o->if_contains("model"); m && m->is_string() && m->get_string() != cfg.served_model_name) {
        return api_error{http::status::not_found, "NotFoundError",
                         "The model `" + std::string(m->get_string()) + "` does not exist."};
    }
    return std::nullopt;
}

}  // namespace

std::string error_body(const api_error& e) {
    json::object inner{{"message", e.message}, {"type", e.type}, {"param", nullptr},
                       {"code", static_cast<int>(e.status)}};
    return json::serialize(json::object{{"error", std::move(inner)}});
}

std::optional<api_error> parse_completion(std::string_view body, bool chat, const sim_config& cfg,
                                          completion_request& r) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return e;
    const auto& o = doc.get_object();
    r.chat = chat;
    std::string err;
    if (!request_prompt_ids(cfg.tokenizer, o, chat, r.token_ids, err)) return bad_request(err);
    r.prompt_tokens = static_cast<int>(r.token_ids.size());

    int n = 1;
    if (!read_int(o, "n", n, err)) return bad_request(err);
    if (n != 1) return bad_request("n: the simulator supports n=1 only");

    // vLLM's defaults: 16 tokens for /v1/completions, the rest of the context for chat.
    r.max_tokens = chat ? cfg.model.max_model_len - r.prompt_tokens : 16;
    if (!read_int(o, "max_tokens", r.max_tokens, err)) return bad_request(err);
    if (chat && !read_int(o, "max_completion_tokens", r.max_tokens, err)) return bad_request(err);
    if (!read_int(o, "min_tokens", r.min_tokens, err)) return bad_request(err);
    if (r.max_tokens < 1) return bad_request("max_tokens must be at least 1, got " + std::to_string(r.max_tokens));
    if (r.min_tokens < 0 || r.min_tokens > r.max_tokens) return bad_request("min_tokens must be between 0 and max_tokens");
    if (r.prompt_tokens + r.max_tokens > cfg.model.max_model_len) {
        return bad_request("This model's maximum context length is " + std::to_string(cfg.model.max_model_len) +
                           " tokens. However, you requested " + std::to_string(r.prompt_tokens + r.max_tokens) +
                           " tokens (" + std::to_string(r.prompt_tokens) + " in the messages, " +
                           std::to_string(r.max_tokens) + " in the completion). Please reduce the length of the "
                           "messages or completion.");
    }
    if (const auto* v = o.if_contains("ignore_eos"); v && v->is_bool()) r.ignore_eos = v->get_bool();
    if (const auto* v = o.if_contains("temperature"); v && v->is_number()) r.temperature = v->to_number<double>();
    if (const auto* v = o.if_contains("seed"); v && (v->is_int64() || v->is_uint64())) r.seed = v->to_number<std::int64_t>();
    if (const auto* v = o.if_contains("stream"); v && v->is_bool()) r.stream = v->get_bool();
    if (const auto* so = o.if_contains("stream_options"); so && so->is_object()) {
        if (const auto* v = so->get_object().if_contains("include_usage"); v && v->is_bool()) r.include_usage = v->get_bool();
        if (const auto* v = so->get_object().if_contains("continuous_usage_stats"); v && v->is_bool())
            r.continuous_usage = v->get_bool();
    }
    return std::nullopt;
}

std::pair<http::status, std::string> tokenize_response(std::string_view body, const sim_config& cfg) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return {e->status, error_body(*e)};
    std::vector<std::uint64_t> ids;
    std::string err;
    if (!tokenize_request_ids(cfg.tokenizer, doc.get_object(), ids, err))
        return {http::status::bad_request, error_body(bad_request(err))};
    json::array tokens;
    tokens.reserve(ids.size());
    for (auto id : ids) tokens.emplace_back(sim_vocab_id(id));
    return {http::status::ok, json::serialize(json::object{{"count", tokens.size()},
                                                           {"max_model_len", cfg.model.max_model_len},
                                                           {"tokens", std::move(tokens)}})};
}

std::string models_response(const sim_config& cfg, std::int64_t created_unix) {
    json::object model{{"id", cfg.served_model_name}, {"object", "model"}, {"created", created_unix},
                       {"owned_by", "openloop"}, {"max_model_len", cfg.model.max_model_len}};
    return json::serialize(json::object{{"object", "list"}, {"data", json::array{std::move(model)}}});
}

int output_length(const completion_request& r, std::uint64_t h) {
    if (r.ignore_eos) return r.max_tokens;
    const double u1 = (static_cast<double>(mix64(h) >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (static_cast<double>(mix64(h + 1) >> 11) + 0.5) * 0x1.0p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const int natural = std::max(1, static_cast<int>(std::lround(200.0 * std::exp(0.8 * z))));
    return std::clamp(natural, std::max(1, r.min_tokens), r.max_tokens);
}

}  // namespace openloop
