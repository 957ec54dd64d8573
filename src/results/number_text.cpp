#include "openloop/results/number_text.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace openloop {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

const char* ms_format(double scale) {
    const double a = std::fabs(scale);
    if (a < 10) {
        return "%.3f";
    }
    if (a < 100) {
        return "%.2f";
    }
    if (a < 10000) {
        return "%.1f";
    }
    return "%.0f";
}

std::string fmt_ms(double v) { return fmt(ms_format(v), v); }

std::string utc_text(std::int64_t ns) {
    const std::int64_t us = ns / 1000 - (ns % 1000 < 0 ? 1 : 0);
    const std::time_t seconds = static_cast<std::time_t>(us / 1'000'000 - (us % 1'000'000 < 0 ? 1 : 0));
    const auto micros = static_cast<long>(us - static_cast<std::int64_t>(seconds) * 1'000'000);
    std::tm t{};
    gmtime_r(&seconds, &t);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                  t.tm_hour, t.tm_min, t.tm_sec, micros);
    return buf;
}

std::string figure_text(double v) { return std::isfinite(v) ? fmt("%.4g", v) : "-"; }

std::string ms_text(double v) { return std::isnan(v) ? "-" : fmt_ms(v); }

}  // namespace openloop
