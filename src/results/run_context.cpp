#include "openloop/results/run_context.hpp"

#include <stdexcept>

namespace openloop {

namespace json = boost::json;

boost::json::object run_context_json(const run_context& c) {
    return json::object{{"config", c.config},
                        {"environment", c.environment},
                        {"target", c.target},
                        {"mode", c.mode},
                        {"request_rate", c.request_rate},
                        {"burstiness", c.burstiness},
                        {"arrival", c.arrival},
                        {"max_concurrency", c.max_concurrency},
                        {"lag_bound_ms", c.lag_bound_ms},
                        {"max_error_rate", c.max_error_rate},
                        {"tokenizer", c.tokenizer}};
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
    return c;
}

}  // namespace openloop
