#include "openloop/measure/request_log.hpp"

#include "openloop/measure/json_text.hpp"

#include <boost/json/object.hpp>

#include <stdexcept>

namespace openloop {

namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

void put_ns(boost::json::object& o, std::string_view key, std::int64_t ns) {
    if (ns >= 0) {
        o[key] = ns;
    } else {
        o[key] = nullptr;
    }
}

void put_ms(boost::json::object& o, std::string_view key, std::int64_t from, std::int64_t to) {
    if (from >= 0 && to >= 0) {
        o[key] = ms(to - from);
    } else {
        o[key] = nullptr;
    }
}

}  // namespace

void request_log::open(const std::string& path, std::string request_id_prefix) {
    path_ = path;
    id_prefix_ = std::move(request_id_prefix);
    out_.open(path_, std::ios::out | std::ios::trunc);
    if (!out_) {
        throw std::runtime_error("cannot open " + path_ + " for writing");
    }
}

void request_log::write(std::uint64_t index, const request_timeline& r, const request_end& end) {
    if (!out_.is_open()) {
        return;
    }
    boost::json::object o;
    o["id"] = id_prefix_ + std::to_string(index);
    o["index"] = index;
    o["warmup"] = r.warmup;
    o["status"] = end.status;
    if (end.error.empty()) {
        o["error"] = nullptr;
    } else {
        o["error"] = end.error;
    }
    if (r.http_status != 0) {
        o["http_status"] = r.http_status;
    } else {
        o["http_status"] = nullptr;
    }
    put_ns(o, "intended_ns", r.intended);
    put_ns(o, "sent_ns", r.sent);
    put_ns(o, "headers_ns", r.headers);
    put_ns(o, "first_token_ns", r.first_chunk);
    put_ns(o, "last_token_ns", r.last_chunk);
    put_ns(o, "end_ns", end.end_ns);
    o["input_tokens"] = r.input_tokens;
    if (r.prompt_tokens >= 0) {
        o["prompt_tokens"] = r.prompt_tokens;
    } else {
        o["prompt_tokens"] = nullptr;
    }
    o["max_tokens"] = r.max_tokens;
    o["output_tokens"] = end.output_tokens;
    o["output_tokens_source"] = end.output_from_usage ? "usage" : "chunks";
    if (end.bad_usage) {
        o["bad_usage"] = true;  // absent when false, so ordinary lines stay as they were
    }
    o["chunks"] = r.chunks;
    put_ns(o, "cached_tokens", end.cached_tokens);
    put_ms(o, "lag_ms", r.intended, r.sent);
    put_ms(o, "ttft_ms", r.intended, r.first_chunk);
    if (end.tpot_ns >= 0) {
        o["tpot_ms"] = ms(end.tpot_ns);
    } else {
        o["tpot_ms"] = nullptr;
    }
    put_ms(o, "e2e_ms", r.intended, r.last_chunk);
    o["retried"] = r.retried;
    if (r.connect >= 0) {
        o["connect_ms"] = ms(r.connect);
    } else {
        o["connect_ms"] = nullptr;  // on a pooled connection: no connect on its path
    }
    out_ << compact_json(o) << '\n';
}

void request_log::flush() {
    if (out_.is_open()) {
        out_.flush();
    }
}

void request_log::check() {
    if (!out_.is_open()) {
        return;
    }
    out_.flush();
    if (!out_) {
        throw std::runtime_error("writing " + path_ + " failed");
    }
}

void request_log::close() {
    if (out_.is_open()) {
        out_.close();
    }
}

}  // namespace openloop
