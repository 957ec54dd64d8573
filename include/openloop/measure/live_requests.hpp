#pragma once
// The requests a reporter has seen start and not yet end, by index. An
// ended request's node, with its chunk gaps' memory, goes to the next one
// started: at a steady rate no request allocates.

#include "openloop/measure/request_metrics.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace openloop {

class live_requests {
public:
    // A fresh timeline for index; null when index is live already (a
    // duplicate start would restart its clocks).
    request_timeline* begin(std::uint64_t index);
    request_timeline* find(std::uint64_t index);
    // Ends a live request (find's pointer is then dangling).
    void end(std::uint64_t index);
    std::size_t size() const { return live_.size(); }
    // Those still live, in index (schedule) order; the table is then empty.
    template <class F>
    void take_all(F&& each) {
        std::vector<std::uint64_t> left;
        left.reserve(live_.size());
        for (const auto& entry : live_) left.push_back(entry.first);
        std::sort(left.begin(), left.end());
        for (const std::uint64_t index : left) each(index, live_.at(index));
        live_.clear();
    }

private:
    using table = std::unordered_map<std::uint64_t, request_timeline>;
    static constexpr std::size_t max_spare_nodes = 4096;
    table live_;
    std::vector<table::node_type> spare_;
};

}  // namespace openloop
