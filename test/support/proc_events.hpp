#pragma once
// Events another process leaves in /proc, for tests that must act once it has
// happened rather than after a guessed sleep: TCP sockets on loopback in a given
// state (/proc/net/tcp), a process's open descriptors, lines in a file. Each
// wait is bounded and polls; none depends on how promptly anything was scheduled.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <sys/types.h>

namespace proc_events {

// /proc/net/tcp's states (include/net/tcp_states.h).
inline constexpr int tcp_established = 1, tcp_syn_sent = 2;

// IPv4 TCP sockets of this network namespace in state `state` whose local (or,
// when `remote`, remote) port is port; with `with_bytes`, only those holding
// received bytes nobody has read yet (rx_queue > 0): a request waiting in a
// listener's accept queue, its bytes there before the server accepts it.
inline std::size_t tcp_sockets(unsigned short port, int state, bool remote = false, bool with_bytes = false) {
    std::ifstream in("/proc/net/tcp");
    std::string line;
    std::getline(in, line);  // the header
    std::size_t n = 0;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string slot, local, rem, st, queues;
        f >> slot >> local >> rem >> st >> queues;
        const std::string& addr = remote ? rem : local;
        const auto colon = addr.rfind(':');
        if (colon == std::string::npos || std::stoul(addr.substr(colon + 1), nullptr, 16) != port) continue;
        if (std::stoi(st, nullptr, 16) != state) continue;
        if (with_bytes && std::stoul(queues.substr(queues.find(':') + 1), nullptr, 16) == 0) continue;
        ++n;
    }
    return n;
}

// Connections a listener on port has queued with a request (or a ClientHello)
// waiting unread: each a request a client has sent.
inline std::size_t requests_waiting_at(unsigned short port) { return tcp_sockets(port, tcp_established, false, true); }

// Connects to port that hang in SYN_SENT (a listener whose backlog is full).
inline std::size_t connects_hanging_to(unsigned short port) { return tcp_sockets(port, tcp_syn_sent, true); }

// Descriptors process pid has open.
inline std::size_t open_descriptors(pid_t pid) {
    std::error_code ec;
    const std::filesystem::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec);
    return ec ? 0 : static_cast<std::size_t>(std::distance(it, std::filesystem::directory_iterator{}));
}

// Complete lines in a file another process appends to (a torn last line is not counted).
inline std::size_t lines_in(const std::string& path) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Polls until done() or the limit passes; whether done() held. The limit only
// bounds a test whose event never comes: it is not what the test measures.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit,
                       std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(every);
    }
    return true;
}

}  // namespace proc_events
