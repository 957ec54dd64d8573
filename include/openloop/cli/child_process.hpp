#pragma once
// Child processes: `--target sim:PRESET` runs the simulator beside the
// generator, and the integration tests start it the same way.

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace openloop {

// Path of the running executable (/proc/self/exe), to start `openloop sim`.
std::string self_executable();

class child_process {
public:
    // Starts argv[0] with argv; its stdout comes to us through a pipe, its
    // stderr stays ours. Throws std::runtime_error when it cannot start.
    explicit child_process(const std::vector<std::string>& argv);
    child_process(child_process&& other) noexcept;
    child_process& operator=(child_process&&) = delete;
    child_process(const child_process&) = delete;
    ~child_process();  // terminates the child if it still runs

    // One line of the child's stdout (without the newline). Throws when the
    // child exits or nothing arrives before the timeout.
    std::string read_line(std::chrono::milliseconds timeout);

    // SIGTERM, then SIGKILL if it has not exited within grace; returns the
    // exit status (128+signal when killed by a signal).
    int stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
    bool running();
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int out_fd_ = -1;
    int status_ = -1;
    std::string pending_;
};

// Starts `openloop sim ARGS... --port 0` and waits for its "listening on" line.
struct sim_child {
    child_process process;
    std::string url;   // http(s)://127.0.0.1:PORT
    unsigned short port = 0;
};
sim_child start_sim(const std::string& openloop_exe, const std::vector<std::string>& args,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10));
// Any server that prints "... listening on http://HOST:PORT" as its first
// stdout line (the uvicorn test server does): starts argv and reads it.
sim_child start_server(const std::vector<std::string>& argv,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace openloop
