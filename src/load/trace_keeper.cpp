#include "openloop/load/trace_keeper.hpp"

#include <algorithm>

namespace openloop {

trace_keeper::trace_keeper(const trace_selection& selection)
    : selection_(selection),
      reading_(selection.start_ns <= 0 && selection.end_ns < 0 && selection.max_count == 0 ? reading::all
                                                                                            : reading::in_order) {}

bool trace_keeper::before(const row& a, const row& b) {
    return a.at_ns < b.at_ns || (a.at_ns == b.at_ns && a.line < b.line);
}

bool trace_keeper::in_window(std::int64_t at_ns) const {
    const std::int64_t at = at_ns - origin_;
    return at >= selection_.start_ns && (selection_.end_ns < 0 || at < selection_.end_ns);
}

bool trace_keeper::add(trace_entry&& entry, std::size_t line) {
    const std::int64_t at_ns = entry.at_ns;
    switch (reading_) {
        case reading::all:
            kept_.push_back(std::move(entry));
            return true;
        case reading::in_order:
            if (seen_ && at_ns < last_) {
                out_of_order_ = true;
                return false;
            }
            if (!seen_) origin_ = at_ns;
            seen_ = true;
            last_ = at_ns;
            if (at_ns - origin_ < selection_.start_ns) return true;
            if (!in_window(at_ns)) return false;  // past its end
            kept_.push_back(std::move(entry));
            return selection_.max_count == 0 || kept_.size() < selection_.max_count;
        case reading::find_origin:
            origin_ = seen_ ? std::min(origin_, at_ns) : at_ns;
            seen_ = true;
            return true;
        case reading::in_window: {
            if (!in_window(at_ns)) return true;
            if (selection_.max_count == 0) {
                kept_.push_back(std::move(entry));
            } else if (earliest_.size() < selection_.max_count) {
                earliest_.push_back({at_ns, line, std::move(entry)});
                std::push_heap(earliest_.begin(), earliest_.end(), before);
            } else if (row r{at_ns, line, std::move(entry)}; before(r, earliest_.front())) {
                std::pop_heap(earliest_.begin(), earliest_.end(), before);
                earliest_.back() = std::move(r);
                std::push_heap(earliest_.begin(), earliest_.end(), before);
            }
            return true;
        }
    }
    return true;
}

bool trace_keeper::again() const {
    return (reading_ == reading::in_order && out_of_order_) || reading_ == reading::find_origin;
}

void trace_keeper::next_reading() {
    kept_.clear();
    if (reading_ == reading::in_order) {
        reading_ = reading::find_origin;
        seen_ = false;
    } else {
        reading_ = reading::in_window;  // origin_ is the earliest time now
    }
}

std::vector<trace_entry> trace_keeper::take() {
    if (!earliest_.empty()) {
        std::sort(earliest_.begin(), earliest_.end(), before);
        for (row& r : earliest_) kept_.push_back(std::move(r.entry));
        earliest_.clear();
    } else if (reading_ != reading::in_order) {
        // Kept in file order: a stable sort keeps rows of one time so.
        std::stable_sort(kept_.begin(), kept_.end(),
                         [](const trace_entry& a, const trace_entry& b) { return a.at_ns < b.at_ns; });
    }
    // The earliest row read, kept or not; with every row kept, the first.
    const std::int64_t origin = reading_ == reading::all && !kept_.empty() ? kept_.front().at_ns : origin_;
    for (trace_entry& e : kept_) e.at_ns -= origin;
    return std::move(kept_);
}

}  // namespace openloop
