#include "openloop/run/result_dir.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/base/output_file.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace openloop {

namespace fs = std::filesystem;
namespace json = boost::json;

bool result_dir::has(std::string_view name) const { return fs::exists(file(name)); }

std::string result_dir::read(std::string_view name) const {
    const fs::path path = file(name);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error("cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::optional<std::string> result_dir::read_if_any(std::string_view name) const {
    if (!has(name)) return std::nullopt;
    return read(name);
}

std::optional<run_context> result_dir::run_json() const {
    const std::optional<std::string> text = read_if_any(result_file::run_json);
    if (!text) return std::nullopt;
    try {
        return run_context_from_json(json::parse(*text));
    } catch (const std::exception& e) {
        throw input_error(file(result_file::run_json).string() + ": not an openloop run.json (" + e.what() + ")");
    }
}

void result_dir::check_run() const {
    if (!fs::is_directory(path_)) throw input_error(path_.string() + " is not a directory");
    if (is_sweep())
        throw input_error(path_.string() + " is a sweep; give one of its stage directories (" +
                          (path_ / "stage-NN-RATE").string() + ")");
    if (!has(result_file::requests_jsonl))
        throw input_error(file(result_file::requests_jsonl).string() +
                          " is missing: not an openloop run's result directory");
}

merge_input result_dir::read_merge_input() const {
    check_run();
    merge_input in;
    in.name = path_.string();
    in.requests_jsonl = read(result_file::requests_jsonl);
    in.sessions_jsonl = read_if_any(result_file::sessions_jsonl).value_or("");
    if (std::optional<run_context> context = run_json()) in.context = std::move(*context);
    if (const std::optional<std::string> summary = read_if_any(result_file::summary_json)) {
        try {
            const json::value parsed = json::parse(*summary);
            const json::object& validity = parsed.as_object().at("validity").as_object();
            in.valid = validity.at("valid").as_bool();
            for (const auto& r : validity.at("reasons").as_array()) in.reasons.emplace_back(r.as_string());
        } catch (const std::exception& e) {
            throw input_error(file(result_file::summary_json).string() + ": not an openloop summary (" + e.what() + ")");
        }
    }
    return in;
}

void result_dir::write_json(std::string_view name, const json::value& value) const {
    write_json_file(file(name).string(), value);
}

void result_dir::write_text(std::string_view name, std::string_view text) const {
    write_file_replacing(file(name).string(), text);
}

void result_dir::write_run_json(const run_context& context) const {
    write_json(result_file::run_json, run_context_json(context));
}

void result_dir::write_merged(const merged_result& merged) const {
    fs::create_directories(path_);
    write_text(result_file::requests_jsonl, merged.requests_jsonl);
    if (!merged.sessions_jsonl.empty()) write_text(result_file::sessions_jsonl, merged.sessions_jsonl);
    write_run_json(merged.context);
    write_json(result_file::summary_json, merged.summary);
}

fs::path result_dir::set_summary_aside() const {
    const fs::path aside = file(result_file::summary_unreadable);
    std::error_code ec;
    fs::rename(file(result_file::summary_json), aside, ec);
    if (ec)
        throw input_error("cannot move the unreadable " + file(result_file::summary_json).string() +
                          " aside: " + ec.message());
    return aside;
}

std::string stage_dir_name(std::size_t index, double rate, int concurrency) {
    char name[64];
    if (concurrency > 0) {
        std::snprintf(name, sizeof name, "stage-%02zu-c%d", index, concurrency);
    } else {
        std::snprintf(name, sizeof name, "stage-%02zu-%gps", index, rate);
    }
    return name;
}

}  // namespace openloop
