#pragma once
// One hostile-input case: runs the real `openloop run` against it under a wall
// time bound, measures the run's peak RSS (the kernel's ru_maxrss of the
// child, from wait4), reads summary.json, checks the documented outcome, and
// records what happened as one JSON line in $OPENLOOP_ROBUSTNESS_OUT (when set)
// for tools/robustness-report to render into docs/robustness.md. A hostile
// input file may instead be refused before the schedule (exit 2, nothing run),
// and a run may be interrupted at a line it prints.

#include "sanitized.hpp"
#include "hostile_server.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace hostile {

// Sanitizer builds run slower and hold shadow memory and a quarantine of
// freed blocks: their bounds are scaled, and the record says so.
using openloop_test::sanitized;

inline double wall_bound(double seconds) { return sanitized ? 2 * seconds + 10 : seconds; }
inline double rss_bound(double mib) { return sanitized ? 4 * mib + 256 : mib; }

// What one run of openloop did.
struct observation {
    int exit_status = -1;     // 128 + signal when it was killed
    int killed_by = 0;        // that signal; 0 when it exited (an interrupted run exits 130 itself)
    bool ended_by_itself = false;
    bool killed_for_rss = false;  // its RSS passed the guard (rss_kill_mib) while it ran
    double interrupted_at_s = -1;  // when it got SIGINT (interrupt_when); -1: never
    double wall_s = 0;
    double peak_rss_mib = 0;
    bool summary_written = false;
    boost::json::object summary;
    // Requests by how they ended: "ok" (completed) or the error class, from
    // summary.json; "bad_usage" counts the completed ones whose usage was not believed.
    std::map<std::string, std::int64_t> classes;
    std::string log;
};

inline std::string describe(const std::map<std::string, std::int64_t>& classes) {
    std::string s;
    for (const auto& [cls, n] : classes) {
        if (n == 0) continue;
        if (!s.empty()) s += ", ";
        s += cls + " " + std::to_string(n);
    }
    return s.empty() ? "nothing" : s;
}

// The resident set of a running process in MiB, from /proc; 0 once it is gone.
inline double rss_mib(pid_t pid) {
    std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/statm").c_str(), "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    const int n = std::fscanf(f, "%lu %lu", &size, &resident);
    std::fclose(f);
    return n == 2 ? static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0) : 0;
}

// How a bounded run is watched besides its wall time.
struct run_watch {
    int max_open_files = 0;      // its RLIMIT_NOFILE (soft and hard), set by a shell that then execs it
    bool sigint_ignored = false;  // started as sh starts a background job (`&`): SIGINT ignored
    std::string interrupt_when{};  // SIGINT once the log says this, once
    double rss_kill_mib = 0;     // SIGKILL once its RSS passes this: a case that fails does not take the machine
};

// Runs `openloop ARGS`, output to log; kills it (and says so) past kill_after_s.
inline observation run_openloop_bounded(const std::vector<std::string>& args, const std::string& log,
                                        double kill_after_s, const run_watch& watch = {}) {
    observation o;
    std::vector<std::string> argv;
    std::string shell;
    if (watch.max_open_files > 0) shell += "ulimit -n " + std::to_string(watch.max_open_files) + " && ";
    if (watch.sigint_ignored) shell += "trap '' INT && ";  // an ignored signal stays ignored across exec
    if (!shell.empty()) argv = {"/bin/sh", "-c", shell + "exec \"$0\" \"$@\""};
    argv.push_back(openloop_test::bin);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    const auto begin = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, cargs.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    BOOST_TEST_REQUIRE(rc == 0, "cannot start " << argv[0] << ": " << std::strerror(rc));
    int status = 0;
    rusage usage{};
    o.ended_by_itself = true;
    for (;;) {
        const pid_t r = ::wait4(pid, &status, WNOHANG, &usage);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) break;
        const double now_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        o.killed_for_rss = watch.rss_kill_mib > 0 && rss_mib(pid) > watch.rss_kill_mib;
        if (now_s > kill_after_s || o.killed_for_rss) {
            o.ended_by_itself = false;
            ::kill(pid, SIGKILL);
            ::wait4(pid, &status, 0, &usage);
            break;
        }
        if (!watch.interrupt_when.empty() && o.interrupted_at_s < 0 &&
            test_http::slurp(log).find(watch.interrupt_when) != std::string::npos) {
            ::kill(pid, SIGINT);
            o.interrupted_at_s = now_s;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    o.killed_by = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    o.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + o.killed_by;
    o.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
    o.log = test_http::slurp(log);
    return o;
}

inline void read_summary(const std::string& path, observation& o) {
    boost::system::error_code ec;
    const auto v = boost::json::parse(test_http::slurp(path), ec);
    if (ec || !v.is_object()) return;
    o.summary_written = true;
    o.summary = v.as_object();
    const auto count = [&](std::string_view key) -> std::int64_t {
        const auto* x = o.summary.if_contains(key);
        return x && x->is_number() ? x->to_number<std::int64_t>() : 0;
    };
    o.classes["ok"] = count("completed");
    o.classes["bad_usage"] = count("bad_usage");
    if (const auto* errors = o.summary.if_contains("errors"); errors && errors->is_object())
        for (const auto& [cls, n] : errors->as_object())
            if (n.is_number()) o.classes[std::string(cls)] = n.to_number<std::int64_t>();
}

struct case_spec {
    std::string suite;     // the test file, e.g. hostile_wire
    std::string name;      // the case, e.g. garbage
    std::string input;     // what the server sends, in words
    std::string expected;  // "ok" or the error class every request must end in
    std::string limits;    // the flags that bound it, in words, e.g. "--timeout 1s"
    double wall_s = 0;     // the run must end by itself within this (before scaling)
    double rss_mib = 0;    // and its peak RSS stay under this (before scaling)
    // The run asks the server for its tokenizer first (--tokenizer auto), so the case
    // meets the setup calls too; otherwise words, and no setup call reaches the server.
    bool with_setup = false;
    // The run's --tokenizer when the case is the tokenizer (hf:FILE); empty: as with_setup says.
    std::string tokenizer{};
    // SIGINT once openloop prints this (the case: a signal before the schedule), to a
    // process started as a script's background job is, with SIGINT ignored.
    std::string interrupt_when{};
};

// The expected outcome of a case whose input is refused before anything runs.
inline const std::string refused = "refused (exit 2)";

// A case in progress: run() it, add check()s, and its record is written when
// it goes out of scope, passed only if every check held.
class hostile_case {
public:
    explicit hostile_case(case_spec spec) : spec_(std::move(spec)) {}
    hostile_case(const hostile_case&) = delete;
    hostile_case& operator=(const hostile_case&) = delete;

    // Runs `openloop run` against url with the common flags (a fixed model and
    // the words tokenizer, so no setup request reaches the hostile server, unless
    // with_setup) and
    // then the case's own; checks it ended by itself within the bound, did not
    // crash, wrote summary.json and stayed under the RSS bound.
    const observation& run(const std::string& url, const std::vector<std::string>& flags) {
        const std::string tokenizer = !spec_.tokenizer.empty() ? spec_.tokenizer : spec_.with_setup ? "auto" : "words";
        std::vector<std::string> args{"run",         "--progress",  "off",       "--lag-bound", "250ms",
                                      "--target",    url,           "--model",   "hostile",     "--tokenizer",
                                      tokenizer,     "--input-len", "16",        "--output-len", "8",
                                      "--out",       dir_.file("out")};
        args.insert(args.end(), flags.begin(), flags.end());
        const double wall = wall_bound(spec_.wall_s);
        const double rss = rss_bound(spec_.rss_mib);
        obs_ = run_openloop_bounded(args, dir_.file("run.log"), wall + 30,
                                    {max_open_files_, !spec_.interrupt_when.empty(), spec_.interrupt_when, std::max(4 * rss, rss + 1024)});
        read_summary(dir_.file("out/summary.json"), obs_);
        check(obs_.ended_by_itself && obs_.wall_s <= wall,
              "ended by itself within " + number(wall) + " s (took " + number(obs_.wall_s) + " s" +
                  (obs_.killed_for_rss ? ", killed past " + number(std::max(4 * rss, rss + 1024)) + " MiB"
                   : obs_.ended_by_itself ? "" : ", killed") + ")");
        check(obs_.killed_by == 0, "exited without a signal (status " + std::to_string(obs_.exit_status) + ")");
        if (!spec_.interrupt_when.empty())
            check(obs_.interrupted_at_s >= 0, "printed \"" + spec_.interrupt_when + "\" and got SIGINT then");
        // A refused input runs nothing, so it writes nothing.
        if (spec_.expected != refused) check(obs_.summary_written, "summary.json written and parses");
        check(obs_.peak_rss_mib <= rss_bound(spec_.rss_mib),
              "peak RSS " + number(obs_.peak_rss_mib) + " MiB within " + number(rss_bound(spec_.rss_mib)) + " MiB");
        return obs_;
    }

    // Every request that ended, ended in the expected class (at least
    // at_least of them), except for the classes in also (bad_usage counts as
    // one here); exit status 0 for "ok", else a failed run's (not 1 or 2,
    // which mean setup or usage errors).
    void expect_outcome(std::int64_t at_least, const std::set<std::string>& also = {}) {
        const bool ok = spec_.expected == "ok";
        std::int64_t others = 0;
        for (const auto& [cls, n] : obs_.classes)
            if (cls != spec_.expected && !also.count(cls)) others += n;
        check(obs_.classes[spec_.expected] >= at_least && others == 0,
              "expected " + spec_.expected + " (at least " + std::to_string(at_least) + "), got " +
                  describe(obs_.classes));
        if (ok) {
            check(obs_.exit_status == 0, "exit status 0, got " + std::to_string(obs_.exit_status));
        } else {
            check(obs_.exit_status != 0 && obs_.exit_status != 1 && obs_.exit_status != 2,
                  "exit status of a failed run (3 or 4), got " + std::to_string(obs_.exit_status));
        }
    }

    // The run refused its input before the schedule: exit 2, its message naming each of named.
    void expect_refused(const std::vector<std::string>& named) {
        check(obs_.exit_status == 2, "exit status 2 (bad input), got " + std::to_string(obs_.exit_status));
        for (const std::string& n : named)
            check(obs_.log.find(n) != std::string::npos, "the message names \"" + n + "\"");
    }

    void check(bool ok, const std::string& what) {
        BOOST_TEST(ok, spec_.name << ": " << what << (ok ? "" : "\n--- openloop's output ---\n" + tail(obs_.log)));
        if (!ok) failures_.push_back(what);
    }

    // What the server saw, kept in the record.
    void server_saw(const server& s) {
        server_ = boost::json::object{{"connections", s.connections()},
                                      {"requests", s.requests()},
                                      {"most_requests_per_connection", s.most_requests_per_connection()},
                                      {"bytes_sent", s.bytes_sent()}};
    }

    // The first message summary.json's error_messages kept for cls (any
    // status); empty when none.
    std::string first_message(std::string_view cls) const {
        const auto* all = obs_.summary.if_contains("error_messages");
        if (!all || !all->is_array()) return {};
        for (const auto& entry : all->get_array()) {
            const auto* o = entry.if_object();
            const auto* c = o ? o->if_contains("class") : nullptr;
            const auto* m = o ? o->if_contains("messages") : nullptr;
            if (c && c->is_string() && c->get_string() == cls && m && m->is_array() && !m->get_array().empty() &&
                m->get_array()[0].is_string())
                return std::string(m->get_array()[0].get_string());
        }
        return {};
    }

    // The next run() gets at most n file descriptors.
    void limit_open_files(int n) { max_open_files_ = n; }

    const observation& observed() const { return obs_; }
    std::string file(const std::string& name) const { return dir_.file(name); }

    ~hostile_case() {
        const bool pass = failures_.empty();
        BOOST_TEST_MESSAGE("case " << spec_.name << ": expected " << spec_.expected << ", got "
                                   << describe(obs_.classes) << " in " << number(obs_.wall_s) << " s, peak RSS "
                                   << number(obs_.peak_rss_mib) << " MiB: " << (pass ? "PASS" : "FAIL"));
        const char* out = std::getenv("OPENLOOP_ROBUSTNESS_OUT");
        if (!out || !*out) return;
        boost::json::object observed;
        for (const auto& [cls, n] : obs_.classes)
            if (n > 0) observed[cls] = n;
        boost::json::array failed;
        for (const auto& f : failures_) failed.emplace_back(f);
        const boost::json::object line{
            {"suite", spec_.suite},
            {"case", spec_.name},
            {"input", spec_.input},
            {"expected", spec_.expected},
            {"limits", spec_.limits},
            {"observed", observed},
            {"exit_status", obs_.exit_status},
            {"wall_s", obs_.wall_s},
            {"wall_bound_s", wall_bound(spec_.wall_s)},
            {"peak_rss_mib", obs_.peak_rss_mib},
            {"rss_bound_mib", rss_bound(spec_.rss_mib)},
            {"server", server_},
            {"sanitized", sanitized},
            {"failures", failed},
            {"pass", pass},
        };
        // One write per line with O_APPEND: test binaries running side by
        // side do not interleave their lines.
        const std::string text = boost::json::serialize(line) + "\n";
        const int fd = ::open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) return;
        [[maybe_unused]] const ssize_t n = ::write(fd, text.data(), text.size());
        ::close(fd);
    }

private:
    static std::string number(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", v);
        return buf;
    }
    static std::string tail(const std::string& s) { return s.size() > 4000 ? s.substr(s.size() - 4000) : s; }

    case_spec spec_;
    int max_open_files_ = 0;
    test_http::temp_dir dir_;
    observation obs_;
    boost::json::object server_;
    std::vector<std::string> failures_;
};

// A small run's fixed cost is ~25 MiB (the event ring's hot 6 MiB, the
// histograms); a connection adds what its buffers hold.
inline constexpr double small_rss_mib = 96;

// Five requests at 20/s: sent within a quarter second.
inline const std::vector<std::string> five = {"--rate", "20", "--num-requests", "5"};

inline std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace hostile
