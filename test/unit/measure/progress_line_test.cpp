#include <boost/test/unit_test.hpp>

#include "openloop/measure/progress_line.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_progress_line)

using namespace openloop;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(a_line_is_due_once_an_interval_from_the_first_look) {
    progress_line p(1000ms);
    BOOST_TEST(!p.due(5'000'000'000));  // starts the interval
    BOOST_TEST(!p.due(5'999'999'999));
    BOOST_TEST(p.due(6'000'000'000));
    progress_figures f;
    BOOST_TEST(!p.printed());
    (void)p.text(6'200'000'000, f);  // late: the next is due an interval after this one
    BOOST_TEST(!p.due(7'100'000'000));
    BOOST_TEST(p.due(7'200'000'000));
}

BOOST_AUTO_TEST_CASE(the_rate_counts_completions_since_the_line_before) {
    progress_line p(500ms);
    (void)p.due(0);
    // 2 s in: 130 sent, 7 in flight, 100 done, 3 errors, TTFT p50 and p99.
    progress_figures f{2, 130, 7, 100, 3, 12.34, 56.78};
    const std::string first = p.text(2'000'000'000, f);
    BOOST_TEST(first.starts_with("\r     2.0 s  sent 130  in flight 7  done 100  errors 3  50.0 req/s"), first);
    BOOST_TEST(first.find("TTFT p50 12.3 ms p99 56.8 ms") != std::string::npos, first);
    f.completed = 150;
    const std::string second = p.text(2'500'000'000, f);
    BOOST_TEST(second.find("done 150  errors 3  100.0 req/s") != std::string::npos, second);
}

BOOST_AUTO_TEST_CASE(print_writes_the_line_and_remembers_it) {
    std::FILE* out = std::tmpfile();
    BOOST_TEST_REQUIRE(out != nullptr);
    progress_line p(1000ms, out);
    progress_figures f;
    f.completed = 4;
    p.print(1'000'000'000, f);
    BOOST_TEST(p.printed());
    std::rewind(out);
    char buf[256] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, out);
    std::fclose(out);
    BOOST_TEST(std::string(buf, n).find("done 4") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
