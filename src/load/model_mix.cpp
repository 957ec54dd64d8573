#include "openloop/load/model_mix.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/random.hpp"
#include "openloop/base/trim.hpp"

#include <charconv>
#include <cmath>
#include <utility>

namespace openloop {

namespace {

// Keeps the models' draws apart from every other use of the run's seed.
constexpr std::uint64_t model_salt = 0x6a09e667f3bcc909ULL;
// The index is one byte: the start event carries it in its flags.
constexpr std::size_t max_models = 255;

[[noreturn]] void bad(std::string_view entry, const std::string& why) {
    throw input_error("--model: entry '" + std::string(entry) + "': " + why +
                      " (give NAME or NAME=WEIGHT, comma-separated, e.g. base=0.5,sql-lora=0.3,chat-lora=0.2)");
}

}  // namespace

model_mix::model_mix(std::string name) {
    if (!name.empty()) {
        models_.push_back({std::move(name), 1.0});
        cumulative_.push_back(1.0);
    }
}

model_mix model_mix::parse(std::string_view text) {
    model_mix m;
    double total = 0;
    std::size_t at = 0;
    for (;;) {
        const std::size_t comma = text.find(',', at);
        const std::string_view entry = text.substr(at, comma == std::string_view::npos ? text.npos : comma - at);
        const std::size_t eq = entry.find('=');
        const std::string_view name = trim(entry.substr(0, eq));
        double weight = 1;
        if (name.empty()) bad(entry, "no model name");
        if (eq != std::string_view::npos) {
            const std::string_view w = trim(entry.substr(eq + 1));
            const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
            if (w.empty() || ec != std::errc{} || end != w.data() + w.size() || !std::isfinite(weight) || weight <= 0)
                bad(entry, "the weight is not a positive number");
        }
        for (const model_share& s : m.models_)
            if (s.name == name) bad(entry, "the model is named twice");
        if (m.models_.size() == max_models) bad(entry, "more than 255 models");
        m.models_.push_back({std::string(name), weight});
        total += weight;
        if (comma == std::string_view::npos) break;
        at = comma + 1;
    }
    double sum = 0;
    for (model_share& s : m.models_) {
        s.weight /= total;
        sum += s.weight;
        m.cumulative_.push_back(sum);
    }
    m.cumulative_.back() = 1.0;  // rounding must not leave a draw past the last model
    return m;
}

std::uint8_t model_mix::pick(std::uint64_t global_index, std::uint64_t seed) const {
    if (models_.size() < 2) return 0;
    // A hash of the index, not a shared stream: any shard, in any order, draws the same.
    const std::uint64_t h = mix64(mix64(seed ^ model_salt) ^ global_index);
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    std::size_t i = 0;
    while (u >= cumulative_[i]) ++i;
    return static_cast<std::uint8_t>(i);
}

}  // namespace openloop
