#include "openloop/measure/resource_usage.hpp"

#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

namespace openloop {

void raise_fd_limit() {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
}

std::int64_t resident_memory_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr) return -1;
    long size = 0, resident = 0;
    const int n = std::fscanf(f, "%ld %ld", &size, &resident);
    std::fclose(f);
    return n == 2 ? static_cast<std::int64_t>(resident) * sysconf(_SC_PAGESIZE) : -1;
}

double cpu_seconds() {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
    const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

std::int64_t thread_cpu_wait_ns() {
    std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
    if (f == nullptr) return -1;
    long long on_cpu = 0, waiting = 0;
    const int n = std::fscanf(f, "%lld %lld", &on_cpu, &waiting);
    std::fclose(f);
    return n == 2 ? waiting : -1;
}

}  // namespace openloop
