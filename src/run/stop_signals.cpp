#include "openloop/run/stop_signals.hpp"

#include "openloop/base/stop_point.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace openloop {

namespace {

sigset_t stop_signal_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

// A descriptor closed when it goes.
struct descriptor {
    int fd;
    explicit descriptor(int f, const char* what) : fd(f) {
        if (fd < 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
    }
    ~descriptor() { ::close(fd); }
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
};

// Waits for a stop signal (read from signals) or the step's end (done written);
// names what it waits for after a second. True when a signal came.
bool wait_for_signal(const descriptor& signals, const descriptor& done, const std::string& what,
                     std::stop_source& stop) {
    pollfd fds[2] = {{signals.fd, POLLIN, 0}, {done.fd, POLLIN, 0}};
    int wait_ms = 1000;
    for (;;) {
        const int n = ::poll(fds, 2, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;  // cannot wait: the step goes on, as before there was a wait
        if (n == 0) {
            std::fprintf(stderr, "openloop: %s; Ctrl-C stops the run\n", what.c_str());
            wait_ms = -1;
            continue;
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo info;
            [[maybe_unused]] const ssize_t r = ::read(signals.fd, &info, sizeof info);
            std::fprintf(stderr, "\nopenloop: interrupted while %s: nothing was sent; writing the results\n", what.c_str());
            stop.request_stop();
            return true;
        }
        return false;  // done
    }
}

}  // namespace

void hold_stop_signals() {
    const sigset_t set = stop_signal_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // An ignored signal is discarded even while blocked.
    for (const int s : {SIGINT, SIGTERM}) {
        struct sigaction now {};
        if (sigaction(s, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) std::signal(s, SIG_DFL);
    }
}

void release_stop_signals() {
    const sigset_t set = stop_signal_set();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

bool run_interruptible(const std::function<void(const std::stop_token&)>& step, const std::string& what) {
    hold_stop_signals();  // before the watcher starts, which inherits the mask
    const sigset_t set = stop_signal_set();
    const descriptor signals(::signalfd(-1, &set, SFD_CLOEXEC), "signalfd");
    const descriptor done(::eventfd(0, EFD_CLOEXEC), "eventfd");
    std::stop_source stop;
    std::atomic<bool> interrupted = false;
    std::thread watcher([&] { interrupted = wait_for_signal(signals, done, what, stop); });
    std::exception_ptr error;
    try {
        step(stop.get_token());
    } catch (const step_stopped&) {
        // the signal's: said by the watcher
    } catch (...) {
        error = std::current_exception();
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(done.fd, &one, sizeof one);
    watcher.join();
    if (interrupted) return false;
    if (error) std::rethrow_exception(error);
    return true;
}

}  // namespace openloop
