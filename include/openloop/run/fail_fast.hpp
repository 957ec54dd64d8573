#pragma once
// When a run stops early because the server refuses every request the same
// way: a wrong model name (404), a missing or bad API key (401, 403), a
// wrong path (404, 405), a port nothing listens on, a certificate the client
// rejects, a redirect (the target URL is not the one the server serves).
// Waiting out the run then teaches nothing. Running out of file descriptors
// (fd_limit) is openloop's own limit under this load, never the server's: it
// never trips the rule. Rule: the first
// fail_fast::requests requests to end (warm-up included) all failed in one
// non-retryable class and status, and none succeeded. 429 and 5xx say the
// server is busy or broken now, which is what a load test measures: never.
// Pure: the run's driver (run_driver.hpp) feeds it each request's end.

#include "openloop/measure/error_messages.hpp"
#include "openloop/measure/event.hpp"

#include <string>

namespace openloop {

// A failure that the same request would meet again whatever the load.
bool non_retryable(error_class cls, int status);

class fail_fast {
public:
    static constexpr int requests = 8;

    // One request ended (failure none: it succeeded). True exactly once: at
    // the end that trips the rule.
    bool observe(error_class failure, int status);
    bool tripped() const { return tripped_; }
    error_class failure() const { return cls_; }
    int status() const { return status_; }

private:
    int seen_ = 0;
    bool same_so_far_ = true;
    bool tripped_ = false;
    error_class cls_ = error_class::none;
    int status_ = 0;
};

// "stopping early: the first 8 requests all failed with HTTP 404: "The model
// `x` does not exist."", with the first message kept for that failure.
std::string fail_fast_reason(error_class cls, int status, const error_messages& messages);

}  // namespace openloop
