#include "openloop/wire/connection.hpp"

#include <cerrno>
#include <sys/socket.h>

namespace openloop {

bool connection::peer_gone() {
    char byte;
    const ssize_t n = ::recv(lowest().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    if (n > 0) return !tls_;
    return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

void connection::close() {
    boost::system::error_code ignored;
    lowest().socket().close(ignored);
}

}  // namespace openloop
