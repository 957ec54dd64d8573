#include <boost/test/unit_test.hpp>

#include "openloop/load/csv_reader.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_csv_reader)

using namespace openloop;

namespace {

struct row {
    std::size_t line;
    std::vector<std::string> fields;
    std::string error;
};

std::vector<row> read_all(std::string_view text, char delimiter) {
    csv_reader reader(text, delimiter);
    csv_record r;
    std::vector<row> out;
    while (reader.next(r)) out.push_back({r.line, r.fields, r.error});
    return out;
}

using fields = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(delimiters_are_detected_from_the_header) {
    BOOST_TEST(detect_csv_delimiter("a,b,c") == ',');
    BOOST_TEST(detect_csv_delimiter("a;b;c") == ';');
    BOOST_TEST(detect_csv_delimiter("a\tb\tc") == '\t');
    BOOST_TEST(detect_csv_delimiter("a|b|c") == '|');
    BOOST_TEST(detect_csv_delimiter("\"a,b\";c") == ';');  // quoted commas do not count
    BOOST_TEST(detect_csv_delimiter("a;b,c") == ',');       // a tie: the comma
    BOOST_TEST(detect_csv_delimiter("single") == ',');
}

BOOST_AUTO_TEST_CASE(quoted_fields) {
    const auto rows = read_all("a,\"b,c\",\"say \"\"hi\"\"\", d \n\"\",x\n", ',');
    BOOST_REQUIRE_EQUAL(rows.size(), 2u);
    BOOST_TEST((rows[0].fields == fields{"a", "b,c", "say \"hi\"", "d"}));
    BOOST_TEST((rows[1].fields == fields{"", "x"}));
    // A quote inside an unquoted field is text; blanks around a quoted field go.
    const auto inner = read_all("5\" screen,  \"q\"  ,z", ',');
    BOOST_TEST((inner[0].fields == fields{"5\" screen", "q", "z"}));
}

BOOST_AUTO_TEST_CASE(line_ends_bom_and_blank_lines) {
    const auto rows = read_all("\xEF\xBB\xBFh1;h2\r\n1;2\r\n\r\n3;4", ';');
    BOOST_REQUIRE_EQUAL(rows.size(), 4u);
    BOOST_TEST((rows[0].fields == fields{"h1", "h2"}));
    BOOST_TEST((rows[1].fields == fields{"1", "2"}));
    BOOST_TEST(rows[2].fields.size() == 1u);  // the blank line
    BOOST_TEST((rows[3].fields == fields{"3", "4"}));
    BOOST_TEST(rows[3].line == 4u);
    // Empty fields survive a tab delimiter, which is then no blank to trim.
    const auto tabs = read_all("a\t\tb\t\n", '\t');
    BOOST_TEST((tabs[0].fields == fields{"a", "", "b", ""}));
}

BOOST_AUTO_TEST_CASE(quoted_line_breaks_and_errors) {
    const auto rows = read_all("id,prompt\n1,\"two\r\nlines\"\n2,x\n", ',');
    BOOST_REQUIRE_EQUAL(rows.size(), 3u);
    BOOST_TEST((rows[1].fields == fields{"1", "two\r\nlines"}));
    BOOST_TEST(rows[2].line == 4u);  // line numbers count the break inside the quotes

    const auto after = read_all("1,\"a\"b,c\n2,d\n", ',');
    BOOST_REQUIRE_EQUAL(after.size(), 2u);
    BOOST_TEST(after[0].error == "field 2: text after its closing quote");
    BOOST_TEST(after[1].error.empty());
    BOOST_TEST((after[1].fields == fields{"2", "d"}));

    const auto open = read_all("h\n1\n\"never\n2\n", ',');
    BOOST_REQUIRE_EQUAL(open.size(), 3u);
    BOOST_TEST(open[2].error == "a quoted field opened on line 3 never closes");
}

BOOST_AUTO_TEST_SUITE_END()
