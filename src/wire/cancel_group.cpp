#include "openloop/wire/cancel_group.hpp"

namespace openloop {

void cancel_group::cancel_all() {
    // A handler that ran inline and ended its coroutine must not erase the
    // member being iterated: releases wait until the loop is over.
    cancelling_ = true;
    for (auto& m : members_)
        if (!m.ended) m.signal.emit(boost::asio::cancellation_type::terminal);
    cancelling_ = false;
    for (auto it = members_.begin(); it != members_.end();) {
        const auto next = std::next(it);
        if (it->ended) release(it);
        it = next;
    }
}

void cancel_group::release(iterator it) {
    if (cancelling_) {
        it->ended = true;
    } else if (spare_.size() < max_spare) {
        spare_.splice(spare_.end(), members_, it);
    } else {
        members_.erase(it);
    }
}

std::string cancel_group::describe(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
        return "an exception of unknown type";
    }
}

}  // namespace openloop
