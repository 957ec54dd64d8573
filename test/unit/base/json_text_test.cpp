#include <boost/test/unit_test.hpp>

#include "openloop/base/json_text.hpp"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_json_text)

using namespace openloop;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("openloop-json-text-test-" + std::to_string(::getpid()) + "-" + name))
        .string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(write_json_file_names_the_path_it_cannot_write) {
    const std::string path = temp_path("missing-dir") + "/summary.json";
    try {
        write_json_file(path, boost::json::object{{"a", 1}});
        BOOST_FAIL("write_json_file should have thrown");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(path) != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(pretty_json_is_plain_and_round_trips) {
    const boost::json::value v = boost::json::object{
        {"n", 15.0}, {"i", -3}, {"s", "a\"b"}, {"e", boost::json::object{}}, {"a", {1, 2, 3}}, {"z", nullptr}};
    const std::string text = pretty_json(v);
    BOOST_TEST(text.find("\"n\": 15.0") != std::string::npos, text);
    BOOST_TEST(text.find("\"a\": [1, 2, 3]") != std::string::npos, text);
    BOOST_TEST(text.find("\"e\": {}") != std::string::npos, text);
    BOOST_TEST(boost::json::parse(text) == v);

    const std::string line = compact_json(v);
    BOOST_TEST(line.find('\n') == std::string::npos);
    BOOST_TEST(line.find("\"n\":15.0,") != std::string::npos, line);
    BOOST_TEST(compact_json(boost::json::value(4e-5)) == "4e-05");
    BOOST_TEST(boost::json::parse(line) == v);
}

BOOST_AUTO_TEST_CASE(write_json_file_writes_the_pretty_text) {
    const std::string path = temp_path("summary.json");
    const boost::json::value v = boost::json::object{{"duration", 2.0}, {"counts", {1, 2}}};
    write_json_file(path, v);
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    std::filesystem::remove(path);
    BOOST_TEST(text.str() == pretty_json(v));
    BOOST_TEST(text.str().find("\n  \"duration\": 2.0,\n") != std::string::npos, text.str());
    BOOST_TEST(!std::filesystem::exists(path + ".tmp"));
}

BOOST_AUTO_TEST_SUITE_END()
