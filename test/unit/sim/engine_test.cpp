#include <boost/test/unit_test.hpp>

#include "openloop/base/random.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/sim/engine.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_engine)

using namespace openloop;

namespace {

// Costs chosen so every term of a step's time is visible in its duration.
cost_model plain_model() {
    cost_model m;
    m.name = "test";
    m.step_base_ms = 1.0;
    m.prefill_token_ms = 0.01;
    m.decode_seq_ms = 0.1;
    m.kv_token_ms = 0.001;
    m.max_num_seqs = 64;
    m.max_batched_tokens = 4096;
    m.kv_capacity_tokens = 100'000;
    m.max_model_len = 8192;
    m.block_size = 16;
    return m;
}

seq_request make_request(std::uint64_t id, int prompt, int output) {
    return seq_request{id, prompt, output, {}};
}

// A prompt whose blocks share no prefix with any other request's.
seq_request unique_request(std::uint64_t id, int prompt, int output, int block_size) {
    seq_request r = make_request(id, prompt, output);
    for (int b = 0; b < prompt / block_size; ++b) r.block_hashes.push_back(mix64((id << 24) ^ b));
    return r;
}

const emission* find_emission(const step_result& r, std::uint64_t id) {
    for (const emission& e : r.out)
        if (e.id == id) return &e;
    return nullptr;
}

// Open-loop arrivals of identical requests at `rate` (req/s) against the
// engine in virtual time: each step's time passes, then arrivals that came
// meanwhile join the queue.
struct run_stats {
    double completion_rate = 0;          // completions/s over [window_from_s, duration_s)
    std::vector<std::size_t> waiting;    // queue length at each tenth of the run
    std::uint64_t arrived = 0;
};

run_stats run_open_loop(const cost_model& m, int in, int out, double rate, bool poisson,
                        std::uint64_t seed, double duration_s, double window_from_s) {
    engine eng(m);
    run_stats st;
    const auto end_ns = static_cast<std::int64_t>(duration_s * 1e9);
    const auto window_ns = static_cast<std::int64_t>(window_from_s * 1e9);
    std::uint64_t rng = seed;
    auto gap_ns = [&] {
        if (!poisson) return 1e9 / rate;
        rng = mix64(rng);
        const double u = static_cast<double>((rng >> 11) + 1) * 0x1.0p-53;  // (0, 1]
        return -std::log(u) * 1e9 / rate;
    };
    double next_arrival = 0;
    std::int64_t now = 0;
    std::uint64_t completed = 0;
    std::int64_t next_sample = end_ns / 10;
    while (now < end_ns) {
        while (next_arrival <= static_cast<double>(now)) {
            eng.add(unique_request(st.arrived++, in, out, m.block_size));
            next_arrival += gap_ns();
        }
        const step_result r = eng.step();
        if (r.duration_ns == 0) {
            now = static_cast<std::int64_t>(std::ceil(next_arrival));
        } else {
            now += r.duration_ns;
            if (now >= window_ns && now < end_ns)
                for (const emission& e : r.out) completed += e.finished;
        }
        while (now >= next_sample && st.waiting.size() < 10) {
            st.waiting.push_back(eng.waiting());
            next_sample += end_ns / 10;
        }
    }
    st.completion_rate = static_cast<double>(completed) / (duration_s - window_from_s);
    return st;
}

struct workload_case {
    const char* preset;
    int in;
    int out;
};

const workload_case capacity_cases[] = {
    {"cpu-small", 128, 64},
    {"cpu-small", 512, 128},
    {"h100-8b", 512, 256},
    {"h100-8b", 2048, 128},
};

// Virtual seconds long enough for ~10k completions at capacity.
double run_seconds(double capacity) { return std::max(300.0, 10'000.0 / capacity); }

}  // namespace

BOOST_AUTO_TEST_CASE(idle_engine_step_costs_nothing) {
    engine e(plain_model());
    const step_result r = e.step();
    BOOST_TEST(r.duration_ns == 0);
    BOOST_TEST(r.out.empty());
    BOOST_TEST(e.idle());
}

BOOST_AUTO_TEST_CASE(step_time_is_the_cost_model_sum) {
    engine e(plain_model());
    e.add(make_request(1, 100, 3));
    // 1 ms base + 100 prefill tokens x 0.01 + 100 KV tokens x 0.001
    step_result r = e.step();
    BOOST_TEST(r.prefill_tokens == 100);
    BOOST_TEST(r.decode_seqs == 0);
    BOOST_TEST(r.kv_tokens_read == 100);
    BOOST_TEST(r.duration_ns == 2'100'000);
    BOOST_REQUIRE(r.out.size() == 1u);
    BOOST_TEST(r.out[0].tokens == 1);
    BOOST_TEST(!r.out[0].finished);

    e.add(make_request(2, 50, 2));
    // 1 base + 50 prefill x 0.01 + 1 decoder x 0.1 + (101 + 50) KV x 0.001
    r = e.step();
    BOOST_TEST(r.prefill_tokens == 50);
    BOOST_TEST(r.decode_seqs == 1);
    BOOST_TEST(r.kv_tokens_read == 151);
    BOOST_TEST(r.duration_ns == 1'751'000);
    BOOST_TEST(r.out.size() == 2u);

    // 1 base + 2 decoders x 0.1 + (102 + 51) KV x 0.001; both finish.
    r = e.step();
    BOOST_TEST(r.duration_ns == 1'353'000);
    BOOST_REQUIRE(r.out.size() == 2u);
    BOOST_TEST(r.out[0].finished);
    BOOST_TEST(r.out[1].finished);
    BOOST_TEST(e.idle());
    BOOST_TEST(e.prompt_tokens_total() == 150);
    BOOST_TEST(e.generation_tokens_total() == 5);
}

BOOST_AUTO_TEST_CASE(single_token_output_finishes_at_prefill) {
    engine e(plain_model());
    e.add(make_request(7, 10, 1));
    const step_result r = e.step();
    BOOST_REQUIRE(r.out.size() == 1u);
    BOOST_TEST(r.out[0].tokens == 1);
    BOOST_TEST(r.out[0].finished);
    BOOST_TEST(e.idle());
    BOOST_TEST(e.kv_usage() == 0.0);
}

BOOST_AUTO_TEST_CASE(max_num_seqs_caps_the_batch) {
    cost_model m = plain_model();
    m.max_num_seqs = 2;
    engine e(m);
    for (std::uint64_t id = 1; id <= 3; ++id) e.add(make_request(id, 8, 4));
    const step_result r = e.step();
    BOOST_TEST(e.running() == 2u);
    BOOST_TEST(e.waiting() == 1u);
    BOOST_TEST(r.out.size() == 2u);
    BOOST_TEST(find_emission(r, 3) == nullptr);
}

BOOST_AUTO_TEST_CASE(kv_reservation_gates_admission_head_of_line) {
    cost_model m = plain_model();
    m.kv_capacity_tokens = 100;
    engine e(m);
    e.add(make_request(1, 60, 3));  // reserves 63
    e.add(make_request(2, 30, 10)); // 40 more does not fit
    e.add(make_request(3, 5, 5));   // would fit, but FIFO keeps it behind 2
    e.step();
    BOOST_TEST(e.running() == 1u);
    BOOST_TEST(e.waiting() == 2u);
    BOOST_TEST(e.kv_usage() == 0.63);
    e.step();
    const step_result last = e.step();  // request 1's third token
    BOOST_REQUIRE(find_emission(last, 1) != nullptr);
    BOOST_TEST(find_emission(last, 1)->finished);
    BOOST_TEST(e.running() == 0u);
    const step_result next = e.step();
    BOOST_TEST(e.running() == 2u);
    BOOST_TEST(e.waiting() == 0u);
    BOOST_TEST(next.prefill_tokens == 35);
    BOOST_TEST(e.kv_usage() == 0.5);
}

BOOST_AUTO_TEST_CASE(chunked_prefill_splits_at_the_budget) {
    cost_model m = plain_model();
    m.max_batched_tokens = 64;
    engine e(m);
    e.add(make_request(1, 150, 2));
    step_result r = e.step();
    BOOST_TEST(r.prefill_tokens == 64);
    BOOST_TEST(r.kv_tokens_read == 64);
    BOOST_TEST(r.out.empty());
    r = e.step();
    BOOST_TEST(r.prefill_tokens == 64);
    BOOST_TEST(r.kv_tokens_read == 128);
    BOOST_TEST(r.out.empty());
    // The first prompt's last 22 tokens go first; a later prompt gets the other 42.
    e.add(make_request(2, 100, 2));
    r = e.step();
    BOOST_TEST(r.prefill_tokens == 64);
    BOOST_REQUIRE(find_emission(r, 1) != nullptr);
    BOOST_TEST(find_emission(r, 1)->tokens == 1);
    BOOST_TEST(find_emission(r, 2) == nullptr);
    // Request 1's decode takes one budget token, request 2's last 58 fit in the rest.
    r = e.step();
    BOOST_TEST(r.decode_seqs == 1);
    BOOST_TEST(r.prefill_tokens == 58);
    BOOST_TEST(r.kv_tokens_read == 151 + 100);
    BOOST_REQUIRE(find_emission(r, 2) != nullptr);
    BOOST_TEST(find_emission(r, 2)->tokens == 1);
}

BOOST_AUTO_TEST_CASE(prefix_cache_serves_a_repeated_prompt) {
    engine e(plain_model());
    const seq_request a = unique_request(1, 64, 1, 16);
    seq_request b = a;
    b.id = 2;
    e.add(a);
    const step_result first = e.step();
    BOOST_REQUIRE(first.out.size() == 1u);
    BOOST_TEST(first.out[0].cached_tokens == 0);
    BOOST_TEST(first.prefill_tokens == 64);

    e.add(b);
    const step_result second = e.step();
    BOOST_REQUIRE(second.out.size() == 1u);
    // All four blocks hit, but the last prompt token is still computed.
    BOOST_TEST(second.out[0].cached_tokens == 63);
    BOOST_TEST(second.prefill_tokens == 1);
    BOOST_TEST(second.duration_ns < first.duration_ns);
    BOOST_TEST(e.prefix_cache_queries() == 8);
    BOOST_TEST(e.prefix_cache_hits() == 4);

    cost_model off = plain_model();
    off.prefix_cache = false;
    engine cold(off);
    cold.add(a);
    cold.step();
    cold.add(b);
    BOOST_TEST(cold.step().prefill_tokens == 64);
    BOOST_TEST(cold.prefix_cache_hits() == 0);
}

// vLLM's v1 scheduler caches the blocks a step computes as it schedules
// them: a request scheduled after another in the same step finds its prefix.
BOOST_AUTO_TEST_CASE(prefix_cache_serves_a_prompt_scheduled_in_the_same_step) {
    engine e(plain_model());
    const seq_request a = unique_request(1, 64, 4, 16);
    seq_request b = a;
    b.id = 2;
    e.add(a);
    e.add(b);
    const step_result r = e.step();
    BOOST_REQUIRE(find_emission(r, 1) != nullptr);
    BOOST_REQUIRE(find_emission(r, 2) != nullptr);
    BOOST_TEST(find_emission(r, 1)->cached_tokens == 0);
    BOOST_TEST(find_emission(r, 2)->cached_tokens == 63);
    BOOST_TEST(r.prefill_tokens == 64 + 1);
}

// A request admitted while another still computes the same prompt in chunks
// looks for its prefix only when it is first scheduled: after that one's
// chunks, so it finds all of them, not what was cached when it was admitted.
BOOST_AUTO_TEST_CASE(prefix_cache_is_asked_when_a_request_is_first_scheduled) {
    cost_model m = plain_model();
    m.max_batched_tokens = 40;  // 2.5 blocks a step
    engine e(m);
    const seq_request a = unique_request(1, 128, 1, 16);
    seq_request b = a;
    b.id = 2;
    e.add(a);
    e.step();  // a: 40 of 128 tokens
    e.add(b);  // admitted next step, scheduled once a's prefill leaves budget
    step_result r;
    do {
        r = e.step();
    } while (find_emission(r, 2) == nullptr && !e.idle());
    BOOST_REQUIRE(find_emission(r, 2) != nullptr);
    BOOST_TEST(find_emission(r, 2)->cached_tokens == 127);
}

BOOST_AUTO_TEST_CASE(prefix_cache_evicts_least_recently_used) {
    cost_model m = plain_model();
    m.kv_capacity_tokens = 32;  // two blocks of cache
    engine e(m);
    auto run = [&](seq_request r) {
        e.add(std::move(r));
        return e.step().out.at(0).cached_tokens;
    };
    const seq_request a = unique_request(1, 17, 1, 16);
    const seq_request b = unique_request(2, 17, 1, 16);
    const seq_request c = unique_request(3, 17, 1, 16);
    run(a);
    run(b);
    BOOST_TEST(run(a) == 16);  // touches a: b is now the oldest
    run(c);                    // evicts b
    BOOST_TEST(run(a) == 16);
    BOOST_TEST(run(b) == 0);
}

BOOST_AUTO_TEST_CASE(tokens_per_step_emits_k_tokens) {
    cost_model m = plain_model();
    m.tokens_per_step = 3;
    engine e(m);
    e.add(make_request(1, 10, 8));
    std::vector<int> tokens;
    bool finished = false;
    while (!e.idle()) {
        for (const emission& x : e.step().out) {
            tokens.push_back(x.tokens);
            finished = x.finished;
        }
    }
    BOOST_TEST(tokens == (std::vector<int>{1, 3, 3, 1}), boost::test_tools::per_element());
    BOOST_TEST(finished);
    BOOST_TEST(e.generation_tokens_total() == 8);
}

BOOST_AUTO_TEST_CASE(abort_frees_slot_and_reservation) {
    cost_model m = plain_model();
    m.max_num_seqs = 1;
    engine e(m);
    e.add(make_request(1, 10, 100));
    e.add(make_request(2, 10, 100));
    e.add(make_request(3, 10, 100));
    e.step();
    BOOST_TEST(e.running() == 1u);
    e.abort(3);  // from the queue
    BOOST_TEST(e.waiting() == 1u);
    e.abort(1);  // from the batch
    BOOST_TEST(e.running() == 0u);
    BOOST_TEST(e.kv_usage() == 0.0);
    const step_result r = e.step();
    BOOST_TEST(e.running() == 1u);
    BOOST_REQUIRE(r.out.size() == 1u);
    BOOST_TEST(r.out[0].id == 2u);
    e.abort(2);
    BOOST_TEST(e.idle());
    BOOST_TEST(e.step().duration_ns == 0);
}

BOOST_AUTO_TEST_CASE(presets_are_named_and_found) {
    for (const std::string& name : preset_names()) {
        const auto m = find_preset(name);
        BOOST_REQUIRE(m.has_value());
        BOOST_TEST(m->name == name);
    }
    BOOST_TEST(preset_names().size() == 3u);
    BOOST_TEST(!find_preset("a100-70b").has_value());
    const cost_model h100 = *find_preset("h100-8b");
    // Batch-1 decode step of an 8B model on an H100: 5-7 ms.
    const double batch1_ms = h100.step_base_ms + h100.decode_seq_ms + h100.kv_token_ms * 1000;
    BOOST_TEST(batch1_ms >= 5.0);
    BOOST_TEST(batch1_ms <= 7.0);
}

BOOST_AUTO_TEST_CASE(capacity_limits_are_named) {
    const auto fire = predict_capacity(*find_preset("firehose"), 512, 256);
    BOOST_TEST(std::isinf(fire.max_request_rate));
    BOOST_TEST(fire.limited_by == "none");

    const cost_model h100 = *find_preset("h100-8b");
    BOOST_TEST(predict_capacity(h100, 512, 256).limited_by == "max_num_seqs");
    const auto kv = predict_capacity(h100, 2048, 128);
    BOOST_TEST(kv.limited_by == "kv_cache");
    BOOST_TEST(kv.batch == 430'000 / 2176);
    const auto too_long = predict_capacity(h100, 32000, 1000);
    BOOST_TEST(too_long.limited_by == "max_model_len");
    BOOST_TEST(too_long.max_request_rate == 0.0);

    cost_model narrow = plain_model();
    narrow.max_batched_tokens = 256;
    const auto budget = predict_capacity(narrow, 1000, 16);
    BOOST_TEST(budget.limited_by == "token_budget");
    BOOST_TEST(budget.batch < narrow.max_num_seqs);
}

BOOST_AUTO_TEST_CASE(predicted_capacity_holds_in_virtual_time) {
    for (const workload_case& c : capacity_cases) {
        const cost_model m = *find_preset(c.preset);
        const capacity_estimate cap = predict_capacity(m, c.in, c.out);
        BOOST_TEST_MESSAGE(c.preset << " I=" << c.in << " O=" << c.out << ": "
                                    << cap.max_request_rate << " req/s, batch " << cap.batch
                                    << ", step " << cap.step_ms << " ms, " << cap.limited_by);
        const double seconds = run_seconds(cap.max_request_rate);
        for (const bool poisson : {false, true}) {
            BOOST_TEST_CONTEXT(c.preset << " I=" << c.in << " O=" << c.out
                                        << (poisson ? " poisson" : " constant")) {
                // Below capacity the queue drains: it never holds more than a
                // few seconds' worth of arrivals.
                const run_stats under = run_open_loop(m, c.in, c.out, 0.8 * cap.max_request_rate,
                                                      poisson, 42, seconds, seconds / 4);
                const double bound = std::max(10.0, 2.0 * cap.max_request_rate);
                for (const std::size_t w : under.waiting) BOOST_TEST(static_cast<double>(w) < bound);

                // Above it the queue grows steadily, by about 1/6 of the arrivals.
                const run_stats over = run_open_loop(m, c.in, c.out, 1.2 * cap.max_request_rate,
                                                     poisson, 43, seconds, seconds / 4);
                BOOST_REQUIRE(over.waiting.size() == 10u);
                for (std::size_t i = 4; i < over.waiting.size(); ++i)
                    BOOST_TEST(over.waiting[i] > over.waiting[i - 2]);
                BOOST_TEST(static_cast<double>(over.waiting.back()) > 0.1 * static_cast<double>(over.arrived));

                // Saturated, the engine completes requests at the predicted rate.
                const run_stats sat = run_open_loop(m, c.in, c.out, 1.3 * cap.max_request_rate,
                                                    poisson, 44, seconds, seconds / 4);
                BOOST_TEST_MESSAGE("  measured " << sat.completion_rate << " req/s ("
                                                 << (poisson ? "poisson" : "constant") << ")");
                BOOST_TEST(sat.completion_rate >= 0.95 * cap.max_request_rate);
                BOOST_TEST(sat.completion_rate <= 1.05 * cap.max_request_rate);
            }
        }
    }
}

// The encoder's cost is charged in the step of a request's first prefill chunk:
// per item and per media token, beside the prompt tokens' own prefill cost.
BOOST_AUTO_TEST_CASE(media_encoder_cost_in_the_first_prefill_step) {
    cost_model m = plain_model();
    m.media_encode_ms = 2.0;
    m.media_encode_token_ms = 0.01;
    const auto first_step_ms = [&](seq_request r) {
        engine eng(m);
        eng.add(std::move(r));
        return static_cast<double>(eng.step().duration_ns) / 1e6;
    };
    seq_request text = make_request(1, 100, 4);
    // 1 base + 100 x 0.01 prefill + 100 x 0.001 KV read.
    BOOST_TEST(first_step_ms(text) == 2.1, boost::test_tools::tolerance(1e-9));
    seq_request one = text;
    one.media_items = 1, one.media_tokens = 82, one.media_end = 100;
    BOOST_TEST(first_step_ms(one) == 2.1 + 2.0 + 0.82, boost::test_tools::tolerance(1e-9));
    seq_request two = make_request(2, 182, 4);
    two.media_items = 2, two.media_tokens = 164, two.media_end = 182;
    BOOST_TEST(first_step_ms(two) == 1 + 1.82 + 0.182 + 4.0 + 1.64, boost::test_tools::tolerance(1e-9));

    // A chunked prompt pays once, in its first chunk.
    m.max_batched_tokens = 64;
    engine eng(m);
    eng.add(one);
    const step_result c1 = eng.step();
    BOOST_TEST(c1.encoded_items == 1);
    BOOST_TEST(c1.encoded_tokens == 82);
    const step_result c2 = eng.step();
    BOOST_TEST(c2.encoded_items == 0);
    BOOST_TEST(static_cast<double>(c2.duration_ns) / 1e6 == 1 + 36 * 0.01 + 100 * 0.001, boost::test_tools::tolerance(1e-9));
}

// Media the prefix cache holds whole is not encoded again; media past the cached prefix is.
BOOST_AUTO_TEST_CASE(cached_media_is_not_encoded_again) {
    cost_model m = plain_model();
    m.media_encode_ms = 2.0;
    engine eng(m);
    seq_request a = unique_request(1, 100, 1, m.block_size);
    a.media_items = 1, a.media_tokens = 40, a.media_end = 60;
    eng.add(a);
    BOOST_TEST(eng.step().encoded_items == 1);
    seq_request again = a;
    again.id = 2;  // the same prompt: 96 of its tokens cached, the media (before 60) among them
    eng.add(again);
    const step_result s = eng.step();
    BOOST_TEST(s.encoded_items == 0);
    BOOST_TEST(find_emission(s, 2)->cached_tokens == 96);
    seq_request late = again;
    late.id = 3, late.media_end = 100;  // media among the last tokens, recomputed: encoded
    eng.add(late);
    BOOST_TEST(eng.step().encoded_items == 1);
}

BOOST_AUTO_TEST_SUITE_END()
