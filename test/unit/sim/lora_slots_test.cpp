#include <boost/test/unit_test.hpp>

#include "openloop/sim/engine.hpp"
#include "openloop/sim/lora_slots.hpp"

#include <cstdint>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_lora_slots)

using namespace openloop;

namespace {

cost_model lora_model(int max_loras) {
    cost_model m;
    m.step_base_ms = 1.0;
    m.max_loras = max_loras;
    m.lora_load_ms = 5.0;
    return m;
}

seq_request of_adapter(std::uint64_t id, int adapter, int output = 3) {
    seq_request r{id, 8, output, {}};
    r.adapter = adapter;
    return r;
}

// Steps until the engine is idle; the steps' durations.
std::vector<std::int64_t> run_out(engine& e) {
    std::vector<std::int64_t> out;
    while (!e.idle()) out.push_back(e.step().duration_ns);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_request_names_the_base_an_adapter_or_nothing_served) {
    const std::vector<std::string> adapters = {"a", "b"};
    BOOST_TEST(*adapter_of("base", "base", adapters) == -1);
    BOOST_TEST(*adapter_of("", "base", adapters) == -1);
    BOOST_TEST(*adapter_of("b", "base", adapters) == 1);
    BOOST_TEST(!adapter_of("c", "base", adapters).has_value());
}

BOOST_AUTO_TEST_CASE(slots_load_what_is_not_resident_and_evict_the_least_recently_used_idle) {
    lora_slots s(2);
    BOOST_TEST(s.fits(-1));
    BOOST_TEST(!s.start(-1));  // the base model needs no slot
    BOOST_TEST(s.start(0));
    BOOST_TEST(s.start(1));
    BOOST_TEST(!s.start(1));   // resident: no load
    BOOST_TEST(!s.fits(2));    // two adapters in the batch already
    BOOST_TEST(s.fits(0));
    BOOST_TEST((s.running() == std::vector<int>{0, 1}));
    s.end(0);
    BOOST_TEST(s.fits(2));
    BOOST_TEST(s.start(2));  // evicts 0, the idle one
    s.end(1);
    s.end(1);
    BOOST_TEST(!s.start(1));  // still resident; now used after 2
    s.end(1);
    s.end(2);
    BOOST_TEST(s.running().empty());
    BOOST_TEST(s.start(0));   // 0 was evicted; it takes 2's slot, the least recently used
    BOOST_TEST(!s.start(1));
    s.end(0);
    s.end(1);
    BOOST_TEST(s.start(2));   // 2 was evicted; it takes 0's slot
    BOOST_TEST(!s.start(1));
    BOOST_TEST(s.loads() == 5);
}

BOOST_AUTO_TEST_CASE(the_step_that_loads_an_adapter_takes_the_load_cost_longer) {
    engine base(lora_model(1)), adapted(lora_model(1));
    base.add(of_adapter(1, -1));
    adapted.add(of_adapter(1, 0));
    const auto b = run_out(base), a = run_out(adapted);
    BOOST_TEST_REQUIRE(a.size() == b.size());
    BOOST_TEST(a[0] - b[0] == 5'000'000);  // 5 ms, once
    for (std::size_t i = 1; i < a.size(); ++i) BOOST_TEST(a[i] == b[i]);
    BOOST_TEST(adapted.loras().loads() == 1);
}

BOOST_AUTO_TEST_CASE(a_request_of_one_adapter_too_many_waits_and_others_pass_it) {
    engine e(lora_model(1));
    e.add(of_adapter(1, 0));
    e.add(of_adapter(2, 1));
    e.add(of_adapter(3, 0));
    e.add(of_adapter(4, -1));
    const step_result first = e.step();
    BOOST_TEST(e.running() == 3u);  // 1, 3 and the base model's 4 passed 2
    BOOST_TEST(e.waiting() == 1u);
    BOOST_TEST((e.waiting_adapters() == std::vector<int>{1}));
    BOOST_TEST((e.loras().running() == std::vector<int>{0}));
    BOOST_TEST(first.duration_ns >= 6'000'000);  // 1 ms step + 5 ms load
    const auto rest = run_out(e);
    // Adapter 0's requests ended, then 1 was loaded into the one slot.
    BOOST_TEST(e.loras().loads() == 2);
    int with_load = 0;
    for (auto d : rest) with_load += d >= 5'000'000;
    BOOST_TEST(with_load == 1);
}

BOOST_AUTO_TEST_SUITE_END()
