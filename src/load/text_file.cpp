#include "openloop/load/text_file.hpp"

#include "openloop/base/input_error.hpp"

#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openloop {

namespace {

const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

struct fd_closer {
    int fd;
    ~fd_closer() { ::close(fd); }
};

}  // namespace

std::string read_text_file(const std::string& path, std::string_view what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open " + std::string(what) + " (" + std::strerror(errno) + ")");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw std::runtime_error(path + ": read error");
    return std::move(buffer).str();
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes, std::string_view what,
                              std::string_view limit_text) {
    const std::string named = std::string(what) + ": " + path + ": ";
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever;
    // what the descriptor is, is then asked of it, not of the name.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw input_error(named + "cannot be opened (" + std::strerror(errno) + ")");
    const fd_closer closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw input_error(named + "cannot be read (" + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode)) throw input_error(named + file_kind(st.st_mode) + ", not a regular file");
    const auto too_large = [&](const std::string& size) {
        return input_error(named + size + " bytes, more than the " + std::to_string(max_bytes) + " bytes that fit in " +
                           std::string(limit_text));
    };
    // A sparse file's size is what reading it would hold: refused before a byte is read.
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) throw too_large(std::to_string(st.st_size));
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == bytes.size()) {
            // It grew since fstat: read on, one byte past the limit at most.
            if (got > max_bytes) throw too_large("over " + std::to_string(max_bytes));
            bytes.resize(std::min(max_bytes + 1, got + 65536));
        }
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw input_error(named + "cannot be read (" + std::strerror(errno) + ")");
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > max_bytes) throw too_large("over " + std::to_string(max_bytes));
    bytes.resize(got);
    return bytes;
}

boost::json::value parse_json_text(const std::string& text, const std::string& path) {
    boost::json::stream_parser parser;
    boost::system::error_code ec;
    const std::size_t used = parser.write(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(std::min(used, text.size())), '\n');
        throw input_error(path + ":" + std::to_string(line) + ": invalid JSON: " + ec.message());
    }
    return parser.release();
}

}  // namespace openloop
