#include "openloop/watch/process_usage.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace openloop {
namespace {

std::string proc_path(int pid, const char* file) {
    return (pid == 0 ? std::string("/proc/self/") : "/proc/" + std::to_string(pid) + "/") + file;
}

// The whole of a small /proc file; empty when unreadable.
std::string slurp(const std::string& path) {
    std::string out;
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return out;
    char buf[1024];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    std::fclose(f);
    return out;
}

}  // namespace

process_usage read_process_usage(int pid) {
    process_usage u;
    if (pid < 0) return u;
    // The command name (field 2) may hold spaces and parentheses: the fields
    // we want are counted from the last ')'. utime and stime are fields 14
    // and 15, the 12th and 13th after it.
    const std::string stat = slurp(proc_path(pid, "stat"));
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return u;
    const char* p = stat.c_str() + close + 1;
    unsigned long long utime = 0, stime = 0;
    for (int field = 3; field <= 15; ++field) {
        char* end = nullptr;
        while (*p == ' ') ++p;
        if (field == 3) {  // state, one character
            if (*p == '\0') return u;
            ++p;
            continue;
        }
        const unsigned long long v = std::strtoull(p, &end, 10);
        if (end == p) return u;
        if (field == 14) utime = v;
        if (field == 15) stime = v;
        p = end;
    }
    long pages = 0, resident = 0;
    const std::string statm = slurp(proc_path(pid, "statm"));
    if (std::sscanf(statm.c_str(), "%ld %ld", &pages, &resident) != 2) return u;
    u.rss_bytes = static_cast<std::int64_t>(resident) * sysconf(_SC_PAGESIZE);
    u.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
    u.ok = true;
    return u;
}

}  // namespace openloop
