#include "openloop/cli/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace openloop {

std::string self_executable() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw std::runtime_error(std::string("cannot find own executable: ") + std::strerror(errno));
    return std::string(buf, static_cast<std::size_t>(n));
}

child_process::child_process(const std::vector<std::string>& argv) {
    if (argv.empty()) throw std::invalid_argument("child_process: empty argv");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    // Its own process group: a Ctrl-C at the terminal reaches us, and we decide
    // when the child stops (after the grace period, not before).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Nor does it inherit signals we hold (hold_stop_signals): it must stop when told.
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawn(&pid_, argv[0].c_str(), &actions, &attr, args.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
    }
    out_fd_ = fds[0];
}

child_process::child_process(child_process&& o) noexcept
    : pid_(o.pid_), out_fd_(o.out_fd_), status_(o.status_), pending_(std::move(o.pending_)) {
    o.pid_ = -1;
    o.out_fd_ = -1;
}

child_process::~child_process() {
    if (pid_ > 0) stop();
    if (out_fd_ >= 0) close(out_fd_);
}

std::string child_process::read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto nl = pending_.find('\n'); nl != std::string::npos) {
            std::string line = pending_.substr(0, nl);
            pending_.erase(0, nl + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) throw std::runtime_error("child process: no output line within the timeout");
        pollfd p{out_fd_, POLLIN, 0};
        const int r = poll(&p, 1, static_cast<int>(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        char buf[4096];
        const ssize_t n = read(out_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("child process exited before printing the expected line");
        pending_.append(buf, static_cast<std::size_t>(n));
    }
}

bool child_process::running() {
    if (pid_ <= 0) return false;
    int st = 0;
    const pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        pid_ = -1;
        return false;
    }
    return true;
}

int child_process::stop(std::chrono::milliseconds grace) {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (running()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid_, SIGKILL);
            int st = 0;
            waitpid(pid_, &st, 0);
            status_ = 128 + SIGKILL;
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return status_;
}

sim_child start_sim(const std::string& openloop_exe, const std::vector<std::string>& args,
                    std::chrono::milliseconds timeout) {
    std::vector<std::string> argv{openloop_exe, "sim"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--port", "0", "--exit-with-parent"});
    return start_server(argv, timeout);
}

sim_child start_server(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
    sim_child s{child_process(argv), {}, 0};
    const std::string line = s.process.read_line(timeout);
    const auto at = line.find(" on ");
    const auto colon = line.rfind(':');
    if (at == std::string::npos || colon == std::string::npos || colon < at)
        throw std::runtime_error(argv[0] + " printed an unexpected first line: " + line);
    s.url = line.substr(at + 4);
    s.port = static_cast<unsigned short>(std::stoi(line.substr(colon + 1)));
    return s;
}

}  // namespace openloop
