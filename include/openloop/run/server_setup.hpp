#pragma once
// The calls a run makes before its schedule starts, each run to completion
// on the io thread's context before that thread runs the load: the model id
// from GET /v1/models, and the calibration's tokenize calls. Setup may block
// and throw (with context); the load itself never does.

#include "openloop/wire/client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace openloop {

// Runs one setup coroutine to completion on io; rethrows what it threw.
template <class T>
T run_setup(boost::asio::io_context& io, boost::asio::awaitable<T> op) {
    std::optional<T> result;
    std::exception_ptr error;
    boost::asio::co_spawn(io, std::move(op), [&](std::exception_ptr e, T value) {
        error = e;
        if (!e) result = std::move(value);
    });
    io.run();
    io.restart();
    if (error) std::rethrow_exception(error);
    return std::move(*result);
}

// The first model id of GET base/models; throws std::runtime_error saying
// to give --model when there is none.
std::string discover_model(boost::asio::io_context& io, client& cl, const std::string& base);

}  // namespace openloop
