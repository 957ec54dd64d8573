#pragma once
// A client's connections: the workers alive, the parked ones (most recently
// used at the back), their idle budget and stale detection, the spares opened
// ahead for requests due soon, and whether connections go back at all (some
// servers close every one after its answer).

#include "client_context.hpp"
#include "connection_worker.hpp"

#include "openloop/wire/cancel_group.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <vector>

namespace openloop {

class connection_pool {
public:
    connection_pool(client_context& ctx, cancel_group& spawner);

    // The freshest parked worker still within its idle budget and still
    // open, or null; the ones passed over are closed.
    connection_worker* take();
    // A worker of its own for job, connecting for it.
    void open_for(request_job job);
    // Parks w for the next request.
    void park(connection_worker& w);
    // w's coroutine is over.
    void forget(connection_worker& w);

    // Opens n connections into the pool (errors are left for requests to
    // meet) and from then on keeps it fresh (client::open_spare).
    boost::asio::awaitable<void> open_spare(std::size_t n);
    // n requests are due soon: their connections are opened ahead.
    void want(std::size_t n);
    // Opens spares until the pool holds as many as wanted.
    void keep_spares();
    void spare_opened() { --opening_; }  // connected, or failed to

    // Connections go back into the pool after a reusable answer.
    bool reuse() const { return reuse_; }
    void reused_ok() { ++reused_ok_; }  // a pooled connection that served before answered again

    // Closes the parked connections and stops the refresh (close_all()).
    void close();

private:
    bool stale(const connection_worker& w, std::int64_t now) const;
    void start(connection_worker& w);
    void schedule_refresh();

    client_context& ctx_;
    cancel_group& spawner_;
    std::list<connection_worker> workers_;  // a list: a worker keeps its address while others come and go
    std::vector<connection_worker*> idle_;  // parked, most recently used at the back
    std::size_t opening_ = 0;      // spares connecting
    std::size_t wanted_soon_ = 0;  // requests due soon that will want a connection
    // Some servers close every connection right after a streamed answer,
    // whatever their Keep-Alive header says (llama.cpp's llama-server does).
    // Seen a few times and never contradicted by a successful reuse, such
    // connections stop going back into the pool, so no request races a FIN.
    bool reuse_ = true;
    int closed_after_answer_ = 0;
    int reused_ok_ = 0;
    steady_timer refresh_;
};

}  // namespace openloop
