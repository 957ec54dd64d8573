#include <boost/test/unit_test.hpp>

#include "openloop/load/arrival.hpp"
#include "openloop/load/shard.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_shard)

using namespace openloop;

namespace {

using sent = std::tuple<std::uint64_t, std::int64_t, bool>;  // index, offset, warm-up

// What one shard sends of an arrival schedule under bounds.
std::vector<sent> walk(const arrival_params& params, shard_spec shard, schedule_bounds bounds) {
    arrival_process arrivals(params);
    shard_walk w(shard, bounds);
    std::vector<sent> out;
    while (const auto a = w.next([&](std::uint64_t) { return arrivals.next_ns(); }))
        out.emplace_back(a->index, a->offset_ns, a->warmup);
    return out;
}

arrival_params params_of(arrival_kind kind, double rate, std::uint64_t seed) {
    arrival_params p;
    p.kind = kind;
    p.rate = rate;
    p.burstiness = 0.25;
    p.seed = seed;
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(parse_shards) {
    BOOST_TEST((parse_shard("0/1") == shard_spec{0, 1}));
    BOOST_TEST((parse_shard("3/4") == shard_spec{3, 4}));
    for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", "/2", ""}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_CHECK_THROW(parse_shard(bad), std::invalid_argument);
        }
    }
    BOOST_CHECK_THROW(shard_walk(shard_spec{2, 2}, {}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(shards_together_send_exactly_what_one_process_sends) {
    // Each bound judged on the global schedule: a count, a time, warm-up by
    // count and by time, both bounds at once.
    std::vector<schedule_bounds> all(5);
    all[0].num_requests = 1001;
    all[1].duration_s = 3;
    all[1].warmup_s = 0.5;
    all[2].warmup_requests = 7;
    all[2].num_requests = 500;
    all[3].warmup_s = 1;
    all[3].num_requests = 333;
    all[4].duration_s = 2;
    all[4].num_requests = 900;
    all[4].all_bounds = true;
    for (const auto kind : {arrival_kind::constant, arrival_kind::poisson, arrival_kind::gamma}) {
        for (std::size_t b = 0; b < all.size(); ++b) {
            BOOST_TEST_CONTEXT(to_string(kind) << ", bounds " << b) {
                const auto params = params_of(kind, 400, 21);
                const auto whole = walk(params, {}, all[b]);
                BOOST_TEST(whole.size() > 100u);
                for (int count : {2, 3, 4}) {
                    std::vector<sent> merged;
                    for (int i = 0; i < count; ++i) {
                        const auto part = walk(params, {i, count}, all[b]);
                        // A shard's share is its indexes: about 1/count of the whole, each its own.
                        BOOST_TEST(part.size() >= whole.size() / count);
                        BOOST_TEST(part.size() <= (whole.size() + count - 1) / count);
                        for (const auto& s : part) BOOST_TEST(std::get<0>(s) % count == std::uint64_t(i));
                        merged.insert(merged.end(), part.begin(), part.end());
                    }
                    std::sort(merged.begin(), merged.end());
                    BOOST_TEST(merged == whole);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(the_window_is_counted_over_every_shard) {
    schedule_bounds bounds;
    bounds.warmup_requests = 2;
    bounds.num_requests = 10;
    // A constant schedule: global arrivals 0..11, two of them warm-up.
    const auto part = walk(params_of(arrival_kind::constant, 10, 1), {1, 4}, bounds);
    const std::vector<sent> expected{{1, 100'000'000, true}, {5, 500'000'000, false}, {9, 900'000'000, false}};
    BOOST_TEST(part == expected);
}

BOOST_AUTO_TEST_CASE(a_trace_row_belongs_to_one_shard) {
    // A trace's times come by index; once its rows are out, the walk ends.
    const std::vector<std::int64_t> rows{0, 0, 5, 9, 9, 9, 12};
    std::vector<std::uint64_t> seen;
    for (int i = 0; i < 3; ++i) {
        shard_walk w({i, 3}, {});
        while (const auto a = w.next([&](std::uint64_t g) {
                   return g < rows.size() ? std::optional<std::int64_t>(rows[g]) : std::nullopt;
               })) {
            BOOST_TEST(a->offset_ns == rows[a->index]);
            seen.push_back(a->index);
        }
        BOOST_TEST(!w.next([](std::uint64_t) -> std::optional<std::int64_t> { return 0; }));  // stays over
    }
    std::sort(seen.begin(), seen.end());
    BOOST_TEST(seen == (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6}));
}

BOOST_AUTO_TEST_SUITE_END()
