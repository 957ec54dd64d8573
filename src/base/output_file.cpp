#include "openloop/base/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace openloop {

namespace {

constexpr std::size_t buffer_bytes = 64 * 1024;

std::string cannot_write(const std::string& path, int error) { return "cannot write " + path + ": " + std::strerror(error); }

// A new regular file at path, the entry there before removed (a directory
// is not); -1 with errno when it cannot be.
int create_new(const std::string& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return -1;
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

}  // namespace

bool output_file::fd_buf::drain() {
    const char* at = pbase();
    while (at < pptr()) {
        const ssize_t n = ::write(fd, at, static_cast<std::size_t>(pptr() - at));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        at += n;
    }
    setp(buffer.data(), buffer.data() + buffer.size());
    return true;
}

output_file::fd_buf::int_type output_file::fd_buf::overflow(int_type c) {
    if (fd < 0 || !drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

void output_file::fd_buf::attach(int to) {
    fd = to;
    buffer.resize(buffer_bytes);
    setp(buffer.data(), buffer.data() + buffer.size());
}

bool output_file::fd_buf::detach() {
    const bool drained = drain();
    const bool closed = ::close(fd) == 0;
    fd = -1;
    setp(nullptr, nullptr);
    return drained && closed;
}

int output_file::fd_buf::sync() { return fd >= 0 && drain() ? 0 : -1; }

output_file::output_file() : std::ostream(&buf_) {}

output_file::~output_file() { close(); }

int output_file::try_open(const std::string& path) {
    close();
    const int fd = create_new(path);
    if (fd < 0) return errno;
    buf_.attach(fd);
    clear();
    return 0;
}

void output_file::open(const std::string& path) {
    if (const int error = try_open(path))
        throw std::runtime_error("cannot open " + path + " for writing: " + std::strerror(error));
}

void output_file::close() {
    if (buf_.fd >= 0 && !buf_.detach()) setstate(std::ios::badbit);
}

void write_file_replacing(const std::string& path, std::string_view text) {
    const std::string tmp = path + ".tmp";
    {
        output_file f;
        if (const int error = f.try_open(tmp)) throw std::runtime_error(cannot_write(path, error));
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            throw std::runtime_error("cannot write " + path + ": write failed");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::remove(tmp.c_str());
        throw std::runtime_error(cannot_write(path, error));
    }
}

}  // namespace openloop
