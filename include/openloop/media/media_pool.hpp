#pragma once
// The media made ahead of a run, on every core and within a budget of bytes:
// the pool of made images and the pool of clips (load/media) are each one
// call. In a header of its own so that the bound is unit-tested on its own.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace openloop {

// Runs make(k) for k in [0, count) on every core until the items made hold
// budget bytes of payload: the pool is then the longest run of items from 0
// whose payloads together fit the budget (at least the first, whatever its
// size), in index order. An exception from make is thrown once every thread
// has ended.
// An item is what make returns: anything with a payload (a string) of bytes.
template <class Make>
auto make_media_pool(std::size_t count, std::size_t budget, Make make) {
    std::vector<std::invoke_result_t<Make&, std::size_t>> pool(count);
    std::atomic<std::size_t> next{0}, bytes{0}, stop_at{count};
    std::mutex failed_mutex;
    std::exception_ptr failed;  // the first thread's exception
    const auto work = [&] {
        for (std::size_t k; (k = next.fetch_add(1)) < stop_at.load();) {
            try {
                pool[k] = make(k);
            } catch (...) {
                const std::lock_guard lock(failed_mutex);
                if (!failed) failed = std::current_exception();
                stop_at = 0;
                return;
            }
            if (bytes.fetch_add(pool[k].payload.size()) + pool[k].payload.size() >= budget) {
                // Entries below k are made or in hand; none past it are needed.
                std::size_t want = stop_at.load();
                while (k + 1 < want && !stop_at.compare_exchange_weak(want, k + 1)) {}
            }
        }
    };
    const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(count)));
    // The calling thread, the run's io thread to be, only waits: what it allocates
    // is then the same from run to run (it_allocations counts that thread's).
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back(work);
    for (std::thread& t : workers) t.join();
    if (failed) std::rethrow_exception(failed);
    // The threads made items side by side, so those made when the budget was
    // reached may pass it: the pool keeps only what fits, in index order.
    std::size_t kept = 0, held = 0;
    const std::size_t made = std::min(stop_at.load(), pool.size());
    while (kept < made && (kept == 0 || held + pool[kept].payload.size() <= budget)) held += pool[kept++].payload.size();
    pool.resize(std::max<std::size_t>(1, kept));
    return pool;
}

}  // namespace openloop
