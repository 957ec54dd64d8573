#include "openloop/run/send_queue.hpp"

#include <algorithm>
#include <utility>

namespace openloop {

send_queue::send_queue(send_queue_limits limits)
    : limits_(limits), slots_(std::max<std::size_t>(1, limits.max_requests)) {}

send_step send_queue::next(std::int64_t now_ns, bool source_open) const {
    if (empty()) return source_open ? send_step::prepare : send_step::done;
    const std::int64_t slack = front().offset_ns - now_ns;
    if (slack <= 0) return send_step::send;
    if (source_open && has_room() && slack > margin_ns()) return send_step::prepare;
    return slack <= wake_margin_ns() ? send_step::spin : send_step::wait;
}

bool send_queue::has_room() const {
    return empty() || (size() < limits_.max_requests && bytes_ < limits_.max_bytes);
}

// Past max_requests only if the caller ignored has_room(): the ring grows, in order.
void send_queue::push(queued_request r) {
    bytes_ += r.request.bytes.size();
    slots_.push(std::move(r));
}

queued_request send_queue::pop() {
    queued_request r = slots_.pop();
    bytes_ -= r.request.bytes.size();
    return r;
}

void send_queue::note_preparation(std::int64_t ns) {
    longest_ns_ = std::max(ns, longest_ns_ - longest_ns_ / 16);
}

std::int64_t send_queue::margin_ns() const { return std::max(limits_.min_margin_ns, 2 * longest_ns_); }

void send_queue::note_wake(std::int64_t late_ns) { late_ns_ = std::max(late_ns, late_ns_ - late_ns_ / 16); }

std::int64_t send_queue::wake_margin_ns() const { return std::clamp(late_ns_, limits_.min_wake_ns, limits_.max_wake_ns); }

std::size_t send_queue::due_before(std::int64_t until_ns) const {
    std::size_t n = 0;
    while (n < slots_.size() && slots_[n].offset_ns < until_ns) ++n;
    return n;
}

}  // namespace openloop
