#include "openloop/run/fail_fast.hpp"

namespace openloop {

bool non_retryable(error_class cls, int status) {
    switch (cls) {
    case error_class::connect:
    case error_class::tls:
    case error_class::http_3xx: return true;  // the same URL is redirected the same way every time
    case error_class::http_4xx: return status == 401 || status == 403 || status == 404 || status == 405;
    default: return false;
    }
}

bool fail_fast::observe(error_class failure, int status) {
    if (tripped_ || !same_so_far_) return false;
    if (!non_retryable(failure, status) || (seen_ > 0 && (failure != cls_ || status != status_))) {
        same_so_far_ = false;
        return false;
    }
    cls_ = failure;
    status_ = status;
    tripped_ = ++seen_ >= requests;
    return tripped_;
}

std::string fail_fast_reason(error_class cls, int status, const error_messages& messages) {
    std::string s = "stopping early: the first " + std::to_string(fail_fast::requests) + " requests all failed with ";
    s += cls == error_class::http_4xx || cls == error_class::http_3xx ? "HTTP " + std::to_string(status)
                                                                      : std::string(error_class_name(cls));
    if (const auto* e = messages.find(cls, status); e && !e->messages.empty()) s += ": \"" + e->messages.front() + "\"";
    return s;
}

}  // namespace openloop
