#pragma once
// A local process's memory and CPU from /proc (`--server-pid`): what the
// server holds of the machine when its /metrics does not say, or to check it.

#include <cstdint>

namespace openloop {

struct process_usage {
    std::int64_t rss_bytes = -1;  // resident set (statm), bytes
    double cpu_seconds = -1;      // user + system time since the process started
    bool ok = false;              // false: the process is gone or /proc unreadable
};

// pid 0: this process. Never throws.
process_usage read_process_usage(int pid);

}  // namespace openloop
