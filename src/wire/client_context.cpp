#include "client_context.hpp"

#include "openloop/base/clock.hpp"

namespace openloop {

namespace {

// How often the timeouts of requests in flight are looked at: each fires at
// most this late (deadline_sweep.hpp).
constexpr std::chrono::milliseconds sweep_period{50};

}  // namespace

client_context::client_context(client& o, boost::asio::io_context& ctx, client_options options)
    : owner(o), io(ctx), opt(std::move(options)), connect(ctx, opt), sweep(ctx, sweep_period),
      read_buffer(std::make_unique<char[]>(shared_read_bytes)) {}

// A server may quote what it was sent ("Incorrect API key provided:
// sk-..."): header values (the API key among them) never reach results.
void client_context::note(error_class cls, int status, std::string message) {
    for (const auto& [name, value] : opt.headers) {
        std::string_view secret = value;
        if (secret.starts_with("Bearer ")) secret.remove_prefix(7);
        if (secret.size() < 8) continue;
        for (auto at = message.find(secret); at != std::string::npos; at = message.find(secret, at))
            message.replace(at, secret.size(), "[redacted]");
    }
    messages.note(cls, status, message);
}

void client_context::end(std::optional<request_job>& job, const exchange_result& r) {
    request_job& j = *job;
    if (r.failure != error_class::none) {
        emit(event::failure(j.index, steady_now_ns(), r.failure, r.status));
        // Cancellations are openloop's own doing: nothing the server said.
        if (r.failure != error_class::cancelled) note(r.failure, r.status, r.message);
    }
    --in_flight;
    // A completed answer ended at the read that completed it, the time requests.jsonl logs (a
    // session's next turn counts from it); the body's last bytes may come a read later.
    const std::int64_t end_ns = r.failure == error_class::none && r.answered_ns > 0 ? r.answered_ns : steady_now_ns();
    finished_request f{j.index, j.intended_ns, j.flags, request_end{r.failure, r.status, end_ns, r.answer_tokens}, std::move(j.request)};
    run_waiter* waiter = j.waiter;
    job.reset();
    if (waiter) {
        waiter->result = std::move(f);
        waiter->done = true;
        waiter->timer.cancel();
    } else if (on_end) {
        on_end(f);
    }
}

}  // namespace openloop
