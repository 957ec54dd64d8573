#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_result_dir)

using namespace openloop;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct temp_dir {
    fs::path path = fs::temp_directory_path() / ("result_dir_test-" + std::to_string(::getpid()));
    temp_dir() {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() { fs::remove_all(path); }
};

void put(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
}

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The message an input_error thrown by f carries; "" when none is thrown.
template <class F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

merged_result a_merge() {
    merged_result m;
    m.requests_jsonl = "{\"index\":0}\n{\"index\":1}\n";
    m.sessions_jsonl = "{\"session\":0}\n";
    m.context.target = "http://127.0.0.1:8000";
    m.summary = json::object{{"validity", json::object{{"valid", false}, {"reasons", json::array{"lag"}}}}};
    return m;
}

}  // namespace

// The files' names are the contract with users' scripts and tools/: they are spelled out here on purpose.
BOOST_AUTO_TEST_CASE(a_merged_result_is_written_under_the_documented_names_and_read_back) {
    temp_dir t;
    const result_dir dir(t.path / "merged");
    dir.write_merged(a_merge());
    for (const char* name : {"requests.jsonl", "sessions.jsonl", "run.json", "summary.json"})
        BOOST_TEST(fs::exists(t.path / "merged" / name), name);
    BOOST_TEST(slurp(t.path / "merged" / "requests.jsonl") == a_merge().requests_jsonl);

    const merge_input in = dir.read_merge_input();
    BOOST_TEST(in.name == (t.path / "merged").string());
    BOOST_TEST(in.requests_jsonl == a_merge().requests_jsonl);
    BOOST_TEST(in.sessions_jsonl == a_merge().sessions_jsonl);
    BOOST_TEST(in.context.target == "http://127.0.0.1:8000");
    BOOST_TEST_REQUIRE(in.valid.has_value());
    BOOST_TEST(!*in.valid);
    BOOST_TEST_REQUIRE(in.reasons.size() == 1u);
    BOOST_TEST(in.reasons.front() == "lag");
}

BOOST_AUTO_TEST_CASE(a_run_without_sessions_writes_no_sessions_file_and_reads_none) {
    temp_dir t;
    merged_result m = a_merge();
    m.sessions_jsonl.clear();
    const result_dir dir(t.path);
    dir.write_merged(m);
    BOOST_TEST(!fs::exists(t.path / "sessions.jsonl"));
    BOOST_TEST(dir.read_merge_input().sessions_jsonl.empty());
}

BOOST_AUTO_TEST_CASE(what_is_not_a_runs_directory_is_refused_naming_it) {
    temp_dir t;
    const std::string missing = (t.path / "none").string();
    BOOST_TEST(input_error_of([&] { result_dir(missing).check_run(); }) == missing + " is not a directory");
    BOOST_TEST(input_error_of([&] { result_dir(t.path).check_run(); }) ==
               (t.path / "requests.jsonl").string() + " is missing: not an openloop run's result directory");
    put(t.path / "sweep.json", "{}");
    BOOST_TEST(result_dir(t.path).is_sweep());
    BOOST_TEST(input_error_of([&] { result_dir(t.path).read_merge_input(); }) ==
               t.path.string() + " is a sweep; give one of its stage directories (" + (t.path / "stage-NN-RATE").string() +
                   ")");
}

BOOST_AUTO_TEST_CASE(bad_files_are_named_with_what_is_wrong) {
    temp_dir t;
    const result_dir dir(t.path);
    BOOST_TEST(input_error_of([&] { dir.read(result_file::summary_json); }) ==
               "cannot read " + (t.path / "summary.json").string());
    BOOST_TEST(!dir.read_if_any(result_file::summary_json).has_value());
    BOOST_TEST(!dir.run_json().has_value());

    put(t.path / "run.json", "{\"target\": 3}");
    const std::string why = input_error_of([&] { dir.run_json(); });
    BOOST_TEST(why.rfind((t.path / "run.json").string() + ": not an openloop run.json (", 0) == 0u, why);

    put(t.path / "requests.jsonl", "");
    std::remove((t.path / "run.json").c_str());
    put(t.path / "summary.json", "{\"completed\": 1}");
    const std::string summary_why = input_error_of([&] { dir.read_merge_input(); });
    BOOST_TEST(summary_why.rfind((t.path / "summary.json").string() + ": not an openloop summary (", 0) == 0u, summary_why);
}

BOOST_AUTO_TEST_CASE(run_json_round_trips) {
    temp_dir t;
    const result_dir dir(t.path);
    run_context c;
    c.target = "http://example:1";
    dir.write_run_json(c);
    BOOST_TEST(fs::exists(t.path / "run.json"));
    BOOST_TEST_REQUIRE(dir.run_json().has_value());
    BOOST_TEST(dir.run_json()->target == "http://example:1");
}

BOOST_AUTO_TEST_CASE(an_unreadable_summary_is_set_aside_beside_it) {
    temp_dir t;
    const result_dir dir(t.path);
    put(t.path / "summary.json", "not json");
    BOOST_TEST(dir.set_summary_aside() == t.path / "summary.json.unreadable");
    BOOST_TEST(!fs::exists(t.path / "summary.json"));
    BOOST_TEST(slurp(t.path / "summary.json.unreadable") == "not json");
    // Nothing left to move: said, naming the file.
    BOOST_TEST(input_error_of([&] { dir.set_summary_aside(); })
                   .rfind("cannot move the unreadable " + (t.path / "summary.json").string() + " aside: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(text_is_written_as_it_is_and_a_write_that_fails_names_the_file) {
    temp_dir t;
    const result_dir dir(t.path);
    dir.write_text(result_file::sweep_md, "| a |\n");
    BOOST_TEST(slurp(t.path / "sweep.md") == "| a |\n");
    const result_dir gone(t.path / "no" / "such");
    try {
        gone.write_text(result_file::sweep_csv, "x");
        BOOST_FAIL("a write into a missing directory succeeded");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()) ==
                   "cannot write " + (t.path / "no" / "such" / "sweep.csv").string() + ": No such file or directory");
    }
}

BOOST_AUTO_TEST_CASE(stage_directories_are_named_by_index_and_rate_or_concurrency) {
    BOOST_TEST(stage_dir_name(3, 2.5, 0) == "stage-03-2.5ps");
    BOOST_TEST(stage_dir_name(12, 40, 0) == "stage-12-40ps");
    BOOST_TEST(stage_dir_name(0, 1, 8) == "stage-00-c8");
}

BOOST_AUTO_TEST_SUITE_END()
