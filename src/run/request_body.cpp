#include "openloop/run/request_body.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace openloop {

namespace json = boost::json;

request_body::request_body(const run_options& o) : o_(o), chat_(o.endpoint == "chat") {
    if (o.extra_body.empty()) return;
    json::error_code ec;
    auto extra = json::parse(o.extra_body, ec);
    if (ec || !extra.is_object())
        throw std::runtime_error("--extra-body must be a JSON object, e.g. '{\"top_p\": 0.9}'");
    extra_ = extra.as_object();
}

std::string request_body::json(const request_spec& spec, const std::string& model) const {
    json::object body = extra_;
    body["model"] = model;
    if (chat_) {
        body["messages"] = json::array{json::object{{"role", "user"}, {"content", spec.prompt}}};
    } else if (!spec.prompt_ids.empty()) {
        json::array ids;
        ids.reserve(spec.prompt_ids.size());
        for (const auto id : spec.prompt_ids) ids.emplace_back(id);
        body["prompt"] = std::move(ids);
    } else {
        body["prompt"] = spec.prompt;
    }
    body["max_tokens"] = spec.max_tokens;
    if (!extra_.contains("temperature")) body["temperature"] = o_.temperature;
    if (o_.sampling_seed >= 0 && !extra_.contains("seed")) body["seed"] = o_.sampling_seed;
    if (o_.ignore_eos) {
        // min_tokens holds the length where a server honours it but not ignore_eos.
        body["ignore_eos"] = true;
        if (!extra_.contains("min_tokens")) body["min_tokens"] = spec.max_tokens;
    }
    body["stream"] = true;
    json::object so{{"include_usage", true}};
    if (o_.continuous_usage) so["continuous_usage_stats"] = true;
    if (!extra_.contains("stream_options")) body["stream_options"] = std::move(so);
    return json::serialize(body);
}

}  // namespace openloop
