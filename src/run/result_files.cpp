#include "openloop/run/result_files.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/json_text.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

namespace openloop {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error("cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

void check_result_dir(const fs::path& dir) {
    if (!fs::is_directory(dir)) throw input_error(dir.string() + " is not a directory");
    if (fs::exists(dir / "sweep.json"))
        throw input_error(dir.string() + " is a sweep; give one of its stage directories (" +
                          (dir / "stage-NN-RATE").string() + ")");
    if (!fs::exists(dir / "requests.jsonl"))
        throw input_error((dir / "requests.jsonl").string() + " is missing: not an openloop run's result directory");
}

merge_input read_result_dir(const fs::path& dir) {
    check_result_dir(dir);
    merge_input in;
    in.name = dir.string();
    in.requests_jsonl = read_file(dir / "requests.jsonl");
    if (const fs::path sessions = dir / "sessions.jsonl"; fs::exists(sessions)) in.sessions_jsonl = read_file(sessions);
    if (const fs::path run = dir / "run.json"; fs::exists(run)) {
        try {
            in.context = run_context_from_json(json::parse(read_file(run)));
        } catch (const std::exception& e) {
            throw input_error(run.string() + ": " + e.what());
        }
    }
    if (const fs::path summary = dir / "summary.json"; fs::exists(summary)) {
        try {
            const json::value parsed = json::parse(read_file(summary));
            const json::object& validity = parsed.as_object().at("validity").as_object();
            in.valid = validity.at("valid").as_bool();
            for (const auto& r : validity.at("reasons").as_array()) in.reasons.emplace_back(r.as_string());
        } catch (const std::exception& e) {
            throw input_error(summary.string() + ": not an openloop summary (" + e.what() + ")");
        }
    }
    return in;
}

void write_merged(const merged_result& merged, const fs::path& out) {
    fs::create_directories(out);
    const auto write_log = [&](const char* name, const std::string& text) {
        std::ofstream log(out / name, std::ios::binary);
        log << text;
        if (!log.flush()) throw std::runtime_error("cannot write " + (out / name).string());
    };
    write_log("requests.jsonl", merged.requests_jsonl);
    if (!merged.sessions_jsonl.empty()) write_log("sessions.jsonl", merged.sessions_jsonl);
    write_json_file((out / "run.json").string(), run_context_json(merged.context));
    write_json_file((out / "summary.json").string(), merged.summary);
}

}  // namespace openloop
