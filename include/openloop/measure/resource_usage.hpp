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

// How long the calling thread has been runnable but waiting for a CPU (the
// kernel's schedstat), in ns; -1 when unknown. The io thread's wait over a run
// tells a generator that fell behind because other processes held its cores
// (a server on the same machine) from one that had too much to do.
std::int64_t thread_cpu_wait_ns();

}  // namespace openloop
