#include "openloop/load/shard.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

namespace openloop {

namespace {

bool parse_int(std::string_view text, int& out) {
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

void check_shard(const shard_spec& shard, std::string_view who) {
    if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
        throw std::invalid_argument(std::string(who) + ": shard " + std::to_string(shard.index) + "/" +
                                    std::to_string(shard.count) + " is not I/N with 0 <= I < N");
}

shard_spec parse_shard(std::string_view text) {
    const auto slash = text.find('/');
    shard_spec shard;
    if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), shard.index) ||
        !parse_int(text.substr(slash + 1), shard.count))
        throw std::invalid_argument("shard \"" + std::string(text) + "\": expected I/N, e.g. 0/4");
    check_shard(shard, "shard \"" + std::string(text) + "\"");
    return shard;
}

bool schedule_bounds::is_warmup(std::int64_t offset_ns, std::uint64_t index) const {
    return index < warmup_requests || offset_ns < static_cast<std::int64_t>(warmup_s * 1e9);
}

bool schedule_bounds::past(std::int64_t offset_ns, std::uint64_t measured) const {
    const bool count = num_requests > 0 && measured >= num_requests;
    const bool time = duration_s > 0 && offset_ns >= static_cast<std::int64_t>((warmup_s + duration_s) * 1e9);
    if (all_bounds) return (count || num_requests == 0) && (time || duration_s == 0);
    return count || time;
}

shard_walk::shard_walk(shard_spec shard, schedule_bounds bounds, bool judge_bounds)
    : shard_(shard), bounds_(bounds), judge_(judge_bounds) {
    check_shard(shard_, "shard_walk");
}

}  // namespace openloop
