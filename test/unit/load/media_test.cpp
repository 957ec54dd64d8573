#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/media.hpp"
#include "openloop/media/media_pool.hpp"

#include <set>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_media)

using namespace openloop;

BOOST_AUTO_TEST_CASE(image_sizes_are_weighted_buckets) {
    const auto b = parse_image_sizes("512x512=0.7,1024x768=0.3");
    BOOST_REQUIRE(b.size() == 2u);
    BOOST_TEST(b[0].width == 512);
    BOOST_TEST(b[0].weight == 0.7);
    BOOST_TEST(b[1].label() == "1024x768");
    BOOST_TEST(b[1].weight == 0.3);
    const auto one = parse_image_sizes("224x336");
    BOOST_REQUIRE(one.size() == 1u);
    BOOST_TEST(one[0].height == 336);
    BOOST_TEST(one[0].weight == 1.0);
}

BOOST_AUTO_TEST_CASE(bad_image_sizes_name_the_flag) {
    for (const char* bad : {"512", "512x", "x512", "0x10", "512x512=0", "512x512=-1", "9000x10", "64x64,64x64", "64x64,"}) {
        try {
            parse_image_sizes(bad);
            BOOST_ERROR("accepted " << bad);
        } catch (const input_error& e) {
            BOOST_TEST(std::string(e.what()).find("--image-size") != std::string::npos, bad << ": " << e.what());
        }
    }
}

BOOST_AUTO_TEST_CASE(the_pool_holds_buckets_in_their_weights_at_every_prefix) {
    const auto b = parse_image_sizes("64x64=0.7,32x32=0.3");
    for (const int n : {10, 100, 1000}) {
        int first = 0;
        for (int k = 0; k < n; ++k) first += pool_bucket(b, static_cast<std::uint64_t>(k)) == 0;
        // 70 % of n, within one entry (the golden-ratio walk's discrepancy).
        BOOST_TEST(std::abs(first - n * 7 / 10) <= 1, n << ": " << first);
    }
}

namespace {

media_plan plan(double reuse) {
    media_plan p;
    p.has_images = true;
    p.images = length_dist::parse("uniform:1:3");
    p.audios = 1;
    p.reuse = reuse;
    p.image_pool = 100;
    p.audio_pool = 10;
    p.seed = 5;
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fresh_requests_walk_the_pool_in_order) {
    const media_plan p = plan(0);
    std::vector<std::uint32_t> m;
    p.pick(7, m);
    // Up to 3 images per request: request 7's slots are 21, 22, 23; its clip is 7 mod 10, after the 100 images.
    BOOST_REQUIRE(m.size() >= 2u);
    BOOST_REQUIRE(m.size() <= 4u);
    for (std::size_t j = 0; j + 1 < m.size(); ++j) BOOST_TEST(m[j] == 21 + j);
    BOOST_TEST(m.back() == 107u);
    p.pick(40, m);
    BOOST_TEST(m.front() == 20u);  // 120 mod 100: past the pool it wraps
    std::vector<std::uint32_t> again;
    p.pick(40, again);
    BOOST_TEST((m == again));
}

BOOST_AUTO_TEST_CASE(the_reuse_share_is_the_share_asked) {
    const media_plan p = plan(0.3);
    int reused = 0;
    constexpr int n = 20'000;
    for (std::uint64_t i = 0; i < n; ++i) reused += p.reuses(i);
    // Binomial sd is sqrt(n 0.3 0.7) ~ 65: within 4 sd.
    BOOST_TEST(std::abs(reused - n * 3 / 10) < 260, reused);
    BOOST_TEST(!p.reuses(0));  // nothing was sent before the first
}

BOOST_AUTO_TEST_CASE(a_reusing_request_sends_an_earlier_fresh_requests_media) {
    const media_plan p = plan(0.5);
    std::vector<std::uint32_t> mine, theirs;
    int checked = 0;
    for (std::uint64_t i = 1; i < 2'000; ++i) {
        if (!p.reuses(i)) {
            BOOST_TEST(p.source(i) == i);
            continue;
        }
        const std::uint64_t r = p.source(i);
        BOOST_TEST(r < i);
        BOOST_TEST(i - r <= media_plan::reuse_window + 40);  // the window, then back to a fresh one
        BOOST_TEST(!p.reuses(r));
        p.pick(i, mine);
        p.pick(r, theirs);
        BOOST_TEST((mine == theirs));
        ++checked;
    }
    BOOST_TEST(checked > 800);
}

BOOST_AUTO_TEST_CASE(with_every_request_reusing_all_send_the_first_ones_media) {
    const media_plan p = plan(1);
    BOOST_TEST(p.source(0) == 0u);
    BOOST_TEST(p.source(12345) == 0u);
}

BOOST_AUTO_TEST_CASE(a_set_is_made_with_its_pools_bounded_by_the_runs_count) {
    media_config c;
    c.images = length_dist::fixed(2);
    c.image_sizes = parse_image_sizes("32x32=1,16x8=1");
    c.audios = 1;
    c.audio_seconds = length_dist::fixed(1);
    const media_set s(c, 3, 5);  // 5 requests x 2 images, 5 clips
    BOOST_TEST(s.plan().image_pool == 10u);
    BOOST_TEST(s.plan().audio_pool == 5u);
    BOOST_REQUIRE(s.size() == 15u);
    std::set<std::string> distinct;
    for (std::uint32_t i = 0; i < 10; ++i) {
        BOOST_TEST(s.item(i).payload.rfind("data:image/jpeg;base64,/9j/", 0) == 0u);  // FF D8 FF in base64
        BOOST_TEST((s.item(i).bucket == 0 ? s.item(i).width == 32 : s.item(i).height == 8));
        distinct.insert(s.item(i).payload);
    }
    BOOST_TEST(distinct.size() == 10u);
    BOOST_TEST((s.item(10).type == media_item::kind::audio));
    BOOST_TEST(s.item(10).payload.rfind("UklGR", 0) == 0u);  // "RIFF"
    BOOST_TEST(s.describe().find("10 images 32x32,16x8 jpeg q85") != std::string::npos, s.describe());
}

// The pool's bound holds whatever the threads made when it was reached: the
// item that reached it, and those made beside it, are not kept past it.
BOOST_AUTO_TEST_CASE(a_pool_never_holds_more_than_its_budget) {
    const auto sized = [](std::size_t k) {
        media_item item;
        item.payload = std::to_string(k) + ":" + std::string(900 + 50 * (k % 5), 'x');
        return item;
    };
    for (const std::size_t budget : {std::size_t{10'500}, std::size_t{20'000}, std::size_t{64'321}}) {
        const std::vector<media_item> pool = make_media_pool(1000, budget, sized);
        std::size_t held = 0;
        for (std::size_t k = 0; k < pool.size(); ++k) {
            BOOST_TEST(pool[k].payload.rfind(std::to_string(k) + ":", 0) == 0u, "item " << k << " in index order");
            held += pool[k].payload.size();
        }
        BOOST_TEST(held <= budget, pool.size() << " items hold " << held << " bytes, budget " << budget);
        BOOST_TEST(held + sized(pool.size()).payload.size() > budget, "the next item would not have fit");
    }
    // A first item larger than the budget is the pool alone: a run has something to send.
    const auto big = make_media_pool(10, 100, sized);
    BOOST_TEST(big.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
