#include "openloop/results/run_context.hpp"

#include "openloop/results/number_text.hpp"

#include <stdexcept>

namespace openloop {

namespace json = boost::json;

boost::json::object run_context_json(const run_context& c) {
    json::object o{{"config", c.config},
               {"environment", c.environment},
               {"target", c.target},
               {"mode", c.mode},
               {"request_rate", c.request_rate},
               {"burstiness", c.burstiness},
               {"arrival", c.arrival},
               {"max_concurrency", c.max_concurrency},
               {"lag_bound_ms", c.lag_bound_ms},
               {"max_error_rate", c.max_error_rate},
               {"tokenizer", c.tokenizer},
               {"streamed", c.streamed},
               {"headline", c.headline.empty() ? json::value(nullptr) : json::value(c.headline)},
               {"shard", c.shard.empty() ? json::value(nullptr) : json::value(c.shard)},
               {"start", run_clock_json(c.clock)}};
    // Only when there is one, so a text-only, one-model run.json is as it was.
    if (!c.model_mix.empty()) o["model_mix"] = c.model_mix;
    if (!c.media.empty()) o["media"] = c.media;
    return o;
}

boost::json::object run_clock_json(const run_clock& c) {
    json::object o;
    o["start_at"] = c.start_at_ns >= 0 ? json::value(utc_text(c.start_at_ns)) : json::value(nullptr);
    o["start_at_ns"] = c.start_at_ns >= 0 ? json::value(c.start_at_ns) : json::value(nullptr);
    o["origin_wall"] = c.started() ? json::value(utc_text(c.origin_wall_ns())) : json::value(nullptr);
    o["origin_wall_ns"] = c.started() ? json::value(c.origin_wall_ns()) : json::value(nullptr);
    o["origin_steady_ns"] = c.started() ? json::value(c.origin_steady_ns) : json::value(nullptr);
    o["wall_minus_steady_ns"] = c.wall_minus_steady_ns;
    o["late_ms"] = c.late_ms;
    o["tolerance_ms"] = c.tolerance_ms;
    return o;
}

run_clock run_clock_from_json(const boost::json::object& start) {
    run_clock c;
    const auto integer = [&](const char* name, std::int64_t fallback) {
        const json::value* v = start.if_contains(name);
        if (v == nullptr || v->is_null()) return fallback;
        if (!v->is_int64()) throw std::invalid_argument(std::string("\"start\".\"") + name + "\" is not an integer");
        return v->get_int64();
    };
    const auto number = [&](const char* name, double fallback) {
        const json::value* v = start.if_contains(name);
        if (v == nullptr || v->is_null()) return fallback;
        if (!v->is_number()) throw std::invalid_argument(std::string("\"start\".\"") + name + "\" is not a number");
        return v->to_number<double>();
    };
    c.wall_minus_steady_ns = integer("wall_minus_steady_ns", 0);
    c.origin_steady_ns = integer("origin_steady_ns", 0);
    c.start_at_ns = integer("start_at_ns", -1);
    c.late_ms = number("late_ms", 0);
    c.tolerance_ms = number("tolerance_ms", c.tolerance_ms);
    return c;
}

run_context run_context_from_json(const boost::json::value& v) {
    const json::object* o = v.if_object();
    if (o == nullptr) throw std::invalid_argument("not a JSON object");
    const auto field = [&](const char* name) -> const json::value& {
        const json::value* f = o->if_contains(name);
        if (f == nullptr) throw std::invalid_argument(std::string("no \"") + name + "\"");
        return *f;
    };
    const auto text = [&](const char* name) {
        const json::value& f = field(name);
        if (!f.is_string()) throw std::invalid_argument(std::string("\"") + name + "\" is not a string");
        return std::string(f.get_string());
    };
    const auto number = [&](const char* name) {
        const json::value& f = field(name);
        if (!f.is_number()) throw std::invalid_argument(std::string("\"") + name + "\" is not a number");
        return f.to_number<double>();
    };
    const auto object = [&](const char* name) {
        const json::value& f = field(name);
        if (!f.is_object()) throw std::invalid_argument(std::string("\"") + name + "\" is not an object");
        return f.get_object();
    };
    run_context c;
    c.config = object("config");
    c.environment = object("environment");
    c.target = text("target");
    c.mode = text("mode");
    c.request_rate = number("request_rate");
    c.burstiness = number("burstiness");
    c.arrival = text("arrival");
    c.max_concurrency = static_cast<int>(number("max_concurrency"));
    c.lag_bound_ms = number("lag_bound_ms");
    c.max_error_rate = number("max_error_rate");
    c.tokenizer = text("tokenizer");
    if (const json::value* s = o->if_contains("streamed"); s && s->is_bool()) c.streamed = s->get_bool();
    if (const json::value* shard = o->if_contains("shard"); shard && shard->is_string()) c.shard = shard->get_string();
    if (const json::value* h = o->if_contains("headline"); h && h->is_string()) c.headline = h->get_string();
    if (const json::value* mix = o->if_contains("model_mix"); mix && mix->is_string()) c.model_mix = mix->get_string();
    if (const json::value* media = o->if_contains("media"); media && media->is_object()) c.media = media->get_object();
    if (const json::value* start = o->if_contains("start"); start && start->is_object())
        c.clock = run_clock_from_json(start->get_object());
    return c;
}

}  // namespace openloop
