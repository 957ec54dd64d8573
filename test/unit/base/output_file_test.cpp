#include <boost/test/unit_test.hpp>

// A result file made new: a symlink (or an old file) under its name, or under
// the temporary name a whole file is written to, is replaced and never
// written through; the file reads back as written; failures name the path.

#include "openloop/base/output_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_output_file)

using namespace openloop;
namespace fs = std::filesystem;

namespace {

struct scratch {
    fs::path dir = fs::temp_directory_path() / ("openloop-output-file-test-" + std::to_string(::getpid()));
    scratch() {
        fs::remove_all(dir);
        fs::create_directories(dir / "out");
        fs::create_directories(dir / "elsewhere");
    }
    ~scratch() { fs::remove_all(dir); }
    std::string out(const std::string& name) const { return (dir / "out" / name).string(); }
    // A file outside the result directory, and a symlink to it under name.
    std::string plant(const std::string& name) const {
        const fs::path victim = dir / "elsewhere" / name;
        std::ofstream(victim) << "not ours\n";
        fs::create_symlink(victim, out(name));
        return victim.string();
    }
};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_stream_replaces_what_had_its_name) {
    const scratch s;
    const std::string victim = s.plant("requests.jsonl");
    std::ofstream(s.out("timeseries.csv")) << "an old run's rows, longer than the new one's\n";
    for (const char* name : {"requests.jsonl", "timeseries.csv"}) {
        output_file f;
        f.open(s.out(name));
        BOOST_TEST(f.is_open());
        const std::string big(200'000, 'x');  // past the buffer: written in several pieces
        f << "line 1\n" << big << '\n';
        f.flush();
        f.close();
        BOOST_TEST(!f.is_open());
        BOOST_TEST(static_cast<bool>(f));
        BOOST_TEST(fs::is_regular_file(fs::symlink_status(s.out(name))), name);
        BOOST_TEST(slurp(s.out(name)) == "line 1\n" + big + "\n", name);
    }
    BOOST_TEST(slurp(victim) == "not ours\n");
}

BOOST_AUTO_TEST_CASE(a_whole_file_replaces_a_symlink_at_its_name_and_its_temporary_one) {
    const scratch s;
    const std::string at_name = s.plant("summary.json");
    const std::string at_tmp = s.plant("report.html.tmp");
    write_file_replacing(s.out("summary.json"), "{}\n");
    write_file_replacing(s.out("report.html"), "<html>\n");
    BOOST_TEST(slurp(at_name) == "not ours\n");
    BOOST_TEST(slurp(at_tmp) == "not ours\n");
    BOOST_TEST(fs::is_regular_file(fs::symlink_status(s.out("summary.json"))));
    BOOST_TEST(slurp(s.out("summary.json")) == "{}\n");
    BOOST_TEST(slurp(s.out("report.html")) == "<html>\n");
    BOOST_TEST(!fs::exists(fs::symlink_status(s.out("report.html.tmp"))));
}

BOOST_AUTO_TEST_CASE(what_cannot_be_written_is_named) {
    const scratch s;
    fs::create_directories(s.out("requests.jsonl"));  // a directory is not replaced
    output_file f;
    try {
        f.open(s.out("requests.jsonl"));
        BOOST_FAIL("opened a directory's name");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(s.out("requests.jsonl")) != std::string::npos, e.what());
    }
    try {
        write_file_replacing(s.out("missing/summary.json"), "{}");
        BOOST_FAIL("wrote into a missing directory");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(s.out("missing/summary.json")) != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_SUITE_END()
