#include "openloop/measure/window_log.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/base/result_files.hpp"
#include "openloop/measure/resource_usage.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace openloop {

namespace json = boost::json;

namespace {


// {"p50", "p90", "p99", "max"} in ms ("inf" past a request that never answered); null for an
// empty window.
json::value percentiles(const histogram& h) {
    if (h.count() == 0) return nullptr;
    return json::object{{"p50", ms_json(ns_as_ms(h.percentile(50)))},
                        {"p90", ms_json(ns_as_ms(h.percentile(90)))},
                        {"p99", ms_json(ns_as_ms(h.percentile(99)))},
                        {"max", ms_json(ns_as_ms(h.max()))}};
}

// A CSV cell: the number, or empty when unknown (< 0 or an empty histogram).
std::string cell(double v, const char* format = "%.3f") {
    if (v < 0) return "";
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string cell_ms(const histogram& h, double p) { return h.count() == 0 ? "" : cell(ns_as_ms(h.percentile(p))); }

std::int64_t at(const histogram& h, double p) { return h.count() == 0 ? -1 : h.percentile(p); }

}  // namespace

window_log::window_log(std::chrono::nanoseconds window) : window_ns_(std::max<std::int64_t>(1, window.count())) {}

void window_log::open(const std::string& dir) {
    const std::filesystem::path d(dir);
    csv_path_ = (d / result_file::windows_csv).string();
    jsonl_path_ = (d / result_file::windows_jsonl).string();
    csv_.open(csv_path_);
    jsonl_.open(jsonl_path_);
}

void window_log::start(std::int64_t origin_ns) {
    if (origin_ns_ != 0) return;
    origin_ns_ = origin_ns;
    cpu_at_start_ = cpu_seconds();
    cpu_wall_ns_ = origin_ns;
}

void window_log::advance(std::int64_t t, std::uint64_t in_flight) {
    if (origin_ns_ == 0) return;
    while (t >= origin_ns_ + (index_ + 1) * window_ns_) {
        emit(origin_ns_ + (index_ + 1) * window_ns_, in_flight);
        ++index_;
    }
}

void window_log::close_window(std::int64_t t, std::uint64_t in_flight) {
    if (origin_ns_ == 0) return;
    const std::int64_t start = origin_ns_ + index_ * window_ns_;
    if (t > start) emit(t, in_flight, true);
}

void window_log::failed(error_class cls) {
    ++failed_;
    if (static_cast<int>(cls) < error_class_count) ++failed_by_class_[static_cast<std::size_t>(cls)];
}

void window_log::completed(const request_timeline& r, const request_metrics& m) {
    ++completed_;
    output_tokens_ += m.output_tokens;
    if (m.ttft >= 0) ttft_.record(m.ttft);
    if (m.e2e >= 0) e2e_.record(m.e2e);
    if (m.tpot >= 0) tpot_.record(m.tpot);
    record_ttfa(ttfa_, m);
    reasoning_tokens_ += m.reasoning_tokens;
    if (m.reasoning_tokens > 0 || r.reasoning_chunks > 0) ++thinking_;
    record_itl(itl_, r, m.bad_usage);
}

void window_log::write_csv_header(const window_signals& s) {
    csv_ << "window,t_start_s,t_end_s,offered,offered_rate,completed,achieved_rate,failed,error_rate,refused,in_flight,"
            "output_tokens,output_tok_s,ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,ttft_max_ms,itl_p50_ms,itl_p99_ms,"
            "tpot_p50_ms,tpot_p99_ms,e2e_p50_ms,e2e_p99_ms,lag_p99_ms,lag_max_ms,generator_rss_mib,generator_cpu_pct,"
            "ttfa_p50_ms,ttfa_p99_ms,reasoning_tokens";
    if (s.server_pid) csv_ << ",server_rss_mib,server_cpu_pct";
    if (s.scraping) csv_ << ",scrape_failures";
    for (const auto& [name, value] : s.values) {
        csv_signals_.push_back(name);
        csv_ << ",signals." << name;  // apart from the /proc columns: server_rss_mib may be both
    }
    csv_ << '\n';
    csv_header_ = true;
}

void window_log::emit(std::int64_t end_ns, std::uint64_t in_flight, bool partial) {
    const std::int64_t start_ns = origin_ns_ + index_ * window_ns_;
    const double seconds = static_cast<double>(end_ns - start_ns) / 1e9;
    const double offered_rate = seconds > 0 ? static_cast<double>(offered_) / seconds : 0;
    const double achieved_rate = seconds > 0 ? static_cast<double>(completed_) / seconds : 0;
    const double ended = static_cast<double>(completed_ + failed_);
    const double error_rate = ended > 0 ? static_cast<double>(failed_) / ended : 0;
    const double tok_s = seconds > 0 ? static_cast<double>(output_tokens_) / seconds : 0;
    const std::int64_t rss = resident_memory_bytes();
    const double rss_mib = rss < 0 ? -1 : static_cast<double>(rss) / bytes_per_mib;
    const double cpu = cpu_seconds();
    const double wall = static_cast<double>(end_ns - cpu_wall_ns_) / 1e9;
    const double cpu_pct = cpu >= 0 && cpu_at_start_ >= 0 && wall > 0 ? 100.0 * (cpu - cpu_at_start_) / wall : -1;
    cpu_at_start_ = cpu;
    cpu_wall_ns_ = end_ns;
    const window_signals sig = signals_ ? signals_() : window_signals{};

    last_ = window_figures{index_,       seconds,          offered_rate,     achieved_rate,   at(ttft_, 50),
                           at(ttft_, 90), at(ttft_, 99), at(itl_, 99), at(tpot_, 99), at(e2e_, 99)};

    if (jsonl_.is_open()) {
        json::object o;
        o["window"] = index_;
        o["t_start_s"] = static_cast<double>(start_ns - origin_ns_) / 1e9;
        o["t_end_s"] = static_cast<double>(end_ns - origin_ns_) / 1e9;
        if (partial) o["partial"] = true;  // the run's last, shorter window: left out of the trends
        o["offered"] = offered_;
        o["offered_rate"] = offered_rate;
        o["completed"] = completed_;
        o["achieved_rate"] = achieved_rate;
        o["failed"] = failed_;
        o["error_rate"] = error_rate;
        json::object errors;
        for (int c = 0; c < error_class_count; ++c) {
            if (failed_by_class_[static_cast<std::size_t>(c)] > 0)
                errors[error_class_name(static_cast<error_class>(c))] = failed_by_class_[static_cast<std::size_t>(c)];
        }
        o["errors"] = std::move(errors);
        o["refused"] = refused_;
        o["in_flight"] = in_flight;
        o["output_tokens"] = output_tokens_;
        o["output_tok_s"] = tok_s;
        o["ttft_ms"] = percentiles(ttft_);
        o["itl_ms"] = percentiles(itl_);
        o["tpot_ms"] = percentiles(tpot_);
        o["e2e_ms"] = percentiles(e2e_);
        // A thinking model's windows: the answer's first token, and what thinking cost.
        if (thinking_ > 0) {
            o["ttfa_ms"] = percentiles(ttfa_);
            if (json::object* t = o["ttfa_ms"].if_object()) (*t)["never_answered"] = ttfa_.infinite_count();
            o["reasoning_tokens"] = reasoning_tokens_;
        }
        o["lag_ms"] = lag_.count() == 0 ? json::value(nullptr)
                                        : json::value(json::object{{"p99", ns_to_ms(lag_.percentile(99))}, {"max", ns_to_ms(lag_.max())}});
        json::object gen;
        if (rss_mib >= 0) gen["rss_mib"] = rss_mib;
        if (cpu_pct >= 0) gen["cpu_pct"] = cpu_pct;
        o["generator"] = std::move(gen);
        if (sig.server_pid) {
            json::object srv;
            if (sig.server_rss_mib >= 0) srv["rss_mib"] = sig.server_rss_mib;
            if (sig.server_cpu_pct >= 0) srv["cpu_pct"] = sig.server_cpu_pct;
            o["server"] = std::move(srv);
        }
        if (sig.scraping) {
            json::object values;
            for (const auto& [name, value] : sig.values) values[name] = value;
            o["signals"] = std::move(values);
            o["scrape_failures"] = sig.scrape_failures;
        }
        jsonl_ << compact_json(o) << '\n';
        jsonl_.flush();
    }
    if (csv_.is_open()) {
        if (!csv_header_) write_csv_header(sig);
        char head[256];
        std::snprintf(head, sizeof head, "%lld,%.3f,%.3f,%llu,%.3f,%llu,%.3f,%llu,%.5f,%llu,%llu,%lld,%.1f",
                      static_cast<long long>(index_), static_cast<double>(start_ns - origin_ns_) / 1e9,
                      static_cast<double>(end_ns - origin_ns_) / 1e9, static_cast<unsigned long long>(offered_),
                      offered_rate, static_cast<unsigned long long>(completed_), achieved_rate,
                      static_cast<unsigned long long>(failed_), error_rate, static_cast<unsigned long long>(refused_),
                      static_cast<unsigned long long>(in_flight), static_cast<long long>(output_tokens_), tok_s);
        csv_ << head;
        csv_ << ',' << cell_ms(ttft_, 50) << ',' << cell_ms(ttft_, 90) << ',' << cell_ms(ttft_, 99) << ','
             << cell_ms(ttft_, 100);
        for (const histogram* h : {&itl_, &tpot_, &e2e_}) csv_ << ',' << cell_ms(*h, 50) << ',' << cell_ms(*h, 99);
        csv_ << ',' << cell_ms(lag_, 99) << ',' << cell_ms(lag_, 100) << ',' << cell(rss_mib, "%.1f") << ','
             << cell(cpu_pct, "%.1f");
        if (thinking_ > 0)
            csv_ << ',' << cell_ms(ttfa_, 50) << ',' << cell_ms(ttfa_, 99) << ',' << reasoning_tokens_;
        else
            csv_ << ",,,";
        if (sig.server_pid) csv_ << ',' << cell(sig.server_rss_mib, "%.1f") << ',' << cell(sig.server_cpu_pct, "%.1f");
        if (sig.scraping) csv_ << ',' << sig.scrape_failures;
        for (const std::string& name : csv_signals_) {
            const auto it = std::find_if(sig.values.begin(), sig.values.end(),
                                         [&](const auto& v) { return v.first == name; });
            csv_ << ',';
            if (it != sig.values.end()) csv_ << cell(it->second, "%.6g");
        }
        csv_ << '\n';
        csv_.flush();
    }

    if (print_) {
        // \r and the blanks overwrite a live progress line, which goes on below.
        std::fprintf(stderr, "\rwindow %lld  %7.0f s  offered %.1f/s  achieved %.1f/s  in flight %llu  failed %llu  "
                             "TTFT p99 %s ms  E2E p99 %s ms  generator %s MiB",
                     static_cast<long long>(index_), static_cast<double>(end_ns - origin_ns_) / 1e9, offered_rate,
                     achieved_rate, static_cast<unsigned long long>(in_flight), static_cast<unsigned long long>(failed_),
                     ttft_.count() ? cell(ns_to_ms(ttft_.percentile(99)), "%.1f").c_str() : "-",
                     e2e_.count() ? cell(ns_to_ms(e2e_.percentile(99)), "%.1f").c_str() : "-", cell(rss_mib, "%.1f").c_str());
        if (sig.server_rss_mib >= 0) std::fprintf(stderr, "  server %.1f MiB", sig.server_rss_mib);
        if (sig.scraping && sig.scrape_failures > 0)
            std::fprintf(stderr, "  scrape failures %llu", static_cast<unsigned long long>(sig.scrape_failures));
        std::fprintf(stderr, "          \n");
    }

    offered_ = refused_ = completed_ = failed_ = 0;
    failed_by_class_.fill(0);
    output_tokens_ = reasoning_tokens_ = 0;
    thinking_ = 0;
    for (histogram* h : {&ttft_, &itl_, &tpot_, &e2e_, &lag_, &ttfa_}) h->reset();
}

void window_log::flush() {
    if (csv_.is_open()) csv_.flush();
    if (jsonl_.is_open()) jsonl_.flush();
}

void window_log::check() {
    flush();
    if (csv_.is_open() && !csv_) throw std::runtime_error("writing " + csv_path_ + " failed");
    if (jsonl_.is_open() && !jsonl_) throw std::runtime_error("writing " + jsonl_path_ + " failed");
}

void window_log::close() {
    if (csv_.is_open()) csv_.close();
    if (jsonl_.is_open()) jsonl_.close();
}

}  // namespace openloop
