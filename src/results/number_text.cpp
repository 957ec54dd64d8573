#include "openloop/results/number_text.hpp"

#include <cmath>
#include <cstdio>

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

}  // namespace openloop
