#include "openloop/sim/media_tokens.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace openloop {

namespace {

bool read_int(std::string_view text, std::int64_t& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

// n / p rounded half to even, as Python's round(n / p) on the exact quotient.
std::int64_t round_half_even(std::int64_t n, std::int64_t p) {
    const std::int64_t q = n / p, r2 = 2 * (n % p);
    if (r2 > p || (r2 == p && q % 2 == 1)) return q + 1;
    return q;
}

}  // namespace

std::optional<image_token_rule> parse_image_token_rule(std::string_view text, std::string& err) {
    image_token_rule r;
    const auto colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    std::int64_t n = 0;
    if (name == "fixed") {
        if (!read_int(rest, n) || n < 0 || n > 1'000'000) {
            err = "fixed:N needs a token count N from 0 to 1000000, got '" + std::string(rest) + "'";
            return std::nullopt;
        }
        r.rule = image_token_rule::kind::fixed;
        r.fixed = static_cast<int>(n);
        return r;
    }
    if (name != "patch") {
        err = "unknown rule '" + std::string(name) + "' (patch:P[,min=N][,max=N] or fixed:N)";
        return std::nullopt;
    }
    const auto comma = rest.find(',');
    if (!read_int(rest.substr(0, comma), n) || n < 1 || n > 4096) {
        err = "patch:P needs a cell size P from 1 to 4096 px, got '" + std::string(rest.substr(0, comma)) + "'";
        return std::nullopt;
    }
    r.patch = static_cast<int>(n);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!rest.empty()) {
        const auto next = rest.find(',');
        const std::string_view item = rest.substr(0, next);
        rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
        const auto eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        // At most 2^34 pixels (a 131072-pixel square): a token count stays in range.
        if (eq == std::string_view::npos || (key != "min" && key != "max") || !read_int(item.substr(eq + 1), n) ||
            n < 1 || n > (std::int64_t{1} << 34)) {
            err = "patch options are min=PIXELS and max=PIXELS (1 to 2^34), got '" + std::string(item) + "'";
            return std::nullopt;
        }
        (key == "min" ? r.min_pixels : r.max_pixels) = n;
    }
    if (r.min_pixels > r.max_pixels) {
        err = "min=" + std::to_string(r.min_pixels) + " is over max=" + std::to_string(r.max_pixels);
        return std::nullopt;
    }
    return r;
}

std::string to_string(const image_token_rule& r) {
    if (r.rule == image_token_rule::kind::fixed) return "fixed:" + std::to_string(r.fixed);
    return "patch:" + std::to_string(r.patch) + ",min=" + std::to_string(r.min_pixels) +
           ",max=" + std::to_string(r.max_pixels);
}

resized smart_resize(const image_token_rule& r, std::int64_t width, std::int64_t height) {
    const std::int64_t p = r.patch;
    std::int64_t h = std::max(p, round_half_even(height, p) * p);
    std::int64_t w = std::max(p, round_half_even(width, p) * p);
    const double area = static_cast<double>(height) * static_cast<double>(width);
    if (h * w > r.max_pixels) {
        const double beta = std::sqrt(area / static_cast<double>(r.max_pixels));
        h = std::max(p, static_cast<std::int64_t>(std::floor(static_cast<double>(height) / beta / static_cast<double>(p))) * p);
        w = std::max(p, static_cast<std::int64_t>(std::floor(static_cast<double>(width) / beta / static_cast<double>(p))) * p);
    } else if (h * w < r.min_pixels) {
        const double beta = std::sqrt(static_cast<double>(r.min_pixels) / area);
        h = static_cast<std::int64_t>(std::ceil(static_cast<double>(height) * beta / static_cast<double>(p))) * p;
        w = static_cast<std::int64_t>(std::ceil(static_cast<double>(width) * beta / static_cast<double>(p))) * p;
    }
    return {w, h};
}

std::int64_t image_tokens(const image_token_rule& r, std::int64_t width, std::int64_t height) {
    if (r.rule == image_token_rule::kind::fixed) return r.fixed;
    const resized s = smart_resize(r, width, height);
    return (s.height / r.patch) * (s.width / r.patch) + media_delimiter_tokens;
}

std::int64_t audio_tokens(const media_token_rule& r, double seconds) {
    // A hair under an integer is that integer: 16000 samples at 16 kHz are 25 tokens, not 26.
    return static_cast<std::int64_t>(std::ceil(seconds * r.audio_tokens_per_s - 1e-9)) + media_delimiter_tokens;
}

}  // namespace openloop
