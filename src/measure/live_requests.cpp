#include "openloop/measure/live_requests.hpp"

#include <utility>

namespace openloop {

request_timeline* live_requests::begin(std::uint64_t index) {
    if (live_.contains(index)) return nullptr;
    table::node_type node;
    if (spare_.empty()) {
        node = table{{index, request_timeline{}}}.extract(index);
    } else {
        node = std::move(spare_.back());
        spare_.pop_back();
        node.key() = index;
        std::vector<chunk_gap> gaps = std::move(node.mapped().gaps);
        gaps.clear();
        node.mapped() = request_timeline{};
        node.mapped().gaps = std::move(gaps);
    }
    return &live_.insert(std::move(node)).position->second;
}

request_timeline* live_requests::find(std::uint64_t index) {
    const auto it = live_.find(index);
    return it == live_.end() ? nullptr : &it->second;
}

void live_requests::end(std::uint64_t index) {
    const auto it = live_.find(index);
    if (it == live_.end()) return;
    if (spare_.size() < max_spare_nodes) {
        spare_.push_back(live_.extract(it));
    } else {
        live_.erase(it);
    }
}

}  // namespace openloop
