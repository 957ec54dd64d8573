#include <boost/test/unit_test.hpp>

// A trace read for a selection (trace.hpp): rows in time order are read only as
// far as the window and count need, and what is kept selects the same requests
// as the whole trace would; out of order, the file is read again, and still
// only the selection is held.

#include "openloop/load/trace.hpp"
#include "test_http.hpp"
#include "trace_samples.hpp"
#include "printing.hpp"

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trace_reading)

using namespace openloop;
using trace_samples::error_of;

namespace {

// Mooncake rows at ms times: row i (from 0) at times_ms[i], input 100 + i.
std::string mooncake(const std::vector<std::int64_t>& times_ms) {
    std::string text;
    for (std::size_t i = 0; i < times_ms.size(); ++i)
        text += "{\"timestamp\": " + std::to_string(times_ms[i]) + ", \"input_length\": " + std::to_string(100 + i) +
                ", \"output_length\": 5, \"hash_ids\": [" + std::to_string(i % 7) + "]}\n";
    return text;
}

std::vector<std::int64_t> steady_ms(std::size_t n, std::int64_t from_ms = 5'000) {
    std::vector<std::int64_t> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = from_ms + std::int64_t(i) * 250 + std::int64_t(i % 3);
    return t;
}

trace_selection selection(std::int64_t start_s, std::int64_t end_s, std::size_t count) {
    trace_selection s;
    s.start_ns = start_s * 1'000'000'000;
    s.end_ns = end_s < 0 ? -1 : end_s * 1'000'000'000;
    s.max_count = count;
    return s;
}

trace read_for(std::string_view text, const trace_selection& s, bool skip = false) {
    trace_parse_options o;
    o.selection = s;
    o.skip_bad_rows = skip;
    return parse_trace(text, "t.jsonl", o);
}

// What the selection picks from the rows read for it, against from the whole trace.
void same_pick(std::string_view text, const trace_selection& s) {
    const auto whole = select_trace(parse_trace(text, "t.jsonl").entries, s);
    const auto kept = read_for(text, s);
    const auto picked = select_trace(kept.entries, s);
    BOOST_TEST(picked == whole, boost::test_tools::per_element());
    BOOST_TEST(!whole.empty());
}

}  // namespace

BOOST_AUTO_TEST_CASE(rows_in_order_are_kept_as_the_selection_needs) {
    const std::string text = mooncake(steady_ms(400));  // 100 s of rows, 4 a second
    for (const auto& s : {selection(0, -1, 10), selection(30, -1, 0), selection(30, 40, 0), selection(30, 90, 7),
                          selection(0, 1, 0), selection(99, -1, 0)}) {
        BOOST_TEST_CONTEXT("window " << s.start_ns << " .. " << s.end_ns << ", count " << s.max_count) {
            same_pick(text, s);
        }
    }
    // Only the selected rows are kept, not every row read.
    BOOST_TEST(read_for(text, selection(0, -1, 10)).entries.size() == 10u);
    BOOST_TEST(read_for(text, selection(30, 40, 0)).entries.size() == 40u);
    BOOST_TEST(read_for(text, selection(30, 90, 7)).entries.size() == 7u);
    // The window's times stay relative to the first row, kept or not.
    BOOST_TEST(read_for(text, selection(30, 40, 0)).entries.front().at_ns == 30'000'000'000);
}

BOOST_AUTO_TEST_CASE(reading_stops_where_the_selection_is_complete) {
    // A row past the selection is never read: its damage does not matter.
    const std::string text = mooncake(steady_ms(40)) + "{\"timestamp\": 20000, \"input_length\": -1}\n";
    const auto counted = read_for(text, selection(0, -1, 10));
    BOOST_TEST(counted.entries.size() == 10u);
    BOOST_TEST(counted.rows_read == 10u);
    const auto window = read_for(text, selection(2, 5, 0));
    BOOST_TEST(window.entries.size() == 12u);
    BOOST_TEST(window.rows_read == 21u);  // the first row past the window ends the reading
    // A bad row before or inside the selection is named by its line, as ever.
    const std::string early = mooncake(steady_ms(3)) + "{\"timestamp\": 6000, \"input_length\": -1}\n" +
                              mooncake(steady_ms(40, 7'000));
    const auto message = error_of([&] { read_for(early, selection(5, -1, 10)); });
    BOOST_TEST(message.find("t.jsonl:4: field \"input_length\"") != std::string::npos, message);
    const auto skipped = read_for(early, selection(5, -1, 10), true);
    BOOST_TEST(skipped.skipped_rows == 1u);
    BOOST_TEST(skipped.skipped_lines == std::vector<std::size_t>{4}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rows_out_of_order_are_read_again_and_the_selection_held) {
    // openloop's own log is in completion order; here a late row is also the
    // earliest, moving the origin of every window after its rows were read.
    std::vector<std::int64_t> times = steady_ms(200);
    std::swap(times[3], times[5]);
    times[150] = 1'000;
    const std::string text = mooncake(times);
    for (const auto& s : {selection(0, -1, 10), selection(10, 20, 0), selection(10, -1, 3)}) {
        BOOST_TEST_CONTEXT("window " << s.start_ns << " .. " << s.end_ns << ", count " << s.max_count) {
            same_pick(text, s);
        }
    }
    const auto counted = read_for(text, selection(0, -1, 10));
    BOOST_TEST(counted.rows_read == 200u);
    BOOST_TEST(counted.entries.size() == 10u);
    BOOST_TEST(counted.entries.front().input_tokens == 250);  // row 150
    BOOST_TEST(read_for(text, selection(10, 20, 0)).entries.size() == 40u);
    // Rows of one time keep their file order, whichever of them a count takes.
    const std::string ties = mooncake({3'000, 1'000, 2'000, 1'000, 1'000, 2'000, 1'000, 3'000, 2'000, 1'000, 4'000});
    for (const auto& s : {selection(0, -1, 3), selection(0, -1, 6), selection(1, 3, 2), selection(1, -1, 4)}) {
        BOOST_TEST_CONTEXT("window " << s.start_ns << " .. " << s.end_ns << ", count " << s.max_count) {
            same_pick(ties, s);
        }
    }
}

BOOST_AUTO_TEST_CASE(csv_rows_are_read_for_the_selection_too) {
    std::string text = "Timestamp,Model,Request tokens,Response tokens\n";
    for (int i = 0; i < 300; ++i) text += std::to_string(10 + i) + ".5,m,\"" + std::to_string(20 + i) + "\",4\n";
    text += "1e3,m,lots,4\n";  // past every selection below
    trace_parse_options o;
    o.selection = selection(100, 150, 0);
    const auto kept = parse_trace(text, "b.csv", o);
    BOOST_REQUIRE_EQUAL(kept.entries.size(), 50u);
    BOOST_TEST(kept.entries.front().input_tokens == 120);
    BOOST_TEST(kept.entries.front().at_ns == 100'000'000'000);
    o.selection = selection(0, -1, 0);
    const auto message = error_of([&] { parse_trace(text, "b.csv", o); });
    BOOST_TEST(message.find("b.csv:302: field \"Request tokens\"") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(a_mapped_file_reads_as_its_text) {
    // Long enough that load_trace hands pages back as it reads on.
    test_http::temp_dir dir;
    const std::string text = mooncake(steady_ms(250'000));
    BOOST_REQUIRE_GT(text.size(), 16u << 20);
    const std::string path = dir.file("long.jsonl");
    std::ofstream(path, std::ios::binary) << text;
    for (const auto& s : {selection(0, -1, 0), selection(40'000, -1, 5), selection(10, 20, 0)}) {
        trace_parse_options o;
        o.selection = s;
        const auto mapped = load_trace(path, o);
        const auto parsed = parse_trace(text, path, o);
        BOOST_TEST(mapped.entries == parsed.entries);
        BOOST_TEST(!mapped.entries.empty());
    }
    std::ofstream(dir.file("empty.jsonl"));
    const auto message = error_of([&] { load_trace(dir.file("empty.jsonl")); });
    BOOST_TEST(message.find("empty.jsonl: cannot detect the trace format") != std::string::npos, message);
}

BOOST_AUTO_TEST_SUITE_END()
