#include "openloop/results/media_report.hpp"

#include "openloop/results/number_text.hpp"
#include "openloop/results/run_result.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>

namespace openloop {

namespace {

double ratio(double n, double d) { return d > 0 ? n / d : 0; }

boost::json::value bytes_or_null(const histogram& h, double p) {
    if (h.count() == 0) return nullptr;
    return h.percentile(p);
}

// Rows with requests in them: a run's image counts need not be contiguous.
boost::json::array rows_json(const std::vector<media_row>& rows, const char* key, bool count_key) {
    boost::json::array out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const media_row& row = rows[i];
        if (row.requests == 0) continue;
        boost::json::object o;
        if (count_key && row.label.back() != '+') {
            o[key] = i;
        } else {
            o[key] = row.label;
        }
        o["requests"] = row.requests;
        o["p50_ttft_ms"] = latency_ms_json(row.ttft, "p50");
        o["p90_ttft_ms"] = latency_ms_json(row.ttft, "p90");
        out.emplace_back(std::move(o));
    }
    return out;
}

std::string bytes_text(double bytes) {
    if (bytes >= 1e6) return fmt("%.2f MB", bytes / 1e6);
    if (bytes >= 1e3) return fmt("%.1f kB", bytes / 1e3);
    return fmt("%.0f B", bytes);
}

void row_lines(std::vector<std::string>& lines, const std::vector<media_row>& rows, const std::string& what) {
    for (const media_row& row : rows) {
        if (row.requests == 0) continue;
        std::string label = row.label + " " + what;
        if (label.size() < 16) label.append(16 - label.size(), ' ');
        lines.push_back("  " + label + std::to_string(row.requests) + " requests  TTFT p50 " +
                        fmt_ms(latency_ms(row.ttft, "p50").value_or(0)) + " ms  p90 " +
                        fmt_ms(latency_ms(row.ttft, "p90").value_or(0)) + " ms");
    }
}

}  // namespace

boost::json::object media_json(const media_stats& m) {
    boost::json::object o;
    const auto n = static_cast<double>(m.requests);
    o["requests"] = m.requests;
    o["images"] = m.images;
    o["audios"] = m.audios;
    o["images_per_request"] = ratio(static_cast<double>(m.images), n);
    o["audios_per_request"] = ratio(static_cast<double>(m.audios), n);
    o["body_bytes"] = boost::json::object{{"mean", m.body_bytes.count() > 0 ? boost::json::value(m.body_bytes.mean()) : nullptr},
                                          {"p50", bytes_or_null(m.body_bytes, 50)},
                                          {"p99", bytes_or_null(m.body_bytes, 99)},
                                          {"max", bytes_or_null(m.body_bytes, 100)},
                                          {"total", m.body_bytes_total}};
    o["prompt_tokens"] = boost::json::object{
        {"requests", m.counted},
        {"text", m.text_tokens},
        {"media", m.media_tokens},
        {"media_per_image", m.counted_images > 0 ? boost::json::value(ratio(static_cast<double>(m.media_tokens),
                                                                            static_cast<double>(m.counted_images)))
                                                 : nullptr},
        {"negative", m.negative}};
    o["ttft_by_images"] = rows_json(m.by_images, "images", true);
    o["ttft_by_bucket"] = rows_json(m.by_bucket, "bucket", false);
    return o;
}

std::vector<std::string> media_lines(const media_stats& m) {
    std::vector<std::string> lines;
    const auto n = static_cast<double>(m.requests);
    lines.push_back("media          " + std::to_string(m.requests) + " requests carried " + std::to_string(m.images) +
                    " images, " + std::to_string(m.audios) + (m.audios == 1 ? " audio clip (" : " audio clips (") +
                    fmt("%.2f", ratio(static_cast<double>(m.images), n)) + " images per request); body " +
                    bytes_text(m.body_bytes.mean()) + " mean, " +
                    bytes_text(static_cast<double>(m.body_bytes.percentile(99))) + " p99, " +
                    bytes_text(static_cast<double>(m.body_bytes_total)) + " sent");
    if (m.counted > 0) {
        lines.push_back("media tokens   " + std::to_string(m.media_tokens) + " media + " + std::to_string(m.text_tokens) +
                        " text prompt tokens over " + std::to_string(m.counted) + " requests" +
                        (m.counted_images > 0 ? ", " +
                                                    fmt("%.1f", ratio(static_cast<double>(m.media_tokens),
                                                                      static_cast<double>(m.counted_images))) +
                                                    " per image"
                                              : std::string()));
    }
    if (m.negative > 0)
        lines.push_back("media tokens   " + std::to_string(m.negative) + (m.negative == 1 ? " request" : " requests") +
                        " had fewer prompt tokens than the text: counted as 0 media tokens; the server's usage is off");
    row_lines(lines, m.by_images, "images");
    row_lines(lines, m.by_bucket, "");
    return lines;
}

}  // namespace openloop
