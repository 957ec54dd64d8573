#include "openloop/run/server_setup.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace openloop {

namespace json = boost::json;
namespace net = boost::asio;

std::chrono::milliseconds setup_call_limit(std::chrono::milliseconds total_timeout) {
    return total_timeout.count() > 0 ? std::min(total_timeout, setup_call_budget) : setup_call_budget;
}

server_setup::server_setup(net::io_context& io, net::signal_set& signals, std::string target,
                           std::chrono::milliseconds limit, bool interrupted)
    : io_(io), signals_(signals), target_(std::move(target)), limit_(limit), note_(io), deadline_(io),
      interrupted_(interrupted) {}

void server_setup::refuse_if_stopped() const {
    if (interrupted_) throw setup_interrupted("interrupted before the schedule");
    if (!unanswered_.empty()) throw std::runtime_error(unanswered_);
}

void server_setup::settle() {
    note_.cancel();
    deadline_.cancel();
    signals_.cancel();  // the wait only: a signal arriving later is kept for the next wait
}

void server_setup::wait(const std::string& what, const std::string& purpose,
                        std::optional<std::chrono::milliseconds> limit) {
    const double limit_s = limit ? static_cast<double>(limit->count()) / 1000 : 0;
    note_.expires_after(std::chrono::seconds(1));
    note_.async_wait([&](const boost::system::error_code& ec) {
        if (ec) return;
        char bound[48] = "";
        if (limit) std::snprintf(bound, sizeof bound, ": at most %.3g s", limit_s);
        std::fprintf(stderr, "openloop: waiting for %s (%s)%s; Ctrl-C stops the run\n", what.c_str(), purpose.c_str(),
                     bound);
    });
    if (limit) {
        deadline_.expires_after(*limit);
        deadline_.async_wait([this](const boost::system::error_code& ec) {
            if (ec) return;
            timed_out_ = true;
            cancel_.emit(net::cancellation_type::terminal);
        });
    }
    signals_.async_wait([this, &what](const boost::system::error_code& ec, int) {
        if (ec) return;
        interrupted_ = true;
        std::fprintf(stderr, "\nopenloop: interrupted while waiting for %s: nothing was sent; writing the results\n",
                     what.c_str());
        cancel_.emit(net::cancellation_type::terminal);
    });
    io_.run();
    io_.restart();
    if (interrupted_) throw setup_interrupted("interrupted while waiting for " + what);
    if (std::exchange(timed_out_, false)) {
        char text[64];
        std::snprintf(text, sizeof text, ": no answer within %.3g s", limit_s);
        unanswered_ = what + text;
        throw std::runtime_error(unanswered_);
    }
}

void server_setup::run_blocking(const std::function<void()>& step, const std::string& what,
                                const std::string& purpose) {
    if (interrupted_) throw setup_interrupted("interrupted before the schedule");
    std::exception_ptr error;
    std::thread worker([&] {
        try {
            step();
        } catch (...) {
            error = std::current_exception();
        }
        net::post(io_, [this] { settle(); });
    });
    try {
        wait(what, purpose, std::nullopt);
    } catch (...) {
        worker.join();
        throw;
    }
    worker.join();
    if (error) std::rethrow_exception(error);
}

std::string discover_model(server_setup& setup, client& cl, const std::string& base) {
    std::string body;
    try {
        body = setup.call(cl.get(base + "/models"), "GET " + base + "/models", "the model id; --model skips it");
    } catch (const setup_interrupted&) {
        throw;
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("cannot discover the model (give --model): ") + e.what());
    }
    json::error_code ec;
    auto doc = json::parse(body, ec);
    const json::value* id = nullptr;
    if (!ec && doc.is_object()) {
        if (const auto* data = doc.as_object().if_contains("data"); data && data->is_array() && !data->as_array().empty())
            if (const auto* first = data->as_array()[0].if_object()) id = first->if_contains("id");
    }
    if (!id || !id->is_string()) throw std::runtime_error("GET " + base + "/models: no model id in the answer (give --model)");
    return std::string(id->as_string());
}

}  // namespace openloop
