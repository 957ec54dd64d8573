#pragma once
// What this process holds of the machine: its resident memory (a soak must show
// it flat) and its file-descriptor limit (one socket per stream).

#include <cstdint>

namespace openloop {

// Raises RLIMIT_NOFILE to its hard limit: thousands of concurrent streams need
// thousands of sockets, and the usual soft limit is 1024.
void raise_fd_limit();

// Resident set size of this process in bytes; -1 when /proc is unreadable.
std::int64_t resident_memory_bytes();

// CPU time this process has used, user + system, in seconds; -1 when unknown.
double cpu_seconds();

}  // namespace openloop
